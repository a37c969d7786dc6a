//! Verdicts as a CI pipeline reads them: `hammer auto` exits 1 when a job ends FAILED (a
//! check of a corrupted schema, a build that cannot finish, a timed run whose server went
//! away and stayed away), 130 when Ctrl-C stops it (the job STOPPED with its figures), and a
//! script that catches the error goes on and reads the job. Real servers; the server that
//! "goes away" is a small TCP relay in front of the shared PostgreSQL that the test cuts, so
//! the shared server itself is never stopped.

mod common;

use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{hammer, text, Fixture, Servers};

/// `hammer auto` on a script written into `home`, with extra environment variables.
fn auto(home: &Path, name: &str, source: &str, env: &[(&str, &str)]) -> std::process::Output {
    let path = home.join(name);
    std::fs::write(&path, source).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&path)
        .env("HAMMER_HOME", home)
        .envs(env.iter().copied())
        .output()
        .expect("hammer runs")
}

fn json(out: &std::process::Output) -> serde_json::Value {
    let stdout = text(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {}", text(&out.stderr)))
}

/// The settings that point a script at a one-warehouse schema of its own on `db`.
fn schema_settings(db: &str, unique: &str) -> String {
    let mut s = Servers::get().configure();
    s.push_str(&format!(
        "dbset(\"db\", \"{db}\");\ndiset(\"tpcc\", \"{db}_dbase\", \"{unique}\");\n\
         diset(\"tpcc\", \"{db}_count_ware\", 1);\ndiset(\"tpcc\", \"{db}_num_vu\", 1);\n"
    ));
    if db == "pg" {
        s.push_str(&format!("diset(\"tpcc\", \"pg_user\", \"{unique}\");\n"));
    }
    s
}

/// Builds the one-warehouse schema `unique` on `db` in-process; the fixture deletes it later.
fn built(db: &str, unique: &str) -> Fixture {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&schema_settings(db, unique));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f
}

