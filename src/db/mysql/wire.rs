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
//! reply's columns and size are bounded. `mysql_common` parses the handshake, builds the
//! handshake response and computes the password scrambles; TLS (rustls's handshake and
//! records, in buffers `leantls` owns) adds no system call.
//!
//! Authentication fails closed: whatever this connection refuses (the password asked for over
//! unencrypted TCP, a plugin it does not speak, a missing server capability) is an error that
//! says what the server asked and what to set, never a reason to try another client library.
//! The password itself goes only over TLS or a unix socket; over plain TCP only the
//! scrambles of `mysql_native_password` and `caching_sha2_password`'s fast path do.

use std::io;
use std::sync::Arc;

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{
    AuthPlugin, AuthSwitchRequest, ErrPacket, HandshakePacket, HandshakeResponse, SslRequest,
};
use mysql_common::proto::MySerialize;
use mysql_common::value::{BinValue, ValueDeserializer};
use mysql_common::Value;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;

use crate::db::mysql::{server_failure, MyTarget, MyTls};
use crate::db::net::leantls::{self, LeanError, LeanTls};
use crate::db::net::sock::Sock;
use crate::db::net::{io_failure, CONNECT_TIMEOUT};
use crate::fault::{DbError, Failure};

/// The read buffer's first size: a procedure's reply takes well under 2 KiB.
const READ_BUF: usize = 32 * 1024;
/// The most a reply may take in the read buffer (the server's own default packet limit).
const MAX_BUF: usize = 64 * 1024 * 1024;
/// A packet of this length continues in the next one: never a reply this connection expects.
const MAX_PAYLOAD: usize = 0xFF_FFFF;
/// `max_allowed_packet` as the handshake response announces it (the usual clients' default).
const MAX_PACKET: u32 = 16 * 1024 * 1024;

const COM_QUIT: u8 = 0x01;
const COM_INIT_DB: u8 = 0x02;
const COM_QUERY: u8 = 0x03;
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
const COM_STMT_CLOSE: u8 = 0x19;

