//! Loading rows into MariaDB and MySQL: `LOAD DATA LOCAL` with the COPY text as it is, or
//! multi-row INSERTs built from it where the server refuses that; the method shared by the
//! build's loaders.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::queries::{cell, Queries};
use crate::db::engine::TableRef;
use crate::db::mysql::wire::{Wire, WireError};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::tpcc::schema::{Loader, Say};
use crate::tpcc::Table;

/// The tables' character set and collation (tables.sql); the database gets them too, so that
/// the stored procedures' text variables compare like the columns they are compared with.
pub(super) const CHARSET: &str = "latin1";
pub(super) const COLLATION: &str = "latin1_bin";
/// Rows per INSERT statement when `LOAD DATA LOCAL` is refused, as HammerDB's loader.
pub(super) const INSERT_ROWS: usize = 1_000;
/// An INSERT statement is sent early once its text reaches this size, far below the
/// smallest default `max_allowed_packet` (16 MB on MariaDB, 64 MB on MySQL).
pub(super) const INSERT_BYTES: usize = 4 << 20;

/// Server errors meaning `LOAD DATA LOCAL` is switched off: ER_NOT_ALLOWED_COMMAND (1148),
/// MySQL's ER_CLIENT_LOCAL_FILES_DISABLED (3948), MariaDB's ER_LOAD_INFILE_CAPABILITY_DISABLED (4166).
pub(super) const INFILE_REFUSED: [u16; 3] = [1148, 3948, 4166];

/// How rows reach the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadMethod {
    /// `LOAD DATA LOCAL INFILE`, the text streamed as it is.
    LoadData,
    /// Multi-row `INSERT ... VALUES` built from the text, for servers with `local_infile` off.
    Insert,
}

impl LoadMethod {
    pub(super) fn describe(self) -> &'static str {
        match self {
            LoadMethod::LoadData => "LOAD DATA LOCAL INFILE",
            LoadMethod::Insert => "multi-row INSERT statements",
        }
    }
}

pub(super) const METHOD_UNKNOWN: u8 = 0;
pub(super) const METHOD_LOAD_DATA: u8 = 1;
pub(super) const METHOD_INSERT: u8 = 2;

/// What the schema and its loaders share: the load method (one loader's discovery that
/// `LOAD DATA LOCAL` is refused spares the others the attempt) and where to say so.
pub(super) struct Shared {
    pub(super) method: AtomicU8,
    /// Set once the method in use has been said, so it is said once per build.
    pub(super) said: AtomicBool,
    /// The build's output, remembered by `create`: loaders have none of their own.
    pub(super) say: Mutex<Option<Say>>,
}

impl Shared {
    pub(super) fn method(&self) -> Option<LoadMethod> {
        match self.method.load(Ordering::Relaxed) {
            METHOD_LOAD_DATA => Some(LoadMethod::LoadData),
            METHOD_INSERT => Some(LoadMethod::Insert),
            _ => None,
        }
    }

    pub(super) fn set_method(&self, method: LoadMethod) {
        let v = match method {
            LoadMethod::LoadData => METHOD_LOAD_DATA,
            LoadMethod::Insert => METHOD_INSERT,
        };
        self.method.store(v, Ordering::Relaxed);
    }

    pub(super) fn remember(&self, say: &Say) {
        *self.say.lock().unwrap_or_else(|e| e.into_inner()) = Some(say.clone());
    }

    /// Says `text` unless the method has been said already.
    pub(super) fn say_once(&self, text: String) {
        if self.said.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(say) = self.say.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            say.line(text);
        }
    }
}

/// One loading session on the schema's database.
pub struct MyLoader {
    pub(super) conn: Box<Wire>,
    pub(super) peer: Peer,
    pub(super) shared: Arc<Shared>,
}

impl MyLoader {
    fn failed(&self, table: TableRef, e: &WireError) -> Error {
        Error::Db(self.peer.failed(
            "cannot load rows into",
            e.kind,
            format!("table {}: {}", table.name, e.detail),
        ))
    }

