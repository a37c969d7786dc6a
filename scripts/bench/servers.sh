#!/usr/bin/env bash
# Sourced by the benchmarks: puts the running test servers on the settings a production user
# has (durable: fsync, synchronous commit and full-page writes on PostgreSQL, InnoDB's log
# flushed at every commit on MariaDB), or leaves them fast when SERVERS=fast, prints the
# settings in force, and puts the servers back as they were when the benchmark ends.
#   source scripts/bench/servers.sh; bench_servers_set    (after scripts/ci/servers.sh start)
#   and call bench_servers_restore from the script's EXIT trap.
# The test servers of scripts/ci/servers.sh start fast (everything off): figures measured
# there are not comparable with figures from durable servers, so every benchmark says which.

SERVERS=${SERVERS:-durable}
case $SERVERS in
durable | fast) ;;
*)
	echo "SERVERS must be durable or fast, not '$SERVERS'" >&2
	exit 2
	;;
esac

bench_psql() { PGPASSWORD=postgres psql -X -q -t -A -h 127.0.0.1 -p "${HAMMER_PG_PORT:-5432}" -U postgres -d postgres "$@"; }
bench_maria() { mariadb --no-defaults -S /tmp/mariadb.sock -uroot -pmaria -N -B "$@"; }

# What the servers ran with before: restored on exit.
BENCH_MARIA_FLUSH=
bench_servers_restore() {
	bench_psql -c "ALTER SYSTEM RESET fsync" -c "ALTER SYSTEM RESET full_page_writes" \
		-c "ALTER SYSTEM RESET synchronous_commit" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
	if [[ -n $BENCH_MARIA_FLUSH ]]; then
		bench_maria -e "SET GLOBAL innodb_flush_log_at_trx_commit = $BENCH_MARIA_FLUSH" >/dev/null 2>&1 || true
	fi
}

# Applies $SERVERS and prints one line per server with the settings that decide a
# durability-bound result.
bench_servers_set() {
	BENCH_MARIA_FLUSH=$(bench_maria -e "SELECT @@innodb_flush_log_at_trx_commit" 2>/dev/null || true)
	if [[ $SERVERS == durable ]]; then
		echo "servers: durable settings (SERVERS=fast for the test servers' own)"
		bench_psql -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET full_page_writes = on" \
			-c "ALTER SYSTEM SET synchronous_commit = on" -c "SELECT pg_reload_conf()" >/dev/null
		bench_maria -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1" >/dev/null
	else
		echo "servers: the test servers' fast settings (durability off: not comparable with production figures)"
	fi
	# pg_reload_conf returns before the postmaster has re-read its files.
	sleep 1
	echo "  PostgreSQL: $(bench_psql -F ' ' -c "SELECT 'fsync=' || current_setting('fsync'), 'synchronous_commit=' || current_setting('synchronous_commit'), 'full_page_writes=' || current_setting('full_page_writes'), 'wal_level=' || current_setting('wal_level')")"
	echo "  MariaDB: $(bench_maria -e "SELECT CONCAT('innodb_flush_log_at_trx_commit=', @@innodb_flush_log_at_trx_commit, ' sync_binlog=', @@sync_binlog, ' log_bin=', @@log_bin, ' innodb_doublewrite=', @@innodb_doublewrite)")"
}

# Before a measured run: PostgreSQL checkpoints, MariaDB writes its dirty pages out (for up to
# a minute), so that no run inherits the writes of the build or of the run before it.
bench_settle() { # pg|maria
	if [[ $1 == pg ]]; then
		bench_psql -c "CHECKPOINT" >/dev/null
		return
	fi
	local pct lwm i dirty
	read -r pct lwm < <(bench_maria -e "SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm")
	bench_maria -e "SET GLOBAL innodb_max_dirty_pages_pct_lwm = 0, GLOBAL innodb_max_dirty_pages_pct = 0"
	for ((i = 0; i < 60; i++)); do
		dirty=$(bench_maria -e "SELECT variable_value FROM information_schema.global_status WHERE variable_name = 'INNODB_BUFFER_POOL_PAGES_DIRTY'")
		((dirty < 100)) && break
		sleep 1
	done
	bench_maria -e "SET GLOBAL innodb_max_dirty_pages_pct = $pct, GLOBAL innodb_max_dirty_pages_pct_lwm = $lwm"
}
