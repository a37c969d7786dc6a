//! TPROC-C over clusters, against the real cluster test servers of `scripts/ci/servers.sh`:
//! a build and a run over all three Galera nodes (sessions seen on every node mid-run), one
//! node killed during the run (the run finishes, its terminals move, NOPM matches the
//! surviving nodes' districts, `checkschema` holds on every node after it rejoins), and a
//! PostgreSQL failover with synchronous and with asynchronous replication (the primary killed
//! mid-run, the standby promoted, the terminals find it, the acknowledged New-Orders the new
//! primary lacks counted and checked against the database).

mod common;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{Fixture, Servers};

/// The failover pair is one pair: its tests take turns.
static PAIR: Mutex<()> = Mutex::new(());

/// The number after `word` in `text` (`System achieved 123 NOPM`: the number before).
fn number_before(text: &str, word: &str) -> Option<f64> {
    let at = text.find(word)?;
    text[..at].split_whitespace().last()?.parse().ok()
}

/// The committed count of the result table's `new order` row.
fn committed_new_orders(text: &str) -> u64 {
    text.lines()
        .find(|l| l.starts_with("new order "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no new order row in:\n{text}"))
}

/// Every connection to `db` on Galera node `node` (the terminals' and the monitor's).
fn galera_sessions(servers: &Servers, node: usize, db: &str) -> i64 {
    servers
        .galera_i64(
            node,
            None,
            &format!("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '{db}'"),
        )
        .unwrap_or(0)
}

/// Puts the Galera cluster back whole however the test ends: a node it killed or froze is
/// thawed and started again, so that a failure here does not fail the tests after it.
struct WholeAgain;

impl Drop for WholeAgain {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ci/servers.sh");
        for args in [["galera-thaw", "2"], ["galera-start", "3"]] {
            // Quietly: both fail harmlessly when the node is already whole.
            let _ = std::process::Command::new("timeout")
                .args(["150", "bash", script])
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

#[test]
fn a_run_over_three_galera_nodes_survives_one_killed() {
    let servers = Servers::get();
    servers.require_galera();
    let _whole = WholeAgain;
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let db = format!("hammer_galera_run_{}", std::process::id());
    let hosts = servers.galera_hosts();
    let addr = |node: usize| format!("127.0.0.1:{}", servers.galera_port(node));
    f.ok(&format!(
        r#"dbset("db", "maria");
        diset("connection", "maria_host", "{hosts}");
        diset("connection", "maria_socket", "null");
        diset("connection", "maria_reply_timeout", 10);
        diset("tpcc", "maria_dbase", "{db}");
        diset("tpcc", "maria_count_ware", 2);
        diset("tpcc", "maria_num_vu", 2);"#
    ));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));

    // Six terminals, two per node; node 3 is killed about 10 s into a 24-second run.
    f.ok(
        r#"diset("tpcc", "maria_driver", "timed"); diset("tpcc", "maria_rampup", 0);
        diset("tpcc", "maria_duration", 0.4); vuset("vu", 6); vuset("delay", 0);"#,
    );
    let watcher = {
        let db = db.clone();
        std::thread::spawn(move || {
            let servers = Servers::get();
            std::thread::sleep(Duration::from_secs(6));
            let sessions: Vec<i64> = (1..=3).map(|n| galera_sessions(&servers, n, &db)).collect();
            std::thread::sleep(Duration::from_secs(4));
            common::galera_kill(3);
            sessions
        })
    };
    let started = Instant::now();
    let (r, lines) = f.console("vurun()");
    let sessions = watcher.join().expect("the watcher");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "the run went on long after its 24 s:\n{text}"
    );
    for (node, n) in sessions.iter().enumerate() {
        assert!(
            *n >= 2,
            "node {} had {n} sessions mid-run:\n{text}",
            node + 1
        );
    }
    assert!(
        text.contains(&format!(
            "Terminals per server: {} 2, {} 2, {} 2",
            addr(1),
            addr(2),
            addr(3)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("Server {} lost at", addr(3)))
            && text.contains("2 terminal(s) moved to"),
        "{text}"
    );
    assert!(text.contains("Throughput "), "{text}");
    // Galera is synchronous at commit: nothing acknowledged is lost with a node.
    assert!(
        text.contains("0 acknowledged New-Orders missing after failover"),
        "{text}"
    );
    // TPM leaves out the node that was not there at the end, and says so.
    assert!(
        text.contains(&format!(
            "TPM counts the servers that answered both readings: {} did not",
            addr(3)
        )),
        "{text}"
    );
    // NOPM, read on a surviving node's districts, matches the New-Orders the terminals
    // committed in the same window.
    let nopm = number_before(&text, " NOPM from").unwrap_or_else(|| panic!("{text}"));
    // New-Orders a minute over the 0.4-minute window.
    let counted = committed_new_orders(&text) as f64 / 0.4;
    assert!(
        (nopm - counted).abs() <= 0.1 * counted + 60.0,
        "NOPM {nopm} against {counted} New-Orders a minute committed:\n{text}"
    );
    let next = |node| {
        servers
            .galera_i64(node, Some(&db), "SELECT SUM(d_next_o_id) FROM district")
            .expect("districts")
    };
    assert_eq!(next(1), next(2), "the surviving nodes agree");

    // Node 3 rejoins. Then node 2 stops answering without closing anything (SIGSTOP: what a
    // partition looks like to a client): its terminals' calls stall until the reply timeout,
    // and they go on on the other nodes.
    common::galera_start(3);
    f.ok(
        r#"vudestroy(); diset("connection", "maria_reply_timeout", 5);
        diset("tpcc", "maria_duration", 0.45)"#,
    );
    let freezer = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(6));
        common::servers_sh(&["galera-freeze", "2"], common::SERVERS_SH_LIMIT)
    });
    let (r, lines) = f.console("vurun()");
    freezer.join().expect("the freezer");
    common::servers_sh(&["galera-thaw", "2"], common::SERVERS_SH_LIMIT);
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(
        text.contains(&format!("Server {} lost at", addr(2)))
            && text.contains("within 5 s (the reply timeout)"),
        "{text}"
    );
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        text.contains("0 acknowledged New-Orders missing after failover"),
        "{text}"
    );

    // The schema holds on every node.
    f.ok("vudestroy()");
    for node in 1..=3 {
        f.ok(&format!(
            r#"diset("connection", "maria_host", "{}");"#,
            addr(node)
        ));
        let (r, lines) = f.console("checkschema().ok");
        assert_eq!(
            r,
            Ok("true".to_string()),
            "node {node}:\n{}",
            lines.join("\n")
        );
    }
    f.ok(&format!(
        r#"diset("connection", "maria_host", "{hosts}"); deleteschema()"#
    ));
}

