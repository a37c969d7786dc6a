//! The SQL vocabulary engines and workloads share, below both: a plain connection as the
//! schema owner ([`ScriptConn`], over each family's [`ScriptSql`]), the rows it answers
//! ([`Rows`]), the way to cancel its running statement ([`Canceller`]) and a table as the
//! families' loaders see it ([`TableRef`]). Engine families implement it; workloads use it.

use crate::fault::DbError;
use crate::task::Pending;

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
