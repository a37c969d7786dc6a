#!/usr/bin/env bash
# Private PostgreSQL and MariaDB servers on loopback for hammer's tests and CI.
#
#   scripts/ci/servers.sh start|stop|status|restart-pg [seconds down]
#
# Everything lives under ${HAMMER_CI_DIR:-/tmp/hammer-ci}; the system's own
# clusters (Debian's 15/main, /var/lib/mysql) are never touched.
#   PostgreSQL 127.0.0.1:${HAMMER_PG_PORT:-5432}     superuser postgres/postgres
#   MariaDB    127.0.0.1:${HAMMER_MARIA_PORT:-3306}  socket /tmp/mariadb.sock, root/maria
#   MariaDB #2 127.0.0.1:${HAMMER_MARIA2_PORT:-3307} socket /tmp/mariadb2.sock, root/maria:
#              a small second server, for the tests of two servers on one machine
#   all: login hammer_nocreate/nocreate that may not create databases,
#        TLS with a certificate from a private CA ($HAMMER_CI_DIR/ssl/ca.crt).
# The settings trade durability for speed: these are throwaway test servers.
set -euo pipefail

CI_DIR=${HAMMER_CI_DIR:-/tmp/hammer-ci}
PG_PORT=${HAMMER_PG_PORT:-5432}
MARIA_PORT=${HAMMER_MARIA_PORT:-3306}
MARIA_SOCK=/tmp/mariadb.sock # HammerDB's default maria_socket
MARIA2_PORT=${HAMMER_MARIA2_PORT:-3307}
MARIA2_SOCK=/tmp/mariadb2.sock
WAIT_SECS=60

SSL_DIR=$CI_DIR/ssl
PG_DIR=$CI_DIR/pg # also the unix socket directory
PG_DATA=$PG_DIR/data
PG_LOG=$PG_DIR/postgres.log
MARIA_DIR=$CI_DIR/maria
MARIA_LOG=$MARIA_DIR/mariadbd.log
MARIA2_DIR=$CI_DIR/maria2

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

pg_pid() { live_pid "$PG_DATA/postmaster.pid"; }
pg_answers() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 3; }

pg_stop() {
	local pid
	pid=$(pg_pid) || return 0
	log "stopping PostgreSQL (pid $pid)"
	as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t "$WAIT_SECS" -s stop ||
		kill_and_wait "$pid"
}

pg_start_fresh() {
	[[ -x $PG_BIN/postgres ]] || die "no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql-15)"
	ensure_user postgres /var/lib/postgresql /bin/bash
	rm -rf "$PG_DIR"
	install -d -m 700 -o postgres -g postgres "$PG_DIR"

	# Password via a file so it never shows up in ps.
	install -m 600 -o postgres -g postgres /dev/null "$PG_DIR/pwfile"
	echo postgres >"$PG_DIR/pwfile"
	as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --pwfile="$PG_DIR/pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 --no-sync \
		--encoding=UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 ||
		die_with_log "$PG_DIR/initdb.log" "initdb failed"
	rm -f "$PG_DIR/pwfile"
	install_cert "$PG_DIR" postgres

	# Appended settings override initdb's defaults earlier in the file.
	cat >>"$PG_DATA/postgresql.conf" <<-EOF

		# ---- hammer CI (scripts/ci/servers.sh) ----
		listen_addresses = '127.0.0.1'
		port = $PG_PORT
		unix_socket_directories = '$PG_DIR'
		max_connections = 300
		shared_buffers = 1GB
		max_wal_size = 4GB              # fewer checkpoints during schema builds
		# Test speed only: a crash loses data, which is fine for a throwaway server.
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		password_encryption = scram-sha-256
		ssl = on
		ssl_cert_file = '$PG_DIR/server.crt'
		ssl_key_file = '$PG_DIR/server.key'
		# stderr goes to $PG_LOG via pg_ctl -l
		log_destination = 'stderr'
		logging_collector = off
	EOF

	# Passwords are checked on every TCP connection (so a wrong one fails);
	# 'host' rather than 'hostssl' so that both sslmode=disable and =require work.
	cat >"$PG_DATA/pg_hba.conf" <<-EOF
		# TYPE  DATABASE  USER  ADDRESS        METHOD
		local   all       all                  trust
		host    all       all   127.0.0.1/32   scram-sha-256
		host    all       all   ::1/128        scram-sha-256
	EOF

	log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
	# setsid: the server must not get the terminal's Ctrl-C meant for cargo.
	setsid -w runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" \
		-w -t "$WAIT_SECS" -s start ||
		die_with_log "$PG_LOG" "PostgreSQL did not start"

	local i
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		pg_answers && break
		sleep 0.5
	done
	pg_answers || die_with_log "$PG_LOG" "PostgreSQL does not answer on 127.0.0.1:$PG_PORT after ${WAIT_SECS}s"

	as_postgres "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -d postgres \
		-c "CREATE ROLE hammer_nocreate LOGIN PASSWORD 'nocreate' NOCREATEDB NOCREATEROLE" ||
		die_with_log "$PG_LOG" "could not create role hammer_nocreate"
}