/// The most columns a result set may have (MySQL's and MariaDB's limit for a table, and a
/// bound on what a hostile column count makes this connection wait for).
const MAX_COLUMNS: usize = 4096;
/// The most a reply may cost: its bytes, and the values kept from it at their size in memory.
const MAX_REPLY: usize = 256 * 1024 * 1024;
/// Pieces of `LOAD DATA LOCAL` data, one packet each, well below any `max_allowed_packet`.
const INFILE_CHUNK: usize = 1 << 20;

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
    /// A request went out and its reply (or part of it) is still to be read: the next request
    /// first reads and drops it.
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
    match tokio::time::timeout(CONNECT_TIMEOUT, reach(t)).await {
        Err(_) => Err(t.peer().error(
            Failure::Unreachable,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
        Ok(r) => r,
    }
}

/// The plugins that take the password itself, which hammer sends over TLS or a unix socket
/// only (`dialog` is MariaDB's PAM prompt, answered with the password too).
const CLEAR_PLUGINS: [&str; 3] = ["sha256_password", "mysql_clear_password", "dialog"];

/// An authentication hammer will not do: an error, never a reason to try another way.
fn refuse(t: &MyTarget, why: impl Into<String>) -> DbError {
    t.peer().error(Failure::Auth, why)
}

/// Why hammer does not send the password over plain TCP, and what to set instead.
fn clear_over_tcp(t: &MyTarget, what: &str) -> String {
    let p = t.db.prefix();
    format!(
        "the server asks for {what}, which takes the password itself, and this connection is \
         unencrypted TCP: hammer does not send the password in clear, nor encrypt it with a \
         public key the server would send unauthenticated; set {p}_ssl true to connect over \
         TLS, or connect through the server's unix socket ({p}_host localhost and {p}_socket \
         its path); with caching_sha2_password one such login also lets later logins of the \
         user over TCP take the fast path, until the server restarts"
    )
}

fn unknown_plugin(name: &str) -> String {
    format!(
        "the server asks for authentication plugin {name:?}, which hammer does not speak \
         (it speaks mysql_native_password and caching_sha2_password, and over TLS or a unix \
         socket also {}): give the user one of these",
        CLEAR_PLUGINS.join(", ")
    )
}

/// The password as the clear-text plugins take it: its bytes and a NUL.
fn clear_password(pass: Option<&str>) -> Vec<u8> {
    let mut clear = pass.unwrap_or_default().as_bytes().to_vec();
    clear.push(0);
    clear
}

async fn reach(t: &MyTarget) -> Result<Wire, DbError> {
    let Some(path) = &t.socket else {
        return handshake(t).await;
    };
    let p = t.db.prefix();
    let tcp = MyTarget {
        socket: None,
        ..t.clone()
    };
    // No database yet: on another server it may not exist, which would hide which server
    // answered.
    let first = MyTarget {
        dbname: None,
        ..t.clone()
    };
    let mut w = match handshake(&first).await {
        Ok(w) => w,
        // The server behind the socket may be another one, without this login: the
        // configured host and port decide.
        Err(e) if e.kind == Failure::Auth => {
            return match handshake(&tcp).await {
                Ok(mut w) => {
                    w.note = Some(format!(
                        "the server behind {p}_socket {} refused the login ({}): connected \
                         over TCP to {} instead",
                        path.display(),
                        e.detail,
                        tcp.peer().addr
                    ));
                    Ok(w)
                }
                Err(_) => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    let port = match w.query_first("SELECT @@port").await {
        Ok(row) => row.as_deref().and_then(port_of),
        Err(e) => {
            return Err(t
                .peer()
                .failed("cannot ask which server answers at", e.kind, e.detail))
        }
    };
    if port == Some(t.port) {
        if let Some(db) = &t.dbname {
            w.use_database(db)
                .await
                .map_err(|e| t.peer().error(e.kind, e.detail))?;
        }
        return Ok(w);
    }
    w.close().await;
    let listens = port.map_or("an unknown port".to_string(), |n| format!("port {n}"));
    let note = format!(
        "{p}_socket {path} leads to the server listening on {listens}, not {p}_port {port}: \
         connected over TCP to {addr} instead (set {p}_socket to that server's socket, or \
         null, to say so)",
        path = path.display(),
        port = t.port,
        addr = tcp.peer().addr,
    );
    match handshake(&tcp).await {
        Ok(mut w) => {
            w.note = Some(note);
            Ok(w)
        }
        Err(mut e) => {
            e.detail = format!("{} ({note})", e.detail);
            Err(e)
        }
    }
}

/// Refuses a greeting that mysql_common's parser would panic on: it subtracts 8 from the
/// auth-plugin-data length read as an `i8`, which overflows for 0x80 to 0x87.
fn greeting_parsable(p: &[u8]) -> Result<(), WireError> {
    let Some(nul) = p.get(1..).and_then(|v| v.iter().position(|b| *b == 0)) else {
        return Ok(());
    };
    // Protocol version, the version string and its NUL, then 20 bytes of fixed fields.
    match p.get(1 + nul + 1 + 20) {
        Some(0x80..=0x87) => Err(WireError::protocol(
            "a greeting with an auth-plugin-data length of more than 127",
        )),
        _ => Ok(()),
    }
}

/// A port number as the server gives `@@port`.
fn port_of(row: &[Value]) -> Option<u16> {
    match row.first()? {
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        Value::Int(n) => u16::try_from(*n).ok(),
        Value::UInt(n) => u16::try_from(*n).ok(),
        _ => None,
    }
}

async fn handshake(t: &MyTarget) -> Result<Wire, DbError> {
    let peer = t.peer();
    let failed = |e: WireError| peer.error(e.kind, e.detail);
    let connect_failed = |e: io::Error| peer.error(io_failure(&e), e.to_string());
    if t.tls.is_some() && t.socket.is_some() {
        // `MyTarget` never asks for it: TLS is for TCP (see `MyTarget::server`).
        return Err(peer.error(Failure::Tls, "TLS is for TCP, not a unix socket"));
    }
    let bounds = t.bounds.clone();
    let sock = match &t.socket {
        Some(path) => Sock::unix(path, &bounds).await.map_err(connect_failed)?,
        None => Sock::tcp(&t.host, t.port, &bounds)
            .await
            .map_err(connect_failed)?,
    };
    let mut w = Wire {
        sock,
        tls: None,
        sealed: Vec::new(),
        buf: vec![0; READ_BUF],
        start: 0,
        end: 0,
        drained: false,
        out: Vec::with_capacity(1024),
        caps: CapabilityFlags::empty(),
        state: State::Idle,
        cols: Vec::with_capacity(16),
        rows: Vec::new(),
        parse: Parse::new(Expect::Query),
        seq: 0,
        version: (0, 0, 0),
        note: None,
        addr: t.peer().addr,
    };

    let packet = w.packet().await.map_err(failed)?;
    if packet.first() == Some(&0xFF) {
        // Before the handshake the server's errors carry no SQLSTATE.
        return Err(failed(server_error(&packet, CapabilityFlags::empty())));
    }
    greeting_parsable(&packet).map_err(failed)?;
    let hs: HandshakePacket = match ParseBuf(&packet).parse(()) {
        Ok(hs) => hs,
        Err(e) => {
            return Err(failed(WireError::protocol(format!(
                "an unreadable handshake: {e}"
            ))))
        }
    };
    let need = CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS;
    let server = hs.capabilities();
    if !server.contains(need) {
        // No fallback to a client that would do without them: a man in the middle could
        // strip capabilities from the greeting to pick the client he likes best.
        return Err(peer.error(
            Failure::Other,
            format!(
                "the server lacks capabilities {:?}, which hammer needs (MySQL 5.5 and \
                 MariaDB 5.5 have them all)",
                need.difference(server)
            ),
        ));
    }
    let mut want = need
        | CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_DEPRECATE_EOF
        // For the build's LOAD DATA LOCAL: hammer sends only the rows it was given, never a
        // file, and refuses a request for one in reply to any other statement.
        | CapabilityFlags::CLIENT_LOCAL_FILES;
    if t.dbname.is_some() {
        want |= CapabilityFlags::CLIENT_CONNECT_WITH_DB;
    }
    if t.tls.is_some() {
        want |= CapabilityFlags::CLIENT_SSL;
    }
    w.caps = server & want;
    let version = hs
        .maria_db_server_version_parsed()
        .or_else(|| hs.server_version_parsed())
        .unwrap_or((0, 0, 0));
    w.version = version;
    let mut nonce = hs.scramble_1_ref().to_vec();
    nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
    nonce.resize(20, 0);
    let mut plugin = match hs.auth_plugin() {
        Some(AuthPlugin::CachingSha2Password) => AuthPlugin::CachingSha2Password,
        _ => AuthPlugin::MysqlNativePassword,
    };

    if let Some(tls) = &t.tls {
        if !server.contains(CapabilityFlags::CLIENT_SSL) {
            return Err(peer.error(Failure::Tls, "the server does not offer TLS"));
        }
        if let Some(ca) = tls.ca.as_ref().filter(|ca| !ca.exists()) {
            return Err(peer.error(
                Failure::Tls,
                format!(
                    "CA file {} not found; set {p}_ssl_ca to an empty value to encrypt without \
                     verifying the server",
                    ca.display(),
                    p = t.db.prefix()
                ),
            ));
        }
        let config = tls_config(tls, t.db.prefix()).map_err(|e| peer.error(Failure::Tls, e))?;
        let name = match ServerName::try_from(t.host.clone()) {
            Ok(name) => name,
            Err(e) => {
                return Err(peer.error(Failure::Tls, format!("TLS server name {}: {e}", t.host)))
            }
        };
        let collation = if version >= (5, 5, 3) { 45 } else { 33 };
        let mut request = Vec::with_capacity(32);
        SslRequest::new(w.caps, MAX_PACKET, collation).serialize(&mut request);
        // Bytes already read past the greeting came unencrypted: were they taken for the
        // server's answers once TLS is up, a man in the middle could forge them.
        if w.start != w.end {
            return Err(peer.error(
                Failure::Tls,
                "the server sent unencrypted bytes after its greeting, before TLS",
            ));
        }
        w.write_packet(&request).await.map_err(failed)?;
        match leantls::handshake(config, name, &mut w.sock)
            .await
            .map_err(lean)
        {
            Ok(tls) => w.tls = Some(Box::new(tls)),
            Err(e) => return Err(failed(e)),
        }
    }

    let pass = t.password.as_deref();
    let data = plugin.gen_data(pass, &nonce);
    let response = HandshakeResponse::new(
        data.as_deref(),
        version,
        Some(t.user.as_bytes()),
        t.dbname.as_ref().map(|d| d.as_bytes()),
        Some(plugin.clone()),
        w.caps,
        None,
        MAX_PACKET,
    );
    let mut bytes = Vec::with_capacity(128);
    response.serialize(&mut bytes);
    w.write_packet(&bytes).await.map_err(failed)?;

    let mut switched = false;
    loop {
        let packet = w.packet().await.map_err(failed)?;
        match (packet.first(), packet.get(1)) {
            (Some(0x00), _) => break,
            (Some(0xFF), _) => return Err(failed(server_error(&packet, w.caps))),
            (Some(0xFE), _) if packet.len() == 1 => {
                return Err(refuse(
                    t,
                    "the server asks for mysql_old_password, whose scramble is broken; \
                     hammer refuses it: give the user a mysql_native_password or \
                     caching_sha2_password password",
                ))
            }
            (Some(0xFE), _) if switched => {
                return Err(failed(WireError::protocol(
                    "a second authentication switch",
                )))
            }
            (Some(0xFE), _) => {
                let request: AuthSwitchRequest = match ParseBuf(&packet).parse(()) {
                    Ok(r) => r,
                    Err(e) => {
                        return Err(failed(WireError::protocol(format!(
                            "an unreadable authentication switch: {e}"
                        ))))
                    }
                };
                switched = true;
                plugin = request.auth_plugin().into_owned();
                nonce = request.plugin_data().to_vec();
                let data = match &plugin {
                    AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password => plugin
                        .gen_data(pass, &nonce)
                        .as_deref()
                        .unwrap_or_default()
                        .to_vec(),
                    other => {
                        let name = String::from_utf8_lossy(other.as_bytes()).into_owned();
                        if !CLEAR_PLUGINS.contains(&name.as_str()) {
                            return Err(refuse(t, unknown_plugin(&name)));
                        }
                        // These plugins take the password itself: only a secure channel
                        // may carry it.
                        if !w.is_secure() {
                            return Err(refuse(t, clear_over_tcp(t, &name)));
                        }
                        clear_password(pass)
                    }
                };
                w.write_packet(&data).await.map_err(failed)?;
            }
            (Some(0x01), Some(0x03)) if plugin == AuthPlugin::CachingSha2Password => {
                // Fast authentication succeeded: the OK follows.
            }
            (Some(0x01), Some(0x04)) if plugin == AuthPlugin::CachingSha2Password => {
                // Full authentication: the password in clear, which only a secure channel may
                // carry. Over plain TCP the alternative is to encrypt it with an RSA key the
                // server sends unauthenticated, which a man in the middle replaces with his.
                if !w.is_secure() {
                    return Err(refuse(
                        t,
                        clear_over_tcp(t, "caching_sha2_password's full authentication"),
                    ));
                }
                w.write_packet(&clear_password(pass))
                    .await
                    .map_err(failed)?;
            }
            (first, _) => {
                return Err(failed(WireError::protocol(format!(
                    "an authentication packet starting with {first:?}"
                ))))
            }
        }
    }
    Ok(w)
}

/// The TLS settings for a `MyTls`: the CA file's certificates, with the host name checked
/// unless `*_ssl_verify_hostname` is off, or no verification at all without a CA (encryption
/// only, as libpq's `sslmode=require`); the client identity for two-way TLS.
fn tls_config(tls: &MyTls, prefix: &'static str) -> Result<Arc<ClientConfig>, String> {
    let trust = match &tls.ca {
        None => crate::db::net::tls::Trust::Anyone,
        Some(ca) => crate::db::net::tls::Trust::Ca {
            file: ca,
            names: tls.verify_hostname,
            way_out: format!(
                "connect by a name the certificate has ({prefix}_host), or set \
                 {prefix}_ssl_verify_hostname false to check the chain only"
            ),
        },
    };
    let identity = tls
        .identity
        .as_ref()
        .map(|(cert, key)| (cert.as_path(), key.as_path()));
    crate::db::net::tls::client_config(trust, identity).map(Arc::new)
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

    /// Prepares, executes and closes a statement with `args`; the rows of its first result
    /// set (typed values of the binary protocol).
    pub async fn exec_rows(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
    ) -> Result<Vec<Vec<Value>>, WireError> {
        let stmt = self.prepare(sql).await?;
        // The execution's failure is the one to tell: after it the close may fail too.
        let rows = self.execute_all(stmt, args).await?;
        self.close_statement(stmt).await?;
        Ok(rows)
    }

    /// Frees a prepared statement on the server (COM_STMT_CLOSE has no reply).
    pub async fn close_statement(&mut self, stmt: Stmt) -> Result<(), WireError> {
        self.ready().await?;
        self.begin(COM_STMT_CLOSE);
        self.out.extend_from_slice(&stmt.id.to_le_bytes());
        self.send(Expect::Nothing).await
    }

    /// Runs a `LOAD DATA LOCAL INFILE` statement and sends `data` as its file, whatever file
    /// the server names; what the final OK says.
    pub async fn load_local(&mut self, sql: &str, data: &[u8]) -> Result<Done, WireError> {
        self.ready().await?;
        self.begin(COM_QUERY);
        self.out.extend_from_slice(sql.as_bytes());
        self.send(Expect::Query).await?;
        self.parse.infile = true;
        match self.reply(Expect::Query).await? {
            Outcome::Infile => {}
            Outcome::Error(e) => return Err(e),
            Outcome::Done(_) | Outcome::Prepared(_) => {
                return Err(WireError::protocol(
                    "no LOCAL INFILE request in reply to LOAD DATA LOCAL",
                ))
            }
        }
        // The data in packets, and an empty one to end it, numbered on from the request.
        self.state = State::Writing;
        let mut seq = self.parse.seq;
        for piece in data.chunks(INFILE_CHUNK).chain([&[][..]]) {
            self.out.clear();
            self.out
                .extend_from_slice(&(piece.len() as u32).to_le_bytes()[..3]);
            self.out.push(seq);
            seq = seq.wrapping_add(1);
            self.out.extend_from_slice(piece);
            self.flush().await?;
        }
        self.parse = Parse::new(Expect::Query);
        self.parse.seq = seq;
        self.state = State::Awaiting(Expect::Query);
        match self.reply(Expect::Query).await? {
            Outcome::Done(done) => Ok(done),
            Outcome::Error(e) => Err(e),
            Outcome::Prepared(_) | Outcome::Infile => {
                Err(WireError::protocol("a second LOCAL INFILE request"))
            }
        }
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

    /// Prepares a statement.
    pub async fn prepare(&mut self, sql: &str) -> Result<Stmt, WireError> {
        self.ready().await?;
        self.begin(COM_STMT_PREPARE);
        self.out.extend_from_slice(sql.as_bytes());
        self.send(Expect::Prepare).await?;
        match self.reply(Expect::Prepare).await? {
            Outcome::Prepared(stmt) => Ok(stmt),
            Outcome::Error(e) => Err(e),
            Outcome::Done(_) | Outcome::Infile => Err(WireError::protocol("no prepared statement")),
        }
    }

    /// Executes a prepared statement with `args` followed by `nulls` NULLs, and returns the
    /// first row of its first result set.
    pub async fn execute(
        &mut self,
        stmt: Stmt,
        args: &[Arg<'_>],
        nulls: usize,
    ) -> Result<Option<Vec<Value>>, WireError> {
        self.run(stmt, args, nulls).await?;
        Ok(self.rows.drain(..).next())
    }

    /// Executes a prepared statement with `args`, and returns the rows of its first result
    /// set (none for a statement that gives no result set).
    pub async fn execute_all(
        &mut self,
        stmt: Stmt,
        args: &[Arg<'_>],
    ) -> Result<Vec<Vec<Value>>, WireError> {
        self.run(stmt, args, 0).await?;
        Ok(std::mem::take(&mut self.rows))
    }

    /// Executes a prepared statement and reads its reply: the rows go to `self.rows`.
    async fn run(&mut self, stmt: Stmt, args: &[Arg<'_>], nulls: usize) -> Result<(), WireError> {
        if args.len() + nulls != stmt.params {
            return Err(WireError {
                kind: Failure::Other,
                detail: format!(
                    "the statement takes {} parameters, {} given",
                    stmt.params,
                    args.len() + nulls
                ),
                code: 0,
            });
        }
        self.ready().await?;
        self.begin(COM_STMT_EXECUTE);
        encode_execute(&mut self.out, stmt.id, args, nulls);
        self.send(Expect::Execute).await?;
        match self.reply(Expect::Execute).await? {
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

    /// Reads and drops the reply a dropped call still owes, so that the next request reads
    /// its own reply; a request cut while being written leaves the stream unusable.
    async fn ready(&mut self) -> Result<(), WireError> {
        match self.state {
            State::Idle => Ok(()),
            State::Writing => Err(WireError::lost(
                "a request was interrupted while being sent; the connection is unusable",
            )),
            State::Awaiting(expect) => self.reply(expect).await.map(drop),
            State::Broken => Err(WireError::protocol(
                "an earlier reply could not be read; the connection is unusable",
            )),
        }
    }

    /// Starts a command packet in the write buffer.
    fn begin(&mut self, command: u8) {
        self.out.clear();
        self.out.extend_from_slice(&[0, 0, 0, 0, command]);
    }

    /// Sends the command in the write buffer, its header filled in.
    async fn send(&mut self, expect: Expect) -> Result<(), WireError> {
        let len = self.out.len() - 4;
        if len >= MAX_PAYLOAD {
            return Err(WireError {
                kind: Failure::Other,
                detail: format!("a request of {len} bytes is too large"),
                code: 0,
            });
        }
        self.out[..3].copy_from_slice(&(len as u32).to_le_bytes()[..3]);
        self.state = State::Writing;
        self.flush().await?;
        self.rows.clear();
        self.parse = Parse::new(expect);
        self.state = match expect {
            Expect::Nothing => State::Idle,
            _ => State::Awaiting(expect),
        };
        Ok(())
    }

    /// Writes the write buffer to the socket, through TLS when on.
    async fn flush(&mut self) -> Result<(), WireError> {
        let Wire {
            sock,
            tls,
            out,
            sealed,
            ..
        } = self;
        let bytes = match tls {
            None => out,
            Some(tls) => {
                sealed.clear();
                tls.seal(out, sealed).map_err(session)?;
                sealed
            }
        };
        sock.write_all(bytes).await.map_err(|e| WireError::io(&e))
    }

    /// Writes one packet of the connection phase.
    async fn write_packet(&mut self, payload: &[u8]) -> Result<(), WireError> {
        self.out.clear();
        self.out
            .extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
        self.out.push(self.seq);
        self.seq = self.seq.wrapping_add(1);
        self.out.extend_from_slice(payload);
        self.flush().await
    }

    /// Reads one packet of the connection phase.
    async fn packet(&mut self) -> Result<Vec<u8>, WireError> {
        loop {
            if let Some((payload, seq, next)) = frame(&self.buf[..self.end], self.start)? {
                if seq != self.seq {
                    return Err(WireError::protocol(format!(
                        "packet sequence id {seq} where {} was due",
                        self.seq
                    )));
                }
                let payload = payload.to_vec();
                self.start = next;
                self.seq = seq.wrapping_add(1);
                return Ok(payload);
            }
            self.fill().await?;
        }
    }

    /// Reads until the reply to the last request is complete, and parses it: each packet
    /// once, as it arrives, so a reply costs time in proportion to its size however it is
    /// cut. `expect` is what [`Wire::send`] set the parse up for.
    async fn reply(&mut self, expect: Expect) -> Result<Outcome, WireError> {
        debug_assert_eq!(self.parse.expect, expect);
        loop {
            let Wire {
                buf,
                start,
                end,
                parse,
                caps,
                cols,
                rows,
                ..
            } = self;
            match feed(parse, &buf[*start..*end], *caps, cols, rows) {
                Ok((used, outcome)) => {
                    self.start += used;
                    if let Some(outcome) = outcome {
                        self.state = State::Idle;
                        if self.start == self.end && self.drained {
                            self.sock.drained();
                        }
                        return Ok(outcome);
                    }
                }
                Err(e) => {
                    self.state = State::Broken;
                    return Err(e);
                }
            }
            if let Err(e) = self.fill().await {
                // Part of the reply may be gone with the failure: the stream's framing can
                // no longer be trusted.
                self.state = State::Broken;
                return Err(e);
            }
        }
    }

    /// Reads more bytes into the read buffer: at least one, or an error.
    async fn fill(&mut self) -> Result<(), WireError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.grow()?;
            }
        }
        let Wire {
            sock,
            tls,
            buf,
            start,
            end,
            drained,
            ..
        } = self;
        match tls {
            None => {
                let space = buf.len() - *end;
                let n = sock
                    .read(&mut buf[*end..])
                    .await
                    .map_err(|e| WireError::io(&e))?;
                if n == 0 {
                    return Err(WireError::closed());
                }
                *end += n;
                *drained = n < space;
                Ok(())
            }
            Some(tls) => {
                loop {
                    // Counted, not measured: `put` may move the unread bytes to the front.
                    let mut got = false;
                    while let Some(plain) = tls.open().map_err(session)? {
                        put(buf, start, end, plain)?;
                        got |= !plain.is_empty();
                    }
                    if got {
                        return Ok(());
                    }
                    if tls.is_closed() {
                        return Err(WireError::closed());
                    }
                    let space = tls.space();
                    let room = space.len();
                    let n = sock.read(space).await.map_err(|e| WireError::io(&e))?;
                    if n == 0 {
                        return Err(WireError::closed());
                    }
                    *drained = n < room;
                    tls.filled(n);
                }
            }
        }
    }

    fn grow(&mut self) -> Result<(), WireError> {
        if self.buf.len() >= MAX_BUF {
            return Err(WireError::protocol(format!(
                "a reply larger than {MAX_BUF} bytes"
            )));
        }
        let len = self.buf.len() * 2;
        self.buf.resize(len, 0);
        Ok(())
    }
}

/// Appends decrypted bytes to `buf[start..end]`, moving the unread bytes to the front or
/// growing the buffer when needed.
fn put(
    buf: &mut Vec<u8>,
    start: &mut usize,
    end: &mut usize,
    plain: &[u8],
) -> Result<(), WireError> {
    if buf.len() - *end < plain.len() {
        buf.copy_within(*start..*end, 0);
        *end -= *start;
        *start = 0;
        while buf.len() - *end < plain.len() {
            if buf.len() >= MAX_BUF {
                return Err(WireError::protocol(format!(
                    "a reply larger than {MAX_BUF} bytes"
                )));
            }
            let len = buf.len() * 2;
            buf.resize(len, 0);
        }
    }
    buf[*end..*end + plain.len()].copy_from_slice(plain);
    *end += plain.len();
    Ok(())
}

/// A failure of the TLS session after its handshake: what the server sent since can no
/// longer be read, so the connection is lost.
fn session(e: LeanError) -> WireError {
    match e {
        LeanError::Io(e) => WireError::io(&e),
        LeanError::Tls(detail) => WireError::lost(format!("the TLS session failed: {detail}")),
    }
}

/// A failure of the TLS handshake: a socket error, or a TLS one.
fn lean(e: LeanError) -> WireError {
    match e {
        LeanError::Io(e) => WireError::io(&e),
        LeanError::Tls(detail) => WireError {
            kind: Failure::Tls,
            detail,
            code: 0,
        },
    }
}

// ---------------------------------------------------------------------------------------
// The packets, parsed in place.

/// A packet in a buffer: its payload, its sequence id and where the next one starts.
type Frame<'a> = (&'a [u8], u8, usize);

/// The packet at `data[at..]`, or None when it is not all there yet.
fn frame(data: &[u8], at: usize) -> Result<Option<Frame<'_>>, WireError> {
    let Some(head) = at.checked_add(4).and_then(|end| data.get(at..end)) else {
        return Ok(None);
    };
    let len = usize::from(head[0]) | usize::from(head[1]) << 8 | usize::from(head[2]) << 16;
    if len == MAX_PAYLOAD {
        return Err(WireError::protocol("a packet of 16 MiB or more"));
    }
    let seq = head[3];
    // At most 16 MiB past an index into a slice: no overflow.
    let next = at + 4 + len;
    Ok(data.get(at + 4..next).map(|payload| (payload, seq, next)))
}

/// A length-encoded integer at `p[*at..]`, or None for the NULL marker.
fn lenenc(p: &[u8], at: &mut usize) -> Result<Option<u64>, WireError> {
    let short = || WireError::protocol("a truncated length");
    let first = *p.get(*at).ok_or_else(short)?;
    let width = match first {
        0xFB => {
            *at += 1;
            return Ok(None);
        }
        0xFC => 2,
        0xFD => 3,
        0xFE => 8,
        0xFF => return Err(WireError::protocol("a length starting with 0xFF")),
        v => {
            *at += 1;
            return Ok(Some(u64::from(v)));
        }
    };
    let bytes = p.get(*at + 1..*at + 1 + width).ok_or_else(short)?;
    let mut v = 0u64;
    for (k, b) in bytes.iter().enumerate() {
        v |= u64::from(*b) << (8 * k);
    }
    *at += 1 + width;
    Ok(Some(v))
}

/// What an OK packet says.
#[derive(Debug, Clone, Copy, Default)]
struct OkPacket {
    affected: u64,
    status: StatusFlags,
    warnings: u16,
}

/// An OK packet (also an OK sent in place of EOF, header 0xFE): rows affected, the last
/// insert id, the server status and the warnings.
fn ok_packet(p: &[u8]) -> Result<OkPacket, WireError> {
    let mut at = 1;
    let affected = lenenc(p, &mut at)?.unwrap_or(0);
    lenenc(p, &mut at)?;
    let s = p
        .get(at..at + 2)
        .ok_or_else(|| WireError::protocol("a truncated OK packet"))?;
    let status = StatusFlags::from_bits_truncate(u16::from_le_bytes([s[0], s[1]]));
    let warnings = p
        .get(at + 2..at + 4)
        .map_or(0, |w| u16::from_le_bytes([w[0], w[1]]));
    Ok(OkPacket {
        affected,
        status,
        warnings,
    })
}

/// The server status of an EOF packet: 0xFE, warnings, status.
fn eof_status(p: &[u8]) -> Result<StatusFlags, WireError> {
    let s = p
        .get(3..5)
        .ok_or_else(|| WireError::protocol("a truncated EOF packet"))?;
    Ok(StatusFlags::from_bits_truncate(u16::from_le_bytes([
        s[0], s[1],
    ])))
}

/// The error an ERR packet carries, classified as `mysql::classify` does.
fn server_error(p: &[u8], caps: CapabilityFlags) -> WireError {
    match ParseBuf(p).parse::<ErrPacket>(caps) {
        Ok(ErrPacket::Error(e)) => {
            let state = e
                .sql_state_ref()
                .map(|s| s.as_str().into_owned())
                .unwrap_or_else(|| "HY000".into());
            WireError {
                kind: server_failure(e.error_code(), &state),
                detail: e.message_str().into_owned(),
                code: e.error_code(),
            }
        }
        Ok(ErrPacket::Progress(_)) => WireError::protocol("a progress report"),
        Err(e) => WireError::protocol(format!("an unreadable error packet: {e}")),
    }
}

/// A column definition's type and flags: after six length-encoded strings (catalog, schema,
/// table, original table, name, original name) and the fixed fields' length come the
/// character set (2 bytes), the column length (4), the type (1) and the flags (2).
fn column_type(p: &[u8]) -> Result<(ColumnType, ColumnFlags), WireError> {
    let mut at = 0;
    let bad = || WireError::protocol("a truncated column definition");
    for _ in 0..6 {
        let len = lenenc(p, &mut at)?.unwrap_or(0);
        at = usize::try_from(len)
            .ok()
            .and_then(|len| at.checked_add(len))
            .filter(|&end| end <= p.len())
            .ok_or_else(bad)?;
    }
    lenenc(p, &mut at)?;
    let fixed = p
        .get(at..at.saturating_add(9))
        .ok_or_else(|| WireError::protocol("a truncated column definition"))?;
    let ty = ColumnType::try_from(fixed[6])
        .map_err(|_| WireError::protocol(format!("column type {}", fixed[6])))?;
    let flags = ColumnFlags::from_bits_truncate(u16::from_le_bytes([fixed[7], fixed[8]]));
    Ok((ty, flags))
}

/// Whether mysql_common decodes this type in a binary row (it panics on the others, which
/// servers never send).
fn decodable(ty: ColumnType) -> bool {
    use ColumnType::*;
    matches!(
        ty,
        MYSQL_TYPE_STRING
            | MYSQL_TYPE_VAR_STRING
            | MYSQL_TYPE_BLOB
            | MYSQL_TYPE_TINY_BLOB
            | MYSQL_TYPE_MEDIUM_BLOB
            | MYSQL_TYPE_LONG_BLOB
            | MYSQL_TYPE_SET
            | MYSQL_TYPE_ENUM
            | MYSQL_TYPE_DECIMAL
            | MYSQL_TYPE_VARCHAR
            | MYSQL_TYPE_BIT
            | MYSQL_TYPE_NEWDECIMAL
            | MYSQL_TYPE_GEOMETRY
            | MYSQL_TYPE_JSON
            | MYSQL_TYPE_TINY
            | MYSQL_TYPE_SHORT
            | MYSQL_TYPE_YEAR
            | MYSQL_TYPE_LONG
            | MYSQL_TYPE_INT24
            | MYSQL_TYPE_LONGLONG
            | MYSQL_TYPE_FLOAT
            | MYSQL_TYPE_DOUBLE
            | MYSQL_TYPE_TIMESTAMP
            | MYSQL_TYPE_DATE
            | MYSQL_TYPE_NEWDATE
            | MYSQL_TYPE_DATETIME
            | MYSQL_TYPE_TIME
            | MYSQL_TYPE_NULL
    )
}

/// A binary-protocol row: 0x00, the NULL bitmap (offset by two bits), the non-NULL values.
fn binary_row(p: &[u8], cols: &[(ColumnType, ColumnFlags)]) -> Result<Vec<Value>, WireError> {
    let bitmap_len = (cols.len() + 7 + 2) / 8;
    if p.first() != Some(&0x00) {
        return Err(WireError::protocol("a binary row without its 0x00 header"));
    }
    let bitmap = p
        .get(1..1 + bitmap_len)
        .ok_or_else(|| WireError::protocol("a truncated row"))?;
    let mut values = ParseBuf(&p[1 + bitmap_len..]);
    let mut row = Vec::with_capacity(cols.len());
    for (i, &(ty, flags)) in cols.iter().enumerate() {
        let bit = i + 2;
        if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
            row.push(Value::NULL);
            continue;
        }
        if !decodable(ty) {
            return Err(WireError::protocol(format!("a value of type {ty:?}")));
        }
        let v: ValueDeserializer<BinValue> = values
            .parse((ty, flags))
            .map_err(|e| WireError::protocol(format!("a value of type {ty:?}: {e}")))?;
        row.push(v.0);
    }
    Ok(row)
}

/// Where the parse of a reply stands: it takes one packet at a time and keeps only what it
/// needs of those it has seen, so a reply is read in one pass however it arrives.
#[derive(Debug)]
struct Parse {
    expect: Expect,
    phase: Phase,
    /// The sequence id the next packet must carry.
    seq: u8,
    /// A `LOAD DATA LOCAL` request is expected, and may be answered.
    infile: bool,
    /// Rows of every result set so far.
    rows: usize,
    /// The rows read belong to the reply's first result set (the ones kept).
    first_set: bool,
    /// The number of columns of the result set being read.
    ncols: usize,
    /// What the reply has cost so far: its bytes, and the values kept from it.
    cost: usize,
    /// A prepared statement, while its definitions are being skipped.
    stmt: Option<Stmt>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// The first packet of a result: OK, ERR, LOCAL INFILE request or a column count.
    Head,
    /// This many column definitions still to come.
    Columns(usize),
    /// The EOF after the column definitions (without CLIENT_DEPRECATE_EOF).
    ColumnsEof,
    Rows,
    /// A prepare reply's parameter and column definitions (and EOFs): this many packets to skip.
    Definitions(usize),
}

impl Parse {
    fn new(expect: Expect) -> Self {
        Parse {
            expect,
            phase: Phase::Head,
            seq: 1,
            infile: false,
            rows: 0,
            first_set: true,
            ncols: 0,
            cost: 0,
            stmt: None,
        }
    }

    /// Takes one packet (its payload and sequence id): the outcome once the reply is
    /// complete. The rows of the first result set go to `rows_out`, their columns' types
    /// (binary replies) to `cols`.
    fn step(
        &mut self,
        p: &[u8],
        seq: u8,
        caps: CapabilityFlags,
        cols: &mut Vec<(ColumnType, ColumnFlags)>,
        rows_out: &mut Vec<Vec<Value>>,
    ) -> Result<Option<Outcome>, WireError> {
        if seq != self.seq {
            // A packet lost, repeated or from another reply: nothing that follows can be
            // matched to its request.
            return Err(WireError::protocol(format!(
                "packet sequence id {seq} where {} was due",
                self.seq
            )));
        }
        self.seq = seq.wrapping_add(1);
        self.charge(4 + p.len())?;
        let deprecate_eof = caps.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
        match self.phase {
            Phase::Head => match (p.first(), self.expect) {
                (None, _) => Err(WireError::protocol("an empty packet")),
                (Some(0xFF), _) => Ok(Some(Outcome::Error(server_error(p, caps)))),
                (_, Expect::Nothing) => Err(WireError::protocol("a reply to COM_STMT_CLOSE")),
                (Some(0x00), Expect::Prepare) => {
                    let (stmt, defs) = prepare_ok(p, caps)?;
                    if defs == 0 {
                        return Ok(Some(Outcome::Prepared(stmt)));
                    }
                    self.stmt = Some(stmt);
                    self.phase = Phase::Definitions(defs);
                    Ok(None)
                }
                (Some(_), Expect::Prepare) => {
                    Err(WireError::protocol("an unreadable prepare reply"))
                }
                (Some(0x00), _) => {
                    let ok = ok_packet(p)?;
                    Ok(self.end_of_result(ok))
                }
                (Some(0xFB), _) if self.infile => {
                    self.infile = false;
                    Ok(Some(Outcome::Infile))
                }
                (Some(0xFB), _) => Err(WireError::protocol(
                    "a LOCAL INFILE request in reply to a statement that loads nothing",
                )),
                (Some(_), _) => {
                    let mut at = 0;
                    let n = lenenc(p, &mut at)?.unwrap_or(0);
                    if at != p.len() || n == 0 || n > MAX_COLUMNS as u64 {
                        return Err(WireError::protocol(format!(
                            "a result set of {n} columns (at most {MAX_COLUMNS})"
                        )));
                    }
                    self.ncols = n as usize;
                    cols.clear();
                    self.phase = Phase::Columns(self.ncols);
                    Ok(None)
                }
            },
            Phase::Columns(left) => {
                if self.expect == Expect::Execute && self.first_set {
                    cols.push(column_type(p)?);
                }
                self.phase = match left - 1 {
                    0 if deprecate_eof => Phase::Rows,
                    0 => Phase::ColumnsEof,
                    left => Phase::Columns(left),
                };
                Ok(None)
            }
            Phase::ColumnsEof => {
                if p.first() != Some(&0xFE) {
                    return Err(WireError::protocol("no EOF after the column definitions"));
                }
                self.phase = Phase::Rows;
                Ok(None)
            }
            Phase::Rows => match p.first() {
                // A row never starts with 0xFE short of 16 MiB: that is the end.
                Some(0xFE) => {
                    let ok = if deprecate_eof {
                        ok_packet(p)?
                    } else {
                        OkPacket {
                            status: eof_status(p)?,
                            ..OkPacket::default()
                        }
                    };
                    self.first_set = false;
                    Ok(self.end_of_result(ok))
                }
                Some(0xFF) => Ok(Some(Outcome::Error(server_error(p, caps)))),
                _ => {
                    if self.first_set {
                        // A value costs its place in the row besides its bytes.
                        self.charge(self.ncols * std::mem::size_of::<Value>())?;
                        rows_out.push(match self.expect {
                            Expect::Execute => binary_row(p, cols)?,
                            _ => text_row(p, self.ncols)?,
                        });
                    }
                    self.rows += 1;
                    Ok(None)
                }
            },
            Phase::Definitions(left) => {
                if left > 1 {
                    self.phase = Phase::Definitions(left - 1);
                    return Ok(None);
                }
                let stmt = self
                    .stmt
                    .take()
                    .ok_or_else(|| WireError::protocol("a prepare reply"))?;
                Ok(Some(Outcome::Prepared(stmt)))
            }
        }
    }

    /// An OK (or EOF) that ends a result, or the reply when no more results follow.
    fn end_of_result(&mut self, ok: OkPacket) -> Option<Outcome> {
        if ok.status.contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS) {
            self.phase = Phase::Head;
            return None;
        }
        Some(Outcome::Done(Done {
            rows: self.rows,
            affected: ok.affected,
            warnings: ok.warnings,
        }))
    }

    fn charge(&mut self, cost: usize) -> Result<(), WireError> {
        self.cost = self.cost.saturating_add(cost);
        if self.cost > MAX_REPLY {
            return Err(WireError::protocol(format!(
                "a reply larger than {} MiB",
                MAX_REPLY >> 20
            )));
        }
        Ok(())
    }
}

/// Feeds the complete packets at the start of `data` to `parse`: the bytes taken, and the
/// outcome once the reply is complete (the bytes after it are left for the next reply).
fn feed(
    parse: &mut Parse,
    data: &[u8],
    caps: CapabilityFlags,
    cols: &mut Vec<(ColumnType, ColumnFlags)>,
    rows: &mut Vec<Vec<Value>>,
) -> Result<(usize, Option<Outcome>), WireError> {
    let mut at = 0;
    while let Some((p, seq, next)) = frame(data, at)? {
        at = next;
        if let Some(outcome) = parse.step(p, seq, caps, cols, rows)? {
            return Ok((at, Some(outcome)));
        }
    }
    Ok((at, None))
}

/// A text-protocol row: each value length-encoded, 0xFB for NULL.
fn text_row(p: &[u8], ncols: usize) -> Result<Vec<Value>, WireError> {
    let mut at = 0;
    let mut row = Vec::with_capacity(ncols);
    for _ in 0..ncols {
        match lenenc(p, &mut at)? {
            None => row.push(Value::NULL),
            Some(len) => {
                let bytes = usize::try_from(len)
                    .ok()
                    .and_then(|len| at.checked_add(len))
                    .and_then(|end| p.get(at..end))
                    .ok_or_else(|| WireError::protocol("a truncated row"))?;
                at += bytes.len();
                row.push(Value::Bytes(bytes.to_vec()));
            }
        }
    }
    if at != p.len() {
        return Err(WireError::protocol("a row longer than its columns"));
    }
    Ok(row)
}

/// A COM_STMT_PREPARE's OK: the statement, and how many definition packets follow.
fn prepare_ok(p: &[u8], caps: CapabilityFlags) -> Result<(Stmt, usize), WireError> {
    let Some(f) = p.get(..9) else {
        return Err(WireError::protocol("a truncated prepare reply"));
    };
    let id = u32::from_le_bytes([f[1], f[2], f[3], f[4]]);
    let columns = usize::from(u16::from_le_bytes([f[5], f[6]]));
    let params = usize::from(u16::from_le_bytes([f[7], f[8]]));
    let eof = !caps.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF);
    let defs = [params, columns]
        .iter()
        .map(|&n| n + usize::from(eof && n > 0))
        .sum();
    Ok((Stmt { id, params }, defs))
}

/// COM_STMT_EXECUTE's body after the command byte: the statement, no cursor, one iteration,
/// the NULL bitmap, the types (sent every time), the values.
fn encode_execute(out: &mut Vec<u8>, id: u32, args: &[Arg<'_>], nulls: usize) {
    out.extend_from_slice(&id.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&1u32.to_le_bytes());
    let n = args.len() + nulls;
    if n == 0 {
        return;
    }
    let bitmap = out.len();
    out.resize(bitmap + n.div_ceil(8), 0);
    for i in 0..n {
        if args.get(i).is_none_or(|a| *a == Arg::Null) {
            out[bitmap + i / 8] |= 1 << (i % 8);
        }
    }
    out.push(1);
    for i in 0..n {
        let ty = match args.get(i) {
            Some(Arg::Int(_)) => ColumnType::MYSQL_TYPE_LONGLONG,
            Some(Arg::Text(_)) => ColumnType::MYSQL_TYPE_VAR_STRING,
            Some(Arg::Null) | None => ColumnType::MYSQL_TYPE_NULL,
        };
        out.extend_from_slice(&[ty as u8, 0]);
    }
    for a in args {
        match a {
            Arg::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
            Arg::Text(b) => {
                put_lenenc(out, b.len() as u64);
                out.extend_from_slice(b);
            }
            Arg::Null => {}
        }
    }
}

fn put_lenenc(out: &mut Vec<u8>, v: u64) {
    match v {
        0..0xFB => out.push(v as u8),
        0xFB..0x1_0000 => {
            out.push(0xFC);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..0x100_0000 => {
            out.push(0xFD);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet: header (length, sequence id) and payload.
    fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
        let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        p.push(seq);
        p.extend_from_slice(payload);
        p
    }

    fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
        put_lenenc(out, s.len() as u64);
        out.extend_from_slice(s);
    }

    fn column(name: &str, ty: ColumnType, flags: u16) -> Vec<u8> {
        let mut p = Vec::new();
        for s in ["def", "", "", "", name, ""] {
            lenenc_str(&mut p, s.as_bytes());
        }
        p.push(0x0C);
        p.extend_from_slice(&63u16.to_le_bytes());
        p.extend_from_slice(&11u32.to_le_bytes());
        p.push(ty as u8);
        p.extend_from_slice(&flags.to_le_bytes());
        p.extend_from_slice(&[0, 0, 0]);
        p
    }

    /// An OK packet (header 0x00, or 0xFE where it ends a result set) with `status`.
    fn ok(header: u8, status: StatusFlags) -> Vec<u8> {
        let mut p = vec![header, 0, 0];
        p.extend_from_slice(&status.bits().to_le_bytes());
        p.extend_from_slice(&0u16.to_le_bytes());
        p
    }

    fn err(code: u16, state: &str, message: &str) -> Vec<u8> {
        let mut p = vec![0xFF];
        p.extend_from_slice(&code.to_le_bytes());
        p.push(b'#');
        p.extend_from_slice(state.as_bytes());
        p.extend_from_slice(message.as_bytes());
        p
    }

    fn caps() -> CapabilityFlags {
        CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_DEPRECATE_EOF
    }

    /// The reply to a COM_QUERY (text rows) or COM_STMT_EXECUTE (`binary`) at the start of
    /// `data`, read whole: the bytes it takes and the outcome, None when incomplete.
    fn results(
        data: &[u8],
        caps: CapabilityFlags,
        binary: bool,
        cols: &mut Vec<(ColumnType, ColumnFlags)>,
        rows: &mut Vec<Vec<Value>>,
    ) -> Result<Option<(usize, Outcome)>, WireError> {
        let expect = if binary {
            Expect::Execute
        } else {
            Expect::Query
        };
        let mut parse = Parse::new(expect);
        rows.clear();
        let (used, outcome) = feed(&mut parse, data, caps, cols, rows)?;
        Ok(outcome.map(|o| (used, o)))
    }

    fn prepared(data: &[u8], caps: CapabilityFlags) -> Result<Option<(usize, Outcome)>, WireError> {
        let mut parse = Parse::new(Expect::Prepare);
        let (used, outcome) = feed(&mut parse, data, caps, &mut Vec::new(), &mut Vec::new())?;
        Ok(outcome.map(|o| (used, o)))
    }

    /// The same reply arriving in pieces of `piece` bytes, parsed as `Wire::reply` does:
    /// what it says, and how many packets were parsed in all (each exactly once).
    fn in_pieces(
        data: &[u8],
        piece: usize,
        expect: Expect,
    ) -> Result<(Outcome, Vec<Vec<Value>>), WireError> {
        let mut parse = Parse::new(expect);
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        let mut pending = Vec::new();
        for chunk in data.chunks(piece) {
            pending.extend_from_slice(chunk);
            let (used, outcome) = feed(&mut parse, &pending, caps(), &mut cols, &mut rows)?;
            pending.drain(..used);
            if let Some(o) = outcome {
                assert!(pending.is_empty(), "bytes left after the reply");
                return Ok((o, rows));
            }
        }
        panic!("the reply never completed");
    }

    fn done(rows: usize) -> Done {
        Done {
            rows,
            ..Done::default()
        }
    }

    /// What MariaDB sends for `CALL SLEV(?, ?, ?, ?)` executed as a prepared statement: the
    /// OUT parameter as a one-row binary result set, then the CALL's own OK.
    fn call_reply() -> Vec<u8> {
        let more = StatusFlags::SERVER_MORE_RESULTS_EXISTS | StatusFlags::SERVER_PS_OUT_PARAMS;
        let mut r = packet(1, &[3]);
        r.extend(packet(
            2,
            &column("stock_count", ColumnType::MYSQL_TYPE_LONG, 0),
        ));
        r.extend(packet(
            3,
            &column("balance", ColumnType::MYSQL_TYPE_NEWDECIMAL, 0),
        ));
        r.extend(packet(
            4,
            &column("note", ColumnType::MYSQL_TYPE_VAR_STRING, 0),
        ));
        // The row: 0x00, bitmap (3 columns + 2 bits: one byte, column 2 NULL), the values.
        let mut row = vec![0x00, 1 << (2 + 2)];
        row.extend_from_slice(&42i32.to_le_bytes());
        lenenc_str(&mut row, b"-12.34");
        r.extend(packet(5, &row));
        r.extend(packet(6, &ok(0xFE, more)));
        r.extend(packet(7, &ok(0x00, StatusFlags::SERVER_STATUS_AUTOCOMMIT)));
        r
    }

    #[test]
    fn a_call_reply_gives_its_out_parameters() {
        let data = call_reply();
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let (used, outcome) = results(&data, caps(), true, &mut cols, &mut row)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(outcome, Outcome::Done(d) if d == done(1)));
        assert_eq!(
            row,
            [vec![
                Value::Int(42),
                Value::Bytes(b"-12.34".to_vec()),
                Value::NULL
            ]]
        );
        // Any prefix is incomplete, and says so rather than failing.
        for cut in 0..data.len() {
            let r = results(&data[..cut], caps(), true, &mut cols, &mut row).expect("readable");
            assert!(r.is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn eof_packets_end_result_sets_without_deprecate_eof() {
        let more = StatusFlags::SERVER_MORE_RESULTS_EXISTS;
        let eof = |status: StatusFlags| {
            let mut p = vec![0xFE, 0, 0];
            p.extend_from_slice(&status.bits().to_le_bytes());
            p
        };
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONGLONG, 0)));
        data.extend(packet(3, &eof(StatusFlags::empty())));
        let mut row = vec![0x00, 0];
        row.extend_from_slice(&7i64.to_le_bytes());
        data.extend(packet(4, &row));
        data.extend(packet(5, &eof(more)));
        data.extend(packet(6, &ok(0x00, StatusFlags::empty())));
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let (used, outcome) = results(
            &data,
            CapabilityFlags::CLIENT_PROTOCOL_41,
            true,
            &mut cols,
            &mut row,
        )
        .expect("readable")
        .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(outcome, Outcome::Done(d) if d == done(1)));
        assert_eq!(row, [vec![Value::Int(7)]]);
    }

    #[test]
    fn server_errors_are_classified_by_code_and_state() {
        let cases = [
            (1213, "40001", "Deadlock found", Failure::Retry),
            (1205, "HY000", "Lock wait timeout exceeded", Failure::Retry),
            (1644, "40001", "hammer test: try again", Failure::Retry),
            (1927, "70100", "Connection was killed", Failure::Lost),
            (1045, "28000", "Access denied", Failure::Auth),
            (1644, "45000", "customer 3001 not found", Failure::Other),
        ];
        for (code, state, message, kind) in cases {
            // An error may come first or after a result set.
            let mut late = packet(1, &[1]);
            late.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
            late.extend(packet(3, &err(code, state, message)));
            for data in [packet(1, &err(code, state, message)), late] {
                let (mut cols, mut row) = (Vec::new(), Vec::new());
                let (used, outcome) = results(&data, caps(), true, &mut cols, &mut row)
                    .expect("readable")
                    .expect("complete");
                assert_eq!(used, data.len());
                match outcome {
                    Outcome::Error(e) => assert_eq!(
                        e,
                        WireError {
                            kind,
                            detail: message.into(),
                            code,
                        }
                    ),
                    _ => panic!("{code}: not an error"),
                }
            }
        }
    }

    #[test]
    fn a_prepare_reply_skips_its_definitions() {
        let mut data = Vec::new();
        let mut head = vec![0x00];
        head.extend_from_slice(&7u32.to_le_bytes());
        head.extend_from_slice(&0u16.to_le_bytes());
        head.extend_from_slice(&2u16.to_le_bytes());
        head.extend_from_slice(&[0, 0, 0]);
        data.extend(packet(1, &head));
        data.extend(packet(2, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
        data.extend(packet(3, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
        let (used, outcome) = prepared(&data, caps())
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(matches!(
            outcome,
            Outcome::Prepared(Stmt { id: 7, params: 2 })
        ));
        assert!(prepared(&data[..data.len() - 1], caps())
            .expect("readable")
            .is_none());
        // Without CLIENT_DEPRECATE_EOF an EOF follows the parameters.
        let mut old = data.clone();
        old.extend(packet(4, &[0xFE, 0, 0, 2, 0]));
        let (used, _) = prepared(&old, CapabilityFlags::CLIENT_PROTOCOL_41)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, old.len());
    }

    #[test]
    fn an_execute_request_binds_its_values() {
        let mut out = Vec::new();
        encode_execute(&mut out, 5, &[Arg::Int(-2), Arg::Text(b"ab"), Arg::Null], 8);
        let mut expected = vec![5, 0, 0, 0, 0, 1, 0, 0, 0];
        // 11 parameters: the third and the last eight are NULL.
        expected.extend_from_slice(&[0b1111_1100, 0b0000_0111, 1]);
        expected.extend_from_slice(&[0x08, 0, 0xFD, 0]);
        for _ in 0..9 {
            expected.extend_from_slice(&[0x06, 0]);
        }
        expected.extend_from_slice(&(-2i64).to_le_bytes());
        expected.extend_from_slice(&[2, b'a', b'b']);
        assert_eq!(out, expected);
    }

    #[test]
    fn lengths_round_trip() {
        for v in [
            0,
            250,
            251,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc(&mut out, v);
            let mut at = 0;
            assert_eq!(lenenc(&out, &mut at).expect("length"), Some(v));
            assert_eq!(at, out.len());
        }
        assert!(lenenc(&[0xFC, 1], &mut 0).is_err());
        assert!(frame(&[0xFF, 0xFF, 0xFF, 0], 0).is_err());
    }

    /// A binary result set of `n` rows (an id and a DECIMAL each) and its terminator.
    fn rows_reply(first_seq: u8, n: i64, status: StatusFlags) -> Vec<u8> {
        let mut r = packet(first_seq, &[2]);
        r.extend(packet(
            first_seq + 1,
            &column("id", ColumnType::MYSQL_TYPE_LONGLONG, 0),
        ));
        r.extend(packet(
            first_seq + 2,
            &column("price", ColumnType::MYSQL_TYPE_NEWDECIMAL, 0),
        ));
        for i in 0..n {
            let mut row = vec![0x00, 0];
            row.extend_from_slice(&i.to_le_bytes());
            lenenc_str(&mut row, format!("{i}.50").as_bytes());
            r.extend(packet(first_seq + 3 + i as u8, &row));
        }
        r.extend(packet(first_seq + 3 + n as u8, &ok(0xFE, status)));
        r
    }

    #[test]
    fn every_row_of_the_first_result_set_is_kept() {
        let n = 15;
        let want: Vec<Vec<Value>> = (0..n)
            .map(|i| vec![Value::Int(i), Value::Bytes(format!("{i}.50").into_bytes())])
            .collect();
        // One result set; then one followed by a second, whose rows are only counted.
        let one = rows_reply(1, n, StatusFlags::empty());
        let mut two = rows_reply(1, n, StatusFlags::SERVER_MORE_RESULTS_EXISTS);
        two.extend(rows_reply(1 + 3 + n as u8 + 1, 2, StatusFlags::empty()));
        for (data, total) in [(one, n as usize), (two, n as usize + 2)] {
            let (mut cols, mut rows) = (Vec::new(), Vec::new());
            let (used, outcome) = results(&data, caps(), true, &mut cols, &mut rows)
                .expect("readable")
                .expect("complete");
            assert_eq!(used, data.len());
            assert!(matches!(outcome, Outcome::Done(d) if d == done(total)));
            assert_eq!(rows, want);
            // Any prefix is incomplete; arriving in pieces of any size, the reply reads
            // the same.
            for cut in 0..data.len() {
                let r = results(&data[..cut], caps(), true, &mut cols, &mut rows);
                assert!(r.expect("readable").is_none(), "cut at {cut}");
            }
            for piece in [1, 2, 3, 7, 64, data.len()] {
                let (outcome, rows) = in_pieces(&data, piece, Expect::Execute).expect("readable");
                assert!(matches!(outcome, Outcome::Done(d) if d == done(total)));
                assert_eq!(rows, want, "in pieces of {piece}");
            }
        }
        // An error after some rows is the reply.
        let mut data = rows_reply(1, 3, StatusFlags::empty());
        data.truncate(data.len() - 11);
        data.extend(packet(
            7,
            &err(1317, "70100", "Query execution was interrupted"),
        ));
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        let (used, outcome) = results(&data, caps(), true, &mut cols, &mut rows)
            .expect("readable")
            .expect("complete");
        assert_eq!(used, data.len());
        assert!(
            matches!(&outcome, Outcome::Error(e) if e.detail == "Query execution was interrupted"),
            "{outcome:?}"
        );
    }

    /// A text result set of `rows`, each value given (None for NULL), with its terminator.
    fn text_reply(names: &[&str], rows: &[Vec<Option<&str>>]) -> Vec<u8> {
        let mut seq = 1u8;
        let mut next = || {
            seq = seq.wrapping_add(1);
            seq - 1
        };
        let mut r = packet(next(), &[names.len() as u8]);
        for name in names {
            r.extend(packet(
                next(),
                &column(name, ColumnType::MYSQL_TYPE_VAR_STRING, 0),
            ));
        }
        for row in rows {
            let mut p = Vec::new();
            for v in row {
                match v {
                    None => p.push(0xFB),
                    Some(v) => lenenc_str(&mut p, v.as_bytes()),
                }
            }
            r.extend(packet(next(), &p));
        }
        let mut end = vec![0xFE, 0, 0];
        end.extend_from_slice(&StatusFlags::SERVER_STATUS_AUTOCOMMIT.bits().to_le_bytes());
        end.extend_from_slice(&3u16.to_le_bytes());
        r.extend(packet(next(), &end));
        r
    }

    #[test]
    fn text_rows_are_kept_as_text() {
        let data = text_reply(
            &["Variable_name", "Value"],
            &[
                vec![Some("Com_commit"), Some("12")],
                vec![Some("Uptime"), None],
                vec![Some(""), Some(&"x".repeat(300))],
            ],
        );
        let b = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let want = vec![
            vec![b("Com_commit"), b("12")],
            vec![b("Uptime"), Value::NULL],
            vec![b(""), b(&"x".repeat(300))],
        ];
        for piece in [1, 5, data.len()] {
            let (outcome, rows) = in_pieces(&data, piece, Expect::Query).expect("readable");
            assert!(matches!(outcome, Outcome::Done(d) if d.rows == 3 && d.warnings == 3));
            assert_eq!(rows, want);
        }
        // A row with a value too many, or too few.
        for bad in [&[1u8, b'a', 1, b'b', 1, b'c'][..], &[1, b'a']] {
            let mut data = text_reply(&["a", "b"], &[]);
            let end = data.split_off(data.len() - 11);
            data.extend(packet(4, bad));
            data.extend(packet(5, &end[4..]));
            let e = in_pieces(&data, data.len(), Expect::Query).expect_err("bad row");
            assert_eq!(e.kind, Failure::Lost);
        }
    }

    #[test]
    fn an_ok_says_what_it_changed() {
        let mut ok = vec![0x00];
        put_lenenc(&mut ok, 100_000);
        ok.push(0);
        ok.extend_from_slice(&StatusFlags::SERVER_STATUS_AUTOCOMMIT.bits().to_le_bytes());
        ok.extend_from_slice(&2u16.to_le_bytes());
        let (outcome, _) = in_pieces(&packet(1, &ok), 1, Expect::Query).expect("readable");
        assert!(matches!(
            outcome,
            Outcome::Done(Done {
                rows: 0,
                affected: 100_000,
                warnings: 2
            })
        ));
    }

    #[test]
    fn sequence_ids_are_checked_on_every_packet() {
        let data = call_reply();
        // Each packet in turn numbered one too high, or repeated from the one before.
        let mut at = 0;
        let mut k = 0;
        while at < data.len() {
            let len = usize::from(data[at]) | usize::from(data[at + 1]) << 8;
            for wrong in [data[at + 3].wrapping_add(1), data[at + 3].wrapping_sub(1)] {
                let mut bad = data.clone();
                bad[at + 3] = wrong;
                let e = in_pieces(&bad, 3, Expect::Execute).expect_err("wrong sequence id");
                assert_eq!(e.kind, Failure::Lost, "packet {k}");
                assert!(e.detail.contains("sequence id"), "{}", e.detail);
            }
            at += 4 + len;
            k += 1;
        }
        // Sequence ids wrap at 256.
        let mut parse = Parse::new(Expect::Query);
        parse.seq = 255;
        let (mut cols, mut rows) = (Vec::new(), Vec::new());
        let mut data = packet(255, &[1]);
        data.extend(packet(0, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
        data.extend(packet(1, &ok(0xFE, StatusFlags::empty())));
        let (used, outcome) = feed(&mut parse, &data, caps(), &mut cols, &mut rows).expect("ok");
        assert_eq!(used, data.len());
        assert!(outcome.is_some());
    }

    #[test]
    fn a_huge_column_count_is_refused_at_once() {
        for n in [u64::MAX, 1 << 62, MAX_COLUMNS as u64 + 1, 0] {
            let mut head = Vec::new();
            if n == 0 {
                // 0 would be an OK packet; 0xFC 0 0 is a length of 0 spelt long.
                head.extend_from_slice(&[0xFC, 0, 0]);
            } else {
                put_lenenc(&mut head, n);
            }
            let e = in_pieces(&packet(1, &head), 1, Expect::Query).expect_err("refused");
            assert_eq!(e.kind, Failure::Lost);
        }
    }

    #[test]
    fn a_local_infile_request_is_answered_only_when_asked_for() {
        let request = packet(1, b"\xfbtpcc.tsv");
        let e = in_pieces(&request, 4, Expect::Query).expect_err("not asked for");
        assert!(e.detail.contains("LOCAL INFILE"), "{}", e.detail);
        let mut parse = Parse::new(Expect::Query);
        parse.infile = true;
        let (used, outcome) = feed(
            &mut parse,
            &request,
            caps(),
            &mut Vec::new(),
            &mut Vec::new(),
        )
        .expect("asked");
        assert_eq!(used, request.len());
        assert!(matches!(outcome, Some(Outcome::Infile)));
        assert_eq!(parse.seq, 2);
    }

    #[test]
    fn garbage_is_a_lost_connection_not_a_panic() {
        let (mut cols, mut row) = (Vec::new(), Vec::new());
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &[0x01]));
        let e = results(&data, caps(), true, &mut cols, &mut row).expect_err("garbage");
        assert_eq!(e.kind, Failure::Lost);
        let mut data = packet(1, &[1]);
        data.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
        data.extend(packet(3, &[0x00, 0, 1]));
        let e = results(&data, caps(), true, &mut cols, &mut row).expect_err("short row");
        assert_eq!(e.kind, Failure::Lost);
    }

    /// Random and mutated replies to every parser: no panic, and never more kept than the
    /// reply's cost allows.
    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Valid replies of every kind, to mutate.
        fn seeds() -> Vec<(Expect, Vec<u8>)> {
            let mut prepare = Vec::new();
            let mut head = vec![0x00];
            head.extend_from_slice(&7u32.to_le_bytes());
            head.extend_from_slice(&1u16.to_le_bytes());
            head.extend_from_slice(&1u16.to_le_bytes());
            head.extend_from_slice(&[0, 0, 0]);
            prepare.extend(packet(1, &head));
            prepare.extend(packet(2, &column("?", ColumnType::MYSQL_TYPE_NULL, 0)));
            prepare.extend(packet(3, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
            vec![
                (Expect::Execute, call_reply()),
                (Expect::Execute, rows_reply(1, 4, StatusFlags::empty())),
                (
                    Expect::Query,
                    text_reply(&["a", "b"], &[vec![Some("x"), None], vec![None, Some("y")]]),
                ),
                (
                    Expect::Query,
                    packet(1, &err(1213, "40001", "Deadlock found")),
                ),
                (Expect::Prepare, prepare),
            ]
        }

        fn expect_of(k: u8) -> Expect {
            match k % 4 {
                0 => Expect::Query,
                1 => Expect::Execute,
                2 => Expect::Prepare,
                _ => Expect::Nothing,
            }
        }

        /// Feeds `data` in pieces of `piece` bytes as `Wire::reply` does; checks the bounds.
        fn check(data: &[u8], piece: usize, expect: Expect, caps: CapabilityFlags, infile: bool) {
            let mut parse = Parse::new(expect);
            parse.infile = infile;
            let (mut cols, mut rows) = (Vec::new(), Vec::new());
            let mut pending = Vec::new();
            for chunk in data.chunks(piece.max(1)) {
                pending.extend_from_slice(chunk);
                match feed(&mut parse, &pending, caps, &mut cols, &mut rows) {
                    Ok((used, outcome)) => {
                        assert!(used <= pending.len());
                        pending.drain(..used);
                        if outcome.is_some() {
                            break;
                        }
                    }
                    Err(e) => {
                        assert_eq!(e.kind, Failure::Lost, "{e:?}");
                        break;
                    }
                }
            }
            let kept: usize = rows.iter().map(Vec::len).sum();
            assert!(kept * std::mem::size_of::<Value>() <= parse.cost);
            assert!(parse.cost <= MAX_REPLY);
            assert!(cols.len() <= MAX_COLUMNS);
        }

        fn caps_of(deprecate_eof: bool) -> CapabilityFlags {
            if deprecate_eof {
                caps()
            } else {
                CapabilityFlags::CLIENT_PROTOCOL_41
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

            #[test]
            fn random_bytes(
                data in proptest::collection::vec(any::<u8>(), 0..600),
                piece in 1usize..64,
                k in any::<u8>(),
                eof in any::<bool>(),
                infile in any::<bool>(),
            ) {
                check(&data, piece, expect_of(k), caps_of(eof), infile);
            }

            #[test]
            fn random_packets(
                payloads in proptest::collection::vec(
                    proptest::collection::vec(any::<u8>(), 0..80), 0..12),
                piece in 1usize..64,
                k in any::<u8>(),
                eof in any::<bool>(),
            ) {
                // Well framed and numbered, so the parsers behind the framing see them.
                let mut data = Vec::new();
                for (i, p) in payloads.iter().enumerate() {
                    data.extend(packet(i as u8 + 1, p));
                }
                check(&data, piece, expect_of(k), caps_of(eof), false);
            }

            #[test]
            fn mutated_replies(
                which in any::<prop::sample::Index>(),
                edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..6),
                piece in 1usize..64,
                eof in any::<bool>(),
            ) {
                let seeds = seeds();
                let (expect, mut data) = seeds[which.index(seeds.len())].clone();
                for (at, byte, how) in edits {
                    if data.is_empty() {
                        break;
                    }
                    let i = at.index(data.len());
                    match how {
                        0 => data[i] = byte,
                        1 => data[i] ^= 1 << (byte % 8),
                        2 => data.insert(i, byte),
                        _ => data.truncate(i),
                    }
                }
                check(&data, piece, expect, caps_of(eof), false);
            }

            #[test]
            fn field_parsers(p in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..40) {
                let mut at = 0;
                let _ = lenenc(&p, &mut at);
                assert!(at <= p.len() + 9);
                let _ = ok_packet(&p);
                let _ = eof_status(&p);
                let _ = server_error(&p, caps());
                let _ = server_error(&p, CapabilityFlags::empty());
                let _ = prepare_ok(&p, caps());
                let _ = text_row(&p, n);
                if let Ok(col) = column_type(&p) {
                    let _ = binary_row(&p, &vec![col; n.min(8)]);
                }
                let _ = frame(&p, 0);
                let _ = frame(&p, usize::MAX - 2);
            }

            #[test]
            fn binary_rows_of_every_type(
                p in proptest::collection::vec(any::<u8>(), 0..64),
                ty in any::<u8>(),
                flags in any::<u16>(),
            ) {
                if let Ok(ty) = ColumnType::try_from(ty) {
                    let col = (ty, ColumnFlags::from_bits_truncate(flags));
                    let mut row = vec![0x00, 0];
                    row.extend_from_slice(&p);
                    let _ = binary_row(&row, &[col, col]);
                }
            }

            #[test]
            fn greetings(
                version in "[0-9a-zA-Z.-]{0,20}",
                fixed in proptest::collection::vec(any::<u8>(), 31),
                tail in proptest::collection::vec(any::<u8>(), 0..300),
            ) {
                // Greeting-shaped packets, so the parser gets past its first fields.
                let mut p = vec![10];
                p.extend_from_slice(version.as_bytes());
                p.push(0);
                p.extend_from_slice(&fixed);
                p.extend_from_slice(&tail);
                if greeting_parsable(&p).is_ok() {
                    if let Ok(hs) = ParseBuf(&p).parse::<HandshakePacket>(()) {
                        let mut nonce = hs.scramble_1_ref().to_vec();
                        nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
                        let _ = hs.maria_db_server_version_parsed();
                        let _ = hs.server_version_parsed();
                        let _ = hs.auth_plugin();
                        let _ = AuthPlugin::CachingSha2Password.gen_data(Some("pw"), &nonce);
                    }
                }
            }

            #[test]
            fn handshake_packets(p in proptest::collection::vec(any::<u8>(), 0..200)) {
                // What the connection phase hands to mysql_common's parsers and scrambles.
                let parsable = greeting_parsable(&p).is_ok();
                if let Some(hs) = parsable
                    .then(|| ParseBuf(&p).parse::<HandshakePacket>(()).ok())
                    .flatten()
                {
                    let mut nonce = hs.scramble_1_ref().to_vec();
                    nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
                    let _ = hs.capabilities();
                    let _ = hs.maria_db_server_version_parsed();
                    let _ = hs.server_version_parsed();
                    let _ = hs.auth_plugin();
                    for plugin in [AuthPlugin::MysqlNativePassword, AuthPlugin::CachingSha2Password] {
                        let _ = plugin.gen_data(Some("pw"), &nonce);
                    }
                }
                if let Ok(r) = ParseBuf(&p).parse::<AuthSwitchRequest>(()) {
                    let plugin = r.auth_plugin().into_owned();
                    if matches!(plugin, AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password) {
                        let _ = plugin.gen_data(Some("pw"), r.plugin_data());
                    }
                }
            }
        }

        #[test]
        fn a_large_reply_dripped_in_small_pieces_is_read_in_one_pass() {
            // 4 MiB of rows, 64 bytes at a time: each packet is parsed once.
            let row = {
                let mut p = Vec::new();
                lenenc_str(&mut p, &[b'x'; 1000]);
                p
            };
            let mut data = packet(1, &[1]);
            data.extend(packet(
                2,
                &column("v", ColumnType::MYSQL_TYPE_VAR_STRING, 0),
            ));
            let n = 4 * 1024;
            let mut seq = 3u8;
            for _ in 0..n {
                data.extend(packet(seq, &row));
                seq = seq.wrapping_add(1);
            }
            data.extend(packet(seq, &ok(0xFE, StatusFlags::empty())));
            let started = std::time::Instant::now();
            let (outcome, rows) = in_pieces(&data, 64, Expect::Query).expect("readable");
            assert!(matches!(outcome, Outcome::Done(d) if d.rows == n));
            assert_eq!(rows.len(), n);
            // Re-parsing from the start on every piece took minutes here; one pass, well
            // under a second even unoptimised.
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "{:?}",
                started.elapsed()
            );
        }
    }
}
