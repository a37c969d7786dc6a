//! Job history: every build, check, delete, data generation and run recorded in SQLite (or in
//! a PostgreSQL database several machines share, `commandline.jobs_store`), and the `jobs`
//! command family that reads it back as text, JSON, diffs and HTML reports.
//!
//! The pieces, each in its own file: [`store`] (the database on either backend and its schema),
//! [`recorder`] (the current job: its output lines, series and end), [`system`] (the machine
//! and server a job ran on), [`command`] (parsing and running `jobs ...`), [`format`] (text
//! or JSON, which both of those read), [`runs`] (the parts of a run several drivers shared,
//! gathered into one entry), and the pure renderings [`text`], [`diff`] and [`report`] of the
//! plain structs defined here.

pub mod command;
pub mod cpu;
pub mod diff;
pub mod format;
pub mod id;
pub mod live;
pub mod profile;
pub mod recorder;
pub mod report;
pub mod runs;
pub mod store;
pub mod system;
pub mod text;
pub mod value;

use serde::Serialize;

pub use format::Format;
pub use id::new_id;
pub use recorder::Recorder;

/// What a job did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Build,
    Check,
    Delete,
    Datagen,
    Run,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Build,
        Kind::Check,
        Kind::Delete,
        Kind::Datagen,
        Kind::Run,
    ];

    /// The word stored in the database and in JSON.
    pub fn code(self) -> &'static str {
        match self {
            Kind::Build => "build",
            Kind::Check => "check",
            Kind::Delete => "delete",
            Kind::Datagen => "datagen",
            Kind::Run => "run",
        }
    }

    /// HammerDB's name for it, as in `Schema Build jobid=...`.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Build => "Schema Build",
            Kind::Check => "Schema Check",
            Kind::Delete => "Schema Delete",
            Kind::Datagen => "Data Generation",
            Kind::Run => "Benchmark Run",
        }
    }

    pub fn from_code(code: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// How a job ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    Success,
    Failed,
    /// Ctrl-C stopped it; what was measured until then is kept.
    Stopped,
    /// The process running it died (killed, crashed) before it could record an end.
    Aborted,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Running,
        Status::Success,
        Status::Failed,
        Status::Stopped,
        Status::Aborted,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Status::Running => "RUNNING",
            Status::Success => "SUCCESS",
            Status::Failed => "FAILED",
            Status::Stopped => "STOPPED",
            Status::Aborted => "ABORTED",
        }
    }

    pub fn from_label(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|k| k.label() == s)
    }

    /// The exit status `hammer auto` ends with when a script's job ends so (and goes no
    /// further): 0 for SUCCESS, 1 for FAILED, 130 for STOPPED (as a shell reports SIGINT);
    /// none while RUNNING, or for ABORTED, whose process died before it could exit.
    pub fn exit_status(self) -> Option<i32> {
        match self {
            Status::Success => Some(0),
            Status::Failed => Some(1),
            Status::Stopped => Some(130),
            Status::Running | Status::Aborted => None,
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// What identifies comparable runs: the same database, workload, mode, virtual users and
/// warehouses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// `PostgreSQL`, `MariaDB`, `MySQL`.
    pub db: String,
    /// `TPROC-C`, or `custom <file>` for a user's script.
    pub workload: String,
    /// How the run drove the database, e.g. `timed, stored functions`; empty for schema jobs.
    pub mode: String,
    pub vus: Option<u32>,
    pub warehouses: Option<u32>,
}

/// What a new job is: recorded when it begins.
#[derive(Debug, Clone)]
pub struct Spec {
    pub kind: Kind,
    pub profile: Profile,
    /// The settings in force: the generic dictionary and the database's, passwords masked.
    pub settings: serde_json::Value,
}

/// One job as `jobs` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub id: String,
    pub kind: Kind,
    /// HammerDB's name of the kind (`Benchmark Run`).
    #[serde(rename = "type")]
    pub label: &'static str,
    #[serde(flatten)]
    pub profile: Profile,
    pub status: Status,
    /// Why it failed or stopped, when known.
    pub note: Option<String>,
    #[serde(serialize_with = "id::ser_time")]
    pub started: i64,
    #[serde(serialize_with = "id::ser_opt_time")]
    pub ended: Option<i64>,
    pub seconds: Option<f64>,
    pub nopm: Option<f64>,
    pub tpm: Option<f64>,
    /// A TPROC-H run's geometric mean of the query times that returned rows, in seconds.
    pub geomean: Option<f64>,
    /// A TPROC-H run's query sets that ran all 22 queries.
    pub querysets: Option<u32>,
    pub hostname: String,
    pub pid: u32,
}

