//! The contract between the session and the workloads, below every workload: [`Benchmark`]
//! (a workload's names, schema, data and run commands), the [`Outcome`] a run gives back and
//! the [`Memory`] outcomes keep between runs, [`UserScript`] (a user's own Rhai workload), and
//! the helpers workloads share ([`loading`] for schema builds, [`deleting`] for deletes).
//! Which workloads exist is `crate::workloads`' list; nothing here names one.
//!
//! Adding a workload (TPROC-H, in `src/tpch/`, is the second; `tests/seam_workload.rs` is a
//! test one built on these seams alone):
//! 1. a folder `src/<workload>/` with its rules (data, generator, inputs, result text); the
//!    trait an engine offers it (as `tpcc::support::Support`, written once over a `Family` the
//!    engine families implement), found on an engine with `db::engine::offered`; its
//!    [`Benchmark`] (as `tpcc::bench`), whose options are a `vu::WorkloadOptions` and whose run
//!    drives the `vu` runtime through a `vu::Workload`; and its [`Outcome`] (as
//!    `tpcc::outcome`: the run's lines, job record and `lastrun()` map);
//! 2. its names (name, HammerDB's alias, dictionary) in `crate::benchmarks::ALL` (and
//!    `ALIASES`), which `bm`'s choices, help, Tab completion, the jobs and the errors read;
//! 3. its [`Benchmark`] in `crate::workloads::ALL`, in the same order (a test checks it);
//! 4. in each engine family that serves it, `impl` of its `Family` in
//!    `db/<family>/engine.rs` (the family's schema and driver code for it beside the others',
//!    as TPROC-H's `db/<family>/schema/tpch.rs`) and one entry in that engine's
//!    `Engine::offers`; an engine that leaves it out refuses it with
//!    `Error::WorkloadUnavailable`;
//! 5. its dictionary keys in `config::keys` (a section named by its dictionary, per database);
//! 6. its SQL under `schemas/<db>/<workload>/`, its shipped scripts under
//!    `scripts/<db>/<workload>/`, its row in the engine battery (`tests/engines.rs`), and, if
//!    `tcstart` should count something other than transactions, its
//!    [`Benchmark::counting`]; and its name in `dbset`'s help text (`commands.rs`; a test
//!    there checks that it names every benchmark of the list).
//!
//! The session, `vu`, `jobs` and the shell need no change.

pub mod benchmark;
pub mod deleting;
pub mod generation;
pub mod loading;
pub mod outcome;

pub use benchmark::{Benchmark, Built, Check, Ran, Survey, UserScript};
pub use outcome::{Memory, Outcome};
