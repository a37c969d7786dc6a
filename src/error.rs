//! The library's error type: every variant names the bad input and, where there is one, the way out.

use thiserror::Error;

/// Errors a command can end with. Messages are complete sentences a user can act on.
#[derive(Debug, Error)]
pub enum Error {
    /// A command was called with the wrong number or shape of arguments.
    #[error("{message}\n{usage}")]
    Usage { message: String, usage: String },

    /// A value refused for a reason given in prose. The catch-all that db/ still uses; new
    /// code names its case below instead.
    #[error("{0}")]
    Config(String),

    /// An environment variable hammer reads holds a value it cannot use; `want` says what is
    /// valid.
    #[error("{var}={value:?} is not valid: give {want}")]
    BadEnv {
        var: &'static str,
        value: String,
        want: &'static str,
    },

    /// `customscript` names a file that cannot be read.
    #[error("Usage: customscript scriptname.rhai\ncannot read {path}: {why}")]
    ScriptUnreadable { path: String, why: std::io::Error },

    /// A custom script that does not compile, at `path:line:column`.
    #[error("{path}:{line}:{column}: {why}")]
    ScriptSyntax {
        path: String,
        line: usize,
        column: usize,
        why: Box<rhai::ParseErrorType>,
    },

    /// `diset`/`giset` named a dictionary that the target does not have.
    #[error("Dictionary \"{section}\" for {target} does not exist; valid dictionaries are {}\n{hint}", .valid.join(", "))]
    UnknownDictionary {
        section: String,
        /// `generic` or the database's name.
        target: String,
        valid: Vec<String>,
        hint: String,
    },

