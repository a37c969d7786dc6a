//! A custom workload's SQL on PostgreSQL: the simple query protocol, rows as text.

use tokio_postgres::SimpleQueryMessage;

use crate::db::engine::Pending;
use crate::db::engine::{Rows, ScriptSql};
use crate::db::postgres::{classify, PgConn};
use crate::fault::{DbError, Peer};

/// One custom workload's connection and whom it reached, for messages.
pub struct PgScript {
    pub conn: PgConn,
    pub peer: Peer,
}

impl PgScript {
    async fn simple(&mut self, sql: &str) -> Result<Vec<SimpleQueryMessage>, DbError> {
        self.conn.client.simple_query(sql).await.map_err(|e| {
            let (kind, detail) = classify(&e, false);
            self.peer.failed("cannot run", kind, detail)
        })
    }
}

impl ScriptSql for PgScript {
    fn query<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<Rows, DbError>> {
        Box::pin(async move {
            let messages = self.simple(sql).await?;
            Ok(messages
                .iter()
                .filter_map(|m| match m {
                    SimpleQueryMessage::Row(r) => {
                        Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
                    }
                    _ => None,
                })
                .collect())
        })
    }

    fn execute<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<u64, DbError>> {
        Box::pin(async move {
            let messages = self.simple(sql).await?;
            Ok(messages
                .iter()
                .map(|m| match m {
                    SimpleQueryMessage::CommandComplete(n) => *n,
                    _ => 0,
                })
                .sum())
        })
    }

    fn begin_statement(&self) -> &'static str {
        "BEGIN"
    }

    fn close(self: Box<Self>) -> Pending<'static, ()> {
        Box::pin(async move { self.conn.close().await })
    }
}