/// The workload name a TPROC-H job records (`Profile::workload`): `jobs` shows those jobs'
/// geometric mean and query sets in NOPM's and TPM's place, as HammerDB does.
pub const TPROC_H: &str = crate::benchmarks::TPROC_H.name;

impl Summary {
    /// Whether the job is TPROC-H's (a build, check or run of it), by the workload it recorded.
    pub fn is_tpch(&self) -> bool {
        self.profile.workload.eq_ignore_ascii_case(TPROC_H)
    }
}

/// A timed or test run's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunFigures {
    pub nopm: Option<f64>,
    pub tpm: Option<f64>,
    pub active_vus: u32,
    /// The measured window.
    pub seconds: f64,
    pub failed_vus: u32,
    pub reconnects: u64,
    pub transactions: u64,
    pub client_cpu_seconds: Option<f64>,
    /// Why the run ended before its end, when it did.
    pub stopped_early: Option<String>,
}

/// Counts and latency percentiles of one transaction type.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Timing {
    /// `new order`, `payment`, `delivery`, `stock level`, `order status`.
    pub name: String,
    pub committed: u64,
    pub rolled_back: u64,
    pub retried: u64,
    pub failed: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// One job with its results, as `jobs result` lists it: the run's figures and a TPROC-H run's
/// figures, where it has them.
pub type JobResult = (Summary, Option<RunFigures>, Option<TpchFigures>);

/// A TPROC-H run's figures: its geometric mean, its query sets and queries, and the scale
/// factor it ran at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TpchFigures {
    pub scale_factor: f64,
    /// Virtual users that ran query streams (1 for the power test).
    pub query_streams: u32,
    /// HammerDB's figure: the geometric mean of the times of the queries that returned rows;
    /// `None` when none did.
    pub geomean: Option<f64>,
    /// How many queries the geometric mean covers.
    pub geomean_queries: u64,
    /// Query sets that ran all 22 queries.
    pub querysets: u32,
    /// Queries run, failed ones included.
    pub queries: u64,
    /// Queries that failed (counted and gone on from, with `*_raise_query_error` false).
    pub failed_queries: u64,
    /// The sum of every query's time: HammerDB's `querytime`.
    pub query_seconds: f64,
    /// The longest time one virtual user spent in its query sets: the `s` of `Completed n
    /// query set(s) in s seconds`.
    pub sets_seconds: f64,
    /// TPC-H's Power@Size of a power test (hammer's figure, not an official result).
    pub power_at_size: Option<f64>,
    /// TPC-H's Throughput@Size of a throughput test (hammer's figure, not an official result).
    pub throughput_at_size: Option<f64>,
    /// TPC-H's QphH@Size of a throughput test from the power test before it on the same
    /// database and scale factor (hammer's figure, not an official result).
    pub qphh: Option<f64>,
    /// Answers compared with the published answer set (0 when the run did not validate),
    /// and how many of them matched.
    pub answers_checked: u32,
    pub answers_matched: u32,
}

impl TpchFigures {
    /// `Geometric mean of query times returning rows (22) is 0.43356`, when there is one.
    pub fn geomean_line(&self) -> Option<String> {
        self.geomean.map(|g| {
            format!(
                "Geometric mean of query times returning rows ({}) is {g:.5}",
                self.geomean_queries
            )
        })
    }

    /// `Completed 1 query set(s) in 34 seconds`.
    pub fn completed_line(&self) -> String {
        format!(
            "Completed {} query set(s) in {} seconds",
            self.querysets,
            self.sets_seconds.round() as u64
        )
    }
}

/// One query of a TPROC-H query set as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryTime {
    /// Its place in the stream's order, 1 to 22.
    pub position: u32,
    /// The query's number, 1 to 22.
    pub query: u32,
    pub seconds: f64,
    /// Rows it returned (0 for a failed query).
    pub rows: u64,
    /// The server's error, when it failed.
    pub error: Option<String>,
}

