//! The contract a workload keeps with the session ([`Benchmark`]): its names, and its schema,
//! data and run commands, each in two steps: a refusal said before any job starts, then the
//! work the session runs as the job. What the schema commands give back is plain data
//! ([`Built`], [`Check`], lines, rows), which the session turns into Rhai values; a run gives
//! back an [`Outcome`] the workload made. A user's own Rhai workload keeps a smaller contract,
//! [`UserScript`]. Nothing here names a workload.

use std::path::Path;
use std::time::Duration;

pub use super::outcome::Outcome;
use crate::benchmarks::Named;
use crate::config::{Database, Settings};
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::task::Pending;
use crate::vu::{Say, Script, StateSink, WorkloadOptions};

/// Work a benchmark accepted: the session starts its job, then awaits it.
pub type Work<T> = Pending<'static, Result<T>>;

/// Data generation a benchmark accepted: run on the session's thread once its job started,
/// with the session's output and Ctrl-C.
pub type Generation = Box<dyn FnOnce(&Output, &Interrupt) -> Result<u64> + Send>;

/// What a run gives back, whichever workload ran: its lines, its job record and its Rhai
/// value, all made by the workload.
pub type Ran = Box<dyn Outcome>;

/// One workload's whole life as the session sees it.
///
/// Each command's method checks what it can before anything starts (an `Err` is a refused
/// command, no job) and returns the work. Build, check, data generation and the run see
/// Ctrl-C themselves (they stop their loaders, queries or virtual users and say what was
/// done); the session drops a delete at Ctrl-C.
pub trait Benchmark: Sync {
    /// Its names, an entry of `crate::benchmarks`' list for a workload hammer ships.
    fn names(&self) -> &'static Named;

    /// `TPROC-C`: the name jobs record and messages use.
    fn name(&self) -> &'static str {
        self.names().name
    }

    /// `TPC-C`: HammerDB's compatible name, as `bm` stores it.
    fn alias(&self) -> &'static str {
        self.names().alias
    }

    /// `tpcc`: the dictionary section its keys live in (`diset tpcc ...`).
    fn dictionary(&self) -> &'static str {
        self.names().dictionary
    }

    /// Where its schema is on the current database, for `buildschema` and `print script`:
    /// `host localhost:5432 under user tpcc in database tpcc`.
    fn describe(&self, settings: &Settings) -> String;

    /// A schema job's sizes as the job records them: the build's loaders and, for a workload
    /// sized in warehouses, the warehouses (`None` for TPROC-H, sized by its scale factor).
    fn job_sizes(&self, settings: &Settings) -> (u32, Option<u32>);

    /// `buildschema` on the current database: says what it builds, builds, says the outcome.
    fn build(
        &self,
        settings: &Settings,
        out: &Output,
        interrupt: &Interrupt,
    ) -> Result<Work<Built>>;

    /// `checkschema`: says each verdict and the outcome; Ctrl-C ends it with
    /// `Error::Interrupted` once its running queries are cancelled on the server.
    fn check(
        &self,
        settings: &Settings,
        out: &Output,
        interrupt: &Interrupt,
    ) -> Result<Work<Vec<Check>>>;

    /// The tables its schema holds, as it creates them: `deleteschema` drops a database only
    /// where it finds none, or some of these.
    fn tables(&self) -> Vec<&'static str>;

    /// Whether a table called `name` (its own name, in any case) is one of its schema's: by
    /// default one of [`Self::tables`]; a workload whose tables are numbered (OLTP's
    /// `sbtest1..N`) says so itself.
    fn owns(&self, name: &str) -> bool {
        self.tables().iter().any(|t| t.eq_ignore_ascii_case(name))
    }

    /// `deleteschema`: first a line saying what it will drop (see
    /// [`crate::bench::deleting`]), or a refusal when the database holds tables of another
    /// workload or of nobody's; then one line per object dropped, or what was not there to
    /// delete (which is no failure).
    /// `all` is every workload hammer has (this one among them), whose tables say whose a
    /// database is.
    fn delete(
        &self,
        settings: &Settings,
        out: &Output,
        all: &'static [&'static dyn Benchmark],
    ) -> Result<Work<Vec<String>>>;

    /// What `print datagen` says `datagenrun` would make of the `gen_*` keys, into `dir`:
    /// `Data Generation set to build a TPC-C schema for PostgreSQL with 4 warehouses ...`.
    fn generation_plan(&self, settings: &Settings, dir: &Path) -> String;

    /// `datagenrun` into `dir` (an existing, writable directory): the rows written.
    fn generate(&self, settings: &Settings, dir: &Path) -> Result<Generation>;

    /// `dgset`'s new `value` (already in its own range) for the data-generation key `key`,
    /// checked against the workload's other generation sizes: TPROC-C's writers each take
    /// whole warehouses, so `gen_num_vu` may not exceed `gen_count_ware`. By default every
    /// value in range is taken.
    fn check_generation(&self, _settings: &Settings, _key: &str, _value: &str) -> Result<()> {
        Ok(())
    }

    /// The warehouses a `datagenrun` job records, for a workload whose data is sized in them
    /// (TPROC-C's `gen_count_ware`); `None`, the default, for a workload sized otherwise.
    fn generation_warehouses(&self, _settings: &Settings) -> Option<u32> {
        None
    }

    /// For a workload sized in warehouses, the warehouses the schema a run of these settings
    /// would use holds, counted as the run starts: its job records them (the build's
    /// setting may say otherwise, and then the [`Held`] says so). `None` for a workload
    /// sized otherwise.
    fn warehouses_held(&self, _settings: &Settings) -> Option<Work<Held>> {
        None
    }

    /// `loadscript`: the run's options from the current database's dictionary, or why this
    /// workload cannot run yet.
    fn options(&self, settings: &Settings) -> Result<Box<dyn WorkloadOptions>>;

    /// What the transaction counter (`tcstart`) counts while this benchmark is chosen, and
    /// the keys of its logins: by default TPROC-C's, server-wide transactions per minute.
    fn counting(&self) -> crate::db::counter::Counting {
        crate::db::counter::Counting::TRANSACTIONS
    }

    /// `vurun` of a script loaded with [`Self::options`]; refuses a script of another
    /// workload.
    fn run(
        &self,
        script: &Script,
        say: Say,
        states: StateSink,
        interrupt: &Interrupt,
    ) -> Result<Work<Ran>>;
}

