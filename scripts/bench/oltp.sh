#!/usr/bin/env bash
# Benchmark: hammer's OLTP workload against sysbench 1.0.20 itself, side by side, on the same
# servers and the same tables. For each database, test and thread count it runs sysbench,
# then hammer, then sysbench, then hammer ... (ROUNDS of each), and prints one markdown table:
# transactions/s, queries/s and the client's CPU per query (utime + stime of the client
# process over its whole run, from GNU time, divided by the queries it reports), averaged
# over the rounds, with hammer's own figure (its "Client CPU" line: the measured window
# only) and the ratio hammer/sysbench of the process figures.
#   scripts/bench/oltp.sh
#   SECONDS=8 ROUNDS=1 scripts/bench/oltp.sh
# Env: SECONDS (per run, 10), THREADS ("1 4 16"), TESTS ("oltp_read_write oltp_read_only
#      oltp_point_select"), DBS ("maria pg"), ROUNDS (2), TABLES (4), TABLE_SIZE (10000),
#      REPORT (seconds between interval lines, both tools; 0 for none; 1),
#      PG_SSLMODE (both clients' sslmode on PostgreSQL, disable), HAMMER_BIN (run that hammer
#      instead of building this tree), KEEP=1 (keep the tables and the logs),
#      SERVERS (fast: the servers as they are; durable: put on durable settings by
#      scripts/bench/servers.sh for the run, and back after).
# Fairness: the same transport for both (PostgreSQL: TCP to 127.0.0.1:5432, the same
# sslmode; MariaDB: the unix socket /tmp/mariadb.sock), the same login, the same tables
# (hammer's buildschema, the shape of sysbench's prepare), prepared statements (sysbench's
# --db-ps-mode=auto, hammer's only mode), --rand-type=special (both defaults), every thread
# started at once (vuset delay 0), no ramp-up, oltp_read_only with --range_selects=off.
# Servers: the running test servers of scripts/ci/servers.sh as they are unless
# SERVERS=durable; the settings that decide the figures are read from them and printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# SECONDS is bash's own clock inside the script: the value the caller gave is the
# environment's.
RUN_SECS=$(printenv SECONDS || echo 10)
THREADS=${THREADS:-1 4 16}
TESTS=${TESTS:-oltp_read_write oltp_read_only oltp_point_select}
DBS=${DBS:-maria pg}
ROUNDS=${ROUNDS:-2}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
REPORT=${REPORT:-1}
PG_SSLMODE=${PG_SSLMODE:-disable}
SERVERS=${SERVERS:-fast}
say() { echo "oltp.sh: $*"; }
die() {
	echo "oltp.sh: $*" >&2
	exit 2
}
whole() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
whole "$RUN_SECS" || die "SECONDS must be a whole number of seconds per run, not '$RUN_SECS'"
whole "$ROUNDS" || die "ROUNDS must be a whole number of runs of each tool per cell, not '$ROUNDS'"
whole "$TABLES" || die "TABLES must be a whole number of tables, not '$TABLES'"
whole "$TABLE_SIZE" || die "TABLE_SIZE must be a whole number of rows per table, not '$TABLE_SIZE'"
[[ $REPORT =~ ^[0-9]+$ ]] || die "REPORT must be whole seconds between interval lines (0 for none), not '$REPORT'"
for t in $THREADS; do whole "$t" || die "THREADS must be whole numbers of threads, not '$t' (e.g. THREADS=\"1 4 16\")"; done
for d in $DBS; do [[ $d == maria || $d == pg ]] || die "DBS takes maria and pg, not '$d'"; done
for t in $TESTS; do
	[[ -f /usr/share/sysbench/$t.lua ]] || die "TESTS takes sysbench's OLTP tests (oltp_read_write, oltp_read_only, oltp_point_select, ...), not '$t'"
done
[[ $SERVERS == fast || $SERVERS == durable ]] || die "SERVERS must be fast (the servers as they are) or durable, not '$SERVERS'"
case $PG_SSLMODE in disable | prefer | require) ;; *) die "PG_SSLMODE must be disable, prefer or require, not '$PG_SSLMODE'" ;; esac
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
command -v sysbench >/dev/null || {
	echo "oltp.sh: sysbench is missing: apt-get install sysbench" >&2
	exit 1
}
[[ -x /usr/bin/time ]] && /usr/bin/time -f %U true >/dev/null 2>&1 || {
	echo "oltp.sh: GNU time (/usr/bin/time) is missing: apt-get install time" >&2
	exit 1
}
say "checking the test servers (scripts/ci/servers.sh)"
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
if [[ -n ${HAMMER_BIN:-} ]]; then
	HAMMER=$HAMMER_BIN
	[[ -x $HAMMER ]] || die "HAMMER_BIN=$HAMMER is not an executable hammer"
