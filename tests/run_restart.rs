//! Timed runs whose server restarts in the middle of the measured window, or of rampup: the
//! terminals and the monitor reconnect with backoff, the run goes on, and the losses are
//! counted. Alone in its test binary, like build_restart.

mod common;

use common::{Fixture, Servers};

#[test]
fn a_run_survives_a_server_restart() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_runrestart_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}"
    ));
    f.ok("diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("diset tpcc pg_rampup 0; diset tpcc pg_duration 0.3; vuset vu 2; vuset delay 0");
    let restarter = common::restart_pg_after(std::time::Duration::from_secs(6));
    let (r, lines) = f.console("vurun()");
    restarter.join().unwrap();
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(
        text.contains("reconnecting") && text.contains("reconnected"),
        "{text}"
    );
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    let (r, _) = f.console("lastrun().reconnects");
    let reconnects: i64 = r.unwrap().parse().unwrap();
    assert!(
        reconnects >= 2,
        "each virtual user reconnects: {reconnects}"
    );
    f.ok("vudestroy");

    // The server down from 7 s to about 11 s, over the end of a 9 s rampup: the monitor
    // reconnects for its start reading as the terminals do, and the run has a result.
    f.ok("diset tpcc pg_rampup 0.15; diset tpcc pg_duration 0.1");
    let restarter = common::stop_pg_for(std::time::Duration::from_secs(7), 4);
    let (r, lines) = f.console("vurun()");
    restarter.join().unwrap();
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{text}");

    let (r, lines) = f.console("vudestroy(); checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("deleteschema()");
}
