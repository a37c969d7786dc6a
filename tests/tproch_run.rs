//! TPROC-H runs end to end on the real servers, as a user runs them: the power test with its
//! refresh functions and the throughput test with its refresh stream at scale factor 0.01,
//! the runs `vurun` refuses (no schema, a TPROC-C schema, another scale factor), a query that
//! fails on the server (counted, or stopping its virtual user), and Ctrl-C cancelling a query
//! that waits on the server.

mod common;

use std::time::{Duration, Instant};

use common::{tproch_session as configured, Fixture, Servers};

fn build(f: &mut Fixture) {
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
}

/// A power test with refresh on and a throughput test with a refresh stream: HammerDB's
/// lines, every query of every set, the refresh functions, the figures, and the job.
fn power_and_throughput(db: &'static str) {
    let (mut f, _cleanup) = configured(db, "runs");
    build(&mut f);
    f.ok(&format!("diset tpch {db}_refresh_on true"));
    f.ok(&format!("diset tpch {db}_trickle_refresh 0"));
    f.ok("vuset vu 1");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    for expected in [
        "Vuser 1:Scale Factor 0.01 TPROC-H power test",
        "Vuser 1:New Sales refresh RF1",
        "Vuser 1:Executing Query 14 (1 of 22)",
        "Vuser 1:Executing Query 12 (22 of 22)",
        "Vuser 1:Old Sales refresh RF2",
        "Vuser 1:Completed 1 query set(s) in ",
        "Vuser 1:Geometric mean of query times returning rows (",
        "Power@Size ",
        "with RF1 and RF2",
        "not an official TPC-H result",
        "ALL VIRTUAL USERS COMPLETE",
        "Benchmark Run jobid=",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    for q in 1..=22 {
        assert!(
            text.contains(&format!("Vuser 1:query {q} completed in ")),
            "query {q}:\n{text}"
        );
    }
    let (r, _) = f.console(
        "let l = lastrun(); [l.querysets, l.queries, l.geomean > 0.0, l.failed_vus, l.query_14.committed, l.new_sales_refresh.committed, l.old_sales_refresh.committed]",
    );
    assert_eq!(r, Ok("[1, 22, true, 0, 1, 1, 1]".to_string()));
    // The throughput test: virtual user 1 refreshes, 2 and 3 run streams 1 and 2.
    f.ok("vudestroy");
    f.ok("vuset vu 3");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    for expected in [
        "Vuser 1:New Sales refresh RF1",
        "Vuser 1:Completed 1 update set(s) in ",
        // Stream 1 starts with query 21, stream 2 with query 6 (Appendix A).
        "Vuser 2:Executing Query 21 (1 of 22)",
        "Vuser 3:Executing Query 6 (1 of 22)",
        "Vuser 2:Completed 1 query set(s) in ",
        "Vuser 3:Completed 1 query set(s) in ",
        "throughput test, 2 query streams",
        "Throughput@Size ",
        "QphH@Size ",
    ] {
        assert!(text.contains(expected), "no {expected:?} in\n{text}");
    }
    assert!(!text.contains("Vuser 2:New Sales refresh"), "{text}");
    let (r, _) = f.console("let l = lastrun(); [l.querysets, l.queries, l.active_vus]");
    assert_eq!(r, Ok("[2, 44, 3]".to_string()));
    // The job keeps the figures, QphH@Size with the power test before it among them.
    f.ok("jobs format text");
    let (r, lines) = f.console("jobs(lastrun().id); ()");
    let job = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{job}");
    for expected in [
        "Throughput@Size ",
        "QphH@Size ",
        "Geometric mean of query times returning rows (",
    ] {
        assert!(job.contains(expected), "no {expected:?} in the job:\n{job}");
    }
    // The validation parameters, every answer checked against the published answer set
    // (after the refresh pairs above, which left the tables as loaded).
    f.ok("vudestroy");
    f.ok(&format!(
        "diset tpch {db}_validate true; diset tpch {db}_refresh_on false"
    ));
    f.ok("vuset vu 1");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(
        text.contains(
            "Answers checked against the published answer set at scale factor 0.01: 22 of 22 match"
        ),
        "{text}"
    );
}

#[test]
fn pg_power_and_throughput_tests() {
    power_and_throughput("pg");
}

#[test]
fn maria_power_and_throughput_tests() {
    power_and_throughput("maria");
}

/// `vurun` refuses a database without TPROC-H's tables, one with TPROC-C's, and a schema of
/// another scale factor, each saying the way out, and leaves no virtual users behind.
fn refusals(db: &'static str) {
    let servers = Servers::get();
    let (mut f, cleanup) = configured(db, "refuse");
    let name = cleanup.name.clone();
    // A database without the tables: the server's own database.
    let system = if db == "pg" { "postgres" } else { "mysql" };
    f.ok(&format!("diset tpch {db}_tpch_dbase {system}"));
    if db == "pg" {
        f.ok(&format!(
            "diset tpch pg_tpch_user {}; diset tpch pg_tpch_pass {}",
            servers.pg_user, servers.pg_pass
        ));
    }
    let e = f.err("vurun");
    assert!(
        e.contains(&format!("no TPROC-H schema in database {system} on "))
            && e.contains("build one with buildschema"),
        "{e}"
    );
    assert_eq!(f.ok("vustatus"), ["No Virtual Users found"]);
    // TPROC-C's tables where TPROC-H's should be.
    f.ok("dbset bm TPC-C");
    f.ok(&format!("diset tpcc {db}_dbase {name}"));
    if db == "pg" {
        f.ok(&format!(
            "diset tpcc pg_user {name}; diset tpcc pg_pass tph_pass"
        ));
    }
    f.ok(&format!(
        "diset tpcc {db}_count_ware 1; diset tpcc {db}_num_vu 1"
    ));
    build(&mut f);
    f.ok("dbset bm TPC-H");
    f.ok(&format!("diset tpch {db}_tpch_dbase {name}"));
    if db == "pg" {
        f.ok(&format!(
            "diset tpch pg_tpch_user {name}; diset tpch pg_tpch_pass tph_pass"
        ));
    }
    let e = f.err("vurun");
    assert!(
        e.contains(&format!("database {name} on "))
            && e.contains("holds a TPROC-C schema, not a TPROC-H one"),
        "{e}"
    );
    f.ok("dbset bm TPC-C");
    f.ok("deleteschema");
    // A scale factor 0.01 schema run as 0.1.
    f.ok("dbset bm TPC-H");
    build(&mut f);
    f.ok(&format!("diset tpch {db}_scale_fact 0.1"));
    let e = f.err("vurun");
    assert!(
        e.contains(&format!(
            "the TPROC-H schema in database {name} is of scale factor 0.01 (100 suppliers), not {db}_scale_fact 0.1"
        )),
        "{e}"
    );
    assert_eq!(f.ok("vustatus"), ["No Virtual Users found"]);
}

#[test]
fn pg_runs_are_refused_without_the_right_schema() {
    refusals("pg");
}

#[test]
fn maria_runs_are_refused_without_the_right_schema() {
    refusals("maria");
}

/// A query that fails on the server: counted and the run goes on, or with
/// `*_raise_query_error` its virtual user stops and the job is FAILED.
fn failing_query(db: &'static str) {
    let servers = Servers::get();
    let (mut f, cleanup) = configured(db, "qerr");
    let name = cleanup.name.clone();
    build(&mut f);
    // Queries 2, 5 and 8 read REGION: without it they fail.
    let hide = |back: bool| {
        let (from, to) = if back {
            ("region_gone", "region")
        } else {
            ("region", "region_gone")
        };
        if db == "pg" {
            servers.pg_exec(&name, &format!("ALTER TABLE {from} RENAME TO {to}"));
        } else {
            servers.maria_exec(&name, &[&format!("RENAME TABLE {from} TO {to}")]);
        }
    };
    hide(false);
    f.ok("vuset vu 1");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(text.contains("Vuser 1:query 2 failed: "), "{text}");
    assert!(
        text.contains("3 queries failed (counted, not in the geometric mean)"),
        "{text}"
    );
    assert!(text.contains("Vuser 1:FINISHED SUCCESS"), "{text}");
    let (r, _) = f.console(
        "let l = lastrun(); [l.queries, l.query_2.failed, l.query_5.failed, l.query_8.failed, l.geomean_queries <= 19]",
    );
    // The geometric mean leaves out the 3 that failed (and any that returned no rows).
    assert_eq!(r, Ok("[22, 1, 1, 1, true]".to_string()));
    f.ok("vudestroy");
    f.ok(&format!("diset tpch {db}_raise_query_error true"));
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    let e = r.unwrap_err();
    assert!(
        e.contains("Benchmark Run jobid=") && e.contains(" FAILED"),
        "{e}\n{text}"
    );
    assert!(text.contains("Vuser 1:FINISHED FAILED"), "{text}");
    // Stream 0 runs query 2 second: the virtual user stopped there.
    assert!(!text.contains("Executing Query 9 (3 of 22)"), "{text}");
    hide(true);
}

#[test]
fn pg_a_failing_query_is_counted_or_stops_the_virtual_user() {
    failing_query("pg");
}

#[test]
fn maria_a_failing_query_is_counted_or_stops_the_virtual_user() {
    failing_query("maria");
}

/// Ctrl-C while a query waits on the server (for a lock another session holds): the run
/// stops within the stop's grace and the query is cancelled on the server, not left running.
fn ctrl_c_cancels(db: &'static str) {
    let servers = Servers::get();
    let (mut f, cleanup) = configured(db, "cancel");
    let name = cleanup.name.clone();
    build(&mut f);
    // Stream 0's first query (14) reads LINEITEM: a session holding it locked makes it wait.
    let holder = lock_lineitem(db, &name);
    f.ok("vuset vu 1");
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(2));
        interrupt.fire();
    });
    let started = Instant::now();
    let (r, lines) = f.console("vurun()");
    ctrl_c.join().unwrap();
    let took = started.elapsed();
    let text = lines.join("\n");
    let e = r.unwrap_err();
    assert!(e.ends_with(" STOPPED: stopped by Ctrl-C"), "{e}\n{text}");
    assert!(took < Duration::from_secs(20), "{took:?}\n{text}");
    // The lock is still held, so only the cancel can have ended the query.
    std::thread::sleep(Duration::from_millis(500));
    let running = if db == "pg" {
        servers.pg_i64(
            "postgres",
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}' AND state = 'active' AND query ILIKE '%lineitem%' AND query NOT ILIKE '%LOCK TABLE%'"
            ),
        )
    } else {
        servers.maria_i64(
            "mysql",
            &format!(
                "SELECT count(*) FROM information_schema.processlist WHERE db = '{name}' AND command = 'Query' AND info LIKE '%lineitem%' AND info NOT LIKE '%LOCK TABLES%'"
            ),
        )
    };
    assert_eq!(running, 0, "a TPROC-H query is still running\n{text}");
    drop(holder);
    f.engine.session().interrupt.clear();
}

