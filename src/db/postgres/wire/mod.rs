//! A lean PostgreSQL connection for the driver's transactions: one task owns the socket, a
//! call is one or more Bind/Execute pairs and one Sync written from a reused buffer, and one
//! reply parsed in place, with text parameters and text results.
//!
//! tokio-postgres serves everything else (the schema build, the checks, the counters). A
//! terminal's transaction is a routine call or, with client-side SQL, `BEGIN`, a statement
//! and `COMMIT` pipelined, and there the general client's machinery (a connection task fed
//! through channels, a channel per query, typed rows, the framing codec, a Sync per
//! statement, so a reply flushed per statement) cost more client CPU than the round trip
//! itself. Here a call costs one `send` and normally one `recv`, TLS included: rustls seals
//! and opens the records in buffers `leantls` owns, so encryption adds no system calls, and
//! with one Sync the server sends the whole pipeline's reply in one flush.
//!
//! The protocol messages are written by hand where they are on the hot path and by
//! `postgres-protocol` (the library under tokio-postgres) for start-up and authentication.

//!
//! The parts, by job: `login` (the TLS request and the authentication exchange, checked
//! against `pg_require_auth`) and `messages` (backend messages framed in the reused inbox,
//! the first row, the server's errors); here the connection and its calls.

mod login;
mod messages;

use std::io;

use bytes::{BufMut, BytesMut};
use postgres_protocol::message::frontend;

pub(crate) use login::{ssl_answer, SslAnswer, SSL_REQUEST};
pub use messages::Reply;

use crate::db::net::leantls::{LeanError, LeanTls};
use crate::db::net::sock::{self, Sock};
use crate::db::net::{io_failure, CONNECT_TIMEOUT};
use crate::db::postgres::{code_failure, PgTarget};
use crate::fault::{DbError, Failure};
use messages::{server_error, Frame, Inbox, RowBuf};

/// An ErrorResponse's fields the driver uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerError {
    /// The SQLSTATE, e.g. `40001`.
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
}

/// Why a connection or a call failed.
#[derive(Debug)]
pub enum WireError {
    /// The socket failed or closed.
    Io(io::Error),
    /// The server answered with an error.
    Server(ServerError),
    /// TLS could not be set up, or failed.
    Tls(String),
    /// The login was refused by hammer's rules (`pg_require_auth`, an authentication exchange
    /// out of order, a server signature that does not verify) or by the server.
    Auth(String),
    /// The server said something this client does not understand, or a call was abandoned
    /// halfway so the connection's state is unknown.
    Protocol(String),
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        WireError::Io(e)
    }
}

impl From<LeanError> for WireError {
    fn from(e: LeanError) -> Self {
        match e {
            LeanError::Io(e) => WireError::Io(e),
            LeanError::Tls(e) => WireError::Tls(e),
        }
    }
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Io(e) => write!(f, "{e}"),
            WireError::Server(e) => f.write_str(&e.message),
            WireError::Tls(e) => write!(f, "TLS: {e}"),
            WireError::Auth(e) => f.write_str(e),
            WireError::Protocol(e) => f.write_str(e),
        }
    }
}

fn protocol(what: impl Into<String>) -> WireError {
    WireError::Protocol(what.into())
}

/// A failure of the TLS session after its handshake: the connection is as good as lost
/// (`Protocol`), since what the server sent since can no longer be read.
fn session(e: LeanError) -> WireError {
    match e {
        LeanError::Io(e) => WireError::Io(e),
        LeanError::Tls(e) => WireError::Protocol(format!("the TLS session failed: {e}")),
    }
}

fn closed() -> WireError {
    WireError::Io(sock::closed())
}

fn auth(what: impl Into<String>) -> WireError {
    WireError::Auth(what.into())
}

