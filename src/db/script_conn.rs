//! A plain SQL connection for users' own Rhai workloads (`customscript`): text in, rows of
//! text out, whichever engine serves it. Each family implements [`ScriptSql`]; the engine's
//! `script_conn` opens one as the schema owner on the schema's database.

use crate::db::engine::Pending;
use crate::fault::DbError;

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

/// A connection as the schema owner on the schema's database.
pub struct ScriptConn(Box<dyn ScriptSql>);

impl ScriptConn {
    pub fn new(conn: impl ScriptSql + 'static) -> Self {
        ScriptConn(Box::new(conn))
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
