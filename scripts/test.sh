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

# ---- install what is missing (and only that)
missing=()
[[ -x /usr/sbin/mariadbd ]] || command -v mariadbd >/dev/null || missing+=(mariadb-server)
command -v mariadb >/dev/null && command -v mariadb-admin >/dev/null || missing+=(mariadb-client)
command -v openssl >/dev/null || missing+=(openssl)
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || missing+=(postgresql-15)
command -v psql >/dev/null || missing+=(postgresql-client-15)
if ((${#missing[@]})); then
	[[ $(id -u) == 0 ]] || {
		echo "test.sh: missing ${missing[*]}; run as root to install them" >&2
		exit 1
	}
	echo "test.sh: installing ${missing[*]}"
	# Keep the packages' postinst from starting the system's own servers on
	# 3306/5432 (we start private ones); Debian's docker-style images already
	# have such a policy-rc.d, a real machine may not.
	policy_added=0
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		policy_added=1
	fi
	apt-get update
	rc=0
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" </dev/null || rc=$?
	((policy_added)) && rm -f /usr/sbin/policy-rc.d
	((rc == 0)) || exit "$rc"
fi

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
scripts/ci/servers.sh start

# ---- tests: build quietly first, then run with the test output kept
cargo test --all-targets --no-run --quiet "$@"
rc=0
cargo test --all-targets "$@" || rc=$?
exit "$rc"