/// A connection: the socket, TLS state, and reused buffers.
pub struct Wire {
    sock: Sock,
    tls: Option<Box<LeanTls>>,
    inbox: Inbox,
    /// Plaintext to send.
    out: BytesMut,
    /// Ciphertext to send.
    sealed: Vec<u8>,
    row: RowBuf,
    /// The rows the last call's last statement affected or returned, from its command tag.
    affected: u64,
    /// A request is being written: a call dropped now leaves the connection out of step.
    writing: bool,
    /// Requests sent whose ReadyForQuery has not been read: a call dropped while waiting
    /// leaves its answer to be skipped by the next.
    unanswered: u32,
    /// The server said something out of turn: nothing it sends can be matched to a call.
    broken: bool,
    /// The transaction status of the last ReadyForQuery: `I` idle, `T` in a transaction
    /// block, `E` in a failed one.
    status: u8,
    /// What the server said of itself at login (`in_hot_standby`,
    /// `default_transaction_read_only`).
    role: crate::endpoint::Role,
    /// Where the connection went: `host:port` or the socket directory, for messages.
    addr: String,
}

impl Wire {
    /// Connects, sets up TLS per `sslmode` and logs in. Bounded by the caller's timeout.
    pub async fn connect(t: &PgTarget) -> Result<Wire, WireError> {
        let sock = match t.socket_path() {
            Some(path) => Sock::unix(path, &t.bounds).await?,
            None => Sock::tcp(&t.host, t.port, &t.bounds).await?,
        };
        let mut w = Wire {
            sock,
            tls: None,
            inbox: Inbox::new(),
            out: BytesMut::with_capacity(1024),
            sealed: Vec::with_capacity(1024),
            row: RowBuf::default(),
            affected: 0,
            writing: false,
            unanswered: 0,
            broken: false,
            status: b'I',
            role: crate::endpoint::Role::default(),
            addr: t.peer().addr,
        };
        if t.sslmode != "disable" && w.sock.is_tcp() {
            w.start_tls(t).await?;
        }
        w.login(t).await?;
        Ok(w)
    }

    /// What the server said of itself at login.
    pub fn role(&self) -> crate::endpoint::Role {
        self.role
    }

    /// Where the connection went: `host:port` or the socket directory.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Prepares named statements, all in one round trip.
    pub async fn prepare(&mut self, statements: &[(&str, &str)]) -> Result<(), WireError> {
        self.ready().await?;
        for (name, sql) in statements {
            frontend::parse(name, sql, std::iter::empty(), &mut self.out)?;
        }
        frontend::sync(&mut self.out);
        self.send().await?;
        let mut error = None;
        let mut parsed = 0;
        loop {
            let f = self.frame().await?;
            match f.tag {
                b'1' => parsed += 1,
                b'E' if error.is_none() => error = Some(server_error(self.inbox.body(f))),
                b'Z' if error.is_none() && parsed < statements.len() => {
                    return Err(
                        self.out_of_step("a ReadyForQuery before the statements were parsed")
                    )
                }
                b'Z' => {
                    self.unanswered -= 1;
                    break;
                }
                _ => {}
            }
        }
        error.map_or(Ok(()), |e| Err(WireError::Server(e)))
    }

