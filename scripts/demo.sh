#!/usr/bin/env bash
# The newcomer's end-to-end run on a fresh Debian machine (as root): installs and starts private
# PostgreSQL and MariaDB servers on loopback, builds hammer, and runs scripts/demo.rhai with it
# (librarycheck, a 2-warehouse TPROC-C build on PostgreSQL, checkschema, print dict, a short
# timed run on servers with fsync off), then says how to stop the servers it started.
# Each long step says what it does; cargo shows its own progress (a first build takes minutes).
# HAMMER_HOME=DIR keeps the demo's settings and jobs in DIR (default: a new temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { echo "demo.sh: $*"; }
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then
	PATH=$HOME/.cargo/bin:$PATH
fi
command -v cargo >/dev/null || {
	echo "demo.sh: cargo not found: hammer needs Rust 1.88 or newer (README, \"The Rust toolchain\")" >&2
	exit 1
}
step "installing what is missing (MariaDB, PostgreSQL 15, openssl, sysbench)"
scripts/ci/install.sh
# Servers that already ran before the demo are someone's: the demo leaves them as found and
# says so; servers it started itself it leaves running too, and says how to stop them.
servers_were_up=0
if scripts/ci/servers.sh status >/dev/null 2>&1; then
	servers_were_up=1
fi
# shellcheck disable=SC2317  # called from the trap
say_how_to_stop() {
	local rc=$?
	if [[ $servers_were_up == 1 ]]; then
		step "the servers ran before the demo and are left running (scripts/ci/servers.sh status)"
	else
		step "the servers the demo started keep running; stop them with: scripts/ci/servers.sh stop"
	fi
	exit "$rc"
}
trap say_how_to_stop EXIT
step "starting the private test servers: PostgreSQL and its standby, MariaDB, a three-node Galera cluster (scripts/ci/servers.sh)"
scripts/ci/servers.sh start
step "building hammer (cargo build --release; the first build takes several minutes)"
cargo build --release
export HAMMER_HOME=${HAMMER_HOME:-$(mktemp -d /tmp/hammer-demo.XXXXXX)}
step "data directory (settings, history, jobs.db): $HAMMER_HOME"
step "running scripts/demo.rhai"
rc=0
./target/release/hammer auto scripts/demo.rhai || rc=$?
step "the demo's jobs: HAMMER_HOME=$HAMMER_HOME ./target/release/hammer jobs"
step "one of them:     HAMMER_HOME=$HAMMER_HOME ./target/release/hammer jobs ID   (the first 4 or more characters of its id)"
exit "$rc"
