#!/usr/bin/env bash
# The newcomer's end-to-end run on a fresh Debian machine (as root): installs and starts private
# PostgreSQL and MariaDB servers on loopback, builds hammer, and runs scripts/demo.rhai with it.
# What the demo does grows with hammer: today it points hammer at the servers and checks them
# (librarycheck); TPROC-C build and timed run join it as those commands land.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then
	PATH=$HOME/.cargo/bin:$PATH
fi
# Installs MariaDB/PostgreSQL if missing and starts them (scripts/test.sh holds the install step).
scripts/ci/install.sh
scripts/ci/servers.sh start
cargo build --release --quiet
export HAMMER_HOME=${HAMMER_HOME:-$(mktemp -d /tmp/hammer-demo.XXXXXX)}
./target/release/hammer auto scripts/demo.rhai