    /// Starts a call of a prepared statement; add its parameters, then [`Call::run`], or
    /// [`Call::then`] to pipeline another statement behind it.
    pub fn call(&mut self, statement: &str, params: i16) -> Call<'_> {
        self.out.clear();
        let len_at = self.bind(statement, params);
        Call {
            wire: self,
            len_at,
            params,
            given: 0,
            fault: None,
        }
    }

    /// Writes a Bind of `statement` to the unnamed portal, up to its parameters; returns
    /// where its length goes.
    fn bind(&mut self, statement: &str, params: i16) -> usize {
        self.out.put_u8(b'B');
        let len_at = self.out.len();
        self.out.put_i32(0);
        self.out.put_u8(0); // the unnamed portal
        self.out.put_slice(statement.as_bytes());
        self.out.put_u8(0);
        self.out.put_i16(1); // one format code for every parameter: text
        self.out.put_i16(0);
        self.out.put_i16(params);
        len_at
    }

    /// Ends the Bind begun at `len_at` (text results, its length filled in) and executes it.
    fn execute(&mut self, len_at: usize) -> Result<(), WireError> {
        self.out.put_i16(1); // one result format code: text
        self.out.put_i16(0);
        let len = i32::try_from(self.out.len() - len_at)
            .map_err(|_| protocol("a call too large to send"))?;
        self.out[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
        // Execute the unnamed portal, all rows.
        self.out.put_slice(&[b'E', 0, 0, 0, 9, 0, 0, 0, 0, 0]);
        Ok(())
    }

    /// Whether the last reply left a transaction block open (`T`) or failed (`E`): a
    /// pipeline that stopped at an error after its `BEGIN` leaves it to be rolled back.
    pub fn in_transaction(&self) -> bool {
        self.status != b'I'
    }

    /// Skips the answers of calls dropped while they waited; a call dropped while writing
    /// has left a partial message on the connection, which makes it unusable.
    async fn ready(&mut self) -> Result<(), WireError> {
        if self.broken {
            return Err(protocol(
                "an earlier reply was out of step with its call; the connection is unusable",
            ));
        }
        if self.writing {
            return Err(WireError::Io(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "an earlier call on this connection was abandoned while it was being sent",
            )));
        }
        while self.unanswered > 0 {
            let f = self.frame().await?;
            if f.tag == b'Z' {
                self.unanswered -= 1;
                self.status = self.inbox.body(f).first().copied().unwrap_or(b'I');
            }
        }
        // What came since the last reply came unasked: only asynchronous messages may.
        while let Some(f) = self.inbox.next()? {
            match f.tag {
                // Notices, parameter changes, notifications.
                b'N' | b'S' | b'A' => {}
                // A FATAL error the server sends before it closes the connection.
                b'E' => {
                    let e = server_error(self.inbox.body(f));
                    self.broken = true;
                    return Err(WireError::Server(ServerError {
                        code: if e.code.is_empty() {
                            "08006".into()
                        } else {
                            e.code
                        },
                        ..e
                    }));
                }
                other => {
                    return Err(self.out_of_step(format!(
                        "the server sent a message ({}) no call asked for",
                        char::from(other)
                    )))
                }
            }
        }
        Ok(())
    }

    /// A reply that cannot belong to the call waiting for it: the connection is given up.
    fn out_of_step(&mut self, what: impl Into<String>) -> WireError {
        self.broken = true;
        protocol(what)
    }

    /// Sends a request that ends with Sync.
    async fn send(&mut self) -> Result<(), WireError> {
        self.writing = true;
        self.flush().await?;
        self.writing = false;
        self.unanswered += 1;
        Ok(())
    }

    /// Runs the Binds written by `call` and `then`: the last one's Execute, Sync, and the
    /// reply up to ReadyForQuery. The reply's row is the first DataRow of the pipeline; after
    /// an error the server skips the rest up to the Sync, and the error is the answer.
    async fn run(&mut self, len_at: usize) -> Result<Reply<'_>, WireError> {
        if let Err(e) = self.ready().await {
            self.out.clear();
            return Err(e);
        }
        self.execute(len_at)?;
        self.out.put_slice(&[b'S', 0, 0, 0, 4]);
        self.send().await?;
        self.row.clear();
        self.affected = 0;
        let mut error = None;
        let mut bound = false;
        loop {
            let f = match self.frame().await {
                Ok(f) => f,
                // A FATAL error (the server shutting down) comes just before the close.
                Err(e) => return Err(error.map_or(e, WireError::Server)),
            };
            match f.tag {
                b'2' => bound = true,
                b'D' if !bound => {
                    return Err(self.out_of_step("a data row before the call was bound"))
                }
                b'D' if !self.row.present => self.row.fill(self.inbox.body(f))?,
                // CommandComplete: `UPDATE 3`, `INSERT 0 1`, `SELECT 100`, `BEGIN`.
                b'C' => self.affected = tag_rows(self.inbox.body(f)),
                b'E' if error.is_none() => error = Some(server_error(self.inbox.body(f))),
                b'Z' if !bound && error.is_none() => {
                    return Err(self.out_of_step("a ReadyForQuery before the call's reply"))
                }
                b'Z' => {
                    self.unanswered -= 1;
                    self.status = self.inbox.body(f).first().copied().unwrap_or(b'I');
                    break;
                }
                // BindComplete, CommandComplete, further rows, notices, parameter changes.
                _ => {}
            }
        }
        match error {
            Some(e) => Err(WireError::Server(e)),
            None => Ok(Reply { row: &self.row }),
        }
    }

    /// The rows the last call's last statement affected (or returned), as its command tag
    /// says; 0 for a statement whose tag has no count.
    pub fn affected(&self) -> u64 {
        self.affected
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

    /// Says goodbye and closes the socket; errors do not matter any more.
    pub async fn close(mut self) {
        self.out.clear();
        frontend::terminate(&mut self.out);
        let _ = self.flush().await;
        if let Some(tls) = self.tls.as_mut() {
            self.sealed.clear();
            tls.close_notify(&mut self.sealed);
            let _ = self.sock.write_all(&self.sealed).await;
        }
        let _ = self.sock.shutdown().await;
    }

    /// Sends `out` (encrypted when TLS is on) and empties it.
    async fn flush(&mut self) -> Result<(), WireError> {
        match self.tls.as_mut() {
            None => self.sock.write_all(&self.out).await?,
            Some(tls) => {
                self.sealed.clear();
                tls.seal(&self.out, &mut self.sealed).map_err(session)?;
                self.sock.write_all(&self.sealed).await?;
            }
        }
        self.out.clear();
        Ok(())
    }

    /// The next backend message, reading from the socket as needed.
    async fn frame(&mut self) -> Result<Frame, WireError> {
        loop {
            if let Some(f) = self.inbox.next()? {
                return Ok(f);
            }
            self.fill().await?;
        }
    }

    /// Reads more plaintext into the inbox.
    async fn fill(&mut self) -> Result<(), WireError> {
        let Wire {
            sock, tls, inbox, ..
        } = self;
        let Some(tls) = tls.as_mut() else {
            let n = sock.read(inbox.space()).await?;
            if n == 0 {
                return Err(closed());
            }
            inbox.tail += n;
            return Ok(());
        };
        loop {
            // The server's last words (a FATAL error) can come with its close_notify in one
            // read: they are handed on first, and the close is reported by the next fill.
            let mut got = false;
            while let Some(plain) = tls.open().map_err(session)? {
                inbox.put(plain);
                got |= !plain.is_empty();
            }
            if got {
                return Ok(());
            }
            if tls.is_closed() {
                return Err(closed());
            }
            let n = sock.read(tls.space()).await?;
            if n == 0 {
                return Err(closed());
            }
            tls.filled(n);
        }
    }
}

