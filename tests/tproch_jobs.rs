//! A TPROC-H run's job read back through `jobs`: first without a driver or a server (a run
//! result built here is recorded as `vurun` records it: the session's record, the recorder's
//! end, the store), shown by `jobs`, `jobs result`, `jobs ID`, `jobs ID result`, `jobs ID
//! queries`, `jobs ID tcount` and `jobs ID report`, in the console, in scripts and from the
//! shell; then a real power test's job on PostgreSQL and MariaDB, the counter in qph.

mod common;

use std::time::Duration;

use common::{hammer, text, Fixture};
use hammer::jobs::store::{default_path, Origin, Store};
use hammer::tpch::result::{QueryRun, QuerySet, Refresh, RefreshRun, RunResult};

/// A power test at scale factor 0.01: one set of the 22 queries in stream 0's order, query
/// `q` taking `q / 20` seconds and returning `q` rows but query 13, which returns none; RF1
/// before and RF2 after.
fn power_test() -> RunResult {
    let order: [u8; 22] = [
        14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12,
    ];
    let queries = order
        .iter()
        .enumerate()
        .map(|(i, &q)| QueryRun {
            query: q,
            position: i as u8 + 1,
            seconds: f64::from(q) / 20.0,
            rows: if q == 13 { 0 } else { u64::from(q) },
            error: None,
        })
        .collect();
    let refresh = |function, seconds| RefreshRun {
        vu: 1,
        pair: 1,
        function,
        seconds,
        rows: 90,
        error: None,
    };
    RunResult {
        qphh: None,
        scale_factor: 0.01,
        power_test: true,
        checked: Vec::new(),
        sets: vec![QuerySet {
            vu: 1,
            stream: 0,
            set: 1,
            queries,
            seconds: 12.9,
        }],
        refreshes: vec![
            refresh(Refresh::NewSales, 0.25),
            refresh(Refresh::OldSales, 0.125),
        ],
        query_streams: 1,
        active_vus: 1,
        elapsed: Duration::from_secs(14),
        streams: Duration::from_secs(14),
        stats: hammer::vu::Stats::new(hammer::tpch::TYPE_NAMES.len()),
        stopped_early: None,
        failed_vus: 0,
        client_cpu: None,
        abandoned_calls: 0,
        series: None,
    }
}

const ID: &str = "67FD24A6FDB403E2534383B1";

/// Records `r` as job [`ID`] in the fixture's jobs database, with one counter sample in qph.
fn record(f: &Fixture, r: &RunResult) {
    let store = Store::open(&default_path(f.home.path())).expect("jobs database");
    let spec = hammer::jobs::Spec {
        kind: hammer::jobs::Kind::Run,
        profile: hammer::jobs::Profile {
            db: "PostgreSQL".into(),
            workload: "TPROC-H".into(),
            mode: "power test".into(),
            vus: Some(1),
            warehouses: None,
        },
        settings: serde_json::json!({}),
    };
    let origin = Origin {
        hostname: "box".into(),
        pid: std::process::id(),
        pid_started: None,
    };
    store
        .insert_job(ID, &spec, &origin, 1_744_623_005_000)
        .unwrap();
    store
        .record_tcount(ID, 1_744_623_010_000, "qph", 6_480.0, None)
        .unwrap();
    let run = hammer::tpch::outcome::tpch_record(r);
    let end = hammer::jobs::recorder::end_of(&Ok(rhai::Dynamic::UNIT), false, Some(&run));
    store.finish(ID, &end, 1_744_623_019_000).unwrap();
}