else
	say "building hammer (cargo build --release) ..."
	cargo build --release --quiet
	HAMMER=$PWD/target/release/hammer
fi
WORK=$(mktemp -d /tmp/hammer-oltp-bench.XXXXXX)
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"
CPUS=$(nproc)
MARIA_SOCK=/tmp/mariadb.sock
# bench_psql, bench_maria, and the durable settings when asked for.
source scripts/bench/servers.sh
# A run that outlives its time by this much is stuck: it is ended.
BOUND=$((RUN_SECS + 120))

# hammer's dictionary for `db`: the same server, login, database and tables as sysbench's.
setup() { # db
	case $1 in
	maria)
		cat <<-RHAI
			dbset("db", "maria");
			dbset("bm", "OLTP");
			diset("connection", "maria_socket", "$MARIA_SOCK");
			diset("oltp", "maria_oltp_user", "root");
			diset("oltp", "maria_oltp_pass", "maria");
			diset("oltp", "maria_oltp_dbase", "hammer_ob_maria");
		RHAI
		;;
	pg)
		cat <<-RHAI
			dbset("db", "pg");
			dbset("bm", "OLTP");
			diset("connection", "pg_host", "127.0.0.1");
			diset("connection", "pg_port", 5432);
			diset("connection", "pg_sslmode", "$PG_SSLMODE");
			diset("oltp", "pg_oltp_superuser", "postgres");
			diset("oltp", "pg_oltp_superuserpass", "postgres");
			diset("oltp", "pg_oltp_user", "hammer_ob_pg");
			diset("oltp", "pg_oltp_pass", "hammer_ob_pg");
			diset("oltp", "pg_oltp_dbase", "hammer_ob_pg");
		RHAI
		;;
	esac
	cat <<-RHAI
		diset("oltp", "${1}_oltp_tables", $TABLES);
		diset("oltp", "${1}_oltp_table_size", $TABLE_SIZE);
	RHAI
}

# sysbench's options for `db`: the same login, database and transport as hammer's.
sysbench_args() { # db
	case $1 in
	maria) echo "--db-driver=mysql --mysql-socket=$MARIA_SOCK --mysql-user=root --mysql-password=maria --mysql-db=hammer_ob_maria" ;;
	pg) echo "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 --pgsql-user=hammer_ob_pg --pgsql-password=hammer_ob_pg --pgsql-db=hammer_ob_pg" ;;
	esac
}

hammer_auto() { # name: runs $WORK/name.rhai, its output in $WORK/name.log
	"$HAMMER" auto "$WORK/$1.rhai" >"$WORK/$1.log" 2>&1 || {
		echo "oltp.sh: hammer's $1 failed (its last lines):" >&2
		tail -20 "$WORK/$1.log" >&2
		exit 1
	}
}

built=()
cleanup() {
	local db
	if [[ -z ${KEEP:-} ]]; then
		for db in "${built[@]}"; do
			{ setup "$db"; echo 'deleteschema();'; } >"$WORK/delete_$db.rhai"
			"$HAMMER" auto "$WORK/delete_$db.rhai" >/dev/null 2>&1 || echo "oltp.sh: could not drop hammer_ob_$db" >&2
		done
		rm -rf "$WORK"
	else
		echo "oltp.sh: kept the tables (hammer_ob_*) and the logs in $WORK"
	fi
	[[ $SERVERS == durable ]] && bench_servers_restore
	return 0
}
trap cleanup EXIT
trap 'echo "oltp.sh: stopping"; exit 130' INT TERM
if [[ $SERVERS == durable ]]; then
	bench_servers_set
fi

server_settings() { # db
	case $1 in
	maria) bench_maria -e "SELECT CONCAT('MariaDB ', VERSION(), ': innodb_buffer_pool_size=', @@innodb_buffer_pool_size DIV 1048576, 'M innodb_flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit, ' sync_binlog=', @@sync_binlog, ' log_bin=', @@log_bin)" ;;
	pg) bench_psql -F ' ' -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ':', 'shared_buffers=' || current_setting('shared_buffers'), 'synchronous_commit=' || current_setting('synchronous_commit'), 'fsync=' || current_setting('fsync'), 'full_page_writes=' || current_setting('full_page_writes')" ;;
	esac
}

