//! Unit tests of the jobs database: round trips, aborted jobs, id prefixes, repeats, bad files.

use super::*;
use crate::jobs::{Kind, Profile, Spec};

fn spec(kind: Kind, db: &str, vus: u32) -> Spec {
    Spec {
        kind,
        profile: Profile {
            db: db.into(),
            workload: "TPROC-C".into(),
            mode: "timed, stored functions".into(),
            vus: Some(vus),
            warehouses: Some(1),
        },
        settings: serde_json::json!({"generic": {}}),
    }
}

fn origin() -> Origin {
    Origin {
        hostname: super::super::system::hostname(),
        pid: std::process::id(),
        pid_started: super::super::system::own_start(),
    }
}

#[test]
fn a_job_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&default_path(dir.path())).unwrap();
    assert_eq!(s.version().unwrap(), VERSION);
    s.insert_job(
        "00000001AAAA000000000001",
        &spec(Kind::Run, "PostgreSQL", 2),
        &origin(),
        1000,
    )
    .unwrap();
    let line = |at, vu, t: &str| Line {
        at,
        vu,
        line: t.into(),
    };
    s.append(
        "00000001AAAA000000000001",
        &[line(1001, 0, "a"), line(1002, 2, "Vuser 2:b")],
        &[TcountPoint {
            at: 1001,
            metric: "tpm".into(),
            value: 60.0,
            nopm: Some(20.0),
        }],
        &[],
    )
    .unwrap();
    s.record_metric("00000001AAAA000000000001", 1003, 10.0, 5.0, 0.5, 84.5)
        .unwrap();
    let listed = s.list().unwrap();
    assert_eq!(listed.len(), 1);
    // Our own process is alive: still RUNNING.
    assert_eq!(listed[0].status, Status::Running);
    let end = End {
        status: Status::Stopped,
        note: Some("stopped by Ctrl-C".into()),
        figures: Some(RunFigures {
            nopm: Some(100.0),
            tpm: Some(300.0),
            active_vus: 2,
            seconds: 60.0,
            failed_vus: 0,
            reconnects: 0,
            transactions: 10,
            client_cpu_seconds: None,
            stopped_early: Some("stopped by Ctrl-C".into()),
        }),
        timings: vec![(
            Timing {
                name: "new order".into(),
                committed: 5,
                rolled_back: 0,
                retried: 0,
                failed: 0,
                mean_ms: 1.0,
                p50_ms: 1.0,
                p95_ms: 2.0,
                p99_ms: 3.0,
                max_ms: 4.0,
            },
            vec![1, 2, 3],
        )],
        // A figure of 17 significant digits must come back as the same f64.
        returned: Some(serde_json::json!({"ok": true, "nopm": 124692.88394887853_f64})),
        system: Some(SystemInfo {
            server_settings: vec![("shared_buffers".into(), "128MB".into())],
            transport: Some("TLSv1.3 over TCP 127.0.0.1:5432".into()),
            hammer_version: Some("0.1.0".into()),
            hammer_build: Some("release".into()),
            ..SystemInfo::default()
        }),
        live: Some(crate::jobs::live::Live {
            names: vec!["new order".into()],
            window: Some((1.0, Some(61.0))),
            points: vec![crate::jobs::live::Point {
                elapsed_s: 10.0,
                phase: "measured".into(),
                rates: vec![("NOPM".into(), 99.5)],
                ..Default::default()
            }],
        }),
        tpch: None,
        cpu: Some(crate::jobs::HostCpu::new(
            61.0,
            80.0,
            20.0,
            Some(45.5),
            "postgres (pid 7 and its processes)".into(),
        )),
    };
    s.finish("00000001AAAA000000000001", &end, 61_000).unwrap();
    let d = s.detail("00000001AAAA000000000001").unwrap().unwrap();
    assert_eq!(d.summary.status, Status::Stopped);
    assert_eq!(d.summary.nopm, Some(100.0));
    assert_eq!(d.summary.seconds, Some(60.0));
    assert_eq!(d.timings[0].p99_ms, 3.0);
    assert_eq!(d.tcount.len(), 1);
    assert_eq!(d.metrics[0].idle, 84.5);
    let cpu = d.cpu.as_ref().expect("the host's CPU");
    assert_eq!(
        (cpu.busy_pct, cpu.server_pct, cpu.other_pct),
        (80.0, Some(45.5), Some(14.5))
    );
    assert_eq!(cpu, end.cpu.as_ref().unwrap());
    let live = d.live.expect("the live series");
    assert_eq!(live.window, Some((1.0, Some(61.0))));
    assert_eq!(live.points[0].rate("NOPM"), Some(99.5));
    let sys = d.system.unwrap();
    assert_eq!(
        sys.server_settings,
        vec![("shared_buffers".to_string(), "128MB".to_string())]
    );
    assert_eq!(
        (
            sys.transport.as_deref(),
            sys.hammer_version.as_deref(),
            sys.hammer_build.as_deref()
        ),
        (
            Some("TLSv1.3 over TCP 127.0.0.1:5432"),
            Some("0.1.0"),
            Some("release")
        )
    );
    assert_eq!(
        d.returned,
        Some(serde_json::json!({"ok": true, "nopm": 124692.88394887853_f64}))
    );
    let out = s.output("00000001AAAA000000000001", Some(2)).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].line, "Vuser 2:b");
    assert!(s.delete("00000001AAAA000000000001").unwrap());
    assert!(!s.delete("00000001AAAA000000000001").unwrap());
    assert!(s
        .output("00000001AAAA000000000001", None)
        .unwrap()
        .is_empty());
}