fn json(out: &std::process::Output) -> serde_json::Value {
    let stdout = text(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {}", text(&out.stderr)))
}

#[test]
fn a_tpch_run_reads_back_through_jobs() {
    let mut f = Fixture::new();
    let r = power_test();
    let (k, g) = r.geomean().expect("queries returned rows");
    assert_eq!(k, 21);
    record(&f, &r);
    let geomean_line = format!("Geometric mean of query times returning rows (21) is {g:.5}");

    // The table: TPROC-H's section, the geometric mean in NOPM's place.
    let lines = f.ok("jobs");
    assert_eq!(lines[0], "TPROC-H Jobs", "{lines:#?}");
    assert!(lines[1].contains("GEOMEAN") && !lines[1].contains("NOPM"));
    assert!(
        lines[2].starts_with(ID) && lines[2].contains(&format!("{g:.5}     1  SUCCESS")),
        "{lines:#?}"
    );

    f.ok("jobs format text");
    let lines = f.ok(&format!("jobs {ID} result"));
    assert_eq!(
        &lines[..4],
        &[
            format!("Job {ID} result").as_str(),
            geomean_line.as_str(),
            "Completed 1 query set(s) in 13 seconds",
            "1 Active Virtual Users configured",
        ],
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"Vuser 1 pair 1: RF2 Old Sales refresh 0.125 s (90 rows)".to_string()),
        "{lines:#?}"
    );
    let lines = f.ok(&format!("jobs {ID}"));
    assert!(lines.contains(&geomean_line), "{lines:#?}");
    assert!(
        lines.contains(&"1 active virtual users, 22 queries in 14.0 s".to_string()),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("NOPM")), "{lines:#?}");

    let t = f.ok(&format!("jobs {ID} queries"));
    assert_eq!(t[0], format!("Job {ID} query times, scale factor 0.01"));
    assert_eq!(
        t[1],
        "Vuser 1 stream 0 query set 1: 22 of 22 queries in 12.900 s"
    );
    assert_eq!(t[3], "   1     14       0.700          14");
    assert_eq!(t[12], "  10     13       0.650           0");

    let lines = f.ok("jobs result");
    assert_eq!(
        lines,
        [format!(
            "{ID}  2025-04-14 09:30:05  PostgreSQL  TPROC-H  {geomean_line}; Completed 1 query set(s) in 13 seconds"
        )]
    );

    let lines = f.ok(&format!("jobs {ID} tcount"));
    assert_eq!(
        lines,
        [
            "TIME (UTC)           PostgreSQL QPH",
            "2025-04-14 09:30:10            6480"
        ]
    );

    // Scripts get the same as values.
    let (v, _) = f.console(&format!(
        r#"let q = jobs("{ID}", "queries"); let r = jobs("{ID}", "result"); [q.sets[0].queries[1].query, q.sets[0].queries[1].seconds, q.refreshes[0].function, r.querysets, r.geomean_queries, jobs("{ID}", "tcount")[0].qph]"#
    ));
    assert_eq!(v.unwrap(), "[2, 0.1, \"RF1\", 1, 21, 6480.0]");

    // From the operating-system shell, in JSON.
    let out = hammer(f.home.path(), &["jobs", "--json", ID, "result"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v = json(&out);
    assert!((v["geomean"].as_f64().unwrap() - g).abs() < 1e-12, "{v}");
    assert_eq!(v["querysets"], 1);
    assert_eq!(v["queries"], 22);
    assert_eq!(v["scale_factor"], 0.01);
    assert!(v["nopm"].is_null());
    let out = hammer(f.home.path(), &["jobs", "--json", "result"], "");
    let v = json(&out);
    assert_eq!(v[ID]["bm"], "TPROC-H");
    assert_eq!(v[ID]["querysets"], 1);
    assert_eq!(v[ID]["queries"], 22);
    let out = hammer(f.home.path(), &["jobs", "--json", ID, "tcount"], "");
    let v = json(&out);
    assert_eq!(v[0]["qph"], 6480.0);
    let out = hammer(f.home.path(), &["jobs", "--json", "list"], "");
    let v = json(&out);
    assert_eq!(v[0]["workload"], "TPROC-H");
    assert_eq!(v[0]["querysets"], 1);

    // The report: the per-query chart with the geometric mean, and the refresh functions.
    let file = f.home.path().join("tproch.html");
    f.ok(&format!("jobs {ID} report {}", file.display()));
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.contains("Seconds per query"));
    assert!(html.contains(&format!("geometric mean {g:.5} s")));
    assert_eq!(html.matches("<title>query ").count(), 22);
    assert!(html.contains("<h2>Refresh functions</h2>"));
    assert!(html.contains("<h2>Queries per hour over time</h2>"));

    // Deleting it leaves nothing behind.
    f.ok(&format!("jobs {ID} delete"));
    let lines = f.ok("jobs");
    assert!(lines[0].starts_with("No jobs found"), "{lines:#?}");
}

