#!/usr/bin/env bash
# Several hammer drivers on this machine run one TPROC-C benchmark over one schema: driver k
# of N owns the k-th of N equal ranges of the schema's warehouses, they join one named run in
# the database under test, measure one common window, and each prints the merged result;
# this script waits for them all and prints driver 1's merged lines.
# Called by scripts/<db>/tprocc/<db>_tprocc_drivers.sh, which give the database's settings:
#   tprocc_drivers.sh DB RUN_RHAI N [rampup_min] [duration_min]
# The database's settings are the connection and schema lines of RUN_RHAI (the shipped
# <db>_tprocc_run.rhai: edit them there).
# Env: DBASE and DBUSER (the schema's database and owner, instead of the run script's),
#      WAREHOUSES (the schema's, 4: what <db>_tprocc_build.rhai builds by default),
#      VUS (virtual users per driver, 2), STEPS=1 (staggered: driver k starts (k-1)*rampup/N
#      minutes after the common start and ramps up for that much less, so that all measure the
#      same window), HAMMER (the hammer binary), KEEP_LOGS=1 (keep each driver's output).
set -euo pipefail
db=$1 run_rhai=$2 n=${3:-2} rampup=${4:-1} duration=${5:-2}
cd "$(dirname "$0")/../.."
w=${WAREHOUSES:-4}
vus=${VUS:-2}
if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > w)); then
	echo "drivers: N must be from 1 to the schema's $w warehouses (WAREHOUSES), not '$n'" >&2
	exit 2
fi
hammer=${HAMMER:-}
if [[ -z $hammer ]]; then
	if command -v hammer >/dev/null; then
		hammer=$(command -v hammer)
	else
		if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
		echo "drivers: building hammer (cargo build --release)"
		cargo build --release --quiet
		hammer=$PWD/target/release/hammer
	fi
fi
# The drivers' jobs go where the user's do: the shared PostgreSQL jobs store the user's
# settings name (commandline jobs_store), else the user's jobs.db; their settings to private
# homes, so that the run's keys never stay in the user's settings. Both keys are read as a
# hammer starts, so each private home starts with a settings file that names them.
home=${HAMMER_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/hammer}
mkdir -p "$home"
jobs=$home/jobs.db
# hammer writes its settings one key a line: the user's jobs_store and sqlite_db lines are
# copied as they are (valid JSON, whatever their values hold); an empty jobs_store names no
# store, and an empty (or TMP) sqlite_db is the home's jobs.db.
user_key() {
	grep -m1 -E "^[[:space:]]*\"$1\":" "$home/settings.json" 2>/dev/null | sed 's/,[[:space:]]*$//' || true
}
store_line=$(user_key jobs_store)
case $store_line in *'""') store_line= ;; esac
file_line=$(user_key sqlite_db)
case $file_line in '' | *'""' | *'"TMP"' | *'"TEMP"')
	file_line="\"sqlite_db\": \"$(printf '%s' "$jobs" | sed 's/\\/\\\\/g; s/"/\\"/g')\""
	;;
esac
work=$(mktemp -d /tmp/hammer-drivers.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[[ ${KEEP_LOGS:-} == 1 ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "drivers: stopping"; exit 130' INT TERM
run=drivers-$(date +%Y%m%d-%H%M%S)-$$
echo "drivers: run $run: $n drivers over $w warehouses, $vus virtual users each, rampup $rampup min, duration $duration min${STEPS:+, staggered}"
for ((k = 1; k <= n; k++)); do
	first=$(((k - 1) * w / n + 1))
	last=$((k * w / n))
	delay=0 ramp=$rampup
	if [[ ${STEPS:-} == 1 ]]; then
		delay=$(awk -v r="$rampup" -v k="$k" -v n="$n" 'BEGIN { printf "%g", (k - 1) * r / n }')
		ramp=$(awk -v r="$rampup" -v d="$delay" 'BEGIN { printf "%g", r - d }')
	fi
	mkdir -p "$work/$k"
	printf '{"generic": {%s%s}}\n' "$file_line" "${store_line:+, $store_line}" >"$work/$k/settings.json"
	{
		# The run script's settings: from dbset to the line before *_driver.
		sed -n '/^dbset("db"/,/_driver"/p' "$run_rhai" | grep -v '_driver"'
		[[ -n ${DBASE:-} ]] && echo "diset(\"tpcc\", \"${db}_dbase\", \"$DBASE\");"
		[[ -n ${DBUSER:-} ]] && echo "diset(\"tpcc\", \"${db}_user\", \"$DBUSER\");"
		cat <<-RHAI
			diset("tpcc", "${db}_count_ware", $w);
			diset("tpcc", "${db}_first_ware", $first);
			diset("tpcc", "${db}_owned_ware", $((last - first + 1)));
			diset("tpcc", "${db}_driver", "timed");
			diset("tpcc", "${db}_rampup", $ramp);
			diset("tpcc", "${db}_duration", $duration);
			giset("drivers", "drivers_run", "$run");
			giset("drivers", "drivers_count", $n);
			giset("drivers", "drivers_delay", $delay);
			vuset("vu", $vus);
			loadscript();
			vucreate();
			vurun();
			vudestroy();
		RHAI
	} >"$work/$k/driver.rhai"
	echo "drivers: driver $k: warehouses $first-$last, starts at +$delay min, rampup $ramp min (output: $work/$k/out.log)"
	HAMMER_HOME=$work/$k "$hammer" auto "$work/$k/driver.rhai" >"$work/$k/out.log" 2>&1 &
	pids+=($!)
done
echo "drivers: waiting for the $n drivers (about $(awk -v r="$rampup" -v d="$duration" 'BEGIN { print r + d }') minutes)"
failed=0
for k in "${!pids[@]}"; do
	if ! wait "${pids[$k]}"; then
		failed=$((failed + 1))
		echo "drivers: driver $((k + 1)) failed; its last lines:" >&2
		tail -5 "$work/$((k + 1))/out.log" >&2
	fi
done
pids=()
# The merged result as the first driver that printed it has it.
for ((k = 1; k <= n; k++)); do
	log=$work/$k/out.log
	if grep -q "TEST RESULT ($n drivers)" "$log"; then
		sed -n "/Drivers of run $run/,/^.*ALL VIRTUAL USERS COMPLETE/p" "$log" |
			grep -v "ALL VIRTUAL USERS COMPLETE" | sed 's/^Vuser 1://'
		exit $((failed > 0 ? 1 : 0))
	fi
done
echo "drivers: no driver printed a merged result (logs kept in $work)" >&2
KEEP_LOGS=1
exit 1
