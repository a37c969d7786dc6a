#!/usr/bin/env bash
# Benchmark: build a TPROC-C schema with hammer on PostgreSQL and MariaDB, and compare with
# the servers' own bulk loaders ingesting the same data from datagenrun's flat files.
#   scripts/bench/build.sh [warehouses=4] [loaders=2]
# Needs the servers of scripts/ci/servers.sh (started if not running). Prints, per database:
# hammer's wall seconds, rows/s, client CPU seconds and share of one core; the server's own
# ingest time (psql \copy / LOAD DATA LOCAL INFILE, then keys); and the ratio.
# Servers: durable settings by default (fsync, synchronous commit, full-page writes,
# InnoDB's flush at commit), printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-4}
B=${2:-2}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
cargo build --release --quiet
HAMMER=$PWD/target/release/hammer
WORK=$(mktemp -d /tmp/hammer-bench.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME" "$WORK/data"
PGURL="host=127.0.0.1 port=5432 user=postgres password=postgres"
MARIA=(mariadb --no-defaults -h127.0.0.1 -P3306 -uroot -pmaria --local-infile=1)

# Column order of the flat files (src/tpcc/mod.rs, Table::columns).
declare -A COLS=(
	[warehouse]="w_id,w_name,w_street_1,w_street_2,w_city,w_state,w_zip,w_tax,w_ytd"
	[district]="d_id,d_w_id,d_name,d_street_1,d_street_2,d_city,d_state,d_zip,d_tax,d_ytd,d_next_o_id"
	[customer]="c_id,c_d_id,c_w_id,c_first,c_middle,c_last,c_street_1,c_street_2,c_city,c_state,c_zip,c_phone,c_since,c_credit,c_credit_lim,c_discount,c_balance,c_ytd_payment,c_payment_cnt,c_delivery_cnt,c_data"
	[history]="h_c_id,h_c_d_id,h_c_w_id,h_d_id,h_w_id,h_date,h_amount,h_data"
	[new_order]="no_o_id,no_d_id,no_w_id"
	[orders]="o_id,o_d_id,o_w_id,o_c_id,o_entry_d,o_carrier_id,o_ol_cnt,o_all_local"
	[order_line]="ol_o_id,ol_d_id,ol_w_id,ol_number,ol_i_id,ol_supply_w_id,ol_delivery_d,ol_quantity,ol_amount,ol_dist_info"
	[item]="i_id,i_im_id,i_name,i_price,i_data"
	[stock]="s_i_id,s_w_id,s_quantity,s_dist_01,s_dist_02,s_dist_03,s_dist_04,s_dist_05,s_dist_06,s_dist_07,s_dist_08,s_dist_09,s_dist_10,s_ytd,s_order_cnt,s_remote_cnt,s_data"
)

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }

hammer_build() { # db prefix, database name
	local db=$1 name=$2
	cat >"$WORK/build_$db.rhai" <<-RHAI
		dbset("db", "$db");
		diset("connection", "${db}_host", "127.0.0.1");
		diset("tpcc", "${db}_dbase", "$name");
		diset("tpcc", "${db}_count_ware", $W);
		diset("tpcc", "${db}_num_vu", $B);
		if "$db" == "pg" { diset("tpcc", "pg_user", "$name"); diset("tpcc", "pg_superuserpass", "postgres"); }
		let r = buildschema();
		print(\`RESULT \${r.rows} \${r.seconds}\`);
		deleteschema();
	RHAI
	local t0 t1 stat
	TIMEFORMAT='%R %U %S'
	{ time "$HAMMER" auto "$WORK/build_$db.rhai" >"$WORK/build_$db.log"; } 2>"$WORK/time_$db"
	read -r wall usr sys <"$WORK/time_$db"
	local rows build_s
	read -r _ rows build_s < <(grep '^RESULT' "$WORK/build_$db.log")
	local cpu
	cpu=$(echo "$usr + $sys" | bc -l)
	printf '%s hammer build: %d warehouses, %d loaders: %.1f s, %.0f rows/s, client CPU %.1f s (%.0f %% of one core)\n' \
		"$db" "$W" "$B" "$build_s" "$(echo "$rows / $build_s" | bc -l)" "$cpu" "$(echo "100 * $cpu / $build_s" | bc -l)"
	echo "$build_s" >"$WORK/build_s_$db"
}

datagen() {
	cat >"$WORK/gen.rhai" <<-RHAI
		dgset("directory", "$WORK/data");
		dgset("warehouse", $W);
		dgset("vu", $B);
		datagenrun();
	RHAI
	"$HAMMER" auto "$WORK/gen.rhai" >/dev/null
}

pg_ingest() {
	psql -X -q "$PGURL dbname=postgres" -c "DROP DATABASE IF EXISTS hammer_bench_ingest" -c "CREATE DATABASE hammer_bench_ingest"
	local url="$PGURL dbname=hammer_bench_ingest"
	sed 's/{{partition}}//' schemas/pg/tprocc/tables.sql | psql -X -q "$url" >/dev/null
	local t0 t1 pids=()
	t0=$(now)
	for f in "$WORK"/data/*.tbl; do
		local t
		t=$(basename "$f" .tbl)
		t=${t%_*}
		psql -X -q "$url" -c "\\copy $t (${COLS[$t]}) from '$f' with (format text, delimiter '|', null '')" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now)
	psql -X -q "$url" -f schemas/pg/tprocc/keys.sql >/dev/null
	local t2
	t2=$(now)
	printf 'pg server ingest (psql \\copy, files in parallel): %.1f s; with keys: %.1f s\n' "$(secs "$t0" "$t1")" "$(secs "$t0" "$t2")"
	secs "$t0" "$t2" >"$WORK/ingest_s_pg"
	psql -X -q "$PGURL dbname=postgres" -c "DROP DATABASE hammer_bench_ingest"
}

maria_ingest() {
	"${MARIA[@]}" -e "DROP DATABASE IF EXISTS hammer_bench_ingest; CREATE DATABASE hammer_bench_ingest"
	sed 's/{{engine}}/innodb/; s/{{history_pk}}//; s/{{partition}}//' schemas/mysql/tprocc/tables.sql |
		grep -v '^-- go' | "${MARIA[@]}" hammer_bench_ingest
	local t0 t1 pids=()
	t0=$(now)
	for f in "$WORK"/data/*.tbl; do
		local t
		t=$(basename "$f" .tbl)
		t=${t%_*}
		"${MARIA[@]}" hammer_bench_ingest -e "SET unique_checks=0, foreign_key_checks=0; LOAD DATA LOCAL INFILE '$f' INTO TABLE $t FIELDS TERMINATED BY '|' (${COLS[$t]})" 2>/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(now)
	printf 'maria server ingest (LOAD DATA LOCAL INFILE, keys inline, files in parallel): %.1f s\n' "$(secs "$t0" "$t1")"
	secs "$t0" "$t1" >"$WORK/ingest_s_maria"
	"${MARIA[@]}" -e "DROP DATABASE hammer_bench_ingest"
}

hammer_build pg hammer_bench_pg
hammer_build maria hammer_bench_maria
datagen
pg_ingest
maria_ingest
for db in pg maria; do
	printf '%s: hammer build / server ingest = %.2f (target <= 1.5)\n' "$db" \
		"$(echo "$(cat "$WORK/build_s_$db") / $(cat "$WORK/ingest_s_$db")" | bc -l)"
done
