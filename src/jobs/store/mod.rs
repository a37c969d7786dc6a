//! The jobs database: where it is ([`Location`]: a SQLite file, the default, or a PostgreSQL
//! server that several machines share) and the one API the rest of hammer uses on either
//! ([`Store`]). The backends are [`sqlite`] and [`pg`]; both keep the same tables at the same
//! schema version (`schemas/jobs/vN.sql` and `schemas/jobs/pg/vN.sql`), write each change in
//! one transaction, and bound every wait.

mod pg;
mod pglink;
mod sqlite;

use std::path::{Path, PathBuf};

use super::id::IdArg;
use super::{
    Line, MetricPoint, Profile, RunFigures, Spec, Status, Summary, SystemInfo, TcountPoint, Timing,
    TpchRecord,
};
use crate::conninfo::Conninfo;

/// The schema versions, each one file per backend: `schemas/jobs/vN.sql` (SQLite) and
/// `schemas/jobs/pg/vN.sql` (PostgreSQL), the same tables at the same N. A new version is its
/// two files and its number added here.
macro_rules! schema_versions {
    ($($n:literal),+) => {
        /// SQLite's steps: `[n]` takes a database from version n to n+1.
        const SQLITE_STEPS: &[&str] =
            &[$(include_str!(concat!("../../../schemas/jobs/v", $n, ".sql"))),+];
        /// PostgreSQL's steps, the same tables as SQLite's.
        const PG_STEPS: &[&str] =
            &[$(include_str!(concat!("../../../schemas/jobs/pg/v", $n, ".sql"))),+];
    };
}

schema_versions!(1, 2, 3, 4, 5, 6, 7, 8);

/// The schema version this hammer writes, on either backend.
pub const VERSION: i64 = SQLITE_STEPS.len() as i64;

/// Tables holding a job's rows, all keyed by `job` (and `jobs` by `id`).
const JOB_TABLES: &[&str] = &[
    "job_output",
    "job_result",
    "job_timing",
    "job_tcount",
    "job_metric",
    "job_system",
    "job_live",
    "job_tpch",
    "job_query_set",
    "job_query",
    "job_refresh",
    "job_cpu",
    "job_run",
    "job_profile",
];

/// What went wrong with the jobs database, naming it (the file, or the server without the
/// password).
#[derive(Debug, Clone, thiserror::Error)]
#[error("jobs database {path}: {what}")]
pub struct StoreError {
    /// Where: the file's path, or `postgresql://user@host:port/dbname`.
    pub path: String,
    pub what: String,
    /// Another connection held a lock: worth trying again.
    busy: bool,
    /// The disk (or the database's size limit) is full.
    pub full: bool,
}

type Result<T> = std::result::Result<T, StoreError>;

/// Where a new job runs, for telling later whether its process is still alive.
#[derive(Debug, Clone)]
pub struct Origin {
    pub hostname: String,
    pub pid: u32,
    /// The process's start, seconds since the epoch, to tell a reused pid from ours.
    pub pid_started: Option<u64>,
}

/// Where the jobs are kept.
#[derive(Debug, Clone)]
pub enum Location {
    /// A SQLite file on this machine.
    File(PathBuf),
    /// A PostgreSQL database (`commandline.jobs_store`), shared by every machine that names it.
    Server(Conninfo),
}

impl Location {
    /// The file's path, or the server's connection string without its password.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Server(c) => c.shown(),
        }
    }

    /// The file, for a SQLite store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(p) => Some(p),
            Location::Server(_) => None,
        }
    }
}

/// A path is a SQLite file (what `Store::open` took before a server could be named).
impl From<&Path> for Location {
    fn from(p: &Path) -> Self {
        Location::File(p.to_path_buf())
    }
}

impl From<&PathBuf> for Location {
    fn from(p: &PathBuf) -> Self {
        Location::File(p.clone())
    }
}

impl From<&Location> for Location {
    fn from(at: &Location) -> Self {
        at.clone()
    }
}

enum Backend {
    Sqlite(sqlite::SqliteStore),
    Pg(pg::PgStore),
}

/// A connection to the jobs database, on either backend.
pub struct Store {
    backend: Backend,
    at: Location,
}

/// The same call on whichever backend the store is.
macro_rules! each {
    ($store:expr, $b:ident => $call:expr) => {
        match &$store.backend {
            Backend::Sqlite($b) => $call,
            Backend::Pg($b) => $call,
        }
    };
}

// After the macro, which it uses.
mod modes;
pub use modes::{ModeCommand, ModeMember};

impl Store {
    /// Opens (creating it if needed) and upgrades the database at `at` (a [`Location`], or
    /// a SQLite file's path).
    pub fn open(at: impl Into<Location>) -> Result<Store> {
        let at = at.into();
        let backend = match &at {
            Location::File(p) => Backend::Sqlite(sqlite::SqliteStore::open(p)?),
            Location::Server(c) => Backend::Pg(pg::PgStore::open(c)?),
        };
        Ok(Store { backend, at })
    }

    /// Opens without touching the schema: a second connection of the same process.
    pub fn connect(at: impl Into<Location>) -> Result<Store> {
        let at = at.into();
        let backend = match &at {
            Location::File(p) => Backend::Sqlite(sqlite::SqliteStore::connect(p)?),
            Location::Server(c) => Backend::Pg(pg::PgStore::connect(c)?),
        };
        Ok(Store { backend, at })
    }

