#!/usr/bin/env bash
# Benchmark: many keyed-and-thinking terminals (TPC-C clause 5.2.5 keying and think times)
# as asynchronous clients of a few virtual users, sharing a pool of connections per virtual
# user. Prints, per terminal count: the client's peak RSS, its CPU and the work done.
#   scripts/bench/scale.sh [terminals...=1000 10000]
#   DRIVERS=10 W=10 scripts/bench/scale.sh 1000000
# Env: VUS (virtual users, 10), POOL (connections per virtual user, 5), W (warehouses, 4),
#      RAMPUP and DURATION (minutes, 0.5 and 1), DB (pg or maria, pg),
#      DRIVERS (hammer processes sharing one run, 1: each takes an equal part of the
#      terminals and of the warehouses, and the bench prints each one's peak RSS and CPU and
#      their totals; W must be at least DRIVERS, and DRIVERS x (VUS x POOL + 2) connections
#      must fit the server's max_connections), HAMMER (the binary; built when unset),
#      KEEP=1 (keep the scripts and logs, in /tmp/hammer-scale.*).
# Servers: durable settings by default (fsync, synchronous commit, full-page writes,
# InnoDB's flush at commit), printed first; SERVERS=fast keeps the test servers' own.
set -euo pipefail
cd "$(dirname "$0")/../.."
VUS=${VUS:-10}
POOL=${POOL:-5}
W=${W:-4}
RAMPUP=${RAMPUP:-0.5}
DURATION=${DURATION:-1}
DB=${DB:-pg}
DRIVERS=${DRIVERS:-1}
COUNTS=("${@:-1000 10000}")
read -r -a COUNTS <<<"${COUNTS[*]}"
if ! [[ $DRIVERS =~ ^[0-9]+$ ]] || ((DRIVERS < 1 || DRIVERS > W)); then
	echo "scale: DRIVERS must be from 1 to the $W warehouses (W), not '$DRIVERS'" >&2
	exit 2
fi
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
if [[ -z ${HAMMER:-} ]]; then
	cargo build --release --quiet
	HAMMER=$PWD/target/release/hammer
fi
WORK=$(mktemp -d /tmp/hammer-scale.XXXXXX)
source scripts/bench/servers.sh
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	[[ -n ${KEEP:-} ]] || rm -rf "$WORK"
	bench_servers_restore
}
trap cleanup EXIT
trap 'echo "scale: stopping"; exit 130' INT TERM
bench_servers_set
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"

setup() {
	cat <<-RHAI
		dbset("db", "$DB");
		diset("connection", "${DB}_host", "127.0.0.1");
		diset("tpcc", "${DB}_dbase", "hammer_bench_scale");
		if "$DB" == "pg" { diset("tpcc", "pg_user", "hammer_bench_scale"); diset("tpcc", "pg_superuserpass", "postgres"); }
		if "$DB" != "pg" { diset("tpcc", "${DB}_pass", "maria"); }
		diset("tpcc", "${DB}_count_ware", $W);
		diset("tpcc", "${DB}_num_vu", 2);
	RHAI
}

