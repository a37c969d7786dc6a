#!/usr/bin/env bash
# Benchmark: the C client's floor. pgbench (libpq, one thread, 4 connections unless CLIENTS
# says, prepared) calls hammer's TPROC-C functions in the same mix (45/43/4/4/4) on a 4-warehouse schema,
# with uniform rather than NURand inputs, and prints its own CPU per transaction and its
# share of the machine: what `scripts/bench/driver.sh` reports for hammer.
#   scripts/bench/pgbench.sh [seconds=30]
# Env: CLIENTS (connections, default 4: as many as driver.sh's virtual users; 8 or 16 to
#      compare the client's share of a saturated machine).
# Servers: durable settings by default (fsync, synchronous commit, full-page writes,
# InnoDB's flush at commit), printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_RUN=${1:-30}
CLIENTS=${CLIENTS:-4}
[[ $CLIENTS =~ ^[1-9][0-9]*$ ]] || { echo "pgbench.sh: CLIENTS must be a whole number of connections, not '$CLIENTS'" >&2; exit 2; }
W=4
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
command -v pgbench >/dev/null || { echo "pgbench is missing: apt-get install postgresql-contrib (or postgresql-client)" >&2; exit 1; }
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
cargo build --release --quiet
WORK=$(mktemp -d /tmp/hammer-pgbench.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"
CPUS=$(nproc)
setup() {
	cat <<-RHAI
		dbset("db", "pg");
		diset("connection", "pg_host", "127.0.0.1");
		diset("tpcc", "pg_dbase", "hammer_bench_pgbench");
		diset("tpcc", "pg_user", "hammer_bench_pgbench");
		diset("tpcc", "pg_superuserpass", "postgres");
		diset("tpcc", "pg_storedprocs", "false");
		diset("tpcc", "pg_count_ware", $W);
		diset("tpcc", "pg_num_vu", 2);
	RHAI
}
{ setup; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
target/release/hammer auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }
S=scripts/bench/pgbench
echo "pgbench floor: $W warehouses, $CLIENTS connections, 1 thread, $SECONDS_RUN s, $CPUS CPUs"
for mode in prefer disable; do
	bench_settle pg
	PGPASSWORD=postgres /usr/bin/time -f "%U %S %w" -o "$WORK/time" pgbench \
		"host=127.0.0.1 user=postgres dbname=hammer_bench_pgbench sslmode=$mode" \
		-n -M prepared -c "$CLIENTS" -j 1 -T "$SECONDS_RUN" -D ware=$W \
		-f $S/new_order.sql@45 -f $S/payment.sql@43 -f $S/order_status.sql@4 \
		-f $S/delivery.sql@4 -f $S/stock_level.sql@4 >"$WORK/out" 2>&1 || { cat "$WORK/out"; exit 1; }
	txns=$(awk '/number of transactions actually processed/ {print $NF}' "$WORK/out" | head -1)
	read -r user sys sleeps <"$WORK/time"
	printf 'pgbench sslmode %-8s %7d transactions: %5.1f us CPU per transaction, %4.1f %% of the machine, %.2f sleeps/txn\n' \
		"$mode" "$txns" "$(echo "1000000 * ($user + $sys) / $txns" | bc -l)" \
		"$(echo "100 * ($user + $sys) / ($SECONDS_RUN * $CPUS)" | bc -l)" "$(echo "$sleeps / $txns" | bc -l)"
done
{ setup; echo 'deleteschema();'; } >"$WORK/delete.rhai"
target/release/hammer auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
