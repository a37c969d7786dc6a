//! Performance profiles on the real servers: timed TPROC-C runs recorded under `jobs profileid
//! N` (with a step the script names), listed by `jobs profile N` with their NOPM, TPM and
//! virtual users, set side by side by `jobs profile A B` with ratios computed from what was
//! recorded, as text, JSON and an HTML chart. Builds and other jobs get no profile.

mod common;

use std::process::Command;

use common::{text, Servers};

/// The test's own schema, dropped whatever the test did.
struct Own(&'static str, String);

impl Drop for Own {
    fn drop(&mut self) {
        let servers = Servers::get();
        let n = &self.1;
        if self.0 == "pg" {
            servers.pg_exec(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {n} WITH (FORCE)"),
            );
            servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {n}"));
        } else {
            servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {n}")]);
        }
    }
}

fn auto(home: &std::path::Path, script: &str) -> (bool, String) {
    let file = home.join("script.rhai");
    std::fs::write(&file, script).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&file)
        .env("HAMMER_HOME", home)
        .output()
        .expect("hammer runs");
    (
        out.status.success(),
        format!("{}{}", text(&out.stdout), text(&out.stderr)),
    )
}

fn profiles_on(db: &'static str) {
    let servers = Servers::get();
    servers.require();
    let own = Own(db, format!("prof_tpcc_{db}_{}", std::process::id()));
    let home = tempfile::tempdir().unwrap();
    let name = &own.1;
    let user = if db == "pg" {
        format!(
            "diset(\"tpcc\", \"pg_user\", \"{name}\"); diset(\"tpcc\", \"pg_pass\", \"{name}\");"
        )
    } else {
        String::new()
    };
    let setup = format!(
        "{}\ndbset(\"db\", \"{db}\"); dbset(\"bm\", \"TPC-C\");\n\
         diset(\"tpcc\", \"{db}_dbase\", \"{name}\"); {user}\n\
         diset(\"tpcc\", \"{db}_count_ware\", 1); diset(\"tpcc\", \"{db}_num_vu\", 1);\n\
         diset(\"tpcc\", \"{db}_driver\", \"timed\"); diset(\"tpcc\", \"{db}_rampup\", 0);\n\
         diset(\"tpcc\", \"{db}_duration\", 0.05); diset(\"tpcc\", \"{db}_allwarehouse\", \"false\");\n",
        servers.configure()
    );
    let (ok, out) = auto(home.path(), &format!("{setup}buildschema();\n"));
    assert!(ok, "{db} build:\n{out}");

    // Profile 2 at 1 and 2 virtual users; profile 3 the same, each run with a named step.
    let (ok, out) = auto(
        home.path(),
        &format!(
            "{setup}\
             jobs(\"profileid\", 2);\n\
             for vu in [1, 2] {{ vuset(\"vu\", vu); vurun(); vudestroy(); }}\n\
             jobs(\"profileid\", 3);\n\
             for vu in [1, 2] {{ jobs(\"profilestep\", `${{vu}} VU`); vuset(\"vu\", vu); vurun(); vudestroy(); }}\n\
             jobs(\"profileid\", 0);\n\
             checkschema();\n\
             jobs(\"profileid\");\n"
        ),
    );
    assert!(ok, "{db} runs:\n{out}");
    assert!(out.contains("Setting performance profile id to 2"), "{out}");
    assert!(out.contains("Performance profile id set to 0"), "{out}");

    // The profiles, as a script reads them (JSON) and as a person does (text).
    let report = home.path().join("profiles.html");
    let (ok, out) = auto(
        home.path(),
        &format!(
            "jobs(\"format\", \"json\");\n\
             let all = jobs(\"profileid\", \"all\");\n\
             print(`IDS ${{all}}`);\n\
             let two = jobs(\"profile\", 2);\n\
             print(`RUNS ${{two.len()}}`);\n\
             for r in two {{ print(`RUN ${{r.active_vus}} ${{r.nopm}} ${{r.tpm}} ${{r.status}}`); }}\n\
             let side = jobs(\"profile\", 2, 3, \"report\", \"{}\");\n\
             for s in side.steps {{ print(`SIDE ${{s.step}}|${{s.nopm[0]}}|${{s.nopm[1]}}|${{s.ratio[1]}}`); }}\n\
             jobs(\"format\", \"text\");\n\
             jobs(\"profile\", 3);\n\
             jobs(\"diff\", 2, 3);\n",
            report.display()
        ),
    );
    assert!(ok, "{db} profiles:\n{out}");
    assert!(out.contains("IDS [2, 3]"), "{out}");
    assert!(out.contains("RUNS 2"), "{out}");
    let runs: Vec<Vec<&str>> = out
        .lines()
        .filter_map(|l| l.strip_prefix("RUN "))
        .map(|l| l.split(' ').collect())
        .collect();
    assert_eq!(runs.len(), 2, "{out}");
    assert_eq!(runs[0][0], "1", "{out}");
    assert_eq!(runs[1][0], "2", "{out}");
    for r in &runs {
        let nopm: f64 = r[1].parse().expect("NOPM");
        let tpm: f64 = r[2].parse().expect("TPM");
        assert!(nopm > 0.0 && tpm >= nopm, "{out}");
        assert_eq!(r[3], "SUCCESS");
    }
    // Side by side: one row per step, profile 2's NOPM the same as its own listing, and the
    // ratio the recorded NOPM's.
    let side: Vec<Vec<&str>> = out
        .lines()
        .filter_map(|l| l.strip_prefix("SIDE "))
        .map(|l| l.split('|').collect())
        .collect();
    assert_eq!(side.len(), 2, "{out}");
    for (row, run) in side.iter().zip(&runs) {
        assert_eq!(row[0], format!("{} VU", run[0]), "{out}");
        assert_eq!(row[1], run[1], "{out}");
        let (a, b, ratio): (f64, f64, f64) = (
            row[1].parse().unwrap(),
            row[2].parse().unwrap(),
            row[3].parse().unwrap(),
        );
        assert!((ratio - b / a).abs() < 1e-9, "{row:?}");
    }
    assert!(out.contains("Performance profile 3: 2 runs"), "{out}");
    assert!(out.contains("NOPM 2") && out.contains("3/2"), "{out}");
    let page = std::fs::read_to_string(&report).expect("the chart is written");
    assert!(
        page.contains("<svg") && page.contains("profile 3"),
        "{page}"
    );

    let (ok, out) = auto(
        home.path(),
        &format!("{setup}deleteschema();\njobs(\"profile\", 9);\n"),
    );
    assert!(
        ok && out.contains("No jobs found for performance profile 9"),
        "{out}"
    );
}

#[test]
fn performance_profiles_on_postgresql() {
    profiles_on("pg");
}

#[test]
fn performance_profiles_on_mariadb() {
    profiles_on("maria");
}

#[test]
fn bad_profile_commands_say_what_is_valid() {
    let home = tempfile::tempdir().unwrap();
    for (script, expected) in [
        (
            "jobs(\"profileid\", \"x\");",
            "jobs profileid takes a whole number",
        ),
        (
            "jobs(\"profile\");",
            "jobs profile takes a performance profile id",
        ),
        ("jobs(\"profile\", \"abc\");", "not abc"),
    ] {
        let (ok, out) = auto(home.path(), script);
        assert!(!ok && out.contains(expected), "{script}: {out}");
    }
}
