//! vurun end to end on the real servers: a short timed run per database and mode, whose
//! figures agree with the database's own counters, and the bad inputs of a run.

mod common;

use common::{Fixture, Servers};

/// A fixture pointed at the test servers, with its own schema names, for database `db`.
fn configured(db: &str, name: &str) -> (Fixture, String) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_run_{name}_{}", std::process::id());
    f.ok(&format!("dbset db {db}; diset tpcc {db}_dbase {unique}"));
    if db == "pg" {
        f.ok(&format!("diset tpcc pg_user {unique}"));
    }
    f.ok(&format!(
        "diset tpcc {db}_count_ware 1; diset tpcc {db}_num_vu 1"
    ));
    (f, unique)
}

fn build(f: &mut Fixture) {
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
}

/// Runs a short timed run and checks it against the database's own counters.
fn timed_run(f: &mut Fixture, db: &str, label: &str) {
    f.ok(&format!(
        "diset tpcc {db}_driver timed; diset tpcc {db}_rampup 0.05; diset tpcc {db}_duration 0.2; vuset vu 2; vuset delay 0"
    ));
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{label}: {r:?}\n{text}");
    let result_line = lines
        .iter()
        .find(|l| l.contains("TEST RESULT : System achieved"))
        .unwrap_or_else(|| panic!("{label}: no result line\n{text}"));
    assert!(
        text.contains("Vuser 1:2 Active Virtual Users configured"),
        "{text}"
    );
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{label}:\n{text}");
    let (r, _) = f.console(
        "let x = lastrun(); [x.nopm, x.tpm, x.seconds, x.new_order.committed, x.new_order.rolled_back, x.new_order.failed + x.payment.failed + x.delivery.failed + x.stock_level.failed + x.order_status.failed]",
    );
    let v: Vec<f64> = r
        .unwrap()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    let (nopm, tpm, seconds, committed, rolled_back, failed) = (v[0], v[1], v[2], v[3], v[4], v[5]);
    // The printed NOPM is the database's own new-order delta per minute.
    assert!(
        result_line.contains(&format!("{} NOPM", nopm.round() as u64)),
        "{result_line}"
    );
    assert!(nopm > 0.0 && tpm >= nopm, "{label}: nopm {nopm} tpm {tpm}");
    // The client's committed New-Orders in the same window match the district delta, up to
    // the transactions in flight at the two readings (at most one per virtual user each).
    let delta = nopm * seconds / 60.0;
    // (Plus 1 %: the readings take a round trip each, and a loaded CI box stretches it.)
    assert!(
        (delta - committed).abs() <= 4.5 + delta * 0.01,
        "{label}: district delta {delta} vs client {committed}"
    );
    // About 1 % of New-Orders roll back (binomial: allow a wide band for short runs).
    let share = rolled_back / (committed + rolled_back);
    assert!(
        share > 0.0 && share < 0.035,
        "{label}: rollback share {share} of {committed}"
    );
    assert_eq!(failed, 0.0, "{label}:\n{text}");
    f.ok("vudestroy");
}

fn consistent(f: &mut Fixture) {
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
}

#[test]
fn postgres_functions_and_client_sql() {
    let (mut f, _) = configured("pg", "fn");
    build(&mut f);
    timed_run(&mut f, "pg", "pg functions");
    f.ok("diset tpcc pg_no_stored_procs true");
    timed_run(&mut f, "pg", "pg client sql");
    // Ctrl-C in the middle of a long run: the terminals stop between transactions and the
    // monitor still reports the window it measured.
    f.ok("diset tpcc pg_duration 10; vuset vu 2");
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(8));
        interrupt.fire();
    });
    let started = std::time::Instant::now();
    let (r, lines) = f.console("vurun()");
    ctrl_c.join().unwrap();
    let text = lines.join("\n");
    // Stopped, not failed: the message says so, and ends the input.
    let e = r.unwrap_err();
    assert!(
        e.ends_with(" STOPPED: stopped before the end of the duration"),
        "{e}\n{text}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{text}"
    );
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        text.contains("The run ended early: stopped before the end of the duration"),
        "{text}"
    );
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    f.engine.session().interrupt.clear();
    f.ok("vudestroy");
    consistent(&mut f);
    f.ok("deleteschema()");
}