/// One query set of a TPROC-H run: a virtual user's stream of (up to) 22 queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetTimes {
    pub vu: u32,
    /// The TPC-H stream whose order it followed: 0 for the power test.
    pub stream: u32,
    /// Which of the virtual user's sets, from 1.
    pub set: u32,
    /// Wall time of the whole set.
    pub seconds: f64,
    /// The queries in the order they ran.
    pub queries: Vec<QueryTime>,
}

impl SetTimes {
    /// All 22 queries ran.
    pub fn complete(&self) -> bool {
        self.queries.len() == 22
    }
}

/// One TPROC-H refresh function as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefreshTime {
    pub vu: u32,
    /// Which refresh pair (update set), from 1.
    pub pair: u32,
    /// `RF1` or `RF2`.
    pub function: String,
    /// HammerDB's words: `New Sales refresh`, `Old Sales refresh`.
    pub name: String,
    pub seconds: f64,
    /// Rows inserted or deleted.
    pub rows: u64,
    pub error: Option<String>,
}

/// Everything a TPROC-H run's job keeps beyond the figures every run has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TpchRecord {
    #[serde(flatten)]
    pub figures: TpchFigures,
    pub sets: Vec<SetTimes>,
    pub refreshes: Vec<RefreshTime>,
}

/// One transaction counter sample. In JSON its value is keyed by its metric: `{time, tpm,
/// nopm}`, or `{time, qph, nopm}` for a counter of queries per hour.
#[derive(Debug, Clone, PartialEq)]
pub struct TcountPoint {
    pub at: i64,
    /// `tpm` or `qph`.
    pub metric: String,
    pub value: f64,
    pub nopm: Option<f64>,
}

impl Serialize for TcountPoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("time", &id::iso_time(self.at))?;
        m.serialize_entry(self.metric.as_str(), &self.value)?;
        m.serialize_entry("nopm", &self.nopm)?;
        m.end()
    }
}

/// One CPU sample, percentages of all CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricPoint {
    #[serde(rename = "time", serialize_with = "id::ser_time")]
    pub at: i64,
    pub usr: f64,
    pub sys: f64,
    pub irq: f64,
    pub idle: f64,
}

/// One line the job printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    #[serde(rename = "time", serialize_with = "id::ser_time")]
    pub at: i64,
    /// The virtual user that printed it (`Vuser N:`), 0 for hammer's own lines.
    pub vu: u32,
    pub line: String,
}

/// The host's CPU over a job, in percent of all its CPUs (measured by [`cpu`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostCpu {
    /// How long it was measured: the job, from its start to its end.
    pub seconds: f64,
    /// Neither idle nor waiting for I/O.
    pub busy_pct: f64,
    /// hammer's own process.
    pub hammer_pct: f64,
    /// The database server's processes; 0 when it runs on another host, `None` when it was
    /// not found on this one.
    pub server_pct: Option<f64>,
    /// What was counted as the server, or why nothing was.
    pub server: String,
    /// Busy outside hammer and the server: other work on the machine; `None` when the
    /// server's share is not known.
    pub other_pct: Option<f64>,
}

impl HostCpu {
    pub fn new(
        seconds: f64,
        busy_pct: f64,
        hammer_pct: f64,
        server_pct: Option<f64>,
        server: String,
    ) -> HostCpu {
        HostCpu {
            seconds,
            busy_pct,
            hammer_pct,
            server_pct,
            server,
            other_pct: server_pct.map(|s| (busy_pct - hammer_pct - s).max(0.0)),
        }
    }
}

/// The machine and the database server a job ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SystemInfo {
    pub hostname: String,
    pub os: String,
    pub cpu_model: String,
    /// Logical CPUs.
    pub cpu_count: u32,
    pub physical_cores: Option<u32>,
    pub memory_bytes: u64,
    /// `PostgreSQL 15.4`, when the server answered at the end of the job.
    pub server_version: Option<String>,
    /// A few settings that shape a benchmark (`shared_buffers`, `innodb_buffer_pool_size`);
    /// an object in JSON.
    #[serde(serialize_with = "pairs_as_object")]
    pub server_settings: Vec<(String, String)>,
    /// How hammer's connection to the server went, with the run's connection settings:
    /// `unix socket /tmp/mariadb.sock`, `TCP 127.0.0.1:5432`, `TLSv1.3 over TCP ...`.
    pub transport: Option<String>,
    /// hammer's own version (`0.1.0`); `None` for jobs recorded before it was.
    pub hammer_version: Option<String>,
    /// `debug` or `release`: a debug build's client CPU figures do not compare with a
    /// release build's.
    pub hammer_build: Option<String>,
}