#[test]
fn a_dead_process_s_running_job_reads_as_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&default_path(dir.path())).unwrap();
    let dead = Origin {
        pid: u32::MAX - 1,
        pid_started: None,
        ..origin()
    };
    s.insert_job(
        "00000001AAAA000000000002",
        &spec(Kind::Build, "MariaDB", 1),
        &dead,
        5,
    )
    .unwrap();
    let elsewhere = Origin {
        hostname: "another-host-entirely".into(),
        ..dead.clone()
    };
    s.insert_job(
        "00000001AAAA000000000003",
        &spec(Kind::Build, "MariaDB", 1),
        &elsewhere,
        6,
    )
    .unwrap();
    let listed = s.list().unwrap();
    assert_eq!(
        listed[0].status,
        Status::Running,
        "another host: cannot tell"
    );
    assert_eq!(listed[1].status, Status::Aborted);
}

#[test]
fn ids_resolve_by_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&default_path(dir.path())).unwrap();
    for id in [
        "ABCDEF0100000000000000AA",
        "ABCDEF0200000000000000BB",
        "ABCDEF0200000000000000CC",
    ] {
        s.insert_job(id, &spec(Kind::Run, "PostgreSQL", 1), &origin(), 1)
            .unwrap();
    }
    let p = |s: &str| IdArg::Prefix(s.into());
    assert_eq!(
        s.resolve(&p("ABCDEF01")).unwrap(),
        "ABCDEF0100000000000000AA"
    );
    assert!(
        matches!(s.resolve(&p("ABCDEF02")), Err(Lookup::Ambiguous(_, ids, 2)) if ids == ["ABCDEF0200000000000000CC", "ABCDEF0200000000000000BB"])
    );
    assert!(matches!(s.resolve(&p("ABCD")), Err(Lookup::Ambiguous(_, ids, 3)) if ids.len() == 3));
    assert!(matches!(s.resolve(&p("ABCDEF03")), Err(Lookup::Missing(_))));
    assert!(matches!(
        s.resolve(&IdArg::Full("ABCDEF0100000000000000AB".into())),
        Err(Lookup::Missing(_))
    ));
}

#[test]
fn repeats_are_the_same_profile_s_successful_runs() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&default_path(dir.path())).unwrap();
    let figures = |nopm| End {
        figures: Some(RunFigures {
            nopm: Some(nopm),
            tpm: Some(nopm * 3.0),
            active_vus: 2,
            seconds: 60.0,
            failed_vus: 0,
            reconnects: 0,
            transactions: 1,
            client_cpu_seconds: None,
            stopped_early: None,
        }),
        ..End::new(Status::Success)
    };
    let jobs = [
        ("00000001000000000000000A", 2, Status::Success, 100.0),
        ("00000002000000000000000A", 2, Status::Success, 110.0),
        ("00000003000000000000000A", 4, Status::Success, 120.0),
        ("00000004000000000000000A", 2, Status::Failed, 130.0),
    ];
    for (id, vus, status, nopm) in jobs {
        s.insert_job(id, &spec(Kind::Run, "PostgreSQL", vus), &origin(), 1)
            .unwrap();
        s.finish(
            id,
            &End {
                status,
                ..figures(nopm)
            },
            2,
        )
        .unwrap();
    }
    let r = s
        .repeats(&spec(Kind::Run, "PostgreSQL", 2).profile)
        .unwrap();
    let nopm: Vec<f64> = r.iter().filter_map(|s| s.nopm).collect();
    assert_eq!(nopm, [100.0, 110.0]);
}

