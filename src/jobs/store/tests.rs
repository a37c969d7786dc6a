//! Unit tests of the jobs database, on both backends where the behaviour is the same: round
//! trips, aborted jobs, id prefixes, repeats, schema versions and upgrades; SQLite's damaged
//! file; PostgreSQL's liveness by lock, and two processes making a fresh store at once.
//!
//! The PostgreSQL cases need the test server (`scripts/ci/servers.sh start`; the
//! `HAMMER_TEST_PG_*` variables point elsewhere) and fail, saying so, without it. Each test
//! has a database of its own, `hammer_jobspg_u_<test>_<pid>`, dropped at its end.

use super::pglink::Link;
use super::*;
use crate::jobs::{Kind, Profile, RunFigures, Spec, Status, SystemInfo, TcountPoint, Timing};

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

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind2 {
    Sqlite,
    Pg,
}

const BACKENDS: [Kind2; 2] = [Kind2::Sqlite, Kind2::Pg];

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// The test server's superuser on database `db`, as a connection string.
fn admin_on(db: &str) -> Conninfo {
    let url = format!(
        "postgresql://{}:{}@{}:{}/{db}?sslmode=disable",
        env_or("HAMMER_TEST_PG_USER", "postgres"),
        env_or("HAMMER_TEST_PG_PASS", "postgres"),
        env_or("HAMMER_TEST_PG_HOST", "127.0.0.1"),
        env_or("HAMMER_TEST_PG_PORT", "5432"),
    );
    crate::conninfo::parse(&url).expect("the test server's connection string")
}

/// Runs `sql` (statements without parameters) as the superuser on database `db`.
fn pg_try(db: &str, sql: &str) -> std::result::Result<(), StoreError> {
    let link = Link::start(&admin_on(db))?;
    let sql = sql.to_string();
    link.call(move |c| c.simple(&sql))
}

fn pg_exec(db: &str, sql: &str) {
    if let Err(e) = pg_try(db, sql) {
        panic!(
            "{sql}: {e} (when the test PostgreSQL is not running, start the test servers with \
             `scripts/ci/servers.sh start`, or point HAMMER_TEST_PG_* at one)"
        );
    }
}