/// The server settings that decide whether a commit waits for the disk, of every engine: two
/// jobs that differ in one of them measured different things.
pub const DURABILITY: &[&str] = &[
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_level",
    "wal_sync_method",
    "synchronous_standby_names",
    "commit_delay",
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "innodb_doublewrite",
    "log_bin",
    "innodb_flush_method",
];

/// A server setting as recorded: `(name, value)`.
pub type Setting = (String, String);

impl SystemInfo {
    /// The recorded durability settings, in [`DURABILITY`]'s order, then the others by name.
    pub fn settings_in_order(&self) -> (Vec<&Setting>, Vec<&Setting>) {
        let mut durable: Vec<_> = self
            .server_settings
            .iter()
            .filter(|(k, _)| DURABILITY.contains(&k.as_str()))
            .collect();
        durable.sort_by_key(|(k, _)| DURABILITY.iter().position(|d| d == k));
        let mut rest: Vec<_> = self
            .server_settings
            .iter()
            .filter(|(k, _)| !DURABILITY.contains(&k.as_str()))
            .collect();
        rest.sort_by(|a, b| a.0.cmp(&b.0));
        (durable, rest)
    }

    /// hammer's version and build, `hammer 0.1.0 (release build)`, when recorded.
    pub fn hammer(&self) -> Option<String> {
        let v = self.hammer_version.as_deref()?;
        Some(match &self.hammer_build {
            Some(b) => format!("hammer {v} ({b} build)"),
            None => format!("hammer {v}"),
        })
    }
}

/// The build of this hammer: `debug` or `release`.
pub fn build_profile() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

fn pairs_as_object<S: serde::Serializer>(v: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, val) in v {
        m.serialize_entry(k, val)?;
    }
    m.end()
}

/// Everything stored about one job.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub summary: Summary,
    pub settings: serde_json::Value,
    /// For runs: the figures. For other jobs: `None`.
    pub figures: Option<RunFigures>,
    /// The value the command returned (buildschema's map, checkschema's checks), as JSON.
    pub returned: Option<serde_json::Value>,
    pub timings: Vec<Timing>,
    pub tcount: Vec<TcountPoint>,
    pub metrics: Vec<MetricPoint>,
    pub system: Option<SystemInfo>,
    /// A run's live series (its live view's intervals), when it had one.
    pub live: Option<live::Live>,
    /// A TPROC-H run's figures, query sets and refresh functions.
    pub tpch: Option<TpchRecord>,
    /// The host's CPU over the job, when it was measured.
    pub cpu: Option<HostCpu>,
    /// Its part of a run several drivers shared, when it was one (hammer's own).
    pub run: Option<runs::RunPart>,
}

