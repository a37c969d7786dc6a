//! The command table: one row per HammerDB command, plain data. It registers the Rhai
//! functions, drives `help` and Tab completion, and checks argument counts, so the three cannot
//! disagree; the session runs each row by its name (a test there checks every row has a method).

/// What Tab offers for one argument position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complete {
    Nothing,
    Commands,
    PrintTargets,
    DbsetWhat,
    /// Values for `dbset`, depending on its first argument.
    DbsetValue,
    /// Sections of the current database's dictionary.
    DictSections,
    /// Keys of the current database's dictionary.
    DictKeys,
    /// The values a key of the current database's dictionary takes, when they are few.
    DictValues,
    GenericSections,
    GenericKeys,
    GenericValues,
    /// The values of the generic key a `vuset`, `tcset` or `metset` option sets.
    OptionValues,
    VusetOptions,
    TcsetOptions,
    MetsetOptions,
    DgsetOptions,
    /// A fixed list of words.
    Words(&'static [&'static str]),
}

/// One command.
pub struct Command {
    pub name: &'static str,
    /// The arguments part of the usage line (`dict key value`).
    pub args: &'static str,
    pub min_args: usize,
    pub max_args: usize,
    /// One paragraph for `help name`.
    pub help: &'static str,
    pub complete: &'static [Complete],
}

impl Command {
    /// `Usage: diset dict key value`, HammerDB's usage line.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            format!("Usage: {}", self.name)
        } else {
            format!("Usage: {} {}", self.name, self.args)
        }
    }
}

/// Print targets available now; later targets join as their features land.
pub const PRINT_TARGETS: &[&str] = &[
    "db",
    "bm",
    "dict",
    "generic",
    "script",
    "vuconf",
    "vucreated",
    "vustatus",
    "vucomplete",
    "tcconf",
    "datagen",
    "connectpool",
];
pub const VUSET_OPTIONS: &[(&str, &str)] = &[
    ("vu", "virtual_users"),
    ("delay", "user_delay"),
    ("repeat", "repeat_delay"),
    ("iterations", "iterations"),
    ("showoutput", "show_output"),
    ("logtotemp", "log_to_temp"),
    ("unique", "unique_log_name"),
    ("nobuff", "no_log_buffer"),
    ("timestamps", "log_timestamps"),
    ("refreshrate", "refresh_rate"),
];
pub const TCSET_OPTIONS: &[(&str, &str, &str)] = &[
    (
        "refreshrate",
        "tc_refresh_rate",
        "Transaction Counter refresh rate",
    ),
    (
        "logtotemp",
        "tc_log_to_temp",
        "Transaction Counter log to temp",
    ),
    (
        "unique",
        "tc_unique_log_name",
        "Transaction Counter unique log name",
    ),
    (
        "timestamps",
        "tc_log_timestamps",
        "Transaction Counter timestamps",
    ),
];
pub const DGSET_OPTIONS: &[(&str, &str)] = &[
    ("vu", "gen_num_vu"),
    ("warehouse", "gen_count_ware"),
    ("directory", "gen_directory"),
    ("scale_fact", "gen_scale_fact"),
];
/// What each `dgset` option sets, as its line says it: `Set warehouses to 4 for data
/// generation`.
const DGSET_SETS: &[(&str, &str)] = &[
    ("vu", "virtual users"),
    ("warehouse", "warehouses"),
    ("directory", "directory"),
    ("scale_fact", "scale factor"),
];

/// What the `dgset` option `option` (one of [`DGSET_OPTIONS`]) sets, in its line's words.
pub fn dgset_sets(option: &str) -> &'static str {
    DGSET_SETS
        .iter()
        .find(|(o, _)| *o == option)
        .map_or("value", |(_, what)| what)
}
pub const METSET_OPTIONS: &[(&str, &str, &str)] = &[
    ("agent_hostname", "agent_hostname", "Metrics agent hostname"),
    ("agent_id", "agent_id", "Metrics agent id"),
    ("interval", "metrics_interval", "Metrics interval"),
    ("percpu", "metrics_per_cpu", "Metrics per CPU"),
];

