#!/usr/bin/env bash
# Run hammer's whole test suite on a fresh Debian 12 machine (as root):
#   scripts/test.sh [extra cargo test args, e.g. a test name filter or -- --nocapture]
# Installs the database servers if missing, starts private ones on loopback
# (scripts/ci/servers.sh), runs `cargo test --all-targets`, and stops them again.
# Servers that were already running before are left running.
# HAMMER_KEEP_SERVERS=1 leaves them running in any case.
set -euo pipefail
cd "$(dirname "$0")/.."

# rustup's cargo may not be on a non-login PATH.
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then
	PATH=$HOME/.cargo/bin:$PATH
fi
command -v cargo >/dev/null || {
	echo "test.sh: cargo not found: hammer needs Rust 1.88 or newer (README, \"The Rust toolchain\")" >&2
	exit 1
}

step() { echo "test.sh: $*"; }

# ---- install what is missing (and only that)
step "installing what is missing (MariaDB, PostgreSQL 15, openssl, sysbench)"
scripts/ci/install.sh

# ---- servers
keep_servers=${HAMMER_KEEP_SERVERS:-0}
if scripts/ci/servers.sh status >/dev/null 2>&1; then
	keep_servers=1 # someone else started them: leave them as found
fi
# shellcheck disable=SC2317  # called from the trap
stop_servers() {
	if [[ $keep_servers == 1 ]]; then
		echo "test.sh: leaving the servers running"
	else
		scripts/ci/servers.sh stop || true
	fi
}
# Stop them however we leave: tests failing, Ctrl-C, or start failing half-way.
trap stop_servers EXIT
step "starting the private test servers (scripts/ci/servers.sh)"
scripts/ci/servers.sh start

# ---- tests: build first, with cargo's progress (a first build takes several minutes), then run
step "building the tests (cargo test --all-targets --no-run)"
cargo test --all-targets --no-run "$@"
step "running the tests (cargo test --all-targets)"
rc=0
cargo test --all-targets "$@" || rc=$?
exit "$rc"
