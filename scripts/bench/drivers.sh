#!/usr/bin/env bash
# Benchmark: one TPROC-C benchmark driven by 1 hammer process against 2 and 3 drivers on this
# machine at the same total count of virtual users: what coordination costs (throughput and the
# client's CPU per transaction, summed over the drivers), and how long the drivers wait from
# the last one's join to the common start. Configurations alternate, round after round.
#   scripts/bench/drivers.sh [rounds=2]
# Env: DB (pg or maria, pg), W (warehouses, 6), VUS (virtual users in total, 6),
#      RAMPUP and DURATION (minutes, 0.25 and 0.5), SERVERS=fast for the test servers' own.
# The single driver runs alone (no drivers_run); 2 and 3 drivers split the warehouses and the
# virtual users evenly and join one named run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}
DB=${DB:-pg}
W=${W:-6}
VUS=${VUS:-6}
RAMPUP=${RAMPUP:-0.25}
DURATION=${DURATION:-0.5}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
echo "drivers bench: building hammer (cargo build --release)"
cargo build --release --quiet
HAMMER=$PWD/target/release/hammer
WORK=$(mktemp -d /tmp/hammer-drivers-bench.XXXXXX)
source scripts/bench/servers.sh
trap 'rm -rf "$WORK"; bench_servers_restore' EXIT
bench_servers_set
DBNAME=hammer_bench_drivers

setup() {
	cat <<-RHAI
		dbset("db", "$DB");
		dbset("bm", "TPROC-C");
		diset("connection", "${DB}_host", "127.0.0.1");
		diset("tpcc", "${DB}_dbase", "$DBNAME");
		if "$DB" == "pg" { diset("tpcc", "pg_user", "$DBNAME"); diset("tpcc", "pg_superuserpass", "postgres"); }
		if "$DB" != "pg" { diset("tpcc", "${DB}_pass", "maria"); diset("connection", "${DB}_socket", "/tmp/mariadb.sock"); }
		diset("tpcc", "${DB}_count_ware", $W);
		diset("tpcc", "${DB}_num_vu", 2);
	RHAI
}

board_wait_ms() { # run -> ms from the last join to the start
	local sql="SELECT r.start_ms - MAX(d.joined_ms) FROM hammer_runs r JOIN hammer_drivers d ON d.run = r.run WHERE r.run = '$1' GROUP BY r.start_ms"
	if [[ $DB == pg ]]; then bench_psql -d "$DBNAME" -c "$sql"; else bench_maria "$DBNAME" -e "$sql"; fi
}

echo "drivers bench: building $W warehouses on $DB ($DBNAME)"
mkdir -p "$WORK/build"
{ setup; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
HAMMER_HOME=$WORK/build "$HAMMER" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }

one() { # drivers round
	local n=$1 round=$2 run="bench-$$-$round-$1" k
	local pids=()
	for ((k = 1; k <= n; k++)); do
		local first=$(((k - 1) * W / n + 1)) last=$((k * W / n)) vus=$((VUS / n))
		mkdir -p "$WORK/$run/$k"
		{
			setup
			cat <<-RHAI
				diset("tpcc", "${DB}_driver", "timed");
				diset("tpcc", "${DB}_rampup", $RAMPUP);
				diset("tpcc", "${DB}_duration", $DURATION);
				vuset("vu", $vus);
			RHAI
			if ((n > 1)); then
				cat <<-RHAI
					diset("tpcc", "${DB}_first_ware", $first);
					diset("tpcc", "${DB}_owned_ware", $((last - first + 1)));
					giset("drivers", "drivers_run", "$run");
					giset("drivers", "drivers_count", $n);
				RHAI
			fi
			cat <<-'RHAI'
				loadscript(); vucreate(); vurun();
				let r = lastrun();
				let t = 0;
				for k in ["new_order", "payment", "delivery", "stock_level", "order_status"] { t += r[k].committed + r[k].rolled_back; }
				print(`PART ${t} ${r.client_cpu_seconds}`);
				if "drivers" in r { print(`MERGED ${r.drivers.nopm.to_int()} ${r.drivers.tpm.to_int()}`); } else { print(`MERGED ${r.nopm.to_int()} ${r.tpm.to_int()}`); }
				vudestroy();
			RHAI
		} >"$WORK/$run/$k/run.rhai"
		HAMMER_HOME=$WORK/$run/$k /usr/bin/time -f '%M %U %S' -o "$WORK/$run/$k/time" \
			"$HAMMER" auto "$WORK/$run/$k/run.rhai" >"$WORK/$run/$k/out.log" 2>&1 &
		pids+=($!)
	done
	local failed=0
	for p in "${pids[@]}"; do wait "$p" || failed=1; done
	if ((failed)); then
		echo "drivers bench: a driver failed in $run:" >&2
		tail -5 "$WORK"/"$run"/*/out.log >&2
		exit 1
	fi
	local cpu=0 whole=0 rss=0 txns=0 nopm tpm wait_ms=- t c
	for ((k = 1; k <= n; k++)); do
		read -r r u s <"$WORK/$run/$k/time"
		whole=$(echo "$whole + $u + $s" | bc -l)
		rss=$((rss + r))
		read -r _ t c < <(grep '^PART' "$WORK/$run/$k/out.log")
		txns=$((txns + t))
		cpu=$(echo "$cpu + $c" | bc -l)
	done
	read -r _ nopm tpm < <(grep '^MERGED' "$WORK/$run/1/out.log")
	((n > 1)) && wait_ms=$(board_wait_ms "$run")
	printf 'round %d, %d driver(s) x %d VUs: %7d NOPM %8d TPM | %8d transactions measured | client CPU in the window %6.2f s, %6.1f us per transaction (whole processes %6.2f s) | peak RSS %6.1f MB in all | last join to common start %s ms\n' \
		"$round" "$n" "$((VUS / n))" "$nopm" "$tpm" "$txns" "$cpu" "$(echo "1000000 * $cpu / $txns" | bc -l)" "$whole" \
		"$(echo "$rss / 1024" | bc -l)" "$wait_ms"
}

echo "drivers bench: $DB, $W warehouses, $VUS virtual users in total, rampup $RAMPUP min, duration $DURATION min, $ROUNDS rounds"
for ((round = 1; round <= ROUNDS; round++)); do
	for n in 1 2 3; do one "$n" "$round"; done
done
{ setup; echo 'deleteschema();'; } >"$WORK/delete.rhai"
HAMMER_HOME=$WORK/build "$HAMMER" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
