//! Every numeric key's range, held at each command that sets it and at the load of a saved
//! settings file, and the values at the ranges' ends carried through loadscript and vucreate.

mod common;

use common::{hammer, text, Fixture};
use hammer::commands::{DGSET_OPTIONS, METSET_OPTIONS, TCSET_OPTIONS, VUSET_OPTIONS};
use hammer::config::{Database, Kind, Settings, Target};

const EXTREMES: [&str; 6] = ["9223372036854775807", "-1", "1e300", "NaN", "", "inf"];

/// The numeric keys of a dictionary, with their section and range's ends.
fn numeric(target: Target) -> Vec<(&'static str, String, String, String)> {
    let s = Settings::defaults();
    s.dict(target)
        .specs()
        .iter()
        .filter_map(|k| {
            let (lo, hi) = match k.kind {
                Kind::Int { min, max } | Kind::ZeroOr { min, max } => {
                    (min.to_string(), max.to_string())
                }
                Kind::Minutes { min, max } => {
                    // The smallest duration a user would type: 0.01 minutes.
                    (
                        if min > 0.0 { 0.01 } else { min }.to_string(),
                        max.to_string(),
                    )
                }
                _ => return None,
            };
            Some((k.section, k.key.clone(), lo, hi))
        })
        .collect()
}

/// `cmd` refuses `value` naming the key (or the option's key) and the value.
fn refused(f: &mut Fixture, cmd: &str, key: &str, value: &str) {
    let e = f.err(&format!("{cmd} {{{value}}}"));
    assert!(
        e.contains(&format!("Value {value} for ")) && e.contains(&format!(":{key} is not valid")),
        "{cmd} {value}: {e}"
    );
}

#[test]
fn every_numeric_key_refuses_extremes_at_every_command_that_sets_it() {
    let mut f = Fixture::new();
    for db in Database::ALL {
        f.ok(&format!("dbset db {}", db.prefix()));
        for (section, key, _, _) in numeric(Target::Db(db)) {
            for bad in EXTREMES {
                refused(&mut f, &format!("diset {section} {key}"), &key, bad);
            }
        }
    }
    for (section, key, _, _) in numeric(Target::Generic) {
        for bad in EXTREMES {
            refused(&mut f, &format!("giset {section} {key}"), &key, bad);
        }
    }
    // The option words that set the same keys.
    let options = VUSET_OPTIONS
        .iter()
        .map(|(o, k)| ("vuset", *o, *k))
        .chain(TCSET_OPTIONS.iter().map(|(o, k, _)| ("tcset", *o, *k)))
        .chain(METSET_OPTIONS.iter().map(|(o, k, _)| ("metset", *o, *k)))
        .chain(DGSET_OPTIONS.iter().map(|(o, k)| ("dgset", *o, *k)));
    let generic: Vec<String> = numeric(Target::Generic).into_iter().map(|n| n.1).collect();
    let mut through_options = 0;
    for (cmd, option, key) in options.filter(|(_, _, k)| generic.iter().any(|g| g == k)) {
        for bad in EXTREMES {
            refused(&mut f, &format!("{cmd} {option}"), key, bad);
        }
        through_options += 1;
    }
    assert!(through_options >= 7, "{through_options}");
    // The example of the issue, word for word where it matters.
    let e = f.err("dbset db pg; diset tpcc pg_duration 9223372036854775807");
    assert!(
        e.contains("Value 9223372036854775807 for tpcc:pg_duration is not valid: it is out of range, must be a number of minutes greater than 0 and at most 525600"),
        "{e}"
    );
}

#[test]
fn every_numeric_key_at_its_ends_loads_and_creates_virtual_users() {
    let mut f = Fixture::new();
    for db in Database::ALL {
        f.ok(&format!("dbset db {}", db.prefix()));
        let keys = numeric(Target::Db(db));
        let generic = numeric(Target::Generic);
        for end in [2, 3] {
            for (section, key, lo, hi) in &keys {
                let v = if end == 2 { lo } else { hi };
                f.ok(&format!("diset {section} {key} {v}"));
            }
            for (section, key, lo, hi) in &generic {
                // A hundred thousand virtual users are valid, and slow to print here.
                let v = match (end, key.as_str()) {
                    (3, "virtual_users") => "4",
                    (2, _) => lo,
                    _ => hi,
                };
                f.ok(&format!("giset {section} {key} {v}"));
            }
            for bm in ["TPC-C", "TPC-H"] {
                f.ok(&format!("dbset bm {bm}"));
                f.ok("loadscript");
                let script = f.ok("print script").join("\n");
                assert!(script.contains("driver") || bm == "TPC-H", "{script}");
                f.ok("vucreate");
                f.ok("vudestroy");
            }
        }
        f.ok(&format!(
            "dbset bm TPC-C; diset tpcc {}_driver timed",
            db.prefix()
        ));
        f.ok("loadscript");
        let script = f.ok("print script").join("\n");
        assert!(
            script.contains("rampup 525600 min, duration 525600 min"),
            "{script}"
        );
    }
}

#[test]
fn a_saved_value_out_of_range_warns_once_and_the_default_runs() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"version":"0.1.0",
            "pg":{"pg_duration":"9223372036854775807","pg_rampup":"1e300","pg_count_ware":"3"},
            "generic":{"rdbms":"PostgreSQL","bm":"TPC-C","iterations":"99999999999"}}"#,
    )
    .unwrap();
    let script = home.path().join("load.rhai");
    std::fs::write(
        &script,
        "loadscript();\nprint(\"script\");\nvucreate();\nvudestroy();\n",
    )
    .unwrap();
    let out = hammer(home.path(), &["auto", script.to_str().unwrap()], "");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .collect();
    assert_eq!(warnings.len(), 3, "{stderr}");
    let about = |key: &str| warnings.iter().filter(|w| w.contains(key)).count();
    assert_eq!(about("tpcc:pg_duration"), 1, "{stderr}");
    assert_eq!(about("tpcc:pg_rampup"), 1, "{stderr}");
    assert_eq!(about("virtual_user_options:iterations"), 1, "{stderr}");
    assert!(
        stderr.contains(
            "value 9223372036854775807 of tpcc:pg_duration is not valid: it is out of range"
        ) && stderr.contains("using the default 5"),
        "{stderr}"
    );
    // The defaults run; the valid key beside them was kept.
    assert!(
        stdout.contains("Script loaded") && stdout.contains("rampup 2 min, duration 5 min"),
        "{stdout}"
    );
    assert!(stdout.contains("vudestroy success"), "{stdout}");
    let dict = hammer(home.path(), &[], "print dict\n");
    assert!(
        text(&dict.stdout).contains(" pg_count_ware       = 3"),
        "{}",
        text(&dict.stdout)
    );
}
