#!/usr/bin/env bash
# Private PostgreSQL and MariaDB servers on loopback for hammer's tests and CI.
#
#   scripts/ci/servers.sh start|stop|status
#   scripts/ci/servers.sh restart-pg [seconds down]
#   scripts/ci/servers.sh galera-kill N | galera-start N          (N = 1, 2 or 3)
#   scripts/ci/servers.sh galera-freeze N | galera-thaw N         (SIGSTOP/SIGCONT: a stall)
#   scripts/ci/servers.sh pg-pair sync|async | pg-pair-kill-primary | pg-pair-promote | pg-pair-stop
#
# Everything lives under ${HAMMER_CI_DIR:-/tmp/hammer-ci}; the system's own
# clusters (Debian's 15/main, /var/lib/mysql) are never touched.
#   PostgreSQL 127.0.0.1:${HAMMER_PG_PORT:-5432}     superuser postgres/postgres
#   PostgreSQL standby 127.0.0.1:${HAMMER_PG_STANDBY_PORT:-5433}: a hot standby streaming from
#              the one above (pg_basebackup -R), read-only, same logins
#   MariaDB    127.0.0.1:${HAMMER_MARIA_PORT:-3306}  socket /tmp/mariadb.sock, root/maria
#   MariaDB #2 127.0.0.1:${HAMMER_MARIA2_PORT:-3307} socket /tmp/mariadb2.sock, root/maria:
#              a small second server, for the tests of two servers on one machine
#   Galera     a three-node MariaDB Galera cluster (galera-4, SST by rsync), root/maria:
#              node N on 127.0.0.1:${HAMMER_GALERAn_PORT:-4306/4307/4308}, socket /tmp/galeraN.sock,
#              group communication on 127.0.0.1:4567/4577/4587 (${HAMMER_GALERA_WSREP_PORT:-4567}
#              + 10 per node), IST on that port + 1, SST on that port + 2.
#              galera-kill N sends node N SIGKILL and waits until the others see it gone;
#              galera-start N starts it again on its data, waits until it has rejoined
#              (IST) and is Synced.
#   The sockets move with HAMMER_MARIA_SOCK, HAMMER_MARIA2_SOCK and HAMMER_GALERA_SOCK_PREFIX
#   (node N: <prefix>N.sock): with those, the port variables and HAMMER_CI_DIR, a second set
#   of servers can run beside the first.
#   all the above: login hammer_nocreate/nocreate that may not create databases,
#        TLS with a certificate from a private CA ($HAMMER_CI_DIR/ssl/ca.crt).
#   PostgreSQL pair, made only by `pg-pair sync|async`, for failover tests: a primary on
#              127.0.0.1:${HAMMER_PAIR_PRIMARY_PORT:-5434} and its streaming standby on
#              127.0.0.1:${HAMMER_PAIR_STANDBY_PORT:-5435}, postgres/postgres, both made afresh;
#              sync: the primary waits for the standby at every commit
#              (synchronous_standby_names), async: it does not. pg-pair-kill-primary stops
#              the primary at once (immediate mode, as a crash), pg-pair-promote promotes the
#              standby and waits until it takes writes, pg-pair-stop stops both.
# The settings trade durability for speed: these are throwaway test servers.
set -euo pipefail

CI_DIR=${HAMMER_CI_DIR:-/tmp/hammer-ci}
PG_PORT=${HAMMER_PG_PORT:-5432}
MARIA_PORT=${HAMMER_MARIA_PORT:-3306}
MARIA_SOCK=${HAMMER_MARIA_SOCK:-/tmp/mariadb.sock} # HammerDB's default maria_socket
MARIA2_PORT=${HAMMER_MARIA2_PORT:-3307}
MARIA2_SOCK=${HAMMER_MARIA2_SOCK:-/tmp/mariadb2.sock}
PG_STANDBY_PORT=${HAMMER_PG_STANDBY_PORT:-5433}
PAIR_PRIMARY_PORT=${HAMMER_PAIR_PRIMARY_PORT:-5434}
PAIR_STANDBY_PORT=${HAMMER_PAIR_STANDBY_PORT:-5435}
GALERA_PORTS=(unused "${HAMMER_GALERA1_PORT:-4306}" "${HAMMER_GALERA2_PORT:-4307}" "${HAMMER_GALERA3_PORT:-4308}")
GALERA_WSREP_PORT=${HAMMER_GALERA_WSREP_PORT:-4567}
GALERA_SOCK_PREFIX=${HAMMER_GALERA_SOCK_PREFIX:-/tmp/galera} # node N: ${prefix}N.sock
GALERA_PROVIDER=/usr/lib/galera/libgalera_smm.so
WAIT_SECS=60

SSL_DIR=$CI_DIR/ssl
PG_DIR=$CI_DIR/pg # also the unix socket directory
PG_DATA=$PG_DIR/data
PG_LOG=$PG_DIR/postgres.log
MARIA_DIR=$CI_DIR/maria
MARIA_LOG=$MARIA_DIR/mariadbd.log
MARIA2_DIR=$CI_DIR/maria2
PG_STANDBY_DIR=$CI_DIR/pg-standby # also its socket directory
PAIR_DIR=$CI_DIR/pg-pair          # primary/ and standby/, each its data/ and socket

log() { echo "servers.sh: $*"; }
die() {
	echo "servers.sh: ERROR: $*" >&2
	exit 1
}

# Show the end of a server log when something fails, so CI output says why.
die_with_log() {
	local file=$1
	shift
	echo "servers.sh: ERROR: $*" >&2
	if [[ -f $file ]]; then
		echo "----- last lines of $file -----" >&2
		tail -n 40 "$file" >&2 || true
		echo "-----" >&2
	fi
	exit 1
}

