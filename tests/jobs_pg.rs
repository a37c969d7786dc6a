//! The jobs history on a shared PostgreSQL server (`commandline.jobs_store`), as several
//! hammer drivers use it: a build recorded by one hammer and read back by another (another
//! data directory, the other form of connection string, the password from `PGPASSWORD`); two
//! hammers recording at once; one killed (SIGKILL) mid-run, after which every complete job
//! still lists and shows; and the password nowhere: not in `print("generic")`, the console's
//! history, the settings messages or the jobs' records.
//!
//! Databases: the store `hammer_jobspg_store_<pid>`, the schema `hammer_jobspg_w_<pid>`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{text, Servers};

/// `hammer` with a data directory, arguments and extra environment; its output.
fn hammer_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.args(args)
        .env("HAMMER_HOME", home)
        .env_remove("PGPASSWORD")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("hammer runs")
}

/// `hammer auto` of `script` (written to the data directory), which must succeed.
fn auto(home: &Path, name: &str, script: &str) -> String {
    let file = home.join(name);
    std::fs::write(&file, script).unwrap();
    let out = hammer_env(home, &["auto", file.to_str().unwrap()], &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{name}:\n{all}");
    all
}

/// The id in the last `<label> jobid=<id>` line.
fn jobid(output: &str, label: &str) -> String {
    let prefix = format!("{label} jobid=");
    output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {label} jobid line:\n{output}"))
        .trim()
        .to_string()
}

/// The jobs as a second hammer lists them: another data directory whose settings name the
/// store in the key=value form, the password coming from `PGPASSWORD`.
struct Reader {
    home: tempfile::TempDir,
    password: String,
}

impl Reader {
    fn new(servers: &Servers, store: &str) -> Reader {
        let home = tempfile::tempdir().unwrap();
        let settings = serde_json::json!({
            "generic": {
                "jobs_store": format!(
                    "host={} port={} user={} dbname={store}",
                    servers.pg_host, servers.pg_port, servers.pg_user
                )
            }
        });
        std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
        Reader {
            home,
            password: servers.pg_pass.clone(),
        }
    }

    fn run(&self, args: &[&str]) -> String {
        let out = hammer_env(
            self.home.path(),
            args,
            &[("PGPASSWORD", self.password.as_str())],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "hammer {args:?}:\n{}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn list(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["jobs", "--json", "list"]);
        serde_json::from_str::<serde_json::Value>(&out)
            .unwrap_or_else(|e| panic!("{e}: {out}"))
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// A fresh database `name` on the test PostgreSQL, dropped with the guard.
struct Database {
    servers: Servers,
    name: String,
}

impl Database {
    fn new(servers: Servers, name: String) -> Database {
        servers.pg_exec(
            "postgres",
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
        servers.pg_exec("postgres", &format!("CREATE DATABASE {name}"));
        Database { servers, name }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.servers.pg_exec(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            );
        }
    }
}

/// One hammer builds a schema with its jobs on the server; a second hammer, as another
/// machine would, lists it and shows its output. Then both record checks at once, and a
/// third is killed in the middle of a run: every complete job still lists and shows, the
/// killed run reads ABORTED, and the store takes the next job.
#[test]
fn a_shared_store_records_jobs_that_any_hammer_shows() {
    let servers = Servers::get();
    servers.require();
    let pid = std::process::id();
    let store = Database::new(Servers::get(), format!("hammer_jobspg_store_{pid}"));
    let schema = format!("hammer_jobspg_w_{pid}");
    let url = format!(
        "postgresql://{}:{}@{}:{}/{}",
        servers.pg_user, servers.pg_pass, servers.pg_host, servers.pg_port, store.name
    );
    let setup = format!(
        "giset(\"commandline\", \"jobs_store\", \"{url}\");\n{}\ndbset(\"db\", \"pg\");\n\
         diset(\"tpcc\", \"pg_dbase\", \"{schema}\");\ndiset(\"tpcc\", \"pg_user\", \"{schema}\");\n\
         diset(\"tpcc\", \"pg_count_ware\", 1);\ndiset(\"tpcc\", \"pg_num_vu\", 1);\n",
        servers.configure()
    );
    let writer = tempfile::tempdir().unwrap();
    let built = auto(
        writer.path(),
        "build.rhai",
        &format!("{setup}print(\"generic\");\nbuildschema();\n"),
    );
    let build = jobid(&built, "Schema Build");
    let masked = format!(
        "postgresql://{}:********@{}:{}/{}",
        servers.pg_user, servers.pg_host, servers.pg_port, store.name
    );
    assert!(
        built.contains(&format!("jobs_store        = {masked}")),
        "{built}"
    );
    assert!(
        !built.contains(&format!(":{}@", servers.pg_pass)),
        "the password is shown:\n{built}"
    );
    assert!(
        !writer.path().join("jobs.db").exists(),
        "the jobs went to the server, not to a file"
    );

    // Another hammer (another data directory, as on another machine) reads the build back.
    let reader = Reader::new(&servers, &store.name);
    let jobs = reader.list();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0]["id"], build.as_str());
    assert_eq!(
        (jobs[0]["kind"].as_str(), jobs[0]["status"].as_str()),
        (Some("build"), Some("SUCCESS"))
    );
    let output = reader.run(&["jobs", "--text", &build, "output"]);
    assert!(
        output.contains(&format!("{} SCHEMA COMPLETE", schema.to_uppercase())),
        "{output}"
    );
    let table = reader.run(&["jobs"]);
    assert!(
        table.contains(&build) && table.contains("Schema Build"),
        "{table}"
    );
    let dict = reader.run(&["jobs", "--json", &build, "dict"]);
    assert!(dict.contains(&masked), "{dict}");
    assert!(!dict.contains(&format!(":{}@", servers.pg_pass)), "{dict}");

    // Two hammers record at once: both keep every job.
    let checks = format!("{setup}for i in 0..3 {{ checkschema(); }}\n");
    let second = tempfile::tempdir().unwrap();
    let at_once: Vec<_> = [writer.path().to_path_buf(), second.path().to_path_buf()]
        .into_iter()
        .map(|home| {
            let checks = checks.clone();
            std::thread::spawn(move || auto(&home, "checks.rhai", &checks))
        })
        .collect();
    for t in at_once {
        t.join().unwrap();
    }
    let jobs = reader.list();
    let kinds: Vec<(&str, &str)> = jobs
        .iter()
        .map(|j| (j["kind"].as_str().unwrap(), j["status"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds.len(), 7, "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| **k == ("check", "SUCCESS")).count(),
        6,
        "{kinds:?}"
    );

    // A hammer killed mid-run, while its lines are being written.
    let run = writer.path().join("run.rhai");
    std::fs::write(
        &run,
        format!(
            "{setup}diset(\"tpcc\", \"pg_driver\", \"timed\");\ndiset(\"tpcc\", \"pg_rampup\", 0);\n\
             diset(\"tpcc\", \"pg_duration\", 2);\nvuset(\"vu\", 2);\nvurun();\n"
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", run.to_str().unwrap()])
        .env("HAMMER_HOME", writer.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let running = loop {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(90),
            "the run never started: {:?}",
            reader.list()
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        let Some(id) = reader
            .list()
            .iter()
            .find(|j| j["kind"] == "run")
            .and_then(|j| j["id"].as_str().map(str::to_string))
        else {
            continue;
        };
        let out = reader.run(&["jobs", "--text", &id, "output"]);
        if out.contains("Timing test period") {
            break id;
        }
    };
    let listed = reader.list();
    let live = listed.iter().find(|j| j["id"] == running.as_str()).unwrap();
    assert_eq!(
        live["status"], "RUNNING",
        "alive while its hammer is: {live}"
    );
    std::thread::sleep(std::time::Duration::from_secs(1));
    child.kill().unwrap(); // SIGKILL: no chance to record anything more
    child.wait().unwrap();

    let jobs = reader.list();
    assert_eq!(jobs.len(), 8, "{jobs:?}");
    assert_eq!(jobs[0]["id"], running.as_str());
    assert_eq!(
        jobs[0]["status"], "ABORTED",
        "its recorder's connection is gone"
    );
    for j in &jobs[1..] {
        assert_eq!(j["status"], "SUCCESS", "{j}");
        let id = j["id"].as_str().unwrap();
        let shown = reader.run(&["jobs", "--json", id]);
        let v: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(v["id"], id, "{shown}");
    }
    let output = reader.run(&["jobs", "--text", &running, "output"]);
    assert!(
        output.contains("Vuser 1:Timing test period of 2 in minutes"),
        "{output}"
    );

    // The store takes the next job; the schema goes.
    let deleted = auto(
        writer.path(),
        "delete.rhai",
        &format!("{setup}deleteschema();\n"),
    );
    let delete = jobid(&deleted, "Schema Delete");
    let jobs = reader.list();
    assert_eq!(jobs[0]["id"], delete.as_str());
    assert_eq!(jobs[0]["status"], "SUCCESS");
}

/// A connection string's password, typed at the console in either form, is masked in what
/// the console prints, in `print("generic")` and in the history file; a masked line recalled
/// from the history is refused rather than taken as the password; `jobs` names the store
/// without it.
#[test]
fn a_connection_string_s_password_shows_nowhere() {
    use rexpect::session::spawn_command;
    let servers = Servers::get();
    servers.require();
    let store = Database::new(
        Servers::get(),
        format!("hammer_jobspg_pty_{}", std::process::id()),
    );
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.env("HAMMER_HOME", home.path()).env("TERM", "xterm");
    let mut p = spawn_command(cmd, Some(20_000)).expect("hammer starts on a pty");
    p.exp_string("hammer> ").unwrap();
    let type_ = |p: &mut rexpect::session::PtySession, keys: &str| {
        std::thread::sleep(std::time::Duration::from_millis(150));
        p.send(keys).unwrap();
        p.flush().unwrap();
    };
    let (user, host, port) = (&servers.pg_user, &servers.pg_host, servers.pg_port);
    // The bare form first, with a password no server knows.
    type_(
        &mut p,
        &format!(
            "giset commandline jobs_store postgresql://{user}:Typed1pw@{host}:{port}/{}\r",
            store.name
        ),
    );
    p.exp_string(&format!(
        "to postgresql://{user}:********@{host}:{port}/{} for generic",
        store.name
    ))
    .unwrap();
    p.exp_string("hammer> ").unwrap();
    // The Rhai form, key=value, with the real one.
    type_(
        &mut p,
        &format!(
            "giset(\"commandline\", \"jobs_store\", \"host={host} port={port} user={user} password={} dbname={}\")\r",
            servers.pg_pass, store.name
        ),
    );
    p.exp_string("password=******** dbname=").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "print generic\r");
    p.exp_string("jobs_store        = host=").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "jobs\r");
    p.exp_string(&format!(
        "No jobs found in database postgresql://{user}@{host}:{port}/{}",
        store.name
    ))
    .unwrap();
    p.exp_string("hammer> ").unwrap();
    // A bad value is refused naming the bad part and both forms, without the password.
    type_(
        &mut p,
        &format!("giset commandline jobs_store postgresql://{user}:Typed2pw@{host}:99999/x\r"),
    );
    p.exp_string("port '99999'").unwrap();
    p.exp_string("host=... port=... user=... password=... dbname=...")
        .unwrap();
    p.exp_string("hammer> ").unwrap();
    // Recalled from the history, the masked line is refused: the store stays.
    type_(&mut p, "\x1b[A\x1b[A\x1b[A\x1b[A");
    type_(&mut p, "\r");
    p.exp_string("is how hammer shows a password").unwrap();
    p.exp_string("hammer> ").unwrap();
    type_(&mut p, "quit\r");
    p.exp_eof().unwrap();

    let history = std::fs::read_to_string(home.path().join("history.txt")).unwrap();
    for pw in [
        "Typed1pw",
        "Typed2pw",
        &format!("password={}", servers.pg_pass),
    ] {
        assert!(!history.contains(pw), "{pw} in the history:\n{history}");
    }
    assert!(
        history.contains(&format!(
            "giset commandline jobs_store postgresql://{user}:********@{host}:{port}/{}",
            store.name
        )),
        "{history}"
    );
    assert!(history.contains("password=******** dbname="), "{history}");
}
