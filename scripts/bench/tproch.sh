#!/usr/bin/env bash
# Benchmark: TPROC-H with hammer on PostgreSQL and MariaDB.
#   scripts/bench/tproch.sh [scale_factor=1] [loader counts="1 2"]
# Prints, per database and loader count: hammer's build time (load, keys, statistics) and its
# client CPU; the server's own bulk load of the same rows (datagenrun's flat files through
# psql \copy / LOAD DATA LOCAL INFILE, files in parallel, then the same keys) and the ratio
# (target <= 1.3); the generator's rows per second alone (datagenrun to files); and a power
# test's geometric mean with the client's share of the machine during the queries, then the
# 22 queries with the specification's validation parameters, their answers checked against the
# published answer set (scale factors 1 and 0.01).
# Needs the servers of scripts/ci/servers.sh (started if not running). Servers: durable
# settings by default, printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=${1:-1}
LOADERS=${2:-"1 2"}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
echo "tproch.sh: building hammer (release)"
cargo build --release --quiet
HAMMER=$PWD/target/release/hammer
WORK=$(mktemp -d /tmp/hammer-bench-tproch.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME" "$WORK/data"
PGURL="host=127.0.0.1 port=5432 user=postgres password=postgres"
MARIA=(mariadb --no-defaults -h127.0.0.1 -P3306 -uroot -pmaria --local-infile=1)

# Column order of the flat files (src/tpch/mod.rs, Table::columns).
declare -A COLS=(
	[region]="r_regionkey,r_name,r_comment"
	[nation]="n_nationkey,n_name,n_regionkey,n_comment"
	[supplier]="s_suppkey,s_name,s_address,s_nationkey,s_phone,s_acctbal,s_comment"
	[customer]="c_custkey,c_name,c_address,c_nationkey,c_phone,c_acctbal,c_mktsegment,c_comment"
	[part]="p_partkey,p_name,p_mfgr,p_brand,p_type,p_size,p_container,p_retailprice,p_comment"
	[partsupp]="ps_partkey,ps_suppkey,ps_availqty,ps_supplycost,ps_comment"
	[orders]="o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,o_orderpriority,o_clerk,o_shippriority,o_comment"
	[lineitem]="l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,l_comment"
)

# A schemas/ file's statements (separated by '-- go' lines) as ';'-ended SQL for psql/mariadb.
sql_of() {
	sed 's/{{engine}}/innodb/g' "$@" | awk '
		/^-- go$/ { if (s ~ /[^ \n]/) print s ";"; s = ""; next }
		/^--/ { next }
		{ s = s $0 "\n" }
		END { if (s ~ /[^ \n]/) print s ";" }'
}

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
# The table a flat file holds: lineitem.tbl, lineitem_2.tbl, lineitem.tbl.2 -> lineitem.
table_of() {
	local t
	t=$(basename "$1")
	t=${t%%.*}
	echo "${t%%_*}"
}

dict() { # db prefix, database name: the tpch keys pointing at the bench database
	local db=$1 name=$2
	echo "dbset(\"db\", \"$db\"); dbset(\"bm\", \"TPC-H\");"
	echo "diset(\"connection\", \"${db}_host\", \"127.0.0.1\");"
	echo "diset(\"tpch\", \"${db}_tpch_dbase\", \"$name\"); diset(\"tpch\", \"${db}_scale_fact\", \"$SF\");"
	if [[ $db == pg ]]; then
		echo "diset(\"tpch\", \"pg_tpch_user\", \"$name\"); diset(\"tpch\", \"pg_tpch_superuserpass\", \"postgres\");"
	else
		echo "diset(\"tpch\", \"${db}_tpch_pass\", \"maria\");"
	fi
}

hammer_build() { # db prefix, loaders
	local db=$1 b=$2 name=hammer_bench_tph_$1
	{
		dict "$db" "$name"
		echo "diset(\"tpch\", \"${db}_num_tpch_threads\", $b);"
		echo "deleteschema();"
		echo "let r = buildschema();"
		echo "print(\`RESULT \${r.rows} \${r.seconds}\`);"
	} >"$WORK/build_$db.rhai"
	echo "tproch.sh: building scale factor $SF on $db with $b loader(s) ..."
	TIMEFORMAT='%R %U %S'
	{ time "$HAMMER" auto "$WORK/build_$db.rhai" >"$WORK/build_$db.log"; } 2>"$WORK/time_$db"
	local wall usr sys rows build_s cpu
	read -r wall usr sys <"$WORK/time_$db"
	read -r _ rows build_s < <(grep '^RESULT' "$WORK/build_$db.log")
	cpu=$(echo "$usr + $sys" | bc -l)
	printf '%s hammer build: scale factor %s, %d loaders: %.1f s, %.0f rows/s, client CPU %.1f s (%.0f %% of one core)\n' \
		"$db" "$SF" "$b" "$build_s" "$(echo "$rows / $build_s" | bc -l)" "$cpu" "$(echo "100 * $cpu / $build_s" | bc -l)"
	echo "$build_s" >"$WORK/build_s_${db}_$b"
}

datagen() { # loaders
	cat >"$WORK/gen.rhai" <<-RHAI
		dbset("bm", "TPC-H");
		dgset("directory", "$WORK/data");
		dgset("scale_fact", "$SF");
		dgset("vu", $1);
		let rows = datagenrun();
	RHAI
	echo "tproch.sh: generating scale factor $SF to flat files ..."
	rm -rf "$WORK/data" && mkdir -p "$WORK/data"
	local t0 t1 rows
	t0=$(now)
	"$HAMMER" auto "$WORK/gen.rhai" >"$WORK/gen.log"
	t1=$(now)
	rows=$(cat "$WORK"/data/* | wc -l)
	printf 'generator (datagenrun, %d parts, to files): %d rows in %.1f s, %.0f rows/s\n' \
		"$1" "$rows" "$(secs "$t0" "$t1")" "$(echo "$rows / $(secs "$t0" "$t1")" | bc -l)"
}

pg_ingest() {
	psql -X -q "$PGURL dbname=postgres" -c "DROP DATABASE IF EXISTS hammer_bench_ingest" -c "CREATE DATABASE hammer_bench_ingest"
	local url="$PGURL dbname=hammer_bench_ingest"
	sql_of schemas/pg/tproch/tables.sql | psql -X -q "$url" >/dev/null
	local t0 t1 t2 pids=()
	t0=$(now)
	for f in "$WORK"/data/*; do
		local t
		t=$(table_of "$f")
		# dbgen's lines end in '|': cut it for COPY's text format.
		psql -X -q "$url" -c "\\copy $t (${COLS[$t]}) from program 'sed \"s/|\$//\" $f' with (format text, delimiter '|', null '')" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now)
	sql_of schemas/pg/tproch/keys.sql schemas/pg/tproch/foreign.sql | psql -X -q "$url" >/dev/null
	psql -X -q "$url" -c "ANALYZE" >/dev/null
	t2=$(now)
	printf 'pg server ingest (psql \\copy, files in parallel): %.1f s; with keys and statistics: %.1f s\n' "$(secs "$t0" "$t1")" "$(secs "$t0" "$t2")"
	secs "$t0" "$t2" >"$WORK/ingest_s_pg"
	psql -X -q "$PGURL dbname=postgres" -c "DROP DATABASE hammer_bench_ingest"
}

maria_ingest() {
	"${MARIA[@]}" -e "DROP DATABASE IF EXISTS hammer_bench_ingest; CREATE DATABASE hammer_bench_ingest"
	sql_of schemas/mysql/tproch/tables.sql | "${MARIA[@]}" hammer_bench_ingest
	local t0 t1 t2 pids=()
	t0=$(now)
	for f in "$WORK"/data/*; do
		local t
		t=$(table_of "$f")
		"${MARIA[@]}" hammer_bench_ingest -e "SET unique_checks=0, foreign_key_checks=0; LOAD DATA LOCAL INFILE '$f' INTO TABLE $t FIELDS TERMINATED BY '|' LINES TERMINATED BY '|\n' (${COLS[$t]})" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now)
	{
		echo "SET foreign_key_checks = 0;"
		sql_of schemas/mysql/tproch/keys.sql schemas/mysql/tproch/foreign.sql
	} | "${MARIA[@]}" hammer_bench_ingest
	"${MARIA[@]}" hammer_bench_ingest -e "ANALYZE TABLE region, nation, supplier, customer, part, partsupp, orders, lineitem" >/dev/null
	t2=$(now)
	printf 'maria server ingest (LOAD DATA LOCAL INFILE, files in parallel): %.1f s; with keys and statistics: %.1f s\n' "$(secs "$t0" "$t1")" "$(secs "$t0" "$t2")"
	secs "$t0" "$t2" >"$WORK/ingest_s_maria"
	"${MARIA[@]}" -e "DROP DATABASE hammer_bench_ingest"
}

power_test() { # db prefix
	local db=$1 name=hammer_bench_tph_$1
	{
		dict "$db" "$name"
		echo "vuset(\"vu\", 1); vuset(\"refreshrate\", 0);"
		echo "diset(\"tpch\", \"${db}_refresh_on\", \"true\");"
		echo "vurun(); let l = lastrun();"
		echo "print(\`POWER \${l.geomean} \${l.seconds} \${l.client_cpu_seconds}\`);"
		# The validation parameters, every answer compared with the published answer set
		# (scale factors 1 and 0.01).
		echo "vudestroy(); diset(\"tpch\", \"${db}_refresh_on\", \"false\"); diset(\"tpch\", \"${db}_validate\", \"true\"); vurun();"
		echo "vudestroy(); deleteschema();"
	} >"$WORK/power_$db.rhai"
	echo "tproch.sh: power test on $db ..."
	"$HAMMER" auto "$WORK/power_$db.rhai" >"$WORK/power_$db.log"
	local g s cpu cpus
	read -r _ g s cpu < <(grep '^POWER' "$WORK/power_$db.log")
	cpus=$(nproc)
	grep -E 'Power@Size|Answers checked|answer differs' "$WORK/power_$db.log" | sed "s/^/$db /"
	printf '%s power test: geometric mean %.3f s, %.1f s in all, client CPU %.2f s (%.2f %% of %d CPUs)\n' \
		"$db" "$g" "$s" "$cpu" "$(echo "100 * $cpu / ($s * $cpus)" | bc -l)" "$cpus"
}

for b in $LOADERS; do
	hammer_build pg "$b"
	hammer_build maria "$b"
done
datagen 2
pg_ingest
maria_ingest
for b in $LOADERS; do
	for db in pg maria; do
		printf '%s, %d loader(s): hammer build / server ingest = %.2f (target <= 1.3)\n' "$db" "$b" \
			"$(echo "$(cat "$WORK/build_s_${db}_$b") / $(cat "$WORK/ingest_s_$db")" | bc -l)"
	done
done
power_test pg
power_test maria