[[ $CI_DIR == /* && $CI_DIR != / ]] || die "HAMMER_CI_DIR must be an absolute path other than / (got '$CI_DIR')"

# ---------------------------------------------------------------- helpers

# Debian puts PostgreSQL binaries outside PATH; prefer 15, else the newest.
find_pg_bin() {
	if [[ -n ${HAMMER_PG_BIN:-} ]]; then
		echo "$HAMMER_PG_BIN"
	elif [[ -x /usr/lib/postgresql/15/bin/postgres ]]; then
		echo /usr/lib/postgresql/15/bin
	else
		# Empty if none: only 'start' needs it, and says so.
		ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true
	fi
}
PG_BIN=$(find_pg_bin)

# mariadbd is in /usr/sbin, which a non-login PATH may lack.
MARIADBD=$(command -v mariadbd || echo /usr/sbin/mariadbd)

# Clients ignore /etc/mysql/*.cnf (which points at /run/mysqld/mysqld.sock).
maria_sock() {
	local sock=$1
	shift
	mariadb --no-defaults -S "$sock" "$@"
}

as_postgres() { runuser -u postgres -- "$@"; }

# Alive and not a zombie waiting for PID 1 to reap it.
alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]
}

# PID from a pidfile if that process is alive (first line of the file).
live_pid() {
	local file=$1 pid
	[[ -f $file ]] || return 1
	pid=$(head -n 1 "$file" 2>/dev/null || true)
	[[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && echo "$pid"
}

# Send SIGTERM, wait up to WAIT_SECS, then SIGKILL.
kill_and_wait() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	kill -CONT "$pid" 2>/dev/null || true # a stopped (SIGSTOP) process would never see TERM
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		alive "$pid" || return 0
		sleep 0.5
	done
	log "pid $pid ignored SIGTERM for ${WAIT_SECS}s, sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.5
}

port_busy() { [[ -n $(ss -Hltn "sport = :$1" 2>/dev/null) ]]; }

# A listener left on our port: kill it if its command line names our CI dir
# (a leftover whose pidfile was lost), otherwise refuse to touch it.
free_port() {
	local port=$1 what=$2 env_var=$3 pids pid cmd
	port_busy "$port" || return 0
	pids=$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u || true)
	for pid in $pids; do
		cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
		if [[ $cmd == *"$CI_DIR"* ]]; then
			log "killing leftover $what (pid $pid: $cmd) still holding port $port"
			kill_and_wait "$pid"
		else
			die "port $port is held by pid $pid ($cmd), which is not a $what of $CI_DIR; stop it or set $env_var to another port"
		fi
	done
	sleep 0.5
	port_busy "$port" && die "port $port on 127.0.0.1 is in use by a process we cannot identify; stop it or set $env_var to another port"
	return 0
}

ensure_user() {
	local user=$1 home=$2 shell=$3
	id -u "$user" >/dev/null 2>&1 && return 0
	log "creating OS user $user"
	useradd --system --user-group --home-dir "$home" --no-create-home --shell "$shell" "$user"
}

# A private CA ($SSL_DIR/ca.crt, what clients trust: pg_sslrootcert, maria_ssl_ca) and one
# server certificate it signed for both servers; its SANs cover localhost and 127.0.0.1, so
# clients can check the host name too (libpq's verify-full). A certificate that is its own CA
# would not do: a verifier refuses a CA certificate used as the server's.
ensure_cert() {
	[[ -s $SSL_DIR/ca.crt && -s $SSL_DIR/server.crt && -s $SSL_DIR/server.key ]] && return 0
	mkdir -p "$SSL_DIR"
	{
		openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
			-subj "/CN=hammer CI CA" \
			-addext "basicConstraints=critical,CA:TRUE" \
			-addext "keyUsage=critical,keyCertSign,cRLSign" \
			-keyout "$SSL_DIR/ca.key" -out "$SSL_DIR/ca.crt" &&
			openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=localhost" \
				-keyout "$SSL_DIR/server.key" -out "$SSL_DIR/server.csr" &&
			printf '%s\n' "basicConstraints=critical,CA:FALSE" \
				"keyUsage=critical,digitalSignature,keyEncipherment" \
				"extendedKeyUsage=serverAuth" \
				"subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" >"$SSL_DIR/server.ext" &&
			openssl x509 -req -in "$SSL_DIR/server.csr" -CA "$SSL_DIR/ca.crt" \
				-CAkey "$SSL_DIR/ca.key" -CAcreateserial -days 3650 -sha256 \
				-extfile "$SSL_DIR/server.ext" -out "$SSL_DIR/server.crt"
	} >"$SSL_DIR/openssl.log" 2>&1 ||
		die_with_log "$SSL_DIR/openssl.log" "openssl could not make the CA and the server certificate"
	chmod 644 "$SSL_DIR/ca.crt" "$SSL_DIR/server.crt"
	chmod 600 "$SSL_DIR/server.key" "$SSL_DIR/ca.key"
}

# Each server gets its own copy of cert+key, owned by its OS user, because
# both refuse keys they cannot read and PostgreSQL refuses group/world-readable ones.
install_cert() {
	local dir=$1 owner=$2
	install -m 644 -o "$owner" -g "$owner" "$SSL_DIR/server.crt" "$dir/server.crt"
	install -m 600 -o "$owner" -g "$owner" "$SSL_DIR/server.key" "$dir/server.key"
	install -m 644 -o "$owner" -g "$owner" "$SSL_DIR/ca.crt" "$dir/ca.crt"
}

# ---------------------------------------------------------------- PostgreSQL

# Each PostgreSQL server is named by its data directory and port: the CI primary ($PG_DATA,
# $PG_PORT), its standby ($PG_STANDBY_DIR/data), and the failover pair ($PAIR_DIR/*/data).
pg_pid() { live_pid "${1:-$PG_DATA}/postmaster.pid"; }
pg_answers() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "${1:-$PG_PORT}" -t 3; }

# pg_sql PORT SQL: the result of one query as the superuser, unaligned, nothing else; the
# password comes from the environment, never the command line.
pg_sql() {
	local port=$1
	shift
	PGPASSWORD=postgres PGCONNECT_TIMEOUT=3 "$PG_BIN/psql" -X -At -v ON_ERROR_STOP=1 \
		"host=127.0.0.1 port=$port user=postgres dbname=postgres" -c "$@" 2>/dev/null
}

# pg_stop [DATA NAME MODE]: fast by default; immediate is a crash as far as the data goes.
pg_stop() {
	local data=${1:-$PG_DATA} name=${2:-PostgreSQL} mode=${3:-fast} pid
	pid=$(pg_pid "$data") || return 0
	log "stopping $name (pid $pid, $mode)"
	as_postgres "$PG_BIN/pg_ctl" -D "$data" -m "$mode" -w -t "$WAIT_SECS" -s stop ||
		kill_and_wait "$pid"
}

# pg_launch DATA PORT NAME: starts a server on existing data and waits until it answers.
pg_launch() {
	local data=$1 port=$2 name=$3 logfile i
	logfile=$(dirname "$data")/postgres.log
	log "starting $name on 127.0.0.1:$port"
	# setsid: the server must not get the terminal's Ctrl-C meant for cargo.
	setsid -w runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" -l "$logfile" \
		-w -t "$WAIT_SECS" -s start ||
		die_with_log "$logfile" "$name did not start"
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		pg_answers "$port" && return 0
		sleep 0.5
	done
	die_with_log "$logfile" "$name does not answer on 127.0.0.1:$port after ${WAIT_SECS}s"
}

