//! Ctrl-C as a user presses it (SIGINT to a `hammer auto` child), on the real servers: a
//! stopped timed run says each virtual user stopped and its job id once; a stopped TPROC-H
//! power test prints what it completed as partial and no whole-run figure; Ctrl-C in a
//! build's keys and indexes leaves a whole schema and a job that says so; Ctrl-C in TPROC-H's
//! checkschema leaves no query running on the server.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{hammer, text, tproch_built, Fixture, Servers, TprochDb};

/// `hammer auto` of `source` (written into `home`), its output read as it comes: `act` is
/// called with the child's pid at the first line containing `at` (or at once when `at` is
/// empty). Returns exit status, stdout, stderr.
fn auto_acting(
    home: &Path,
    source: &str,
    at: &str,
    act: impl FnOnce(u32),
) -> (Option<i32>, String, String) {
    let path = home.join("stopped.rhai");
    std::fs::write(&path, source).unwrap();
    let mut child: Child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&path)
        .env("HAMMER_HOME", home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer runs");
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut act = Some(act);
    let pid = child.id();
    let mut stdout = String::new();
    if at.is_empty() {
        act.take().unwrap()(pid);
    }
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let Ok(line) = line else { break };
        stdout.push_str(&line);
        stdout.push('\n');
        if !at.is_empty() && line.contains(at) {
            if let Some(act) = act.take() {
                act(pid);
            }
        }
    }
    let status = child.wait().unwrap();
    assert!(act.is_none(), "never saw {at:?}:\n{stdout}");
    (status.code(), stdout, stderr.join().unwrap())
}

