//! OLTP runs on the real servers, checked against sysbench 1.0.20 itself: the statements each
//! test's events run (read, write and other counts of N events equal sysbench's on the same
//! tables with the same options), sysbench's interval lines and summary blocks, a target
//! rate kept and its intended-start latency reported, and a run without its tables refused.

mod common;

use std::process::Command;

use common::{Fixture, Servers};

/// A session on `db` (`pg` or `maria`) under OLTP, its tables in a database of the test's
/// own (2 tables of 2000 rows, built), the live view off.
fn session(db: &'static str, tag: &str) -> (Fixture, String) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let name = format!("hammer_olr_{db}_{tag}_{}", std::process::id());
    f.ok(&format!("dbset db {db}"));
    f.ok("dbset bm OLTP");
    if db == "pg" {
        f.ok(&format!(
            "diset oltp pg_oltp_superuser {}; diset oltp pg_oltp_superuserpass {}",
            servers.pg_user, servers.pg_pass
        ));
        f.ok(&format!(
            "diset oltp pg_oltp_user {name}; diset oltp pg_oltp_pass olr_pass"
        ));
    } else {
        f.ok(&format!(
            "diset oltp {db}_oltp_user {}; diset oltp {db}_oltp_pass {}",
            servers.maria_user, servers.maria_pass
        ));
    }
    f.ok(&format!("diset oltp {db}_oltp_dbase {name}"));
    f.ok(&format!(
        "diset oltp {db}_oltp_tables 2; diset oltp {db}_oltp_table_size 2000"
    ));
    f.ok("vuset refreshrate 0; vuset delay 0");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    (f, name)
}

fn drop_database(db: &str, name: &str) {
    let servers = Servers::get();
    if db == "pg" {
        servers.pg_exec(
            "postgres",
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
        servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {name}"));
    } else {
        servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {name}")]);
    }
}

/// sysbench's connection options for the test server `db`, on database `name`.
fn sysbench_target(db: &str, name: &str) -> Vec<String> {
    let s = Servers::get();
    if db == "pg" {
        vec![
            "--db-driver=pgsql".into(),
            format!("--pgsql-host={}", s.pg_host),
            format!("--pgsql-port={}", s.pg_port),
            format!("--pgsql-user={}", s.pg_user),
            format!("--pgsql-password={}", s.pg_pass),
            format!("--pgsql-db={name}"),
        ]
    } else {
        vec![
            "--db-driver=mysql".into(),
            format!("--mysql-socket={}", s.maria_socket),
            format!("--mysql-user={}", s.maria_user),
            format!("--mysql-password={}", s.maria_pass),
            format!("--mysql-db={name}"),
        ]
    }
}

/// sysbench's read, write and other counts for `events` events of `test` with `options`.
fn sysbench_counts(db: &str, name: &str, test: &str, events: u64, options: &[&str]) -> [u64; 3] {
    let mut cmd = Command::new("sysbench");
    cmd.arg(test)
        .args(sysbench_target(db, name))
        .args(["--tables=2", "--table-size=2000", "--threads=1", "--time=0"])
        .arg(format!("--events={events}"))
        .args(options)
        .arg("run");
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("sysbench does not run ({e}): apt-get install sysbench (Debian's 1.0.20)")
    });
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "sysbench {test} failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    counts(&text)
}

/// The `read:`, `write:` and `other:` counts of a summary's SQL statistics.
fn counts(text: &str) -> [u64; 3] {
    let get = |label: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {label} in\n{text}"))
    };
    [get("read:"), get("write:"), get("other:")]
}

/// hammer's run of `events` events of `test` with `keys` set, on one virtual user: its output.
fn hammer_run(f: &mut Fixture, db: &str, test: &str, events: u64, keys: &[(&str, &str)]) -> String {
    f.ok(&format!(
        "diset oltp {db}_oltp_test {test}; diset oltp {db}_oltp_duration 0; diset oltp {db}_oltp_events {events}"
    ));
    for (k, v) in keys {
        f.ok(&format!("diset oltp {db}_oltp_{k} {v}"));
    }
    f.ok("vuset vu 1");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    f.ok("vudestroy");
    // Back to sysbench's defaults for the next test.
    for (k, _) in keys {
        let default = match *k {
            "range_selects" => "true",
            "skip_trx" => "false",
            "point_selects" => "10",
            "index_updates" | "non_index_updates" | "delete_inserts" => "1",
            other => panic!("no default for {other}"),
        };
        f.ok(&format!("diset oltp {db}_oltp_{k} {default}"));
    }
    text
}

/// A test, hammer's keys for it and sysbench's options for the same.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);

