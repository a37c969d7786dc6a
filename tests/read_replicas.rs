//! Reads on replicas: with `*_read_only_hosts` a TPROC-C terminal runs Order-Status and
//! Stock-Level on a second connection to the servers named for reads and the other three on
//! its own; the result says where each type ran and the replicas' replay lag. Against the
//! real servers: one PostgreSQL reached by two names, the PostgreSQL hot standby of the CI
//! primary (127.0.0.1:5433), and the second MariaDB holding the same schema.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::{Fixture, Servers};

/// The standby `scripts/ci/servers.sh` starts beside the CI primary.
const STANDBY_PORT: u16 = 5433;

/// A fixture on the test servers, its PostgreSQL schema built in a database and owner of
/// its own (`tag`), one warehouse, set for a 15-second timed run of two virtual users.
fn pg_session(servers: &Servers, tag: &str) -> (Fixture, String) {
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_{tag}_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}; \
         diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1"
    ));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("diset tpcc pg_rampup 0; diset tpcc pg_duration 0.25; vuset vu 2; vuset delay 0");
    (f, unique)
}

/// Runs `vurun` while `probe` runs `after` into it on another thread; the run's lines and
/// what the probe returned.
fn run_probing<T: Send + 'static>(
    f: &mut Fixture,
    after: Duration,
    probe: impl FnOnce() -> T + Send + 'static,
) -> (String, T) {
    let prober = thread::spawn(move || {
        thread::sleep(after);
        probe()
    });
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    (text, prober.join().expect("the probe ends"))
}

/// Sessions of `user` on the PostgreSQL `s` names: in all, and those whose last statement
/// called a read (Order-Status, Stock-Level) and another transaction, read in one snapshot.
fn pg_sessions(s: &Servers, user: &str) -> (i64, i64, i64) {
    let n = s.pg_i64(
        "postgres",
        &format!(
            "SELECT count(*) FILTER (WHERE query ~ '(ostat|slev)\\(') * 1000000 \
                  + count(*) FILTER (WHERE query ~ '(neword|payment|delivery)\\(') * 1000 \
                  + count(*) \
             FROM pg_stat_activity WHERE usename = '{user}'"
        ),
    );
    (n / 1_000_000, n / 1000 % 1000, n % 1000)
}

fn committed(f: &mut Fixture, kind: &str) -> i64 {
    let (r, _) = f.console(&format!("lastrun().{kind}.committed"));
    r.expect("lastrun has the type").parse().expect("a count")
}

#[test]
fn postgresql_reads_go_to_the_read_hosts_and_the_rest_to_pg_host() {
    let servers = Servers::get();
    servers.require();
    let (mut f, unique) = pg_session(&servers, "reads");
    // One server by two names: which connection ran what shows in the statements each
    // session ran last.
    f.ok(&format!(
        "diset connection pg_host {}:{}; diset connection pg_read_only_hosts localhost:{}",
        servers.pg_host, servers.pg_port, servers.pg_port
    ));
    let (s, user) = (Servers::get(), unique.clone());
    let (text, (reads, writes, all)) = run_probing(&mut f, Duration::from_secs(7), move || {
        pg_sessions(&s, &user)
    });
    // Two terminals, each with its connection for reads: two sessions ran only reads, two
    // only the others (and the monitor's reads the districts).
    assert_eq!((reads, writes), (2, 2), "{all} sessions in all\n{text}");
    assert!(
        text.contains(&format!(
            "Order-Status, Stock-Level ran on localhost:{p} (2 terminals); New-Order, Payment, \
             Delivery on {}:{p} (2 terminals)",
            servers.pg_host,
            p = servers.pg_port
        )),
        "{text}"
    );
    // The server for reads is the primary itself: no lag to report.
    assert!(
        text.contains(&format!(
            "Replay lag at the end: localhost:{} is not a replica",
            servers.pg_port
        )),
        "{text}"
    );
    for kind in ["order_status", "stock_level", "new_order"] {
        assert!(committed(&mut f, kind) > 0, "{kind}\n{text}");
    }
    f.ok("vudestroy(); deleteschema()");
}

/// Fails the test, saying how to start it, when the standby does not answer.
fn require_standby(servers: &Servers) {
    let addr = format!("{}:{STANDBY_PORT}", servers.pg_host);
    let up = std::net::TcpStream::connect_timeout(
        &addr.parse().expect("host:port"),
        Duration::from_secs(3),
    )
    .is_ok();
    assert!(
        up,
        "the PostgreSQL standby is not answering on {addr}: start it with \
         `scripts/ci/servers.sh start` (it makes a hot standby of the CI primary with \
         pg_basebackup -R on port {STANDBY_PORT})"
    );
}

