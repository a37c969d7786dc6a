//! The job history without a database server: jobs of data generation and of failed checks,
//! the bad inputs of `jobs`, a damaged or unwritable jobs database, `hammer jobs` from the
//! operating-system shell, and two hammer processes recording at once.

mod common;

use common::{hammer, text, Fixture};

/// A fixture whose data generation writes into its own directory.
fn with_datagen_dir() -> (Fixture, tempfile::TempDir) {
    let mut f = Fixture::new();
    let dir = tempfile::tempdir().unwrap();
    f.ok(&format!("dgset directory {}", dir.path().display()));
    (f, dir)
}

fn json(out: &std::process::Output) -> serde_json::Value {
    let stdout = text(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {}", text(&out.stderr)))
}

#[test]
fn a_datagen_job_is_recorded_and_read_back() {
    let (mut f, _dir) = with_datagen_dir();
    let lines = f.ok("jobs");
    assert!(
        lines[0].starts_with("No jobs found in database file ") && lines[0].ends_with("jobs.db"),
        "{lines:?}"
    );
    let lines = f.ok("datagenrun");
    let rows = lines
        .iter()
        .find_map(|l| {
            l.split_once(" MINUTES (")?
                .1
                .split_once(" rows")?
                .0
                .parse::<u64>()
                .ok()
        })
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let last = lines.last().unwrap();
    let id = last
        .strip_prefix("Data Generation jobid=")
        .unwrap_or_else(|| panic!("{lines:#?}"))
        .to_string();
    assert_eq!(id.len(), 24);

    // The table, and the same from the operating-system shell in JSON.
    let lines = f.ok("jobs");
    assert!(lines[0].starts_with("JOBID"), "{lines:?}");
    assert!(
        lines[1].starts_with(&id)
            && lines[1].contains("Data Generation")
            && lines[1].ends_with("SUCCESS"),
        "{lines:?}"
    );
    let out = hammer(f.home.path(), &["jobs", "--json", "list"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let list = json(&out);
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["kind"], "datagen");
    assert_eq!(list[0]["type"], "Data Generation");
    assert_eq!(list[0]["status"], "SUCCESS");
    assert_eq!(list[0]["warehouses"], 1);
    assert!(list[0]["nopm"].is_null());

    // A script gets values back; the output was kept with its time and virtual user.
    f.ok("jobs format text");
    let (r, _) = f.console(&format!(
        r#"let o = jobs("{id}", "output"); [o.len() > 3, o[0].line, o[0].vu, jobs("{id}").status]"#
    ));
    let r = r.unwrap();
    assert!(
        r.starts_with("[true, \"Ready to generate the data for a 1 Warehouse")
            && r.ends_with(", 0, \"SUCCESS\"]"),
        "{r}"
    );
    let (r, _) = f.console(&format!(r#"jobs("{}", "result").returned"#, &id[..12]));
    assert_eq!(
        r.unwrap(),
        rows.to_string(),
        "datagenrun's value: the rows written"
    );
    let lines = f.ok(&format!("jobs {id} system"));
    assert!(lines.iter().any(|l| l.starts_with("cpu ")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("server") && l.contains("not read")),
        "data generation needs no server: {lines:?}"
    );
    let lines = f.ok(&format!("jobs {id} dict"));
    assert!(
        lines.contains(&" gen_count_ware = 1".to_string()),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("pg_superuserpass = postgres")),
        "passwords are masked: {lines:?}"
    );
    let report = f.home.path().join("datagen.html");
    let lines = f.ok(&format!("jobs {id} report {}", report.display()));
    assert_eq!(
        lines,
        [format!(
            "Wrote the report of job {id} to {}",
            report.display()
        )]
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("Data Generation")
            && html.contains("No series of the database&#39;s counters")
    );

    let lines = f.ok(&format!("jobs {id} delete"));
    assert_eq!(lines, [format!("Deleted Jobid {id}")]);
    let e = f.err(&format!("jobs {id}"));
    assert_eq!(
        e,
        format!("Jobid {id} does not exist; type jobs for the list")
    );
}

#[test]
fn bad_jobs_input_says_what_is_valid() {
    let mut f = Fixture::new();
    // Unknown id: well formed, but no such job.
    let e = f.err("jobs 67FD24A6FDB403E253438393 result");
    assert_eq!(
        e,
        "Jobid 67FD24A6FDB403E253438393 does not exist; type jobs for the list"
    );
    // A malformed id.
    let e = f.err("jobs 67FD24A6FDB403E25343839Z");
    assert!(
        e.starts_with("Error: 67FD24A6FDB403E25343839Z is not a job id: a job id is 24 hexadecimal characters"),
        "{e}"
    );
    // Unknown subcommands, before and after an id: the usage lists the valid ones.
    let e = f.err("jobs frobnicate");
    assert!(
        e.starts_with("Error: unknown jobs subcommand frobnicate; valid are list, result, format, diff, run, profileid, profile, profilestep, or a job id\nUsage: jobs [list | result | format [text|json] | diff ID1 ID2 | run [NAME] | profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID [status|result|timing|queries|tcount|progress|metrics|system|dict|output [VU]|delete|report FILE.html]]"),
        "{e}"
    );
    let e = f.err("job 67FD24A6FDB403E253438393 resutl");
    assert!(
        e.starts_with("Error: unknown jobs subcommand resutl; valid after a job id are status, result, timing"),
        "{e}"
    );
    let e = f.err("jobs format xml");
    assert!(
        e.starts_with("Error: jobs format is text or json, not xml"),
        "{e}"
    );
    let e = f.err("jobs diff 67FD24A6FDB403E253438393");
    assert!(e.contains("jobs diff takes two job ids"), "{e}");
    // Rhai's form reaches the same checks; the console keeps running.
    let e = f.err(r#"jobs("list", "x", "y", "z", "a", "b")"#);
    assert!(e.starts_with("Error: jobs takes 0 to 5 arguments"), "{e}");
    f.ok("jobs format");
    let help = f.ok("help jobs");
    assert!(
        help[0].starts_with(
            "jobs - Usage: jobs [list | result | format [text|json] | diff ID1 ID2 | run [NAME] | profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID ["
        ),
        "{help:?}"
    );
    assert!(f.ok("help job")[1] == "The same as jobs.");

    // From the operating-system shell: the message on stderr and a failing status.
    let out = hammer(f.home.path(), &["jobs", "nonsense"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("Error: unknown jobs subcommand nonsense"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_failed_command_is_a_failed_job_and_a_refused_one_is_none() {
    let mut f = Fixture::new();
    // Nothing listens on port 1: the check fails, and says so in its job.
    f.ok("dbset db pg; diset connection pg_host 127.0.0.1; diset connection pg_port 1");
    let (r, lines) = f.console("checkschema");
    let e = r.unwrap_err();
    let last = lines.last().unwrap();
    let id = last
        .strip_prefix("Schema Check jobid=")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    f.ok("jobs format text");
    let status = f.ok(&format!("jobs {id} status"));
    assert_eq!(status[0], format!("Job {id} (Schema Check): FAILED"));
    // The error names the job, its status and why; the why is the job's note.
    assert_eq!(
        e,
        format!("Schema Check jobid={id} FAILED: {}", status[1]),
        "the error is the job's verdict"
    );
    assert!(status[1].contains("connection refused"), "{status:?}");
    let out = hammer(f.home.path(), &["jobs", "--json", id, "status"], "");
    let s = json(&out);
    assert_eq!(
        (&s["status"], &s["exit_status"]),
        (&"FAILED".into(), &1.into())
    );
    assert_eq!(s["note"], status[1].as_str());
    // A command refused before it starts (virtual users exist) is no job.
    f.ok("vucreate");
    f.err("buildschema");
    f.ok("vudestroy");
    let out = hammer(f.home.path(), &["jobs"], "");
    let list = text(&out.stdout);
    assert_eq!(list.lines().count(), 2, "a header and one job: {list}");
    let out = hammer(f.home.path(), &["jobs", "--json"], "");
    assert_eq!(json(&out)[0]["status"], "FAILED");
}

#[test]
fn a_damaged_jobs_database_warns_once_and_the_work_still_runs() {
    let (mut f, _dir) = with_datagen_dir();
    let db = f.home.path().join("jobs.db");
    std::fs::write(&db, vec![b'#'; 4096]).unwrap();
    let lines = f.ok("datagenrun");
    let warnings: Vec<&String> = lines.iter().filter(|l| l.starts_with("Warning")).collect();
    assert_eq!(warnings.len(), 1, "{lines:#?}");
    assert!(
        warnings[0].starts_with(&format!(
            "Warning: jobs are not recorded: jobs database {}: file is not a database",
            db.display()
        )) && warnings[0].contains("move it aside"),
        "{warnings:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("1 WAREHOUSE SCHEMA GENERATED")),
        "{lines:#?}"
    );
    assert!(lines.last().unwrap().starts_with("Data Generation jobid="));
    // Once per session.
    f.ok(&format!(
        "dgset directory {}",
        tempfile::tempdir().unwrap().keep().display()
    ));
    let lines = f.ok("datagenrun");
    assert!(
        !lines.iter().any(|l| l.starts_with("Warning")),
        "{lines:#?}"
    );
    let e = f.err("jobs");
    assert!(
        e.starts_with("Error: cannot read the jobs: jobs database") && e.contains("move it aside"),
        "{e}"
    );
    // The file is the user's: never replaced behind their back.
    assert_eq!(std::fs::read(&db).unwrap(), vec![b'#'; 4096]);
}

#[test]
fn an_unwritable_jobs_database_warns_and_the_work_still_runs() {
    let (mut f, _dir) = with_datagen_dir();
    // A directory where the file belongs: nothing can be created or written there (even
    // as root, which file modes would not stop).
    std::fs::create_dir(f.home.path().join("jobs.db")).unwrap();
    let lines = f.ok("datagenrun");
    let warnings: Vec<&String> = lines.iter().filter(|l| l.starts_with("Warning")).collect();
    assert_eq!(warnings.len(), 1, "{lines:#?}");
    assert!(
        warnings[0].contains("unable to open database file")
            && warnings[0].contains("hammer needs to create and write it"),
        "{warnings:?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.contains("WAREHOUSE SCHEMA GENERATED")));
}

#[test]
fn two_hammer_processes_record_at_once() {
    let home = tempfile::tempdir().unwrap();
    let script = |n: u32| {
        let dir = home.path().join(format!("dg{n}"));
        std::fs::create_dir(&dir).unwrap();
        let path = home.path().join(format!("p{n}.rhai"));
        // A long output stream (data generation) and many short jobs (checks that fail at
        // once: nothing listens on port 1), from both processes at the same time.
        std::fs::write(
            &path,
            format!(
                r#"dbset("db", "pg");
diset("connection", "pg_host", "127.0.0.1");
diset("connection", "pg_port", 1);
dgset("directory", "{}");
for i in 0..15 {{ try {{ checkschema(); }} catch {{ }} }}
datagenrun();
for i in 0..15 {{ try {{ checkschema(); }} catch {{ }} }}
"#,
                dir.display()
            ),
        )
        .unwrap();
        path
    };
    let (a, b) = (script(1), script(2));
    let start = |path: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
            .args(["auto", path.to_str().unwrap()])
            .env("HAMMER_HOME", home.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (pa, pb) = (start(&a), start(&b));
    let (oa, ob) = (
        pa.wait_with_output().unwrap(),
        pb.wait_with_output().unwrap(),
    );
    for o in [&oa, &ob] {
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(!text(&o.stderr).contains("Warning"), "{}", text(&o.stderr));
    }
    let out = hammer(home.path(), &["jobs", "--json", "list"], "");
    let list = json(&out);
    let jobs = list.as_array().unwrap();
    assert_eq!(jobs.len(), 62, "31 jobs from each process");
    let pids: std::collections::BTreeSet<i64> =
        jobs.iter().map(|j| j["pid"].as_i64().unwrap()).collect();
    assert_eq!(pids.len(), 2);
    let count = |kind: &str, status: &str| {
        jobs.iter()
            .filter(|j| j["kind"] == kind && j["status"] == status)
            .count()
    };
    assert_eq!(count("check", "FAILED"), 60);
    assert_eq!(count("datagen", "SUCCESS"), 2);
    // Newest first; and the two processes' jobs interleave: they did run at once.
    let ids: Vec<&str> = jobs.iter().map(|j| j["id"].as_str().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]));
    let switches = jobs
        .windows(2)
        .filter(|w| w[0]["pid"] != w[1]["pid"])
        .count();
    eprintln!("the two processes' jobs interleave {switches} times");
    assert!(switches >= 2, "{switches}");
    // Every job has all its lines, in order.
    for j in jobs {
        let id = j["id"].as_str().unwrap();
        let out = hammer(home.path(), &["jobs", "--json", id, "output"], "");
        let lines = json(&out);
        let lines: Vec<&str> = lines
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["line"].as_str().unwrap())
            .collect();
        let n = lines.len();
        if j["kind"] == "datagen" {
            assert!(lines[0].starts_with("Ready to generate"), "{lines:?}");
            assert!(
                lines[n - 2].contains("WAREHOUSE SCHEMA GENERATED"),
                "{lines:?}"
            );
            assert_eq!(lines[n - 1], format!("Data Generation jobid={id}"));
        } else {
            assert_eq!(lines[0], "Checking schema with 1 Virtual User", "{id}");
            assert_eq!(lines[n - 1], format!("Schema Check jobid={id}"));
        }
    }
}

/// Ctrl-C during a data generation: the job is STOPPED, and the input ends there (try does
/// not catch a stop); the next input runs.
#[test]
fn a_stopped_data_generation_ends_the_input_with_the_job_stopped() {
    let (mut f, _dir) = with_datagen_dir();
    f.ok("dgset warehouse 50; dgset vu 1");
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(400));
        interrupt.fire();
    });
    let (r, lines) = f.console("try { datagenrun(); } catch { print(\"caught\"); }");
    ctrl_c.join().unwrap();
    let e = r.unwrap_err();
    // The id is said once, in the verdict a stop raises.
    let id = e
        .strip_prefix("Data Generation jobid=")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{e}"))
        .to_string();
    assert!(
        e.starts_with(&format!("Data Generation jobid={id} STOPPED: ")),
        "{e}"
    );
    assert!(!lines.iter().any(|l| l.contains("jobid=")), "{lines:#?}");
    assert!(!lines.iter().any(|l| l == "caught"), "{lines:#?}");
    f.engine.session().interrupt.clear();
    let (r, _) = f.console(&format!("jobs(\"{id}\", \"status\").status"));
    assert_eq!(r, Ok("STOPPED".to_string()));
}
