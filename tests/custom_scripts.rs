//! customscript: users' own Rhai workloads run by every virtual user, on both servers.

mod common;

use common::{Fixture, Servers};

const SCRIPT: &str = r#"
let r = DB.query("select " + VUSER + " as v, 'x' as s, null as n");
print(`vu ${VUSER} it ${ITERATION} got ${r[0][0]} ${r[0][1]} null=${r[0][2] == ()}`);
DB.begin();
DB.execute("create temporary table hammer_custom_t (a int)");
let n = DB.execute("insert into hammer_custom_t values (1), (2)");
DB.rollback();
print(`inserted ${n}`);
DB.execute("drop table if exists hammer_custom_t");
"#;

fn setup(db: &str) -> (Fixture, tempfile::TempDir) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    // The servers' own databases stand in for a schema: custom scripts need none.
    match db {
        "pg" => f.ok(&format!(
            "dbset db pg; diset tpcc pg_user {}; diset tpcc pg_pass {}; diset tpcc pg_dbase postgres",
            servers.pg_user, servers.pg_pass
        )),
        _ => f.ok("dbset db maria; diset tpcc maria_dbase mysql"),
    };
    let dir = tempfile::tempdir().unwrap();
    (f, dir)
}

fn runs_in_every_virtual_user(db: &str) {
    let (mut f, dir) = setup(db);
    let file = dir.path().join("work.rhai");
    std::fs::write(&file, SCRIPT).unwrap();
    assert_eq!(
        f.ok(&format!("customscript {}", file.display())),
        [format!("Loaded {}", file.display())]
    );
    assert!(f.ok("print script")[0].starts_with("Custom script"));
    f.ok("vuset vu 2; vuset iterations 2; vuset repeat 0; vuset delay 0");
    assert_eq!(f.ok("vucreate")[2], "2 Virtual Users Created");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    for vu in 1..=2 {
        for it in 1..=2 {
            assert!(
                text.contains(&format!("Vuser {vu}:vu {vu} it {it} got {vu} x null=true")),
                "{text}"
            );
        }
        assert!(
            text.contains(&format!("Vuser {vu}:FINISHED SUCCESS")),
            "{text}"
        );
    }
    assert!(text.contains("Vuser 1:inserted 2"), "{text}");
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    assert_eq!(f.console("vucomplete()").0, Ok("true".to_string()));
    f.ok("vudestroy");
}

#[test]
fn custom_script_on_postgres() {
    runs_in_every_virtual_user("pg");
}

#[test]
fn custom_script_on_mariadb() {
    runs_in_every_virtual_user("maria");
}

#[test]
fn bad_custom_scripts_are_explained() {
    let (mut f, dir) = setup("pg");
    let e = f.err("customscript /no/such/work.rhai");
    assert!(
        e.contains("cannot read /no/such/work.rhai") && e.contains("Usage: customscript"),
        "{e}"
    );
    let bad = dir.path().join("bad.rhai");
    std::fs::write(&bad, "let x = 1;\nlet y = (2 + ;\n").unwrap();
    let e = f.err(&format!("customscript {}", bad.display()));
    assert!(e.starts_with(&format!("{}:2:", bad.display())), "{e}");
    // A script that fails at run time fails its virtual user, with file, line and column.
    let failing = dir.path().join("failing.rhai");
    std::fs::write(
        &failing,
        "print(\"before\");\nDB.query(\"select * from no_such_table_here\");\n",
    )
    .unwrap();
    f.ok(&format!("customscript {}", failing.display()));
    f.ok("vuset vu 1; vuset iterations 1");
    let (r, lines) = f.console("vurun()");
    // A failed virtual user fails the job, and vurun with it.
    let e = r.unwrap_err();
    assert!(
        e.starts_with("Benchmark Run jobid=") && e.ends_with("FAILED: 1 virtual user failed"),
        "{e}"
    );
    let text = lines.join("\n");
    assert!(text.contains("Vuser 1:before"), "{text}");
    assert!(
        text.contains(&format!(
            "Error in Virtual User 1: {}:2:",
            failing.display()
        )),
        "{text}"
    );
    assert!(text.contains("no_such_table_here"), "{text}");
    assert!(text.contains("Vuser 1:FINISHED FAILED"), "{text}");
    assert_eq!(f.ok("vustatus"), ["1 = FINISH FAILED"]);
    f.ok("vudestroy");
}

/// A database of the test's own on `db` (`pg` or `maria`) with a table, a procedure and a
/// function for scripts to call; dropped when the test ends, however it ends.
struct Scratch {
    db: &'static str,
    name: String,
}