    /// One `LOAD DATA LOCAL` statement in one transaction. `LOCAL` makes the server treat
    /// bad or duplicate rows as warnings rather than errors (it cannot stop the client
    /// mid-file), so anything but a clean load of every row is rolled back and reported.
    async fn load_data(&mut self, table: TableRef, rows: &[u8]) -> Result<(), LoadError> {
        let expected = count_lines(rows);
        let sql = format!(
            // The defaults are Format::COPY: FIELDS TERMINATED BY '\t' ESCAPED BY '\\',
            // LINES TERMINATED BY '\n'. They are left implicit because spelling them out
            // would break under sql_mode NO_BACKSLASH_ESCAPES.
            "LOAD DATA LOCAL INFILE '{name}.tsv' INTO TABLE {name} CHARACTER SET {CHARSET} ({cols})",
            name = table.name,
            cols = table.columns.join(", ")
        );
        self.conn
            .query_drop("START TRANSACTION")
            .await
            .map_err(LoadError::Driver)?;
        let done = match self.conn.load_local(&sql, rows).await {
            Ok(done) => done,
            Err(e) => {
                self.rollback().await;
                return Err(LoadError::Driver(e));
            }
        };
        let (loaded, warnings) = (done.affected, done.warnings);
        if loaded != expected || warnings > 0 {
            let shown = self
                .conn
                .query_texts("SHOW WARNINGS LIMIT 3")
                .await
                .unwrap_or_default();
            self.rollback().await;
            let first = shown
                .first()
                .map(|r| format!("; first: {} {}: {}", cell(r, 0), cell(r, 1), cell(r, 2)))
                .unwrap_or_default();
            return Err(LoadError::Bad(format!(
                "LOAD DATA read {loaded} of {expected} rows with {warnings} warnings{first}; rolled back"
            )));
        }
        self.conn
            .query_drop("COMMIT")
            .await
            .map_err(LoadError::Driver)
    }

    /// The same rows as multi-row INSERTs of about [`INSERT_ROWS`] rows, in one transaction.
    async fn insert(&mut self, table: TableRef, rows: &[u8]) -> Result<(), LoadError> {
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            table.name,
            table.columns.join(", ")
        );
        let ncols = table.columns.len();
        self.conn
            .query_drop("START TRANSACTION")
            .await
            .map_err(LoadError::Driver)?;
        let mut sql = String::with_capacity(INSERT_BYTES + 64 * 1024);
        let mut in_stmt = 0;
        for (i, line) in lines(rows).enumerate() {
            if in_stmt == 0 {
                sql.clear();
                sql.push_str(&head);
            } else {
                sql.push(',');
            }
            if let Err(why) = push_row(&mut sql, line, ncols) {
                self.rollback().await;
                return Err(LoadError::Bad(format!("row {}: {why}", i + 1)));
            }
            in_stmt += 1;
            if in_stmt == INSERT_ROWS || sql.len() >= INSERT_BYTES {
                if let Err(e) = self.conn.query_drop(&sql).await {
                    self.rollback().await;
                    return Err(LoadError::Driver(e));
                }
                in_stmt = 0;
            }
        }
        if in_stmt > 0 {
            if let Err(e) = self.conn.query_drop(&sql).await {
                self.rollback().await;
                return Err(LoadError::Driver(e));
            }
        }
        self.conn
            .query_drop("COMMIT")
            .await
            .map_err(LoadError::Driver)
    }

    async fn rollback(&mut self) {
        // On a lost connection the server rolls back by itself.
        let _ = self.conn.query_drop("ROLLBACK").await;
    }
}

/// Why a load failed: the driver's error, or rows the server would not take cleanly.
enum LoadError {
    Driver(WireError),
    Bad(String),
}

impl Loader for MyLoader {
    async fn load(&mut self, table: Table, rows: &[u8]) -> Result<()> {
        self.load_rows(table.table_ref(), rows).await
    }

    async fn close(self) {
        self.conn.close().await;
    }
}