#[test]
fn postgresql_reads_run_on_the_hot_standby_with_functions_and_client_side_sql() {
    let servers = Servers::get();
    servers.require();
    require_standby(&servers);
    let standby = Servers {
        pg_port: STANDBY_PORT,
        ..Servers::get()
    };
    let (mut f, unique) = pg_session(&servers, "standby");
    // The build reaches the standby by streaming: wait until it has replayed all of it.
    let built = servers.pg_i64(
        "postgres",
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint",
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while standby.pg_i64(
        "postgres",
        "SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::bigint",
    ) < built
    {
        assert!(
            Instant::now() < deadline,
            "the standby never replayed the build"
        );
        thread::sleep(Duration::from_millis(500));
    }
    f.ok(&format!(
        "diset connection pg_read_only_hosts {}:{STANDBY_PORT}",
        servers.pg_host
    ));
    for flavour in ["false", "true"] {
        f.ok(&format!("diset tpcc pg_no_stored_procs {flavour}"));
        let s = Servers {
            pg_port: STANDBY_PORT,
            ..Servers::get()
        };
        let user = unique.clone();
        let (text, (_, _, on_standby)) = run_probing(&mut f, Duration::from_secs(7), move || {
            pg_sessions(&s, &user)
        });
        assert_eq!(on_standby, 2, "client-side SQL {flavour}\n{text}");
        assert!(
            text.contains(&format!(
                "Order-Status, Stock-Level ran on {}:{STANDBY_PORT} (2 terminals)",
                servers.pg_host
            )),
            "{text}"
        );
        // Both ways of telling the lag: the primary's view and the standby's own.
        assert!(
            text.contains("(the primary's pg_stat_replication)"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "Replay lag at the end: {}:{STANDBY_PORT} ",
                servers.pg_host
            )) && text.contains("(its last replayed commit)"),
            "{text}"
        );
        for kind in ["order_status", "stock_level"] {
            assert!(committed(&mut f, kind) > 0, "{kind}\n{text}");
            let (failed, _) = f.console(&format!("lastrun().{kind}.failed"));
            assert_eq!(failed, Ok("0".to_string()), "{kind}\n{text}");
        }
    }
    f.ok(r#"diset("connection", "pg_read_only_hosts", ""); vudestroy(); deleteschema()"#);
}

#[test]
fn mariadb_reads_go_to_the_second_server() {
    let servers = Servers::get();
    servers.require();
    servers.require_maria2();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_reads_{}", std::process::id());
    // TCP to each server: the socket would lead both to the first.
    f.ok(&format!(
        "dbset db maria; diset connection maria_socket null; diset tpcc maria_dbase {unique}; \
         diset tpcc maria_count_ware 1; diset tpcc maria_num_vu 1"
    ));
    for port in [servers.maria2_port, servers.maria_port] {
        f.ok(&format!("diset connection maria_port {port}"));
        let (r, lines) = f.console("buildschema().ok");
        assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    }
    f.ok(&format!(
        "diset connection maria_read_only_hosts {}:{}; diset tpcc maria_rampup 0; \
         diset tpcc maria_duration 0.25; vuset vu 2; vuset delay 0",
        servers.maria_host, servers.maria2_port
    ));
    let (s, db) = (Servers::get(), unique.clone());
    let (text, (second, first)) = run_probing(&mut f, Duration::from_secs(7), move || {
        let count = |port: u16| {
            let (rt, mut conn) = s.maria_on(port, None);
            rt.block_on(async {
                use mysql_async::prelude::Queryable;
                let n: Option<i64> = conn
                    .query_first(format!(
                        "SELECT count(*) FROM information_schema.PROCESSLIST WHERE DB = '{db}'"
                    ))
                    .await
                    .expect("processlist");
                let _ = conn.disconnect().await;
                n.unwrap_or(0)
            })
        };
        (count(s.maria2_port), count(s.maria_port))
    });
    // The second server has the two terminals' connections for reads and nothing else.
    assert_eq!(second, 2, "{text}");
    assert!(first >= 2, "{first} on the first server\n{text}");
    assert!(
        text.contains(&format!(
            "Order-Status, Stock-Level ran on {h}:{} (2 terminals); New-Order, Payment, \
             Delivery on {h}:{} (2 terminals)",
            servers.maria2_port,
            servers.maria_port,
            h = servers.maria_host
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Replay lag at the end: {}:{} is not a replica",
            servers.maria_host, servers.maria2_port
        )),
        "{text}"
    );
    for kind in ["order_status", "stock_level"] {
        assert!(committed(&mut f, kind) > 0, "{kind}\n{text}");
    }
    f.ok("vudestroy(); deleteschema()");
    f.ok(&format!(
        "diset connection maria_port {}",
        servers.maria2_port
    ));
    f.ok("deleteschema()");
}