/// The first column of the one row `sql` returns, as text (NULL: None), on database `db`.
fn pg_text(db: &str, sql: &str) -> Option<String> {
    let link = Link::start(&admin_on(db)).expect("a connection thread");
    let sql = sql.to_string();
    link.call(move |c| {
        let rows = c.query(&sql, &[])?;
        Ok(rows[0].get::<_, Option<String>>(0))
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A blank jobs database on one backend: a file in a new directory, or a new database on the
/// test PostgreSQL (dropped with it).
struct Place {
    kind: Kind2,
    at: Location,
    _dir: tempfile::TempDir,
    db: String,
}

impl Place {
    fn new(kind: Kind2, test: &str) -> Place {
        let dir = tempfile::tempdir().unwrap();
        let db = format!("hammer_jobspg_u_{test}_{}", std::process::id());
        let at = match kind {
            Kind2::Sqlite => Location::File(default_path(dir.path())),
            Kind2::Pg => {
                pg_exec(
                    "postgres",
                    &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
                );
                pg_exec("postgres", &format!("CREATE DATABASE {db}"));
                Location::Server(admin_on(&db))
            }
        };
        Place {
            kind,
            at,
            _dir: dir,
            db,
        }
    }

    fn open(&self) -> Store {
        Store::open(&self.at).unwrap_or_else(|e| panic!("{:?}: {e}", self.kind))
    }

    fn path(&self) -> &std::path::Path {
        self.at.file().expect("a file")
    }

    /// Statements run on the database directly, past the store.
    fn raw(&self, sql: &str) {
        match self.kind {
            Kind2::Sqlite => rusqlite::Connection::open(self.path())
                .unwrap()
                .execute_batch(sql)
                .unwrap(),
            Kind2::Pg => pg_exec(&self.db, sql),
        }
    }

    /// The first column of the one row `sql` returns, as text.
    fn text(&self, sql: &str) -> Option<String> {
        match self.kind {
            Kind2::Sqlite => rusqlite::Connection::open(self.path())
                .unwrap()
                .query_row(sql, [], |r| r.get::<_, Option<String>>(0))
                .unwrap(),
            Kind2::Pg => pg_text(&self.db, sql),
        }
    }

    fn count(&self, table: &str) -> i64 {
        self.text(&format!("SELECT CAST(count(*) AS TEXT) FROM {table}"))
            .and_then(|n| n.parse().ok())
            .unwrap_or(-1)
    }

    /// Makes the tables of the first `n` schema versions, as an older hammer left them.
    fn at_version(&self, n: usize) {
        match self.kind {
            Kind2::Sqlite => {
                let c = rusqlite::Connection::open(self.path()).unwrap();
                for m in &sqlite::MIGRATIONS[..n] {
                    c.execute_batch(m).unwrap();
                }
                c.pragma_update(None, "user_version", n as i64).unwrap();
            }
            Kind2::Pg => {
                let mut sql: String = pg::MIGRATIONS[..n].concat();
                sql.push_str(&format!(
                    "CREATE TABLE jobs_schema_version (version BIGINT NOT NULL); \
                     INSERT INTO jobs_schema_version VALUES ({n});"
                ));
                pg_exec(&self.db, &sql);
            }
        }
    }

    /// Marks the database as written by a newer hammer.
    fn newer(&self) {
        match self.kind {
            Kind2::Sqlite => self.raw(&format!("PRAGMA user_version = {}", VERSION + 1)),
            Kind2::Pg => self.raw(&format!(
                "UPDATE jobs_schema_version SET version = {}",
                VERSION + 1
            )),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if self.kind == Kind2::Pg {
            let _ = pg_try(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.db),
            );
        }
    }
}

#[test]
fn a_job_round_trips() {
    for kind in BACKENDS {
        a_job_round_trips_on(kind);
    }
}

fn a_job_round_trips_on(kind: Kind2) {
    let place = Place::new(kind, "round_trip");
    let s = place.open();
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
        run: Some(crate::jobs::runs::RunPart {
            run: "night-42".into(),
            driver: 2,
            drivers: 2,
            merged: crate::jobs::runs::sample::merged(
                vec![
                    crate::jobs::runs::sample::row(1, "a"),
                    crate::jobs::runs::sample::row(2, "b"),
                ],
                1_000,
            ),
        }),
        profile: Some((4, "bp=1G".into())),
    };
    s.finish("00000001AAAA000000000001", &end, 61_000).unwrap();
    assert_eq!(
        s.profiles().unwrap(),
        [(
            "00000001AAAA000000000001".to_string(),
            4,
            "bp=1G".to_string()
        )]
    );
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
    // Its part of a shared run, whole, and among every job's parts.
    assert_eq!(d.run, end.run);
    assert_eq!(
        s.runs().unwrap(),
        [(
            "00000001AAAA000000000001".to_string(),
            end.run.clone().unwrap()
        )]
    );
    let out = s.output("00000001AAAA000000000001", Some(2)).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].line, "Vuser 2:b");
    assert!(s.delete("00000001AAAA000000000001").unwrap());
    assert!(!s.delete("00000001AAAA000000000001").unwrap());
    assert_eq!(place.count("job_run"), 0, "{kind:?}: its part goes with it");
    assert_eq!(
        place.count("job_profile"),
        0,
        "{kind:?}: its profile goes with it"
    );
    assert!(s
        .output("00000001AAAA000000000001", None)
        .unwrap()
        .is_empty());
}

#[test]
fn a_dead_process_s_running_job_reads_as_aborted() {
    let place = Place::new(Kind2::Sqlite, "dead");
    let s = place.open();
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
    for kind in BACKENDS {
        ids_resolve_by_prefix_on(kind);
    }
}

fn ids_resolve_by_prefix_on(kind: Kind2) {
    let place = Place::new(kind, "prefix");
    let s = place.open();
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
    for kind in BACKENDS {
        repeats_on(kind);
    }
}

fn repeats_on(kind: Kind2) {
    let place = Place::new(kind, "repeats");
    let s = place.open();
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
    assert_eq!(nopm, [100.0, 110.0], "{kind:?}");
    // A profile without warehouses matches only those without.
    let mut none = spec(Kind::Run, "PostgreSQL", 2).profile;
    none.warehouses = None;
    assert!(s.repeats(&none).unwrap().is_empty(), "{kind:?}");
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
    for kind in BACKENDS {
        let place = Place::new(kind, "newer");
        drop(place.open());
        place.newer();
        let e = Store::open(&place.at).err().expect("refused");
        assert!(e.to_string().contains("newer hammer"), "{kind:?}: {e}");
    }
}

/// A jobs.db of the first schema (before transport and hammer's build were recorded) is
/// upgraded in place; its jobs read back with those facts unknown.
#[test]
fn a_version_1_database_is_upgraded_and_keeps_its_jobs() {
    for kind in BACKENDS {
        let place = Place::new(kind, "v1");
        place.at_version(1);
        place.raw(
            "INSERT INTO job_system (job, hostname, os, cpu_model, cpu_count, memory_bytes, \
             server_settings) VALUES ('OLD', 'h', 'linux', 'cpu', 2, 1024, '{\"fsync\":\"on\"}')",
        );
        let s = place.open();
        assert_eq!(s.version().unwrap(), VERSION, "{kind:?}");
        let known = place.text(
            "SELECT coalesce(transport, hammer_build, 'none') FROM job_system WHERE job = 'OLD'",
        );
        assert_eq!(known.as_deref(), Some("none"), "{kind:?}");
        assert_eq!(
            place
                .text("SELECT os FROM job_system WHERE job = 'OLD'")
                .as_deref(),
            Some("linux")
        );
    }
}

