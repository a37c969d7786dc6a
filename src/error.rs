//! The library's error type: every variant names the bad input and, where there is one, the way out.

use thiserror::Error;

use crate::database::Database;
use crate::fault::Peer;

/// Errors a command can end with. Messages are complete sentences a user can act on.
#[derive(Debug, Error)]
pub enum Error {
    /// A command was called with the wrong number or shape of arguments.
    #[error("{message}\n{usage}")]
    Usage { message: String, usage: String },

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

    /// A custom script that raised an error it did not catch, at `path:line:column`: its
    /// virtual user ends FAILED.
    #[error("{path}:{line}:{column}: {message}")]
    ScriptFailed {
        path: String,
        line: usize,
        column: usize,
        message: String,
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

    /// `dbset db` with a prefix hammer does not know; `near` is the prefix of the database
    /// it is a near miss of, with its name: `pg (PostgreSQL)`.
    #[error("Unknown prefix {prefix}, {}choose one from {}", did_you_mean(.near), .valid.join(" "))]
    UnknownDatabase {
        prefix: String,
        near: Option<String>,
        valid: Vec<String>,
    },

    /// `dbset db` with a database HammerDB has and hammer does not (yet).
    #[error("{name} ({prefix}) is not supported by hammer (yet); choose one from {}", .valid.join(" "))]
    UnsupportedDatabase {
        name: String,
        prefix: String,
        valid: Vec<String>,
    },

    /// `dbset bm` with a benchmark hammer does not have.
    #[error("Unknown benchmark {name}, {}choose one from {} (or their compatible names {})", did_you_mean(.near), crate::benchmarks::names(), crate::benchmarks::aliases())]
    UnknownBenchmark { name: String, near: Option<String> },

    /// `deleteschema` on a database holding tables none of which is the workload's own.
    #[error("deleteschema refused, nothing dropped: {0}")]
    DeleteRefused(Box<DeleteRefusal>),

    /// `vurun` under TPROC-H on a database without the TPROC-H tables.
    #[error("no TPROC-H schema in database {dbname} on {db} ({why}): build one with buildschema (dbset bm TPC-H) or set {prefix}_tpch_dbase")]
    NoTprochSchema {
        db: &'static str,
        dbname: String,
        prefix: &'static str,
        why: String,
    },

    /// An OLTP run whose tables are not there (or not all of them).
    #[error(
        "no OLTP tables to run {test} on in {db} database {dbname} ({why}): run buildschema first, with {prefix}_oltp_tables and {prefix}_oltp_table_size as the run's"
    )]
    NoOltpTables {
        db: &'static str,
        dbname: String,
        prefix: &'static str,
        test: &'static str,
        why: String,
    },

    /// A database's TPROC-H query file that does not parse (a fault of hammer's build).
    #[error("the TPROC-H queries for {db} do not parse: {why}")]
    TprochQueries { db: &'static str, why: String },

    /// `vurun` under TPROC-H on a database that holds a TPROC-C schema.
    #[error("database {dbname} on {db} holds a TPROC-C schema, not a TPROC-H one: build TPROC-H elsewhere (diset tpch {prefix}_tpch_dbase) or choose TPROC-C (dbset bm TPC-C)")]
    TpccSchemaNotTproch {
        db: &'static str,
        dbname: String,
        prefix: &'static str,
    },

    /// `vurun` under TPROC-H on a schema built for another scale factor.
    #[error("the TPROC-H schema in database {dbname} is of scale factor {found} ({suppliers} suppliers), not {prefix}_scale_fact {configured}: set diset tpch {prefix}_scale_fact {found}, or build scale factor {configured}")]
    TprochScaleMismatch {
        dbname: String,
        prefix: &'static str,
        found: String,
        suppliers: u64,
        configured: String,
    },

    /// A workload the current database's engine does not offer.
    #[error("{workload} is not available on {db} in hammer")]
    WorkloadUnavailable {
        workload: &'static str,
        db: &'static str,
    },

    /// Build options set to true that hammer cannot honour.
    #[error("hammer does not support {}; set it to false to build", .options.join(" or "))]
    UnsupportedBuildOptions { options: Vec<String> },

    /// Two dictionary keys set to values no build can honour together.
    #[error("{first} and {second} cannot both be set: {why}")]
    ConflictingKeys {
        first: String,
        second: String,
        why: String,
    },

    /// A whole number was expected.
    #[error("Error: {option} must be an integer, not {value}")]
    NotAnInteger { option: String, value: String },

    /// A storage engine (`key`: `maria_storage_engine`) that is not a plain name, so cannot be
    /// written into the DDL.
    #[error(
        "Value {value} for tpcc:{key} is not a storage engine name (letters, digits and _, \
         e.g. innodb)"
    )]
    BadStorageEngine { value: String, key: String },

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

    /// The database `key` names does not exist, so neither does the TPROC-C schema (MariaDB,
    /// MySQL).
    #[error(
        "The TPROC-C schema {db} does not exist on {engine} at {addr}: build it with \
         buildschema, or set {key} to the database that holds it"
    )]
    SchemaNotFound {
        db: String,
        engine: &'static str,
        addr: String,
        /// The dictionary key of the database: `maria_dbase`.
        key: String,
    },

    /// The schema's database (`{prefix}_dbase`) does not exist, nor, when `missing_user` is
    /// given, its owner (`{prefix}_user`) (PostgreSQL, as the superuser sees it).
    #[error(
        "TPROC-C schema database {db} ({}_dbase) does not exist on {} at {addr}{}: build the \
         schema with buildschema, or set {}_dbase and {}_user to those of an existing schema",
        .database.prefix(),
        .database.name(),
        user_missing_too(.missing_user, .database.prefix()),
        .database.prefix(),
        .database.prefix()
    )]
    NoSchemaDatabase {
        db: String,
        database: Database,
        addr: String,
        missing_user: Option<String>,
    },

    /// The schema's owner (`{prefix}_user`) does not exist, though its database does.
    #[error(
        "User {user} ({}_user) does not exist on {} at {addr}: set {}_user to the owner of \
         the schema in database {db}, or build the schema with buildschema",
        .database.prefix(),
        .database.name(),
        .database.prefix()
    )]
    NoSchemaOwner {
        user: String,
        database: Database,
        addr: String,
        db: String,
    },

    /// The schema lacks stored procedures that the run calls; `key` runs it without them
    /// (MariaDB, MySQL).
    #[error(
        "The TPROC-C schema {db} lacks the stored procedure{} {}: delete it with deleteschema \
         and build it again with buildschema, or set {key} to true to run the transactions as \
         client-side SQL",
        plural(.procedures.len()),
        .procedures.join(", ")
    )]
    LacksProcedures {
        db: String,
        procedures: Vec<String>,
        /// `maria_no_stored_procs`.
        key: String,
    },

    /// The schema lacks routines of the kind `key` chooses (stored procedures when
    /// `procedures`, else functions); `no_procs_key` runs without them (PostgreSQL).
    #[error(
        "Database {db} lacks the TPROC-C {} {} ({key} is {procedures}): rebuild the schema \
         (deleteschema, then buildschema), or run the transactions as client-side SQL with \
         diset tpcc {no_procs_key} true",
        routine_words(*.procedures),
        .routines.join(", ")
    )]
    LacksRoutines {
        db: String,
        routines: Vec<String>,
        /// `pg_storedprocs`.
        key: String,
        procedures: bool,
        /// `pg_no_stored_procs`.
        no_procs_key: String,
    },

    /// The schema has all the routines, but of the other kind than `key` (at `procedures`)
    /// calls (PostgreSQL).
    #[error(
        "Database {db} has the TPROC-C transactions as {}, but {key} is {procedures}, which \
         calls {}: set diset tpcc {key} {} to call the {}, or rebuild the schema with {key} \
         {procedures} (deleteschema, then buildschema)",
        routine_words(!*.procedures),
        routine_words(*.procedures),
        !*.procedures,
        routine_words(!*.procedures)
    )]
    RoutinesOfOtherKind {
        db: String,
        /// `pg_storedprocs`.
        key: String,
        procedures: bool,
    },

    /// A statement the terminals run does not prepare on the schema: `calls` names the
    /// routines (`functions`, `stored procedures`), or is `None` for the client-side SQL;
    /// `detail` is what the server said.
    #[error(
        "Database {db} does not fit {} ({detail}): the schema was built by another tool or \
         version; remove it with deleteschema and build it with buildschema",
        fits(.calls)
    )]
    SchemaMisfit {
        db: String,
        calls: Option<&'static str>,
        detail: String,
    },

    /// buildschema found the database it would build in holding tables.
    #[error(
        "Database {db} exists but is not empty, specify a new or empty database name, or \
         remove the existing schema with deleteschema"
    )]
    DatabaseNotEmpty { db: String },

    /// The superuser (`key`: `pg_superuser`) lacks the attribute to create what the build
    /// needs (PostgreSQL).
    #[error(
        "User {admin} ({key}) may not create {}, so cannot create {} {name}: it needs the \
         SUPERUSER or {} attribute; set {key} to a role that has it, or {} first",
        .what.plural(),
        .what.noun(),
        .what.attribute(),
        .what.first(.name)
    )]
    MayNotCreate {
        admin: String,
        key: String,
        what: Creatable,
        /// The role or database to create.
        name: String,
    },

    /// A role hammer did not create refuses the password `pass_key` gives (PostgreSQL).
    #[error(
        "User {user} exists but does not log in with {pass_key} ({why}); hammer did not create \
         it, so leaves its password alone: set {pass_key} to its password, or choose another \
         {user_key}"
    )]
    UserLoginRefused {
        user: String,
        /// `pg_pass`.
        pass_key: String,
        why: String,
        /// `pg_user`.
        user_key: String,
    },

    /// The server refused a statement for lack of a privilege (MariaDB, MySQL): `what` the
    /// user tried ("create database tpcc"), `right` the privilege, `fix` how to give it,
    /// `said` the server's words.
    #[error(
        "User {} may not {what} on {} at {}: it lacks the {right} privilege; {fix} (server \
         said: {said})",
        .peer.user,
        .peer.db.name(),
        .peer.addr
    )]
    LacksPrivilege {
        peer: Box<Peer>,
        what: String,
        right: &'static str,
        fix: String,
        said: String,
    },

    /// `ANALYZE TABLE` reported an error for `table` (MariaDB, MySQL).
    #[error("ANALYZE TABLE {table} failed on {engine} at {addr}: {said}")]
    AnalyzeFailed {
        table: String,
        engine: &'static str,
        addr: String,
        said: String,
    },

    /// deleteschema asked (through `key`) to drop one of the server's own databases.
    #[error("{key} is {db}, a {engine} system database: deleteschema drops only TPROC-C schemas")]
    SystemDatabase {
        key: String,
        db: String,
        engine: &'static str,
    },

    /// deleteschema asked to drop the database hammer connects to as the superuser (`key`:
    /// `pg_defaultdbase`).
    #[error(
        "Database {db} is {key}, which hammer connects to as the superuser; it will not drop it"
    )]
    AdminDatabase { db: String, key: String },

    /// A driver of a split build (hammer's own, `bench::split`) that may not load its share:
    /// `why` says whose it is, or what the ledger says of the schema.
    #[error("buildschema refused, nothing loaded: {why}")]
    SplitRefused { why: String },

    /// A driver of a split build waited `waited` seconds (`key`) in vain for `what`; `last`
    /// is the last failure met while waiting.
    #[error(
        "Waited {waited} s for {what}, in vain{}: start that driver, or give it longer with \
         diset {}",
        .last.as_ref().map(|l| format!(" (last: {l})")).unwrap_or_default(),
        .key.replacen(':', " ", 1)
    )]
    SplitWaited {
        waited: u64,
        what: String,
        key: String,
        last: Option<String>,
    },

    /// A split build's driver stopped loading its share (`share`: `warehouses 3-4 of 4`);
    /// `resume` is the commands that load it again.
    #[error(
        "Loading {share} stopped after {loaded} of about {expected} rows: {}\nThe {db} schema \
         is incomplete; the share is marked failed in hammer_build_parts: resume it with {resume}",
        build_cause(.why)
    )]
    SplitStopped {
        share: String,
        loaded: u64,
        expected: u64,
        why: Box<Error>,
        db: &'static str,
        resume: String,
    },

    /// The creator of a split build stopped waiting: shares are missing (`missing`, one a
    /// line), and `resume` says how to load each (one a line).
    #[error(
        "The {db} schema is incomplete: its keys, indexes and statistics are not added. \
         Missing:\n  {missing}\nResume each on a driver (the driver that loads the last one adds \
         the keys):\n  {resume}"
    )]
    SplitIncomplete {
        db: &'static str,
        missing: String,
        resume: String,
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

    /// HammerDB's bare form (`diset tpcc pg_count_ware 4`) in a script, where only Rhai's
    /// function form is read; `call` is that very line in the function form.
    #[error("HammerDB's bare form works at the console only; in a script write {call}")]
    BareFormInScript { call: String },

    /// Virtual users exist, and `doing` (creating, changing settings) needs them gone.
    #[error("Error: Virtual Users exist, destroy with vudestroy before {doing}")]
    VusExist { doing: &'static str },

    /// A schema command while virtual users exist.
    #[error("Error: Cannot {what} with Virtual Users active, destroy Virtual Users first with vudestroy")]
    VusActive { what: String },

    /// `vurun` of a loaded script whose workload hammer has no runner for (yet).
    #[error("Error: hammer cannot run {workload} scripts")]
    CannotRun { workload: &'static str },

    /// `datagenrun` under a workload without data files (OLTP: its build loads the server
    /// directly, as sysbench's `prepare` does).
    #[error("{workload} has no data generation: buildschema loads its tables directly, as sysbench's prepare does")]
    NoDataGeneration { workload: &'static str },

    /// `vudestroy` with none to destroy.
    #[error("No Virtual Users found to destroy")]
    NoVus,

    /// `savescript` with neither a loaded nor a custom script.
    #[error("Error: No script loaded to save, use loadscript to load")]
    NoScriptToSave,

    /// `savescript` into a directory that cannot be written.
    #[error("Error: directory {dir} not writable to write {file} for savescript")]
    SaveDirectory { dir: String, file: String },

    /// `vurun` with neither a loaded nor a custom script.
    #[error("Error: There is no workload to run because the Script is empty")]
    NoScript,

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

    /// A name no run several drivers shared has in the jobs history (`jobs run NAME`).
    #[error("Error: no shared run is named {run} in the jobs history{way_out}")]
    NoSuchRun {
        run: String,
        /// `; did you mean r1? The runs there, newest first: r1, r0 (...)`, or why there are none.
        way_out: String,
    },

    /// A job id (or id prefix) that names no job.
    #[error("Jobid {id} does not exist; type jobs for the list")]
    NoSuchJob { id: String },

    /// A job id prefix that names more than one job.
    #[error("Jobid {prefix} is the start of several jobs ({}{}); give more of it", .ids.join(", "), and_more(*.more))]
    AmbiguousJob {
        prefix: String,
        /// The newest few of them.
        ids: Vec<String>,
        /// How many more there are.
        more: usize,
    },

    /// A request that another layer handles (`jobs format` changes the session's settings).
    #[error("{what} is set by the {by}")]
    SetElsewhere {
        what: &'static str,
        by: &'static str,
    },

    /// Primary and Replica mode (`switchmode`, `distributescript`, `steprun`): `message` is
    /// whole, in HammerDB's words where it has them, with the way out.
    #[error("{message}")]
    Mode { message: String },

    /// One of several drivers could not join, wait for or report to its named run.
    #[error("Error: drivers run '{run}': {why}")]
    Drivers { run: String, why: String },

    /// `*_schemas` above 1 (`n`) with what hammer does not run over several schemas, or with
    /// names no database can have; `why` names the other key and the way out.
    #[error("Error: {key} is {n}: {why}")]
    Schemas { key: String, n: u32, why: String },

    /// What went wrong on one schema of several (`*_schemas`), naming its database.
    #[error("schema {schema}: {why}")]
    InSchema { schema: String, why: Box<Error> },

    /// A run in connect-pool mode whose pool cannot be used; `why` says what to set.
    #[error("Error: connect pool: {why}")]
    ConnectPool { why: String },

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

    /// `datagenrun` stopped by Ctrl-C before it finished.
    #[error(
        "Data generation stopped by Ctrl-C after {rows} rows in {files} file{} in {dir}: the \
         last ones are incomplete; delete them before datagenrun again (it never overwrites a \
         file)",
        plural(*.files)
    )]
    DatagenStopped {
        rows: u64,
        files: usize,
        dir: String,
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
        match self {
            Error::Db(e) => matches!(
                e.kind,
                Failure::Lost | Failure::Refused | Failure::Unreachable
            ),
            // One schema of several lost its server as any other.
            Error::InSchema { why, .. } => why.is_connection_loss(),
            _ => false,
        }
    }
}

/// ` (way out)`, or nothing.
fn in_parens(way_out: &Option<String>) -> String {
    way_out
        .as_ref()
        .map(|w| format!(" ({w})"))
        .unwrap_or_default()
}

/// What [`Error::DeleteRefused`] found, and for which workload.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRefusal {
    pub database: String,
    /// `PostgreSQL at 127.0.0.1:5432`.
    pub server: String,
    /// `8 tables (customer, lineitem, ...)`.
    pub found: String,
    pub workload: &'static str,
    /// The workload whose own tables they are, if any.
    pub theirs: Option<&'static str>,
    /// The chosen workload's dictionary and its database key: `tpcc`, `pg_dbase`.
    pub dictionary: &'static str,
    pub key: String,
}

