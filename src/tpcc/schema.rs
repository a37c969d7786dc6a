//! What a database must offer the TPROC-C schema builder, checker and remover.
//!
//! The orchestration in [`super::build`] is database-independent; `db::postgres::schema` and
//! `db::mysql::schema` implement [`SchemaDb`] with their own SQL from `schemas/<db>/tprocc/`,
//! and hand it to TPROC-C through `tpcc::support::Family`.

use std::future::Future;

use super::{Constants, Table};
use crate::endpoint::Position;
use crate::error::Result;

/// Where schema work reports its progress: `Vuser N:` lines on the session's output (the
/// virtual users' own voice, kept in [`crate::vu`]).
pub use crate::vu::Say;

/// One line of `checkschema`'s verdict (the benchmarks' common shape).
pub use crate::bench::benchmark::Check;

/// A database's part in building, checking and deleting a TPROC-C schema. Settings (users,
/// passwords, database names, options such as partitioning) are read from the dictionary when
/// the implementation is constructed.
pub trait SchemaDb: Send + Sync + 'static {
    type Loader: Loader;

    /// `PostgreSQL`, `MariaDB`, `MySQL`.
    fn name(&self) -> &'static str;

    /// `host localhost:5432 under user tpcc in database tpcc`, for the confirmation line.
    fn describe(&self) -> String;

    /// Creates what is missing (role, database) and the tables, empty and without secondary
    /// keys where that loads faster. Refuses, without touching anything, a database that
    /// already holds tables: the message names `deleteschema`.
    fn create(&self, warehouses: u32, say: &Say) -> impl Future<Output = Result<()>> + Send;

    /// A session for loading rows, the loader at `at`'s; several run at once.
    fn loader(&self, at: Position) -> impl Future<Output = Result<Self::Loader>> + Send;

    /// After the load: keys and indexes still missing, the stored procedures or functions,
    /// the NURand load constants, statistics.
    fn finish(&self, constants: &Constants, say: &Say) -> impl Future<Output = Result<()>> + Send;

    /// The schema's database (`*_dbase`).
    fn database(&self) -> String;

    /// A plain SQL connection as the owner on the schema's database: a split build's ledger
    /// and the deletes of a share a driver left unfinished.
    fn owner_conn(&self) -> impl Future<Output = Result<crate::sql::ScriptConn>> + Send;

    /// Bytes the schema's database occupies on disk.
    fn size_on_disk(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The warehouses the schema holds, as a run uses them (`max(w_id)`), asked as the
    /// schema's user on its database.
    fn warehouses(&self) -> impl Future<Output = Result<u32>> + Send;

    /// Database, tables, indexes, routines, row counts for `warehouses`, and TPC-C
    /// consistency conditions 1 to 4 (clause 3.3.2.1 to 3.3.2.4) on every warehouse.
    fn check(&self, warehouses: u32, say: &Say) -> impl Future<Output = Result<Vec<Check>>> + Send;

    /// What [`SchemaDb::delete`] would drop: the database, its login, its tables and size.
    fn survey(&self) -> impl Future<Output = Result<crate::bench::Survey>> + Send;

    /// Drops what `create` made: the database, and the user where hammer created it.
    /// Returns one line per object dropped.
    fn delete(&self, say: &Say) -> impl Future<Output = Result<Vec<String>>> + Send;
}

/// One loading session.
pub trait Loader: Send + 'static {
    /// Appends rows to a table: text in [`super::Format::COPY`] (tab-separated, `\N` for NULL,
    /// one row per line), columns in [`Table::columns`] order. Committed when it returns.
    fn load(&mut self, table: Table, rows: &[u8]) -> impl Future<Output = Result<()>> + Send;

    /// Ends the session and closes its connection.
    fn close(self) -> impl Future<Output = ()> + Send;
}