# pg_initdb DIR PORT: a new cluster in DIR/data (DIR is also its socket directory) with the
# superuser postgres/postgres, TLS, and the settings every primary here shares; the caller
# appends its own (shared_buffers, max_connections, replication).
pg_initdb() {
	local dir=$1 port=$2
	[[ -x $PG_BIN/postgres ]] || die "no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql-15)"
	ensure_user postgres /var/lib/postgresql /bin/bash
	rm -rf "$dir"
	install -d -m 700 -o postgres -g postgres "$dir"

	# Password via a file so it never shows up in ps.
	install -m 600 -o postgres -g postgres /dev/null "$dir/pwfile"
	echo postgres >"$dir/pwfile"
	as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 --no-sync \
		--encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
		die_with_log "$dir/initdb.log" "initdb failed"
	rm -f "$dir/pwfile"
	install_cert "$dir" postgres

	# Appended settings override initdb's defaults earlier in the file.
	cat >>"$dir/data/postgresql.conf" <<-EOC

		# ---- hammer CI (scripts/ci/servers.sh) ----
		listen_addresses = '127.0.0.1'
		port = $port
		unix_socket_directories = '$dir'
		max_wal_size = 4GB              # fewer checkpoints during schema builds
		# Test speed only: a crash of the machine loses data, which is fine for a throwaway
		# server (a killed server loses nothing: its writes are in the OS's page cache).
		fsync = off
		full_page_writes = off
		password_encryption = scram-sha-256
		ssl = on
		ssl_cert_file = '$dir/server.crt'
		ssl_key_file = '$dir/server.key'
		# Standbys copy this server (pg_basebackup) and stream its WAL.
		wal_level = replica
		max_wal_senders = 10
		wal_keep_size = 1GB             # a standby that falls behind catches up without a slot
		# stderr goes to postgres.log via pg_ctl -l
		log_destination = 'stderr'
		logging_collector = off
	EOC

	# Passwords are checked on every TCP connection (so a wrong one fails);
	# 'host' rather than 'hostssl' so that both sslmode=disable and =require work.
	cat >"$dir/data/pg_hba.conf" <<-EOC
		# TYPE  DATABASE     USER  ADDRESS        METHOD
		local   all          all                  trust
		host    all          all   127.0.0.1/32   scram-sha-256
		host    all          all   ::1/128        scram-sha-256
		host    replication  all   127.0.0.1/32   scram-sha-256
	EOC
}

pg_start_fresh() {
	pg_initdb "$PG_DIR" "$PG_PORT"
	cat >>"$PG_DATA/postgresql.conf" <<-EOF
		max_connections = 300
		shared_buffers = 1GB
		synchronous_commit = off
	EOF
	pg_launch "$PG_DATA" "$PG_PORT" PostgreSQL
	as_postgres "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -d postgres \
		-c "CREATE ROLE hammer_nocreate LOGIN PASSWORD 'nocreate' NOCREATEDB NOCREATEROLE" ||
		die_with_log "$PG_LOG" "could not create role hammer_nocreate"
}

# A CI primary started before it had standbys gets what one needs without a restart: the
# replication line in pg_hba.conf and wal_keep_size, both taken by a reload. Only wal_level
# needs a restart, and PostgreSQL's default (replica) is already enough.
pg_allow_replication() {
	local level
	level=$(pg_sql "$PG_PORT" 'SHOW wal_level') || die_with_log "$PG_LOG" "cannot query the PostgreSQL on 127.0.0.1:$PG_PORT"
	[[ $level == replica || $level == logical ]] ||
		die "the PostgreSQL on 127.0.0.1:$PG_PORT has wal_level $level; a standby needs replica: run scripts/ci/servers.sh stop, then start"
	local reload=0
	if ! grep -Eq '^host[[:space:]]+replication[[:space:]]' "$PG_DATA/pg_hba.conf"; then
		log "allowing replication from 127.0.0.1 in $PG_DATA/pg_hba.conf"
		printf 'host    replication  all   127.0.0.1/32   scram-sha-256\n' >>"$PG_DATA/pg_hba.conf"
		reload=1
	fi
	if [[ $(pg_sql "$PG_PORT" 'SHOW wal_keep_size') == 0 ]]; then
		pg_sql "$PG_PORT" "ALTER SYSTEM SET wal_keep_size = '1GB'" >/dev/null ||
			die "could not set wal_keep_size on 127.0.0.1:$PG_PORT"
		reload=1
	fi
	if ((reload)); then
		pg_sql "$PG_PORT" 'SELECT pg_reload_conf()' >/dev/null || die "could not reload the PostgreSQL on 127.0.0.1:$PG_PORT"
	fi
}

# pg_standby_fresh FROM_PORT DIR PORT NAME: a hot standby in DIR/data, copied from the primary
# on FROM_PORT by pg_basebackup -R (which writes primary_conninfo and standby.signal), named
# NAME to the primary (its application_name, what synchronous_standby_names lists).
pg_standby_fresh() {
	local from=$1 dir=$2 port=$3 name=$4 size
	rm -rf "$dir"
	install -d -m 700 -o postgres -g postgres "$dir"
	install_cert "$dir" postgres
	# The password reaches pg_basebackup, and the standby's primary_conninfo, through a file.
	install -m 600 -o postgres -g postgres /dev/null "$dir/pgpass"
	echo "127.0.0.1:$from:*:postgres:postgres" >"$dir/pgpass"
	size=$(pg_sql "$from" "SELECT pg_size_pretty(sum(pg_database_size(oid))) FROM pg_database") || size='?'
	log "copying the primary on 127.0.0.1:$from for $name (pg_basebackup, $size)"
	PGPASSFILE=$dir/pgpass as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$from" -U postgres \
		-D "$dir/data" -R -X stream --checkpoint=fast --no-sync >"$dir/basebackup.log" 2>&1 ||
		die_with_log "$dir/basebackup.log" "pg_basebackup from 127.0.0.1:$from failed"
	# The copy carries the primary's postgresql.conf; what follows overrides it.
	cat >>"$dir/data/postgresql.conf" <<-EOF

		# ---- hammer CI: $name, streaming standby of 127.0.0.1:$from ----
		port = $port
		unix_socket_directories = '$dir'
		shared_buffers = 128MB
		ssl_cert_file = '$dir/server.crt'
		ssl_key_file = '$dir/server.key'
		hot_standby = on
		cluster_name = '$name'          # its application_name on the primary
		synchronous_standby_names = ''  # promoted, it must not wait for a standby of its own
		primary_conninfo = 'host=127.0.0.1 port=$from user=postgres passfile=''$dir/pgpass'' application_name=$name'
	EOF
	# pg_basebackup -R also wrote a primary_conninfo, in postgresql.auto.conf, which wins.
	sed -i '/^primary_conninfo/d' "$dir/data/postgresql.auto.conf"
}

# pg_wait_streaming PORT NAME: waits until the standby on PORT is in recovery and streaming.
pg_wait_streaming() {
	local port=$1 name=$2 state i
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		state=$(pg_sql "$port" "SELECT pg_is_in_recovery() || ' ' || coalesce((SELECT status FROM pg_stat_wal_receiver), 'none')") || state=
		[[ $state == "true streaming" ]] && return 0
		sleep 0.5
	done
	die "$name on 127.0.0.1:$port is not a streaming standby after ${WAIT_SECS}s (in recovery, receiver: ${state:-no answer})"
}

pg_standby_start_fresh() {
	pg_stop "$PG_STANDBY_DIR/data" "PostgreSQL standby"
	pg_allow_replication
	pg_standby_fresh "$PG_PORT" "$PG_STANDBY_DIR" "$PG_STANDBY_PORT" hammer_standby
	pg_launch "$PG_STANDBY_DIR/data" "$PG_STANDBY_PORT" "PostgreSQL standby"
	pg_wait_streaming "$PG_STANDBY_PORT" "PostgreSQL standby"
}

# Runs and answers as a streaming standby.
pg_standby_ok() {
	pg_pid "$PG_STANDBY_DIR/data" >/dev/null &&
		[[ $(pg_sql "$PG_STANDBY_PORT" "SELECT pg_is_in_recovery() || ' ' || coalesce((SELECT status FROM pg_stat_wal_receiver), 'none')") == "true streaming" ]]
}