impl Scratch {
    fn new(db: &'static str, test: &str) -> Self {
        let name = format!("hammer_custom_{test}_{db}_{}", std::process::id());
        let servers = Servers::get();
        servers.require();
        let s = Scratch { db, name };
        s.drop_database();
        if db == "pg" {
            servers.pg_exec("postgres", &format!("CREATE DATABASE {}", s.name));
            servers.pg_exec(
                &s.name,
                "CREATE TABLE audit (vu int, it int, note text);
                 CREATE PROCEDURE audit_p(v int, i int, n text, INOUT total bigint DEFAULT NULL)
                 LANGUAGE plpgsql AS $$
                 BEGIN
                   INSERT INTO audit VALUES (v, i, n);
                   SELECT count(*) INTO total FROM audit WHERE vu = v AND it > 0;
                 END $$;
                 CREATE FUNCTION audit_f(v int) RETURNS int LANGUAGE sql AS $$ SELECT v * 10 $$;",
            );
        } else {
            servers.maria_exec("mysql", &[&format!("CREATE DATABASE {}", s.name)]);
            servers.maria_exec(
                &s.name,
                &[
                    "CREATE TABLE audit (vu int, it int, note varchar(40)) ENGINE=InnoDB",
                    "CREATE PROCEDURE audit_p(v int, i int, n varchar(40))
                     BEGIN
                       INSERT INTO audit VALUES (v, i, n);
                       SELECT count(*) FROM audit WHERE vu = v AND it > 0;
                     END",
                    "CREATE FUNCTION audit_f(v int) RETURNS int DETERMINISTIC RETURN v * 10",
                ],
            );
        }
        s
    }

    fn count(&self, filter: &str) -> i64 {
        let sql = format!("SELECT count(*) FROM audit WHERE {filter}");
        let servers = Servers::get();
        if self.db == "pg" {
            servers.pg_i64(&self.name, &sql)
        } else {
            servers.maria_i64(&self.name, &sql)
        }
    }

    /// Points the session's custom scripts at this database.
    fn settings(&self) -> String {
        format!("diset tpcc {}_dbase {}", self.db, self.name)
    }

