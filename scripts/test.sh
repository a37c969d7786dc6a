#!/usr/bin/env bash
# Run hammer's whole test suite on a fresh Debian 12 machine (as root):
#   scripts/test.sh [extra cargo test args, e.g. a test name filter or -- --nocapture]
# Installs the database servers if missing, starts private ones on loopback
# (scripts/ci/servers.sh), runs `cargo test --all-targets --no-fail-fast`, and stops them again.
# Servers that were already running before are left running.
# HAMMER_KEEP_SERVERS=1 leaves them running in any case.
# Cargo's output streams as it comes; the last line sums every test binary's `test result:`
# (scripts/ci/sum-tests.sh) with the wall time, however the run ends. The exit status is cargo's.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

# rustup's cargo may not be on a non-login PATH.
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then
	PATH=$HOME/.cargo/bin:$PATH
fi
command -v cargo >/dev/null || {
	echo "test.sh: cargo not found: hammer needs Rust 1.88 or newer (README, \"The Rust toolchain\")" >&2
	exit 1
}

step() { echo "test.sh: $*"; }

log=$(mktemp /tmp/hammer-test.XXXXXX.log)
servers_started=0
keep_servers=${HAMMER_KEEP_SERVERS:-0}
# shellcheck disable=SC2317  # called from the trap
stop_servers() {
	if [[ $servers_started == 0 ]]; then
		return
	elif [[ $keep_servers == 1 ]]; then
		echo "test.sh: leaving the servers running"
	else
		scripts/ci/servers.sh stop || true
	fi
}
# shellcheck disable=SC2317  # called from the trap
finish() {
	local rc=$?
	stop_servers
	echo "test.sh: $(scripts/ci/sum-tests.sh $((SECONDS - started)) <"$log")"
	rm -f "$log"
	exit "$rc"
}
# Stop the servers and sum up however we leave: tests failing, Ctrl-C, or a step failing
# half-way.
trap finish EXIT

# ---- install what is missing (and only that)
step "installing what is missing (MariaDB, Galera, PostgreSQL 15, openssl, sysbench, Chromium)"
scripts/ci/install.sh

# ---- servers
if scripts/ci/servers.sh status >/dev/null 2>&1; then
	keep_servers=1 # someone else started them: leave them as found
fi
servers_started=1
step "starting the private test servers: PostgreSQL and its standby, MariaDB, a three-node Galera cluster (scripts/ci/servers.sh)"
scripts/ci/servers.sh start

# ---- tests: build first, with cargo's progress (a first build takes several minutes), then run
step "building the tests (cargo test --all-targets --no-run)"
cargo test --all-targets --no-run "$@"
step "running the tests (cargo test --all-targets --no-fail-fast)"
# Every binary runs, so that the total counts them all; cargo's colours stay on a terminal.
[[ -t 1 ]] && export CARGO_TERM_COLOR=always
set +e
cargo test --all-targets --no-fail-fast "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
exit "$rc"