pg_status() {
	local data=${1:-$PG_DATA} port=${2:-$PG_PORT} name=${3:-PostgreSQL} v role
	if v=$(pg_sql "$port" 'show server_version'); then
		role=$(pg_sql "$port" "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby, receiver ' || coalesce((SELECT status FROM pg_stat_wal_receiver), 'not running') ELSE 'primary, ' || (SELECT count(*) FROM pg_stat_replication) || ' standby(s) streaming' END") || role='?'
		echo "$name 127.0.0.1:$port: answering (version $v, pid $(pg_pid "$data" || echo '?'), $role)"
	else
		echo "$name 127.0.0.1:$port: NOT answering"
		return 1
	fi
}

# ---------------------------------------------------------------- PostgreSQL failover pair

PAIR_STANDBY_NAME=hammer_pair_standby

pair_stop() {
	pg_stop "$PAIR_DIR/standby/data" "pair standby"
	pg_stop "$PAIR_DIR/primary/data" "pair primary"
}

# (Re)creates the pair from scratch: MODE sync or async.
cmd_pg_pair() {
	local mode=$1 t0=$SECONDS
	[[ $mode == sync || $mode == async ]] || die "pg-pair: mode '$mode' is not valid; use sync or async"
	[[ $(id -u) == 0 ]] || die "run as root (it starts servers as the user postgres)"
	pair_stop
	free_port "$PAIR_PRIMARY_PORT" "PostgreSQL" HAMMER_PAIR_PRIMARY_PORT
	free_port "$PAIR_STANDBY_PORT" "PostgreSQL" HAMMER_PAIR_STANDBY_PORT
	mkdir -p "$CI_DIR"
	chmod 755 "$CI_DIR"
	ensure_cert
	rm -rf "$PAIR_DIR"
	install -d -m 755 "$PAIR_DIR"
	log "making the pair ($mode): primary 127.0.0.1:$PAIR_PRIMARY_PORT, standby 127.0.0.1:$PAIR_STANDBY_PORT"
	pg_initdb "$PAIR_DIR/primary" "$PAIR_PRIMARY_PORT"
	{
		echo "max_connections = 100"
		echo "shared_buffers = 128MB"
		echo "synchronous_commit = on"
		if [[ $mode == sync ]]; then
			echo "synchronous_standby_names = '$PAIR_STANDBY_NAME'  # a commit waits for the standby"
		else
			echo "synchronous_standby_names = ''  # asynchronous: commits do not wait"
		fi
	} >>"$PAIR_DIR/primary/data/postgresql.conf"
	pg_launch "$PAIR_DIR/primary/data" "$PAIR_PRIMARY_PORT" "pair primary"
	pg_standby_fresh "$PAIR_PRIMARY_PORT" "$PAIR_DIR/standby" "$PAIR_STANDBY_PORT" "$PAIR_STANDBY_NAME"
	pg_launch "$PAIR_DIR/standby/data" "$PAIR_STANDBY_PORT" "pair standby"
	pg_wait_streaming "$PAIR_STANDBY_PORT" "pair standby"
	if [[ $mode == sync ]]; then
		local i state
		for ((i = 0; i < WAIT_SECS * 2; i++)); do
			state=$(pg_sql "$PAIR_PRIMARY_PORT" "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$PAIR_STANDBY_NAME'") || state=
			[[ $state == sync ]] && break
			sleep 0.5
		done
		[[ $state == sync ]] || die "the pair standby is not synchronous after ${WAIT_SECS}s (sync_state '${state:-none}')"
	fi
	log "pair up ($mode) in $((SECONDS - t0))s: primary 127.0.0.1:$PAIR_PRIMARY_PORT, standby 127.0.0.1:$PAIR_STANDBY_PORT, postgres/postgres"
}

cmd_pair_kill_primary() {
	[[ -d $PAIR_DIR/primary/data ]] || die "no pair: make one with scripts/ci/servers.sh pg-pair sync|async"
	if ! pg_pid "$PAIR_DIR/primary/data" >/dev/null; then
		log "the pair primary (127.0.0.1:$PAIR_PRIMARY_PORT) is not running: nothing to kill"
		return 0
	fi
	pg_stop "$PAIR_DIR/primary/data" "pair primary" immediate
	pg_pid "$PAIR_DIR/primary/data" >/dev/null && die "the pair primary still runs after an immediate stop"
	log "pair primary (127.0.0.1:$PAIR_PRIMARY_PORT) killed"
}

cmd_pair_promote() {
	local i
	[[ -d $PAIR_DIR/standby/data ]] || die "no pair: make one with scripts/ci/servers.sh pg-pair sync|async"
	pg_answers "$PAIR_STANDBY_PORT" || die_with_log "$PAIR_DIR/standby/postgres.log" "the pair standby does not answer on 127.0.0.1:$PAIR_STANDBY_PORT"
	log "promoting the pair standby (127.0.0.1:$PAIR_STANDBY_PORT)"
	as_postgres "$PG_BIN/pg_ctl" -D "$PAIR_DIR/standby/data" -w -t "$WAIT_SECS" -s promote ||
		die_with_log "$PAIR_DIR/standby/postgres.log" "pg_ctl promote failed"
	# Out of recovery is not yet open for writes everywhere: wait until an xid is assigned.
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		if [[ $(pg_sql "$PAIR_STANDBY_PORT" 'SELECT pg_is_in_recovery()') == f ]] &&
			pg_sql "$PAIR_STANDBY_PORT" 'SELECT pg_current_xact_id()' >/dev/null; then
			log "the pair standby (127.0.0.1:$PAIR_STANDBY_PORT) is now a primary and takes writes"
			return 0
		fi
		sleep 0.5
	done
	die_with_log "$PAIR_DIR/standby/postgres.log" "the promoted standby does not take writes after ${WAIT_SECS}s"
}

# ---------------------------------------------------------------- MariaDB

# Each MariaDB server is named by its directory, port and socket: the main one
# ($MARIA_DIR, $MARIA_PORT, $MARIA_SOCK), a small second one ($MARIA2_*), and the Galera
# nodes ($CI_DIR/galeraN, ${GALERA_PORTS[N]}, /tmp/galeraN.sock).
maria_pid() { live_pid "${1:-$MARIA_DIR}/mariadbd.pid"; }
# ping exits 0 whenever a server answers, even with "access denied".
maria_answers() {
	mariadb-admin --no-defaults --protocol=tcp -h 127.0.0.1 -P "${1:-$MARIA_PORT}" \
		--connect-timeout=3 ping >/dev/null 2>&1
}
maria_sock_answers() {
	mariadb-admin --no-defaults -S "${1:-$MARIA_SOCK}" --connect-timeout=3 ping >/dev/null 2>&1
}

maria_stop() {
	local dir=${1:-$MARIA_DIR} name=${2:-MariaDB} pid
	pid=$(maria_pid "$dir") || return 0
	log "stopping $name (pid $pid)"
	# SIGTERM is mariadbd's normal shutdown and needs no password.
	kill_and_wait "$pid"
}