/// A TPROC-H run keeps its figures, every query of every set in the order run, the refresh
/// functions and its counter's metric; the list shows its geometric mean.
#[test]
fn a_tpch_run_round_trips() {
    for kind in BACKENDS {
        a_tpch_run_round_trips_on(kind);
    }
}

fn a_tpch_run_round_trips_on(kind: Kind2) {
    let place = Place::new(kind, "tpch");
    let s = place.open();
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
    for table in JOB_TABLES.iter().chain(&["jobs"]) {
        assert_eq!(place.count(table), 0, "{kind:?}: {table}");
    }
}

/// A jobs.db of version 3 (before TPROC-H and the counter's metric) is upgraded in place: its
/// counter samples read back as `tpm`, its jobs have no TPROC-H record.
#[test]
fn a_version_3_database_is_upgraded_and_its_samples_are_tpm() {
    for kind in BACKENDS {
        a_version_3_on(kind);
    }
}

fn a_version_3_on(kind: Kind2) {
    let place = Place::new(kind, "v3");
    place.at_version(3);
    {
        let s = Store::connect(&place.at).unwrap();
        s.insert_job(
            "00000001AAAA000000000009",
            &spec(Kind::Run, "PostgreSQL", 1),
            &origin(),
            1,
        )
        .unwrap();
    }
    place.raw(
        "INSERT INTO job_tcount (job, at_ms, tpm, nopm) \
         VALUES ('00000001AAAA000000000009', 5, 600.0, NULL)",
    );
    let s = place.open();
    assert_eq!(s.version().unwrap(), VERSION);
    let d = s.detail("00000001AAAA000000000009").unwrap().unwrap();
    assert_eq!(
        (d.tcount[0].metric.as_str(), d.tcount[0].value),
        ("tpm", 600.0)
    );
    assert_eq!(d.tpch, None);
    assert_eq!(d.summary.geomean, None);
}

/// The backend pid of a PostgreSQL store's connection.
fn backend_pid(s: &Store) -> i32 {
    let Backend::Pg(pg) = &s.backend else {
        panic!("not a PostgreSQL store");
    };
    pg.link
        .call(|c| Ok(c.query("SELECT pg_backend_pid()", &[])?[0].get::<_, i32>(0)))
        .unwrap()
}

/// On a shared server, a RUNNING job is alive while the connection that recorded it is: not
/// by host name and pid, which another machine of the same name would share. Once that
/// connection is gone (its process killed), every machine reads the job as ABORTED.
#[test]
fn a_running_job_on_a_server_lives_as_long_as_its_recorder_s_connection() {
    let place = Place::new(Kind2::Pg, "alive");
    let reader = place.open();
    let recorder = Store::connect(&place.at).unwrap();
    // This host's name with a pid that is not running here: another machine of the same name.
    let twin = Origin {
        pid: u32::MAX - 1,
        pid_started: None,
        ..origin()
    };
    let elsewhere = Origin {
        hostname: "another-host-entirely".into(),
        ..twin.clone()
    };
    let (a, b, c) = (
        "00000001AAAA0000000000A1",
        "00000001AAAA0000000000B2",
        "00000001AAAA0000000000C3",
    );
    recorder
        .insert_job(a, &spec(Kind::Build, "MariaDB", 1), &twin, 5)
        .unwrap();
    recorder
        .insert_job(b, &spec(Kind::Run, "MariaDB", 1), &elsewhere, 6)
        .unwrap();
    recorder
        .insert_job(c, &spec(Kind::Check, "MariaDB", 1), &elsewhere, 7)
        .unwrap();
    recorder.finish(c, &End::new(Status::Success), 8).unwrap();
    let statuses =
        |s: &Store| -> Vec<Status> { s.list().unwrap().iter().map(|j| j.status).collect() };
    assert_eq!(
        statuses(&reader),
        [Status::Success, Status::Running, Status::Running]
    );
    // The recorder's connection breaks and is made again: it takes its jobs' locks back.
    pg_exec(
        "postgres",
        &format!("SELECT pg_terminate_backend({})", backend_pid(&recorder)),
    );
    recorder
        .append(
            a,
            &[Line {
                at: 9,
                vu: 0,
                line: "after".into(),
            }],
            &[],
            &[],
        )
        .unwrap();
    assert_eq!(
        statuses(&reader),
        [Status::Success, Status::Running, Status::Running]
    );
    drop(recorder);
    // The server lets the locks go as it ends the closed connection's backend, a moment
    // after the client has gone: read again for a while (bounded).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut now = statuses(&reader);
    while now != [Status::Success, Status::Aborted, Status::Aborted]
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
        now = statuses(&reader);
    }
    assert_eq!(now, [Status::Success, Status::Aborted, Status::Aborted]);
    assert_eq!(reader.output(a, None).unwrap()[0].line, "after");
}

