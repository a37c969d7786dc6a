//! The newcomer's demo (scripts/demo.rhai, as scripts/demo.sh runs it) on the real test
//! servers, its run shortened: it prints PostgreSQL's dictionary as the run uses it, and its
//! result line says whether the server's figure is a durable one.

mod common;

use common::{text, Servers};

#[test]
fn demo_prints_the_dictionary_it_ran_and_says_fsync() {
    let servers = Servers::get();
    servers.require();
    // The demo's own database name, made unique to this test.
    let database = "hammer_demotest";
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/demo.rhai"))
        .args(["0.05", "0", database])
        .env("HAMMER_HOME", home.path())
        .output()
        .expect("hammer runs");
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let fsync_off = servers.pg_i64(
        "postgres",
        "select (current_setting('fsync') = 'off')::int::int8",
    );
    servers.pg_exec("postgres", &format!("DROP DATABASE IF EXISTS {database}"));
    servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {database}"));
    assert!(out.status.success(), "{all}");

    let dict = all
        .find("Dictionary Settings for PostgreSQL")
        .unwrap_or_else(|| panic!("the demo prints PostgreSQL's dictionary:\n{all}"));
    let result = all.find("TEST RESULT").expect("a timed run's result");
    assert!(dict < result, "the dictionary comes before the run:\n{all}");
    let shown = &all[dict..result];
    for (key, value) in [
        ("pg_dbase", database),
        ("pg_duration", "0.05"),
        ("pg_driver", "timed"),
        ("pg_superuserpass", "********"),
    ] {
        assert!(
            shown
                .lines()
                .any(|l| l.trim_start().starts_with(key) && l.trim_end().ends_with(value)),
            "{key} = {value} in the dictionary the demo printed:\n{shown}"
        );
    }

    let last = all
        .lines()
        .rev()
        .find(|l| l.starts_with("hammer demo: "))
        .unwrap_or_else(|| panic!("the demo's result line:\n{all}"));
    assert!(
        last.contains(" NOPM, ") && last.contains(" PostgreSQL TPM "),
        "{last}"
    );
    let said = if fsync_off == 1 {
        "fsync off on this server, so not a durable figure"
    } else {
        "fsync on on this server"
    };
    assert!(
        last.ends_with(said) || last.contains(&format!("{said} ")),
        "{last}"
    );
}