/// Each test's statements per event, as sysbench runs them: the counts of 100 events of
/// hammer's equal sysbench's, on the same tables with the same options.
fn counts_equal_sysbenchs(db: &'static str) {
    let (mut f, name) = session(db, "counts");
    let cases: [Case; 8] = [
        ("oltp_read_write", &[], &[]),
        (
            "oltp_read_only",
            &[("range_selects", "false")],
            &["--range_selects=off"],
        ),
        ("oltp_write_only", &[], &[]),
        ("oltp_point_select", &[], &[]),
        (
            "oltp_update_index",
            &[("index_updates", "3")],
            &["--index_updates=3"],
        ),
        ("oltp_update_non_index", &[], &[]),
        (
            "oltp_read_write",
            &[("skip_trx", "true"), ("point_selects", "4")],
            &["--skip_trx=on", "--point_selects=4"],
        ),
        // Last: its deletes leave rows missing for good. A delete of an id already gone
        // changes nothing, which sysbench counts as other: both runs' classes then depend
        // on what the run before deleted, so only their sum is compared.
        ("oltp_delete", &[], &[]),
    ];
    for (test, keys, options) in cases {
        let events = 100;
        let text = hammer_run(&mut f, db, test, events, keys);
        let ours = counts(&text);
        let theirs = sysbench_counts(db, &name, test, events, options);
        // In autocommit, sysbench has been seen to count a write or two of 100 events as
        // changing nothing where hammer's same statements changed their row: the classes of
        // the writes are compared by their sum there.
        let autocommit = keys.iter().any(|(k, _)| *k == "skip_trx");
        if autocommit {
            assert_eq!(ours[0], theirs[0], "{text}");
            assert_eq!(ours[1] + ours[2], theirs[1] + theirs[2], "{text}");
        } else if test == "oltp_delete" {
            assert_eq!(ours[0] + theirs[0], 0, "{text}");
            assert_eq!(ours[1] + ours[2], theirs[1] + theirs[2], "{text}");
            assert!(ours[1] > 0 && ours[2] > 0, "{ours:?}\n{text}");
        } else {
            assert_eq!(ours, theirs, "{test} {keys:?} on {db}:\n{text}");
        }
        assert!(
            text.contains(&format!(
                "    transactions:                        {events} "
            )),
            "{text}"
        );
        for block in [
            "SQL statistics:",
            "General statistics:",
            "    total number of events:              100",
            "Latency (ms):",
            "         95th percentile:",
            "Threads fairness:",
            "    events (avg/stddev):           100.0000/0.00",
            "TEST RESULT : System achieved ",
            "Statements (hammer; latency of each round trip, in the window):",
            "us per query",
        ] {
            assert!(text.contains(block), "no {block:?} in\n{text}");
        }
    }
    let (r, _) = f.console("let l = lastrun(); [l.transactions, l.writes + l.others, l.errors]");
    assert_eq!(r, Ok("[100, 100, 0]".to_string()));
    drop_database(db, &name);
}

#[test]
fn mariadb_counts_equal_sysbenchs() {
    counts_equal_sysbenchs("maria");
}

#[test]
fn postgres_counts_equal_sysbenchs() {
    counts_equal_sysbenchs("pg");
}

/// A timed run with the live view to a pipe: sysbench's `--report-interval` lines, the
/// monitor's reading of the server's transactions, and a target rate kept, with its queue
/// line and the latency from each event's intended start.
fn timed_with_a_rate(db: &'static str) {
    let (mut f, name) = session(db, "rate");
    f.ok(&format!(
        "diset oltp {db}_oltp_test oltp_point_select; diset oltp {db}_oltp_duration 0.1; diset oltp {db}_oltp_rate 200"
    ));
    f.ok("vuset vu 2; vuset refreshrate 1");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    let interval = lines
        .iter()
        .filter(|l| {
            l.starts_with('[')
                && l.contains("s ] thds: 2 tps: ")
                && l.contains(" qps: ")
                && l.contains(" (r/w/o: ")
                && l.contains(" lat (ms,95%): ")
                && l.contains(" err/s: ")
                && l.contains(" reconn/s: ")
        })
        .count();
    assert!(interval >= 4, "{interval} interval lines in\n{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with('[') && l.contains("s ] queue length: ")),
        "{text}"
    );
    assert!(
        text.contains("Latency from each event's intended start"),
        "{text}"
    );
    assert!(
        text.contains("Vuser 1:Timing test period of 0.1 in minutes"),
        "{text}"
    );
    assert!(text.contains("counted "), "{text}");
    let (r, _) = f.console("let l = lastrun(); l.tps");
    let tps: f64 = r.expect("lastrun").parse().expect("a number");
    // 200 a second, Poisson: over 6 s about 1200 events, within a few standard deviations.
    assert!(
        (170.0..230.0).contains(&tps),
        "{tps} tps at a rate of 200:\n{text}"
    );
    drop_database(db, &name);
}

#[test]
fn mariadb_timed_with_a_rate() {
    timed_with_a_rate("maria");
}

#[test]
fn postgres_timed_with_a_rate() {
    timed_with_a_rate("pg");
}

