#!/usr/bin/env bash
# Benchmark: timed TPROC-C runs on a 4-warehouse schema, 2 and 4 virtual users, for each
# database and mode. Prints NOPM, TPM, and the client's CPU in the measured window (as the
# run itself reports it): per transaction and as a share of the machine.
#   scripts/bench/driver.sh [duration_minutes=1] [rampup_minutes=0.25]
# Env: ONLY (a regex on the case labels, e.g. 'PostgreSQL functions'), VUS ("2 4"),
#      PG_SSLMODE (pg_sslmode for PostgreSQL, default the dictionary's: prefer),
#      HAMMER_VU_THREADS=shared (every virtual user on tokio's shared runtime instead of a
#      thread of its own, to compare), HAMMER_BIN (run that hammer instead of building this
#      tree; several, space-separated, are alternated run by run on one schema: a before and
#      an after build compared in one session), ROUNDS (how many runs of each, default 1).
# Each measured run starts from a checkpoint (PostgreSQL) or a flushed buffer pool (MariaDB),
# so that the schema build's writes do not land in the first run's window. With GNU time
# installed it also prints the client's sleeps (voluntary context switches) per transaction,
# over the whole run, ramp-up included.
# Servers: durable settings by default (fsync, synchronous commit, full-page writes,
# InnoDB's flush at commit), printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${1:-1}
RAMPUP=${2:-0.25}
W=4
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
# HAMMER_BIN runs a given hammer (an older build, to compare) instead of building this tree.
if [[ -n ${HAMMER_BIN:-} ]]; then
	read -r -a BUILDS <<<"$HAMMER_BIN"
else
	echo "driver.sh: building hammer (release) ..."
	cargo build --release
	BUILDS=("$PWD/target/release/hammer")
