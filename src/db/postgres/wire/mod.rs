//! A lean PostgreSQL connection for the driver's stored-routine path: one task owns the
//! socket, a call is one Bind/Execute/Sync written from a reused buffer and one reply parsed
//! in place, with text parameters and text results.
//!
//! tokio-postgres serves everything else (the schema build, client-side SQL, the counters).
//! In stored-procedure mode a transaction is a single statement, and there the general
//! client's machinery (a connection task fed through channels, a channel per query, typed
//! rows, the framing codec) cost more client CPU than the round trip itself. Here a call
//! costs one `send` and normally one `recv`, TLS included: rustls seals and opens the
//! records in buffers `leantls` owns, so encryption adds no system calls.
//!
//! The protocol messages are written by hand where they are on the hot path and by
//! `postgres-protocol` (the library under tokio-postgres) for start-up and authentication.

use std::io;

use bytes::{BufMut, BytesMut};
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256, SCRAM_SHA_256};
use postgres_protocol::message::frontend;

use crate::db::net::leantls::{self, LeanError, LeanTls};
use crate::db::net::sock::Sock;
use crate::db::postgres::{code_failure, AuthMethod, PgTarget};
use crate::db::{io_failure, DbError, Failure, CONNECT_TIMEOUT};

/// The largest backend message accepted: a routine's reply is a few hundred bytes, and a
/// length header from a hostile server must not make the client allocate gigabytes.
const MAX_MESSAGE: usize = 8 * 1024 * 1024;

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
    WireError::Io(io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the server closed the connection",
    ))
}

fn auth(what: impl Into<String>) -> WireError {
    WireError::Auth(what.into())
}

/// Bytes received (decrypted) and not yet consumed: `buf[head..tail]`.
struct Inbox {
    buf: Vec<u8>,
    head: usize,
    tail: usize,
}

/// One backend message inside the inbox: its type byte and its body's place.
#[derive(Clone, Copy)]
struct Frame {
    tag: u8,
    start: usize,
    end: usize,
}

impl Inbox {
    fn new() -> Self {
        Inbox {
            buf: vec![0; 16 * 1024],
            head: 0,
            tail: 0,
        }
    }

    /// The next whole message, if it has arrived; consumed from the inbox.
    fn next(&mut self) -> Result<Option<Frame>, WireError> {
        let have = self.tail - self.head;
        if have < 5 {
            return Ok(None);
        }
        let h = self.head;
        let len = i32::from_be_bytes([
            self.buf[h + 1],
            self.buf[h + 2],
            self.buf[h + 3],
            self.buf[h + 4],
        ]);
        let len = usize::try_from(len)
            .ok()
            .filter(|l| *l >= 4)
            .ok_or_else(|| protocol(format!("a message with length {len}")))?;
        if len > MAX_MESSAGE {
            return Err(protocol(format!(
                "a message of {len} bytes, more than the {MAX_MESSAGE} this connection accepts"
            )));
        }
        if have < 1 + len {
            return Ok(None);
        }
        self.head += 1 + len;
        Ok(Some(Frame {
            tag: self.buf[h],
            start: h + 5,
            end: h + 1 + len,
        }))
    }

    fn body(&self, f: Frame) -> &[u8] {
        &self.buf[f.start..f.end]
    }

    /// Free space after `tail`, moving unread bytes to the front or growing when needed.
    fn space(&mut self) -> &mut [u8] {
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        }
        if self.tail == self.buf.len() {
            if self.head > 0 {
                self.buf.copy_within(self.head..self.tail, 0);
                self.tail -= self.head;
                self.head = 0;
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        &mut self.buf[self.tail..]
    }

    /// Appends `plain` after `tail`, moving the unread bytes to the front or growing when
    /// needed.
    fn put(&mut self, plain: &[u8]) {
        if self.buf.len() - self.tail < plain.len() {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
            while self.buf.len() - self.tail < plain.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        self.buf[self.tail..self.tail + plain.len()].copy_from_slice(plain);
        self.tail += plain.len();
    }
}

/// The first row of a call's result, as text.
#[derive(Default)]
struct RowBuf {
    data: Vec<u8>,
    cols: Vec<Option<(usize, usize)>>,
    present: bool,
}

impl RowBuf {
    fn clear(&mut self) {
        self.data.clear();
        self.cols.clear();
        self.present = false;
    }

    /// Keeps a DataRow's columns.
    fn fill(&mut self, body: &[u8]) -> Result<(), WireError> {
        let bad = || protocol("a malformed data row");
        let n = u16::from_be_bytes(
            body.get(..2)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        );
        self.data.extend_from_slice(&body[2..]);
        let mut at = 0;
        for _ in 0..n {
            let len = i32::from_be_bytes(
                self.data
                    .get(at..at + 4)
                    .ok_or_else(bad)?
                    .try_into()
                    .map_err(|_| bad())?,
            );
            at += 4;
            if len < 0 {
                self.cols.push(None);
            } else {
                let end = at + len as usize;
                if end > self.data.len() {
                    return Err(bad());
                }
                self.cols.push(Some((at, end)));
                at = end;
            }
        }
        self.present = true;
        Ok(())
    }
}

/// A call's answer: the first row, if any.
pub struct Reply<'a> {
    row: &'a RowBuf,
}

impl Reply<'_> {
    /// The first row, if the statement returned one (as `rows.first()` on a query's rows).
    pub fn first(&self) -> Option<&Self> {
        self.row.present.then_some(self)
    }