/// Ctrl-C as the terminal sends it.
fn sigint(pid: u32) {
    let sent = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

fn json(out: &std::process::Output) -> serde_json::Value {
    let stdout = text(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{}", text(&out.stderr)))
}

/// The newest job in `home`.
fn last_job(home: &Path) -> serde_json::Value {
    let list = json(&hammer(home, &["jobs", "--json", "list"], ""));
    list[0].clone()
}

/// A one-warehouse TPROC-C schema of the test's own on PostgreSQL, built in-process with
/// its settings saved in the fixture's home (which `hammer auto` there reads), and dropped
/// with the guard.
fn tpcc_built(tag: &str) -> (Fixture, TprochDb) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let name = format!("hammer_stopped_{tag}_{}", std::process::id());
    let guard = TprochDb {
        db: "pg",
        name: name.clone(),
    };
    f.ok(&format!(
        "dbset db pg; dbset bm TPC-C; diset tpcc pg_dbase {name}; diset tpcc pg_user {name}"
    ));
    f.ok("diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1; vuset refreshrate 0");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    (f, guard)
}

/// A timed run stopped in its window: every virtual user, the monitor too, says it stopped
/// (none that it succeeded), and the job id is printed once, in the verdict.
#[test]
fn a_stopped_timed_run_says_each_virtual_user_stopped_and_its_job_id_once() {
    let (f, _schema) = tpcc_built("run");
    let script = "dbset(\"db\", \"pg\");\ndbset(\"bm\", \"TPC-C\");\n\
                  diset(\"tpcc\", \"pg_driver\", \"timed\");\ndiset(\"tpcc\", \"pg_rampup\", 0);\n\
                  diset(\"tpcc\", \"pg_duration\", 1);\nvuset(\"vu\", 2);\nvuset(\"delay\", 0);\n\
                  vurun();\nprint(\"not reached\");\n";
    let (code, stdout, stderr) = auto_acting(f.home.path(), script, "Timing test period", |pid| {
        std::thread::sleep(Duration::from_secs(2));
        sigint(pid);
    });
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(!stdout.contains("not reached"), "{stdout}");
    for vu in 1..=3 {
        let line = format!("Vuser {vu}:FINISHED STOPPED");
        assert!(stdout.lines().any(|l| l == line), "{line} in\n{stdout}");
    }
    assert!(!stdout.contains("FINISHED SUCCESS"), "{stdout}");
    let both = format!("{stdout}{stderr}");
    assert_eq!(both.matches("jobid=").count(), 1, "{both}");
    let job = last_job(f.home.path());
    let id = job["id"].as_str().expect("an id");
    assert!(
        stderr.contains(&format!(
            "Benchmark Run jobid={id} STOPPED: stopped before the end of the duration"
        )),
        "{stderr}"
    );
    assert_eq!(job["status"], "STOPPED", "{job}");
}

/// Holds `table` of database `name` locked from a session of its own until dropped.
struct Holder {
    release: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Holder {
    fn drop(&mut self) {
        drop(self.release.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock_table(db: &'static str, name: &str, table: &'static str) -> Holder {
    let (release, wait) = std::sync::mpsc::channel::<()>();
    let (locked, is_locked) = std::sync::mpsc::channel::<()>();
    let servers = Servers::get();
    let name = name.to_string();
    let thread = std::thread::spawn(move || {
        if db == "pg" {
            let (rt, conn) = servers.pg(&name);
            let lock = format!("BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE");
            rt.block_on(async { conn.client.batch_execute(&lock).await.expect("lock") });
            let _ = locked.send(());
            let _ = wait.recv();
            rt.block_on(async {
                let _ = conn.client.batch_execute("ROLLBACK").await;
            });
        } else {
            use mysql_async::prelude::Queryable;
            let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(&name));
            let lock = format!("LOCK TABLES {table} WRITE");
            rt.block_on(async { conn.query_drop(lock).await.expect("lock") });
            let _ = locked.send(());
            let _ = wait.recv();
            rt.block_on(async {
                let _ = conn.query_drop("UNLOCK TABLES").await;
                let _ = conn.disconnect().await;
            });
        }
    });
    is_locked
        .recv_timeout(Duration::from_secs(30))
        .expect("the table locked");
    Holder {
        release: Some(release),
        thread: Some(thread),
    }
}

/// How many queries on database `name` naming `table` run on the server, the lock holder's
/// own left out.
fn running_on(db: &str, name: &str, table: &str) -> i64 {
    let servers = Servers::get();
    if db == "pg" {
        servers.pg_i64(
            "postgres",
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}' \
                 AND state = 'active' AND query ILIKE '%{table}%' AND query NOT ILIKE '%LOCK TABLE%'"
            ),
        )
    } else {
        servers.maria_i64(
            "mysql",
            &format!(
                "SELECT count(*) FROM information_schema.processlist WHERE db = '{name}' \
                 AND command = 'Query' AND info LIKE '%{table}%' AND info NOT LIKE '%LOCK TABLES%'"
            ),
        )
    }
}

/// Waits until a query naming `table` runs (waits on the lock) on database `name`.
fn until_waiting(db: &str, name: &str, table: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while running_on(db, name, table) == 0 {
        assert!(Instant::now() < deadline, "no query on {table} came");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A power test stopped at its seventh query (18, the first to read CUSTOMER, which another
/// session holds locked): the six queries it completed, with their times, as partial; no
/// geometric mean, Power@Size, QphH or TEST RESULT, in the output or the job.
#[test]
fn a_stopped_tproch_power_test_prints_what_it_completed_as_partial() {
    let (f, _settings, schema) = tproch_built("pg", "stoppedpower");
    let name = schema.name.clone();
    let holder = lock_table("pg", &name, "customer");
    let script = "dbset(\"db\", \"pg\");\ndbset(\"bm\", \"TPC-H\");\nvuset(\"vu\", 1);\nvurun();\n";
    let (code, stdout, stderr) = auto_acting(f.home.path(), script, "", |pid| {
        until_waiting("pg", &name, "customer");
        sigint(pid);
    });
    drop(holder);
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Vuser 1:Executing Query 18 (7 of 22)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("partial: stopped after 6 of 22 queries of query set 1"),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l == "Vuser 1:FINISHED STOPPED"),
        "{stdout}"
    );
    for never in [
        "Geometric mean",
        "Vuser 1:Geometric mean",
        "Power@Size",
        "QphH@Size",
        "Vuser 1:TEST RESULT",
        "Vuser 1:FINISHED SUCCESS",
        "Vuser 1:Completed",
    ] {
        assert!(
            !stdout.lines().any(|l| l.starts_with(never)),
            "{never} in\n{stdout}"
        );
    }
    // Each completed query with its time; query 18 never completed.
    for q in [14, 2, 9, 20, 6, 17] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("query {q} "))),
            "query {q} in\n{stdout}"
        );
    }
    assert!(
        !stdout.lines().any(|l| l.starts_with("query 18 ")),
        "{stdout}"
    );
    let job = last_job(f.home.path());
    assert_eq!(job["status"], "STOPPED", "{job}");
    let id = job["id"].as_str().expect("an id");
    let result = json(&hammer(
        f.home.path(),
        &["jobs", "--json", id, "result"],
        "",
    ));
    assert!(result["geomean"].is_null(), "{result}");
    assert_eq!(result["queries"], 6, "{result}");
}

