//! What a database must offer the OLTP schema builder, checker and remover. The
//! orchestration in [`super::build`] and [`super::cleanup`] is database-independent;
//! `db::postgres::schema::oltp` and `db::mysql::schema::oltp` implement [`SchemaDb`] with
//! their SQL from `schemas/<db>/oltp/`, and hand it to OLTP through `oltp::support::Family`.

use std::future::Future;

use super::{Layout, Table};
use crate::endpoint::Position;
use crate::error::Result;

pub use crate::bench::benchmark::Check;
pub use crate::vu::Say;

/// One column as the catalog shows it, in the words both families share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    /// `integer`, `char(120)`: PostgreSQL's `integer` and `character(120)`, MariaDB's
    /// `int(11)` and `char(120)` said alike.
    pub kind: String,
    pub not_null: bool,
    /// Its values come from a sequence (SERIAL) or AUTO_INCREMENT.
    pub auto_inc: bool,
    /// The default as the catalog writes it (`0`, `''::bpchar`), if any.
    pub default: Option<String>,
}

/// One index of a table other than its primary key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// In lower case: `k_1`, `xid`.
    pub name: String,
    pub columns: Vec<String>,
    pub unique: bool,
}

/// What `checkschema` reads of one table in the catalog (its rows are counted apart, on a
/// connection whose queries the checker can cancel on the server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFacts {
    pub table: Table,
    pub columns: Vec<Column>,
    /// The primary key's columns; empty when it has none.
    pub primary_key: Vec<String>,
    pub indexes: Vec<Index>,
    /// The storage engine (MariaDB, MySQL), in lower case; `None` where there is no choice.
    pub engine: Option<String>,
}

/// A database's part in building, checking and deleting the OLTP tables; users, passwords
/// and database names come from the `oltp` dictionary when the implementation is made.
pub trait SchemaDb: Send + Sync + 'static {
    type Loader: Loader;

    /// `PostgreSQL`, `MariaDB`, `MySQL`.
    fn name(&self) -> &'static str;

    /// `host localhost:5432 under user sbtest in database sbtest`, for the confirmation line.
    fn describe(&self) -> String;

    /// The schema's database (`*_oltp_dbase`).
    fn database(&self) -> String;

    /// The storage engine the tables are made in (`*_oltp_storage_engine`), where the
    /// database has a choice of them.
    fn storage_engine(&self) -> Option<String>;

    /// Creates what is missing (role, database) as the other workloads do, and the tables
    /// of `layout`, empty, with their id's key but without the index on `k`. Refuses,
    /// without touching anything, a database that already holds tables.
    fn create(&self, layout: &Layout, say: &Say) -> impl Future<Output = Result<()>> + Send;

    /// A session for loading rows, the loader at `at`'s; several run at once.
    fn loader(&self, at: Position) -> impl Future<Output = Result<Self::Loader>> + Send;

    /// After `table`'s rows are loaded: its index on `k` (and on PostgreSQL the index that
    /// stands for the primary key with `secondary`, and the id's sequence moved past the
    /// rows), then its statistics.
    fn finish_table(
        &self,
        layout: &Layout,
        table: Table,
        say: &Say,
    ) -> impl Future<Output = Result<()>> + Send;

    /// A plain SQL connection as the owner on the schema's database.
    fn owner_conn(&self) -> impl Future<Output = Result<crate::sql::ScriptConn>> + Send;

    /// Bytes the schema's tables occupy on disk.
    fn size_on_disk(&self) -> impl Future<Output = Result<u64>> + Send;

    /// The tables among `sbtest1..=tables` found in the catalog, or `None` when the database
    /// does not exist.
    fn inventory(
        &self,
        tables: u32,
    ) -> impl Future<Output = Result<Option<Vec<TableFacts>>>> + Send;

    /// What [`SchemaDb::delete`] would drop: the database, its login, its tables and size.
    fn survey(&self) -> impl Future<Output = Result<crate::bench::Survey>> + Send;

    /// Drops what `create` made: the database (and on PostgreSQL the role hammer made).
    /// Returns one line per object dropped.
    fn delete(&self, say: &Say) -> impl Future<Output = Result<Vec<String>>> + Send;
}

/// One loading session.
pub trait Loader: Send + 'static {
    /// Appends rows (COPY text, columns in [`super::COLUMNS`] order); committed when it
    /// returns.
    fn load(&mut self, table: Table, rows: &[u8]) -> impl Future<Output = Result<()>> + Send;

    /// Ends the session and closes its connection.
    fn close(self) -> impl Future<Output = ()> + Send;
}
