//! hammer's MariaDB/MySQL connection, for every use (the transactions' hot path, the build,
//! the checks, the counters, `librarycheck`, custom scripts): one socket, the handshake and
//! authentication done here, and per statement one write and (normally) one read.
//!
//! A general client library spends more client CPU per call than the server spends running
//! the call's statements' protocol: it deserializes every column definition into owned
//! structures, walks each result set through several state machines and allocates on every
//! step. A stored procedure's reply is tiny and always the same shape (the OUT parameters as
//! one binary row, then the final OK), so this connection writes a `COM_STMT_EXECUTE` into a
//! reused buffer, reads the reply into a reused buffer, and parses each packet once, as it
//! arrives: column definitions are skipped but for their type, and only the rows' values
//! are decoded. Every server-given length is checked, every packet's sequence id too, and a
//! reply's columns and size are bounded. Executions may go as a batch (`execute_batch`):
//! every request in one write, the replies read in order, so that statements that do not
//! wait on each other's results cost one round trip together. `mysql_common` parses the
//! handshake, builds the handshake response and computes the password scrambles; TLS (rustls's handshake and
//! records, in buffers `leantls` owns) adds no system call.
//!
//! Authentication fails closed: whatever this connection refuses (the password asked for over
//! unencrypted TCP, a plugin it does not speak, a missing server capability) is an error that
//! says what the server asked and what to set, never a reason to try another client library.
//! The password itself goes only over TLS or a unix socket; over plain TCP only the
//! scrambles of `mysql_native_password` and `caching_sha2_password`'s fast path do.
//!
//! The parts, by job: `login` (reaching the server, the handshake, authentication, the TLS
//! upgrade, and what it refuses), `transport` (the buffers: requests out, replies in, a
//! dropped call made safe), `packet` (framing, lengths, OK, EOF and ERR packets), `rows`
//! (the one-pass parse of a reply, text and binary rows), `stmt` (prepared statements) and
//! `local_infile` (`LOAD DATA LOCAL`); here the connection and the calls the rest of hammer
//! makes.

mod local_infile;
mod login;
mod packet;
mod rows;
mod stmt;
mod transport;

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod testkit;

use std::io;

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType};
use mysql_common::Value;

use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::MyTarget;
use crate::db::net::leantls::LeanTls;
use crate::db::net::sock::Sock;
use crate::db::net::{io_failure, CONNECT_TIMEOUT};
use crate::fault::{DbError, Failure};

use login::reach;
use rows::Parse;

const COM_QUIT: u8 = 0x01;
const COM_INIT_DB: u8 = 0x02;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;

/// Why a call on this connection failed, as `mysql::classify` would tell it.
#[derive(Debug, Clone, PartialEq)]
pub struct WireError {
    pub kind: Failure,
    pub detail: String,
    /// The server's error code, for an error the server sent (0 otherwise).
    pub code: u16,
}

impl WireError {
    fn lost(detail: impl Into<String>) -> Self {
        WireError {
            kind: Failure::Lost,
            detail: detail.into(),
            code: 0,
        }
    }

    fn io(e: &io::Error) -> Self {
        // The connection is open, so any failure of the socket loses it.
        let kind = match io_failure(e) {
            Failure::Tls => Failure::Tls,
            _ => Failure::Lost,
        };
        WireError {
            kind,
            detail: e.to_string(),
            code: 0,
        }
    }

    /// The server sent something this connection cannot read: it cannot go on.
    fn protocol(what: impl std::fmt::Display) -> Self {
        WireError::lost(format!("unexpected reply from the server: {what}"))
    }

    fn closed() -> Self {
        WireError::lost("Connection to the server is closed.")
    }
}

/// A value bound to a placeholder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg<'a> {
    Int(i64),
    Text(&'a [u8]),
    Null,
}

/// A statement prepared on one connection.
#[derive(Debug, Clone, Copy)]
pub struct Stmt {
    id: u32,
    params: usize,
}

/// What the final OK of a reply says.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Done {
    /// Rows in all the reply's result sets.
    pub rows: usize,
    /// Rows the statement changed (or loaded).
    pub affected: u64,
    pub warnings: u16,
}

