//! The contract every engine keeps: what the rest of hammer may ask of a database's code
//! ([`Engine`]; a workload's own needs sit behind one accessor each, such as [`Engine::tpcc`],
//! defined by the workload), what a probe learns ([`ServerInfo`]), and the plain SQL connection a custom
//! workload gets ([`ScriptConn`], over each family's [`ScriptSql`]). The function `db::engine`
//! (in `db/mod.rs`) picks the engine for a database; this file says what an engine is.

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::endpoint::Position;
use crate::error::Result;
use crate::fault::{DbError, Peer};
use crate::tpcc::support::Support;

/// What `librarycheck` learns from a server that answers.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub version: String,
    pub tls: bool,
    /// Where the connection went: `peer.addr` is the socket path or `host:port` reached.
    pub peer: Peer,
    /// The port the server says it listens on (MariaDB/MySQL's `@@port`), when asked.
    pub port: Option<u16>,
    /// Why the connection went elsewhere than the settings first pointed, if it did.
    pub note: Option<String>,
}

/// What a job records of the server it ran on, read over a connection made with the run's
/// connection settings (the same host or socket and TLS keys).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// `PostgreSQL 16.4`, `MariaDB 10.11.6-MariaDB`.
    pub version: String,
    /// The settings that decide a result (durability, memory, checkpoints), as
    /// `(name, value)` in the server's own words.
    pub settings: Vec<(String, String)>,
    /// How the connection went: `unix socket /tmp/mariadb.sock`, `TCP 127.0.0.1:5432`,
    /// `TLSv1.3 over TCP 127.0.0.1:5432`.
    pub transport: String,
}

pub use crate::task::Pending;

/// What the rest of hammer may ask of a database's code.
pub trait Engine: Sync {
    /// The database this engine serves.
    fn database(&self) -> Database;

    /// The client built into hammer for it, as `librarycheck` names it.
    fn client(&self) -> &'static str;

    /// Connects with the settings the database's own tools use and reads the version.
    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>>;

    /// The server's version line and the settings a job records, as `(name, value)`.
    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>>;

    /// A plain SQL connection as the schema owner, for custom workloads: the connection at
    /// `at`.
    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// Reads the server's transaction counters (and TPROC-C's new orders where it can), or
    /// what else `counting` asks for, as the logins of its keys.
    fn counter_source(
        &self,
        settings: &Settings,
        counting: crate::db::counter::Counting,
    ) -> CounterSource;

    /// HammerDB's options this engine does not implement that change what a build makes, as
    /// `(key, what it does)`: a build with one of them on is refused.
    fn unsupported_build_options(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// What TPROC-C needs of this database (build, check, delete, run).
    fn tpcc(&self) -> &dyn Support;

    /// What TPROC-H needs of this database (build, check, delete); `None` for an engine
    /// without it.
    fn tpch(&self) -> Option<&dyn crate::tpch::support::Support> {
        None
    }
}

/// Rows as text, `None` for NULL.
pub type Rows = Vec<Vec<Option<String>>>;

/// What a family's connection answers for a custom workload.
pub trait ScriptSql: Send {
    /// Runs SQL and returns the rows of its (last) result.
    fn query<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<Rows, DbError>>;

    /// Runs SQL that returns no rows; the number of rows it affected.
    fn execute<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<u64, DbError>>;

    /// The statement that opens a transaction in this dialect (`BEGIN`, `START TRANSACTION`).
    fn begin_statement(&self) -> &'static str;

    /// Closes the connection politely.
    fn close(self: Box<Self>) -> Pending<'static, ()>;
}

/// Asks the server, over a connection of its own, to cancel what a connection is running
/// (PostgreSQL's cancel request, MariaDB/MySQL's `KILL QUERY`); bounded, and silent when the
/// server cannot be reached (the connection is cut anyway).
pub type Canceller = std::sync::Arc<dyn Fn() -> Pending<'static, ()> + Send + Sync>;

/// A connection as the schema owner on the schema's database.
pub struct ScriptConn(Box<dyn ScriptSql>, Option<Canceller>);

impl ScriptConn {
    pub fn new(conn: impl ScriptSql + 'static) -> Self {
        ScriptConn(Box::new(conn), None)
    }

    /// The connection, with the way to cancel its running statement on the server.
    pub fn with_canceller(mut self, cancel: Canceller) -> Self {
        self.1 = Some(cancel);
        self
    }

    /// What cancels this connection's running statement on the server, when it has one.
    pub fn canceller(&self) -> Option<Canceller> {
        self.1.clone()
    }

    /// Runs SQL and returns the rows of its (last) result.
    pub async fn query(&mut self, sql: &str) -> Result<Rows, DbError> {
        self.0.query(sql).await
    }

    /// Runs SQL that returns no rows; the number of rows it affected.
    pub async fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        self.0.execute(sql).await
    }

    /// Opens a transaction (`BEGIN` / `START TRANSACTION`).
    pub async fn begin(&mut self) -> Result<u64, DbError> {
        let sql = self.0.begin_statement();
        self.0.execute(sql).await
    }

    pub async fn close(self) {
        self.0.close().await
    }
}

/// A table as the families' loaders see it, whatever workload it belongs to: its name and
/// its columns in the order the rows' fields come (COPY / LOAD DATA text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableRef {
    pub name: &'static str,
    pub columns: &'static [&'static str],
}