/// A call being written: its parameters, in order, as text; with [`Call::then`], the next
/// statement of a pipeline.
pub struct Call<'a> {
    wire: &'a mut Wire,
    len_at: usize,
    params: i16,
    given: i16,
    /// What makes the pipeline unsendable, found while writing it: `run` reports it.
    fault: Option<String>,
}

impl<'a> Call<'a> {
    /// Ends this statement and starts the next of the pipeline: both go out in one request,
    /// answered together after one Sync.
    pub fn then(mut self, statement: &str, params: i16) -> Self {
        self.check();
        if let Err(e) = self.wire.execute(self.len_at) {
            self.fault.get_or_insert(e.to_string());
        }
        self.len_at = self.wire.bind(statement, params);
        self.params = params;
        self.given = 0;
        self
    }

    /// Notes a statement given more or fewer parameters than it has placeholders.
    fn check(&mut self) {
        if self.given != self.params && self.fault.is_none() {
            self.fault = Some(format!(
                "a call with {} parameters for {} placeholders",
                self.given, self.params
            ));
        }
    }

    /// A parameter written by `put` into the message, its length filled in after.
    fn param(mut self, put: impl FnOnce(&mut BytesMut)) -> Self {
        let out = &mut self.wire.out;
        let at = out.len();
        out.put_i32(0);
        put(out);
        let len = (out.len() - at - 4) as i32;
        out[at..at + 4].copy_from_slice(&len.to_be_bytes());
        self.given += 1;
        self
    }

    pub fn int(self, v: i64) -> Self {
        self.param(|out| out.put_slice(itoa::Buffer::new().format(v).as_bytes()))
    }

    pub fn text(self, v: &str) -> Self {
        self.param(|out| out.put_slice(v.as_bytes()))
    }