/// What the reply to the last request holds, once parsed.
#[derive(Debug)]
enum Outcome {
    /// Result sets and the final OK.
    Done(Done),
    /// A prepared statement.
    Prepared(Stmt),
    /// An ERR packet: the server's error.
    Error(WireError),
    /// The server asks for the data of a `LOAD DATA LOCAL INFILE`.
    Infile,
}

/// Which reply the connection waits for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Text-protocol result sets (COM_QUERY).
    Query,
    /// Binary-protocol result sets (COM_STMT_EXECUTE).
    Execute,
    Prepare,
    /// No reply (COM_STMT_CLOSE).
    Nothing,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Idle,
    /// A request was being written when its future was dropped: the stream is cut mid-packet.
    Writing,
    /// A request went out and its reply (or part of it) is still to be read, and after it
    /// [`Wire::owed`] more of a batch's: the next request first reads and drops them.
    Awaiting(Expect),
    /// The server sent something unreadable: the stream's framing is lost.
    Broken,
}

/// One lean connection. Not cancel-safe by itself, but safe to use after a dropped call: a
/// reply still owed is read and dropped before the next request, and a request cut while
/// being written makes the connection lost.
pub struct Wire {
    sock: Sock,
    tls: Option<Box<LeanTls>>,
    /// Records to write to the socket, when TLS is on.
    sealed: Vec<u8>,
    /// Bytes read and not yet consumed: `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The last socket read left nothing behind (it did not fill the space it was given).
    drained: bool,
    out: Vec<u8>,
    caps: CapabilityFlags,
    state: State,
    /// Replies of a batch still to come after the one being read (each an execution's).
    owed: usize,
    /// The type of each column of the result set being read.
    cols: Vec<(ColumnType, ColumnFlags)>,
    /// The rows of the last reply's first result set.
    rows: Vec<Vec<Value>>,
    /// Where the parse of the reply being read stands.
    parse: Parse,
    /// The sequence id of the next packet written in the connection phase.
    seq: u8,
    /// The server's version, as its greeting gives it.
    version: (u16, u16, u16),
    /// The dialect the greeting's version names.
    dialect: &'static MyDialect,
    /// Why this connection is not where the settings first pointed (see [`connect`]).
    note: Option<String>,
    /// Where it went: the socket path or `host:port`, for messages.
    addr: String,
}

/// Opens a lean connection to `t` and authenticates, or says why it did not.
///
/// Through a unix socket, the server behind it must be the one the settings name: HammerDB
/// picks the socket only because the host is local, and the default socket of one server on
/// a machine that runs two would otherwise take every connection meant for the other. When
/// its `@@port` is not the configured port, the connection is made over TCP to the
/// configured host and port instead, and [`Wire::note`] says why.
pub async fn connect(t: &MyTarget) -> Result<Wire, DbError> {
    if t.also.is_empty() && !t.attrs.asks() {
        return connect_one(t).await;
    }
    // Along the route: the first server that is what `*_target_session_attrs` asks.
    let tries = t.tries();
    let mut walked = crate::endpoint::Walked::default();
    for &pass in t.attrs.passes() {
        for one in &tries {
            let mut w = match crate::db::net::one_try(&one.peer(), connect_one(one)).await {
                Ok(w) => w,
                Err(e) => {
                    walked.failed(e);
                    continue;
                }
            };
            let role = if pass.asks() {
                match w.role().await {
                    Ok(role) => role,
                    Err(e) => {
                        walked.failed(one.peer().failed("cannot ask what it is", e.kind, e.detail));
                        w.close().await;
                        continue;
                    }
                }
            } else {
                crate::endpoint::Role::default()
            };
            if pass.keeps(role) {
                return Ok(w);
            }
            walked.not_kept(w.addr(), role);
            w.close().await;
        }
    }
    Err(walked.into_error(&t.peer(), t.attrs))
}