impl MyLoader {
    /// Appends rows (COPY text, columns in `table.columns` order) to a table of any
    /// workload: `LOAD DATA LOCAL`, or multi-row INSERTs where the server refuses it.
    /// Committed when it returns.
    pub async fn load_rows(&mut self, table: TableRef, rows: &[u8]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let outcome = match self.shared.method() {
            Some(LoadMethod::Insert) => self.insert(table, rows).await,
            _ => match self.load_data(table, rows).await {
                Err(LoadError::Driver(s)) if INFILE_REFUSED.contains(&s.code) => {
                    self.shared.set_method(LoadMethod::Insert);
                    self.shared.say_once(format!(
                        "The server refuses LOAD DATA LOCAL ({}): loading rows with {}",
                        s.detail,
                        LoadMethod::Insert.describe()
                    ));
                    self.insert(table, rows).await
                }
                other => {
                    if other.is_ok() && self.shared.method().is_none() {
                        self.shared.set_method(LoadMethod::LoadData);
                    }
                    other
                }
            },
        };
        match outcome {
            Ok(()) => Ok(()),
            Err(LoadError::Driver(e)) => Err(self.failed(table, &e)),
            Err(LoadError::Bad(why)) => Err(Error::Db(self.peer.failed(
                "cannot load rows into",
                crate::fault::Failure::Other,
                format!("table {}: {why}", table.name),
            ))),
        }
    }

    /// Ends the session and closes its connection.
    pub async fn close_conn(self) {
        self.conn.close().await;
    }
}

/// The lines of COPY text, without their newlines; a last line without one counts too.
pub(super) fn lines(rows: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = rows.strip_suffix(b"\n").unwrap_or(rows);
    // `split` yields one empty piece for empty input, which holds no row.
    let pieces = if rows.is_empty() { 0 } else { usize::MAX };
    body.split(|b| *b == b'\n').take(pieces)
}

pub(super) fn count_lines(rows: &[u8]) -> u64 {
    lines(rows).count() as u64
}

/// Appends one row of COPY text as `(v1, v2, ...)`, with LOAD DATA's reading of it:
/// `\N` alone is NULL, `\0 \b \n \r \t \Z` are control characters and `\x` is `x`.
/// Plain printable text is quoted; anything else goes as a hex literal, which means the
/// same bytes whatever the session's sql_mode and character set.
pub(super) fn push_row(sql: &mut String, line: &[u8], ncols: usize) -> Result<(), String> {
    let fields = line.split(|b| *b == b'\t');
    sql.push('(');
    let mut n = 0;
    for field in fields {
        if n > 0 {
            sql.push(',');
        }
        n += 1;
        if field == b"\\N" {
            sql.push_str("NULL");
        } else if field
            .iter()
            .all(|&b| (b' '..=b'~').contains(&b) && b != b'\'' && b != b'\\')
        {
            sql.push('\'');
            // Printable ASCII is valid UTF-8.
            sql.push_str(std::str::from_utf8(field).unwrap_or_default());
            sql.push('\'');
        } else {
            let raw = unescape(field);
            if raw.is_empty() {
                sql.push_str("''");
            } else {
                sql.push_str("X'");
                for b in raw {
                    sql.push(char::from(HEX[usize::from(b >> 4)]));
                    sql.push(char::from(HEX[usize::from(b & 15)]));
                }
                sql.push('\'');
            }
        }
    }
    sql.push(')');
    if n == ncols {
        Ok(())
    } else {
        Err(format!("{n} fields where the table has {ncols} columns"))
    }
}

pub(super) const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// LOAD DATA's backslash escapes (the default `ESCAPED BY '\\'`) undone.
pub(super) fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut it = field.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match it.next() {
            Some(b'0') => out.push(0),
            Some(b'b') => out.push(8),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(b'Z') => out.push(26),
            Some(&other) => out.push(other),
            None => out.push(b'\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: &[u8], ncols: usize) -> Result<String, String> {
        let mut s = String::new();
        push_row(&mut s, line, ncols).map(|()| s)
    }

    #[test]
    fn rows_become_values() {
        assert_eq!(
            row(b"1\tab c\t\\N\t2024-01-02 03:04:05\t-10.00", 5).unwrap(),
            "('1','ab c',NULL,'2024-01-02 03:04:05','-10.00')"
        );
        // Quotes and escapes go as hex, with LOAD DATA's meaning of the escapes.
        assert_eq!(
            row(b"it's\ta\\tb\t\\\\", 3).unwrap(),
            "(X'69742773',X'610962',X'5C')"
        );
        assert_eq!(row(b"\t", 2).unwrap(), "('','')");
        assert!(row(b"1\t2", 3).unwrap_err().contains("2 fields"));
    }

    #[test]
    fn lines_of_copy_text() {
        assert_eq!(lines(b"a\nb\n").collect::<Vec<_>>(), vec![&b"a"[..], b"b"]);
        assert_eq!(lines(b"a\nb").count(), 2);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(count_lines(b"x\n"), 1);
    }
}
