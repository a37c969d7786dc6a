//! What OLTP's run needs of a database ([`OltpDb`]): connections that prepare the test's
//! statements once and then run them one round trip each, as sysbench's prepared-statement
//! mode does; and the statements' SQL ([`sql`]) with each family's placeholders. Each family
//! implements it over its own wire client (`db/<family>/driver/oltp.rs`); the run
//! (`oltp::run`) is written once over it.

use std::future::Future;
use std::time::Duration;

use super::events::Statement;
use crate::endpoint::Position;
use crate::error::Result;
use crate::fault::Peer;

/// A value bound to a placeholder.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    Int(i64),
    Text(&'a [u8]),
}

/// One statement to run: which, on which table (from 1), with its values in order.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub statement: Statement,
    pub table: u32,
    pub args: &'a [Arg<'a>],
}

/// The statements a run prepares on each connection: every statement of the test's plan on
/// every table (`select_random_*` on `sbtest1` only, with their counts of placeholders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub tables: u32,
    pub statements: Vec<Statement>,
    /// `select_random_points`' values in its IN list.
    pub random_points: u32,
    /// `select_random_ranges`' BETWEENs.
    pub number_of_ranges: u32,
    /// The test runs BEGIN and COMMIT.
    pub transactions: bool,
    /// The ids are the server's (`*_oltp_auto_inc`): oltp_insert's new rows leave them out.
    pub auto_inc: bool,
}

/// A database the OLTP run drives: one per run, its connections the terminals'.
pub trait OltpDb: Send + Sync + 'static {
    type Conn: Send + 'static;

    /// Opens the connection at `at` and prepares `p`'s statements on it.
    fn connect(
        &self,
        at: Position,
        p: &Prepared,
    ) -> impl Future<Output = Result<Self::Conn>> + Send;

    /// Runs one statement (its rows are read and let go): the rows it affected (or
    /// returned). A failure is `Error::Db`, its
    /// kind `Failure::Retry` for what sysbench ignores and restarts the event for (deadlocks,
    /// lock waits given up, serialization failures, duplicate keys), `Failure::Lost` for a
    /// connection gone.
    fn run(
        &self,
        conn: &mut Self::Conn,
        call: Call<'_>,
    ) -> impl Future<Output = Result<u64>> + Send;

    /// `BEGIN`.
    fn begin(&self, conn: &mut Self::Conn) -> impl Future<Output = Result<()>> + Send;

    /// `COMMIT`.
    fn commit(&self, conn: &mut Self::Conn) -> impl Future<Output = Result<()>> + Send;

    /// Rolls back what a failed event left open, if anything; errors do not matter (the
    /// connection may be gone).
    fn rollback(&self, conn: &mut Self::Conn) -> impl Future<Output = ()> + Send;

    /// The server the connection reached (`host:port`).
    fn node(conn: &Self::Conn) -> Option<String>;

    fn close(conn: Self::Conn) -> impl Future<Output = ()> + Send;

    /// The connection on a blocking socket, for a virtual user with a thread of its own.
    fn into_blocking(conn: Self::Conn) -> Result<Self::Conn>;

    /// Whether the connection is on a blocking socket.
    fn is_blocking(conn: &Self::Conn) -> bool;

    fn reply_timeout(&self) -> Duration;

    /// The server and login of the connection at `at`.
    fn peer(&self, at: Position) -> Peer;

    /// Cuts every connection opened for the run (the stopping run's cut); how many were open.
    fn cut(&self) -> usize;
}

/// Statement kinds: a connection's statements are kept by [`slot`].
pub const SLOTS_PER_TABLE: usize = 14;

/// Where statement `s` on table `table` (from 1) is kept among a connection's statements.
pub fn slot(s: Statement, table: u32) -> usize {
    (table.max(1) as usize - 1) * SLOTS_PER_TABLE + s as usize
}

/// A family's placeholder style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholders {
    /// `?`, MariaDB/MySQL's.
    Question,
    /// `$1`, PostgreSQL's.
    Numbered,
}

/// The SQL of `s` on table `table`, with `p`'s placeholders: sysbench 1.0.20's statements.
pub fn sql(s: Statement, table: u32, prepared: &Prepared, p: Placeholders) -> String {
    let t = format!("{}{table}", super::PREFIX);
    let text = match s {
        Statement::Begin => "BEGIN".to_string(),
        Statement::Commit => "COMMIT".to_string(),
        Statement::PointSelect => format!("SELECT c FROM {t} WHERE id=?"),
        Statement::SimpleRange => format!("SELECT c FROM {t} WHERE id BETWEEN ? AND ?"),
        Statement::SumRange => format!("SELECT SUM(k) FROM {t} WHERE id BETWEEN ? AND ?"),
        Statement::OrderRange => {
            format!("SELECT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c")
        }
        Statement::DistinctRange => {
            format!("SELECT DISTINCT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c")
        }
        Statement::IndexUpdate => format!("UPDATE {t} SET k=k+1 WHERE id=?"),
        Statement::NonIndexUpdate => format!("UPDATE {t} SET c=? WHERE id=?"),
        Statement::Delete => format!("DELETE FROM {t} WHERE id=?"),
        Statement::Insert => format!("INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        // oltp_insert: the server makes the id when it generates them.
        Statement::NewRow if prepared.auto_inc => {
            format!("INSERT INTO {t} (k, c, pad) VALUES (?, ?, ?)")
        }
        Statement::NewRow => format!("INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        Statement::RandomPoints => {
            let points = vec!["?"; prepared.random_points.max(1) as usize].join(", ");
            format!("SELECT id, k, c, pad FROM {t} WHERE k IN ({points})")
        }
        Statement::RandomRanges => {
            let ranges =
                vec!["k BETWEEN ? AND ?"; prepared.number_of_ranges.max(1) as usize].join(" OR ");
            format!("SELECT count(k) FROM {t} WHERE {ranges}")
        }
    };
    match p {
        Placeholders::Question => text,
        Placeholders::Numbered => numbered(&text),
    }
}

/// `?` placeholders as `$1`, `$2`, ... (none of sysbench's statements has a `?` elsewhere).
fn numbered(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut n = 0;
    for ch in text.chars() {
        if ch == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(ch);
        }
    }
    out
}