# One run's figures from its summary block (the same words in sysbench's and hammer's):
# "transactions tps queries qps".
summary() { # log
	awk '/^ *transactions:/ { t = $2; gsub(/\(/, "", $3); tps = $3 }
	     /^ *queries:/      { q = $2; gsub(/\(/, "", $3); qps = $3 }
	     END { if (t == "" || q == "") exit 1; print t, tps, q, qps }' "$1"
}

declare -A SUM
add() { SUM[$1]=$(echo "${SUM[$1]:-0} + $2" | bc -l); }
avg() { echo "${SUM[$1]:-0} / $ROUNDS" | bc -l; }

# One run of sysbench on a cell; adds its figures to the cell's sums.
run_sysbench() { # db test threads
	local db=$1 test=$2 threads=$3 extra=()
	[[ $test == oltp_read_only ]] && extra=(--range_selects=off)
	# shellcheck disable=SC2046
	PGSSLMODE=$PG_SSLMODE /usr/bin/time -f "%U %S %w" -o "$WORK/time" timeout -k 5 "$BOUND" sysbench "$test" $(sysbench_args "$db") \
		--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$threads" --time="$RUN_SECS" \
		--report-interval="$REPORT" --db-ps-mode=auto --rand-type=special "${extra[@]}" run >"$WORK/sysbench.log" 2>&1 || {
		echo "oltp.sh: sysbench $test on $db failed (its last lines):" >&2
		tail -20 "$WORK/sysbench.log" >&2
		return 1
	}
	local txns tps queries qps user sys sleeps cpu
	read -r txns tps queries qps < <(summary "$WORK/sysbench.log") || {
		echo "oltp.sh: no summary in sysbench's output" >&2
		return 1
	}
	read -r user sys sleeps < <(tail -1 "$WORK/time")
	cpu=$(echo "1000000 * ($user + $sys) / $queries" | bc -l)
	local key="$db|$test|$threads|sysbench"
	add "$key|tps" "$tps"
	add "$key|qps" "$qps"
	add "$key|cpu" "$cpu"
	add "$key|sleeps" "$(echo "$sleeps / $queries" | bc -l)"
	printf '  sysbench: %9.1f TPS %10.1f QPS, %6.2f s CPU, %6.2f us CPU per query, %.2f sleeps per query\n' \
		"$tps" "$qps" "$(echo "$user + $sys" | bc -l)" "$cpu" "$(echo "$sleeps / $queries" | bc -l)"
}

# One run of hammer on a cell; adds its figures to the cell's sums.
run_hammer() { # db test threads
	local db=$1 test=$2 threads=$3 ranges=true
	[[ $test == oltp_read_only ]] && ranges=false
	{
		setup "$db"
		cat <<-RHAI
			diset("oltp", "${db}_oltp_test", "$test");
			diset("oltp", "${db}_oltp_range_selects", "$ranges");
			diset("oltp", "${db}_oltp_rand_type", "special");
			diset("oltp", "${db}_oltp_rampup", 0);
			diset("oltp", "${db}_oltp_duration", $(printf '%.6f' "$(echo "$RUN_SECS / 60" | bc -l)"));
			vuset("vu", $threads);
			vuset("delay", 0);
			vuset("refreshrate", $REPORT);
			loadscript();
			vucreate();
			vurun();
			vudestroy();
		RHAI
	} >"$WORK/run.rhai"
	/usr/bin/time -f "%U %S %w" -o "$WORK/time" timeout -k 5 "$BOUND" "$HAMMER" auto "$WORK/run.rhai" >"$WORK/run.log" 2>&1 || {
		echo "oltp.sh: hammer's $test on $db failed (its last lines):" >&2
		tail -20 "$WORK/run.log" >&2
		return 1
	}
	local txns tps queries qps user sys sleeps cpu own
	read -r txns tps queries qps < <(summary "$WORK/run.log") || {
		echo "oltp.sh: no summary in hammer's output" >&2
		return 1
	}
	read -r user sys sleeps < <(tail -1 "$WORK/time")
	cpu=$(echo "1000000 * ($user + $sys) / $queries" | bc -l)
	own=$(sed -n 's/^Client CPU: .*, \([0-9.]*\) us per query.*/\1/p' "$WORK/run.log" | head -1)
	[[ -n $own ]] || {
		echo "oltp.sh: no 'Client CPU' line in hammer's output" >&2
		return 1
	}
	local key="$db|$test|$threads|hammer"
	add "$key|tps" "$tps"
	add "$key|qps" "$qps"
	add "$key|cpu" "$cpu"
	add "$key|own" "$own"
	add "$key|sleeps" "$(echo "$sleeps / $queries" | bc -l)"
	printf '  hammer:   %9.1f TPS %10.1f QPS, %6.2f s CPU, %6.2f us CPU per query, %.2f sleeps per query (its own figure, the window only: %s us)\n' \
		"$tps" "$qps" "$(echo "$user + $sys" | bc -l)" "$cpu" "$(echo "$sleeps / $queries" | bc -l)" "$own"
}

