//! Real-server tests of the cluster test servers `scripts/ci/servers.sh` provides: the
//! three-node Galera cluster (and a node's loss and rejoin), the PostgreSQL hot standby, and
//! the failover pair in its synchronous and asynchronous modes.

mod common;

use std::time::{Duration, Instant};

use common::Servers;

/// Polls `check` every 200 ms until it gives `Some`, for at most `limit`; fails the test
/// with `what` when it never does.
fn wait_for<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A test database on the Galera cluster, dropped (through node 1) whatever the test did.
struct GaleraDb(String);

impl Drop for GaleraDb {
    fn drop(&mut self) {
        let servers = Servers::get();
        servers.galera_exec(1, &[&format!("DROP DATABASE IF EXISTS {}", self.0)]);
    }
}

fn galera_rows(servers: &Servers, node: usize, db: &str) -> i64 {
    servers
        .galera_i64(node, Some(db), "SELECT COUNT(*) FROM t")
        .expect("one row")
}

#[test]
fn galera_is_three_synced_nodes_and_a_killed_node_rejoins_by_ist() {
    let servers = Servers::get();
    servers.require_galera();
    for node in 1..=3 {
        assert_eq!(
            (
                servers.galera_status(node, "wsrep_cluster_size"),
                servers.galera_status(node, "wsrep_local_state_comment"),
                servers.galera_status(node, "wsrep_cluster_status"),
            ),
            ("3".to_string(), "Synced".to_string(), "Primary".to_string()),
            "Galera node {node}"
        );
    }

    // A row written on node 1 is on every node.
    let db = GaleraDb(format!("hammer_galera_probe_{}", std::process::id()));
    servers.galera_exec(
        1,
        &[
            &format!("CREATE DATABASE {}", db.0),
            &format!("CREATE TABLE {}.t (id INT PRIMARY KEY)", db.0),
            &format!("INSERT INTO {}.t VALUES (1)", db.0),
        ],
    );
    for node in 2..=3 {
        wait_for(
            Duration::from_secs(10),
            &format!("node 1's row on node {node}"),
            || (galera_rows(&servers, node, &db.0) == 1).then_some(()),
        );
    }

    // Node 3 killed: the others go on as two, and take a write it misses.
    let said = common::galera_kill(3);
    assert!(said.contains("go on as a cluster of 2"), "{said}");
    for node in 1..=2 {
        assert_eq!(servers.galera_status(node, "wsrep_cluster_size"), "2");
    }
    servers.galera_exec(2, &[&format!("INSERT INTO {}.t VALUES (2)", db.0)]);

    // Started again, it catches up by IST (not a full copy) and the cluster is three again.
    let said = common::galera_start(3);
    assert!(said.contains("rejoined by IST"), "{said}");
    assert_eq!(galera_rows(&servers, 3, &db.0), 2, "node 3 after rejoining");
    for node in 1..=3 {
        assert_eq!(servers.galera_status(node, "wsrep_cluster_size"), "3");
        assert_eq!(
            servers.galera_status(node, "wsrep_local_state_comment"),
            "Synced"
        );
    }
}