use Complete as C;

const JOBS_WORDS: &[&str] = crate::jobs::command::WORDS;

const JOBS_HELP: &str =
    "The job history. Every buildschema, checkschema, deleteschema, datagenrun and \
vurun is a job with an id (printed as Benchmark Run jobid=...), kept in jobs.db in the data \
directory with its settings, output, result, timings, series and system. jobs lists them newest \
first (with more than one workload, each workload's in a section headed by its name, \
TPROC-H's with their geometric mean); jobs list the same in the jobs format; jobs result every job's result; jobs ID shows one (an id or its first 4 or more \
characters); jobs ID status|result|timing|queries|tcount|progress|metrics|system|dict|output [VU] \
shows a part (queries: a TPROC-H run's time and rows of each query of each set); \
jobs ID delete deletes it; jobs ID report FILE.html writes a self-contained HTML report; \
jobs diff ID1 ID2 compares NOPM, TPM and latency percentiles, with the noise measured on \
repeats of the same settings; jobs profileid N records the timed TPROC-C runs that follow under \
performance profile N (0: none; jobs profileid shows it, jobs profileid all lists the profiles), \
jobs profilestep LABEL names the step those runs record (a buffer pool size, a device), jobs \
profile N lists a profile's runs with their NOPM, TPM and virtual users, and jobs profile A B \
... sets profiles side by side, one row per step with each profile's NOPM and its ratio to the \
first's (jobs diff A B of two profile ids too; report FILE.html adds a chart); a run several drivers shared (drivers_run) is listed as one \
entry, its merged NOPM and TPM and whether every part completed, with each driver's job beneath; \
jobs run lists those runs and jobs run NAME shows one (the merged result, each driver with its \
job); jobs format text|json chooses how jobs prints (kept). From the \
operating-system shell: hammer jobs [--json|--text] .... In scripts each returns its answer as \
a map or array.";

