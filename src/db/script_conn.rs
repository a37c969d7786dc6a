//! A plain SQL connection for users' own Rhai workloads (`customscript`): text in, rows of
//! text out, on PostgreSQL, MariaDB or MySQL alike (MariaDB/MySQL on the lean connection).

use tokio_postgres::SimpleQueryMessage;

use super::{mysql, postgres, DbError, Peer};
use crate::config::{Database, Settings};
use crate::db::mysql::wire::{self as mywire, Wire};

/// Rows as text, `None` for NULL.
pub type Rows = Vec<Vec<Option<String>>>;

/// A connection as the schema owner on the schema's database.
pub enum ScriptConn {
    Pg(postgres::PgConn, Peer),
    My(Box<Wire>, Peer),
}

impl ScriptConn {
    pub async fn connect(settings: &Settings, db: Database) -> Result<Self, DbError> {
        match db {
            Database::Pg => {
                let t = postgres::PgTarget::owner(settings);
                Ok(ScriptConn::Pg(postgres::connect(&t).await?, t.peer()))
            }
            Database::Maria | Database::Mysql => {
                let t = mysql::MyTarget::schema(settings, db);
                let wire = mywire::connect(&t).await?;
                Ok(ScriptConn::My(Box::new(wire), t.peer()))
            }
        }
    }

    /// Runs SQL and returns the rows of its (last) result.
    pub async fn query(&mut self, sql: &str) -> Result<Rows, DbError> {
        match self {
            ScriptConn::Pg(c, peer) => {
                let messages = c.client.simple_query(sql).await.map_err(|e| {
                    let (kind, detail) = postgres::classify(&e, false);
                    peer.failed("cannot run", kind, detail)
                })?;
                Ok(messages
                    .iter()
                    .filter_map(|m| match m {
                        SimpleQueryMessage::Row(r) => {
                            Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
                        }
                        _ => None,
                    })
                    .collect())
            }
            ScriptConn::My(c, peer) => {
                let rows = c
                    .query_rows(sql)
                    .await
                    .map_err(|e| peer.failed("cannot run", e.kind, e.detail))?;
                Ok(rows
                    .iter()
                    .map(|r| r.iter().map(mysql::text_of).collect())
                    .collect())
            }
        }
    }

    /// Runs SQL that returns no rows; the number of rows it affected.
    pub async fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        match self {
            ScriptConn::Pg(c, peer) => {
                let messages = c.client.simple_query(sql).await.map_err(|e| {
                    let (kind, detail) = postgres::classify(&e, false);
                    peer.failed("cannot run", kind, detail)
                })?;
                Ok(messages
                    .iter()
                    .map(|m| match m {
                        SimpleQueryMessage::CommandComplete(n) => *n,
                        _ => 0,
                    })
                    .sum())
            }
            ScriptConn::My(c, peer) => {
                let done = c
                    .query_done(sql)
                    .await
                    .map_err(|e| peer.failed("cannot run", e.kind, e.detail))?;
                Ok(done.affected)
            }
        }
    }

    /// `BEGIN` / `START TRANSACTION`.
    pub async fn begin(&mut self) -> Result<u64, DbError> {
        match self {
            ScriptConn::Pg(..) => self.execute("BEGIN").await,
            ScriptConn::My(..) => self.execute("START TRANSACTION").await,
        }
    }

    pub async fn close(self) {
        match self {
            ScriptConn::Pg(c, _) => c.close().await,
            ScriptConn::My(c, _) => c.close().await,
        }
    }
}