/// Builds TPROC-C on the failover pair (made afresh in `mode`), runs it with both servers
/// listed and `read-write` asked, kills the primary mid-run and promotes the standby; returns
/// the run's text and the fixture.
fn failover_run(mode: &str) -> (Fixture, String, String) {
    let servers = Servers::get();
    common::pg_pair(mode);
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let db = format!("hammer_failover_{mode}_{}", std::process::id());
    let (p, s) = (servers.pair_primary_port, servers.pair_standby_port);
    f.ok(&format!(
        r#"dbset("db", "pg");
        diset("connection", "pg_host", "127.0.0.1:{p},127.0.0.1:{s}");
        diset("connection", "pg_target_session_attrs", "read-write");
        diset("connection", "pg_reply_timeout", 10);
        diset("tpcc", "pg_dbase", "{db}");
        diset("tpcc", "pg_user", "{db}");
        diset("tpcc", "pg_count_ware", 1);
        diset("tpcc", "pg_num_vu", 1);"#
    ));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok(
        r#"diset("tpcc", "pg_driver", "timed"); diset("tpcc", "pg_rampup", 0);
        diset("tpcc", "pg_duration", 0.5); vuset("vu", 3); vuset("delay", 0);"#,
    );
    let operator = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(10));
        common::pg_pair_kill_primary();
        std::thread::sleep(Duration::from_secs(2));
        common::pg_pair_promote();
    });
    let (r, lines) = f.console("vurun()");
    operator.join().expect("the operator");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    (f, text, db)
}

/// The `N acknowledged New-Orders missing after failover` figure, checked against the new
/// primary: its districts hold at most the New-Orders the run acknowledged.
fn missing(text: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.contains("acknowledged New-Orders missing after failover"))
        .unwrap_or_else(|| panic!("no lost-commit line:\n{text}"));
    line.split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{line}"))
}

fn check_failover(text: &str, servers: &Servers) {
    let (p, s) = (servers.pair_primary_port, servers.pair_standby_port);
    assert!(
        text.contains(&format!("Server 127.0.0.1:{p} lost at"))
            && text.contains(&format!("moved to 127.0.0.1:{s} (3)")),
        "{text}"
    );
    assert!(text.contains("Longest time without a commit"), "{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        text.contains(&format!("compared on 127.0.0.1:{s}")),
        "{text}"
    );
    assert!(text.contains("FINISHED SUCCESS"), "{text}");
}

#[test]
fn a_synchronous_failover_loses_no_acknowledged_new_order() {
    let _turn = PAIR.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let (mut f, text, db) = failover_run("sync");
    check_failover(&text, &servers);
    assert_eq!(missing(&text), 0, "{text}");
    // The schema holds on the new primary, which the list reaches now.
    let (r, lines) = f.console("vudestroy(); checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    // The new primary's districts have every acknowledged New-Order: they moved on from
    // the build's 3001 by at least the New-Orders the run committed.
    let next = servers.pg_i64_at(
        servers.pair_standby_port,
        &db,
        "SELECT SUM(d_next_o_id - 3001) FROM district",
    );
    assert!(next as u64 >= committed_new_orders(&text), "{next}\n{text}");
    common::pg_pair_stop();
}

#[test]
fn an_asynchronous_failover_is_measured_not_assumed() {
    let _turn = PAIR.lock().unwrap_or_else(|e| e.into_inner());
    let servers = Servers::get();
    let (mut f, text, _db) = failover_run("async");
    check_failover(&text, &servers);
    // Whatever the count is, it is a measured figure on its own line.
    let n = missing(&text);
    assert!(
        text.contains(&format!(
            "{n} acknowledged New-Orders missing after failover ("
        )),
        "{text}"
    );
    let (r, lines) = f.console("vudestroy(); checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    common::pg_pair_stop();
}