# maria_write_cnf DIR PORT SOCKET BUFFER_POOL LOG_FILE_SIZE MAX_CONNECTIONS: a new, empty
# server directory (data/, tmp/, its certificate) and its option file DIR/my.cnf.
maria_write_cnf() {
	local dir=$1 port=$2 sock=$3 pool=$4 logsize=$5 conns=$6
	local cnf=$dir/my.cnf
	[[ -x $MARIADBD ]] || die "no mariadbd found (apt-get install mariadb-server)"
	ensure_user mysql /nonexistent /bin/false
	rm -f "$sock" "$sock.lock" # stale leftovers block the bind
	rm -rf "$dir"
	install -d -m 750 -o mysql -g mysql "$dir" "$dir/data" "$dir/tmp"
	# Its own, so that the server (as mysql) and the SST script it runs can both write it.
	install -m 640 -o mysql -g mysql /dev/null "$dir/mariadbd.log"
	install_cert "$dir" mysql

	# Our own option file, so /etc/mysql (socket in /run/mysqld, etc.) is ignored.
	cat >"$cnf" <<-EOC
		# hammer CI (scripts/ci/servers.sh)
		[mysqld]
		user = mysql
		datadir = $dir/data
		tmpdir = $dir/tmp
		pid-file = $dir/mariadbd.pid
		log-error = $dir/mariadbd.log
		bind-address = 127.0.0.1
		port = $port
		socket = $sock
		# accounts are made for 127.0.0.1 and localhost, so no DNS is needed
		skip-name-resolve
		character-set-server = utf8mb4
		collation-server = utf8mb4_general_ci
		local_infile = ON
		max_connections = $conns
		innodb_buffer_pool_size = $pool
		innodb_log_file_size = $logsize
		# Test speed only: lose up to a second of commits on a crash.
		innodb_flush_log_at_trx_commit = 0
		ssl_cert = $dir/server.crt
		ssl_key = $dir/server.key
		ssl_ca = $dir/ca.crt
	EOC
	chmod 644 "$cnf"
}

# maria_install_db DIR: the system tables, with root's password login rather than unix_socket.
maria_install_db() {
	local dir=$1
	# No 'test' db, whose wildcard grants would let any user create test_* databases.
	mariadb-install-db --defaults-file="$dir/my.cnf" --auth-root-authentication-method=normal \
		--skip-test-db --skip-name-resolve --user=mysql >"$dir/install-db.log" 2>&1 ||
		die_with_log "$dir/install-db.log" "mariadb-install-db failed"
}

# maria_launch DIR PORT SOCKET NAME [mariadbd options...]: starts the server and waits until
# it answers on both its socket and its port.
maria_launch() {
	local dir=$1 port=$2 sock=$3 name=$4
	shift 4
	local logfile=$dir/mariadbd.log
	# setsid + no inherited stdio: the server outlives this script and never
	# holds a CI log pipe open.
	setsid "$MARIADBD" --defaults-file="$dir/my.cnf" "$@" </dev/null >>"$logfile" 2>&1 &
	local launcher=$! i
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		maria_sock_answers "$sock" && maria_answers "$port" && break
		# Give up early if the server already died.
		if ! alive "$launcher" && ! maria_pid "$dir" >/dev/null; then
			die_with_log "$logfile" "$name (mariadbd) exited during startup"
		fi
		sleep 0.5
	done
	maria_answers "$port" || die_with_log "$logfile" "$name does not answer on 127.0.0.1:$port after ${WAIT_SECS}s"
}