#[test]
fn postgres_procedures() {
    let (mut f, _) = configured("pg", "proc");
    f.ok("diset tpcc pg_storedprocs true");
    build(&mut f);
    timed_run(&mut f, "pg", "pg procedures");
    consistent(&mut f);
    // Procedures built, functions asked for: the run refuses before any virtual user starts.
    f.ok("diset tpcc pg_storedprocs false");
    let e = f.err("vurun");
    assert!(e.contains("pg_storedprocs"), "{e}");
    // The refused vurun took away the virtual users it made.
    let e = f.err("vudestroy");
    assert!(e.contains("No Virtual Users found"), "{e}");
    f.ok("deleteschema()");
}

#[test]
fn mariadb_procedures_and_client_sql() {
    let (mut f, _) = configured("maria", "m");
    build(&mut f);
    timed_run(&mut f, "maria", "maria procedures");
    f.ok("diset tpcc maria_no_stored_procs true");
    timed_run(&mut f, "maria", "maria client sql");
    consistent(&mut f);
    f.ok("deleteschema()");
}

/// The terminals' sessions killed by the server in the middle of a run, in both modes: each
/// virtual user reconnects, counts the loss and goes on, and the figures still agree.
#[test]
fn a_mariadb_run_goes_on_when_the_server_kills_its_sessions() {
    let (mut f, unique) = configured("maria", "kill");
    build(&mut f);
    for mode in ["false", "true"] {
        f.ok(&format!(
            "diset tpcc maria_no_stored_procs {mode}; diset tpcc maria_driver timed; diset tpcc maria_rampup 0; diset tpcc maria_duration 0.25; vuset vu 2; vuset delay 0"
        ));
        let killer = {
            let unique = unique.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_secs(6));
                Servers::get().maria_kill_sessions(&unique)
            })
        };
        let (r, lines) = f.console("vurun()");
        let killed = killer.join().unwrap();
        let text = lines.join("\n");
        assert!(r.is_ok(), "{mode}: {r:?}\n{text}");
        assert!(killed >= 2, "{mode}: {killed} sessions killed\n{text}");
        assert!(text.contains("TEST RESULT : System achieved"), "{text}");
        assert!(!text.contains("FINISHED FAILED"), "{text}");
        let (r, _) = f.console("let x = lastrun(); [x.reconnects, x.new_order.committed > 0]");
        let r = r.unwrap();
        let (reconnects, committed) = r.trim_matches(['[', ']']).split_once(", ").unwrap();
        let reconnects: i64 = reconnects.parse().unwrap();
        assert!(
            reconnects >= 2,
            "{mode}: each virtual user reconnects: {reconnects}\n{text}"
        );
        assert_eq!(committed, "true", "{text}");
        f.ok("vudestroy");
    }
    consistent(&mut f);
    f.ok("deleteschema()");
}

#[test]
fn the_test_driver_shows_each_transaction() {
    let (mut f, _) = configured("maria", "test");
    f.ok("dbset db mysql");
    let (mut f, _) = {
        drop(f);
        configured("mysql", "test")
    };
    build(&mut f);
    f.ok("diset tpcc mysql_driver test; diset tpcc mysql_total_iterations 30; vuset vu 2; vuset showoutput 1; vuset delay 0");
    let (r, lines) = f.console("vurun()");
    assert!(r.is_ok(), "{r:?}");
    let text = lines.join("\n");
    assert!(
        text.contains("Vuser 1:Processing 30 transactions without output suppressed..."),
        "{text}"
    );
    assert!(text.contains("Vuser 2:New Order: w 1"), "{text}");
    assert!(
        text.contains("Vuser 1:FINISHED SUCCESS") && text.contains("Vuser 2:FINISHED SUCCESS"),
        "{text}"
    );
    assert!(!text.contains("TEST RESULT"), "{text}");
    let (r, _) = f.console("let x = lastrun(); x.new_order.committed + x.new_order.rolled_back + x.payment.committed + x.delivery.committed + x.stock_level.committed + x.order_status.committed");
    assert_eq!(r, Ok("60".to_string()));
    assert_eq!(f.console("vucomplete()").0, Ok("true".to_string()));
    assert_eq!(
        f.ok("vustatus"),
        ["1 = FINISH SUCCESS", "2 = FINISH SUCCESS"]
    );
    f.ok("vudestroy; deleteschema()");
}

