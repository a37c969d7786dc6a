//! Every key and command of HammerDB 6's CLI is understood by `hammer auto`: a key or command
//! that has no effect here is checked, answered with one warning line, and the script goes on;
//! a value out of range is still an error that stops the script at its line. No server needed.

mod common;

use std::path::Path;
use std::process::Command;

use hammer::config::keys::{database_keys, generic_keys, unused_key};
use hammer::database::Database;

/// HammerDB 6's generic dictionary, section and key (its `generic.xml`).
const HAMMERDB_GENERIC: &[(&str, &str)] = &[
    ("theme", "scaletheme"),
    ("theme", "pixelsperpoint"),
    ("sqlitedb", "sqlitedb_dir"),
    ("code_highlight", "highlight"),
    ("code_highlight", "quote_passwords"),
    ("benchmark", "rdbms"),
    ("benchmark", "bm"),
    ("benchmark", "first_result"),
    ("virtual_user_options", "virtual_users"),
    ("virtual_user_options", "user_delay"),
    ("virtual_user_options", "repeat_delay"),
    ("virtual_user_options", "iterations"),
    ("virtual_user_options", "show_output"),
    ("virtual_user_options", "log_to_temp"),
    ("virtual_user_options", "unique_log_name"),
    ("virtual_user_options", "no_log_buffer"),
    ("virtual_user_options", "log_timestamps"),
    ("autopilot", "apmode"),
    ("autopilot", "autopilot_duration"),
    ("autopilot", "autopilot_sequence"),
    ("mode", "hostname"),
    ("mode", "id"),
    ("transaction_counter", "tc_refresh_rate"),
    ("transaction_counter", "tc_log_to_temp"),
    ("transaction_counter", "tc_unique_log_name"),
    ("transaction_counter", "tc_log_timestamps"),
    ("transaction_counter", "tc_graph_ribbon"),
    ("metrics", "agent_hostname"),
    ("metrics", "agent_id"),
    ("datageneration", "gen_count_ware"),
    ("datageneration", "gen_scale_fact"),
    ("datageneration", "gen_num_vu"),
    ("datageneration", "gen_directory"),
    ("commandline", "sqlite_db"),
    ("commandline", "keepalive_margin"),
    ("commandline", "jobsoutput"),
    ("commandline", "jobs_disable"),
    ("commandline", "jobs_profile_id"),
    ("webservice", "ws_port"),
    ("tpcoss", "submit_url"),
    ("timeprofile", "profiler"),
    ("timeprofile", "xt_unique_log_name"),
    ("timeprofile", "xt_gather_timeout"),
    ("timeprofile", "xt_job_storage"),
    ("timeprofile", "xt_reservoir"),
    ("hdb_version", "version"),
];

/// HammerDB 6's keys for engines hammer does not drive, which its dictionaries still hold.
const HAMMERDB_OTHER_ENGINES: &[(&str, &str)] = &[
    ("tpch", "pg_tpch_tspace"),
    ("tpch", "pg_tpch_gpcompat"),
    ("tpch", "pg_tpch_gpcompress"),
    ("tpch", "pg_cloud_query"),
    ("tpch", "pg_rs_compat"),
    ("tpch", "maria_cloud_query"),
    ("tpch", "mysql_cloud_query"),
    ("tpch", "mysql_tpch_obcompat"),
    ("tpch", "mysql_ob_tenant_name"),
    ("tpch", "mysql_ob_partition_num"),
    ("connection", "mysql_oceanbase_port"),
];

/// HammerDB's commands that do nothing in hammer.
const NO_EFFECT_COMMANDS: &[&str] = &[
    "waittocomplete",
    "custommonitor",
    "wsport",
    "wsstart",
    "wsstatus",
    "wsstop",
    "ci",
    "cifix",
    "cilisten",
    "cipush",
    "cireset",
    "ciset",
    "cistatus",
    "cistop",
    "pipe",
    "pipes",
];

fn auto(home: &Path, script: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(script)
        .env("HAMMER_HOME", home)
        .env("TMP", home)
        .output()
        .expect("hammer runs");
    (
        out.status.code(),
        common::text(&out.stdout),
        common::text(&out.stderr),
    )
}

fn quoted(v: &str) -> String {
    format!("{v:?}")
}

