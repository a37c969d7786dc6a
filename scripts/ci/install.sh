#!/usr/bin/env bash
# Installs what hammer's tests and demo need on a fresh Debian 12 machine, and only what is
# missing: MariaDB server and client, Galera (galera-4, and rsync and ss for its state
# transfers), PostgreSQL 15, openssl, sysbench (the transaction counter's tests compare with
# it), Chromium (the report's test lays it out headless). Needs root when something is missing.
set -euo pipefail

# ---- install what is missing (and only that)
missing=()
[[ -x /usr/sbin/mariadbd ]] || command -v mariadbd >/dev/null || missing+=(mariadb-server)
command -v mariadb >/dev/null && command -v mariadb-admin >/dev/null || missing+=(mariadb-client)
[[ -f /usr/lib/galera/libgalera_smm.so ]] || missing+=(galera-4)
command -v rsync >/dev/null || missing+=(rsync)
command -v ss >/dev/null || missing+=(iproute2)
command -v openssl >/dev/null || missing+=(openssl)
command -v sysbench >/dev/null || missing+=(sysbench)
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || missing+=(postgresql-15)
command -v psql >/dev/null || missing+=(postgresql-client-15)
command -v chromium >/dev/null || missing+=(chromium)
if ((${#missing[@]})); then
	[[ $(id -u) == 0 ]] || {
		echo "install.sh: missing ${missing[*]}; run as root to install them" >&2
		exit 1
	}
	echo "install.sh: installing ${missing[*]}"
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