#[test]
fn vurun_refuses_a_missing_schema_and_runs_a_smaller_one() {
    let (mut f, unique) = configured("pg", "missing");
    let (r, lines) = f.console("vurun");
    let e = r.unwrap_err();
    assert!(e.contains(&unique) && e.contains("buildschema"), "{e}");
    // The virtual users this refused vurun made are gone: the next buildschema is not refused.
    assert!(
        lines.contains(&"Nothing ran: the virtual users this vurun created are destroyed".into()),
        "{lines:#?}"
    );
    assert_eq!(f.ok("vustatus"), ["No Virtual Users found"]);
    // Those the user created stay, and the refusal says how to remove them.
    f.ok("vucreate");
    let (r, lines) = f.console("vurun");
    assert!(r.is_err());
    assert!(
        lines.contains(
            &"Nothing ran: the virtual users created before vurun remain; vudestroy removes them"
                .into()
        ),
        "{lines:#?}"
    );
    assert_eq!(f.ok("vustatus"), ["1 = WAIT IDLE", "2 = WAIT IDLE"]);
    f.ok("vudestroy");
    let (mut m, _) = configured("maria", "smaller");
    build(&mut m);
    // A schema smaller than maria_count_ware (the build's setting) is run as it is, as
    // HammerDB's driver runs it, and one line says so (tests/job_warehouses.rs holds the
    // job's record of it).
    m.ok(
        "diset tpcc maria_count_ware 3; diset tpcc maria_driver test; \
         diset tpcc maria_total_iterations 10; vuset vu 1; vuset delay 0",
    );
    let lines = m.ok("vurun");
    assert_eq!(
        lines
            .iter()
            .filter(
                |l| l.starts_with("Warning: maria_count_ware is 3 but the schema ")
                    && l.contains(" holds 1 warehouse: the run uses 1")
            )
            .count(),
        1,
        "{lines:#?}"
    );
    m.ok("vudestroy; diset tpcc maria_count_ware 1; deleteschema()");
}

/// A key changed while virtual users exist behaves as without them: the script is cleared and
/// vurun loads it again with the new setting; a script that now needs a monitor gets one.
#[test]
fn a_key_changed_while_virtual_users_exist_reaches_the_next_run() {
    let (mut f, _) = configured("pg", "keychange");
    build(&mut f);
    f.ok("diset tpcc pg_driver test; diset tpcc pg_total_iterations 10; vuset vu 1; vuset delay 0");
    f.ok("vucreate");
    let lines = f.ok("diset tpcc pg_total_iterations 20");
    assert_eq!(
        lines[1..],
        [
            "Clearing Script, reload script to activate new setting",
            "Script cleared: vurun loads it again with the new setting"
        ]
    );
    let (r, lines) = f.console("vurun()");
    assert!(r.is_ok(), "{r:?} {lines:#?}");
    let (r, _) = f.console("lastrun().transactions");
    assert_eq!(r, Ok("20".to_string()));
    // The test driver becomes timed: the same idle virtual users, plus a monitor.
    f.ok("diset tpcc pg_driver timed; diset tpcc pg_total_iterations 10000000; diset tpcc pg_rampup 0; diset tpcc pg_duration 0.05");
    let (r, lines) = f.console("vurun()");
    assert!(r.is_ok(), "{r:?} {lines:#?}");
    let text = lines.join("\n");
    assert!(
        text.contains(
            "The loaded script needs other virtual users than those created: creating them again"
        ) && text.contains("2 Virtual Users Created with Monitor VU")
            && text.contains("TEST RESULT"),
        "{text}"
    );
    f.ok("vudestroy; deleteschema()");
}