/// Breaks TPC-C consistency condition 2 (D_NEXT_O_ID - 1 = max(O_ID)) in one district, then
/// `hammer auto` of a plain `checkschema()` must fail, and a script that catches it goes on.
fn corrupted_district_fails_the_script(db: &str) {
    let unique = format!("hammer_verdict_check_{db}_{}", std::process::id());
    let mut f = built(db, &unique);
    let corrupt = "UPDATE district SET d_next_o_id = d_next_o_id + 7 WHERE d_w_id = 1 AND d_id = 3";
    let servers = Servers::get();
    if db == "pg" {
        servers.pg_exec(&unique, corrupt);
    } else {
        servers.maria_exec(&unique, &[corrupt]);
    }
    let home = tempfile::tempdir().unwrap();
    let settings = schema_settings(db, &unique);

    let out = auto(
        home.path(),
        "check.rhai",
        &format!("{settings}checkschema();\nprint(\"not reached\");\n"),
        &[],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{db}:\n{stdout}\n{stderr}");
    assert!(!stdout.contains("not reached"), "{stdout}");
    assert!(
        stdout.contains("Vuser 1:FAIL Check consistency 2"),
        "{db}:\n{stdout}"
    );
    // check.rhai:LINE:COL: Schema Check jobid=ID FAILED: 1 of N checks failed: Check consistency 2 (...)
    let message = stderr
        .split(": Schema Check jobid=")
        .nth(1)
        .unwrap_or_else(|| panic!("{db}: no job in the error:\n{stderr}"));
    let id = &message[..24];
    assert!(
        message[24..].starts_with(" FAILED: 1 of ") && message.contains("Check consistency 2"),
        "{db}: {stderr}"
    );
    // `hammer jobs` gives the same verdict.
    let status = json(&hammer(home.path(), &["jobs", "--json", id, "status"], ""));
    assert_eq!(status["status"], "FAILED", "{status}");
    assert_eq!(status["exit_status"], 1, "{status}");
    assert!(
        stderr.contains(status["note"].as_str().unwrap()),
        "{status}\n{stderr}"
    );

    // Caught: the script reads the failed checks and the job, and goes on (exit 0).
    let out = auto(
        home.path(),
        "check_caught.rhai",
        &format!(
            "{settings}try {{ checkschema(); }} catch (e) {{\n\
               let bad = e.checks.filter(|c| !c.ok);\n\
               print(`caught ${{e.status}} ${{e.kind}} ${{e.jobid}} ${{bad.len()}} ${{bad[0].what}}`);\n\
             }}\nprint(\"went on\");\n"
        ),
        &[],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("caught FAILED check ") && stdout.contains(" 1 Check consistency 2"),
        "{db}: {stdout}"
    );
    assert!(stdout.contains("went on"), "{stdout}");
    f.ok("deleteschema()");
}

#[test]
fn postgres_corrupted_district_fails_the_check_script() {
    corrupted_district_fails_the_script("pg");
}

#[test]
fn mariadb_corrupted_district_fails_the_check_script() {
    corrupted_district_fails_the_script("maria");
}

/// A TCP relay in front of a server: cut, it drops every connection and refuses new ones, as
/// a server that went away and stays away.
struct Relay {
    port: u16,
    cut: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
    acceptor: Option<std::thread::JoinHandle<()>>,
}

impl Relay {
    fn to(upstream: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let cut = Arc::new(AtomicBool::new(false));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (c, o) = (cut.clone(), open.clone());
        let acceptor = std::thread::spawn(move || {
            // The listener is dropped when this ends: then connections are refused.
            while !c.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let mut list = o.lock().unwrap();
                list.push(client.try_clone().unwrap());
                list.push(server.try_clone().unwrap());
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Relay {
            port,
            cut,
            open,
            acceptor: Some(acceptor),
        }
    }

    fn cut(&mut self) {
        self.cut.store(true, Ordering::SeqCst);
        if let Some(a) = self.acceptor.take() {
            a.join().unwrap();
        }
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
    }
}

/// `hammer auto` of a run script that calls `act` with the process id once the measured
/// window has begun (so the run is under way, however slow the box): exit status, stdout,
/// stderr.
fn auto_measuring(
    home: &Path,
    name: &str,
    source: &str,
    env: &[(&str, &str)],
    act: impl FnOnce(u32),
) -> (Option<i32>, String, String) {
    use std::io::{BufRead, BufReader, Read};
    let path = home.join(name);
    std::fs::write(&path, source).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&path)
        .env("HAMMER_HOME", home)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hammer runs");
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    let mut act = Some(act);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let Ok(line) = line else { break };
        if line.contains("Timing test period") {
            if let Some(act) = act.take() {
                act(child.id());
            }
        }
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(act.is_none(), "the run never began measuring:\n{stdout}");
    (status.code(), stdout, stderr.join().unwrap())
}

/// A relay cut a second into the measured window.
fn cut_when_measuring(mut relay: Relay) -> impl FnOnce(u32) {
    move |_| {
        std::thread::sleep(Duration::from_secs(1));
        relay.cut();
    }
}

/// The timed run of the issue: the server goes away mid-run and does not come back. No TEST
/// RESULT, the job FAILED, `hammer auto` exits 1 with the reason and the job id; caught, the
/// script reads the job id, status and what was measured, and goes on.
fn timed_run_whose_server_stays_down(db: &str) {
    let unique = format!("hammer_verdict_down_{db}_{}", std::process::id());
    let mut f = built(db, &unique);
    let servers = Servers::get();
    let home = tempfile::tempdir().unwrap();
    let upstream = match db {
        "pg" => format!("{}:{}", servers.pg_host, servers.pg_port),
        _ => format!("{}:{}", servers.maria_host, servers.maria_port),
    };
    let run = |relay: &Relay| {
        // Every connection through the relay: TCP, not MariaDB's socket.
        let socket = match db {
            "pg" => String::new(),
            _ => format!("diset(\"connection\", \"{db}_socket\", \"null\");\n"),
        };
        format!(
            "{}{socket}diset(\"connection\", \"{db}_host\", \"127.0.0.1\");\n\
             diset(\"connection\", \"{db}_port\", {});\n\
             diset(\"tpcc\", \"{db}_driver\", \"timed\");\ndiset(\"tpcc\", \"{db}_rampup\", 0);\n\
             diset(\"tpcc\", \"{db}_duration\", 1);\nvuset(\"vu\", 2);\nvuset(\"delay\", 0);\n",
            schema_settings(db, &unique),
            relay.port
        )
    };
    // Terminals and the monitor give up 2 s after the server went away.
    let env = [("HAMMER_RECONNECT_SECS", "2")];

    let relay = Relay::to(upstream.clone());
    let script = format!("{}vurun();\nprint(\"not reached\");\n", run(&relay));
    let started = Instant::now();
    let (code, stdout, stderr) = auto_measuring(
        home.path(),
        "run.rhai",
        &script,
        &env,
        cut_when_measuring(relay),
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(45),
        "{:?}",
        started.elapsed()
    );
    assert!(!stdout.contains("TEST RESULT"), "{stdout}");
    assert!(!stdout.contains("not reached"), "{stdout}");
    assert!(
        stdout.contains("The run ended early: the server did not come back within 2 s"),
        "{stdout}"
    );
    let message = stderr
        .split(": Benchmark Run jobid=")
        .nth(1)
        .unwrap_or_else(|| panic!("no job in the error:\n{stderr}"));
    let id = &message[..24];
    assert!(
        message[24..].starts_with(" FAILED: the server did not come back within 2 s"),
        "{stderr}"
    );
    let status = json(&hammer(home.path(), &["jobs", "--json", id, "status"], ""));
    assert_eq!(
        (&status["status"], &status["exit_status"]),
        (&"FAILED".into(), &1.into()),
        "{status}"
    );

    let relay = Relay::to(upstream);
    let script = format!(
        "{}try {{ vurun(); }} catch (e) {{\n\
           print(`caught ${{e.status}} ${{e.kind}} ${{e.jobid}} ${{e.result.failed_vus > 0}} ${{e.result.nopm == ()}}`);\n\
           print(`lastrun ${{lastrun().id == e.jobid}}`);\n\
         }}\nvudestroy();\nprint(\"went on\");\n",
        run(&relay)
    );
    let (code, stdout, stderr) = auto_measuring(
        home.path(),
        "run_caught.rhai",
        &script,
        &env,
        cut_when_measuring(relay),
    );
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let caught = stdout
        .lines()
        .find_map(|l| l.strip_prefix("caught FAILED run "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(caught.ends_with(" true true"), "{caught}");
    assert!(stdout.contains("lastrun true"), "{stdout}");
    assert!(stdout.contains("went on"), "{stdout}");
    f.ok("deleteschema()");
}

#[test]
fn postgres_timed_run_whose_server_stays_down_fails_the_script() {
    timed_run_whose_server_stays_down("pg");
}

#[test]
fn mariadb_timed_run_whose_server_stays_down_fails_the_script() {
    timed_run_whose_server_stays_down("maria");
}

/// Ctrl-C of `hammer auto` in the middle of a timed run: exit 130 (not a script error), the
/// job saved as STOPPED with the figures of the time it ran.
#[test]
fn ctrl_c_of_auto_mid_run_exits_130_with_the_job_stopped() {
    let unique = format!("hammer_verdict_stop_{}", std::process::id());
    let mut f = built("pg", &unique);
    let home = tempfile::tempdir().unwrap();
    let script = format!(
        "{}diset(\"tpcc\", \"pg_driver\", \"timed\");\ndiset(\"tpcc\", \"pg_rampup\", 0);\n\
         diset(\"tpcc\", \"pg_duration\", 1);\nvuset(\"vu\", 2);\nvuset(\"delay\", 0);\n\
         try {{ vurun(); }} catch {{ print(\"caught\"); }}\nprint(\"not reached\");\n",
        schema_settings("pg", &unique)
    );
    let mut pressed = None;
    let (code, stdout, stderr) = auto_measuring(home.path(), "stop.rhai", &script, &[], |pid| {
        // Four seconds into the measured minute.
        std::thread::sleep(Duration::from_secs(4));
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        pressed = Some(Instant::now());
    });
    assert_eq!(code, Some(130), "{stdout}\n{stderr}");
    let took = pressed.expect("Ctrl-C was sent").elapsed();
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        !stdout.contains("caught") && !stdout.contains("not reached"),
        "{stdout}"
    );
    assert!(stdout.contains("TEST RESULT : System achieved"), "{stdout}");
    assert!(
        stderr.contains("Benchmark Run jobid=")
            && stderr.contains(" STOPPED: stopped before the end of the duration"),
        "{stderr}"
    );
    let list = json(&hammer(home.path(), &["jobs", "--json", "list"], ""));
    let job = &list[0];
    assert_eq!(
        (&job["kind"], &job["status"]),
        (&"run".into(), &"STOPPED".into()),
        "{list}"
    );
    let id = job["id"].as_str().unwrap();
    let status = json(&hammer(home.path(), &["jobs", "--json", id, "status"], ""));
    assert_eq!(status["exit_status"], 130, "{status}");
    let result = json(&hammer(home.path(), &["jobs", "--json", id, "result"], ""));
    assert!(
        result["nopm"].as_f64().unwrap() > 0.0 && result["transactions"].as_u64().unwrap() > 0,
        "{result}"
    );
    f.ok("deleteschema()");
}

/// A build that cannot finish (the schema is already there and not empty) fails the script
/// with the job named; `hammer jobs` agrees.
#[test]
fn a_failed_build_fails_the_script() {
    let unique = format!("hammer_verdict_build_{}", std::process::id());
    let mut f = built("maria", &unique);
    let home = tempfile::tempdir().unwrap();
    let out = auto(
        home.path(),
        "build.rhai",
        &format!("{}buildschema();\n", schema_settings("maria", &unique)),
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let message = stderr
        .split(": Schema Build jobid=")
        .nth(1)
        .unwrap_or_else(|| panic!("no job in the error:\n{stderr}"));
    assert!(
        message[24..].starts_with(" FAILED: ") && message.contains("not empty"),
        "{stderr}"
    );
    let status = json(&hammer(
        home.path(),
        &["jobs", "--json", &message[..24], "status"],
        "",
    ));
    assert_eq!(status["status"], "FAILED", "{status}");
    // The schema that was there is untouched: it still checks.
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("deleteschema()");
}

/// Without any server: a job that cannot reach its server fails the script from `hammer
/// auto` and from the piped console alike, which prints the message and goes on.
#[test]
fn an_unreachable_server_fails_the_job_and_the_console_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let out = auto(
        home.path(),
        "down.rhai",
        "dbset(\"db\", \"pg\");\ndiset(\"connection\", \"pg_host\", \"127.0.0.1\");\n\
         diset(\"connection\", \"pg_port\", 1);\nbuildschema();\n",
        &[],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("down.rhai:4:1: Schema Build jobid=")
            && stderr.contains(" FAILED: cannot connect to PostgreSQL at 127.0.0.1:1"),
        "{stderr}"
    );
    let out = hammer(
        home.path(),
        &[],
        "checkschema\nprint(\"the console goes on\")\n",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stderr.contains("Schema Check jobid=") && stderr.contains(" FAILED: cannot connect"),
        "{stderr}"
    );
    assert!(stdout.contains("the console goes on"), "{stdout}");
    // The status of a piped console is its last input's.
    assert_eq!(out.status.code(), Some(0));
}
