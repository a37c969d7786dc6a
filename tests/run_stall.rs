//! Runs whose server stops answering: the test takes exclusive locks on the tables every
//! transaction needs (but not those the monitor counts from), so that every virtual user's
//! call waits on a real server that says nothing. The end of a timed run, Ctrl-C and the reply
//! timeout must each bring hammer back within seconds, with what was measured, on
//! PostgreSQL and MariaDB, with virtual users on threads of their own and on the shared
//! runtime.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::Servers;

/// A hammer process running a script, its output lines arriving on a channel.
struct Run {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    started: Instant,
}

impl Run {
    fn start(home: &std::path::Path, script: &str, env: &[(&str, &str)]) -> Run {
        let file = home.join(format!("run-{}.rhai", rand_suffix()));
        std::fs::write(&file, script).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
        cmd.args(["auto", file.to_str().unwrap()])
            .env("HAMMER_HOME", home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("hammer starts");
        let (tx, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Run {
            child,
            lines,
            seen: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Waits for a line containing `text`.
    fn wait_for(&mut self, text: &str, limit: Duration) {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
                let hit = line.contains(text);
                self.seen.push(line);
                if hit {
                    return;
                }
            }
        }
        panic!("no line with {text:?} within {limit:?}:\n{}", self.text());
    }

    /// Waits for the process to end; its exit code and how long it ran since `from`.
    fn finish(&mut self, from: Instant, limit: Duration) -> (Option<i32>, Duration) {
        let until = from + limit;
        loop {
            while let Ok(line) = self.lines.try_recv() {
                self.seen.push(line);
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(200));
                while let Ok(line) = self.lines.try_recv() {
                    self.seen.push(line);
                }
                return (status.code(), from.elapsed());
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!(
                    "hammer did not end within {limit:?} (it has run {:?}):\n{}",
                    self.started.elapsed(),
                    self.text()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn interrupt(&self) {
        let ok = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -INT");
    }

    fn text(&self) -> String {
        self.seen.join("\n")
    }
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Db {
    Pg,
    Maria,
}

impl Db {
    fn prefix(self) -> &'static str {
        match self {
            Db::Pg => "pg",
            Db::Maria => "maria",
        }
    }
}

/// A 1-warehouse schema on `db`, built by a hammer process, and the Rhai that selects it.
struct Schema {
    db: Db,
    name: String,
    home: tempfile::TempDir,
    setup: String,
}

impl Schema {
    fn build(db: Db, tag: &str) -> Schema {
        let servers = Servers::get();
        servers.require();
        let name = format!("hammer_stall_{tag}_{}", std::process::id());
        let p = db.prefix();
        let mut setup = servers.configure();
        setup.push_str(&format!("dbset(\"db\", \"{p}\");\n"));
        setup.push_str(&format!("diset(\"tpcc\", \"{p}_dbase\", \"{name}\");\n"));
        if db == Db::Pg {
            setup.push_str(&format!("diset(\"tpcc\", \"pg_user\", \"{name}\");\n"));
        }
        setup.push_str(&format!(
            "diset(\"tpcc\", \"{p}_count_ware\", 1);\ndiset(\"tpcc\", \"{p}_num_vu\", 1);\n"
        ));
        let home = tempfile::tempdir().unwrap();
        let mut build = Run::start(home.path(), &format!("{setup}buildschema();\n"), &[]);
        let (code, _) = build.finish(Instant::now(), Duration::from_secs(180));
        assert_eq!(code, Some(0), "the build failed:\n{}", build.text());
        Schema {
            db,
            name,
            home,
            setup,
        }
    }

    /// A timed run of 2 virtual users, no rampup, `minutes` measured, `extra` Rhai first.
    fn run(&self, minutes: f64, extra: &str, env: &[(&str, &str)]) -> Run {
        let p = self.db.prefix();
        let script = format!(
            "{}{extra}diset(\"tpcc\", \"{p}_driver\", \"timed\");\n\
             diset(\"tpcc\", \"{p}_rampup\", 0);\ndiset(\"tpcc\", \"{p}_duration\", {minutes});\n\
             vuset(\"vu\", 2);\nvuset(\"delay\", 0);\nlet id = vurun();\nprint(`RUN ${{id}}`);\n\
             print(`ABANDONED ${{lastrun().abandoned_calls}}`);\n",
            self.setup
        );
        Run::start(self.home.path(), &script, env)
    }

    /// Takes the locks that stall every transaction until the holder is dropped.
    fn stall(&self) -> Holder {
        Holder::take(self.db, &self.name)
    }

    fn job_status(&self, run: &Run) -> String {
        let id = run
            .seen
            .iter()
            .find_map(|l| l.strip_prefix("RUN "))
            .map(str::to_string);
        let args = match &id {
            Some(id) => vec!["jobs", "--json", id.as_str(), "status"],
            None => vec!["jobs", "--json", "list"],
        };
        let out = common::hammer(self.home.path(), &args, "");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("jobs json");
        let v = if id.is_some() { v } else { v[0].clone() };
        v["status"].as_str().unwrap_or_default().to_string()
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let mut del = Run::start(
            self.home.path(),
            &format!("{}deleteschema();\n", self.setup),
            &[],
        );
        let _ = del.finish(Instant::now(), Duration::from_secs(60));
    }
}

/// A session of the test's own that holds exclusive locks on CUSTOMER and STOCK: every
/// TPROC-C transaction waits on one of them; DISTRICT and the server's statistics, which a
/// timed run's monitor reads, stay free.
enum Holder {
    Pg(tokio::runtime::Runtime, hammer::db::postgres::PgConn),
    Maria(tokio::runtime::Runtime, mysql_async::Conn),
}

impl Holder {
    fn take(db: Db, name: &str) -> Holder {
        let servers = Servers::get();
        match db {
            Db::Pg => {
                let (rt, conn) = servers.pg(name);
                rt.block_on(
                    conn.client.batch_execute(
                        "BEGIN; LOCK TABLE customer, stock IN ACCESS EXCLUSIVE MODE",
                    ),
                )
                .expect("locks");
                Holder::Pg(rt, conn)
            }
            Db::Maria => {
                use mysql_async::prelude::Queryable;
                let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(name));
                rt.block_on(conn.query_drop("LOCK TABLES customer WRITE, stock WRITE"))
                    .expect("locks");
                Holder::Maria(rt, conn)
            }
        }
    }

    fn release(self) {
        match self {
            Holder::Pg(rt, conn) => rt.block_on(async {
                let _ = conn.client.batch_execute("ROLLBACK").await;
                conn.close().await;
            }),
            Holder::Maria(rt, conn) => rt.block_on(async {
                let _ = conn.disconnect().await;
            }),
        }
    }
}

/// The timed run ends while every virtual user waits on the stalled server: the result is
/// printed, the waiting calls are abandoned and counted, and hammer ends soon after.
fn stalled_at_the_end(db: Db, env: &[(&str, &str)], tag: &str) {
    let schema = Schema::build(db, tag);
    let mut run = schema.run(0.2, "", env);
    run.wait_for("Timing test period", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    let locked = Instant::now();
    let (code, took) = run.finish(locked, Duration::from_secs(40));
    holder.release();
    let text = run.text();
    assert_eq!(code, Some(0), "{text}");
    // The measured window has about 10 s left; then 3 s of grace before the cut.
    assert!(took < Duration::from_secs(25), "{took:?}\n{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        text.contains("call(s) still waiting for the server when the run stopped were abandoned"),
        "{text}"
    );
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    // Both virtual users were waiting; lastrun() says how many calls were given up.
    assert!(text.contains("ABANDONED 2"), "{text}");
    assert_eq!(schema.job_status(&run), "SUCCESS", "{text}");
}

/// Ctrl-C while every virtual user waits on the stalled server: hammer is back within
/// seconds and the job is STOPPED with what was measured.
fn stalled_then_interrupted(db: Db, env: &[(&str, &str)], tag: &str) {
    let schema = Schema::build(db, tag);
    let mut run = schema.run(1.0, "", env);
    run.wait_for("Timing test period", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    std::thread::sleep(Duration::from_secs(2));
    let pressed = Instant::now();
    run.interrupt();
    let (_code, took) = run.finish(pressed, Duration::from_secs(20));
    holder.release();
    let text = run.text();
    assert!(took < Duration::from_secs(12), "{took:?}\n{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(text.contains("abandoned"), "{text}");
    assert_eq!(schema.job_status(&run), "STOPPED", "{text}");
}

/// A reply that does not come within the reply timeout counts as a lost connection: the
/// terminal reconnects and the run goes on to its result once the server answers again.
fn stalled_past_the_reply_timeout(db: Db, tag: &str) {
    let schema = Schema::build(db, tag);
    let p = db.prefix();
    let mut run = schema.run(
        0.3,
        &format!("diset(\"connection\", \"{p}_reply_timeout\", 2);\n"),
        &[],
    );
    run.wait_for("Timing test period", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    run.wait_for("no reply", Duration::from_secs(10));
    std::thread::sleep(Duration::from_secs(3));
    holder.release();
    let (code, _) = run.finish(Instant::now(), Duration::from_secs(40));
    let text = run.text();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("within 2 s"), "{text}");
    assert!(text.contains("reconnected"), "{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{text}");
}

#[test]
fn pg_own_threads_stalled_at_the_end() {
    stalled_at_the_end(Db::Pg, &[], "pgend");
}

#[test]
fn pg_shared_runtime_stalled_at_the_end() {
    stalled_at_the_end(Db::Pg, &[("HAMMER_VU_THREADS", "shared")], "pgendsh");
}

#[test]
fn pg_client_sql_stalled_at_the_end() {
    let schema = Schema::build(Db::Pg, "pgendcl");
    let mut run = schema.run(
        0.2,
        "diset(\"tpcc\", \"pg_no_stored_procs\", \"true\");\n",
        &[],
    );
    run.wait_for("Timing test period", Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    let (code, took) = run.finish(Instant::now(), Duration::from_secs(40));
    holder.release();
    let text = run.text();
    assert_eq!(code, Some(0), "{text}");
    assert!(took < Duration::from_secs(25), "{took:?}\n{text}");
    assert!(text.contains("abandoned"), "{text}");
}

#[test]
fn pg_stalled_then_interrupted() {
    stalled_then_interrupted(Db::Pg, &[], "pgint");
}

#[test]
fn pg_stalled_past_the_reply_timeout() {
    stalled_past_the_reply_timeout(Db::Pg, "pgto");
}

#[test]
fn maria_own_threads_stalled_at_the_end() {
    stalled_at_the_end(Db::Maria, &[], "myend");
}

#[test]
fn maria_shared_runtime_stalled_then_interrupted() {
    stalled_then_interrupted(Db::Maria, &[("HAMMER_VU_THREADS", "shared")], "myint");
}

#[test]
fn maria_stalled_past_the_reply_timeout() {
    stalled_past_the_reply_timeout(Db::Maria, "myto");
}

/// A custom workload's statement waits on the stalled server: past the reply timeout its
/// connection counts as lost, as a TPROC-C terminal's does (said, reconnected, the run goes
/// on), and Ctrl-C ends it within the stop's grace.
#[test]
fn pg_custom_workload_stalled() {
    let schema = Schema::build(Db::Pg, "pgcustom");
    let work = schema.home.path().join("work.rhai");
    std::fs::write(&work, "DB.query(\"select count(*) from customer\");\n").unwrap();
    let custom = |timeout: u32| {
        let script = format!(
            "{}diset(\"connection\", \"pg_reply_timeout\", {timeout});\ncustomscript(\"{}\");\n\
             vuset(\"vu\", 1);\nvuset(\"iterations\", 3000);\nvuset(\"repeat\", 5);\n\
             vuset(\"delay\", 0);\nprint(\"READY\");\nvurun();\n",
            schema.setup,
            work.display()
        );
        Run::start(schema.home.path(), &script, &[])
    };
    // The reply timeout.
    let mut run = custom(2);
    run.wait_for("READY", Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    run.wait_for("no reply", Duration::from_secs(10));
    std::thread::sleep(Duration::from_secs(3));
    holder.release();
    // A bound against a hang, not a speed: 3000 iterations take 60 s and more on a busy
    // machine.
    let (code, _) = run.finish(Instant::now(), Duration::from_secs(300));
    let text = run.text();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("no reply within 2 s"), "{text}");
    assert!(text.contains("reconnected"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    // Ctrl-C, with a reply timeout far away.
    let mut run = custom(600);
    run.wait_for("READY", Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let holder = schema.stall();
    std::thread::sleep(Duration::from_secs(1));
    let pressed = Instant::now();
    run.interrupt();
    let (_, took) = run.finish(pressed, Duration::from_secs(20));
    holder.release();
    let text = run.text();
    assert!(took < Duration::from_secs(8), "{took:?}\n{text}");
    assert!(text.contains("abandoned"), "{text}");
    assert!(!text.contains("FINISHED FAILED"), "{text}");
}