#[test]
fn keying_thinking_async_terminals_all_warehouses_and_time_profile() {
    let (mut f, _) = configured("pg", "options");
    f.ok("diset tpcc pg_count_ware 2; diset tpcc pg_num_vu 2");
    build(&mut f);
    f.ok(
        "diset tpcc pg_rampup 0; diset tpcc pg_duration 0.15; diset tpcc pg_keyandthink true; \
         diset tpcc pg_async_scale true; diset tpcc pg_async_client 3; diset tpcc pg_async_delay 100; \
         diset tpcc pg_allwarehouse true; diset tpcc pg_timeprofile true; vuset vu 2; vuset delay 0",
    );
    let started = std::time::Instant::now();
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    // Keyed and thinking terminals still stop when the duration ends (9 s), not after their
    // 18 s keying of a New-Order.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(25),
        "{:?}\n{text}",
        started.elapsed()
    );
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        text.contains("Vuser 2 time profile:") && text.contains("Vuser 3 time profile:"),
        "{text}"
    );
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    // Six terminals keying for at least 2 s each: a handful of transactions, not thousands.
    let (r, _) = f.console(
        "let x = lastrun(); x.new_order.committed + x.payment.committed + x.delivery.committed + x.stock_level.committed + x.order_status.committed",
    );
    let n: i64 = r.unwrap().parse().unwrap();
    assert!(
        n < 60,
        "keying and thinking should hold terminals back: {n} transactions"
    );
    f.ok("vudestroy; deleteschema()");
}

#[test]
fn asynchronous_clients_share_the_pool_of_connections_they_are_given() {
    let (mut f, unique) = configured("pg", "pool");
    build(&mut f);
    let servers = Servers::get();
    let sessions = || {
        servers.pg_i64(
            "postgres",
            &format!("SELECT sessions FROM pg_stat_database WHERE datname = '{unique}'"),
        )
    };
    f.ok(
        "diset tpcc pg_driver test; diset tpcc pg_total_iterations 15; \
         diset tpcc pg_async_scale true; diset tpcc pg_async_client 4; diset tpcc pg_async_delay 0; \
         vuset vu 2; vuset delay 0",
    );
    // Each run: 2 virtual users of 4 terminals, 15 transactions each, on `pool` connections
    // per virtual user (0: one per terminal); the other sessions (schema checks) are the same.
    let mut run = |pool: u32| {
        f.ok(&format!("diset tpcc pg_async_pool {pool}"));
        let before = sessions();
        let (r, lines) = f.console("vurun()");
        let text = lines.join("\n");
        assert!(r.is_ok(), "pool {pool}: {r:?}\n{text}");
        assert!(!text.contains("FINISHED FAILED"), "pool {pool}:\n{text}");
        let (r, _) = f.console(
            "let x = lastrun(); x.new_order.committed + x.new_order.rolled_back + x.payment.committed + x.delivery.committed + x.stock_level.committed + x.order_status.committed",
        );
        f.ok("vudestroy");
        let done: i64 = r.unwrap().parse().unwrap();
        assert_eq!(
            done,
            2 * 4 * 15,
            "pool {pool}: every terminal ran its iterations"
        );
        sessions() - before
    };
    let own = run(0);
    let shared = run(1);
    assert_eq!(
        own - shared,
        2 * (4 - 1),
        "sessions: {own} own, {shared} shared"
    );
    f.ok("deleteschema()");
}

#[test]
fn raiseerror_decides_whether_a_failed_transaction_stops_its_virtual_user() {
    let (mut f, unique) = configured("pg", "raise");
    build(&mut f);
    // Every Payment now fails with an error that is neither a retry nor a lost connection.
    Servers::get().pg_exec(
        &unique,
        "CREATE FUNCTION hammer_test_refuse() RETURNS trigger LANGUAGE plpgsql AS \
         $$BEGIN RAISE EXCEPTION 'hammer test: history refused'; END$$; \
         CREATE TRIGGER hammer_test_refuse BEFORE INSERT ON history \
         FOR EACH ROW EXECUTE FUNCTION hammer_test_refuse();",
    );
    f.ok("diset tpcc pg_driver test; diset tpcc pg_total_iterations 60; vuset vu 1; vuset delay 0");
    let failed_payments = |f: &mut Fixture| -> i64 {
        let (r, _) = f.console("lastrun().payment.failed");
        r.unwrap().parse().unwrap()
    };

    // raiseerror false: counted, shown a few times, and the virtual user goes on.
    f.ok("diset tpcc pg_raiseerror false");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(
        text.contains("payment failed:") && text.contains("history refused"),
        "{text}"
    );
    assert!(text.contains("Vuser 1:FINISHED SUCCESS"), "{text}");
    let (r, _) = f.console(
        "let x = lastrun(); x.new_order.committed + x.new_order.rolled_back + x.payment.failed + x.delivery.committed + x.stock_level.committed + x.order_status.committed",
    );
    assert_eq!(r, Ok("60".to_string()), "all 60 iterations ran:\n{text}");
    assert!(failed_payments(&mut f) > 10, "{text}");
    f.ok("vudestroy");

    // raiseerror true: the first failure stops the virtual user with that error.
    f.ok("diset tpcc pg_raiseerror true");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    // A failed virtual user fails the job, and vurun raises it.
    let e = r.unwrap_err();
    assert!(
        e.starts_with("Benchmark Run jobid=") && e.ends_with(" FAILED: 1 virtual user failed"),
        "{e}\n{text}"
    );
    assert!(text.contains("Vuser 1:FINISHED FAILED"), "{text}");
    assert!(
        text.contains("Error in Virtual User 1:") && text.contains("history refused"),
        "{text}"
    );
    assert_eq!(failed_payments(&mut f), 1, "{text}");
    f.ok("vudestroy; deleteschema()");
}