/// Ctrl-C while the build makes its keys and indexes: the build finishes them and says the
/// schema is complete; the job is a success that says so; the script stops at its next
/// statement (130, the statement not run); and the schema checks whole.
#[test]
fn ctrl_c_in_a_builds_keys_leaves_a_whole_schema_and_says_so() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let name = format!("hammer_stopped_keys_{}", std::process::id());
    let _schema = TprochDb {
        db: "pg",
        name: name.clone(),
    };
    f.ok(&format!(
        "dbset db pg; dbset bm TPC-C; diset tpcc pg_dbase {name}; diset tpcc pg_user {name}"
    ));
    f.ok("diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1; vuset refreshrate 0");
    let script = "dbset(\"db\", \"pg\");\nbuildschema();\nprint(\"not reached\");\n";
    let (code, stdout, stderr) =
        auto_acting(f.home.path(), script, "CREATING TPCC INDEXES", sigint);
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Vuser 1:Ctrl-C: the data is loaded; the keys, indexes and procedures are made before the build stops"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Vuser 1:The schema is complete: Ctrl-C came after its data was loaded"),
        "{stdout}"
    );
    assert!(
        stdout.contains("TPROC-C schema built: 1 warehouses"),
        "{stdout}"
    );
    assert!(!stdout.contains("not reached"), "{stdout}");
    assert!(
        stderr.contains("stopped.rhai:3:1: Interrupted by Ctrl-C"),
        "{stderr}"
    );
    let job = last_job(f.home.path());
    assert_eq!(job["status"], "SUCCESS", "{job}");
    let id = job["id"].as_str().expect("an id");
    let status = json(&hammer(
        f.home.path(),
        &["jobs", "--json", id, "status"],
        "",
    ));
    assert_eq!(
        (&status["exit_status"], &status["note"]),
        (
            &0.into(),
            &"complete: Ctrl-C came too late to stop it".into()
        ),
        "{status}"
    );
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
}

/// Ctrl-C while TPROC-H's checkschema counts a LINEITEM another session holds locked: the
/// check stops (its job STOPPED, the id said once) and its count is cancelled on the
/// server, not left waiting there for the lock.
fn checkschema_stopped_cancels_its_query(db: &'static str) {
    let (f, _settings, schema) = tproch_built(db, "stoppedcheck");
    let name = schema.name.clone();
    let holder = lock_table(db, &name, "lineitem");
    let script = format!("dbset(\"db\", \"{db}\");\ndbset(\"bm\", \"TPC-H\");\ncheckschema();\n");
    let (code, stdout, stderr) = auto_acting(f.home.path(), &script, "", |pid| {
        until_waiting(db, &name, "lineitem");
        sigint(pid);
    });
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("Schema Check jobid=") && stderr.contains(" STOPPED: "),
        "{stderr}"
    );
    assert_eq!(format!("{stdout}{stderr}").matches("jobid=").count(), 1);
    // The lock is still held: only a cancel can have ended the count.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        running_on(db, &name, "lineitem"),
        0,
        "the check's query still runs on the server\n{stdout}"
    );
    drop(holder);
}

#[test]
fn postgres_ctrl_c_in_tproch_checkschema_cancels_its_query() {
    checkschema_stopped_cancels_its_query("pg");
}

#[test]
fn mariadb_ctrl_c_in_tproch_checkschema_cancels_its_query() {
    checkschema_stopped_cancels_its_query("maria");
}
