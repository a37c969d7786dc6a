#!/usr/bin/env bash
# Benchmark: the C client's floor per statement. sysbench-tpcc (Percona's TPC-C scripts for
# sysbench) is not in Debian, PyPI or npm, so this runs the sysbench that apt has (C, libmysql /
# libpq, LuaJIT) on its own oltp_read_write, 4 threads, and prints its CPU per statement: each
# statement is a round trip, as each of hammer's client-side SQL statements is. Then it runs
# hammer's MariaDB client-side SQL (4 warehouses, 4 VUs) and prints hammer's CPU per
# transaction, its statements per transaction (MariaDB's own Com_stmt_execute, Com_commit and
# Com_rollback over the run) and so its CPU per statement.
#   scripts/bench/sysbench.sh [seconds=30]
# Servers: durable settings by default, printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-30}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
command -v sysbench >/dev/null || { echo "sysbench is missing: apt-get install sysbench" >&2; exit 1; }
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
if [[ -n ${HAMMER_BIN:-} ]]; then
	HAMMER=$HAMMER_BIN
else
	echo "sysbench.sh: building hammer (release) ..."
	cargo build --release --quiet
	HAMMER=$PWD/target/release/hammer
fi
WORK=$(mktemp -d /tmp/hammer-sysbench.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"
CPUS=$(nproc)

# sysbench on one database: prints its CPU per transaction and per statement.
sysbench_floor() { # label args...
	local label=$1
	shift
	local sb=(sysbench oltp_read_write "$@" --tables=4 --table-size=100000 --threads=4)
	"${sb[@]}" cleanup >/dev/null 2>&1 || true
	echo "sysbench.sh: loading sysbench's tables for $label ..."
	"${sb[@]}" prepare >"$WORK/prepare.log" 2>&1 || { tail "$WORK/prepare.log"; return 1; }
	/usr/bin/time -f "%U %S" -o "$WORK/time" "${sb[@]}" --time="$SECS" --report-interval=0 run >"$WORK/out" 2>&1 ||
		{ tail "$WORK/out"; return 1; }
	"${sb[@]}" cleanup >/dev/null 2>&1 || true
	local txns queries user sys
	txns=$(awk '/transactions:/ {print $2; exit}' "$WORK/out")
	queries=$(awk '/queries:/ {print $2; exit}' "$WORK/out")
	read -r user sys <"$WORK/time"
	printf 'sysbench %-24s %7d transactions, %8d statements: %6.1f us CPU per transaction, %5.1f us per statement, %4.1f %% of the machine\n' \
		"$label" "$txns" "$queries" "$(echo "1000000 * ($user + $sys) / $txns" | bc -l)" \
		"$(echo "1000000 * ($user + $sys) / $queries" | bc -l)" "$(echo "100 * ($user + $sys) / ($SECS * $CPUS)" | bc -l)"
}

echo "sysbench floor: oltp_read_write, 4 tables of 100,000 rows, 4 threads, $SECS s, $CPUS CPUs"
bench_maria -e "DROP DATABASE IF EXISTS hammer_sysbench; CREATE DATABASE hammer_sysbench"
sysbench_floor "MariaDB (unix socket)" --db-driver=mysql --mysql-socket=/tmp/mariadb.sock \
	--mysql-user=root --mysql-password=maria --mysql-db=hammer_sysbench
sysbench_floor "MariaDB (TCP)" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 \
	--mysql-user=root --mysql-password=maria --mysql-db=hammer_sysbench
bench_maria -e "DROP DATABASE hammer_sysbench"
bench_psql -c "DROP DATABASE IF EXISTS hammer_sysbench" -c "CREATE DATABASE hammer_sysbench" >/dev/null
sysbench_floor "PostgreSQL (TCP)" --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=5432 \
	--pgsql-user=postgres --pgsql-password=postgres --pgsql-db=hammer_sysbench
bench_psql -c "DROP DATABASE hammer_sysbench" >/dev/null

# hammer's MariaDB client-side SQL, with MariaDB's statement counters around the run.
setup() {
	cat <<-RHAI
		dbset("db", "maria");
		diset("connection", "maria_host", "127.0.0.1");
		diset("tpcc", "maria_dbase", "hammer_bench_sysbench");
		diset("tpcc", "maria_pass", "maria");
		diset("tpcc", "maria_count_ware", 4);
		diset("tpcc", "maria_num_vu", 2);
	RHAI
}
echo "sysbench.sh: building hammer's 4-warehouse MariaDB schema ..."
{ setup; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
"$HAMMER" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }
statements() {
	bench_maria -e "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_STMT_EXECUTE', 'COM_COMMIT', 'COM_ROLLBACK')"
}
{
	setup
	cat <<-RHAI
		diset("tpcc", "maria_no_stored_procs", "true");
		diset("tpcc", "maria_driver", "timed");
		diset("tpcc", "maria_rampup", 0);
		diset("tpcc", "maria_duration", $(printf "%.3f" "$(echo "$SECS / 60" | bc -l)"));
		vuset("vu", 4);
		vuset("delay", 0);
		vurun();
		let r = lastrun();
		print(\`RESULT \${r.transactions} \${r.client_cpu_seconds}\`);
		vudestroy();
	RHAI
} >"$WORK/run.rhai"
before=$(statements)
"$HAMMER" auto "$WORK/run.rhai" >"$WORK/run.log" 2>&1 || { tail -20 "$WORK/run.log"; exit 1; }
after=$(statements)
read -r _ txns cpu < <(grep '^RESULT' "$WORK/run.log")
stmts=$((after - before))
printf 'hammer   %-24s %7d transactions, %8d statements: %6.1f us CPU per transaction, %5.1f us per statement (%.1f statements per transaction)\n' \
	"MariaDB client SQL" "$txns" "$stmts" "$(echo "1000000 * $cpu / $txns" | bc -l)" \
	"$(echo "1000000 * $cpu / $stmts" | bc -l)" "$(echo "$stmts / $txns" | bc -l)"
{ setup; echo 'deleteschema();'; } >"$WORK/delete.rhai"
"$HAMMER" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
