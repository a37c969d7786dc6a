#!/usr/bin/env bash
# Benchmark: TPROC-C over the test cluster servers of scripts/ci/servers.sh.
#   scripts/bench/cluster.sh [warehouses=4] [virtual users=6] [minutes=0.5]
# Prints:
#  - NOPM and TPM through one Galera node, then through all three (the same virtual users);
#  - a Galera node killed mid-run: the seconds until throughput was back within 10 % of
#    before, and the longest time without a commit;
#  - a PostgreSQL failover (primary killed, standby promoted 2 s later), with synchronous and
#    with asynchronous replication: the longest time without a commit, the terminals moved
#    and the acknowledged New-Orders the new primary lacks.
# The servers are the test servers as servers.sh sets them (fast, not durable: fsync off,
# Galera's log flushed lazily); the figures compare cluster modes with each other on one
# machine, never with a durable single server.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${1:-4}
VU=${2:-6}
MIN=${3:-0.5}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
say() { echo "cluster.sh: $*"; }
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
say "building hammer (release)"
cargo build --release --quiet
HAMMER=$PWD/target/release/hammer
WORK=$(mktemp -d /tmp/hammer-bench-cluster.XXXXXX)
trap 'rm -rf "$WORK"; scripts/ci/servers.sh pg-pair-stop >/dev/null 2>&1 || true' EXIT
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"
GALERA=127.0.0.1:4306,127.0.0.1:4307,127.0.0.1:4308
SECS=$(echo "$MIN * 60" | bc -l | cut -d. -f1)

run() { # name, rhai text: runs it, keeps its output in $WORK/name.log
	printf '%s\n' "$2" >"$WORK/$1.rhai"
	"$HAMMER" auto "$WORK/$1.rhai" >"$WORK/$1.log" 2>&1 || {
		echo "cluster.sh: $1 failed:" >&2
		tail -20 "$WORK/$1.log" >&2
		exit 1
	}
}
result() { grep -o 'System achieved .*' "$WORK/$1.log" | head -1; }
line() { grep -h "$2" "$WORK/$1.log" | head -1 || true; }

maria_settings() { # hosts
	cat <<-RHAI
		dbset("db", "maria");
		diset("connection", "maria_host", "$1");
		diset("connection", "maria_socket", "null");
		diset("connection", "maria_reply_timeout", 10);
		diset("tpcc", "maria_dbase", "bench_cluster");
		diset("tpcc", "maria_count_ware", $W);
		diset("tpcc", "maria_num_vu", 2);
		diset("tpcc", "maria_driver", "timed");
		diset("tpcc", "maria_rampup", 0);
		diset("tpcc", "maria_duration", $MIN);
		vuset("vu", $VU);
		vuset("delay", 0);
	RHAI
}

say "building $W warehouses on the Galera cluster"
run galera_build "$(maria_settings "$GALERA")
deleteschema();
buildschema();"

say "running $VU virtual users for $MIN min through node 1 alone"
run galera_one "$(maria_settings 127.0.0.1:4306)
vurun();"
say "running $VU virtual users for $MIN min over all three nodes"
run galera_all "$(maria_settings "$GALERA")
vurun();"

kill_at=$((SECS / 3))
say "running over all three nodes, node 3 killed ${kill_at} s in"
(sleep "$kill_at"; scripts/ci/servers.sh galera-kill 3 >"$WORK/kill.log" 2>&1) &
run galera_loss "$(maria_settings "$GALERA")
vurun();"
wait
say "starting node 3 again (it rejoins by IST)"
scripts/ci/servers.sh galera-start 3 >/dev/null
run galera_delete "$(maria_settings "$GALERA")
deleteschema();"

failover() { # sync|async
	local mode=$1
	say "PostgreSQL failover, $mode replication: making the pair afresh"
	scripts/ci/servers.sh pg-pair "$mode" >/dev/null
	local pg
	pg=$(cat <<-RHAI
		dbset("db", "pg");
		diset("connection", "pg_host", "127.0.0.1:5434,127.0.0.1:5435");
		diset("connection", "pg_target_session_attrs", "read-write");
		diset("connection", "pg_reply_timeout", 10);
		diset("tpcc", "pg_superuser", "postgres");
		diset("tpcc", "pg_superuserpass", "postgres");
		diset("tpcc", "pg_dbase", "bench_failover");
		diset("tpcc", "pg_user", "bench_failover");
		diset("tpcc", "pg_count_ware", $W);
		diset("tpcc", "pg_num_vu", 2);
		diset("tpcc", "pg_driver", "timed");
		diset("tpcc", "pg_rampup", 0);
		diset("tpcc", "pg_duration", $MIN);
		vuset("vu", $VU);
		vuset("delay", 0);
	RHAI
	)
	run "pg_build_$mode" "$pg
buildschema();"
	say "running $VU virtual users for $MIN min; the primary killed ${kill_at} s in, the standby promoted 2 s later"
	(sleep "$((kill_at + 3))"; scripts/ci/servers.sh pg-pair-kill-primary >/dev/null 2>&1; sleep 2; scripts/ci/servers.sh pg-pair-promote >/dev/null 2>&1) &
	run "pg_$mode" "$pg
vurun();"
	wait
}
failover sync
failover async

echo
echo "== Galera, $W warehouses, $VU virtual users, $MIN min each"
echo "through node 1 alone:    $(result galera_one)"
echo "over all three nodes:    $(result galera_all)"
echo "node 3 killed mid-run:   $(result galera_loss)"
echo "  $(line galera_loss 'lost at')"
echo "  $(line galera_loss 'Throughput ')"
echo "  $(line galera_loss 'Longest time without a commit')"
for mode in sync async; do
	echo "== PostgreSQL failover, $mode replication"
	echo "  $(result "pg_$mode")"
	echo "  $(line "pg_$mode" 'lost at')"
	echo "  $(line "pg_$mode" 'Longest time without a commit')"
	echo "  $(line "pg_$mode" 'acknowledged New-Orders')"
done
