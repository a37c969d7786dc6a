//! A custom workload's SQL on MariaDB/MySQL: text queries on the lean connection.

use crate::db::engine::Pending;
use crate::db::engine::{Rows, ScriptSql};
use crate::db::mysql::text_of;
use crate::db::mysql::wire::Wire;
use crate::fault::{DbError, Peer};

/// One custom workload's connection and whom it reached, for messages.
pub struct MyScript {
    pub wire: Box<Wire>,
    pub peer: Peer,
}

impl ScriptSql for MyScript {
    fn query<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<Rows, DbError>> {
        Box::pin(async move {
            let rows = self
                .wire
                .query_rows(sql)
                .await
                .map_err(|e| self.peer.failed("cannot run", e.kind, e.detail))?;
            Ok(rows
                .iter()
                .map(|r| r.iter().map(text_of).collect())
                .collect())
        })
    }

    fn execute<'a>(&'a mut self, sql: &'a str) -> Pending<'a, Result<u64, DbError>> {
        Box::pin(async move {
            let done = self
                .wire
                .query_done(sql)
                .await
                .map_err(|e| self.peer.failed("cannot run", e.kind, e.detail))?;
            Ok(done.affected)
        })
    }

    fn begin_statement(&self) -> &'static str {
        "START TRANSACTION"
    }

    fn close(self: Box<Self>) -> Pending<'static, ()> {
        Box::pin(async move { self.wire.close().await })
    }
}