/// A user's own workload (`customscript FILE`), which the virtual users run instead of the
/// benchmark's: the session knows it by its path and runs it.
pub trait UserScript: Send + Sync {
    /// The file it was loaded from, as `customscript` named it.
    fn path(&self) -> &Path;

    /// What `print script` shows of it: `Custom script FILE:` and its source.
    fn render(&self) -> String;

    /// `vurun` of it on `db` with `virtual_users` virtual users and the settings' iterations
    /// and delays; `rt` runs its virtual users' Rhai engines off the session's thread.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        settings: &Settings,
        db: Database,
        virtual_users: u32,
        say: Say,
        states: StateSink,
        interrupt: &Interrupt,
        rt: tokio::runtime::Handle,
    ) -> Work<Ran>;
}

/// What `buildschema` made, as its value shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The size the schema was built to, as its key names it: `("warehouses", 4.0)`,
    /// `("scale_fact", 0.01)`.
    pub scale: (&'static str, f64),
    pub rows: u64,
    pub elapsed: Duration,
    pub bytes_on_disk: u64,
    /// A split build's driver (hammer's own): its share, whether it finished the schema,
    /// and who loaded what; `None` for a whole build.
    pub split: Option<super::split::Outcome>,
}

impl Built {
    pub fn rows_per_second(&self) -> f64 {
        self.rows as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The warehouses a run's schema holds, and the one warning line when the build's setting
/// says another number.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    pub warehouses: u32,
    pub warning: Option<String>,
}

/// What `deleteschema` would drop, as the server tells it before anything is dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Survey {
    /// `PostgreSQL at 127.0.0.1:5432`.
    pub server: String,
    /// The database that would be dropped.
    pub database: String,
    /// The dictionary key naming it: `pg_dbase`, `maria_tpch_dbase`.
    pub database_key: String,
    /// The login that goes with it, as the engine treats it: `role tpcc`, `role tpcc (kept:
    /// hammer did not create it)`, `user root (kept)`.
    pub user: String,
    pub exists: bool,
    /// Every table (and view) in the database, in name order; `schema.name` outside the
    /// default schema.
    pub tables: Vec<String>,
    pub bytes: u64,
}

/// One line of `checkschema`'s verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// What was checked, e.g. "Check consistency 1" or "table stock rows".
    pub what: String,
    pub ok: bool,
    /// Why it failed, or what was found.
    pub detail: String,
}

impl Check {
    pub fn pass(what: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            what: what.into(),
            ok: true,
            detail: detail.into(),
        }
    }

    pub fn fail(what: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            what: what.into(),
            ok: false,
            detail: detail.into(),
        }
    }
}
