//! The statements schema work takes on the lean connection, their rows read as text.

use mysql_common::Value;

use crate::db::mysql::wire::{Arg, Wire, WireError};
use crate::db::mysql::{int_of, text_of};

/// A name as a quoted identifier.
pub(super) fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A row's values as text, `NULL` for NULL.
pub(super) fn row_texts(row: &[Value]) -> Vec<String> {
    row.iter()
        .map(|v| text_of(v).unwrap_or_else(|| "NULL".to_string()))
        .collect()
}

/// Column `i` of a row of text, empty for NULL or a missing column.
pub(super) fn cell(row: &[Option<String>], i: usize) -> String {
    row.get(i).cloned().flatten().unwrap_or_default()
}

/// The statements the schema's work takes, on the lean connection.
pub(super) trait Queries {
    /// Runs a statement, its rows (if any) dropped.
    async fn query_drop(&mut self, sql: impl AsRef<str>) -> Result<(), WireError>;
    /// The rows of a statement as text (`None` for NULL).
    async fn query_texts(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, WireError>;
    /// The first column of the first row, as an integer.
    async fn first_int(&mut self, sql: &str) -> Result<Option<i64>, WireError>;
    /// The rows of a statement with one text parameter (a name), as text.
    async fn exec_texts(
        &mut self,
        sql: &str,
        name: &str,
    ) -> Result<Vec<Vec<Option<String>>>, WireError>;
}

pub(super) fn texts(rows: Vec<Vec<Value>>) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(text_of).collect())
        .collect()
}

impl Queries for Wire {
    async fn query_drop(&mut self, sql: impl AsRef<str>) -> Result<(), WireError> {
        self.query_done(sql.as_ref()).await.map(drop)
    }

    async fn query_texts(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, WireError> {
        Ok(texts(self.query_rows(sql).await?))
    }

    async fn first_int(&mut self, sql: &str) -> Result<Option<i64>, WireError> {
        let row = self.query_first(sql).await?;
        Ok(row.as_deref().and_then(|r| r.first()).and_then(int_of))
    }

    async fn exec_texts(
        &mut self,
        sql: &str,
        name: &str,
    ) -> Result<Vec<Vec<Option<String>>>, WireError> {
        Ok(texts(
            self.exec_rows(sql, &[Arg::Text(name.as_bytes())]).await?,
        ))
    }
}