    fn drop_database(&self) {
        let servers = Servers::get();
        if self.db == "pg" {
            servers.pg_exec(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
            );
        } else {
            servers.maria_exec(
                "mysql",
                &[&format!("DROP DATABASE IF EXISTS {}", self.name)],
            );
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.drop_database();
    }
}

/// Every connection method, with a procedure and a function called with arguments whose
/// results the script checks, and what they did checked in the database afterwards.
const METHODS: &str = r#"
let rows = DB.callproc("audit_p", [VUSER, ITERATION, `it's ${VUSER}`]);
let total = rows[0][0];
if total != `${ITERATION}` { throw `the procedure counted ${total} rows at iteration ${ITERATION}`; }
let f = DB.callfunc("audit_f", [VUSER]);
if f != `${VUSER * 10}` { throw `audit_f(${VUSER}) gave ${f}`; }
DB.begin();
let n = DB.execute(`insert into audit values (${VUSER}, -1, 'rolled back')`);
DB.rollback();
DB.begin();
DB.execute(`insert into audit values (${VUSER}, -2, 'committed')`);
DB.commit();
let gone = DB.query(`select count(*) from audit where vu = ${VUSER} and it = -1`)[0][0];
print(`vu ${VUSER} it ${ITERATION} proc ${total} func ${f} inserted ${n} rolled back ${gone}`);
"#;

fn every_method_works(db: &'static str) {
    let scratch = Scratch::new(db, "methods");
    let (mut f, dir) = setup(db);
    f.ok(&scratch.settings());
    let file = dir.path().join("methods.rhai");
    std::fs::write(&file, METHODS).unwrap();
    f.ok(&format!("customscript {}", file.display()));
    f.ok("vuset vu 2; vuset iterations 3; vuset repeat 0; vuset delay 0");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{db}: {r:?}\n{text}");
    for vu in 1..=2 {
        for it in 1..=3 {
            let line = format!(
                "Vuser {vu}:vu {vu} it {it} proc {it} func {} inserted 1 rolled back 0",
                vu * 10
            );
            assert!(text.contains(&line), "{db}: {line} in\n{text}");
        }
    }
    // What the procedure and the transactions did, read back from the database.
    assert_eq!(scratch.count("it > 0"), 6, "{db}");
    assert_eq!(scratch.count("note = 'it''s 2'"), 3, "{db}");
    assert_eq!(scratch.count("it = -1"), 0, "{db}: rollback kept nothing");
    assert_eq!(scratch.count("it = -2"), 6, "{db}: commit kept every row");
    // The run's figures: every iteration counted, as lastrun and the job give them.
    assert!(text.contains("Iterations (hammer):"), "{text}");
    let (r, _) = f.console(
        "let l = lastrun(); let j = jobs(l.id); \
         [l.iteration.committed, l.iteration.failed, l.failed_vus, l.transactions, j.status, j.result.failed_vus]",
    );
    assert_eq!(r, Ok("[6, 0, 0, 6, \"SUCCESS\", 0]".to_string()), "{db}");
    f.ok("vudestroy");
}

#[test]
fn every_connection_method_on_postgres() {
    every_method_works("pg");
}

#[test]
fn every_connection_method_on_mariadb() {
    every_method_works("maria");
}

/// `DB.call` is Rhai's own: it says it wants a function pointer (the README says so).
#[test]
fn call_is_rhais_and_callproc_is_the_connections() {
    let scratch = Scratch::new("pg", "call");
    let (mut f, dir) = setup("pg");
    f.ok(&scratch.settings());
    let file = dir.path().join("call.rhai");
    std::fs::write(&file, "DB.call(\"audit_p\", [VUSER, 1, \"x\"]);\n").unwrap();
    f.ok(&format!("customscript {}", file.display()));
    f.ok("vuset vu 1; vuset iterations 1");
    let (r, lines) = f.console("vurun()");
    assert!(r.is_err(), "{lines:?}");
    let text = lines.join("\n");
    assert!(
        text.contains("expecting Fn")
            && text.contains("Rhai keeps `call` for function pointers: call a procedure with DB.callproc(name, [args])"),
        "{text}"
    );
    assert_eq!(scratch.count("true"), 0);
    f.ok("vudestroy");
}

/// Every `Vuser N:` line that names a virtual user names its own.
fn lines_name_their_own_vuser(lines: &[String]) {
    for l in lines {
        let Some(rest) = l.strip_prefix("Vuser ") else {
            continue;
        };
        let Some((n, text)) = rest.split_once(':') else {
            continue;
        };
        if let Some(about) = text.split("Virtual User ").nth(1) {
            let m: String = about.chars().take_while(|c| c.is_ascii_digit()).collect();
            assert_eq!(n, m, "{l}");
        }
    }
}

fn a_script_that_always_throws_fails_the_job(db: &'static str) {
    let (mut f, dir) = setup(db);
    let file = dir.path().join("throws.rhai");
    std::fs::write(
        &file,
        "DB.query(\"select 1\");\nthrow `no good in ${VUSER}`;\n",
    )
    .unwrap();
    f.ok(&format!("customscript {}", file.display()));
    f.ok("vuset vu 2; vuset iterations 3; vuset repeat 0; vuset delay 0");
    let (r, lines) = f.console(
        "let r = \"not failed\"; try { vurun(); } catch (e) { \
         let j = jobs(e.jobid); \
         r = [e.status, e.note, e.result.failed_vus, e.result.iteration.failed, j.status, j.note, j.result.failed_vus]; } r",
    );
    let text = lines.join("\n");
    assert_eq!(
        r,
        Ok(
            "[\"FAILED\", \"2 virtual users failed\", 2, 2, \"FAILED\", \"2 virtual users failed\", 2]"
                .to_string()
        ),
        "{db}:\n{text}"
    );
    for vu in 1..=2 {
        let said = format!(
            "Vuser {vu}:Error in Virtual User {vu}: {}:2:1: no good in {vu}",
            file.display()
        );
        assert!(text.contains(&said), "{db}: {said} in\n{text}");
        assert!(
            text.contains(&format!("Vuser {vu}:FINISHED FAILED")),
            "{text}"
        );
    }
    lines_name_their_own_vuser(&lines);
    assert_eq!(f.ok("vustatus"), ["1 = FINISH FAILED", "2 = FINISH FAILED"]);
    f.ok("vudestroy");
}

#[test]
fn a_script_that_always_throws_fails_the_job_on_postgres() {
    a_script_that_always_throws_fails_the_job("pg");
}

#[test]
fn a_script_that_always_throws_fails_the_job_on_mariadb() {
    a_script_that_always_throws_fails_the_job("maria");
}

/// `hammer auto` of a custom run whose virtual users all fail exits 1 with the script's line.
#[test]
fn hammer_auto_fails_with_a_failed_custom_run() {
    let servers = Servers::get();
    servers.require();
    let home = tempfile::tempdir().unwrap();
    let work = home.path().join("work.rhai");
    std::fs::write(&work, "throw \"no good\";\n").unwrap();
    let mut source = servers.configure();
    source.push_str(&format!(
        "dbset(\"db\", \"pg\");\ndiset(\"tpcc\", \"pg_user\", \"{}\");\n\
         diset(\"tpcc\", \"pg_pass\", \"{}\");\ndiset(\"tpcc\", \"pg_dbase\", \"postgres\");\n\
         customscript(\"{}\");\nvuset(\"vu\", 2);\nvuset(\"iterations\", 1);\n",
        servers.pg_user,
        servers.pg_pass,
        work.display()
    ));
    let line = source.lines().count() + 1;
    source.push_str("vurun();\nprint(\"not reached\");\n");
    let run = home.path().join("run.rhai");
    std::fs::write(&run, &source).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&run)
        .env("HAMMER_HOME", home.path())
        .output()
        .expect("hammer runs");
    let (stdout, stderr) = (common::text(&out.stdout), common::text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stdout.contains("not reached"), "{stdout}");
    let at = format!("{}:{line}:", run.display());
    assert!(
        stderr.contains(&at)
            && stderr.contains("Benchmark Run jobid=")
            && stderr.contains("FAILED: 2 virtual users failed"),
        "{at} in {stderr}"
    );
}