/// Opens a lean connection to the target's one server (see [`connect`]).
async fn connect_one(t: &MyTarget) -> Result<Wire, DbError> {
    match tokio::time::timeout(CONNECT_TIMEOUT, reach(t)).await {
        Err(_) => Err(t.peer().error(
            Failure::Unreachable,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
        Ok(r) => r,
    }
}
impl Wire {
    /// Whether the session is encrypted.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// Whether the channel may carry the password: encrypted, or a unix socket (which the
    /// server treats as secure too, and which no one off the machine can sit in).
    fn is_secure(&self) -> bool {
        self.tls.is_some() || !self.sock.is_tcp()
    }

    /// Why this connection went elsewhere than the settings first pointed, if it did.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Where the connection went: the socket path or `host:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the connection is a unix socket's.
    pub fn is_socket(&self) -> bool {
        !self.sock.is_tcp()
    }

    /// The server's version (major, minor, patch), from its greeting.
    pub fn server_version(&self) -> (u16, u16, u16) {
        self.version
    }

    /// The dialect the server is, as its greeting's version says: what `dbset db mysql`
    /// reaches may be a MariaDB.
    pub fn dialect(&self) -> &'static MyDialect {
        self.dialect
    }

    /// What the server is: a replica set `read_only` counts as a standby, as libpq's
    /// attributes read it.
    pub async fn role(&mut self) -> Result<crate::endpoint::Role, WireError> {
        let row = self.query_first("SELECT @@global.read_only").await?;
        let on = row
            .as_deref()
            .and_then(|r| r.first())
            .is_some_and(|v| match v {
                mysql_common::Value::Bytes(b) => b == b"1" || b.eq_ignore_ascii_case(b"on"),
                mysql_common::Value::Int(i) => *i != 0,
                mysql_common::Value::UInt(i) => *i != 0,
                _ => false,
            });
        Ok(crate::endpoint::Role {
            standby: on,
            read_only: on,
        })
    }

    /// Runs a statement in the text protocol and returns how many rows it gave.
    pub async fn query(&mut self, sql: &str) -> Result<usize, WireError> {
        Ok(self.query_done(sql).await?.rows)
    }

    /// Runs a statement in the text protocol and returns what its final OK says.
    pub async fn query_done(&mut self, sql: &str) -> Result<Done, WireError> {
        self.ready().await?;
        self.begin(COM_QUERY);
        self.out.extend_from_slice(sql.as_bytes());
        self.send(Expect::Query).await?;
        match self.reply(Expect::Query).await? {
            Outcome::Done(done) => Ok(done),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a reply of another request"))
            }
        }
    }

    /// Runs a statement in the text protocol and returns the rows of its first result set,
    /// each value as its text (`Value::Bytes`) or `Value::NULL`.
    pub async fn query_rows(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, WireError> {
        self.query_done(sql).await?;
        Ok(std::mem::take(&mut self.rows))
    }

    /// The first row of [`Wire::query_rows`].
    pub async fn query_first(&mut self, sql: &str) -> Result<Option<Vec<Value>>, WireError> {
        self.query_done(sql).await?;
        Ok(self.rows.drain(..).next())
    }

    /// Makes `name` the session's database (COM_INIT_DB).
    pub async fn use_database(&mut self, name: &str) -> Result<(), WireError> {
        self.ready().await?;
        self.begin(COM_INIT_DB);
        self.out.extend_from_slice(name.as_bytes());
        self.send(Expect::Query).await?;
        match self.reply(Expect::Query).await? {
            Outcome::Done(_) => Ok(()),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a reply of another request"))
            }
        }
    }

    /// Whether the socket blocks (`into_blocking`).
    pub fn is_blocking(&self) -> bool {
        self.sock.is_blocking()
    }

    /// The same connection on a blocking socket, for a virtual user with a thread of its own
    /// (see `sock`): each call then holds the thread until its reply is in.
    pub fn into_blocking(self) -> io::Result<Wire> {
        Ok(Wire {
            sock: self.sock.into_blocking()?,
            ..self
        })
    }

    /// Says goodbye to the server and closes the socket.
    pub async fn close(mut self) {
        if self.state == State::Idle {
            self.begin(COM_QUIT);
            let _ = tokio::time::timeout(CONNECT_TIMEOUT, self.flush()).await;
        }
    }
}