/// The `Vuser N:` prefix of a line, if it has one.
pub fn vu_of(line: &str) -> u32 {
    line.strip_prefix("Vuser ")
        .and_then(|rest| rest.split_once(':'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or(0)
}

/// Jobs for the renderers' tests.
#[cfg(test)]
pub(crate) mod sample {
    use super::*;

    pub fn summary(id: &str, nopm: Option<f64>) -> Summary {
        Summary {
            id: id.into(),
            kind: Kind::Run,
            label: Kind::Run.label(),
            profile: Profile {
                db: "PostgreSQL".into(),
                workload: "TPROC-C".into(),
                mode: "timed, stored functions".into(),
                vus: Some(2),
                warehouses: Some(1),
            },
            status: Status::Success,
            note: None,
            started: 1_744_623_005_123,
            ended: Some(1_744_623_065_123),
            seconds: Some(60.0),
            nopm,
            tpm: nopm.map(|n| n * 2.3),
            geomean: None,
            querysets: None,
            hostname: "box".into(),
            pid: 42,
        }
    }

    pub fn timing(name: &str, p50: f64) -> Timing {
        Timing {
            name: name.into(),
            committed: 100,
            rolled_back: 1,
            retried: 0,
            failed: 0,
            mean_ms: p50 * 1.1,
            p50_ms: p50,
            p95_ms: p50 * 2.0,
            p99_ms: p50 * 3.0,
            max_ms: p50 * 5.0,
        }
    }

    pub fn detail(id: &str, nopm: f64) -> Detail {
        Detail {
            summary: summary(id, Some(nopm)),
            settings: serde_json::json!({"generic": {"commandline": {"jobsoutput": "JSON"}}}),
            figures: Some(RunFigures {
                nopm: Some(nopm),
                tpm: Some(nopm * 2.3),
                active_vus: 2,
                seconds: 60.0,
                failed_vus: 0,
                reconnects: 0,
                transactions: 500,
                client_cpu_seconds: Some(1.5),
                stopped_early: None,
            }),
            returned: None,
            timings: vec![timing("new order", 2.0), timing("payment", 1.0)],
            tcount: Vec::new(),
            metrics: Vec::new(),
            system: None,
            live: None,
            tpch: None,
            cpu: None,
            run: None,
        }
    }

    /// A TPROC-H run's record: `sets` query sets of virtual user 1.. (one set each, stream
    /// = vu, or stream 0 for a single set), query `q` taking `q / 10 + set / 100` seconds and
    /// returning `q` rows, but query 13, which returns none; and one refresh pair.
    pub fn tpch_record(sets: u32) -> TpchRecord {
        let sets: Vec<SetTimes> = (1..=sets)
            .map(|n| SetTimes {
                vu: n,
                stream: if sets == 1 { 0 } else { n },
                set: 1,
                seconds: 30.0 + f64::from(n),
                queries: (1..=22u32)
                    .map(|q| QueryTime {
                        position: q,
                        query: (q + n - 2) % 22 + 1,
                        seconds: 0.0,
                        rows: 0,
                        error: None,
                    })
                    .map(|mut t| {
                        t.seconds = f64::from(t.query) / 10.0 + f64::from(n) / 100.0;
                        t.rows = if t.query == 13 { 0 } else { u64::from(t.query) };
                        t
                    })
                    .collect(),
            })
            .collect();
        let refresh = |function: &str, name: &str, seconds| RefreshTime {
            vu: 1,
            pair: 1,
            function: function.into(),
            name: name.into(),
            seconds,
            rows: 1_500,
            error: None,
        };
        TpchRecord {
            figures: TpchFigures {
                scale_factor: 1.0,
                query_streams: sets.len() as u32,
                geomean: Some(0.43356),
                geomean_queries: 21 * sets.len() as u64,
                querysets: sets.len() as u32,
                queries: 22 * sets.len() as u64,
                failed_queries: 0,
                query_seconds: 25.3,
                sets_seconds: 33.6,
                power_at_size: (sets.len() == 1).then_some(8_303.2),
                throughput_at_size: (sets.len() > 1).then_some(5_012.5),
                qphh: (sets.len() > 1).then_some(6_451.2),
                answers_checked: 0,
                answers_matched: 0,
            },
            sets,
            refreshes: vec![
                refresh("RF1", "New Sales refresh", 1.25),
                refresh("RF2", "Old Sales refresh", 0.75),
            ],
        }
    }

    /// A finished TPROC-H run of `sets` query sets on PostgreSQL.
    pub fn tpch_detail(id: &str, sets: u32) -> Detail {
        let record = tpch_record(sets);
        let mut d = detail(id, 0.0);
        d.summary.profile.workload = TPROC_H.into();
        d.summary.profile.mode = if sets == 1 {
            "power test".into()
        } else {
            format!("throughput test, {sets} streams")
        };
        d.summary.profile.vus = Some(sets);
        d.summary.profile.warehouses = None;
        d.summary.nopm = None;
        d.summary.tpm = None;
        d.summary.geomean = record.figures.geomean;
        d.summary.querysets = Some(record.figures.querysets);
        if let Some(f) = d.figures.as_mut() {
            f.nopm = None;
            f.tpm = None;
            f.active_vus = sets;
            f.transactions = record.figures.queries;
        }
        d.timings = vec![timing("query 1", 100.0), timing("query 2", 200.0)];
        d.tpch = Some(record);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for k in Kind::ALL {
            assert_eq!(Kind::from_code(k.code()), Some(k));
        }
        for s in Status::ALL {
            assert_eq!(Status::from_label(s.label()), Some(s));
        }
    }

    fn keys(v: serde_json::Value) -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    }

    fn words(s: &str) -> Vec<String> {
        let mut k: Vec<String> = s.split_whitespace().map(String::from).collect();
        k.sort();
        k
    }

    /// The JSON field names are those docs/jobs-json.md lists: renaming one breaks users' pipelines.
    #[test]
    fn the_json_is_the_documented_shape() {
        let d = sample::detail("67FD24A6FDB403E253438393", 10.0);
        let j = |v: &dyn erased::Ser| v.json();
        assert_eq!(
            keys(j(&d.summary)),
            words("id kind type db workload mode vus warehouses status note started ended seconds nopm tpm geomean querysets hostname pid")
        );
        assert_eq!(
            keys(j(d.figures.as_ref().unwrap())),
            words("nopm tpm active_vus seconds failed_vus reconnects transactions client_cpu_seconds stopped_early")
        );
        assert_eq!(
            keys(j(&d.timings[0])),
            words("name committed rolled_back retried failed mean_ms p50_ms p95_ms p99_ms max_ms")
        );
        let mut t = TcountPoint {
            at: 0,
            metric: "tpm".into(),
            value: 1.0,
            nopm: None,
        };
        assert_eq!(keys(j(&t)), words("time tpm nopm"));
        // A counter of queries per hour keys its value so.
        t.metric = "qph".into();
        assert_eq!(keys(j(&t)), words("time qph nopm"));
        assert_eq!(j(&t)["qph"], 1.0);
        let h = sample::tpch_record(1);
        assert_eq!(
            keys(j(&h)),
            words("scale_factor query_streams geomean geomean_queries querysets queries failed_queries query_seconds sets_seconds power_at_size throughput_at_size qphh answers_checked answers_matched sets refreshes")
        );
        assert_eq!(keys(j(&h.sets[0])), words("vu stream set seconds queries"));
        assert_eq!(
            keys(j(&h.sets[0].queries[0])),
            words("position query seconds rows error")
        );
        assert_eq!(
            keys(j(&h.refreshes[0])),
            words("vu pair function name seconds rows error")
        );
        let m = MetricPoint {
            at: 0,
            usr: 1.0,
            sys: 1.0,
            irq: 0.0,
            idle: 98.0,
        };
        assert_eq!(keys(j(&m)), words("time usr sys irq idle"));
        let l = Line {
            at: 0,
            vu: 1,
            line: "x".into(),
        };
        assert_eq!(keys(j(&l)), words("time vu line"));
        let sys = SystemInfo {
            server_settings: vec![("shared_buffers".into(), "1GB".into())],
            ..SystemInfo::default()
        };
        let v = j(&sys);
        assert_eq!(v["server_settings"]["shared_buffers"], "1GB");
        assert_eq!(
            keys(v),
            words("hostname os cpu_model cpu_count physical_cores memory_bytes server_version server_settings transport hammer_version hammer_build")
        );
        let cpu = HostCpu::new(1.0, 50.0, 10.0, Some(30.0), "postgres".into());
        assert_eq!(
            keys(j(&cpu)),
            words("seconds busy_pct hammer_pct server_pct server other_pct")
        );
        let diff = diff::diff(&d, &d, &[], &[]);
        assert_eq!(
            keys(j(&diff)),
            words("base compare warnings differences nopm tpm latency base_noise compare_noise noise_threshold_pct verdict base_cpu compare_cpu")
        );
        assert_eq!(keys(j(&diff.nopm)), words("base compare change change_pct"));
        assert_eq!(
            keys(j(&diff.base_noise)),
            words("repeats nopm_mean nopm_cv_pct")
        );
        assert_eq!(j(&d.summary)["started"], "2025-04-14T09:30:05.123Z");
    }

    /// `serde_json::to_value` behind a trait object, for the table of shapes above.
    mod erased {
        pub trait Ser {
            fn json(&self) -> serde_json::Value;
        }
        impl<T: serde::Serialize> Ser for T {
            fn json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap()
            }
        }
    }

    #[test]
    fn lines_know_their_virtual_user() {
        assert_eq!(vu_of("Vuser 12:RUNNING"), 12);
        assert_eq!(vu_of("Vuser 1 created - WAIT IDLE"), 0);
        assert_eq!(vu_of("ALL VIRTUAL USERS COMPLETE"), 0);
    }
}