/// Ctrl-C stops a custom run as it stops TPROC-C: between iterations, and a grace later a
/// script still running (an endless loop, a statement the server sits on) is cut off and
/// counted as abandoned; the job is STOPPED, no virtual user FAILED.
#[test]
fn ctrl_c_stops_a_custom_run() {
    let (mut f, dir) = setup("pg");
    let file = dir.path().join("stuck.rhai");
    std::fs::write(
        &file,
        "if VUSER == 1 { loop { let x = 1; } } else if VUSER == 2 { DB.query(\"select pg_sleep(30)\"); } else { DB.query(\"select 1\"); }\n",
    )
    .unwrap();
    f.ok(&format!("customscript {}", file.display()));
    f.ok("vuset vu 3; vuset iterations 1000000; vuset repeat 0; vuset delay 0");
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(2));
        interrupt.fire();
    });
    let started = std::time::Instant::now();
    let (r, lines) = f.console("vurun()");
    ctrl_c.join().unwrap();
    let took = started.elapsed();
    let text = lines.join("\n");
    let e = r.unwrap_err();
    assert!(e.ends_with(" STOPPED: stopped by Ctrl-C"), "{e}\n{text}");
    assert!(
        took < std::time::Duration::from_secs(15),
        "{took:?}\n{text}"
    );
    assert!(
        text.contains("2 call(s) still waiting for the server when the run stopped were abandoned"),
        "{text}"
    );
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    f.engine.session().interrupt.clear();
    let (r, _) = f
        .console("let l = lastrun(); [l.abandoned_calls, l.failed_vus, l.iteration.committed > 0]");
    assert_eq!(r, Ok("[2, 0, true]".to_string()));
    f.ok("vudestroy");
}

/// A custom run whose connections the server kills reconnects and goes on, as TPROC-C does.
fn lost_connections_are_reconnected(db: &'static str) {
    let scratch = Scratch::new(db, "lost");
    let (mut f, dir) = setup(db);
    f.ok(&scratch.settings());
    let file = dir.path().join("lost.rhai");
    std::fs::write(&file, "DB.query(\"select 1\");\n").unwrap();
    f.ok(&format!("customscript {}", file.display()));
    f.ok("vuset vu 2; vuset iterations 150; vuset repeat 20; vuset delay 0");
    let name = scratch.name.clone();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let servers = Servers::get();
        if db == "pg" {
            servers.pg_exec(
                "postgres",
                &format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = '{name}' AND pid <> pg_backend_pid()"
                ),
            );
        } else {
            servers.maria_kill_sessions(&name);
        }
    });
    let (r, lines) = f.console("vurun()");
    killer.join().unwrap();
    let text = lines.join("\n");
    assert!(r.is_ok(), "{db}: {r:?}\n{text}");
    assert!(text.contains("; reconnecting"), "{db}: {text}");
    assert!(text.contains("reconnected"), "{db}: {text}");
    lines_name_their_own_vuser(&lines);
    let (r, _) = f.console("let l = lastrun(); [l.reconnects, l.failed_vus, l.transactions]");
    assert_eq!(r, Ok("[2, 0, 300]".to_string()), "{db}:\n{text}");
    f.ok("vudestroy");
}

#[test]
fn lost_connections_are_reconnected_on_postgres() {
    lost_connections_are_reconnected("pg");
}

#[test]
fn lost_connections_are_reconnected_on_mariadb() {
    lost_connections_are_reconnected("maria");
}