/// Runs 60 test-driver iterations on one virtual user, where every other attempt to insert
/// a HISTORY row (so every Payment's first attempt) fails with a serialization failure:
/// each is retried, counted, and the Payment commits.
fn retried_payments(f: &mut Fixture, db: &str) {
    f.ok(&format!(
        "diset tpcc {db}_driver test; diset tpcc {db}_total_iterations 60; vuset vu 1; vuset delay 0; vuset showoutput 0"
    ));
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(text.contains("Vuser 1:FINISHED SUCCESS"), "{text}");
    let (r, _) = f.console(
        "let x = lastrun(); [x.payment.committed, x.payment.retried, x.payment.failed, x.transactions]",
    );
    let v: Vec<i64> = r
        .unwrap()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    let (committed, retried, failed, all) = (v[0], v[1], v[2], v[3]);
    assert!(committed > 10, "{db}: {v:?}\n{text}");
    assert_eq!(
        retried, committed,
        "{db}: one retry per Payment: {v:?}\n{text}"
    );
    assert_eq!((failed, all), (0, 60), "{db}: {v:?}\n{text}");
    f.ok("vudestroy; deleteschema()");
}

#[test]
fn a_serialization_failure_is_retried_and_counted_on_postgres() {
    let (mut f, unique) = configured("pg", "retry");
    build(&mut f);
    Servers::get().pg_exec(
        &unique,
        "CREATE SEQUENCE hammer_test_attempts; GRANT USAGE ON SEQUENCE hammer_test_attempts TO PUBLIC; \
         CREATE FUNCTION hammer_test_flaky() RETURNS trigger LANGUAGE plpgsql AS \
         $$BEGIN IF nextval('hammer_test_attempts') % 2 = 1 THEN \
           RAISE EXCEPTION 'hammer test: try again' USING ERRCODE = 'serialization_failure'; \
         END IF; RETURN NEW; END$$; \
         CREATE TRIGGER hammer_test_flaky BEFORE INSERT ON history \
         FOR EACH ROW EXECUTE FUNCTION hammer_test_flaky();",
    );
    retried_payments(&mut f, "pg");
}

#[test]
fn a_serialization_failure_is_retried_and_counted_on_mariadb() {
    let (mut f, unique) = configured("maria", "retry");
    build(&mut f);
    // The attempt counter is MyISAM, so a rolled-back attempt still counts.
    Servers::get().maria_exec(
        &unique,
        &[
            "CREATE TABLE hammer_test_attempts (n INT NOT NULL) ENGINE = MyISAM",
            "INSERT INTO hammer_test_attempts VALUES (0)",
            "CREATE TRIGGER hammer_test_flaky BEFORE INSERT ON history FOR EACH ROW BEGIN \
               UPDATE hammer_test_attempts SET n = n + 1; \
               IF (SELECT n FROM hammer_test_attempts) % 2 = 1 THEN \
                 SIGNAL SQLSTATE '40001' SET MESSAGE_TEXT = 'hammer test: try again'; \
               END IF; \
             END",
        ],
    );
    retried_payments(&mut f, "maria");
}