#[test]
fn a_damaged_file_is_reported_with_the_way_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = default_path(dir.path());
    std::fs::write(&path, vec![b'x'; 8192]).unwrap();
    let e = Store::open(&path).err().expect("refused");
    assert!(e.to_string().contains("move it aside"), "{e}");
    assert!(e.to_string().contains(&path.display().to_string()), "{e}");
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = default_path(dir.path());
    Store::open(&path)
        .unwrap()
        .conn
        .pragma_update(None, "user_version", VERSION + 1)
        .unwrap();
    let e = Store::open(&path).err().expect("refused");
    assert!(e.to_string().contains("newer hammer"), "{e}");
}

/// A jobs.db of the first schema (before transport and hammer's build were recorded) is
/// upgraded in place; its jobs read back with those facts unknown.
#[test]
fn a_version_1_database_is_upgraded_and_keeps_its_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = default_path(dir.path());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        c.execute_batch(
            "INSERT INTO job_system (job, hostname, os, cpu_model, cpu_count, memory_bytes, \
             server_settings) VALUES ('OLD', 'h', 'linux', 'cpu', 2, 1024, '{\"fsync\":\"on\"}')",
        )
        .unwrap();
    }
    let s = Store::open(&path).unwrap();
    assert_eq!(s.version().unwrap(), VERSION);
    let (transport, build): (Option<String>, Option<String>) = s
        .conn
        .query_row(
            "SELECT transport, hammer_build FROM job_system WHERE job = 'OLD'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((transport, build), (None, None));
}

/// A TPROC-H run keeps its figures, every query of every set in the order run, the refresh
/// functions and its counter's metric; the list shows its geometric mean.
#[test]
fn a_tpch_run_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&default_path(dir.path())).unwrap();
    let id = "00000001AAAA0000000000H1";
    let mut sp = spec(Kind::Run, "MariaDB", 3);
    sp.profile.workload = "TPROC-H".into();
    sp.profile.warehouses = None;
    s.insert_job(id, &sp, &origin(), 1000).unwrap();
    s.record_tcount(id, 1500, "qph", 7200.0, None).unwrap();
    let mut record = crate::jobs::sample::tpch_record(3);
    record.sets[1].queries[4].error = Some("canceling statement due to user request".into());
    record.sets[2].queries.truncate(5);
    let end = End {
        tpch: Some(record.clone()),
        ..End::new(Status::Success)
    };
    s.finish(id, &end, 2000).unwrap();
    let d = s.detail(id).unwrap().unwrap();
    assert_eq!(d.tpch.as_ref(), Some(&record));
    assert_eq!(d.summary.geomean, Some(0.43356));
    assert_eq!(d.summary.querysets, Some(3));
    assert_eq!(d.tcount[0].metric, "qph");
    assert_eq!(d.tcount[0].value, 7200.0);
    let listed = s.list().unwrap();
    assert_eq!(listed[0].geomean, Some(0.43356));
    // Deleting it leaves no rows behind in any table.
    assert!(s.delete(id).unwrap());
    for table in JOB_TABLES {
        let n: i64 = s
            .conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0, "{table}");
    }
}

/// A jobs.db of version 3 (before TPROC-H and the counter's metric) is upgraded in place: its
/// counter samples read back as `tpm`, its jobs have no TPROC-H record.
#[test]
fn a_version_3_database_is_upgraded_and_its_samples_are_tpm() {
    let dir = tempfile::tempdir().unwrap();
    let path = default_path(dir.path());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        for m in &MIGRATIONS[..3] {
            c.execute_batch(m).unwrap();
        }
        c.pragma_update(None, "user_version", 3).unwrap();
    }
    {
        let s = Store::connect(&path).unwrap();
        s.insert_job(
            "00000001AAAA000000000009",
            &spec(Kind::Run, "PostgreSQL", 1),
            &origin(),
            1,
        )
        .unwrap();
        s.conn
            .execute(
                "INSERT INTO job_tcount (job, at_ms, tpm, nopm) VALUES ('00000001AAAA000000000009', 5, 600.0, NULL)",
                [],
            )
            .unwrap();
    }
    let s = Store::open(&path).unwrap();
    assert_eq!(s.version().unwrap(), VERSION);
    let d = s.detail("00000001AAAA000000000009").unwrap().unwrap();
    assert_eq!(
        (d.tcount[0].metric.as_str(), d.tcount[0].value),
        ("tpm", 600.0)
    );
    assert_eq!(d.tpch, None);
    assert_eq!(d.summary.geomean, None);
}