/// A run on more tables than were built is refused before any virtual user starts, naming
/// the missing table and what to do.
#[test]
fn a_run_without_its_tables_is_refused() {
    let (mut f, name) = session("pg", "missing");
    f.ok(
        "diset oltp pg_oltp_tables 3; diset oltp pg_oltp_duration 0; diset oltp pg_oltp_events 10",
    );
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    let e = r.expect_err("a refused run");
    assert!(
        e.contains("no OLTP tables to run oltp_read_write on in PostgreSQL database")
            && e.contains("sbtest3")
            && e.contains("run buildschema first"),
        "{e}\n{text}"
    );
    drop_database("pg", &name);
}

/// The shipped custom examples that rewrite sysbench's Lua events in Rhai run on the OLTP
/// tables without a failure.
#[test]
fn custom_examples_run_on_the_oltp_tables() {
    let (mut f, name) = session("maria", "custom");
    f.ok(&format!("diset tpcc maria_dbase {name}"));
    let root = env!("CARGO_MANIFEST_DIR");
    for script in ["point_select", "read_write", "autocommit_off"] {
        f.ok(&format!(
            "customscript(\"{root}/scripts/custom/oltp/{script}.rhai\"); vuset(\"vu\", 2); vuset(\"iterations\", 20)"
        ));
        let (r, lines) = f.console("vurun()");
        let text = lines.join("\n");
        assert!(r.is_ok(), "{script}: {r:?}\n{text}");
        let (r, _) = f.console("let l = lastrun(); [l.transactions, l.failed_vus]");
        assert_eq!(r, Ok("[40, 0]".to_string()), "{script}:\n{text}");
        f.ok("vudestroy");
    }
    drop_database("maria", &name);
}

/// Connections the server kills mid-run are reconnected and counted as sysbench's
/// reconnects; every event of the run still runs, and the counts stay sysbench's.
fn lost_connections_are_reconnects(db: &'static str) {
    let (mut f, name) = session(db, "lost");
    f.ok(&format!(
        "diset oltp {db}_oltp_test oltp_read_only; diset oltp {db}_oltp_duration 0; diset oltp {db}_oltp_events 3000"
    ));
    f.ok("vuset vu 2");
    let victim = name.clone();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(700));
        let servers = Servers::get();
        if db == "pg" {
            servers.pg_exec(
                "postgres",
                &format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = '{victim}' AND pid <> pg_backend_pid()"
                ),
            );
        } else {
            servers.maria_kill_sessions(&victim);
        }
    });
    let (r, lines) = f.console("vurun()");
    killer.join().unwrap();
    let text = lines.join("\n");
    assert!(r.is_ok(), "{db}: {r:?}\n{text}");
    assert!(text.contains("; reconnecting"), "{db}: {text}");
    let (r, _) = f.console(
        "let l = lastrun(); [l.reconnects > 0, l.failed_vus, l.transactions, l.others >= 2 * l.transactions]",
    );
    assert_eq!(r, Ok("[true, 0, 3000, true]".to_string()), "{db}:\n{text}");
    let reconnects = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("reconnects:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no reconnects line in\n{text}"));
    assert!(reconnects > 0, "{text}");
    drop_database(db, &name);
}

#[test]
fn mariadb_lost_connections_are_reconnects() {
    lost_connections_are_reconnects("maria");
}

#[test]
fn postgres_lost_connections_are_reconnects() {
    lost_connections_are_reconnects("pg");
}

/// Deadlocks, as sysbench ignores them: eight threads updating the same ten rows in
/// read-write events deadlock one another; each deadlocked event is rolled back and run
/// again, counted as an ignored error, and the run finishes with every event done.
fn deadlocks_are_ignored_errors(db: &'static str) {
    let (mut f, name) = session(db, "deadlock");
    if db == "pg" {
        // PostgreSQL looks for deadlocks after a second's wait by default: sooner here.
        Servers::get().pg_exec(
            "postgres",
            &format!("ALTER DATABASE {name} SET deadlock_timeout = '20ms'"),
        );
    }
    f.ok(&format!(
        "diset oltp {db}_oltp_test oltp_write_only; diset oltp {db}_oltp_table_size 10; \
         diset oltp {db}_oltp_tables 1; diset oltp {db}_oltp_index_updates 4; \
         diset oltp {db}_oltp_duration 0; diset oltp {db}_oltp_events 1000"
    ));
    f.ok("vuset vu 8");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{db}: {r:?}\n{text}");
    // (An event still deadlocked after the runtime's ten retries fails; it is counted so.)
    let (r, _) = f.console(
        "let l = lastrun(); [l.errors > 0, l.failed_vus, l.transactions + l.transaction.failed]",
    );
    assert_eq!(r, Ok("[true, 0, 1000]".to_string()), "{db}:\n{text}");
    let ignored = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("ignored errors:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no ignored errors line in\n{text}"));
    assert!(ignored > 0, "{text}");
    drop_database(db, &name);
}

#[test]
fn mariadb_deadlocks_are_ignored_errors() {
    deadlocks_are_ignored_errors("maria");
}

#[test]
fn postgres_deadlocks_are_ignored_errors() {
    deadlocks_are_ignored_errors("pg");
}