pg_status() {
	local v
	if v=$(PGPASSWORD=postgres PGCONNECT_TIMEOUT=3 "$PG_BIN/psql" -X -At \
		"host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres" \
		-c 'show server_version' 2>/dev/null); then
		echo "PostgreSQL 127.0.0.1:$PG_PORT: answering (version $v, pid $(pg_pid || echo '?'))"
	else
		echo "PostgreSQL 127.0.0.1:$PG_PORT: NOT answering"
		return 1
	fi
}

# ---------------------------------------------------------------- MariaDB

# Each MariaDB server is named by its directory, port and socket: the main one
# ($MARIA_DIR, $MARIA_PORT, $MARIA_SOCK) and a small second one ($MARIA2_*).
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

# maria_start_fresh DIR PORT SOCKET NAME BUFFER_POOL LOG_FILE_SIZE MAX_CONNECTIONS
maria_start_fresh() {
	local dir=$1 port=$2 sock=$3 name=$4 pool=$5 logsize=$6 conns=$7
	local cnf=$dir/my.cnf pidfile=$dir/mariadbd.pid logfile=$dir/mariadbd.log
	[[ -x $MARIADBD ]] || die "no mariadbd found (apt-get install mariadb-server)"
	ensure_user mysql /nonexistent /bin/false
	rm -f "$sock" "$sock.lock" # stale leftovers block the bind
	rm -rf "$dir"
	install -d -m 750 -o mysql -g mysql "$dir" "$dir/data" "$dir/tmp"
	install_cert "$dir" mysql

	# Our own option file, so /etc/mysql (socket in /run/mysqld, etc.) is ignored.
	cat >"$cnf" <<-EOF
		# hammer CI (scripts/ci/servers.sh)
		[mysqld]
		user = mysql
		datadir = $dir/data
		tmpdir = $dir/tmp
		pid-file = $pidfile
		log-error = $logfile
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
	EOF
	chmod 644 "$cnf"

	# 'normal' root auth (password, not unix_socket); no 'test' db, whose
	# wildcard grants would let any user create test_* databases.
	mariadb-install-db --defaults-file="$cnf" --auth-root-authentication-method=normal \
		--skip-test-db --skip-name-resolve --user=mysql >"$dir/install-db.log" 2>&1 ||
		die_with_log "$dir/install-db.log" "mariadb-install-db failed"

	log "starting $name on 127.0.0.1:$port, socket $sock"
	# setsid + no inherited stdio: the server outlives this script and never
	# holds a CI log pipe open.
	setsid "$MARIADBD" --defaults-file="$cnf" </dev/null >>"$logfile" 2>&1 &
	local launcher=$! i
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		maria_sock_answers "$sock" && maria_answers "$port" && break
		# Give up early if the server already died.
		if ! alive "$launcher" && ! maria_pid "$dir" >/dev/null; then
			die_with_log "$logfile" "mariadbd exited during startup"
		fi
		sleep 0.5
	done
	maria_answers "$port" || die_with_log "$logfile" "$name does not answer on 127.0.0.1:$port after ${WAIT_SECS}s"

	# Fresh root has an empty password over the socket; set up the accounts.
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

maria_status() {
	local dir=${1:-$MARIA_DIR} port=${2:-$MARIA_PORT} name=${3:-MariaDB} v
	if v=$(mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -uroot -pmaria \
		--connect-timeout=3 -N -B -e 'SELECT VERSION()' 2>/dev/null); then
		echo "$name 127.0.0.1:$port: answering (version $v, pid $(maria_pid "$dir" || echo '?'))"
	else
		echo "$name 127.0.0.1:$port: NOT answering"
		return 1
	fi
}

# ---------------------------------------------------------------- commands

print_facts() {
	cat <<-EOF
		PostgreSQL 127.0.0.1:$PG_PORT superuser postgres/postgres
		MariaDB 127.0.0.1:$MARIA_PORT socket $MARIA_SOCK root/maria
		MariaDB #2 127.0.0.1:$MARIA2_PORT socket $MARIA2_SOCK root/maria
		  all: user hammer_nocreate/nocreate (cannot create databases); TLS CA $SSL_DIR/ca.crt
		  PostgreSQL socket dir $PG_DIR, log $PG_LOG; MariaDB log $MARIA_LOG, #2 $MARIA2_DIR/mariadbd.log
	EOF
}

cmd_start() {
	[[ $(id -u) == 0 ]] || die "run as root (it starts servers as the users postgres and mysql)"
	local t0=$SECONDS keep_pg=0 keep_maria=0 keep_maria2=0
	pg_pid >/dev/null && pg_answers && keep_pg=1
	maria_pid >/dev/null && maria_answers && keep_maria=1
	maria_pid "$MARIA2_DIR" >/dev/null && maria_answers "$MARIA2_PORT" && keep_maria2=1
	if ((keep_pg && keep_maria && keep_maria2)); then
		log "all servers already run and answer: nothing to do"
		print_facts
		return 0
	fi

	# Half-alive servers of ours (e.g. a hung one) go away before the wipe.
	((keep_pg)) || pg_stop
	((keep_maria)) || maria_stop
	((keep_maria2)) || maria_stop "$MARIA2_DIR" "MariaDB #2"
	# The certificate is shared, so it is only renewed when no server keeps it.
	if ((!keep_pg && !keep_maria && !keep_maria2)); then
		rm -rf "$SSL_DIR"
	fi
	# Check both ports before starting anything, so a clash leaves nothing half-up.
	if ((!keep_pg)); then free_port "$PG_PORT" "PostgreSQL" HAMMER_PG_PORT; fi
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

	log "servers up in $((SECONDS - t0))s"
	print_facts
}

cmd_stop() {
	pg_stop
	maria_stop
	maria_stop "$MARIA2_DIR" "MariaDB #2"
	log "stopped (or were not running)"
}

# Restarts PostgreSQL on its existing data, after DOWN seconds stopped (tests of lost
# connections use it).
cmd_restart_pg() {
	local down=${1:-0}
	[[ $down =~ ^[0-9]+$ ]] || die "restart-pg: down time '$down' is not a whole number of seconds"
	pg_answers || die "PostgreSQL is not running; use start"
	log "restarting PostgreSQL (data kept, down for $down s)"
	pg_stop
	sleep "$down"
	setsid -w runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" \
		-w -t "$WAIT_SECS" -s start ||
		die_with_log "$PG_LOG" "PostgreSQL did not start again"
	local i
	for ((i = 0; i < WAIT_SECS * 2; i++)); do
		pg_answers && return 0
		sleep 0.5
	done
	die_with_log "$PG_LOG" "PostgreSQL does not answer after the restart"
}

cmd_status() {
	local rc=0
	pg_status || rc=1
	maria_status || rc=1
	maria_status "$MARIA2_DIR" "$MARIA2_PORT" "MariaDB #2" || rc=1
	return $rc
}

case ${1:-} in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
restart-pg) cmd_restart_pg "${2:-0}" ;;
*)
	echo "usage: $0 start|stop|status|restart-pg [seconds down]" >&2
	exit 2
	;;
esac