#[test]
fn galera_node_commands_refuse_a_node_that_is_not_one_two_or_three() {
    for bad in ["0", "4", "x"] {
        let out = std::process::Command::new("bash")
            .args([
                concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ci/servers.sh"),
                "galera-kill",
                bad,
            ])
            .output()
            .expect("bash runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "galera-kill {bad} succeeded");
        assert!(
            err.contains(&format!(
                "Galera node '{bad}' is not valid; the nodes are 1, 2 and 3"
            )),
            "{err}"
        );
    }
}

#[test]
fn the_standby_streams_and_replays_what_the_primary_commits() {
    let servers = Servers::get();
    servers.require();
    servers.require_pg_standby();
    let standby = servers.pg_standby_port;
    assert_eq!(
        servers.pg_i64_at(
            standby,
            "postgres",
            "SELECT CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END::bigint"
        ),
        1,
        "the standby is in recovery"
    );
    // A primary restarted by another test is found again within wal_retrieve_retry_interval (5 s).
    wait_for(
        Duration::from_secs(15),
        "the standby's WAL receiver streaming",
        || {
            (servers.pg_i64_at(
                standby,
                "postgres",
                "SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'",
            ) == 1)
                .then_some(())
        },
    );

    // A value only this run can have, written on the primary, shows up on the standby.
    let table = format!("hammer_standby_probe_{}", std::process::id());
    let value = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_micros() as i64;
    servers.pg_exec(
        "postgres",
        &format!("DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (v bigint); INSERT INTO {table} VALUES ({value})"),
    );
    let seen = wait_for(Duration::from_secs(30), "the row on the standby", || {
        let (rt, conn) = servers.pg_at(standby, "postgres");
        rt.block_on(async {
            let row = conn
                .client
                .query_opt(&format!("SELECT max(v) FROM {table}"), &[])
                .await;
            conn.close().await;
            // Until the CREATE TABLE is replayed the table does not exist there.
            row.ok().flatten().and_then(|r| r.get::<_, Option<i64>>(0))
        })
    });
    assert_eq!(seen, value);

    // And it takes no writes.
    let (rt, conn) = servers.pg_at(standby, "postgres");
    let refused = rt.block_on(async {
        let r = conn
            .client
            .batch_execute(&format!("INSERT INTO {table} VALUES (1)"))
            .await;
        conn.close().await;
        r
    });
    servers.pg_exec("postgres", &format!("DROP TABLE {table}"));
    let err = refused.expect_err("the standby refuses a write");
    assert_eq!(
        err.code(),
        Some(&tokio_postgres::error::SqlState::READ_ONLY_SQL_TRANSACTION),
        "{err}"
    );
}

#[test]
fn the_pair_keeps_synchronous_commits_across_a_failover_and_streams_asynchronously() {
    let servers = Servers::get();
    let (primary, standby) = (servers.pair_primary_port, servers.pair_standby_port);

    common::pg_pair("sync");
    let sync_state = "SELECT count(*) FROM pg_stat_replication \
                      WHERE application_name = 'hammer_pair_standby' AND sync_state = '{}'";
    assert_eq!(
        servers.pg_i64_at(primary, "postgres", &sync_state.replace("{}", "sync")),
        1,
        "the standby is synchronous"
    );
    // Each row its own commit, each acknowledged only once the standby has it.
    let rows = 200;
    let (rt, conn) = servers.pg_at(primary, "postgres");
    rt.block_on(async {
        conn.client
            .batch_execute("CREATE TABLE acked (id int)")
            .await
            .expect("create table");
        for id in 1..=rows {
            conn.client
                .batch_execute(&format!("INSERT INTO acked VALUES ({id})"))
                .await
                .expect("insert");
        }
        conn.close().await;
    });
    common::pg_pair_kill_primary();
    common::assert_tcp_closed(&servers.pg_host, primary);
    common::pg_pair_promote();
    assert_eq!(
        servers.pg_i64_at(standby, "postgres", "SELECT count(*) FROM acked"),
        rows,
        "every acknowledged commit is on the promoted standby"
    );
    servers.pg_exec_at(standby, "postgres", "INSERT INTO acked VALUES (0)");

    // Made again, asynchronous: the standby streams, and the primary does not wait for it.
    common::pg_pair("async");
    assert_eq!(
        servers.pg_i64_at(primary, "postgres", &sync_state.replace("{}", "async")),
        1,
        "the standby is asynchronous"
    );
    assert_eq!(
        servers.pg_i64_at(
            primary,
            "postgres",
            "SELECT count(*) FROM pg_settings \
             WHERE name = 'synchronous_standby_names' AND setting = ''"
        ),
        1
    );
    common::pg_pair_stop();
    common::assert_tcp_closed(&servers.pg_host, primary);
    common::assert_tcp_closed(&servers.pg_host, standby);
}