/// A job of another workload has no query times, and says where they come from.
#[test]
fn a_job_without_queries_says_so() {
    let mut f = Fixture::new();
    let dir = tempfile::tempdir().unwrap();
    f.ok(&format!("dgset directory {}", dir.path().display()));
    let lines = f.ok("datagenrun");
    let id = lines
        .last()
        .and_then(|l| l.strip_prefix("Data Generation jobid="))
        .unwrap_or_else(|| panic!("{lines:#?}"))
        .to_string();
    f.ok("jobs format text");
    assert_eq!(
        f.ok(&format!("jobs {id} queries")),
        [format!(
            "Job {id} has no query times (a TPROC-H run records them)"
        )]
    );
    let (v, _) = f.console(&format!(r#"jobs("{id}", "queries") == ()"#));
    assert_eq!(v.unwrap(), "true");
}

/// A real power test's job (scale factor 0.01, refresh on, the counter running in qph): the
/// geometric mean `lastrun()` gives is the job's, its 22 queries and two refresh functions are
/// kept, the counter's samples are qph, and the table lists it under TPROC-H.
fn a_power_test_s_job(db: &'static str, rdbms: &str) {
    let (mut f, _cleanup) = common::tproch_session(db, "jobs");
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok(&format!(
        "diset tpch {db}_refresh_on true; diset tpch {db}_trickle_refresh 0"
    ));
    f.ok("tcset refreshrate 1; vuset vu 1");
    f.ok("tcstart");
    let (r, lines) = f.console("let id = vurun(); sleep(1.5); tcstop(); id");
    let id = r.unwrap_or_else(|e| panic!("{e}\n{}", lines.join("\n")));
    let id = id.trim_matches('"').to_string();
    assert!(
        lines.iter().any(|l| l.ends_with(&format!(" {rdbms} qph"))),
        "{lines:#?}"
    );
    let (g, _) = f.console("lastrun().geomean");
    let g: f64 = g.unwrap().parse().unwrap();

    let out = hammer(f.home.path(), &["jobs", "--json", &id, "result"], "");
    let v = json(&out);
    assert_eq!(v["geomean"].as_f64(), Some(g), "{v}");
    assert_eq!(v["querysets"], 1);
    assert_eq!(v["queries"], 22);
    assert_eq!(v["scale_factor"], 0.01);
    assert!(v["power_at_size"].as_f64().is_some_and(|p| p > 0.0), "{v}");
    let out = hammer(f.home.path(), &["jobs", "--json", &id, "queries"], "");
    let v = json(&out);
    let queries = v["sets"][0]["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 22);
    assert_eq!(queries[0]["query"], 14, "stream 0 starts with query 14");
    assert_eq!(v["refreshes"].as_array().unwrap().len(), 2, "{v}");
    // The samples taken while the job ran (a run at this scale may end within one refresh).
    let out = hammer(f.home.path(), &["jobs", "--json", &id, "tcount"], "");
    let v = json(&out);
    for sample in v.as_array().unwrap() {
        assert!(
            sample["qph"].is_number() && sample.get("tpm").is_none(),
            "{v}"
        );
    }
    let out = hammer(f.home.path(), &["jobs", "--json", &id, "timing"], "");
    let v = json(&out);
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "query 14" && t["committed"] == 1),
        "{v}"
    );
    let lines = f.ok("jobs");
    let at = lines
        .iter()
        .position(|l| l == "TPROC-H Jobs")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        lines[at..]
            .iter()
            .any(|l| l.starts_with(&id) && l.contains(&format!("{g:.5}     1  SUCCESS"))),
        "{lines:#?}"
    );
}

#[test]
fn pg_a_power_test_s_job() {
    a_power_test_s_job("pg", "PostgreSQL");
}

#[test]
fn maria_a_power_test_s_job() {
    a_power_test_s_job("maria", "MariaDB");
}
