//! hammer: a database benchmarking shell that speaks HammerDB's commands in Rhai.

pub mod bench;
pub mod benchmarks;
pub mod clock;
pub mod commands;
pub mod config;
pub mod custom;
pub mod database;
pub mod db;
pub mod endpoint;
pub mod error;
pub mod fault;
pub mod interrupt;
pub mod jobs;
pub mod metrics;
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
