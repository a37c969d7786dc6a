//! The job history on the real servers: a build, a check, timed runs (one stopped by Ctrl-C)
//! and their history read back, compared and reported; a MariaDB job compared with a
//! PostgreSQL run; and a hammer killed mid-run.

mod common;

use common::{hammer, text, Fixture, Servers};

/// A fixture on the test PostgreSQL, with its own schema (`hammer_jobs_<name>_<pid>`).
fn on_postgres(name: &str) -> (Fixture, String) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_jobs_{name}_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}; \
         diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1"
    ));
    (f, unique)
}

/// Runs Rhai that must succeed and returns its value as text.
fn value(f: &mut Fixture, code: &str) -> String {
    let (r, lines) = f.console(code);
    r.unwrap_or_else(|e| panic!("{code}: {e}\n{}", lines.join("\n")))
}

/// The id in the last `<label> jobid=<id>` line (a transaction counter or the metrics agent
/// running alongside may print after it).
fn jobid(lines: &[String], label: &str) -> String {
    let prefix = format!("{label} jobid=");
    lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {label} jobid line:\n{}", lines.join("\n")))
        .to_string()
}

#[test]
fn builds_runs_and_their_history() {
    let (mut f, unique) = on_postgres("run");

    // buildschema and checkschema keep returning their maps, now with the job id.
    let (r, lines) = f.console("let b = buildschema(); [b.ok, b.jobid]");
    let build = jobid(&lines, "Schema Build");
    assert_eq!(r, Ok(format!("[true, \"{build}\"]")));
    let (r, lines) = f.console("let c = checkschema(); [c.ok, c.jobid]");
    let check = jobid(&lines, "Schema Check");
    assert_eq!(r, Ok(format!("[true, \"{check}\"]")));

    // Four short timed runs with the same settings: the repeats that measure the noise.
    f.ok("diset tpcc pg_driver timed; diset tpcc pg_rampup 0; diset tpcc pg_duration 0.08; vuset vu 2; vuset delay 0");
    let mut runs = Vec::new();
    for _ in 0..4 {
        let (r, lines) = f.console("vurun()");
        let id = jobid(&lines, "Benchmark Run");
        assert_eq!(r, Ok(id.clone()), "vurun returns its job id");
        assert_eq!(value(&mut f, "lastrun().id"), id);
        runs.push(id);
        f.ok("vudestroy");
    }
    let last_nopm: f64 = value(&mut f, "lastrun().nopm").parse().unwrap();
    let last_committed = value(&mut f, "lastrun().new_order.committed");

    // A run stopped by Ctrl-C keeps what it measured.
    f.ok("diset tpcc pg_duration 1");
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(4));
        interrupt.fire();
    });
    let (r, lines) = f.console("vurun()");
    ctrl_c.join().unwrap();
    // The id is said once, in the verdict.
    assert!(!lines.iter().any(|l| l.contains("jobid=")), "{lines:#?}");
    let stopped = r
        .as_ref()
        .err()
        .and_then(|e| e.strip_prefix("Benchmark Run jobid="))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{r:?}"))
        .to_string();
    // Not a failure, but the end of the script: the message names the job and why.
    assert_eq!(
        r,
        Err(format!(
            "Benchmark Run jobid={stopped} STOPPED: stopped before the end of the duration"
        )),
        "{}",
        lines.join("\n")
    );
    f.engine.session().interrupt.clear();
    f.ok("vudestroy");

    // A MariaDB job: a check of a schema that is not there.
    f.ok(&format!(
        "dbset db maria; diset tpcc maria_dbase hammer_jobs_none_{}",
        std::process::id()
    ));
    let (_, lines) = f.console("checkschema()");
    let maria = jobid(&lines, "Schema Check");
    f.ok("dbset db pg");

    // The list, newest first, as scripts get it.
    f.ok("jobs format json");
    let all = [&build, &check]
        .into_iter()
        .chain(runs.iter())
        .chain([&stopped, &maria])
        .map(|id| format!("\"{id}\""))
        .rev()
        .collect::<Vec<_>>()
        .join(", ");
    let (r, _) = f.console("let l = jobs(\"list\"); l.map(|j| j.id)");
    assert_eq!(r, Ok(format!("[{all}]")));
    let (r, _) = f.console("l.map(|j| j.status)");
    assert_eq!(
        r,
        Ok(r#"["FAILED", "STOPPED", "SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS"]"#.into())
    );
    let (r, _) = f.console("[l[0].db, l[1].db, l[1].mode, l[1].vus, l[1].warehouses, l[7].type]");
    assert_eq!(
        r,
        Ok(r#"["MariaDB", "PostgreSQL", "timed, stored functions", 2, 1, "Schema Build"]"#.into())
    );

    // One run's parts.
    let r4 = &runs[3];
    let nopm: f64 = value(&mut f, &format!("jobs(\"{r4}\", \"result\").nopm"))
        .parse()
        .unwrap();
    assert_eq!(nopm, last_nopm, "the stored NOPM is lastrun()'s");
    let (r, _) = f.console(&format!(
        "let t = jobs(\"{r4}\", \"timing\"); [t.len(), t[0].name, t[0].committed, t[0].p99_ms >= t[0].p50_ms]"
    ));
    assert_eq!(r, Ok(format!("[5, \"new order\", {last_committed}, true]")));
    let (r, _) = f.console(&format!(
        "let s = jobs(\"{r4}\", \"system\"); [s.server_version.sub_string(0, 13), s.server_settings.shared_buffers != \"\", s.cpu_count > 0, s.memory_bytes > 0]"
    ));
    assert_eq!(r, Ok(r#"["PostgreSQL 15", true, true, true]"#.into()));
    let (r, _) = f.console(&format!(
        "let d = jobs(\"{r4}\", \"dict\"); [d.pg.tpcc.pg_dbase, d.pg.tpcc.pg_superuserpass == \"postgres\", d.generic.virtual_user_options.virtual_users]"
    ));
    assert_eq!(r, Ok(format!("[\"{unique}\", false, \"2\"]")));
    let (r, _) = f.console(&format!(
        "let o = jobs(\"{r4}\", \"output\", 1); [o.all(|l| l.vu == 1), o.some(|l| l.line.starts_with(\"Vuser 1:TEST RESULT : System achieved\"))]"
    ));
    assert_eq!(r, Ok("[true, true]".into()));
    let (r, _) = f.console(&format!(
        "let s = jobs(\"{stopped}\"); [s.status, s.note, s.result.nopm > 0.0]"
    ));
    assert_eq!(
        r,
        Ok(r#"["STOPPED", "stopped before the end of the duration", true]"#.into())
    );

    // The text forms.
    f.ok("jobs format text");
    let lines = f.ok(&format!("jobs {r4}"));
    assert_eq!(lines[0], format!("Job {r4}: Benchmark Run SUCCESS"));
    assert_eq!(
        lines[1],
        "PostgreSQL TPROC-C, timed, stored functions, 2 virtual users, 1 warehouse"
    );
    assert!(
        lines[3].starts_with(&format!(
            "TEST RESULT : System achieved {:.0} NOPM from ",
            last_nopm
        )),
        "{lines:#?}"
    );
    let lines = f.ok(&format!("jobs {} status", &build[..10]));
    assert_eq!(lines[0], format!("Job {build} (Schema Build): SUCCESS"));

    // diff: the two compared runs leave two others with the same settings to measure noise.
    let lines = f.ok(&format!("jobs diff {} {r4}", runs[0]));
    let text_diff = lines.join("\n");
    assert!(
        lines.iter().any(|l| l.starts_with("NOPM ")) && text_diff.contains("new order p99 ms"),
        "{text_diff}"
    );
    assert!(
        text_diff.contains("Noise: 2 other successful runs with these settings, NOPM mean"),
        "{text_diff}"
    );
    assert!(
        text_diff.contains("is beyond the run-to-run noise")
            || text_diff.contains("is within the run-to-run noise"),
        "{text_diff}"
    );
    // Same settings, same server: no warning, but that the machine was busier for one run
    // (the tests running beside this one make it so, and the diff says it).
    let quiet = "Warning: the machine was not equally quiet";
    assert!(
        !text_diff
            .lines()
            .any(|l| l.contains("Warning") && !l.starts_with(quiet)),
        "{text_diff}"
    );
    assert!(text_diff.contains("host CPU busy %"), "{text_diff}");
    let (r, _) = f.console(&format!(
        "let d = jobs(\"diff\", \"{}\", \"{r4}\"); [d.base_noise.repeats, d.base_noise.nopm_cv_pct > 0.0, d.nopm.compare == {last_nopm:?}, d.latency.len(), d.warnings.filter(|w| !w.starts_with(\"{quiet}\")).len(), d.base_cpu.hammer_pct > 0.0]",
        runs[0]
    ));
    assert_eq!(r, Ok("[2, true, true, 5, 0, true]".into()));
    // Different databases and workloads: allowed, with warnings.
    let lines = f.ok(&format!("jobs diff {} {maria}", runs[0]));
    assert!(
        lines.iter().any(|l| l
            .starts_with("Warning: the jobs ran on different databases (PostgreSQL and MariaDB)")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with(
            "Warning: the jobs are different workloads (TPROC-C Benchmark Run and TPROC-C Schema Check)"
        )),
        "{lines:#?}"
    );
    assert!(lines.last().unwrap().starts_with("No NOPM to compare"));

    // The report, and the same job from the operating-system shell.
    let report = f.home.path().join("run.html");
    f.ok(&format!("jobs {r4} report {}", report.display()));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("<svg") && html.contains("TEST RESULT : System achieved"));
    // No counter ran: the report says so, whether or not the live view's rates are drawn.
    assert!(
        html.contains("No series of the database&#39;s counters")
            || html.contains("The transaction counter (tcstart) did not run"),
        "{html}"
    );
    assert!(!html.contains("http"));
    let out = hammer(f.home.path(), &["jobs", "--json", r4, "result"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nopm"].as_f64(), Some(last_nopm));
    assert_eq!(v["id"], r4.as_str());

    let lines = f.ok("deleteschema");
    jobid(&lines, "Schema Delete");
    let lines = f.ok(&format!("jobs {} delete", runs[0]));
    assert_eq!(lines, [format!("Deleted Jobid {}", runs[0])]);
    let (r, _) = f.console("jobs(\"list\").len()");
    assert_eq!(r, Ok("8".into()), "8 jobs - 1 deleted + the delete");
}

#[test]
fn a_killed_hammer_leaves_an_aborted_job_and_a_whole_database() {
    let servers = Servers::get();
    servers.require();
    let home = tempfile::tempdir().unwrap();
    let unique = format!("hammer_jobs_kill_{}", std::process::id());
    let setup = format!(
        "{}\ndbset(\"db\", \"pg\");\ndiset(\"tpcc\", \"pg_dbase\", \"{unique}\");\ndiset(\"tpcc\", \"pg_user\", \"{unique}\");\n",
        servers.configure()
    );
    let script = home.path().join("run.rhai");
    std::fs::write(
        &script,
        format!(
            "{setup}buildschema();\ndiset(\"tpcc\", \"pg_driver\", \"timed\");\ndiset(\"tpcc\", \"pg_rampup\", 0);\ndiset(\"tpcc\", \"pg_duration\", 2);\nvuset(\"vu\", 2);\nvurun();\n"
        ),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", script.to_str().unwrap()])
        .env("HAMMER_HOME", home.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let list = || -> serde_json::Value {
        let out = hammer(home.path(), &["jobs", "--json", "list"], "");
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null)
    };
    // Wait until the run is measuring (its lines reach the database as they are printed).
    let started = std::time::Instant::now();
    let run = loop {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(90),
            "the run never started: {}",
            list()
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        let jobs = list();
        let Some(run) = jobs
            .as_array()
            .and_then(|a| a.iter().find(|j| j["kind"] == "run"))
            .and_then(|j| j["id"].as_str().map(str::to_string))
        else {
            continue;
        };
        let out = hammer(home.path(), &["jobs", "--text", &run, "output"], "");
        if text(&out.stdout).contains("Timing test period") {
            break run;
        }
    };
    std::thread::sleep(std::time::Duration::from_secs(1));
    child.kill().unwrap(); // SIGKILL: no chance to record anything more
    child.wait().unwrap();

    let jobs = list();
    let statuses: Vec<(&str, &str)> = jobs
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["kind"].as_str().unwrap(), j["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses, [("run", "ABORTED"), ("build", "SUCCESS")]);
    let out = hammer(home.path(), &["jobs", "--text", &run, "output"], "");
    let output = text(&out.stdout);
    assert!(
        output.contains("Vuser 1:Timing test period of 2 in minutes"),
        "{output}"
    );
    let out = hammer(home.path(), &["jobs", "--json", &run, "result"], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["nopm"].is_null(), "nothing was measured to the end: {v}");

    // The file is whole, and the next hammer records on.
    let conn = rusqlite::Connection::open(home.path().join("jobs.db")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let cleanup = home.path().join("cleanup.rhai");
    std::fs::write(&cleanup, format!("{setup}deleteschema();\n")).unwrap();
    let out = hammer(home.path(), &["auto", cleanup.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let jobs = list();
    assert_eq!(jobs[0]["kind"], "delete");
    assert_eq!(jobs[0]["status"], "SUCCESS");
    assert_eq!(jobs.as_array().unwrap().len(), 3);
}

#[test]
fn the_counter_and_cpu_series_taken_during_a_run_are_kept_with_it() {
    let (mut f, _) = on_postgres("series");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("tcset refreshrate 1; tcstart; metset interval 1; metstart");
    f.ok("diset tpcc pg_driver timed; diset tpcc pg_rampup 0; diset tpcc pg_duration 0.1; vuset vu 2; vuset delay 0");
    let (r, lines) = f.console("vurun()");
    let id = jobid(&lines, "Benchmark Run");
    assert_eq!(r, Ok(id.clone()));
    f.ok("tcstop; metstop; vudestroy");
    // About six one-second samples of each while the 6 s run ran, taken by the job.
    let tcount: i64 = value(&mut f, &format!("jobs(\"{id}\", \"tcount\").len()"))
        .parse()
        .unwrap();
    let metrics: i64 = value(&mut f, &format!("jobs(\"{id}\", \"metrics\").len()"))
        .parse()
        .unwrap();
    assert!((3..=9).contains(&tcount), "tcount samples: {tcount}");
    assert!((3..=9).contains(&metrics), "metrics samples: {metrics}");
    let busiest: f64 = value(
        &mut f,
        &format!("let m = 0.0; for s in jobs(\"{id}\", \"tcount\") {{ if s.tpm > m {{ m = s.tpm; }} }} m"),
    )
    .parse()
    .unwrap();
    assert!(busiest > 0.0, "the counter saw the run's transactions");
    f.ok("deleteschema()");
}

#[test]
fn a_run_s_live_view_is_shown_and_kept_with_its_job() {
    let (mut f, _) = on_postgres("live");
    f.ok("buildschema");
    f.ok(
        "diset tpcc pg_driver timed; diset tpcc pg_rampup 0.02; diset tpcc pg_duration 0.06; \
         vuset vu 2; vuset delay 0; vuset refreshrate 1",
    );
    let (r, lines) = f.console("vurun()");
    let id = jobid(&lines, "Benchmark Run");
    assert_eq!(r, Ok(id.clone()), "{}", lines.join("\n"));
    // Not a terminal: one progress line per second, rampup first, the database's rates in
    // the measured window, every transaction type named.
    let progress: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!((4..=10).contains(&progress.len()), "{}", lines.join("\n"));
    assert!(progress[0].contains(", rampup, "), "{}", progress[0]);
    let measured = progress
        .iter()
        .find(|l| l.contains(", measured, ") && l.contains(" NOPM "))
        .unwrap_or_else(|| panic!("a measured line with NOPM:\n{}", lines.join("\n")));
    for word in [
        " TPM ",
        "new order ",
        "payment ",
        "stock level ",
        "client cpu ",
    ] {
        assert!(measured.contains(word), "{word} in {measured}");
    }
    f.ok("vudestroy");

    // The job keeps the series: as a script reads it, as text, and drawn in the report.
    let (r, _) = f.console(&format!(
        "let p = jobs(\"{id}\", \"progress\"); [p.names.len(), p.points.len() >= 4, \
         p.points[0].phase, p.window[0] > 0.5, p.points.some(|x| x.phase == \"measured\" && x.rates[0][1] > 0.0)]"
    ));
    assert_eq!(r, Ok(r#"[5, true, "rampup", true, true]"#.into()));
    f.ok("jobs format text");
    let text = f.ok(&format!("jobs {id} progress")).join("\n");
    assert!(text.starts_with(" SECONDS  PHASE"), "{text}");
    assert!(text.contains("measured window: "), "{text}");
    let report = f.home.path().join("live.html");
    f.ok(&format!("jobs {id} report {}", report.display()));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("95th percentile per type"), "{html}");
    assert_eq!(html.matches(r#"class="window""#).count(), 2);
    f.ok("deleteschema");
}