    /// Column `i` of the first row: `Ok(None)` for NULL, an error when there is no such column
    /// or its text is not UTF-8.
    pub fn text(&self, i: usize) -> Result<Option<&str>, String> {
        match self.row.cols.get(i) {
            None => Err(format!(
                "column {i} missing ({} returned)",
                self.row.cols.len()
            )),
            Some(None) => Ok(None),
            Some(Some((a, b))) => std::str::from_utf8(&self.row.data[*a..*b])
                .map(Some)
                .map_err(|_| format!("column {i} is not UTF-8")),
        }
    }

    /// Column `i` as an integer (`Ok(None)` for NULL).
    pub fn int(&self, i: usize) -> Result<Option<i64>, String> {
        match self.text(i)? {
            None => Ok(None),
            Some(t) => t
                .parse()
                .map(Some)
                .map_err(|_| format!("column {i} is not an integer: {t}")),
        }
    }
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
    /// A request is being written: a call dropped now leaves the connection out of step.
    writing: bool,
    /// Requests sent whose ReadyForQuery has not been read: a call dropped while waiting
    /// leaves its answer to be skipped by the next.
    unanswered: u32,
    /// The server said something out of turn: nothing it sends can be matched to a call.
    broken: bool,
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
            writing: false,
            unanswered: 0,
            broken: false,
        };
        if t.sslmode != "disable" && w.sock.is_tcp() {
            w.start_tls(t).await?;
        }
        w.login(t).await?;
        Ok(w)
    }

    /// Asks for TLS; with `require` and the verify modes a server without it is an error,
    /// otherwise the session goes on in plain text (libpq's `prefer`).
    async fn start_tls(&mut self, t: &PgTarget) -> Result<(), WireError> {
        // The configuration first: a missing CA file is said before anything is sent.
        let config = t.tls_config().map_err(WireError::Tls)?;
        let name = t.server_name().map_err(WireError::Tls)?;
        frontend::ssl_request(&mut self.out);
        self.sock.write_all(&self.out).await?;
        self.out.clear();
        let mut answer = [0u8; 1];
        if self.sock.read(&mut answer).await? == 0 {
            return Err(closed());
        }
        match answer[0] {
            b'S' => {}
            b'N' if t.tls_required() => {
                return Err(WireError::Tls(format!(
                    "the server does not support TLS, which pg_sslmode {} requires",
                    t.sslmode
                )))
            }
            b'N' => return Ok(()),
            other => return Err(protocol(format!("an answer {other} to the TLS request"))),
        }
        let tls = leantls::handshake(config, name, &mut self.sock).await?;
        self.tls = Some(Box::new(tls));
        Ok(())
    }

    /// The start-up message and the password exchange the server asks for (cleartext, MD5
    /// or SCRAM-SHA-256), up to the first ReadyForQuery. One method per login, as
    /// `pg_require_auth` allows; SCRAM must end with the server's proof that it knows the
    /// password (SASLFinal), and no other request is answered once it has begun.
    async fn login(&mut self, t: &PgTarget) -> Result<(), WireError> {
        frontend::startup_message(
            [
                ("user", t.user.as_str()),
                ("database", t.dbname.as_str()),
                ("application_name", "hammer"),
                ("client_encoding", "UTF8"),
            ],
            &mut self.out,
        )?;
        self.flush().await?;
        let policy = t.policy();
        let private = self.tls.is_some() || !self.sock.is_tcp();
        let mut state = Login::Asked;
        loop {
            let f = self.frame().await?;
            let body = self.inbox.body(f);
            match f.tag {
                b'R' => {
                    let code = be_i32(body)?;
                    let rest = body[4..].to_vec();
                    state = self.authenticate(state, code, &rest, t, &policy, private)?;
                    if !self.out.is_empty() {
                        self.flush().await?;
                    }
                }
                b'E' => return Err(WireError::Server(server_error(body))),
                b'Z' if matches!(state, Login::Accepted) => return Ok(()),
                b'Z' => return Err(auth("the server ended the login before accepting it")),
                // ParameterStatus, BackendKeyData, notices, NegotiateProtocolVersion.
                _ => {}
            }
        }
    }

    /// One authentication request: checked against the login's state and the policy, its
    /// answer written to `out`.
    fn authenticate(
        &mut self,
        state: Login,
        code: i32,
        rest: &[u8],
        t: &PgTarget,
        policy: &crate::db::postgres::AuthPolicy,
        private: bool,
    ) -> Result<Login, WireError> {
        let first = matches!(state, Login::Asked);
        if first {
            if let Some(method) = AuthMethod::of_code(code) {
                policy.allows(method, private).map_err(WireError::Auth)?;
            }
        }
        Ok(match (state, code) {
            (Login::Asked | Login::Answered | Login::Proven, 0) => Login::Accepted,
            (Login::Asked, 3) => {
                frontend::password_message(t.password.as_bytes(), &mut self.out)?;
                Login::Answered
            }
            (Login::Asked, 5) => {
                let salt: [u8; 4] = rest
                    .get(..4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| protocol("an MD5 request without salt"))?;
                let hash = md5_hash(t.user.as_bytes(), t.password.as_bytes(), salt);
                frontend::password_message(hash.as_bytes(), &mut self.out)?;
                Login::Answered
            }
            (Login::Asked, 10) => {
                let offered = rest
                    .split(|b| *b == 0)
                    .any(|m| m == SCRAM_SHA_256.as_bytes());
                if !offered {
                    return Err(auth(
                        "the server asks for a SASL mechanism other than SCRAM-SHA-256",
                    ));
                }
                // Channel binding is not offered: the session is bound to no checked
                // certificate either way.
                let s = ScramSha256::new(t.password.as_bytes(), ChannelBinding::unsupported());
                frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.out)?;
                Login::Scram(Box::new(s), false)
            }
            (Login::Scram(mut s, false), 11) => {
                s.update(rest)
                    .map_err(|e| auth(format!("the server's SCRAM challenge: {e}")))?;
                frontend::sasl_response(s.message(), &mut self.out)?;
                Login::Scram(s, true)
            }
            (Login::Scram(mut s, true), 12) => {
                s.finish(rest).map_err(|e| {
                    auth(format!(
                        "the server's SCRAM signature does not verify ({e}): it does not know \
                         the password, so it may not be the server it claims to be"
                    ))
                })?;
                Login::Proven
            }
            (Login::Scram(..), 0) => {
                return Err(auth(
                    "the server accepted the login without completing SCRAM (no server \
                     signature), so it may not be the server it claims to be: hammer refuses",
                ))
            }
            (Login::Asked, other) => {
                return Err(auth(format!(
                "the server asks for authentication method {other}, which hammer does not support"
            )))
            }
            (Login::Accepted, _) => {
                return Err(auth(
                    "an authentication request after the login was accepted",
                ))
            }
            (_, other) => {
                return Err(auth(format!(
                    "an authentication request ({other}) out of turn: one method per login"
                )))
            }
        })
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

    /// Starts a call of a prepared statement; add its parameters, then [`Call::run`].
    pub fn call(&mut self, statement: &str, params: i16) -> Call<'_> {
        self.out.clear();
        self.out.put_u8(b'B');
        let len_at = self.out.len();
        self.out.put_i32(0);
        self.out.put_u8(0); // the unnamed portal
        self.out.put_slice(statement.as_bytes());
        self.out.put_u8(0);
        self.out.put_i16(1); // one format code for every parameter: text
        self.out.put_i16(0);
        self.out.put_i16(params);
        Call {
            wire: self,
            len_at,
            params,
            given: 0,
        }
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
            if self.frame().await?.tag == b'Z' {
                self.unanswered -= 1;
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

    /// Runs the Bind written by `call`: Execute, Sync, and the reply up to ReadyForQuery.
    async fn run(&mut self, len_at: usize) -> Result<Reply<'_>, WireError> {
        self.ready().await?;
        self.out.put_i16(1); // one result format code: text
        self.out.put_i16(0);
        let len = i32::try_from(self.out.len() - len_at)
            .map_err(|_| protocol("a call too large to send"))?;
        self.out[len_at..len_at + 4].copy_from_slice(&len.to_be_bytes());
        // Execute the unnamed portal, all rows; then Sync.
        self.out.put_slice(&[b'E', 0, 0, 0, 9, 0, 0, 0, 0, 0]);
        self.out.put_slice(&[b'S', 0, 0, 0, 4]);
        self.send().await?;
        self.row.clear();
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
                b'E' if error.is_none() => error = Some(server_error(self.inbox.body(f))),
                b'Z' if !bound && error.is_none() => {
                    return Err(self.out_of_step("a ReadyForQuery before the call's reply"))
                }
                b'Z' => {
                    self.unanswered -= 1;
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

/// Where a login stands.
enum Login {
    /// No authentication request yet.
    Asked,
    /// A password (clear or MD5) was sent: AuthenticationOk must follow.
    Answered,
    /// SCRAM under way; true once the client's final message was sent.
    Scram(Box<ScramSha256>, bool),
    /// SCRAM verified the server's signature: AuthenticationOk must follow.
    Proven,
    /// AuthenticationOk came: the server's parameters follow, then ReadyForQuery.
    Accepted,
}

/// A call being written: its parameters, in order, as text.
pub struct Call<'a> {
    wire: &'a mut Wire,
    len_at: usize,
    params: i16,
    given: i16,
}

impl<'a> Call<'a> {
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
    pub async fn run(self) -> Result<Reply<'a>, WireError> {
        if self.given != self.params {
            return Err(protocol(format!(
                "a call with {} parameters for {} placeholders",
                self.given, self.params
            )));
        }
        let Call { wire, len_at, .. } = self;
        wire.run(len_at).await
    }
}