    /// `diset`/`giset` named a key that the dictionary does not have; `way_out` says where the
    /// key is, or what it is (", key \"k\" is in ...", "; did you mean ...?"), or is empty.
    #[error(
        "Dictionary \"{section}\" for {target} exists but key \"{key}\" doesn't{way_out}\n{hint}"
    )]
    UnknownKey {
        section: String,
        target: String,
        key: String,
        way_out: String,
        hint: String,
    },

    /// A value its key does not accept; the key keeps `kept`. `value` is masked for a password.
    #[error(
        "Value {value} for {section}:{key} is not valid: it {why}; {key} keeps its value {kept}"
    )]
    BadValue {
        section: String,
        key: String,
        value: String,
        why: String,
        kept: String,
    },

    /// The mask a password is shown as was given as the password (a line from the history).
    #[error(
        "{mask} is how hammer shows a password, not a password: {section}:{key} keeps its value; \
             type the password itself (the console's history keeps passwords masked)"
    )]
    MaskedPassword {
        mask: &'static str,
        section: String,
        key: String,
    },

    /// `dbset db` with a prefix hammer does not know.
    #[error("Unknown prefix {prefix}, choose one from {}", .valid.join(" "))]
    UnknownDatabase { prefix: String, valid: Vec<String> },

    /// `dbset db` with a database HammerDB has and hammer does not (yet).
    #[error("{name} ({prefix}) is not supported by hammer (yet); choose one from {}", .valid.join(" "))]
    UnsupportedDatabase {
        name: String,
        prefix: String,
        valid: Vec<String>,
    },

    /// `dbset bm` with a benchmark that is not TPROC-C or TPC-C.
    #[error("Unknown benchmark {name}, choose one from TPROC-C (or its compatible name TPC-C)")]
    UnknownBenchmark { name: String },

    /// `dbset bm` with TPROC-H (or TPC-H), which hammer does not have yet.
    #[error("{name} is not supported by hammer yet; TPROC-C is")]
    UnsupportedBenchmark { name: String },

    /// An option of TPROC-H's (`dgset scale_fact`).
    #[error("{option} belongs to TPROC-H, which hammer does not support yet")]
    TprochOption { option: String },

    /// Build options set to true that hammer cannot honour.
    #[error("hammer does not support {}; set it to false to build", .options.join(" or "))]
    UnsupportedBuildOptions { options: Vec<String> },

    /// A whole number was expected.
    #[error("Error: {option} must be an integer, not {value}")]
    NotAnInteger { option: String, value: String },

    /// More loaders than warehouses; `way_out` names the keys to change, when there is one.
    #[error("Error:Build virtual users must be less than or equal to number of warehouses\n\
             You have {vus} virtual users building {warehouses} warehouses{}", in_parens(.way_out))]
    TooManyBuilders {
        vus: i64,
        warehouses: i64,
        way_out: Option<String>,
    },

    /// A directory to write in that is not there.
    #[error("Error: directory {dir} does not exist; create it or choose another with {way_out}")]
    NoDirectory { dir: String, way_out: &'static str },

    /// A directory to write in that refuses.
    #[error("Error: directory {dir} is not writable ({why}); choose another with {way_out}")]
    DirectoryNotWritable {
        dir: String,
        why: String,
        way_out: &'static str,
    },

    /// A request valid in itself but not now, in prose. The catch-all that db/ (and `vurun`'s
    /// refusal of a workload, until it takes `CannotRun`) still use; new code names its case
    /// below instead.
    #[error("{0}")]
    State(String),

    /// The schema's database holds none of the TPROC-C tables.
    #[error("Database {db} holds no TPROC-C schema: build it with buildschema")]
    NoSchema { db: String },

    /// The TPROC-C schema lacks some of its tables.
    #[error(
        "The TPROC-C schema {db} on {engine} at {addr} lacks table{} {}: delete it with \
         deleteschema and build it again with buildschema",
        plural(.tables.len()),
        .tables.join(", ")
    )]
    SchemaLacksTables {
        db: String,
        /// `PostgreSQL`, `MariaDB`, `MySQL`.
        engine: String,
        addr: String,
        tables: Vec<String>,
    },

    /// The schema has TPROC-C's tables but not the one where buildschema records the load's
    /// NURand constants.
    #[error(
        "Database {db} has no table {table}, where hammer's buildschema records the load's \
         NURand constants: the schema was built by another tool; delete it with deleteschema \
         and build it with buildschema"
    )]
    NoConstantsTable { db: String, table: &'static str },

    /// The TPROC-C schema has no warehouses.
    #[error(
        "The TPROC-C schema {db} has no warehouses: delete it with deleteschema and build it \
         again with buildschema"
    )]
    NoWarehouses { db: String },

    /// The run asks (through `key`) for more warehouses than the schema has.
    #[error(
        "The TPROC-C schema {db} has {have} warehouse{} but {key} asks for {asked}: set {key} \
         to {have} (diset tpcc {key} {have}), or build a larger schema",
        plural(*.have as usize)
    )]
    TooFewWarehouses {
        db: String,
        have: u32,
        /// The dictionary key of the warehouse count: `pg_count_ware`.
        key: String,
        asked: u32,
    },

    /// The table of NURand constants holds other than one row.
    #[error(
        "Table {table} of the TPROC-C schema {db} holds {rows} rows, expected exactly 1 (the \
         NURand load constants): delete the schema with deleteschema and build it again with \
         buildschema"
    )]
    ConstantsRows {
        db: String,
        table: &'static str,
        rows: usize,
    },

    /// The NURand constants are outside the ranges TPC-C allows (each from 0 to its maximum).
    #[error(
        "Table {table} of the TPROC-C schema {db} holds constants out of range (c_last \
         0..{c_last_max}, c_id 0..{c_id_max}, ol_i_id 0..{ol_i_id_max}): delete the schema \
         with deleteschema and build it again with buildschema"
    )]
    ConstantsOutOfRange {
        db: String,
        table: &'static str,
        c_last_max: i64,
        c_id_max: i64,
        ol_i_id_max: i64,
    },

    /// A schema build that failed or was stopped part way; `db` is the engine's name.
    #[error(
        "Schema build stopped after {loaded} of about {expected} rows: {}\nThe {db} schema is \
         incomplete: remove it with deleteschema, then run buildschema again",
        build_cause(.why)
    )]
    BuildStopped {
        loaded: u64,
        expected: u64,
        why: Box<Error>,
        db: &'static str,
    },

    /// `datagenrun` would overwrite a file.
    #[error(
        "File {path} already exists: datagenrun does not overwrite data; choose an empty \
         directory with {way_out}"
    )]
    FileExists { path: String, way_out: &'static str },

    /// A thread of ours panicked (`what`: "a data generation thread").
    #[error("{what} panicked")]
    Panicked { what: &'static str },

    /// A task of ours ended by panic or abort (`task`: "terminal", "a loader").
    #[error("{task} task failed: {why}")]
    TaskFailed {
        task: &'static str,
        why: tokio::task::JoinError,
    },

    /// The server did not answer `what` within the reply timeout.
    #[error(
        "the server did not answer {what} within {} s (the reply timeout)",
        .within.as_secs_f64()
    )]
    NoAnswer {
        what: &'static str,
        within: std::time::Duration,
    },

    /// A terminal stopped reconnecting: the server stayed away for `waited`.
    #[error("the server did not come back within {} s: {why}", .waited.as_secs_f64())]
    ServerGone {
        waited: std::time::Duration,
        why: Box<Error>,
    },

    /// The stop came while a terminal was connecting.
    #[error("stopped while connecting")]
    StoppedConnecting,

    /// A virtual user's own thread, or the runtime on it, could not start; `hint` names the
    /// limit to raise when the cause is a known one.
    #[error("cannot start {what}: {why}{}", after_semicolon(.hint))]
    ThreadStart {
        /// "a thread of its own", "a runtime on its thread".
        what: &'static str,
        why: std::io::Error,
        hint: Option<&'static str>,
    },

    /// A virtual user's own thread ended without an answer.
    #[error("stopped without an answer: its thread panicked")]
    VuThreadPanicked,

    /// A timed run of a workload that has no monitor.
    #[error("the workload has no monitor")]
    NoMonitor,

    /// The monitor could not read the transaction count at the start or the end of the test.
    #[error("cannot take the {which} transaction count: {why}")]
    TxCountFailed {
        /// "start" or "end".
        which: &'static str,
        why: Box<Error>,
    },

    /// A command name that is not in the table.
    #[error("Unknown command {name}")]
    UnknownCommand { name: String },

    /// Virtual users exist, and `doing` (creating, changing settings) needs them gone.
    #[error("Error: Virtual Users exist, destroy with vudestroy before {doing}")]
    VusExist { doing: &'static str },

    /// A schema command while virtual users exist.
    #[error("Error: Cannot {what} with Virtual Users active, destroy Virtual Users first")]
    VusActive { what: String },

    /// `vurun` of a loaded script whose workload hammer has no runner for (yet).
    #[error("Error: hammer cannot run {workload} scripts")]
    CannotRun { workload: &'static str },

    /// `vudestroy` with none to destroy.
    #[error("No Virtual Users found to destroy")]
    NoVus,

    /// `vurun` with neither a loaded nor a custom script.
    #[error("Error: There is no workload to run because the Script is empty")]
    NoScript,

    /// The virtual users created do not fit the loaded script (count, or monitor or not).
    #[error("Error: the loaded script needs other virtual users than those created; vudestroy, then vurun")]
    VusMismatch,

    /// Virtual users of a custom script failed; the words are the recorder's `vus_failed`.
    #[error("{}", vus_failed(.count))]
    VusFailed { count: u32 },

    /// `lastrun` before any run.
    #[error("No run yet: vurun first")]
    NoRun,

    /// `tcstart` while the counter runs.
    #[error("Transaction Counter thread already running with threadid:{thread}; tcstop stops it")]
    CounterRunning { thread: String },

    /// `tcstop` while the counter does not run.
    #[error("Transaction Counter is not running")]
    CounterNotRunning,

    /// The counter's first connection or reading failed.
    #[error("Transaction Counter Failed to Start: {why}")]
    CounterFailed { why: crate::fault::DbError },

    /// `metstart` while metrics run.
    #[error("CPU metrics are already running on {host}, call metstop to stop")]
    MetricsRunning { host: String },

    /// `metset` while metrics run.
    #[error("Stop Metrics before setting configuration: metstop stops them")]
    MetricsRunningSet,

    /// `metstop` while metrics do not run (on `host`, when known).
    #[error("CPU Metrics are not running{}", on_host(.host))]
    MetricsNotRunning { host: Option<String> },

    /// `hammer agent` cannot take its port.
    #[error("Error: the Metrics Agent cannot listen on {bind}:{port}: {why}")]
    AgentListen {
        bind: String,
        port: u16,
        why: String,
    },

    /// The job history cannot be opened or read.
    #[error("Error: cannot read the jobs: {why}")]
    JobsUnreadable { why: String },

    /// A read or write of the job history failed.
    #[error("Error: {why}")]
    JobStore { why: String },

    /// A job id (or id prefix) that names no job.
    #[error("Jobid {id} does not exist; type jobs for the list")]
    NoSuchJob { id: String },

    /// A job id prefix that names more than one job.
    #[error("Jobid {prefix} is the start of several jobs ({}); give more of it", .ids.join(", "))]
    AmbiguousJob { prefix: String, ids: Vec<String> },

    /// A request that another layer handles (`jobs format` changes the session's settings).
    #[error("{what} is set by the {by}")]
    SetElsewhere {
        what: &'static str,
        by: &'static str,
    },

    /// A database connection or statement failed; the text names host:port and user.
    #[error("{0}")]
    Db(#[from] crate::fault::DbError),

    /// `quit` was called: not a failure, the way out of a script or the console.
    #[error("quit")]
    Quit,

    /// Ctrl-C stopped the command.
    #[error("Interrupted by Ctrl-C")]
    Interrupted,

    /// A command that ran as a job ended FAILED or STOPPED. The message names the job, its
    /// status and why; `caught` is what a script's `catch (e)` receives (the job id, status,
    /// reason and what was measured), so a script that goes on can still read them.
    #[error("{message}")]
    Job {
        message: String,
        stopped: bool,
        caught: Box<rhai::Dynamic>,
    },

    /// Reading or writing a file of ours failed.
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl Error {
    pub fn usage(message: impl Into<String>, usage: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            usage: usage.into(),
        }
    }
}

impl Error {
    /// A lost or refused connection: worth reconnecting and trying again.
    pub fn is_connection_loss(&self) -> bool {
        use crate::fault::Failure;
        matches!(self, Error::Db(e) if matches!(e.kind, Failure::Lost | Failure::Refused | Failure::Unreachable))
    }
}

/// ` (way out)`, or nothing.
fn in_parens(way_out: &Option<String>) -> String {
    way_out
        .as_ref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default()
}

/// `; hint`, or nothing.
fn after_semicolon(hint: &Option<&'static str>) -> String {
    hint.map(|h| format!("; {h}")).unwrap_or_default()
}

/// `s` for a count other than one.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Why a build stopped: Ctrl-C in words, any other error as it reads.
fn build_cause(why: &Error) -> String {
    match why {
        Error::Interrupted => "interrupted by Ctrl-C".to_string(),
        other => other.to_string(),
    }
}

/// ` on host`, or nothing.
fn on_host(host: &Option<String>) -> String {
    host.as_ref()
        .map(|h| format!(" on {h}"))
        .unwrap_or_default()
}

/// "1 virtual user failed", "3 virtual users failed".
fn vus_failed(count: &u32) -> String {
    match *count {
        1 => "1 virtual user failed".to_string(),
        n => format!("{n} virtual users failed"),
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;
