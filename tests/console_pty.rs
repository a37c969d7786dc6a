//! The console on a pseudo-terminal, as a person uses it: prompt, Tab completion, Ctrl-C,
//! continued lines, errors that keep it running, Ctrl-D, and history kept between sessions.

mod common;

use std::process::Command;

use rexpect::session::{spawn_command, PtySession};

/// Types like a person: after the prompt has settled (keys sent all at once are tested on
/// their own, in `pasted_lines_all_run_in_order`).
fn type_(p: &mut PtySession, keys: &str) {
    std::thread::sleep(std::time::Duration::from_millis(150));
    p.send(keys).unwrap();
    p.flush().unwrap();
}

fn console(home: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.env("HAMMER_HOME", home).env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(10_000)).expect("hammer starts on a pty");
    p.exp_string("Type \"help\" for a list of commands")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    p
}

/// Whether the hammer started with `HAMMER_HOME=home` has a handler for SIGINT (`SigCgt`).
fn catches_sigint(home: &std::path::Path) -> bool {
    let wanted = format!("HAMMER_HOME={}", home.display()).into_bytes();
    let pid = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .find(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == wanted.as_slice()))
        })
        .expect("the console's process is in /proc");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let mask = status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .map(|m| u64::from_str_radix(m.trim(), 16).unwrap())
        .unwrap();
    // SIGINT is signal 2: bit 1 of the mask.
    mask & (1 << 1) != 0
}

#[test]
fn console_on_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());

    type_(&mut p, concat!("dbset db maria", "\r"));
    p.exp_string("Database set to MariaDB").unwrap();

    // Tab completes the current database's key.
    type_(&mut p, "diset tpcc maria_count_w");
    type_(&mut p, "\t");
    type_(&mut p, concat!(" 6", "\r"));
    p.exp_string("Changed tpcc:maria_count_ware from 1 to 6 for MariaDB")
        .unwrap();

    // Tab completes the candidates' common prefix, a second Tab lists them all, and the
    // values of an enumerated key complete too.
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "diset tpcc maria_dri\t");
    type_(&mut p, " t\t\t");
    p.exp_regex("test +timed").unwrap();
    type_(&mut p, concat!("est", "\r"));
    p.exp_string("Changed tpcc:maria_driver from timed to test for MariaDB")
        .unwrap();

    // Ctrl-C throws the typed line away; the console stays.
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "garbage that is never run");
    p.exp_string("never run").unwrap();
    type_(&mut p, "\x03");
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, concat!("print(\"after ctrl-c\")", "\r"));
    let before = p.exp_string("after ctrl-c\r\n").unwrap();
    assert!(!before.contains("Unknown command garbage"), "{before}");

    // An open brace continues on the next line, under its own prompt.
    type_(&mut p, concat!("for i in 0..2 {", "\r"));
    p.exp_string("   ...> ").unwrap();
    type_(&mut p, concat!("print(`n${i}`)", "\r"));
    p.exp_string("   ...> ").unwrap();
    type_(&mut p, concat!("}", "\r"));
    p.exp_string("n1").unwrap();

    // An error prints and the console keeps running.
    type_(&mut p, concat!("diset tpcc maria_nokey 1", "\r"));
    p.exp_string("exists but key \"maria_nokey\" doesn't")
        .unwrap();
    type_(&mut p, concat!("print bm", "\r"));
    p.exp_string("Benchmark set to TPC-C").unwrap();

    // Ctrl-D leaves.
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "\x04");
    p.exp_eof().unwrap();

    let history = std::fs::read_to_string(home.path().join("history.txt")).unwrap();
    assert!(history.contains("dbset db maria"), "{history}");
    assert!(!history.contains("garbage"), "{history}");

    // The next session has the history (Up recalls the last line) and the settings.
    let mut p = console(home.path());
    type_(&mut p, "\x1b[A"); // Up
    type_(&mut p, concat!("", "\r"));
    p.exp_string("Benchmark set to TPC-C").unwrap();
    type_(&mut p, concat!("quit", "\r"));
    p.exp_eof().unwrap();
}

/// Ctrl-C while a command waits on a silent server stops the command, not the console.
#[test]
fn ctrl_c_stops_a_running_command() {
    // A listener that completes TCP handshakes but never answers: a hung server.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());
    type_(&mut p, &format!("diset connection pg_port {port}\r"));
    p.exp_string("Changed connection:pg_port").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "librarycheck\r");
    std::thread::sleep(std::time::Duration::from_millis(800));
    // While a command runs, SIGINT is hammer's to handle: the default action (death) must
    // not be back after rustyline, which swaps its own handler in for each prompt.
    assert!(
        catches_sigint(home.path()),
        "SIGINT is not caught while a command runs"
    );
    type_(&mut p, "\x03");
    p.exp_string("Interrupted by Ctrl-C").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "print bm\r");
    p.exp_string("Benchmark set to TPC-C").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