pub static COMMANDS: &[Command] = &[
    Command {
        name: "dbset",
        args: "[db|bm] value",
        min_args: 2,
        max_args: 2,
        help: "Sets the database (db: pg, maria, mysql, crdb, yb or tidb; postgres, postgresql, \
               mariadb, cockroachdb, yugabytedb and ysql are taken too) or the benchmark (bm: TPROC-C, TPROC-H or OLTP, hammer's own: \
               sysbench's OLTP tests; TPC-C, TPC-H, tpcc, tpch, oltp are taken too). The choice persists between sessions. A change of either \
               clears a loaded script and destroys created virtual users (run loadscript again).",
        complete: &[C::DbsetWhat, C::DbsetValue],
    },
    Command {
        name: "diset",
        args: "dict key value",
        min_args: 3,
        max_args: 3,
        help: "Sets a key of the current database's dictionaries (connection, or a workload's: tpcc, \
               tpch, oltp) after checking \
               its type and range; the key keeps its old value when the new one is refused. \
               Type \"print dict\" for the dictionaries and keys.",
        complete: &[C::DictSections, C::DictKeys, C::DictValues],
    },
    Command {
        name: "giset",
        args: "dict key value",
        min_args: 3,
        max_args: 3,
        help: "Sets a key of the generic dictionary. Type \"print generic\" for its sections and keys.",
        complete: &[C::GenericSections, C::GenericKeys, C::GenericValues],
    },
    Command {
        name: "print",
        args: "[db|bm|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|tcconf|datagen|connectpool]",
        min_args: 1,
        max_args: 1,
        help: "Prints a configuration: db (the current database), bm (the benchmark), dict (the \
               current database's dictionaries), generic (the generic dictionary), script (the loaded \
               driver configuration), vuconf (virtual user options), vucreated, vustatus, \
               vucomplete, tcconf (transaction counter options), datagen (data generation settings), \
               connectpool (the current database's connect pool). \
               In a script, print(\"text\") \
               of anything else prints the text itself.",
        complete: &[C::PrintTargets],
    },
    Command {
        name: "vuset",
        args: "[vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps|refreshrate] value",
        min_args: 2,
        max_args: 2,
        help: "Configures virtual users: vu (count, or vcpu for one per logical CPU), delay and repeat \
               (milliseconds), iterations, and the output switches showoutput, logtotemp, unique, \
               nobuff, timestamps (0 or 1), and refreshrate (seconds between the live view's \
               intervals during vurun, 0 for none). Refused while virtual users exist.",
        complete: &[C::VusetOptions, C::OptionValues],
    },
    Command {
        name: "tcset",
        args: "[refreshrate|logtotemp|unique|timestamps] value",
        min_args: 2,
        max_args: 2,
        help: "Configures the transaction counter: refreshrate (seconds between samples, 1 to 59), \
               logtotemp (also write the lines to hdbtcount.log in the temporary directory), \
               unique (a log named hdbtcount_<GUID>.log) and timestamps (each logged line ends \
               with @ <UTC time>), each 0 or 1. Read at tcstart.",
        complete: &[C::TcsetOptions, C::OptionValues],
    },
    Command {
        name: "metset",
        args: "[agent_hostname|agent_id|interval|percpu] value",
        min_args: 2,
        max_args: 2,
        help: "Configures the CPU metrics: agent_hostname (localhost for the agent built into \
               hammer; any other name or address for `hammer agent` running there) and agent_id \
               (that agent's TCP port); hammer's own: interval (seconds between samples, 1 to \
               3600, default 2) and percpu (1 adds a line per CPU after the `CPU all` line). \
               Refused while metrics run.",
        complete: &[C::MetsetOptions, C::OptionValues],
    },
    Command {
        name: "tcstart",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Starts the transaction counter on the current database with its own connection \
               (PostgreSQL: pg_superuser on pg_defaultdbase; MariaDB/MySQL: *_user). Every \
               refreshrate seconds it prints \"N <database> tpm\": the server's commits plus \
               rollbacks, whoever runs them (vurun, sysbench, an application), per minute over \
               the exact time between two readings; with \" M NOPM\" added where the schema \
               database holds TPROC-C districts. Under dbset bm TPC-H it counts queries per \
               hour, as HammerDB does (\"N <database> qph\"; PostgreSQL: commits plus rollbacks \
               as pg_tpch_superuser on pg_tpch_defaultdbase; MariaDB/MySQL: Queries minus \
               Com_show_status as *_tpch_user). A server that goes away is said once and \
               retried; a restart never shows as a spike.",
        complete: &[],
    },
    Command {
        name: "tcstatus",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Says whether the transaction counter runs. Returns true or false.",
        complete: &[],
    },
    Command {
        name: "tcstop",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Stops the transaction counter and prints min, average and max tpm (and NOPM) \
               over its samples. Returns #{samples, seconds, transactions, min_tpm, avg_tpm, \
               max_tpm, nopm, unit, series}, series an array of #{time, seconds, transactions, tpm, \
               nopm}; counting queries (TPC-H), queries and qph in place of transactions and \
               tpm.",
        complete: &[],
    },
    Command {
        name: "metstart",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Starts CPU metrics: with agent_hostname localhost the agent inside hammer samples \
               this machine; otherwise hammer connects to `hammer agent --port <agent_id>` on \
               that host (retrying while it does not answer). Each interval prints \
               \"CPU all usr%-x sys%-y irq%-z idle%-w\" (and one line per CPU with percpu 1).",
        complete: &[],
    },
    Command {
        name: "metstatus",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Says whether CPU metrics run and whether the agent is connected. Returns true \
               or false.",
        complete: &[],
    },
    Command {
        name: "metstop",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Stops CPU metrics and prints min, average and max of usr%, sys%, irq% and idle% \
               over the samples. Returns #{samples, seconds, usr, sys, irq, idle, series}, each \
               column a map #{min, avg, max}.",
        complete: &[],
    },
    Command {
        name: "runtimer",
        args: "seconds",
        min_args: 1,
        max_args: 1,
        help: "Waits the given number of seconds (fractions allowed) while the transaction \
               counter, metrics and anything else in the background go on. Ctrl-C ends the wait \
               early and the script continues (to its tcstop and metstop, say).",
        complete: &[],
    },
    Command {
        name: "buildschema",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Builds the current benchmark's schema (dbset bm) on the current database as its \
               dictionary says: for TPROC-C, *_count_ware warehouses loaded by *_num_vu virtual \
               users in parallel, then keys, stored procedures and statistics; for TPROC-H, \
               its eight tables at *_scale_fact, loaded by *_num_tpch_threads in parallel; for \
               OLTP, sysbench's tables sbtest1 to *_oltp_tables of *_oltp_table_size rows, \
               loaded by *_oltp_build_threads in parallel, as sysbench's prepare makes them. \
               Creates the user and database where missing; refuses a database that already \
               holds tables. Blocks until done; Ctrl-C stops it. \
               Returns #{ok, warehouses (scale_fact, table_size), rows, seconds, rows_per_second, \
               bytes_on_disk, jobid}; \
               a build that fails is an error naming its job (catch (e): e.jobid, e.status, e.note). \
               Several drivers build one schema (hammer's own): each its warehouses \
               (*_first_ware, *_owned_ware) or its part (*_tpch_build_part of \
               *_tpch_build_parts); the first creates the schema and adds the keys once all \
               are loaded, and the map adds share, finished and parts (who loaded what).",
        complete: &[],
    },
    Command {
        name: "checkschema",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Checks the current benchmark's schema (dbset bm) on the current database: for \
               TPROC-C tables, indexes, procedures, row counts for *_count_ware warehouses, and \
               TPC-C consistency conditions 1 to 4 on every warehouse; for TPROC-H its tables, \
               primary keys, indexes, row counts for *_scale_fact and a sample of dbgen's \
               invariants; for OLTP sysbench's tables, columns, keys, index on k, rows and \
               ids (tables sysbench prepared pass too). Prints PASS or FAIL per check and returns #{ok, failed, checks, \
               jobid}. A failed check is an error of the script naming its job; catch (e) reads \
               the same e.checks, with e.jobid, e.status and e.note.",
        complete: &[],
    },
    Command {
        name: "deleteschema",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Drops the current workload's schema on the current database: the database, and on \
               PostgreSQL the user where hammer created it. The first line says what it drops \
               (workload, database, user, tables found, size); a database holding tables none of \
               which is the workload's own (another workload's, or nobody's) is refused with \
               nothing dropped. OLTP drops only the sbtest tables, as sysbench's cleanup does, \
               when the database holds other tables too. Returns the lines that say what was dropped; a schema that is not \
               there is nothing to delete, which is said and is no failure.",
        complete: &[],
    },
    Command {
        name: "dgset",
        args: "[vu|warehouse|scale_fact|directory] value",
        min_args: 2,
        max_args: 2,
        help: "Configures datagenrun: vu (parallel writers; for TPROC-C at most the warehouses, \
               for TPROC-H dbgen's parts), warehouse (TPROC-C's size), scale_fact (TPROC-H's: \
               1 10 30 100 ... or 0.01 0.1), directory (where the files go; empty means the \
               temporary directory). OLTP has no data generation.",
        complete: &[C::DgsetOptions],
    },
    Command {
        name: "datagenrun",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Writes the current benchmark's data (TPROC-C's, or TPROC-H's as dbgen writes \
               it) as pipe-delimited files <table>_<n>.tbl in the dgset directory, for a \
               server's own bulk loader (OLTP has none: buildschema loads its tables \
               directly, as sysbench's prepare does). Never overwrites a file. A generation \
               that fails is an error naming its job.",
        complete: &[],
    },
    Command {
        name: "loadscript",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Freezes the current database's driver configuration (test or timed, rampup, \
               duration, options) for the next virtual users; print script shows it.",
        complete: &[],
    },
    Command {
        name: "customscript",
        args: "scriptname.rhai",
        min_args: 1,
        max_args: 1,
        help: "Loads your own Rhai workload for the virtual users: each runs it `vuset iterations` \
               times with VUSER (its number), ITERATION and DB, a connection to the current \
               database's schema with query(sql), execute(sql), callproc(name, [args]), \
               callfunc(name, [args]), begin(), commit() and rollback() (Rhai keeps `call` for \
               function pointers).",
        complete: &[],
    },
    Command {
        name: "clearscript",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Forgets the loaded script.",
        complete: &[],
    },
    Command {
        name: "vucreate",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Creates the virtual users (vuset vu), plus a monitor for a timed script; loads \
               the script first when none is loaded.",
        complete: &[],
    },
    Command {
        name: "vurun",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Runs the loaded script on the virtual users (creating them if needed) and blocks \
               until every one has finished or Ctrl-C stops them. A timed run prints NOPM and \
               TPM from the database's own counters, then per transaction type the counts and \
               latency percentiles. Returns the run id; lastrun() returns the figures. A run that \
               fails (no result, failed virtual users) is an error naming its job; catch (e) \
               reads e.jobid, e.status, e.note and the figures as e.result. Ctrl-C ends the \
               script (hammer auto exits 130) with the job STOPPED.",
        complete: &[],
    },
    Command {
        name: "vustatus",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Shows each virtual user's state: WAIT IDLE, RUNNING, FINISH SUCCESS, FINISH FAILED.",
        complete: &[],
    },
    Command {
        name: "vucomplete",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Returns true when every virtual user of the last run has finished.",
        complete: &[],
    },
    Command {
        name: "vudestroy",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Destroys the virtual users, so that settings can change and new ones be created.",
        complete: &[],
    },
    Command {
        name: "lastrun",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Returns the last run's figures: #{id, nopm, tpm, active_vus, seconds, failed_vus, \
               reconnects, new_order, payment, delivery, stock_level, order_status}, each \
               transaction type a map of committed, rolled_back, retried, failed, p50_ms, p95_ms, \
               p99_ms, max_ms.",
        complete: &[],
    },
    Command {
        name: "jobs",
        args: "[list | result | format [text|json] | diff ID1 ID2 | run [NAME] | profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID [status|result|timing|queries|tcount|progress|metrics|system|dict|output [VU]|delete|report FILE.html]]",
        min_args: 0,
        max_args: 5,
        help: JOBS_HELP,
        complete: &[C::Words(JOBS_WORDS), C::Words(crate::jobs::command::SUBCOMMANDS)],
    },
    Command {
        name: "job",
        args: "[list | result | format [text|json] | diff ID1 ID2 | run [NAME] | profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID [status|result|timing|queries|tcount|progress|metrics|system|dict|output [VU]|delete|report FILE.html]]",
        min_args: 0,
        max_args: 5,
        help: "The same as jobs.",
        complete: &[C::Words(JOBS_WORDS), C::Words(crate::jobs::command::SUBCOMMANDS)],
    },
    Command {
        name: "cpset",
        args: "id key value",
        min_args: 3,
        max_args: 3,
        help: "Configures the current database's connect pool (HammerDB's cluster connect pool, \
               used when *_connect_pool is true). A named connection (id c1, c2, ...) sets any \
               connection key and the login's user, password and database over the \
               dictionary's: cpset c1 pg_host h1. A transaction (neworder, payment, delivery, \
               stocklevel, orderstatus) sets its connections (ids separated by spaces) and its \
               policy (first_named, last_named, random, round_robin; another word is \
               first_named, with a warning): cpset neworder connections \"c1 c2\". Type \
               \"print connectpool\" to see it; it persists with the settings.",
        complete: &[C::Words(&crate::config::pool::TRANSACTIONS), C::Words(&["connections", "policy"]), C::Nothing],
    },
    Command {
        name: "cpclear",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Empties the current database's connect pool.",
        complete: &[],
    },
    Command {
        name: "switchmode",
        args: "[Local|Primary|Replica] ?PrimaryID? ?PrimaryHostname?",
        min_args: 0,
        max_args: 3,
        help: "Without an argument, prints the mode. Primary opens a session under an id that \
               Replicas join (switchmode replica ID HOST) through the jobs database: the SQLite \
               file on one machine, the shared PostgreSQL jobs store across machines. A Primary \
               sends its Replicas dbset, diset (passwords withheld), vuset, loadscript, \
               clearscript, vucreate, vurun and vudestroy; a timed TPROC-C vurun becomes one \
               shared run with one merged result (hammer's own). A Replica follows until its \
               Primary closes down (switchmode local) or Ctrl-C, and its settings changes hold \
               for the session only.",
        complete: &[Complete::Words(&["Local", "Primary", "Replica"])],
    },
    Command {
        name: "distributescript",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Primary mode only: sends the loaded script to the Replicas (a custom script's \
               text, or loadscript of the workload's).",
        complete: &[],
    },
    Command {
        name: "steprun",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "TPROC-C, timed: a step workload. Reads config/steps.xml (HammerDB's file; else \
               steps.xml in the data directory, else 4 replicas 1 minute apart for 4, 3, 2 and \
               1 minutes with 2 virtual users each), checks that every step ends inside the \
               Primary's rampup and duration, switches to Primary, starts one hammer Replica \
               per step, and runs one shared run in which each Replica joins at its step. \
               Every process measures; the merged result is the database's over the Primary's \
               window.",
        complete: &[],
    },
    Command {
        name: "librarycheck",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "For each supported database, reports the driver built into hammer and, where the \
               configured server answers, its version and whether the session uses TLS. Returns a \
               map keyed by prefix (pg, maria, mysql) of #{ok, version, tls, error}.",
        complete: &[],
    },
    Command {
        name: "help",
        args: "[command]",
        min_args: 0,
        max_args: 1,
        help: "Lists the commands, or describes one.",
        complete: &[C::Commands],
    },
    Command {
        name: "clear",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Clears the terminal's screen (elsewhere, as in a pipe or a script's log, it does nothing).",
        complete: &[],
    },
    Command {
        name: "quit",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Leaves hammer (exit does the same).",
        complete: &[],
    },    Command {
        name: "waittocomplete",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "savescript",
        args: "file",
        min_args: 1,
        max_args: 1,
        help: "Saves the loaded workload as a hammer script that loads it again: print script's \
               text as comments, then dbset, a diset for every key changed from its default \
               (passwords left out and named), the vuset options and loadscript. A custom \
               script is copied as it is. A bare name goes to the temporary directory ($TMP, \
               $TMPDIR, $TEMP or /tmp), as in HammerDB; the file always ends in .rhai (HammerDB \
               forces .tcl). Returns the path written.",
        complete: &[],
    },
    Command {
        name: "custommonitor",
        args: "[test|timed]",
        min_args: 0,
        max_args: 1,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "wsport",
        args: "[port]",
        min_args: 0,
        max_args: 1,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "wsstart",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "wsstatus",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "wsstop",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "ci",
        args: "[args ...]",
        min_args: 0,
        max_args: 4,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cifix",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cilisten",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cipush",
        args: "[args ...]",
        min_args: 0,
        max_args: 4,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cireset",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "ciset",
        args: "dict key value",
        min_args: 0,
        max_args: 3,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cistatus",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "cistop",
        args: "",
        min_args: 0,
        max_args: 0,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "citmp",
        args: "",
        min_args: 0,
        max_args: 0,
        help: "Shows the temporary directory (where logs, savescript and a converted script's \
               $TMP go) and the jobs database (a file, or a PostgreSQL database without its \
               password); returns them as a map #{tmp, jobs}.",
        complete: &[],
    },
    Command {
        name: "pipe",
        args: "[args ...]",
        min_args: 0,
        max_args: 4,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
    Command {
        name: "pipes",
        args: "[args ...]",
        min_args: 0,
        max_args: 4,
        help: NO_EFFECT_HELP,
        complete: &[],
    },
];

