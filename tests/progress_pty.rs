//! A build's progress on a terminal: a block redrawn in place (erased by moving up over it),
//! the summary after it, and the console's prompt back at the end.

mod common;

use std::process::Command;

use rexpect::session::{spawn_command, PtySession};

fn type_(p: &mut PtySession, keys: &str) {
    std::thread::sleep(std::time::Duration::from_millis(150));
    p.send(keys).unwrap();
    p.flush().unwrap();
}

#[test]
fn a_build_on_a_terminal_redraws_its_progress_in_place() {
    let s = common::Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.env("HAMMER_HOME", home.path()).env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(60_000)).expect("hammer starts on a pty");
    p.exp_string("hammer> ").unwrap();
    let name = format!("hammer_progress_pty_{}", std::process::id());
    type_(
        &mut p,
        &format!(
            "diset connection pg_host {}; diset connection pg_port {}; diset tpcc pg_superuser {}; \
             diset tpcc pg_superuserpass {}; diset tpcc pg_dbase {name}; diset tpcc pg_user {name}; \
             diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1\r",
            s.pg_host, s.pg_port, s.pg_user, s.pg_pass
        ),
    );
    p.exp_string("Changed tpcc:pg_user").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "buildschema\r");
    // The block: item, warehouse 1 and the total, each with rows, rate and ETA ...
    p.exp_regex(r"Loading all: \d+ of ~\d+ rows \(\d+%\), [0-9.kM]+ rows/s, ETA")
        .unwrap();
    // ... erased in place (up over its lines, each cleared) before it is drawn again.
    p.exp_string("\x1b[1A\x1b[2K").unwrap();
    p.exp_regex(r"Loading all: \d+ rows in [0-9.]+ s, [0-9.kM]+ rows/s, done")
        .unwrap();
    p.exp_string("TPROC-C schema built: 1 warehouses").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "deleteschema\r");
    p.exp_string("has been deleted successfully").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

#[test]
fn a_run_on_a_terminal_redraws_its_live_panel_and_ctrl_c_still_stops_it() {
    let s = common::Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.env("HAMMER_HOME", home.path()).env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(90_000)).expect("hammer starts on a pty");
    p.exp_string("hammer> ").unwrap();
    let name = format!("hammer_live_pty_{}", std::process::id());
    type_(
        &mut p,
        &format!(
            "diset connection pg_host {}; diset connection pg_port {}; diset tpcc pg_superuser {}; \
             diset tpcc pg_superuserpass {}; diset tpcc pg_dbase {name}; diset tpcc pg_user {name}; \
             diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1\r",
            s.pg_host, s.pg_port, s.pg_user, s.pg_pass
        ),
    );
    p.exp_string("Changed tpcc:pg_user").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "buildschema\r");
    p.exp_string("TPROC-C schema built: 1 warehouses").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(
        &mut p,
        "diset tpcc pg_driver timed; diset tpcc pg_rampup 0; diset tpcc pg_duration 5; \
         vuset vu 2; vuset refreshrate 1\r",
    );
    p.exp_string("Changed virtual_user_options:refresh_rate")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "vurun\r");
    // The panel: where the run is, the database's rates with their sparklines, a row per
    // transaction type ... (the pty's bytes are read one char each: the box-drawing and
    // sparkline characters are matched by their UTF-8 bytes' count, not by themselves).
    p.exp_regex(r"[0-9.]+ s, measured, \d+:\d\d left .{6} errors \d+")
        .unwrap();
    p.exp_regex(r"NOPM +\d+ +(\u{e2}\u{96}.)+").unwrap();
    p.exp_regex(r"new order +[0-9.]+ +[0-9.]+").unwrap();
    // ... erased in place (up over its lines, each cleared) and drawn again.
    p.exp_string("\x1b[1A\x1b[2K").unwrap();
    p.exp_regex(r"[0-9.]+ s, measured, \d+:\d\d left").unwrap();
    // Ctrl-C stops the five-minute run with what it measured, and the prompt comes back.
    type_(&mut p, "\x03");
    p.exp_string("TEST RESULT : System achieved").unwrap();
    p.exp_string("stopped before the end of the duration")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "vudestroy\r");
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "deleteschema\r");
    p.exp_string("has been deleted successfully").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}