/// Ctrl-C during buildschema stops the loaders, says what was loaded and how to clean up,
/// and the console goes on.
#[test]
fn ctrl_c_stops_a_build_cleanly() {
    let servers = {
        let s = common::Servers::get();
        s.require();
        (s.pg_host, s.pg_port, s.pg_user, s.pg_pass)
    };
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());
    let name = format!("hammer_ctrlc_{}", std::process::id());
    type_(
        &mut p,
        &format!(
            "diset connection pg_host {}; diset connection pg_port {}; diset tpcc pg_superuser {}; \
             diset tpcc pg_superuserpass {}; diset tpcc pg_dbase {name}; diset tpcc pg_user {name}; \
             diset tpcc pg_count_ware 4; diset tpcc pg_num_vu 2\r",
            servers.0, servers.1, servers.2, servers.3
        ),
    );
    p.exp_string("Changed tpcc:pg_num_vu from 1 to 2").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "buildschema\r");
    p.exp_string("Loading Stock Wid=").unwrap();
    type_(&mut p, "\x03");
    p.exp_string("interrupted by Ctrl-C").unwrap();
    p.exp_string("remove it with deleteschema").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "deleteschema\r");
    p.exp_string("has been deleted successfully").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

/// The transaction counter's lines appear above the prompt while a command is being typed,
/// the console stays usable, and Ctrl-C ends a runtimer wait without ending the counter.
#[test]
fn counter_lines_appear_while_the_prompt_is_live() {
    let s = common::Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());
    type_(
        &mut p,
        &format!(
            "diset connection pg_host {}; diset connection pg_port {}; diset tpcc pg_superuser {}; \
             diset tpcc pg_superuserpass {}; tcset refreshrate 1\r",
            s.pg_host, s.pg_port, s.pg_user, s.pg_pass
        ),
    );
    p.exp_string("Transaction Counter refresh rate set to 1")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "tcstart\r");
    p.exp_string("Transaction Counter Started").unwrap();
    p.exp_regex(r"\d+ PostgreSQL tpm").unwrap();
    // Half a command typed; a counter line arrives; the half survives and runs when finished.
    type_(&mut p, "print");
    p.exp_regex(r"\d+ PostgreSQL tpm").unwrap();
    // Between two counter lines the prompt is drawn again with what was typed.
    let (between, _) = p.exp_regex(r"\d+ PostgreSQL tpm").unwrap();
    assert!(between.contains("hammer> print"), "{between:?}");
    type_(&mut p, " bm\r");
    p.exp_string("Benchmark set to TPC-C").unwrap();
    type_(&mut p, "tcstatus\r");
    p.exp_string("Transaction Counter thread running with threadid:")
        .unwrap();
    // runtimer blocks the console, not the counter; Ctrl-C ends the wait.
    type_(&mut p, "runtimer 600\r");
    p.exp_regex(r"\d+ PostgreSQL tpm").unwrap();
    p.exp_regex(r"\d+ PostgreSQL tpm").unwrap();
    type_(&mut p, "\x03");
    p.exp_string("runtimer: Ctrl-C ended the wait after")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "tcstop\r");
    p.exp_string("Stopping Transaction Counter").unwrap();
    p.exp_regex(
        r"Transaction Counter: \d+ samples over [0-9.]+ s: min \d+ avg \d+ max \d+ PostgreSQL tpm",
    )
    .unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