# maria_accounts SOCKET NAME: on a fresh server, whose root has an empty password over the
# socket, root/maria from anywhere and hammer_nocreate/nocreate.
maria_accounts() {
	local sock=$1 name=$2 logfile=${3:-/dev/null}
	# Drop anonymous accounts (''@localhost would shadow hammer_nocreate@% on the
	# socket) and install-db's passwordless root@<hostname>.
	local drops
	drops=$(maria_sock "$sock" -uroot -N -B -e \
		"SELECT CONCAT('DROP USER ', QUOTE(user), '@', QUOTE(host), ';') FROM mysql.user
		 WHERE user = '' OR (user = 'root' AND host NOT IN ('localhost', '127.0.0.1', '::1', '%'))") ||
		die_with_log "$logfile" "cannot log in as root on $sock after install"
	local sql="$drops"
	local host
	for host in localhost 127.0.0.1 ::1 %; do
		sql+="
CREATE USER IF NOT EXISTS 'root'@'$host';
ALTER USER 'root'@'$host' IDENTIFIED VIA mysql_native_password USING PASSWORD('maria');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'$host' WITH GRANT OPTION;"
	done
	sql+="
CREATE USER 'hammer_nocreate'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('nocreate');
FLUSH PRIVILEGES;"
	maria_sock "$sock" -uroot -e "$sql" || die_with_log "$logfile" "could not set up $name accounts"
}

# maria_start_fresh DIR PORT SOCKET NAME BUFFER_POOL LOG_FILE_SIZE MAX_CONNECTIONS
maria_start_fresh() {
	local dir=$1 port=$2 sock=$3 name=$4
	maria_write_cnf "$dir" "$port" "$sock" "$5" "$6" "$7"
	maria_install_db "$dir"
	log "starting $name on 127.0.0.1:$port, socket $sock"
	maria_launch "$dir" "$port" "$sock" "$name"
	maria_accounts "$sock" "$name" "$dir/mariadbd.log"
}

maria_status() {
	local dir=${1:-$MARIA_DIR} port=${2:-$MARIA_PORT} name=${3:-MariaDB} v
	if v=$(MYSQL_PWD=maria mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -uroot \
		--connect-timeout=3 -N -B -e 'SELECT VERSION()' 2>/dev/null); then
		echo "$name 127.0.0.1:$port: answering (version $v, pid $(maria_pid "$dir" || echo '?'))"
	else
		echo "$name 127.0.0.1:$port: NOT answering"
		return 1
	fi
}

# ---------------------------------------------------------------- Galera

galera_dir() { echo "$CI_DIR/galera$1"; }
galera_sock() { echo "$GALERA_SOCK_PREFIX$1.sock"; }
galera_wsrep_port() { echo $((GALERA_WSREP_PORT + 10 * ($1 - 1))); }

galera_node_arg() {
	[[ ${1:-} =~ ^[123]$ ]] || die "Galera node '${1:-}' is not valid; the nodes are 1, 2 and 3"
}

# galera_var N NAME: a wsrep status variable of node N, empty when it does not answer.
galera_var() {
	MYSQL_PWD=maria mariadb --no-defaults -S "$(galera_sock "$1")" -uroot --connect-timeout=3 \
		-N -B -e "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '$2'" \
		2>/dev/null || true
}

# "Synced N" when node N is Synced in a primary component of N nodes.
galera_state() {
	local n=$1 state size status
	state=$(galera_var "$n" WSREP_LOCAL_STATE_COMMENT)
	size=$(galera_var "$n" WSREP_CLUSTER_SIZE)
	status=$(galera_var "$n" WSREP_CLUSTER_STATUS)
	if [[ -z $state ]]; then
		echo "down"
	elif [[ $status != Primary ]]; then
		echo "$state, ${status:-?} component"
	else
		echo "$state $size"
	fi
}

# galera_wait_synced EXPECTED_SIZE NODE...: waits until every NODE is Synced in a primary
# component of EXPECTED_SIZE nodes.
galera_wait_synced() {
	local size=$1 i n all states
	shift
	local last=${*: -1}
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		all=1
		states=
		for n in "$@"; do
			local st
			st=$(galera_state "$n")
			states+=" node $n: $st;"
			[[ $st == "Synced $size" ]] || all=0
		done
		((all)) && return 0
		sleep 0.5
	done
	die_with_log "$(galera_dir "$last")/mariadbd.log" "Galera nodes not all Synced in a cluster of $size after ${WAIT_SECS}s:$states"
}

# galera_add_wsrep N: the Galera settings of node N, appended to its my.cnf (after
# mariadb-install-db, which needs none of them).
galera_add_wsrep() {
	local n=$1 dir ws m addrs=
	dir=$(galera_dir "$n")
	ws=$(galera_wsrep_port "$n")
	for m in 1 2 3; do addrs+="${addrs:+,}127.0.0.1:$(galera_wsrep_port "$m")"; done
	# Failure detection in seconds rather than Galera's WAN-minded defaults, so that a
	# killed node leaves the cluster quickly (the others stall writes until it has).
	local evs="evs.keepalive_period=PT1S;evs.inactive_check_period=PT1S;evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;evs.install_timeout=PT6S"
	cat >>"$dir/my.cnf" <<-EOF

		# ---- Galera node $n of 3 ----
		binlog_format = ROW
		default_storage_engine = InnoDB
		innodb_autoinc_lock_mode = 2
		wsrep_on = ON
		wsrep_provider = $GALERA_PROVIDER
		wsrep_cluster_name = hammer_ci_galera
		wsrep_cluster_address = gcomm://$addrs
		wsrep_node_name = galera$n
		wsrep_node_address = 127.0.0.1:$ws
		wsrep_provider_options = "gmcast.listen_addr=tcp://127.0.0.1:$ws;ist.recv_addr=127.0.0.1:$((ws + 1));gcache.size=256M;$evs"
		wsrep_sst_method = rsync
		wsrep_sst_receive_address = 127.0.0.1:$((ws + 2))
		wsrep_slave_threads = 2

		# The state transfer runs on loopback between throwaway nodes: in clear, as the
		# server's TLS settings above would otherwise make it need stunnel.
		[sst]
		ssl-mode = DISABLED
	EOF
}

galera_stop_node() {
	maria_stop "$(galera_dir "$1")" "Galera node $1"
}

# Every node runs, answers, and is Synced in a cluster of three.
galera_ok() {
	local n
	for n in 1 2 3; do
		maria_pid "$(galera_dir "$n")" >/dev/null || return 1
		[[ $(galera_state "$n") == "Synced 3" ]] || return 1
	done
}

# A new cluster: node 1 bootstrapped (--wsrep-new-cluster) with the accounts, then nodes 2
# and 3 joining (each copies a synced node by rsync SST).
galera_start_fresh() {
	local n dir port sock
	[[ -f $GALERA_PROVIDER ]] || die "no Galera provider at $GALERA_PROVIDER (apt-get install galera-4)"
	command -v rsync >/dev/null || die "no rsync, which Galera's SST needs (apt-get install rsync)"
	for n in 3 2 1; do galera_stop_node "$n"; done
	for n in 1 2 3; do
		free_port "${GALERA_PORTS[n]}" "MariaDB" "HAMMER_GALERA${n}_PORT"
		local ws
		ws=$(galera_wsrep_port "$n")
		free_port "$ws" "Galera node" HAMMER_GALERA_WSREP_PORT
		free_port $((ws + 1)) "Galera node" HAMMER_GALERA_WSREP_PORT
		free_port $((ws + 2)) "Galera SST" HAMMER_GALERA_WSREP_PORT
		if maria_sock_answers "$(galera_sock "$n")"; then
			die "another MariaDB (not ours) answers on $(galera_sock "$n"); stop it first"
		fi
	done
	for n in 1 2 3; do
		dir=$(galera_dir "$n")
		port=${GALERA_PORTS[n]}
		sock=$(galera_sock "$n")
		maria_write_cnf "$dir" "$port" "$sock" 128M 64M 200
		if ((n == 1)); then
			maria_install_db "$dir"
			galera_add_wsrep 1
			log "starting Galera node 1 on 127.0.0.1:$port, socket $sock (bootstrapping a new cluster)"
			maria_launch "$dir" "$port" "$sock" "Galera node 1" --wsrep-new-cluster
			maria_accounts "$sock" "Galera node 1" "$dir/mariadbd.log"
			galera_wait_synced 1 1
		else
			galera_add_wsrep "$n"
		fi
	done
	# Nodes 2 and 3 join together: a donor serves one SST at a time, so the second joiner
	# retries each second until the first copy is done, which still saves its own start-up.
	log "starting Galera nodes 2 and 3 on 127.0.0.1:${GALERA_PORTS[2]} and ${GALERA_PORTS[3]} (joining: full copies by rsync SST)"
	local launches=()
	for n in 2 3; do
		maria_launch "$(galera_dir "$n")" "${GALERA_PORTS[n]}" "$(galera_sock "$n")" "Galera node $n" &
		launches+=($!)
	done
	for n in 0 1; do
		wait "${launches[n]}" || die "Galera node $((n + 2)) did not join (its log is above)"
	done
	galera_wait_synced 3 1 2 3
}

# Nodes that run Synced and a node of ours that is down: start the down ones again (the
# cluster lives on), else a new cluster.
galera_start() {
	local n up=() down=()
	for n in 1 2 3; do
		if maria_pid "$(galera_dir "$n")" >/dev/null && [[ $(galera_state "$n") == Synced* ]]; then
			up+=("$n")
		else
			down+=("$n")
		fi
	done
	if ((${#down[@]} == 0)); then
		galera_wait_synced 3 1 2 3
		log "Galera cluster already runs: kept"
	elif ((${#up[@]} > 0)); then
		for n in "${down[@]}"; do
			[[ -f $(galera_dir "$n")/data/grastate.dat ]] || {
				galera_start_fresh
				return 0
			}
		done
		log "Galera nodes ${up[*]} run: starting node(s) ${down[*]} again to rejoin them"
		for n in "${down[@]}"; do galera_start_node "$n"; done
	else
		galera_start_fresh
	fi
}

# galera_start_node N: node N again on its data, joining the running nodes (IST when the
# others' gcache still holds what it missed, else a full SST).
galera_start_node() {
	local n=$1 dir port sock m others=() lines
	dir=$(galera_dir "$n")
	port=${GALERA_PORTS[n]}
	sock=$(galera_sock "$n")
	[[ -f $dir/my.cnf && -d $dir/data ]] || die "Galera node $n has no data in $dir: make the cluster with scripts/ci/servers.sh start"
	if maria_pid "$dir" >/dev/null; then
		log "Galera node $n already runs"
	else
		for m in 1 2 3; do
			((m == n)) && continue
			maria_pid "$(galera_dir "$m")" >/dev/null && others+=("$m")
		done
		((${#others[@]})) || die "no other Galera node runs, so node $n has no cluster to join: start a new one with scripts/ci/servers.sh stop, then start"
		rm -f "$sock" "$sock.lock"
		# A node that was killed left no position in grastate.dat; without one it would
		# need a full copy (SST). --wsrep-recover reads it from InnoDB, as mysqld_safe does.
		local pos
		"$MARIADBD" --defaults-file="$dir/my.cnf" --wsrep-recover --disable-log-error \
			</dev/null >"$dir/wsrep-recover.log" 2>&1 ||
			die_with_log "$dir/wsrep-recover.log" "Galera node $n: mariadbd --wsrep-recover failed"
		pos=$(grep -a 'WSREP: Recovered position:' "$dir/wsrep-recover.log" | tail -n 1 | awk '{print $NF}')
		lines=$(wc -l <"$dir/mariadbd.log" 2>/dev/null || echo 0)
		log "starting Galera node $n on 127.0.0.1:$port (rejoining nodes ${others[*]} from position ${pos:-unknown})"
		maria_launch "$dir" "$port" "$sock" "Galera node $n" ${pos:+"--wsrep-start-position=$pos"}
		local how="state transfer"
		# The rsync script runs either way and says which it did.
		if tail -n +$((lines + 1)) "$dir/mariadbd.log" | grep -q 'rsync SST completed'; then
			how="SST (full copy)"
		elif tail -n +$((lines + 1)) "$dir/mariadbd.log" | grep -q 'rsync IST completed'; then
			how="IST"
		fi
		log "Galera node $n rejoined by $how"
	fi
	local all=()
	for m in 1 2 3; do maria_pid "$(galera_dir "$m")" >/dev/null && all+=("$m"); done
	galera_wait_synced "${#all[@]}" "${all[@]}"
	log "Galera nodes ${all[*]} Synced in a cluster of ${#all[@]}"
}

# galera_others_go_on N WHAT: waits until the running nodes other than N form a primary
# component of their own (they notice N gone after evs.suspect_timeout; until then their
# writes wait), and says so; WHAT is how N left ("killed", "frozen").
galera_others_go_on() {
	local n=$1 what=$2 m i others=() st
	for m in 1 2 3; do
		((m == n)) && continue
		maria_pid "$(galera_dir "$m")" >/dev/null && others+=("$m")
	done
	if ((${#others[@]} == 0)); then
		log "Galera node $n $what; no other node runs"
		return 0
	fi
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		st=$(galera_state "${others[0]}")
		[[ $st == "Synced ${#others[@]}" ]] && break
		sleep 0.5
	done
	[[ $st == "Synced ${#others[@]}" ]] ||
		die "Galera node(s) ${others[*]} do not form a cluster of ${#others[@]} ${WAIT_SECS}s after node $n was $what (node ${others[0]}: $st)"
	log "Galera node $n $what; nodes ${others[*]} go on as a cluster of ${#others[@]}"
}

cmd_galera_kill() {
	local n=$1 pid i
	galera_node_arg "$n"
	pid=$(maria_pid "$(galera_dir "$n")") || die "Galera node $n is not running"
	log "killing Galera node $n (pid $pid, SIGKILL)"
	kill -KILL "$pid"
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		alive "$pid" || break
		sleep 0.5
	done
	alive "$pid" && die "Galera node $n (pid $pid) still runs ${WAIT_SECS}s after SIGKILL"
	galera_others_go_on "$n" killed
}

# A node that stops answering without closing anything (SIGSTOP): what a network partition
# looks like to a client, its calls stalling instead of failing. The others evict it after
# evs.suspect_timeout.
cmd_galera_freeze() {
	local n=$1 pid
	galera_node_arg "$n"
	pid=$(maria_pid "$(galera_dir "$n")") || die "Galera node $n is not running"
	log "freezing Galera node $n (pid $pid, SIGSTOP): it keeps its connections and answers nothing"
	kill -STOP "$pid"
	galera_others_go_on "$n" frozen
}

# Thaws a frozen node (SIGCONT): it finds itself left out and rejoins; if it has not within
# the wait, it is restarted on its data (rejoining by IST).
cmd_galera_thaw() {
	local n=$1 pid i ok=0 other all=() m
	galera_node_arg "$n"
	pid=$(maria_pid "$(galera_dir "$n")") || die "Galera node $n is not running"
	other=$((n % 3 + 1))
	log "thawing Galera node $n (pid $pid, SIGCONT)"
	kill -CONT "$pid"
	# Right after SIGCONT the node still reports its old view; the others' view decides, and
	# a node that was evicted mid-commit may abort rather than rejoin.
	sleep 2
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		alive "$pid" || break
		if [[ $(galera_state "$other") == "Synced 3" && $(galera_state "$n") == "Synced 3" ]]; then
			ok=1
			break
		fi
		sleep 0.5
	done
	if ((!ok)); then
		if alive "$pid"; then
			log "Galera node $n did not rejoin by itself within ${WAIT_SECS}s: restarting it"
			kill -KILL "$pid" 2>/dev/null || true
			for ((i = 0; i < WAIT_SECS * 2; i++)); do
				alive "$pid" || break
				sleep 0.5
			done
		else
			log "Galera node $n left when it woke (evicted mid-commit): starting it again"
		fi
		galera_start_node "$n"
		return
	fi
	for m in 1 2 3; do maria_pid "$(galera_dir "$m")" >/dev/null && all+=("$m"); done
	galera_wait_synced "${#all[@]}" "${all[@]}"
	log "Galera node $n thawed; nodes ${all[*]} Synced in a cluster of ${#all[@]}"
}

cmd_galera_start() {
	galera_node_arg "$1"
	[[ $(id -u) == 0 ]] || die "run as root (it starts servers as the user mysql)"
	galera_start_node "$1"
}

galera_status() {
	local n rc=0 st
	for n in 1 2 3; do
		st=$(galera_state "$n")
		if [[ $st == down ]]; then
			echo "Galera node $n 127.0.0.1:${GALERA_PORTS[n]}: NOT answering"
			rc=1
		else
			echo "Galera node $n 127.0.0.1:${GALERA_PORTS[n]}: answering (pid $(maria_pid "$(galera_dir "$n")" || echo '?'), ${st% *}, cluster size ${st##* })"
			[[ $st == Synced* ]] || rc=1
		fi
	done
	return $rc
}

# ---------------------------------------------------------------- commands

print_facts() {
	cat <<-EOF
		PostgreSQL 127.0.0.1:$PG_PORT superuser postgres/postgres
		PostgreSQL standby 127.0.0.1:$PG_STANDBY_PORT (hot standby of $PG_PORT, read-only) postgres/postgres
		MariaDB 127.0.0.1:$MARIA_PORT socket $MARIA_SOCK root/maria
		MariaDB #2 127.0.0.1:$MARIA2_PORT socket $MARIA2_SOCK root/maria
		Galera 127.0.0.1:${GALERA_PORTS[1]},127.0.0.1:${GALERA_PORTS[2]},127.0.0.1:${GALERA_PORTS[3]} sockets $(galera_sock 1) $(galera_sock 2) $(galera_sock 3) root/maria
		  all: user hammer_nocreate/nocreate (cannot create databases); TLS CA $SSL_DIR/ca.crt
		  PostgreSQL socket dir $PG_DIR, log $PG_LOG; standby's $PG_STANDBY_DIR
		  MariaDB log $MARIA_LOG, #2 $MARIA2_DIR/mariadbd.log, Galera node N $CI_DIR/galeraN/mariadbd.log
		  failover pair (made by pg-pair sync|async): primary 127.0.0.1:$PAIR_PRIMARY_PORT, standby 127.0.0.1:$PAIR_STANDBY_PORT
	EOF
}

cmd_start() {
	[[ $(id -u) == 0 ]] || die "run as root (it starts servers as the users postgres and mysql)"
	local t0=$SECONDS keep_pg=0 keep_maria=0 keep_maria2=0 keep_standby=0 keep_galera=0
	pg_pid >/dev/null && pg_answers && keep_pg=1
	((keep_pg)) && pg_standby_ok && keep_standby=1
	maria_pid >/dev/null && maria_answers && keep_maria=1
	maria_pid "$MARIA2_DIR" >/dev/null && maria_answers "$MARIA2_PORT" && keep_maria2=1
	galera_ok && keep_galera=1
	if ((keep_pg && keep_standby && keep_maria && keep_maria2 && keep_galera)); then
		log "all servers already run and answer: nothing to do"
		print_facts
		return 0
	fi

	# Half-alive servers of ours (e.g. a hung one) go away before the wipe; a standby goes
	# with its primary.
	((keep_standby)) || pg_stop "$PG_STANDBY_DIR/data" "PostgreSQL standby"
	((keep_pg)) || pg_stop
	((keep_maria)) || maria_stop
	((keep_maria2)) || maria_stop "$MARIA2_DIR" "MariaDB #2"
	# The certificate is shared, so it is only renewed when no server keeps it (a Galera node
	# that survives is kept, with the cluster, by galera_start).
	if ((!keep_pg && !keep_maria && !keep_maria2)) && ! galera_any_runs; then
		rm -rf "$SSL_DIR"
	fi
	# Check the ports before starting anything, so a clash leaves nothing half-up.
	if ((!keep_pg)); then free_port "$PG_PORT" "PostgreSQL" HAMMER_PG_PORT; fi
	if ((!keep_standby)); then free_port "$PG_STANDBY_PORT" "PostgreSQL" HAMMER_PG_STANDBY_PORT; fi
	if ((!keep_maria)); then
		free_port "$MARIA_PORT" "MariaDB" HAMMER_MARIA_PORT
		if maria_sock_answers; then
			die "another MariaDB (not ours) answers on $MARIA_SOCK; stop it first"
		fi
	fi
	if ((!keep_maria2)); then
		free_port "$MARIA2_PORT" "MariaDB" HAMMER_MARIA2_PORT
		if maria_sock_answers "$MARIA2_SOCK"; then
			die "another MariaDB (not ours) answers on $MARIA2_SOCK; stop it first"
		fi
	fi
	mkdir -p "$CI_DIR"
	chmod 755 "$CI_DIR" # postgres and mysql must be able to enter it
	ensure_cert

	if ((keep_pg)); then log "PostgreSQL already runs and answers: kept"; else pg_start_fresh; fi
	if ((keep_standby)); then
		log "PostgreSQL standby already streams: kept"
	else
		pg_standby_start_fresh
	fi
	if ((keep_maria)); then
		log "MariaDB already runs and answers: kept"
	else
		maria_start_fresh "$MARIA_DIR" "$MARIA_PORT" "$MARIA_SOCK" MariaDB 1G 512M 300
	fi
	# The second server is small: it holds the one-warehouse schemas of the tests of two
	# servers on one machine.
	if ((keep_maria2)); then
		log "MariaDB #2 already runs and answers: kept"
	else
		maria_start_fresh "$MARIA2_DIR" "$MARIA2_PORT" "$MARIA2_SOCK" "MariaDB #2" 128M 64M 60
	fi
	galera_start

	log "servers up in $((SECONDS - t0))s"
	print_facts
}

galera_any_runs() {
	local n
	for n in 1 2 3; do maria_pid "$(galera_dir "$n")" >/dev/null && return 0; done
	return 1
}

cmd_stop() {
	pair_stop
	pg_stop "$PG_STANDBY_DIR/data" "PostgreSQL standby"
	pg_stop
	maria_stop
	maria_stop "$MARIA2_DIR" "MariaDB #2"
	local n
	for n in 3 2 1; do galera_stop_node "$n"; done
	log "stopped (or were not running)"
}

# Restarts PostgreSQL on its existing data, after DOWN seconds stopped (tests of lost
# connections use it). Its standby reconnects by itself.
cmd_restart_pg() {
	local down=${1:-0}
	[[ $down =~ ^[0-9]+$ ]] || die "restart-pg: down time '$down' is not a whole number of seconds"
	pg_answers || die "PostgreSQL is not running; use start"
	log "restarting PostgreSQL (data kept, down for $down s)"
	pg_stop
	sleep "$down"
	pg_launch "$PG_DATA" "$PG_PORT" PostgreSQL
}

cmd_status() {
	local rc=0
	pg_status || rc=1
	pg_status "$PG_STANDBY_DIR/data" "$PG_STANDBY_PORT" "PostgreSQL standby" || rc=1
	maria_status || rc=1
	maria_status "$MARIA2_DIR" "$MARIA2_PORT" "MariaDB #2" || rc=1
	galera_status || rc=1
	# The pair exists only while a test uses it, so it does not count against the status.
	if [[ -d $PAIR_DIR ]]; then
		pg_status "$PAIR_DIR/primary/data" "$PAIR_PRIMARY_PORT" "pair primary" || true
		pg_status "$PAIR_DIR/standby/data" "$PAIR_STANDBY_PORT" "pair standby" || true
	else
		echo "pair (127.0.0.1:$PAIR_PRIMARY_PORT, $PAIR_STANDBY_PORT): not made (scripts/ci/servers.sh pg-pair sync|async)"
	fi
	return $rc
}

usage() {
	cat >&2 <<-EOF
		usage: $0 start|stop|status
		       $0 restart-pg [seconds down]
		       $0 galera-kill N | galera-start N | galera-freeze N | galera-thaw N   (N = 1, 2 or 3)
		       $0 pg-pair sync|async | pg-pair-kill-primary | pg-pair-promote | pg-pair-stop
	EOF
	exit 2
}

case ${1:-} in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
restart-pg) cmd_restart_pg "${2:-0}" ;;
galera-kill) cmd_galera_kill "${2:-}" ;;
galera-start) cmd_galera_start "${2:-}" ;;
galera-freeze) cmd_galera_freeze "${2:-}" ;;
galera-thaw) cmd_galera_thaw "${2:-}" ;;
pg-pair) cmd_pg_pair "${2:-}" ;;
pg-pair-kill-primary) cmd_pair_kill_primary ;;
pg-pair-promote) cmd_pair_promote ;;
pg-pair-stop)
	pair_stop
	log "pair stopped (or was not running)"
	;;
*) usage ;;
esac