# The run of `clients` asynchronous clients per virtual user, with `extra` settings; prints
#   RESULT nopm tpm transactions failed seconds new_order_p95 client_cpu_seconds
# for this process, and with several drivers
#   MERGED nopm tpm transactions failed seconds new_order_p95 drivers
# for them all.
run_script() { # clients [extra]
	setup
	echo "${2:-}"
	cat <<-RHAI
		diset("tpcc", "${DB}_driver", "timed");
		diset("tpcc", "${DB}_rampup", $RAMPUP);
		diset("tpcc", "${DB}_duration", $DURATION);
		diset("tpcc", "${DB}_keyandthink", "true");
		diset("tpcc", "${DB}_async_scale", "true");
		diset("tpcc", "${DB}_async_client", $1);
		diset("tpcc", "${DB}_async_delay", 1);
		diset("tpcc", "${DB}_async_pool", $POOL);
		vuset("vu", $VUS);
		vuset("delay", 0);
		vurun();
		let r = lastrun();
		fn tally(types) {
			let n = 0;
			let f = 0;
			for k in ["new_order", "payment", "delivery", "stock_level", "order_status"] { n += types[k].committed + types[k].rolled_back; f += types[k].failed; }
			[n, f]
		}
		let t = tally(r);
		print(\`RESULT \${r.nopm.to_int()} \${r.tpm.to_int()} \${t[0]} \${t[1]} \${r.seconds} \${r.new_order.p95_ms} \${r.client_cpu_seconds}\`);
		if "drivers" in r {
			let d = r.drivers;
			let m = tally(d.transactions);
			print(\`MERGED \${d.nopm.to_int()} \${d.tpm.to_int()} \${m[0]} \${m[1]} \${d.seconds} \${d.transactions.new_order.p95_ms} \${d.count}\`);
		}
	RHAI
}

mb() { echo "$1 / 1024" | bc -l; }
# Microseconds of CPU per transaction measured: the window's CPU seconds over its transactions.
per_txn() { if (($2 > 0)); then echo "1000000 * $1 / $2" | bc -l; else echo 0; fi; }

{ setup; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
"$HAMMER" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }

# One process: its peak RSS and CPU as /usr/bin/time measured them.
one() { # terminals
	local n=$1 clients rss usr sys wall nopm tpm txns failed secs p95 cpu
	clients=$(((n + VUS - 1) / VUS))
	run_script "$clients" >"$WORK/run.rhai"
	/usr/bin/time -f '%M %U %S %e' -o "$WORK/time" "$HAMMER" auto "$WORK/run.rhai" >"$WORK/run.log" 2>&1 || { tail -20 "$WORK/run.log"; exit 1; }
	read -r rss usr sys wall <"$WORK/time"
	read -r _ nopm tpm txns failed secs p95 cpu < <(grep '^RESULT' "$WORK/run.log")
	printf '%6d terminals (%d x %d): peak RSS %6.1f MB | client CPU %5.2f s in %5.1f s (%4.1f %% of one core), measured window %4.1f %%, %5.1f us per transaction | %6d NOPM %7d TPM, %d transactions (%d failed) measured, New-Order p95 %s ms\n' \
		"$((clients * VUS))" "$VUS" "$clients" "$(mb "$rss")" \
		"$(echo "$usr + $sys" | bc -l)" "$wall" "$(echo "100 * ($usr + $sys) / $wall" | bc -l)" \
		"$(echo "100 * $cpu / $secs" | bc -l)" "$(per_txn "$cpu" "$txns")" "$nopm" "$tpm" "$txns" "$failed" "$p95"
}

# DRIVERS processes joining one run (docs/drivers.md): process k takes the k-th of DRIVERS equal
# ranges of the warehouses and its share of the terminals, in a home of its own.
several() { # terminals
	local n=$1 per clients run k first last rss usr sys wall nopm tpm txns failed secs p95 cpu
	local total_rss=0 total_cpu=0 max_rss=0 merged=
	per=$(((n + DRIVERS - 1) / DRIVERS))
	clients=$(((per + VUS - 1) / VUS))
	run=scale-$(date +%Y%m%d-%H%M%S)-$$
	pids=()
	for ((k = 1; k <= DRIVERS; k++)); do
		first=$(((k - 1) * W / DRIVERS + 1))
		last=$((k * W / DRIVERS))
		mkdir -p "$WORK/d$k/home"
		run_script "$clients" "$(
			cat <<-RHAI
				diset("tpcc", "${DB}_first_ware", $first);
				diset("tpcc", "${DB}_owned_ware", $((last - first + 1)));
				giset("drivers", "drivers_run", "$run");
				giset("drivers", "drivers_count", $DRIVERS);
			RHAI
		)" >"$WORK/d$k/run.rhai"
		HAMMER_HOME=$WORK/d$k/home /usr/bin/time -f '%M %U %S %e' -o "$WORK/d$k/time" \
			"$HAMMER" auto "$WORK/d$k/run.rhai" >"$WORK/d$k/run.log" 2>&1 &
		pids+=($!)
	done
	for k in "${!pids[@]}"; do
		if ! wait "${pids[$k]}"; then
			echo "driver $((k + 1)) failed; its last lines:" >&2
			tail -20 "$WORK/d$((k + 1))/run.log" >&2
			pids=()
			exit 1
		fi
	done
	pids=()
	echo "$((clients * VUS * DRIVERS)) terminals over $DRIVERS drivers, each $((clients * VUS)) terminals ($VUS x $clients) on $((VUS * POOL)) connections:"
	for ((k = 1; k <= DRIVERS; k++)); do
		first=$(((k - 1) * W / DRIVERS + 1))
		last=$((k * W / DRIVERS))
		read -r rss usr sys wall <"$WORK/d$k/time"
		read -r _ nopm tpm txns failed secs p95 cpu < <(grep '^RESULT' "$WORK/d$k/run.log")
		printf '  process %2d (warehouses %d-%d): peak RSS %6.1f MB | CPU %6.2f s in %5.1f s (%5.1f %% of one core), %5.2f s in the measured window, %5.1f us per transaction | %d transactions (%d failed) measured, New-Order p95 %s ms\n' \
			"$k" "$first" "$last" "$(mb "$rss")" "$(echo "$usr + $sys" | bc -l)" "$wall" \
			"$(echo "100 * ($usr + $sys) / $wall" | bc -l)" "$cpu" "$(per_txn "$cpu" "$txns")" "$txns" "$failed" "$p95"
		total_rss=$((total_rss + rss))
		if ((rss > max_rss)); then max_rss=$rss; fi
		total_cpu=$(echo "$total_cpu + $usr + $sys" | bc -l)
		[[ -z $merged ]] && merged=$(grep '^MERGED' "$WORK/d$k/run.log" || true)
	done
	printf '  all processes: peak RSS %.1f MB together (the largest %.1f MB) | CPU %.2f s\n' \
		"$(mb "$total_rss")" "$(mb "$max_rss")" "$total_cpu"
	if [[ -n $merged ]]; then
		read -r _ nopm tpm txns failed secs p95 count <<<"$merged"
		printf '  merged (%d drivers, the database'"'"'s counters over the common window of %.1f s): %d NOPM %d TPM, %d transactions (%d failed) measured, New-Order p95 %s ms\n' \
			"$count" "$secs" "$nopm" "$tpm" "$txns" "$failed" "$p95"
	else
		echo "  no driver printed a merged result (KEEP=1 keeps the logs)" >&2
	fi
}

over=
if ((DRIVERS > 1)); then over=", $DRIVERS drivers (hammer processes) in one run"; fi
echo "hammer scale benchmark: $DB, $W warehouses, $VUS virtual users sharing $POOL connections each, keying and thinking, rampup $RAMPUP min, duration $DURATION min$over"
for n in "${COUNTS[@]}"; do
	if ((DRIVERS > 1)); then several "$n"; else one "$n"; fi
done
{ setup; echo 'deleteschema();'; } >"$WORK/delete.rhai"
"$HAMMER" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