    pub fn location(&self) -> &Location {
        &self.at
    }

    /// Where it is, as messages and `jobs` show it (never a password).
    pub fn shown(&self) -> String {
        self.at.shown()
    }

    #[cfg(test)]
    fn version(&self) -> Result<i64> {
        each!(self, s => s.version())
    }

    /// Records a job as RUNNING.
    pub fn insert_job(&self, id: &str, spec: &Spec, origin: &Origin, started: i64) -> Result<()> {
        each!(self, s => s.insert_job(id, spec, origin, started))
    }

    /// Appends what a running job produced, in one transaction.
    pub fn append(
        &self,
        job: &str,
        lines: &[Line],
        tcount: &[TcountPoint],
        metrics: &[MetricPoint],
    ) -> Result<()> {
        each!(self, s => s.append(job, lines, tcount, metrics))
    }

    /// One transaction counter sample for a job: its value in `metric` (`tpm`, `qph`).
    pub fn record_tcount(
        &self,
        job: &str,
        at: i64,
        metric: &str,
        value: f64,
        nopm: Option<f64>,
    ) -> Result<()> {
        let point = TcountPoint {
            at,
            metric: metric.to_string(),
            value,
            nopm,
        };
        self.append(job, &[], &[point], &[])
    }

    /// One CPU sample for a job.
    pub fn record_metric(
        &self,
        job: &str,
        at: i64,
        usr: f64,
        sys: f64,
        irq: f64,
        idle: f64,
    ) -> Result<()> {
        let point = MetricPoint {
            at,
            usr,
            sys,
            irq,
            idle,
        };
        self.append(job, &[], &[], &[point])
    }

    /// Records a job's end and what it measured, in one transaction.
    pub fn finish(&self, job: &str, end: &End, ended: i64) -> Result<()> {
        each!(self, s => s.finish(job, end, ended))
    }

    /// Every job, newest first.
    pub fn list(&self) -> Result<Vec<Summary>> {
        each!(self, s => s.list())
    }

    /// Every job with its run figures and TPROC-H figures where it has them, newest first:
    /// what `jobs result` shows.
    pub fn results(&self) -> Result<Vec<super::JobResult>> {
        each!(self, s => s.results())
    }

    /// Successful runs with the same profile, oldest first: the repeats that measure noise.
    pub fn repeats(&self, p: &Profile) -> Result<Vec<Summary>> {
        each!(self, s => s.repeats(p))
    }

    /// The full id a user's id or prefix names; a message saying why when none or several do.
    pub fn resolve(&self, arg: &IdArg) -> std::result::Result<String, Lookup> {
        each!(self, s => s.resolve(arg))
    }

    /// One job's summary.
    pub fn summary(&self, id: &str) -> Result<Option<Summary>> {
        each!(self, s => s.summary(id))
    }

    /// Everything stored about a job but its output lines.
    pub fn detail(&self, id: &str) -> Result<Option<super::Detail>> {
        each!(self, s => s.detail(id))
    }

    /// Every job's part of a shared run, with the job's id: what `jobs` groups into runs.
    pub fn runs(&self) -> Result<Vec<(String, super::runs::RunPart)>> {
        each!(self, s => s.runs())
    }

    /// Every job recorded under a performance profile: its id, the profile and the step.
    pub fn profiles(&self) -> Result<Vec<(String, i64, String)>> {
        each!(self, s => s.profiles())
    }

    /// A job's output lines in the order printed; only virtual user `vu`'s when given.
    pub fn output(&self, id: &str, vu: Option<u32>) -> Result<Vec<Line>> {
        each!(self, s => s.output(id, vu))
    }

    /// Deletes a job and everything recorded for it; false when there was no such job.
    pub fn delete(&self, id: &str) -> Result<bool> {
        each!(self, s => s.delete(id))
    }
}

/// Why an id names no single job.
#[derive(Debug)]
pub enum Lookup {
    Missing(String),
    /// The prefix, the first few ids it starts, and how many it starts in all.
    Ambiguous(String, Vec<String>, usize),
    Store(StoreError),
}

/// What a job's end records.
#[derive(Debug, Clone)]
pub struct End {
    pub status: Status,
    pub note: Option<String>,
    pub figures: Option<RunFigures>,
    /// Per transaction type, with its latency histogram (HdrHistogram V2 serialized).
    pub timings: Vec<(Timing, Vec<u8>)>,
    pub returned: Option<serde_json::Value>,
    pub system: Option<SystemInfo>,
    /// The run's live series, when it had a live view.
    pub live: Option<super::live::Live>,
    /// A TPROC-H run's figures, query sets and refresh functions.
    pub tpch: Option<TpchRecord>,
    /// The host's CPU over the job.
    pub cpu: Option<super::HostCpu>,
    /// Its part of a shared run, when it was one.
    pub run: Option<super::runs::RunPart>,
    /// The performance profile (above 0) and step it was recorded under, when it was.
    pub profile: Option<(i64, String)>,
}

impl End {
    /// An end with nothing measured.
    pub fn new(status: Status) -> Self {
        End {
            status,
            note: None,
            figures: None,
            timings: Vec::new(),
            returned: None,
            system: None,
            live: None,
            tpch: None,
            cpu: None,
            run: None,
            profile: None,
        }
    }
}

/// The default jobs database of a data directory.
pub fn default_path(home: &Path) -> PathBuf {
    home.join("jobs.db")
}

#[cfg(test)]
mod tests;
