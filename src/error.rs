//! The library's error type: every variant names the bad input and, where there is one, the way out.

use thiserror::Error;

/// Errors a command can end with. Messages are complete sentences a user can act on.
#[derive(Debug, Error)]
pub enum Error {
    /// A command was called with the wrong number or shape of arguments.
    #[error("{message}\n{usage}")]
    Usage { message: String, usage: String },

    /// A value refused for a reason given in prose. The catch-all that db/, tpcc/, vu.rs,
    /// custom.rs and the recorder still use; new code names its case below instead.
    #[error("{0}")]
    Config(String),

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

    /// A request valid in itself but not now, in prose. The catch-all that db/, tpcc/, vu.rs,
    /// custom.rs and the recorder still use; new code names its case below instead.
    #[error("{0}")]
    State(String),

    /// A command name that is not in the table.
    #[error("Unknown command {name}")]
    UnknownCommand { name: String },

    /// Virtual users exist, and `doing` (creating, changing settings) needs them gone.
    #[error("Error: Virtual Users exist, destroy with vudestroy before {doing}")]
    VusExist { doing: &'static str },

    /// A schema command while virtual users exist.
    #[error("Error: Cannot {what} with Virtual Users active, destroy Virtual Users first")]
    VusActive { what: String },

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
mod tests {
    use super::*;

    /// The named variants print what the prose they replace printed, word for word.
    #[test]
    fn named_variants_print_the_old_sentences() {
        let cases = [
            (
                Error::TooManyBuilders {
                    vus: 5,
                    warehouses: 4,
                    way_out: Some("diset tpcc pg_num_vu or pg_count_ware".into()),
                },
                "Error:Build virtual users must be less than or equal to number of warehouses\n\
                 You have 5 virtual users building 4 warehouses (diset tpcc pg_num_vu or pg_count_ware)",
            ),
            (
                Error::TooManyBuilders {
                    vus: 5,
                    warehouses: 4,
                    way_out: None,
                },
                "Error:Build virtual users must be less than or equal to number of warehouses\n\
                 You have 5 virtual users building 4 warehouses",
            ),
            (
                Error::UnknownDictionary {
                    section: "tpc".into(),
                    target: "PostgreSQL".into(),
                    valid: vec!["connection".into(), "tpcc".into()],
                    hint: "Type \"print dict\" for valid dictionaries and keys for PostgreSQL"
                        .into(),
                },
                "Dictionary \"tpc\" for PostgreSQL does not exist; valid dictionaries are \
                 connection, tpcc\nType \"print dict\" for valid dictionaries and keys for PostgreSQL",
            ),
            (
                Error::MaskedPassword {
                    mask: "********",
                    section: "connection".into(),
                    key: "pg_pass".into(),
                },
                "******** is how hammer shows a password, not a password: connection:pg_pass \
                 keeps its value; type the password itself (the console's history keeps \
                 passwords masked)",
            ),
            (
                Error::UnsupportedDatabase {
                    name: "Oracle".into(),
                    prefix: "ora".into(),
                    valid: vec!["pg".into(), "maria".into()],
                },
                "Oracle (ora) is not supported by hammer (yet); choose one from pg maria",
            ),
            (
                Error::MetricsNotRunning {
                    host: Some("localhost".into()),
                },
                "CPU Metrics are not running on localhost",
            ),
            (
                Error::MetricsNotRunning { host: None },
                "CPU Metrics are not running",
            ),
            (
                Error::AmbiguousJob {
                    prefix: "ab".into(),
                    ids: vec!["ab1".into(), "ab2".into()],
                },
                "Jobid ab is the start of several jobs (ab1, ab2); give more of it",
            ),
            (
                Error::BadValue {
                    section: "tpcc".into(),
                    key: "pg_count_ware".into(),
                    value: "abc".into(),
                    why: "must be an integer".into(),
                    kept: "1".into(),
                },
                "Value abc for tpcc:pg_count_ware is not valid: it must be an integer; \
                 pg_count_ware keeps its value 1",
            ),
            (
                Error::UnknownKey {
                    section: "tpcc".into(),
                    target: "PostgreSQL".into(),
                    key: "pg_count_wre".into(),
                    way_out: ", it cannot be found in any PostgreSQL dictionary; did you mean \
                              pg_count_ware?"
                        .into(),
                    hint: "Type \"print dict\" for valid dictionaries and keys for PostgreSQL"
                        .into(),
                },
                "Dictionary \"tpcc\" for PostgreSQL exists but key \"pg_count_wre\" doesn't, it \
                 cannot be found in any PostgreSQL dictionary; did you mean pg_count_ware?\n\
                 Type \"print dict\" for valid dictionaries and keys for PostgreSQL",
            ),
            (
                Error::NoDirectory {
                    dir: "/nope".into(),
                    way_out: "dgset directory",
                },
                "Error: directory /nope does not exist; create it or choose another with dgset \
                 directory",
            ),
            (
                Error::DirectoryNotWritable {
                    dir: "/ro".into(),
                    why: "Permission denied".into(),
                    way_out: "dgset directory",
                },
                "Error: directory /ro is not writable (Permission denied); choose another with \
                 dgset directory",
            ),
            (
                Error::TprochOption {
                    option: "scale_fact".into(),
                },
                "scale_fact belongs to TPROC-H, which hammer does not support yet",
            ),
            (
                Error::UnsupportedBuildOptions {
                    options: vec!["a".into(), "b".into()],
                },
                "hammer does not support a or b; set it to false to build",
            ),
            (
                Error::VusExist {
                    doing: "changing settings",
                },
                "Error: Virtual Users exist, destroy with vudestroy before changing settings",
            ),
            (
                Error::VusActive {
                    what: "build schema".into(),
                },
                "Error: Cannot build schema with Virtual Users active, destroy Virtual Users first",
            ),
            (
                Error::NoScript,
                "Error: There is no workload to run because the Script is empty",
            ),
            (Error::VusFailed { count: 1 }, "1 virtual user failed"),
            (Error::VusFailed { count: 3 }, "3 virtual users failed"),
            (
                Error::SetElsewhere {
                    what: "jobs format",
                    by: "session",
                },
                "jobs format is set by the session",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
    }
}