#[test]
fn every_hammerdb_key_exists_where_hammerdb_has_it() {
    let generic = generic_keys();
    for (section, key) in HAMMERDB_GENERIC {
        assert!(
            generic
                .iter()
                .any(|k| k.section == *section && k.key == *key),
            "generic {section}:{key} is missing"
        );
    }
    for (section, key) in HAMMERDB_OTHER_ENGINES {
        let db = Database::from_prefix(key.split('_').next().unwrap()).unwrap();
        assert!(
            database_keys(db)
                .iter()
                .any(|k| k.section == *section && k.key == *key),
            "{key} is missing from {}'s {section} dictionary",
            db.name()
        );
        assert!(
            unused_key(key).is_some(),
            "{key} says nothing of its effect"
        );
    }
}

/// A script sets every key of every dictionary (generic, PostgreSQL, MariaDB, MySQL) to its
/// default and calls every no-effect command: it finishes with exit 0, and each no-effect key
/// and command warns in exactly one line.
#[test]
fn a_script_setting_every_key_and_calling_every_command_finishes_with_one_warning_each() {
    let home = tempfile::tempdir().unwrap();
    let mut script = String::new();
    let mut warnings = Vec::new();
    for k in generic_keys() {
        script.push_str(&format!(
            "giset({}, {}, {});\n",
            quoted(k.section),
            quoted(&k.key),
            quoted(&k.default)
        ));
        if unused_key(&k.key).is_some() {
            warnings.push(format!(
                "Warning: {}:{} has no effect in hammer: ",
                k.section, k.key
            ));
        }
    }
    for db in [Database::Pg, Database::Maria, Database::Mysql] {
        script.push_str(&format!("dbset(\"db\", {});\n", quoted(db.prefix())));
        for k in database_keys(db) {
            script.push_str(&format!(
                "diset({}, {}, {});\n",
                quoted(k.section),
                quoted(&k.key),
                quoted(&k.default)
            ));
            if unused_key(&k.key).is_some() {
                warnings.push(format!(
                    "Warning: {}:{} has no effect in hammer: ",
                    k.section, k.key
                ));
            }
        }
    }
    for c in NO_EFFECT_COMMANDS {
        script.push_str(&format!("{c}();\n"));
        warnings.push(format!("Warning: {c} has no effect in hammer: "));
    }
    script.push_str("print(\"SCRIPT FINISHED\");\n");
    let file = home.path().join("every_key.rhai");
    std::fs::write(&file, &script).unwrap();
    let (code, stdout, stderr) = auto(home.path(), &file);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("SCRIPT FINISHED"), "{stdout}");
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Warning: "))
        .collect();
    for w in &warnings {
        assert_eq!(
            warned.iter().filter(|l| l.starts_with(w.as_str())).count(),
            1,
            "{w:?} not warned exactly once in\n{stderr}"
        );
    }
    assert_eq!(warned.len(), warnings.len(), "{stderr}");
    // The values were kept: print generic shows them.
    let file = home.path().join("show.rhai");
    std::fs::write(&file, "print(\"generic\");\n").unwrap();
    let (code, stdout, _) = auto(home.path(), &file);
    assert_eq!(code, Some(0));
    for section in ["timeprofile", "webservice", "autopilot", "tpcoss"] {
        assert!(
            stdout.contains(section),
            "print generic lacks {section}:\n{stdout}"
        );
    }
}

/// A no-effect key's value is still checked: out of range stops the script at its line.
#[test]
fn a_no_effect_key_out_of_range_is_still_an_error() {
    let home = tempfile::tempdir().unwrap();
    for (line, why) in [
        (
            "giset(\"timeprofile\", \"xt_reservoir\", 5);",
            "must be 0 or an integer from 10000 to 1000000",
        ),
        (
            "giset(\"webservice\", \"ws_port\", 70000);",
            "from 1 to 65535",
        ),
        ("giset(\"autopilot\", \"apmode\", \"maybe\");", "disabled"),
    ] {
        let file = home.path().join("bad.rhai");
        std::fs::write(
            &file,
            format!("print(\"first\");\n{line}\nprint(\"never\");\n"),
        )
        .unwrap();
        let (code, stdout, stderr) = auto(home.path(), &file);
        assert_ne!(code, Some(0), "{line}: {stdout}{stderr}");
        assert!(
            stderr.contains("bad.rhai:2:") && stderr.contains(why),
            "{line}: {stderr}"
        );
        assert!(!stdout.contains("never"), "{stdout}");
    }
}