/// Opens a connection, or says in one line why it could not (as `postgres::connect` does).
pub async fn open(t: &PgTarget) -> Result<Wire, DbError> {
    let peer = t.peer();
    let limit = CONNECT_TIMEOUT + std::time::Duration::from_secs(1);
    match tokio::time::timeout(limit, Wire::connect(t)).await {
        Ok(Ok(w)) => Ok(w),
        Ok(Err(e)) => {
            let (kind, detail) = classify(&e);
            Err(peer.error(kind, detail))
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

fn be_i32(body: &[u8]) -> Result<i32, WireError> {
    body.get(..4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_be_bytes)
        .ok_or_else(|| protocol("a truncated message"))
}

/// An ErrorResponse's code, message and detail.
fn server_error(body: &[u8]) -> ServerError {
    let mut e = ServerError {
        code: String::new(),
        message: String::new(),
        detail: None,
    };
    let mut rest = body;
    while let Some((&kind, tail)) = rest.split_first() {
        if kind == 0 {
            break;
        }
        let end = tail.iter().position(|b| *b == 0).unwrap_or(tail.len());
        let value = String::from_utf8_lossy(&tail[..end]).into_owned();
        match kind {
            b'C' => e.code = value,
            b'M' => e.message = value,
            b'D' => e.detail = Some(value),
            _ => {}
        }
        rest = tail.get(end + 1..).unwrap_or(&[]);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut m = vec![tag];
        m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    #[test]
    fn frames_are_cut_only_when_whole() {
        let mut inbox = Inbox::new();
        let bytes = [message(b'2', b""), message(b'C', b"CALL\0")].concat();
        // The first message and half of the second.
        let cut = 5 + 3;
        inbox.buf[..cut].copy_from_slice(&bytes[..cut]);
        inbox.tail = cut;
        let f = inbox.next().unwrap().unwrap();
        assert_eq!((f.tag, f.end - f.start), (b'2', 0));
        assert!(inbox.next().unwrap().is_none());
        let space = inbox.space();
        space[..bytes.len() - cut].copy_from_slice(&bytes[cut..]);
        inbox.tail += bytes.len() - cut;
        let f = inbox.next().unwrap().unwrap();
        assert_eq!((f.tag, inbox.body(f)), (b'C', &b"CALL\0"[..]));
        assert!(inbox.next().unwrap().is_none());
    }

    #[test]
    fn a_bad_length_is_a_protocol_error() {
        let mut inbox = Inbox::new();
        inbox.buf[..5].copy_from_slice(&[b'D', 0, 0, 0, 2]);
        inbox.tail = 5;
        assert!(matches!(inbox.next(), Err(WireError::Protocol(_))));
    }

    #[test]
    fn the_inbox_grows_for_a_message_larger_than_it() {
        let mut inbox = Inbox::new();
        let size = inbox.buf.len();
        inbox.tail = size;
        assert!(inbox.space().len() >= size);
    }

    #[test]
    fn data_rows_keep_nulls_and_text() {
        let mut body = 3u16.to_be_bytes().to_vec();
        body.extend_from_slice(&2i32.to_be_bytes());
        body.extend_from_slice(b"42");
        body.extend_from_slice(&(-1i32).to_be_bytes());
        body.extend_from_slice(&4i32.to_be_bytes());
        body.extend_from_slice(b"1.50");
        let mut row = RowBuf::default();
        row.fill(&body).unwrap();
        let reply = Reply { row: &row };
        assert!(reply.first().is_some());
        assert_eq!(reply.int(0).unwrap(), Some(42));
        assert_eq!(reply.text(1).unwrap(), None);
        assert_eq!(reply.text(2).unwrap(), Some("1.50"));
        assert!(reply.text(3).is_err());
        assert!(reply.int(2).is_err());
    }

    #[test]
    fn a_truncated_data_row_is_refused() {
        let mut body = 1u16.to_be_bytes().to_vec();
        body.extend_from_slice(&10i32.to_be_bytes());
        body.extend_from_slice(b"short");
        assert!(RowBuf::default().fill(&body).is_err());
    }

    #[test]
    fn error_fields_are_read() {
        let body = b"SERROR\0C40001\0Mcould not serialize\0Dw_id=1 o_id=7\0\0";
        let e = server_error(body);
        assert_eq!(e.code, "40001");
        assert_eq!(e.message, "could not serialize");
        assert_eq!(e.detail.as_deref(), Some("w_id=1 o_id=7"));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Feeds `bytes` to an inbox in chunks of the given sizes, taking every whole frame
        /// and the parts a call reads of it, until an error or the end.
        fn digest(bytes: &[u8], chunks: &[usize]) {
            let mut inbox = Inbox::new();
            let mut at = 0;
            for &c in chunks.iter().cycle().take(bytes.len() + 1) {
                if at >= bytes.len() {
                    break;
                }
                let n = c.clamp(1, bytes.len() - at);
                let space = inbox.space();
                let n = n.min(space.len());
                space[..n].copy_from_slice(&bytes[at..at + n]);
                inbox.tail += n;
                at += n;
                // Memory stays bounded by what was sent, whatever the headers claim.
                assert!(inbox.buf.len() <= 2 * bytes.len().max(8 * 1024) + 16 * 1024);
                loop {
                    match inbox.next() {
                        Ok(Some(f)) => {
                            let body = inbox.body(f);
                            let mut row = RowBuf::default();
                            let _ = row.fill(body);
                            let reply = Reply { row: &row };
                            for i in 0..4 {
                                let _ = reply.int(i);
                            }
                            let _ = server_error(body);
                            let _ = be_i32(body);
                        }
                        Ok(None) => break,
                        Err(_) => return,
                    }
                }
            }
        }

        /// A well-formed call reply: BindComplete, a row, CommandComplete, ReadyForQuery.
        fn reply() -> Vec<u8> {
            let mut row = 2u16.to_be_bytes().to_vec();
            row.extend_from_slice(&2i32.to_be_bytes());
            row.extend_from_slice(b"42");
            row.extend_from_slice(&(-1i32).to_be_bytes());
            [
                message(b'2', b""),
                message(b'D', &row),
                message(b'C', b"SELECT 1\0"),
                message(b'E', b"SERROR\0C40001\0Mretry\0\0"),
                message(b'Z', b"I"),
            ]
            .concat()
        }

        proptest! {
            #[test]
            fn random_bytes_never_panic(
                bytes in proptest::collection::vec(any::<u8>(), 0..4096),
                chunks in proptest::collection::vec(1usize..600, 1..8),
            ) {
                digest(&bytes, &chunks);
            }

            #[test]
            fn mutated_replies_never_panic(
                flips in proptest::collection::vec((0usize..64, any::<u8>()), 1..6),
                chunks in proptest::collection::vec(1usize..40, 1..8),
            ) {
                let mut bytes = reply();
                for (at, v) in flips {
                    let at = at % bytes.len();
                    bytes[at] = v;
                }
                digest(&bytes, &chunks);
            }

            #[test]
            fn a_length_from_the_server_never_sizes_the_buffer(len in 0i32..=i32::MAX) {
                let mut inbox = Inbox::new();
                let mut head = vec![b'D'];
                head.extend_from_slice(&len.to_be_bytes());
                inbox.buf[..5].copy_from_slice(&head);
                inbox.tail = 5;
                match inbox.next() {
                    Ok(None) => prop_assert!((4..=MAX_MESSAGE as i32).contains(&len)),
                    Ok(Some(_)) => prop_assert_eq!(len, 4),
                    Err(_) => prop_assert!(!(4..=MAX_MESSAGE as i32).contains(&len)),
                }
                prop_assert_eq!(inbox.buf.len(), 16 * 1024);
            }
        }
    }
}
