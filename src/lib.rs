//! hammer: a database benchmarking shell that speaks HammerDB's commands in Rhai.
//!
//! # The map
//!
//! One crate: this library and a thin `main.rs`. Each module has one job; the list runs from
//! the top floor down and a module imports only those below it, with one pair by design: an
//! engine family in [`db`] implements the workloads' traits, and a workload's `bench.rs` (and
//! the contract's `Benchmark::counting`) reach down into `db` for the engine that offers them,
//! file by file without a circle. No two files import each other, directly or round a loop.
//!
//! - [`shell`] the console and `hammer auto`; [`script`] the Rhai engine and its limits;
//!   [`convert`] HammerDB's Tcl and Python scripts translated to Rhai (`hammer auto FILE.tcl`,
//!   `hammer convert`), each Rhai line knowing its source line.
//! - [`session`] one method per command, split by command family, naming no workload and no
//!   database: it reaches them through [`workloads`], [`bench`] and [`db`]; `session/values.rs`
//!   makes the commands' plain results Rhai values (a run's value is its outcome's own).
//! - [`workloads`] the one list of workloads with their code: `workloads::of` is the only place
//!   `dbset bm` picks a workload's code.
//! - [`txcount`] the transaction counter (`tcstart`), over the engines' counters.
//! - [`custom`] a user's own Rhai workload (`customscript`), a sibling of TPROC-C on the `vu`
//!   runtime.
//! - [`db`] the engines: `db::engine(db)` is the only place a database picks its code;
//!   `db/engine.rs` the contract an engine keeps ([`db::Engine`], with the workload supports it
//!   offers); one folder per family (`db/postgres/`, `db/mysql/`: logins, wire client, schema
//!   builders, workload drivers, counters), each with its `dialect.rs`, the values that say
//!   what differs between the databases it serves; `db/net/` the bounded socket and TLS every
//!   family's connection shares.
//! - [`drivers`] one benchmark run by several hammer processes: a named run on a board in the
//!   database under test, the common window, each driver's part and their exact merge.
//! - [`modes`] HammerDB's Primary and Replica modes (`switchmode`, `distributescript`,
//!   `steprun`) through the jobs database, a Primary's run shared with its Replicas.
//! - [`tpcc`] and [`tpch`] the workloads' own knowledge, whatever the database: data rules and
//!   generators, inputs, the traits an engine implements for them (`support.rs`), the build,
//!   the driver the runtime runs, options, result text, their `Outcome` and `Benchmark`;
//!   [`oltp`] the third, hammer's own: sysbench's OLTP tables (build, check, cleanup), its
//!   random numbers and its run's options.
//! - [`commands`] the command table (plain data) that registers the Rhai functions and writes
//!   `help`; [`metrics`] CPU metrics and the agent; [`bench`] the contract between the session and
//!   the workloads, naming none ([`bench::Benchmark`], [`bench::Outcome`] and the session's
//!   [`bench::Memory`]), with the loaders', deletes' and data generation's shared helpers.
//! - [`jobs`] the job history (the store, a SQLite file or a shared PostgreSQL database, the
//!   recorder, text, JSON and HTML reports, performance profiles), taking plain data; [`vu`] the virtual-user runtime, naming no workload: terminals, pool, stop,
//!   reconnect, the timed run's monitor, per-type statistics, the live view.
//! - [`endpoint`] where a connection goes: the one place the host, port, socket and TLS keys
//!   are read, and which endpoint each connection takes by its position (terminal n of N,
//!   loader n of N, the monitor, the counter).
//! - [`config`] the dictionaries and their keys (`config/keys.rs`, one block per family);
//!   [`error`] the library's error type; [`sql`] the SQL vocabulary engines and workloads share
//!   (a script's connection, rows, canceller, table reference).
//! - The ground floor: [`fault`] why a database operation failed, where and as whom,
//!   [`hostlist`] a list of servers as `*_host` holds it, [`conninfo`] a PostgreSQL
//!   connection string (`jobs_store`) read, checked and masked,
//!   [`database`] the databases hammer knows (prefix, name, the aliases users type),
//!   [`benchmarks`] the benchmarks' names (name, HammerDB's alias, dictionary), [`progress`], [`output`],
//!   [`clock`], [`interrupt`], [`sqlfile`], [`task`] (background tasks stopped with a bound).
//!
//! Outside `src/`: `schemas/<db>/<workload>/` the SQL, `scripts/` the shipped Rhai scripts and
//! the CI and benchmark shell scripts, `tests/` the tests (`tests/engines.rs` puts every
//! engine through one battery), `docs/` the design notes.
//!
//! # Extending it
//!
//! - A dialect (a database that speaks an existing family's protocol: CockroachDB or
//!   YugabyteDB for PostgreSQL, TiDB for MySQL) and an engine (a new family): the checklists
//!   in [`db`]'s documentation; `tests/seam_dialect.rs` builds two dialects on the public
//!   seams alone.
//! - A workload: the checklist in [`bench`]'s documentation; `tests/seam_workload.rs` builds
//!   one on the public seams alone.
//! - Where connections go: the loaders, terminals, monitor, counters, `librarycheck`, custom
//!   workloads and the jobs' CPU measure all take their endpoint from [`endpoint`] by their
//!   position, and the messages about a connection name its position's server
//!   (`vu::Workload::peer`). A list of hosts spread over the connections is `endpoint.rs`
//!   alone (`Destination::from_dict` reads the list, `Destination::for_position` picks by
//!   position); trying the other hosts when one does not answer adds a loop to the families'
//!   openers that take `for_position` (`grep -rn for_position src/db`). [`endpoint`]'s
//!   documentation has the plan.

pub mod bench;
pub mod benchmarks;
pub mod clock;
pub mod commands;
pub mod config;
pub mod conninfo;
pub mod convert;
pub mod custom;
pub mod database;
pub mod db;
pub mod drivers;
pub mod endpoint;
pub mod error;
pub mod fault;
pub mod hostlist;
pub mod interrupt;
pub mod jobs;
pub mod metrics;
pub mod modes;
pub mod oltp;
pub mod output;
pub mod progress;
pub mod script;
pub mod session;
pub mod shell;
pub mod sql;
pub mod sqlfile;
pub mod task;
pub mod tpcc;
pub mod tpch;
pub mod txcount;
pub mod vu;
pub mod workloads;

/// hammer's version, as `--version` and `help` print it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