/// HammerDB's own lines in a Tcl script run through: warnings, then the rest of the script.
#[test]
fn a_tcl_script_with_hammerdb_only_settings_finishes() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("profile_settings.tcl");
    std::fs::write(
        &file,
        "giset commandline keepalive_margin 1200\n\
         giset timeprofile xt_gather_timeout 1200\n\
         diset tpcc pg_timeprofile true\n\
         waittocomplete\n\
         puts \"SETTINGS DONE\"\n",
    )
    .unwrap();
    let (code, stdout, stderr) = auto(home.path(), &file);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("SETTINGS DONE"), "{stdout}");
    for w in [
        "Warning: commandline:keepalive_margin has no effect in hammer: ",
        "Warning: timeprofile:xt_gather_timeout has no effect in hammer: ",
        "Warning: waittocomplete has no effect in hammer: ",
    ] {
        assert!(stderr.contains(w), "no {w:?} in\n{stderr}");
    }
}

/// `savescript NAME` writes the loaded workload as a hammer script in the temporary directory
/// (passwords left out); run by itself, it loads the same workload again. Without a loaded
/// script it is HammerDB's error. `citmp` shows the temporary directory and the jobs database.
#[test]
fn savescript_writes_a_script_that_loads_the_same_workload_and_citmp_shows_where_files_go() {
    let home = tempfile::tempdir().unwrap();
    let first = home.path().join("first.rhai");
    std::fs::write(
        &first,
        "dbset(\"db\", \"maria\");\n\
         diset(\"tpcc\", \"maria_count_ware\", 3);\n\
         diset(\"tpcc\", \"maria_pass\", \"s3cret-word\");\n\
         diset(\"connection\", \"maria_port\", 3310);\n\
         vuset(\"vu\", 5);\n\
         vuset(\"delay\", 20);\n\
         loadscript();\n\
         let path = savescript(\"saved.tcl\");\n\
         print(`RETURNED ${path}`);\n\
         let where = citmp();\n\
         print(`JOBS AT ${where.jobs}`);\n",
    )
    .unwrap();
    let (code, stdout, stderr) = auto(home.path(), &first);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let saved = home.path().join("saved.rhai");
    let shown = saved.display().to_string();
    for line in [
        format!("Success ... wrote script to {shown}"),
        format!("RETURNED {shown}"),
        format!("TMP directory: {}", home.path().display()),
        format!("Jobs database: {}", home.path().join("jobs.db").display()),
        format!("JOBS AT {}", home.path().join("jobs.db").display()),
    ] {
        assert!(stdout.contains(&line), "no {line:?} in\n{stdout}");
    }
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(!text.contains("s3cret-word"), "{text}");
    assert!(text.contains("maria_pass"), "the password is named: {text}");

    // The saved script, run in a fresh home, loads the same workload: print script agrees.
    let again = tempfile::tempdir().unwrap();
    let check = again.path().join("check.rhai");
    std::fs::write(
        &check,
        format!("{text}print(\"vuconf\");\nprint(\"dict\");\n"),
    )
    .unwrap();
    let (code, stdout, stderr) = auto(again.path(), &check);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    for line in [
        "Database set to MariaDB",
        "Changed tpcc:maria_count_ware from 1 to 3 for MariaDB",
        "Changed connection:maria_port from 3306 to 3310 for MariaDB",
        "Changed virtual_user_options:virtual_users from 1 to 5 for generic",
        "Changed virtual_user_options:user_delay from 500 to 20 for generic",
        "Script loaded",
    ] {
        assert!(stdout.contains(line), "no {line:?} in\n{stdout}");
    }

    // Nothing loaded: HammerDB's error, at the script's line, exit 1.
    let none = home.path().join("none.rhai");
    std::fs::write(&none, "print(\"before\");\nsavescript(\"x\");\n").unwrap();
    let (code, _, stderr) = auto(home.path(), &none);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(":2:")
            && stderr.contains("Error: No script loaded to save, use loadscript to load"),
        "{stderr}"
    );
    assert!(!home.path().join("x.rhai").exists());
}