/// What `help` says of a HammerDB command that has no effect here; [`no_effect`] says why.
const NO_EFFECT_HELP: &str = "HammerDB's command: in hammer it does nothing but say why, and \
a script goes on.";

/// HammerDB's commands that do nothing in hammer, and why: called, each says so in one
/// warning line and the script goes on.
pub fn no_effect(name: &str) -> Option<&'static str> {
    Some(match name {
        "waittocomplete" => {
            "it is deprecated in HammerDB, and hammer's vurun returns when every virtual user \
             has finished"
        }
        "custommonitor" => "a customscript runs its virtual users without a monitor",
        "wsport" | "wsstart" | "wsstatus" | "wsstop" => {
            "hammer has no web service; hammer jobs ID report FILE.html writes a job's report"
        }
        "ci" | "cifix" | "cilisten" | "cipush" | "cireset" | "ciset" | "cistatus" | "cistop"
        | "pipe" | "pipes" => {
            "hammer has no CI pipeline service; run hammer auto from the pipeline and read its \
             exit status"
        }
        _ => return None,
    })
}

/// Looks a command up by name.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The names, alphabetically, as `help` lists them.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = COMMANDS.iter().map(|c| c.name).collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `dgset` option's line says what it sets.
    #[test]
    fn every_dgset_option_says_what_it_sets() {
        let options: Vec<&str> = DGSET_OPTIONS.iter().map(|(o, _)| *o).collect();
        let said: Vec<&str> = DGSET_SETS.iter().map(|(o, _)| *o).collect();
        assert_eq!(options, said);
        assert_eq!(dgset_sets("warehouse"), "warehouses");
        assert_eq!(dgset_sets("vu"), "virtual users");
    }

    /// `help dbset` names every benchmark of the list, by its name, HammerDB's and its
    /// dictionary's.
    #[test]
    fn dbset_help_names_every_benchmark() {
        let help = find("dbset").expect("dbset").help;
        for b in crate::benchmarks::ALL {
            for word in [b.name, b.alias, b.dictionary] {
                assert!(help.contains(word), "help dbset lacks {word}: {help}");
            }
        }
    }

    /// The help of each command that does something per workload says what it does for
    /// every benchmark of the list; `diset`'s names every dictionary.
    #[test]
    fn workload_help_names_every_benchmark() {
        for name in ["buildschema", "checkschema", "dgset", "datagenrun"] {
            let help = find(name).expect(name).help;
            for b in crate::benchmarks::ALL {
                assert!(
                    help.contains(b.name),
                    "help {name} lacks {}: {help}",
                    b.name
                );
            }
        }
        let help = find("diset").expect("diset").help;
        for b in crate::benchmarks::ALL {
            assert!(
                help.contains(b.dictionary),
                "help diset lacks {}: {help}",
                b.dictionary
            );
        }
    }

    #[test]
    fn dbset_help_names_every_database() {
        let help = find("dbset").expect("dbset").help;
        for db in crate::database::Database::ALL {
            assert!(
                help.contains(&format!(" {}", db.prefix())),
                "help dbset lacks {}: {help}",
                db.prefix()
            );
        }
    }

    #[test]
    fn rows_are_consistent() {
        let mut seen = std::collections::HashSet::new();
        for c in COMMANDS {
            assert!(seen.insert(c.name), "duplicate {}", c.name);
            assert!(c.min_args <= c.max_args, "{}", c.name);
            assert!(
                c.complete.len() <= c.max_args,
                "{} completes more args than it takes",
                c.name
            );
            assert!(!c.help.is_empty(), "{}", c.name);
        }
    }

    #[test]
    fn the_jobs_usage_is_the_parser_s() {
        let usage = crate::jobs::command::usage();
        assert_eq!(find("jobs").unwrap().usage(), usage);
        assert_eq!(
            find("job").unwrap().usage().replacen("job ", "jobs ", 1),
            usage
        );
        assert_eq!(JOBS_WORDS, crate::jobs::command::WORDS);
    }

    #[test]
    fn the_print_usage_lists_every_target() {
        let usage = find("print").unwrap().usage();
        assert_eq!(usage, format!("Usage: print [{}]", PRINT_TARGETS.join("|")));
        let vuset = find("vuset").unwrap().usage();
        let opts: Vec<&str> = VUSET_OPTIONS.iter().map(|o| o.0).collect();
        assert_eq!(vuset, format!("Usage: vuset [{}] value", opts.join("|")));
    }
}