/// Processes that open a fresh store at once take turns making its tables: all succeed.
#[test]
fn stores_opened_at_once_on_a_fresh_database_all_succeed() {
    let place = Place::new(Kind2::Pg, "fresh");
    let at = place.at.clone();
    let opened: Vec<_> = (0..4)
        .map(|_| {
            let at = at.clone();
            std::thread::spawn(move || Store::open(&at).map(|s| s.version()))
        })
        .collect();
    for t in opened {
        match t.join().unwrap() {
            Ok(v) => assert_eq!(v.unwrap(), VERSION),
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(place.count("jobs_schema_version"), 1);
}

/// Two writers at once (two processes' connections) both record their jobs whole, each
/// job's lines in the order written.
#[test]
fn two_writers_at_once_both_succeed() {
    let place = Place::new(Kind2::Pg, "writers");
    drop(place.open());
    let writers: Vec<_> = ["00000001AAAA0000000000D1", "00000001AAAA0000000000D2"]
        .into_iter()
        .map(|id| {
            let at = place.at.clone();
            std::thread::spawn(move || {
                let s = Store::connect(&at).unwrap();
                s.insert_job(id, &spec(Kind::Run, "PostgreSQL", 1), &origin(), 1)
                    .unwrap();
                for batch in 0..20 {
                    let lines: Vec<Line> = (0..10)
                        .map(|i| Line {
                            at: 1,
                            vu: 1,
                            line: format!("{}", batch * 10 + i),
                        })
                        .collect();
                    s.append(id, &lines, &[], &[]).unwrap();
                }
                s.finish(id, &End::new(Status::Success), 2).unwrap();
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let s = place.open();
    for job in s.list().unwrap() {
        assert_eq!(job.status, Status::Success);
        let lines: Vec<String> = s
            .output(&job.id, Some(1))
            .unwrap()
            .into_iter()
            .map(|l| l.line)
            .collect();
        let expected: Vec<String> = (0..200).map(|i| i.to_string()).collect();
        assert_eq!(lines, expected, "{}", job.id);
    }
}

/// A server that does not answer is given up on within the connection string's bound, and
/// the message names the server, never the password.
#[test]
fn a_server_that_is_not_there_is_said_without_the_password() {
    for url in [
        "postgresql://bench:Sekr1t@127.0.0.1:1/jobs",
        "postgresql://bench:Sekr1t@10.255.255.1:5432/jobs?connect_timeout=1",
    ] {
        let c = crate::conninfo::parse(url).unwrap();
        let e = Store::open(Location::Server(c)).err().expect("refused");
        let e = e.to_string();
        assert!(!e.contains("Sekr1t"), "{e}");
        assert!(e.starts_with("jobs database postgresql://bench@"), "{e}");
    }
}

/// A user who may not create tables in the database is told why and how to let it; once
/// the tables are there, a user who may only read and write them opens the store.
#[test]
fn a_user_who_may_not_create_the_tables_is_told_how() {
    let place = Place::new(Kind2::Pg, "grants");
    let role = format!("hammer_jobspg_u_role_{}", std::process::id());
    pg_exec(
        "postgres",
        &format!("DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN PASSWORD 'Role-pw-1'"),
    );
    let Location::Server(admin) = &place.at else {
        unreachable!()
    };
    let as_role = Location::Server(Conninfo {
        user: role.clone(),
        password: Some("Role-pw-1".into()),
        ..admin.clone()
    });
    let e = Store::open(&as_role).err().expect("refused").to_string();
    assert!(
        e.contains(&format!("user {role} may not create"))
            && e.contains(&format!("GRANT CREATE ON SCHEMA public TO {role}")),
        "{e}"
    );
    assert!(!e.contains("Role-pw-1"), "{e}");
    // The tables made by one who may; the role may use them.
    drop(place.open());
    place.raw(&format!(
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}"
    ));
    let s = Store::open(&as_role).unwrap();
    s.insert_job(
        "00000001AAAA0000000000E1",
        &spec(Kind::Run, "PostgreSQL", 1),
        &origin(),
        1,
    )
    .unwrap();
    assert_eq!(s.list().unwrap().len(), 1);
    drop(s);
    drop(place);
    let _ = pg_try("postgres", &format!("DROP ROLE IF EXISTS {role}"));
}