impl std::fmt::Display for DeleteRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let DeleteRefusal {
            database,
            server,
            found,
            workload,
            theirs,
            dictionary,
            key,
        } = self;
        write!(
            f,
            "database {database} on {server} holds {found}, none of them {workload}'s own; "
        )?;
        match theirs {
            Some(other) => write!(
                f,
                "they are {other}'s: to delete that schema, dbset bm {other} then deleteschema; \
                 to delete a {workload} schema, set its database with diset {dictionary} {key}"
            ),
            None => write!(
                f,
                "hammer did not make them: drop the database yourself if it is to go, or set \
                 the {workload} schema's database with diset {dictionary} {key}"
            ),
        }
    }
}

/// `did you mean X? `, or nothing.
fn did_you_mean(near: &Option<String>) -> String {
    near.as_ref()
        .map(|n| format!("did you mean {n}? "))
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

/// ` and user u (pg_user) does not either`, or nothing.
fn user_missing_too(user: &Option<String>, prefix: &str) -> String {
    user.as_ref()
        .map(|u| format!(" and user {u} ({prefix}_user) does not either"))
        .unwrap_or_default()
}

/// The routines a run calls, in words.
fn routine_words(procedures: bool) -> &'static str {
    if procedures {
        "stored procedures"
    } else {
        "functions"
    }
}

/// What a schema must fit: the routines it calls, or hammer's client-side SQL.
fn fits(calls: &Option<&'static str>) -> String {
    match calls {
        Some(words) => format!("the TPROC-C {words}"),
        None => "hammer's client-side SQL".to_string(),
    }
}

/// What a build creates that needs an attribute of the superuser's (PostgreSQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Creatable {
    /// The schema's owner.
    Role,
    /// The schema's database.
    Database,
}

impl Creatable {
    fn plural(self) -> &'static str {
        match self {
            Creatable::Role => "roles",
            Creatable::Database => "databases",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Creatable::Role => "user",
            Creatable::Database => "database",
        }
    }

    fn attribute(self) -> &'static str {
        match self {
            Creatable::Role => "CREATEROLE",
            Creatable::Database => "CREATEDB",
        }
    }

    /// The way out: make it by hand first.
    fn first(self, name: &str) -> String {
        match self {
            Creatable::Role => format!("create role {name}"),
            Creatable::Database => format!("create an empty database {name}"),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;

/// ", and 3 more" after a list cut short.
fn and_more(more: usize) -> String {
    if more == 0 {
        String::new()
    } else {
        format!(", and {more} more")
    }
}
