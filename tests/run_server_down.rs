//! A timed run whose server goes away and stays away longer than the terminals keep
//! reconnecting: the run ends with a clear summary instead of hanging, and the virtual user
//! that gave up finishes FAILED. Alone in its test binary: it stops the shared PostgreSQL.

mod common;

use common::{Fixture, Servers};

#[test]
fn a_server_that_stays_down_ends_the_run_with_a_summary() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_rundown_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}"
    ));
    f.ok("diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    // Terminals give up after 2 s; the server stays down for 12 s of a 1-minute run.
    std::env::set_var("HAMMER_RECONNECT_SECS", "2");
    f.ok("diset tpcc pg_rampup 0; diset tpcc pg_duration 1; vuset vu 2; vuset delay 0");
    let stopper = common::stop_pg_for(std::time::Duration::from_secs(4), 12);
    let started = std::time::Instant::now();
    let (r, lines) = f.console("vurun()");
    let took = started.elapsed();
    stopper.join().unwrap();
    std::env::remove_var("HAMMER_RECONNECT_SECS");
    let text = lines.join("\n");
    // The run failed, and vurun says so: the reason and the job.
    let e = r.unwrap_err();
    assert!(
        e.contains(" FAILED: the server did not come back within 2 s"),
        "{e}\n{text}"
    );
    assert!(
        took < std::time::Duration::from_secs(40),
        "the run should end soon after the terminals give up, not run its minute: {took:?}\n{text}"
    );
    assert!(
        text.contains("The run ended early: the server did not come back within 2 s"),
        "{text}"
    );
    assert!(text.contains("FINISHED FAILED"), "{text}");
    assert!(
        text.contains("cannot take the end transaction count"),
        "{text}"
    );
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    // No result is made up from a server that was not there to count.
    assert!(!text.contains("TEST RESULT"), "{text}");
    // The job history keeps the run as FAILED, with why.
    let id = e
        .strip_prefix("Benchmark Run jobid=")
        .and_then(|rest| rest.get(..24))
        .unwrap_or_else(|| panic!("{e}"));
    let (status, _) = f.console(&format!("jobs(\"{id}\", \"status\").status"));
    assert_eq!(status, Ok("FAILED".to_string()), "{text}");
    let (r, lines) = f.console("vudestroy(); checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("deleteschema()");
}