# Whether `db`'s server answers a query.
server_up() { # db
	case $1 in
	maria) bench_maria -e "SELECT 1" >/dev/null 2>&1 ;;
	pg) bench_psql -c "SELECT 1" >/dev/null 2>&1 ;;
	esac
}

# A run (run_sysbench or run_hammer) on a cell, tried again when it failed (the shared test
# servers may be restarted under it): after the server answers again, at most 3 tries.
attempt() { # run db test threads
	local try
	for try in 1 2 3; do
		"$@" && return 0
		((try < 3)) || break
		say "waiting (60 s at most) for the $2 server to answer, then running it again (try $((try + 1)) of 3)"
		local waited=0
		until server_up "$2"; do
			((waited < 60)) || break
			sleep 1
			waited=$((waited + 1))
		done
	done
	echo "oltp.sh: $1 on $2 $3 with $4 threads failed 3 times: stopping" >&2
	exit 1
}

say "hammer's OLTP against $(sysbench --version): $TABLES tables of $TABLE_SIZE rows, $RUN_SECS s per run, $ROUNDS rounds, threads $THREADS, $CPUS CPUs"
SETTINGS=()
for db in $DBS; do
	SETTINGS+=("$(server_settings "$db")")
	say "building hammer_ob_$db with hammer's buildschema ($TABLES tables of $TABLE_SIZE rows, sysbench's shape)"
	{
		setup "$db"
		echo "diset(\"oltp\", \"${db}_oltp_build_threads\", 2);"
		echo 'try { deleteschema(); } catch {}'
		echo 'buildschema();'
	} >"$WORK/build_$db.rhai"
	built+=("$db")
	hammer_auto "build_$db"
	for test in $TESTS; do
		for threads in $THREADS; do
			for ((r = 1; r <= ROUNDS; r++)); do
				say "$db $test, $threads threads, round $r of $ROUNDS: sysbench, then hammer ($RUN_SECS s each)"
				attempt run_sysbench "$db" "$test" "$threads"
				attempt run_hammer "$db" "$test" "$threads"
			done
		done
	done
done

echo
echo "### hammer's OLTP against sysbench 1.0.20 ($CPUS CPUs, $TABLES tables of $TABLE_SIZE rows, $RUN_SECS s per run, mean of $ROUNDS rounds)"
echo
echo "| server | test | threads | sysbench TPS | hammer TPS | sysbench QPS | hammer QPS | sysbench us CPU/query | hammer us CPU/query | hammer's own figure | hammer/sysbench | sysbench sleeps/query | hammer sleeps/query |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for db in $DBS; do
	name=MariaDB
	[[ $db == pg ]] && name=PostgreSQL
	for test in $TESTS; do
		label=$test
		[[ $test == oltp_read_only ]] && label="$test (range_selects off)"
		for threads in $THREADS; do
			s="$db|$test|$threads|sysbench"
			h="$db|$test|$threads|hammer"
			printf '| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n' "$name" "$label" "$threads" \
				"$(avg "$s|tps")" "$(avg "$h|tps")" "$(avg "$s|qps")" "$(avg "$h|qps")" \
				"$(avg "$s|cpu")" "$(avg "$h|cpu")" "$(avg "$h|own")" \
				"$(echo "$(avg "$h|cpu") / $(avg "$s|cpu")" | bc -l)" \
				"$(avg "$s|sleeps")" "$(avg "$h|sleeps")"
		done
	done
done
echo
echo "CPU per query: the client process's user + system CPU over its whole run (start, connections, statements prepared, the run) divided by the queries its summary reports; hammer's own figure is its 'Client CPU' line, over the measured window only."
echo "Sleeps: the client process's voluntary context switches (GNU time's %w) per query; on these machines a wake-up costs more the longer the thread slept, so the CPU per query follows the server's speed and compares only at like throughput, the sleeps at any."
echo "Transport: MariaDB through the unix socket $MARIA_SOCK, PostgreSQL over TCP 127.0.0.1:5432 with sslmode=$PG_SSLMODE (both clients)."
echo "Servers (SERVERS=$SERVERS; read from them):"
for s in "${SETTINGS[@]}"; do echo "  $s"; done