/// Holds LINEITEM locked from a session of its own until dropped.
struct Holder {
    release: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Holder {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock_lineitem(db: &'static str, name: &str) -> Holder {
    let (release, wait) = std::sync::mpsc::channel::<()>();
    let (locked, is_locked) = std::sync::mpsc::channel::<()>();
    let servers = Servers::get();
    let name = name.to_string();
    let thread = std::thread::spawn(move || {
        if db == "pg" {
            let (rt, conn) = servers.pg(&name);
            rt.block_on(async {
                conn.client
                    .batch_execute("BEGIN; LOCK TABLE lineitem IN ACCESS EXCLUSIVE MODE")
                    .await
                    .expect("lock");
            });
            let _ = locked.send(());
            let _ = wait.recv();
            rt.block_on(async {
                let _ = conn.client.batch_execute("ROLLBACK").await;
            });
        } else {
            use mysql_async::prelude::Queryable;
            let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(&name));
            rt.block_on(async {
                conn.query_drop("LOCK TABLES lineitem WRITE")
                    .await
                    .expect("lock");
            });
            let _ = locked.send(());
            let _ = wait.recv();
            rt.block_on(async {
                let _ = conn.query_drop("UNLOCK TABLES").await;
                let _ = conn.disconnect().await;
            });
        }
    });
    is_locked
        .recv_timeout(Duration::from_secs(30))
        .expect("LINEITEM locked");
    Holder {
        release: Some(release),
        thread: Some(thread),
    }
}

#[test]
fn pg_ctrl_c_cancels_a_waiting_query_on_the_server() {
    ctrl_c_cancels("pg");
}

#[test]
fn maria_ctrl_c_cancels_a_waiting_query_on_the_server() {
    ctrl_c_cancels("maria");
}
