#!/usr/bin/env bash
# Benchmark: many keyed-and-thinking terminals (TPC-C clause 5.2.5 keying and think times)
# as asynchronous clients of a few virtual users, sharing a pool of connections per virtual
# user. Prints, per terminal count: the client's peak RSS, its CPU and the work done.
#   scripts/bench/scale.sh [terminals...=1000 10000]
# Env: VUS (virtual users, 10), POOL (connections per virtual user, 5), W (warehouses, 4),
#      RAMPUP and DURATION (minutes, 0.5 and 1), DB (pg or maria, pg).
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
COUNTS=("${@:-1000 10000}")
read -r -a COUNTS <<<"${COUNTS[*]}"
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
cargo build --release --quiet
HAMMER=$PWD/target/release/hammer
WORK=$(mktemp -d /tmp/hammer-scale.XXXXXX)
source scripts/bench/servers.sh
trap '[[ -n ${KEEP:-} ]] || rm -rf "$WORK"; bench_servers_restore' EXIT
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

{ setup; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
"$HAMMER" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; exit 1; }

echo "hammer scale benchmark: $DB, $W warehouses, $VUS virtual users sharing $POOL connections each, keying and thinking, rampup $RAMPUP min, duration $DURATION min"
for n in "${COUNTS[@]}"; do
	clients=$(((n + VUS - 1) / VUS))
	{
		setup
		cat <<-RHAI
			diset("tpcc", "${DB}_driver", "timed");
			diset("tpcc", "${DB}_rampup", $RAMPUP);
			diset("tpcc", "${DB}_duration", $DURATION);
			diset("tpcc", "${DB}_keyandthink", "true");
			diset("tpcc", "${DB}_async_scale", "true");
			diset("tpcc", "${DB}_async_client", $clients);
			diset("tpcc", "${DB}_async_delay", 1);
			diset("tpcc", "${DB}_async_pool", $POOL);
			vuset("vu", $VUS);
			vuset("delay", 0);
			vurun();
			let r = lastrun();
			let n = 0;
			let f = 0;
			for k in ["new_order", "payment", "delivery", "stock_level", "order_status"] { n += r[k].committed + r[k].rolled_back; f += r[k].failed; }
			print(\`RESULT \${r.nopm.to_int()} \${r.tpm.to_int()} \${n} \${f} \${r.seconds} \${r.new_order.p95_ms} \${r.client_cpu_seconds}\`);
		RHAI
	} >"$WORK/run.rhai"
	/usr/bin/time -f '%M %U %S %e' -o "$WORK/time" "$HAMMER" auto "$WORK/run.rhai" >"$WORK/run.log" 2>&1 || { tail -20 "$WORK/run.log"; exit 1; }
	read -r rss usr sys wall <"$WORK/time"
	read -r _ nopm tpm txns failed secs p95 cpu < <(grep '^RESULT' "$WORK/run.log")
	printf '%6d terminals (%d x %d): peak RSS %6.1f MB | client CPU %5.2f s in %5.1f s (%4.1f %% of one core), measured window %4.1f %% | %6d NOPM %7d TPM, %d transactions (%d failed) measured, New-Order p95 %s ms\n' \
		"$((clients * VUS))" "$VUS" "$clients" "$(echo "$rss / 1024" | bc -l)" \
		"$(echo "$usr + $sys" | bc -l)" "$wall" "$(echo "100 * ($usr + $sys) / $wall" | bc -l)" \
		"$(echo "100 * $cpu / $secs" | bc -l)" "$nopm" "$tpm" "$txns" "$failed" "$p95"
done
{ setup; echo 'deleteschema();'; } >"$WORK/delete.rhai"
"$HAMMER" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