/// The history keeps no password: set in the bare form, in the Rhai form, through a variable
/// assigned on an earlier line, or held by a variable named for one; a history written
/// before masking is cleaned when the console reads it; a recalled masked line does not
/// make the mask the password.
#[test]
fn history_keeps_no_password() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("history.txt");
    std::fs::write(&file, "dbset db pg\ndiset tpcc pg_superuserpass Old1pw\n").unwrap();
    let mut p = console(home.path());
    let cleaned = std::fs::read_to_string(&file).unwrap();
    assert!(!cleaned.contains("Old1pw"), "{cleaned}");
    assert!(
        cleaned.contains("diset tpcc pg_superuserpass ********"),
        "{cleaned}"
    );

    type_(&mut p, "diset tpcc pg_pass Bare2pw\r");
    p.exp_string("Changed tpcc:pg_pass for PostgreSQL").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(
        &mut p,
        "diset(\"tpcc\", \"pg_superuserpass\", \"Rhai3pw\")\r",
    );
    p.exp_string("Changed tpcc:pg_superuserpass for PostgreSQL")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "let p = \"Var4pw\";\r");
    p.exp_string("hammer> ").unwrap();
    type_(
        &mut p,
        "dbset db maria; diset(\"tpcc\", \"maria_pass\", p)\r",
    );
    p.exp_string("Changed tpcc:maria_pass for MariaDB").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "let admin_password = \"Named5pw\";\r");
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "print(\"still here\")\r");
    p.exp_string("still here").unwrap();
    p.exp_string("hammer> ").unwrap();

    let history = std::fs::read_to_string(&file).unwrap();
    for pw in ["Old1pw", "Bare2pw", "Rhai3pw", "Var4pw", "Named5pw"] {
        assert!(!history.contains(pw), "{pw} in history:\n{history}");
    }
    for kept in [
        "diset tpcc pg_pass ********",
        r#"diset("tpcc", "pg_superuserpass", "********")"#,
        r#"let p = "********";"#,
        r#"diset("tpcc", "maria_pass", p)"#,
        r#"let admin_password = "********";"#,
        r#"print("still here")"#,
    ] {
        assert!(history.contains(kept), "no {kept:?} in history:\n{history}");
    }

    // Recalled and run again, the masked line is refused: the password stays what it was.
    type_(&mut p, "dbset db pg\r");
    p.exp_string("hammer> ").unwrap();
    for _ in 0..7 {
        type_(&mut p, "\x1b[A"); // Up, back to `diset tpcc pg_pass ********`
    }
    type_(&mut p, "\r");
    p.exp_string("is how hammer shows a password").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

/// Several lines pasted at once all run, in order: a bracketed paste (one text, accepted
/// with Enter) and lines sent faster than the console reads them (a terminal without
/// bracketed paste) alike; `clear` clears the screen.
#[test]
fn pasted_lines_all_run_in_order() {
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());

    // A bracketed paste whose last line is continued over several lines.
    type_(
        &mut p,
        concat!(
            "\x1b[200~",
            "dbset db maria\r",
            "diset tpcc maria_count_ware 3\r",
            "print(\"pasted one\")\r",
            "for i in 0..2 {\r",
            "print(`pasted loop ${i}`)\r",
            "}\r",
            "\x1b[201~",
        ),
    );
    type_(&mut p, "\r");
    p.exp_string("Database set to MariaDB").unwrap();
    p.exp_string("Changed tpcc:maria_count_ware from 1 to 3 for MariaDB")
        .unwrap();
    p.exp_string("pasted one").unwrap();
    p.exp_string("pasted loop 0").unwrap();
    p.exp_string("pasted loop 1").unwrap();
    p.exp_string("hammer> ").unwrap();

    // Unbracketed: every key in one write, as a terminal without bracketed paste sends them.
    type_(
        &mut p,
        "diset tpcc maria_count_ware 4\rprint(\"fast two\")\rdiset tpcc maria_count_ware 5\r",
    );
    p.exp_string("Changed tpcc:maria_count_ware from 3 to 4 for MariaDB")
        .unwrap();
    p.exp_string("fast two").unwrap();
    p.exp_string("Changed tpcc:maria_count_ware from 4 to 5 for MariaDB")
        .unwrap();
    p.exp_string("hammer> ").unwrap();

    // Every pasted input is its own history entry.
    let history = std::fs::read_to_string(home.path().join("history.txt")).unwrap();
    assert!(
        history.contains("diset tpcc maria_count_ware 3")
            && history.contains("print(\"pasted one\")"),
        "{history}"
    );

    // `clear` clears the screen (ED 2, then the cursor home) and the console goes on.
    type_(&mut p, "clear\r");
    p.exp_string("\x1b[2J").unwrap();
    type_(&mut p, "print bm\r");
    p.exp_string("Benchmark set to TPC-C").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}

/// Ctrl-C during a pasted line stops it and the rest of the paste, and says how many lines
/// were not run.
#[test]
fn ctrl_c_stops_the_rest_of_a_paste() {
    // A listener that completes TCP handshakes but never answers: a hung server.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let home = tempfile::tempdir().unwrap();
    let mut p = console(home.path());
    type_(&mut p, &format!("diset connection pg_port {port}\r"));
    p.exp_string("Changed connection:pg_port").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(
        &mut p,
        "\x1b[200~librarycheck\rprint(\"never pasted\")\rprint bm\r\x1b[201~",
    );
    type_(&mut p, "\r");
    std::thread::sleep(std::time::Duration::from_millis(800));
    type_(&mut p, "\x03");
    p.exp_string("Interrupted by Ctrl-C").unwrap();
    let before = p.exp_string("Stopped: 2 pasted lines not run").unwrap();
    assert!(!before.contains("never pasted\r\n"), "{before}");
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "print(\"after the paste\")\r");
    let between = p.exp_string("after the paste\r\n").unwrap();
    assert!(!between.contains("never pasted\r\n"), "{between}");
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();
}
