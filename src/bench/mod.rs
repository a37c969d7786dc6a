//! The contract between the session and the workloads, below every workload: [`Benchmark`]
//! (a workload's names, schema, data and run commands), the [`Outcome`] a run gives back and
//! the [`Memory`] outcomes keep between runs, [`UserScript`] (a user's own Rhai workload), and
//! the helpers workloads share ([`loading`] for schema builds, [`split`] for a schema several
//! drivers build at once, [`deleting`] for deletes).
//! Which workloads exist is `crate::workloads`' list; nothing here names one.
//!
//! Adding a workload (TPROC-H, in `src/tpch/`, is the second; `tests/seam_workload.rs` is a
//! test one built on these seams alone):
//! 1. a folder `src/<workload>/` with its rules (data, generator, inputs, result text); the
//!    trait an engine offers it (as `tpcc::support::Support`, written once over a `Family` the
//!    engine families implement), found on an engine with `db::engine::offered`; its
//!    [`Benchmark`] (as `tpcc::bench`), whose options are a `vu::WorkloadOptions` and whose run
//!    drives the `vu` runtime through a `vu::Workload` (its `peer(at)` names the server of a
//!    connection's position, as its `connect(at)` reaches it); its data generation's rule
//!    over `dgset`'s sizes and the warehouses a `datagenrun` job records, where they differ
//!    from the defaults ([`Benchmark::check_generation`],
//!    [`Benchmark::generation_warehouses`]); and its [`Outcome`] (as `tpcc::outcome`: the
//!    run's lines, job record and `lastrun()` map);
//! 2. `pub mod <workload>;` in `src/lib.rs` and its line in lib.rs's `//!` map of the crate
//!    (`tests/docs.rs` checks that every module is on the map);
//! 3. its names in `crate::benchmarks::ALL` (name, HammerDB's alias, dictionary), from which
//!    `ALIASES` (`bm`'s choices), help, Tab completion, the jobs and the errors read. A
//!    workload HammerDB does not have gives its name as its alias too: `bm` then stores
//!    the name;
//! 4. its [`Benchmark`] in `crate::workloads::ALL`, in the same order (a test checks it);
//! 5. in each engine family that serves it, `impl` of its `Family` in
//!    `db/<family>/engine.rs` (the family's schema and driver code for it beside the others',
//!    as TPROC-H's `db/<family>/schema/tpch.rs`) and one entry in that engine's
//!    `Engine::offers`; an engine that leaves it out refuses it with
//!    `Error::WorkloadUnavailable`;
//! 6. its dictionary keys in `config::keys` (a section named by its dictionary, per database);
//! 7. its SQL under `schemas/<db>/<workload>/` and its shipped scripts under
//!    `scripts/<db>/<workload>/`; if `tcstart` should count something other than
//!    transactions, its [`Benchmark::counting`];
//! 8. its tests: the engine battery (`tests/engines.rs`) is one row per engine and runs
//!    TPROC-C's steps, so a workload adds its own steps to `battery` (build, check, a run,
//!    delete) rather than a row; and its own test files beside `tests/tproch_*.rs`;
//! 9. its words in the help of `src/commands.rs`: `dbset` (its name, alias and dictionary: a
//!    test checks them), `diset` (its dictionary), `buildschema`, `checkschema`, `dgset`,
//!    `datagenrun` (what each does for it: tests check that they name every benchmark) and
//!    `tcstart` if it counts otherwise; and README's command tables where they list the
//!    workloads (`dbset bm`, `jobs`).
//!
//! The session, `vu` and the shell need no change; `jobs` lists its jobs in a section headed
//! by its name, in the NOPM and TPM table (only TPROC-H's jobs show a geometric mean).

pub mod benchmark;
pub mod deleting;
pub mod generation;
pub mod loading;
pub mod outcome;
pub mod split;

pub use benchmark::{Benchmark, Built, Check, Ran, Survey, UserScript};
pub use outcome::{Memory, Outcome};
