//! What a database must offer the TPROC-H schema builder, checker and remover. The
//! orchestration in [`super::build`] is database-independent; `db::postgres::schema::tpch`
//! and `db::mysql::schema::tpch` implement [`SchemaDb`] with their SQL from
//! `schemas/<db>/tproch/`, and hand it to TPROC-H through `tpch::support::Family`.

use std::future::Future;

use super::Table;
use crate::endpoint::Position;
use crate::error::Result;

pub use crate::bench::benchmark::Check;
pub use crate::vu::Say;

/// What `checkschema` reads of one table in the catalog (its rows are counted apart, on a
/// connection whose queries the checker can cancel on the server).
#[derive(Debug, Clone, PartialEq)]
pub struct TableFacts {
    pub table: Table,
    /// Whether the table has its primary key.
    pub primary_key: bool,
    /// The names of its other indexes, in lower case.
    pub indexes: Vec<String>,
}

/// A database's part in building, checking and deleting a TPROC-H schema; users, passwords
/// and database names come from the `tpch` dictionary when the implementation is made.
pub trait SchemaDb: Send + Sync + 'static {
    type Loader: Loader;

    /// `PostgreSQL`, `MariaDB`, `MySQL`.
    fn name(&self) -> &'static str;

    /// `host localhost:5432 under user tpch in database tpch`, for the confirmation line.
    fn describe(&self) -> String;

    /// Creates what is missing (role, database) and the eight tables, empty and without keys.
    /// Refuses, without touching anything, a database that already holds tables.
    fn create(&self, say: &Say) -> impl Future<Output = Result<()>> + Send;

    /// A session for loading rows, the loader at `at`'s; several run at once.
    fn loader(&self, at: Position) -> impl Future<Output = Result<Self::Loader>> + Send;

    /// After the load: primary keys, indexes, foreign keys, statistics.
    fn finish(&self, say: &Say) -> impl Future<Output = Result<()>> + Send;

    /// The schema's database (`*_tpch_dbase`).
    fn database(&self) -> String;

    /// A plain SQL connection as the owner on the schema's database: a split build's ledger
    /// and the deletes of a part a driver left unfinished.
    fn owner_conn(&self) -> impl Future<Output = Result<crate::sql::ScriptConn>> + Send;

    /// Bytes the schema's tables occupy on disk.
    fn size_on_disk(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The tables found in the catalog (primary key, indexes), or `None` when the database
    /// does not exist.
    fn inventory(&self) -> impl Future<Output = Result<Option<Vec<TableFacts>>>> + Send;

    /// What [`SchemaDb::delete`] would drop: the database, its login, its tables and size.
    fn survey(&self) -> impl Future<Output = Result<crate::bench::Survey>> + Send;

    /// Drops what `create` made. Returns one line per object dropped.
    fn delete(&self, say: &Say) -> impl Future<Output = Result<Vec<String>>> + Send;
}

/// One loading session.
pub trait Loader: Send + 'static {
    /// Appends rows (COPY text, columns in [`Table::columns`] order); committed when it
    /// returns.
    fn load(&mut self, table: Table, rows: &[u8]) -> impl Future<Output = Result<()>> + Send;

    /// Ends the session and closes its connection.
    fn close(self) -> impl Future<Output = ()> + Send;
}
