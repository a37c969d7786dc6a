//! HammerDB's Primary and Replica modes against the CI's servers: a Primary and two Replica
//! processes linked through the jobs database share one timed TPROC-C run and print one
//! merged result, the Replicas running what the Primary sends (passwords withheld); steprun
//! starts its Replicas itself and each measures its own step inside the Primary's window;
//! and the commands refuse what HammerDB refuses, in its words.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::Servers;

/// A hammer process whose output lines arrive on a channel as it prints them.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

fn start(home: &Path, dir: &Path, script: &str, name: &str) -> Running {
    let path = dir.join(format!("{name}.rhai"));
    std::fs::write(&path, script).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", path.to_str().unwrap()])
        .env("HAMMER_HOME", home)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer starts");
    let (tx, rx) = mpsc::channel();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    Running {
        child,
        lines: rx,
        seen: Vec::new(),
    }
}

impl Running {
    /// Waits (at most `within`) for a line containing `what`, and gives it.
    fn wait_for(&mut self, what: &str, within: Duration) -> String {
        let until = Instant::now() + within;
        if let Some(l) = self.seen.iter().find(|l| l.contains(what)) {
            return l.clone();
        }
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if l.contains(what) {
                        return l;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = self.child.kill();
        panic!(
            "no line with {what:?} within {within:?}:\n{}",
            self.seen.join("\n")
        );
    }

    /// Waits for the process to end (at most `within`): whether it succeeded, and all it said.
    fn finish(mut self, within: Duration) -> (bool, String) {
        let until = Instant::now() + within;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break Some(s);
            }
            if Instant::now() >= until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        // The readers end with the process's pipes.
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.seen.push(l);
        }
        let text = self.seen.join("\n");
        match status {
            Some(s) => (s.success(), text),
            None => panic!("hammer did not end within {within:?}:\n{text}"),
        }
    }
}