fi
for b in "${BUILDS[@]}"; do [[ -x $b ]] || { echo "driver.sh: $b is not an executable hammer" >&2; exit 2; }; done
HAMMER=${BUILDS[0]}
ROUNDS=${ROUNDS:-1}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "driver.sh: ROUNDS must be a whole number of runs, not '$ROUNDS'" >&2; exit 2; }
GNU_TIME=
[[ -x /usr/bin/time ]] && /usr/bin/time -f %w true >/dev/null 2>&1 && GNU_TIME=/usr/bin/time
WORK=$(mktemp -d /tmp/hammer-bench.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"
CPUS=$(nproc)

setup() { # db
	local db=$1
	cat <<-RHAI
		dbset("db", "$db");
		diset("connection", "${db}_host", "127.0.0.1");
		diset("tpcc", "${db}_dbase", "hammer_bench_run");
		if "$db" == "pg" { diset("tpcc", "pg_user", "hammer_bench_run"); diset("tpcc", "pg_superuserpass", "postgres"); }
		if "$db" == "pg" && "${PG_SSLMODE:-}" != "" { diset("connection", "pg_sslmode", "${PG_SSLMODE:-}"); }
		if "$db" != "pg" { diset("tpcc", "${db}_pass", "maria"); }
		diset("tpcc", "${db}_count_ware", $W);
		diset("tpcc", "${db}_num_vu", 2);
	RHAI
}

# Runs hammer and prints the run's figures.
measure() { # db label mode vus
	local db=$1 label=$2 mode=$3 vus=$4
	[[ $label =~ ${ONLY:-.} ]] || return 0
	{
		setup "$db"
		echo "$mode"
		cat <<-RHAI
			diset("tpcc", "${db}_driver", "timed");
			diset("tpcc", "${db}_rampup", $RAMPUP);
			diset("tpcc", "${db}_duration", $DURATION);
			vuset("vu", $vus);
			vuset("delay", 0);
			vurun();
			let r = lastrun();
			let n = 0;
			for k in ["new_order", "payment", "delivery", "stock_level", "order_status"] { n += r[k].committed + r[k].rolled_back; }
			print(\`RESULT \${r.nopm.to_int()} \${r.tpm.to_int()} \${r.transactions} \${r.seconds} \${r.client_cpu_seconds}\`);
			vudestroy();
		RHAI
	} >"$WORK/run.rhai"
	bench_settle "$db"
	local timed=()
	[[ -n $GNU_TIME ]] && timed=("$GNU_TIME" -f 'SLEEPS %w' -o "$WORK/time.out")
	"${timed[@]}" "$HAMMER" auto "$WORK/run.rhai" >"$WORK/run.log" 2>&1 || { tail -20 "$WORK/run.log"; return 1; }
	local nopm tpm txns secs cpu sleeps=
	read -r _ nopm tpm txns secs cpu < <(grep '^RESULT' "$WORK/run.log")
	[[ -n $GNU_TIME ]] && read -r _ sleeps < <(grep '^SLEEPS' "$WORK/time.out")
	local name=
	((${#BUILDS[@]} > 1)) && name=" [$(basename "$(dirname "$HAMMER")")/$(basename "$HAMMER")]"
	printf '%-28s %d VUs: %7d NOPM %8d TPM | client %6.1f ms CPU per 1,000 transactions, %4.1f %% of the machine (%d CPUs)%s%s\n' \
		"$label" "$vus" "$nopm" "$tpm" \
		"$(echo "1000000 * $cpu / $txns" | bc -l)" \
		"$(echo "100 * $cpu / ($secs * $CPUS)" | bc -l)" "$CPUS" \
		"${sleeps:+, $(printf '%.2f' "$(echo "$sleeps * $DURATION / (($DURATION + $RAMPUP) * $txns)" | bc -l)") sleeps/txn}" "$name"
}

# Every build, ROUNDS times, alternated: one line each.
measure_all() { # db label mode vus
	local r b
	for ((r = 0; r < ROUNDS; r++)); do
		for b in "${BUILDS[@]}"; do
			HAMMER=$b measure "$@"
		done
	done
}

build() { # db mode
	{
		setup "$1"
		echo "$2"
		echo 'try { deleteschema(); } catch {}'
		echo 'buildschema();'
	} >"$WORK/build.rhai"
	"$HAMMER" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; return 1; }
}

delete() {
	{ setup "$1"; echo 'deleteschema();'; } >"$WORK/delete.rhai"
	"$HAMMER" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
}

echo "hammer driver benchmark: $W warehouses, rampup $RAMPUP min, duration $DURATION min, $CPUS CPUs, pg_sslmode ${PG_SSLMODE:-prefer}"
wanted() { [[ $1 =~ ${ONLY:-.} ]]; }
if wanted "PostgreSQL functions" || wanted "PostgreSQL client SQL"; then
	build pg 'diset("tpcc", "pg_storedprocs", "false");'
	for vus in ${VUS:-2 4}; do measure_all pg "PostgreSQL functions" 'diset("tpcc", "pg_no_stored_procs", "false");' "$vus"; done
	for vus in ${VUS:-2 4}; do measure_all pg "PostgreSQL client SQL" 'diset("tpcc", "pg_no_stored_procs", "true");' "$vus"; done
	delete pg
fi
if wanted "PostgreSQL procedures"; then
	build pg 'diset("tpcc", "pg_storedprocs", "true");'
	for vus in ${VUS:-2 4}; do measure_all pg "PostgreSQL procedures" 'diset("tpcc", "pg_storedprocs", "true"); diset("tpcc", "pg_no_stored_procs", "false");' "$vus"; done
	delete pg
fi
if wanted "MariaDB procedures" || wanted "MariaDB client SQL"; then
	build maria ''
	for vus in ${VUS:-2 4}; do measure_all maria "MariaDB procedures" 'diset("tpcc", "maria_no_stored_procs", "false");' "$vus"; done
	for vus in ${VUS:-2 4}; do measure_all maria "MariaDB client SQL" 'diset("tpcc", "maria_no_stored_procs", "true");' "$vus"; done
	delete maria
fi