    /// A text parameter given as its bytes (UTF-8, as the connection's encoding is).
    pub fn bytes(self, v: &[u8]) -> Self {
        self.param(|out| out.put_slice(v))
    }

    /// A NUMERIC parameter from cents: 1234 is `12.34`.
    pub fn cents(self, v: u32) -> Self {
        self.param(|out| {
            out.put_slice(itoa::Buffer::new().format(v / 100).as_bytes());
            let c = (v % 100) as u8;
            out.put_slice(&[b'.', b'0' + c / 10, b'0' + c % 10]);
        })
    }

    /// An `int[]` parameter: `{1,2,3}`.
    pub fn ints(self, values: impl Iterator<Item = u32>) -> Self {
        self.param(|out| {
            let mut digits = itoa::Buffer::new();
            out.put_u8(b'{');
            for (i, v) in values.enumerate() {
                if i > 0 {
                    out.put_u8(b',');
                }
                out.put_slice(digits.format(v).as_bytes());
            }
            out.put_u8(b'}');
        })
    }

    /// Sends the call and waits for its answer.
    pub async fn run(mut self) -> Result<Reply<'a>, WireError> {
        self.check();
        if let Some(fault) = self.fault.take() {
            self.wire.out.clear();
            return Err(protocol(fault));
        }
        let Call { wire, len_at, .. } = self;
        wire.run(len_at).await
    }
}

/// The count at the end of a CommandComplete's tag (`DELETE 1`, `INSERT 0 1`), 0 without one.
fn tag_rows(body: &[u8]) -> u64 {
    let tag = body.strip_suffix(&[0]).unwrap_or(body);
    let last = tag.rsplit(|b| *b == b' ').next().unwrap_or_default();
    if last.is_empty() || !last.iter().all(u8::is_ascii_digit) || last.len() == tag.len() {
        return 0;
    }
    std::str::from_utf8(last)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Opens a connection along the target's route, keeping the first server that is what
/// `pg_target_session_attrs` asks, or says in one line why none was (as `postgres::connect`
/// does).
pub async fn open(t: &PgTarget) -> Result<Wire, DbError> {
    if t.also.is_empty() && !t.attrs.asks() {
        return open_one(t).await;
    }
    let tries = t.tries();
    let mut walked = crate::endpoint::Walked::default();
    for &pass in t.attrs.passes() {
        for one in &tries {
            match crate::db::net::one_try(&one.peer(), open_one(one)).await {
                Ok(w) if pass.keeps(w.role) => return Ok(w),
                Ok(w) => {
                    walked.not_kept(&w.addr, w.role);
                    w.close().await;
                }
                Err(e) => walked.failed(e),
            }
        }
    }
    Err(walked.into_error(&t.peer(), t.attrs))
}

/// Opens a connection to the target's one server, or says in one line why it could not.
async fn open_one(t: &PgTarget) -> Result<Wire, DbError> {
    let peer = t.peer();
    let limit = CONNECT_TIMEOUT + std::time::Duration::from_secs(1);
    match tokio::time::timeout(limit, Wire::connect(t)).await {
        Ok(Ok(w)) => Ok(w),
        Ok(Err(e)) => {
            let (kind, detail) = classify(&e);
            Err(peer.error(kind, t.refused(kind, detail)))
        }
        Err(_) => Err(peer.error(
            Failure::Unreachable,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
    }
}

/// The driver's `Failure` for an error, and the words for it.
pub fn classify(e: &WireError) -> (Failure, String) {
    match e {
        // A reply overdue on an open connection: the connection is as good as lost.
        WireError::Io(io) if io.kind() == io::ErrorKind::TimedOut => {
            (Failure::Lost, io.to_string())
        }
        WireError::Io(io) => (io_failure(io), io.to_string()),
        WireError::Server(s) => (code_failure(&s.code), s.message.clone()),
        WireError::Tls(_) => (Failure::Tls, e.to_string()),
        WireError::Auth(_) => (Failure::Auth, e.to_string()),
        WireError::Protocol(_) => (Failure::Lost, e.to_string()),
    }
}