/// `N` of `TEST RESULT (k drivers) : System achieved N NOPM from ...`.
fn merged_nopm(out: &str, drivers: usize) -> String {
    let head = format!("TEST RESULT ({drivers} drivers) : System achieved ");
    out.lines()
        .find_map(|l| l.split_once(&head).map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| panic!("no merged result line in:\n{out}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn build(home: &Path, s: &Servers, db: &str, settings: &str) {
    let script = home.join("build.rhai");
    std::fs::write(
        &script,
        format!(
            "{}\ndbset(\"db\", \"{db}\");\ndbset(\"bm\", \"TPROC-C\");\n{settings}\n\
             diset(\"tpcc\", \"{db}_count_ware\", 2);\ndiset(\"tpcc\", \"{db}_num_vu\", 2);\n\
             let ok = false; try {{ checkschema(); ok = true; }} catch {{}}\n\
             if !ok {{ try {{ deleteschema(); }} catch {{}} buildschema(); }}\n",
            s.configure()
        ),
    )
    .unwrap();
    let out = common::hammer(home, &["auto", script.to_str().unwrap()], "");
    let text = common::text(&out.stdout) + common::text(&out.stderr).as_str();
    assert!(out.status.success(), "the build failed:\n{text}");
}

const PG_DB: &str = "hammer_modes_pg";
const PG_PASS: &str = "modes_pw_7311";

fn pg_settings() -> String {
    format!(
        "diset(\"tpcc\", \"pg_user\", \"{PG_DB}\");\ndiset(\"tpcc\", \"pg_dbase\", \"{PG_DB}\");\n\
         diset(\"tpcc\", \"pg_pass\", \"{PG_PASS}\");"
    )
}

/// A Primary and two Replicas on one machine (one data directory, so one jobs database):
/// the Replicas run the settings the Primary sends, the password withheld, and all three
/// print the same merged result of one shared run.
#[test]
fn a_primary_and_two_replicas_share_one_run() {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    build(home.path(), &s, "pg", &pg_settings());
    let mut primary = start(
        home.path(),
        dir.path(),
        &format!(
            "dbset(\"db\", \"pg\");\ndbset(\"bm\", \"TPROC-C\");\nswitchmode(\"primary\");\n\
             runtimer(8);\n\
             diset(\"tpcc\", \"pg_pass\", \"{PG_PASS}\");\n\
             diset(\"tpcc\", \"pg_driver\", \"timed\");\n\
             diset(\"tpcc\", \"pg_rampup\", 0.1);\ndiset(\"tpcc\", \"pg_duration\", 0.25);\n\
             vuset(\"vu\", 2);\nlet id = vurun();\nswitchmode(\"local\");\n"
        ),
        "primary",
    );
    let line = primary.wait_for("Primary Mode active at id : ", Duration::from_secs(30));
    let id: u32 = line
        .split("id : ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no id in {line:?}"));
    let replica_script = format!("switchmode(\"replica\", {id}, \"localhost\");\n");
    let replicas: Vec<Running> = (1..=2)
        .map(|n| {
            start(
                home.path(),
                dir.path(),
                &replica_script,
                &format!("replica{n}"),
            )
        })
        .collect();
    let (ok, out) = primary.finish(Duration::from_secs(180));
    assert!(ok, "the primary failed:\n{out}");
    assert!(out.contains(&format!("share run primary-{id}-1-")), "{out}");
    assert!(out.contains("3 of 3 measured the common window"), "{out}");
    let nopm = merged_nopm(&out, 3);
    assert!(nopm.parse::<u64>().unwrap() > 0, "{out}");
    assert!(out.contains("Closing Primary"), "{out}");
    for (n, r) in replicas.into_iter().enumerate() {
        let (ok, text) = r.finish(Duration::from_secs(60));
        assert!(ok, "replica {} failed:\n{text}", n + 1);
        assert!(
            text.contains("Replica connecting to ") && text.contains("Connection succeeded"),
            "{text}"
        );
        assert!(
            text.contains("Primary sent: diset tpcc pg_rampup 0.1"),
            "the Primary's settings reach the Replica:\n{text}"
        );
        assert!(
            text.contains("pg_pass not set here: passwords do not travel"),
            "{text}"
        );
        assert!(
            !text.contains(PG_PASS),
            "the password shows on a Replica:\n{text}"
        );
        assert_eq!(merged_nopm(&text, 3), nopm, "one result for all:\n{text}");
        assert!(text.contains("Primary has closed down"), "{text}");
    }
    // What went through the jobs database: the commands, never the password.
    let jobs = rusqlite::Connection::open(home.path().join("jobs.db")).unwrap();
    let args: Vec<String> = jobs
        .prepare("SELECT args || COALESCE(extra, '') FROM mode_command WHERE id = ?1")
        .unwrap()
        .query_map([id], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(args.iter().any(|a| a.contains("pg_rampup")), "{args:?}");
    assert!(args.iter().all(|a| !a.contains(PG_PASS)), "{args:?}");
    let runs: i64 = jobs
        .query_row(
            "SELECT COUNT(*) FROM jobs WHERE kind = 'run' AND mode LIKE ?1",
            [format!("%primary-{id}-1-%")],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(runs, 3, "each process recorded its part as a job");
}

/// A Replica with a data directory of its own (as on another machine) finds its Primary
/// through the shared PostgreSQL jobs store, keeps its own password, and shares the run.
#[test]
fn a_replica_elsewhere_follows_through_the_shared_postgresql_store() {
    let s = Servers::get();
    s.require();
    let pid = std::process::id();
    let store = format!("hammer_modes_store_{pid}");
    s.pg_exec(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {store} WITH (FORCE)"),
    );
    s.pg_exec("postgres", &format!("CREATE DATABASE {store}"));
    let url = format!(
        "postgresql://{}:{}@{}:{}/{store}",
        s.pg_user, s.pg_pass, s.pg_host, s.pg_port
    );
    let db = "hammer_modes_pg2";
    let settings = format!(
        "giset(\"commandline\", \"jobs_store\", \"{url}\");\n{}\ndbset(\"db\", \"pg\");\n\
         diset(\"tpcc\", \"pg_user\", \"{db}\");\ndiset(\"tpcc\", \"pg_dbase\", \"{db}\");\n\
         diset(\"tpcc\", \"pg_pass\", \"{PG_PASS}\");",
        s.configure()
    );
    let (a, b, dir) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    build(a.path(), &s, "pg", &settings);
    let mut primary = start(
        a.path(),
        dir.path(),
        &format!(
            "{settings}\nswitchmode(\"primary\");\nruntimer(6);\n\
             diset(\"tpcc\", \"pg_driver\", \"timed\");\n\
             diset(\"tpcc\", \"pg_rampup\", 0);\ndiset(\"tpcc\", \"pg_duration\", 0.15);\n\
             vuset(\"vu\", 1);\nvurun();\n"
        ),
        "primary",
    );
    let line = primary.wait_for("Primary Mode active at id : ", Duration::from_secs(30));
    let id = line
        .split("id : ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .trim();
    let host = line.rsplit("hostname : ").next().unwrap().trim();
    let replica = start(
        b.path(),
        dir.path(),
        &format!("{settings}\nswitchmode(\"replica\", {id}, \"{host}\");\n"),
        "replica",
    );
    let (ok, out) = primary.finish(Duration::from_secs(120));
    assert!(ok, "the primary failed:\n{out}");
    let (ok, text) = replica.finish(Duration::from_secs(60));
    assert!(ok, "the replica failed:\n{text}");
    assert!(text.contains("Connection succeeded"), "{text}");
    assert_eq!(merged_nopm(&text, 2), merged_nopm(&out, 2), "{text}");
    // The Primary's script ended without switchmode local: its session closed as it quit.
    assert!(text.contains("Primary has closed down"), "{text}");
    s.pg_exec(
        "postgres",
        &format!("DROP DATABASE IF EXISTS {store} WITH (FORCE)"),
    );
}

const MARIA_DB: &str = "hammer_modes_step";

/// steprun with HammerDB's steps file: it starts a Replica per step, each measures its own
/// window inside the Primary's, and the Primary's result covers the whole window.
#[test]
fn steprun_starts_its_replicas_and_each_measures_its_step() {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let settings = format!("diset(\"tpcc\", \"maria_dbase\", \"{MARIA_DB}\");");
    build(home.path(), &s, "maria", &settings);
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    let step = |n: u32, after: f64, duration: f64| {
        format!(
            "<replica{n}><start_after_prev>{after}</start_after_prev><duration>{duration}\
             </duration><virtual_users>1</virtual_users></replica{n}>"
        )
    };
    std::fs::write(
        dir.path().join("config/steps.xml"),
        format!(
            "<steps>{}{}</steps>",
            step(1, 0.05, 0.1),
            step(2, 0.05, 0.1)
        ),
    )
    .unwrap();
    let primary = start(
        home.path(),
        dir.path(),
        &format!(
            "dbset(\"db\", \"maria\");\ndbset(\"bm\", \"TPROC-C\");\n{settings}\n\
             diset(\"tpcc\", \"maria_driver\", \"timed\");\n\
             diset(\"tpcc\", \"maria_rampup\", 0.1);\ndiset(\"tpcc\", \"maria_duration\", 0.35);\n\
             vuset(\"vu\", 2);\nsteprun();\n"
        ),
        "primary",
    );
    let (ok, out) = primary.finish(Duration::from_secs(240));
    assert!(ok, "steprun failed:\n{out}");
    for want in [
        "Steps from config/steps.xml",
        "primary starts immediately, runs rampup for 0.1 minutes then runs test for 0.35 \
         minutes with 2 Active VU",
        "replica1 starts 0.05 minutes after rampup completes and runs test for 0.1 minutes \
         with 1 Active VU",
        "Primary Received all replica connections",
        "3 of 3 measured the common window",
        "Step workload complete",
    ] {
        assert!(out.contains(want), "no {want:?} in:\n{out}");
    }
    merged_nopm(&out, 3);
    // Each step measured its own window: from its start for its duration (6 s), inside the
    // run's (21 s from +6 s).
    for (driver, from) in [(2, 9.0), (3, 12.0)] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("Driver {driver} on ")) && l.contains("is a step"))
            .unwrap_or_else(|| panic!("no step line for driver {driver}:\n{out}"));
        let secs: Vec<f64> = line
            .split('+')
            .skip(1)
            .filter_map(|p| p.split(" s").next()?.parse().ok())
            .collect();
        assert_eq!(secs.len(), 2, "{line}");
        // Counted from the window's opening (+6 s after the start).
        assert!((secs[0] - (from - 6.0)).abs() < 1.5, "{line}");
        assert!((secs[1] - secs[0] - 6.0).abs() < 1.5, "{line}");
    }
}

/// What HammerDB refuses, refused in its words, without servers' help.
#[test]
fn the_modes_refuse_what_hammerdb_refuses() {
    let home = tempfile::tempdir().unwrap();
    let run = |script: &str| {
        let path = home.path().join("s.rhai");
        std::fs::write(&path, script).unwrap();
        let out = common::hammer(home.path(), &["auto", path.to_str().unwrap()], "");
        (
            out.status.success(),
            common::text(&out.stdout) + common::text(&out.stderr).as_str(),
        )
    };
    let (ok, out) = run("switchmode();\nswitchmode(\"local\");\n");
    assert!(ok, "{out}");
    assert!(out.contains("Mode currently set to Local"), "{out}");
    assert!(out.contains("Already in Local mode"), "{out}");
    let (ok, out) = run("switchmode(\"boss\");\n");
    assert!(!ok);
    assert!(
        out.contains("Error:Mode to switch to must be one of Local, Primary or Replica"),
        "{out}"
    );
    let (ok, out) = run("distributescript();\n");
    assert!(!ok);
    assert!(
        out.contains("Error: Cannot distribute script if not in Primary mode"),
        "{out}"
    );
    let (ok, out) = run("switchmode(\"primary\");\ndistributescript();\n");
    assert!(!ok);
    assert!(out.contains("Primary Mode active at id : "), "{out}");
    assert!(
        out.contains("Error: Primary has no Replicas to distribute to"),
        "{out}"
    );
    let (ok, out) = run("switchmode(\"replica\", 9, \"localhost\");\n");
    assert!(!ok);
    assert!(
        out.contains("Error: no Primary with id 9 in the jobs database"),
        "{out}"
    );
    let (ok, out) = run("dbset(\"bm\", \"TPROC-H\");\nsteprun();\n");
    assert!(!ok);
    assert!(
        out.contains("Error: Step Workload does not support TPROC-H"),
        "{out}"
    );
    std::fs::write(
        home.path().join("steps.xml"),
        "<steps><replica1><start_after_prev>5</start_after_prev><duration>9</duration>\
         <virtual_users>2</virtual_users></replica1></steps>",
    )
    .unwrap();
    let (ok, out) = run(
        "dbset(\"db\", \"pg\");\ndbset(\"bm\", \"TPROC-C\");\ndiset(\"tpcc\", \"pg_driver\", \"timed\");\n\
         diset(\"tpcc\", \"pg_rampup\", 2);\ndiset(\"tpcc\", \"pg_duration\", 5);\nsteprun();\n",
    );
    assert!(!ok);
    assert!(
        out.contains(
            "Error: replica1 is set to complete after 16 minutes and is longer than the Primary \
             running time of 7 minutes"
        ),
        "{out}"
    );
    assert!(
        !out.contains("Primary Mode active"),
        "nothing started:\n{out}"
    );
}
