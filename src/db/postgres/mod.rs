//! The PostgreSQL family: its logins and connection (this file), what differs between its
//! databases (`dialect`, one [`dialect::PgDialect`] each), its answers to the engine contract
//! (`engine`), its wire client (`wire`), TPROC-C's schema builder (`schema`) and driver
//! (`driver`), TPROC-H's schema (`schema::tpch`; its queries run over `script`'s plain SQL
//! connection), the transaction counter's reading (`counter`) and the password file (`pgpass`).
//!
//! PostgreSQL through tokio-postgres: logins from the `pg` dictionary at the endpoint
//! `crate::endpoint` gives (host or socket directory, port, `pg_sslmode`), over a
//! socket hammer opens itself (TLS per `pg_sslmode`, keepalive on, under the kill switch),
//! authentication held to `pg_require_auth`, and errors classified with the driver's own
//! SQLSTATE codes.
//!
//! tokio-postgres would answer any authentication request the server makes, and under
//! `sslmode=prefer` a server that refuses TLS still gets a cleartext password on request. So
//! hammer sends the TLS request and runs the handshake itself, and hands tokio-postgres a
//! stream that reads the server's authentication request before tokio-postgres does: a method
//! the user did not allow ends the login there, before any password is sent.

pub mod counter;
pub mod dialect;
pub mod driver;
pub mod engine;
pub mod pgpass;
pub mod schema;
pub mod script;
pub mod wire;

use wire::SslAnswer;

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio::task::JoinHandle;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls};

use crate::config::{Database, Settings};
use crate::db::engine::ServerInfo;
use crate::db::net::sock::{Bounds, KillSwitch};
use crate::db::net::{io_failure, io_source, CONNECT_TIMEOUT};
use crate::db::postgres::dialect::PgDialect;
use crate::endpoint::{
    addr, Destination, Endpoint, Position, Role, Route, SessionAttrs, Tls, Walked,
};
use crate::fault::{DbError, Failure, Peer};

/// One PostgreSQL login: server, role, password, database, TLS and authentication rules, and
/// the bounds of its waits.
#[derive(Clone)]
pub struct PgTarget {
    /// Which database of the family this login is for: its dictionary and key prefix.
    pub db: Database,
    pub host: String,
    pub port: u16,
    /// The servers to try after this one when it does not answer or is not what `attrs`
    /// asks ([`PgTarget::routed`]); empty for a target aimed at one server.
    pub also: Vec<Endpoint>,
    /// What a server must be to be kept (`pg_target_session_attrs`).
    pub attrs: SessionAttrs,
    pub user: String,
    /// The dictionary's password key; empty means libpq's ways (`PGPASSWORD`, the password
    /// file), which [`PgTarget::login_password`] follows.
    pub password: String,
    pub dbname: String,
    pub sslmode: String,
    /// The CA file for `verify-ca` and `verify-full` (libpq's `sslrootcert`); empty means
    /// libpq's default, `~/.postgresql/root.crt`.
    pub sslrootcert: String,
    /// libpq's `require_auth`: the methods the server may ask for (empty: any, but a
    /// cleartext password only over TLS or a unix socket).
    pub require_auth: String,
    pub bounds: Bounds,
}

impl std::fmt::Debug for PgTarget {
    // Written out so that the password can never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgTarget")
            .field("addr", &addr(&self.host, self.port))
            .field("user", &self.user)
            .field("dbname", &self.dbname)
            .field("sslmode", &self.sslmode)
            .finish()
    }
}

impl PgTarget {
    /// The login that `db`'s dictionary names with the keys `{prefix}_{user}`, `{prefix}_{pass}`
    /// and `{prefix}_{dbname}`, at the endpoint of the session's own connections
    /// ([`Position::Session`]); [`PgTarget::at`] moves it.
    fn from_dict(settings: &Settings, db: Database, user: &str, pass: &str, dbname: &str) -> Self {
        let to = Destination::of(settings, db);
        Self::from_dict_at(
            settings,
            db,
            to.for_position(Position::Session),
            user,
            pass,
            dbname,
        )
        .routed(&to.route(Position::Session))
    }

    /// As [`PgTarget::from_dict`], to the endpoint `at`.
    pub(crate) fn from_dict_at(
        settings: &Settings,
        db: Database,
        at: &Endpoint,
        user: &str,
        pass: &str,
        dbname: &str,
    ) -> Self {
        let d = settings.db(db);
        let key = |name: &str| d.get(&db.key(name)).to_string();
        PgTarget {
            db,
            host: String::new(),
            port: 0,
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            user: key(user),
            password: key(pass),
            dbname: key(dbname),
            sslmode: String::new(),
            sslrootcert: String::new(),
            require_auth: key("require_auth"),
            bounds: Bounds {
                reply_timeout: Duration::from_secs(
                    d.get_i64(&db.key("reply_timeout")).max(1) as u64
                ),
                kill: KillSwitch::default(),
            },
        }
        .at(at)
    }

    /// The same login along `route`: to its first server, then the others in turn, keeping
    /// the first that is what the route's attributes ask.
    pub fn routed(self, route: &Route) -> Self {
        let mut t = self.at(&route.tries[0]);
        t.also = route.tries[1..].to_vec();
        t.attrs = route.attrs;
        t
    }

    /// The servers this target tries, in order: itself, then each of [`PgTarget::also`],
    /// each aimed at its one server.
    pub fn tries(&self) -> Vec<PgTarget> {
        let one = self.clone().at_only();
        let mut all = vec![one.clone()];
        all.extend(self.also.iter().map(|e| one.clone().at(e)));
        all
    }

    fn at_only(self) -> Self {
        PgTarget {
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            ..self
        }
    }

    /// The same login to the endpoint `at` alone: its host (or socket directory), port and
    /// `pg_sslmode` choice.
    pub fn at(self, at: &Endpoint) -> Self {
        let (sslmode, sslrootcert) = match &at.tls {
            Tls::Mode { sslmode, rootcert } => (sslmode.clone(), rootcert.clone()),
            // Not a PostgreSQL dictionary's endpoint: its TLS keys say nothing here.
            Tls::Off | Tls::Required(_) => (self.sslmode, self.sslrootcert),
        };
        PgTarget {
            host: at.host.clone(),
            port: at.port,
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            sslmode,
            sslrootcert,
            ..self
        }
    }

    /// The superuser on its default database: what creates schemas and reads server counters.
    pub fn admin_of(settings: &Settings, db: Database) -> Self {
        Self::from_dict(settings, db, "superuser", "superuserpass", "defaultdbase")
    }

    /// The schema owner on the schema's database: what the workload runs as.
    pub fn owner_of(settings: &Settings, db: Database) -> Self {
        Self::from_dict(settings, db, "user", "pass", "dbase")
    }

    /// The password this login sends: the dictionary's, else `PGPASSWORD` or the password
    /// file's line for this host, port, database and user (libpq's order), else none (empty).
    /// Looked up at each login, with the database it connects to.
    pub fn login_password(&self) -> String {
        if !self.password.is_empty() {
            return self.password.clone();
        }
        pgpass::lookup(pgpass::Login {
            host: &self.host,
            port: self.port,
            dbname: &self.dbname,
            user: &self.user,
        })
        .unwrap_or_default()
    }

    /// A refused login's detail, with where the password came from when the dictionary gave
    /// none (never the password itself).
    pub(crate) fn refused(&self, kind: Failure, detail: String) -> String {
        if kind != Failure::Auth || !self.password.is_empty() {
            return detail;
        }
        let looked = pgpass::looked_in(pgpass::Login {
            host: &self.host,
            port: self.port,
            dbname: &self.dbname,
            user: &self.user,
        });
        format!("{detail}; {looked}")
    }

    /// This login's key `name` as its dictionary spells it (`pg_sslmode`).
    pub fn key(&self, name: &str) -> String {
        self.db.key(name)
    }

    /// The same login, its connections under `kill`.
    pub fn with_kill_switch(self, kill: &KillSwitch) -> Self {
        PgTarget {
            bounds: Bounds {
                kill: kill.clone(),
                ..self.bounds
            },
            ..self
        }
    }

    pub fn peer(&self) -> Peer {
        Peer {
            db: self.db,
            addr: addr(&self.host, self.port),
            user: self.user.clone(),
        }
    }

    /// The unix socket of the server, when `pg_host` is a directory (libpq's rule).
    pub(super) fn socket_path(&self) -> Option<String> {
        self.host
            .starts_with('/')
            .then(|| format!("{}/.s.PGSQL.{}", self.host, self.port))
    }

    fn config(&self) -> Config {
        let mut c = Config::new();
        c.host(&self.host)
            .port(self.port)
            .user(&self.user)
            .password(self.login_password())
            .dbname(&self.dbname)
            .application_name("hammer")
            .connect_timeout(CONNECT_TIMEOUT)
            // hammer has made the socket and the TLS session already.
            .ssl_mode(tokio_postgres::config::SslMode::Disable);
        c
    }

    /// The TLS settings `pg_sslmode` asks for, or why they cannot be had.
    pub(super) fn tls_config(&self) -> Result<Arc<rustls::ClientConfig>, String> {
        match self.sslmode.as_str() {
            "verify-ca" | "verify-full" => {
                let ca = self.root_cert()?;
                let trust = crate::db::net::tls::Trust::Ca {
                    file: &ca,
                    names: self.sslmode == "verify-full",
                    way_out: format!(
                        "connect by a name the certificate has ({}), or set {} verify-ca to \
                         check the chain only",
                        self.key("host"),
                        self.key("sslmode")
                    ),
                };
                crate::db::net::tls::client_config(trust, None)
                    .map(Arc::new)
                    .map_err(|e| format!("{e} ({})", self.key("sslrootcert")))
            }
            _ => Ok(crate::db::net::tls::encrypt_only_shared()),
        }
    }

    fn root_cert(&self) -> Result<PathBuf, String> {
        if !self.sslrootcert.is_empty() {
            return Ok(PathBuf::from(&self.sslrootcert));
        }
        let default = dirs::home_dir().map(|h| h.join(".postgresql/root.crt"));
        match default {
            Some(path) if path.exists() => Ok(path),
            _ => Err(format!(
                "{} {} checks the server's certificate against a CA: set {} to the CA file \
                 (there is no ~/.postgresql/root.crt either)",
                self.key("sslmode"),
                self.sslmode,
                self.key("sslrootcert")
            )),
        }
    }

    /// The server name the certificate must carry (`verify-full`), or any valid name.
    pub(super) fn server_name(&self) -> Result<ServerName<'static>, String> {
        match ServerName::try_from(self.host.clone()) {
            Ok(name) => Ok(name),
            Err(_) if self.sslmode != "verify-full" => {
                Ok(ServerName::try_from("localhost").expect("a valid name"))
            }
            Err(e) => Err(format!(
                "{} {} cannot be checked against a certificate: {e}",
                self.key("host"),
                self.host
            )),
        }
    }

    /// Whether TLS must be had (no plaintext fallback).
    pub(super) fn tls_required(&self) -> bool {
        matches!(
            self.sslmode.as_str(),
            "require" | "verify-ca" | "verify-full"
        )
    }

    pub(super) fn policy(&self) -> AuthPolicy {
        AuthPolicy {
            allowed: self.require_auth.clone(),
            prefix: self.db.prefix(),
        }
    }
}

/// How the server asks the client to prove who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// No password asked (trust, peer).
    None,
    /// The password in clear text.
    Password,
    Md5,
    ScramSha256,
}

impl AuthMethod {
    /// The method an AuthenticationRequest's code opens, if it opens one.
    pub fn of_code(code: i32) -> Option<AuthMethod> {
        match code {
            0 => Some(AuthMethod::None),
            3 => Some(AuthMethod::Password),
            5 => Some(AuthMethod::Md5),
            10 => Some(AuthMethod::ScramSha256),
            _ => None,
        }
    }

    fn word(self) -> &'static str {
        match self {
            AuthMethod::None => "none",
            AuthMethod::Password => "password",
            AuthMethod::Md5 => "md5",
            AuthMethod::ScramSha256 => "scram-sha-256",
        }
    }
}

/// `pg_require_auth`, as libpq reads `require_auth`: a list of allowed methods, or of
/// refused ones (`!password`); empty allows every method but a cleartext password over a
/// connection that is neither encrypted nor a unix socket.
#[derive(Debug, Clone)]
pub struct AuthPolicy {
    /// The key's value: methods allowed, or refused with `!`.
    allowed: String,
    /// The dictionary prefix, so messages name the key the user sets.
    prefix: &'static str,
}

impl AuthPolicy {
    /// Whether the login may go on with `method` over a channel that is `private` (TLS or a
    /// unix socket), or the message that says why not and what to set.
    pub fn allows(&self, method: AuthMethod, private: bool) -> Result<(), String> {
        let word = method.word();
        let p = self.prefix;
        let listed: Vec<&str> = self.allowed.split(',').filter(|w| !w.is_empty()).collect();
        if listed.is_empty() {
            if method == AuthMethod::Password && !private {
                return Err(format!(
                    "the server asks for the password in clear text over an unencrypted \
                     connection, which anyone on the path could read: hammer refuses. Use TLS \
                     ({p}_sslmode require or verify-full) or the unix socket, or set \
                     {p}_require_auth password to allow it"
                ));
            }
            return Ok(());
        }
        let negated = listed.iter().all(|w| w.starts_with('!'));
        let named = listed.iter().any(|w| w.trim_start_matches('!') == word);
        if negated == named {
            let asked = match method {
                AuthMethod::None => "no authentication".to_string(),
                m => format!("authentication method {}", m.word()),
            };
            return Err(format!(
                "the server asks for {asked}, which {p}_require_auth {} does not allow",
                self.allowed
            ));
        }
        Ok(())
    }
}

/// The largest backend message tokio-postgres is let read: hammer's queries return a few
/// rows, and a length header from a hostile server must not make it reserve gigabytes.
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// What the guard refused, carried through tokio-postgres as the source of an I/O error: an
/// authentication request hammer does not answer (`Failure::Auth`), or a message no client
/// should read (`Failure::Lost`).
#[derive(Debug)]
pub(super) struct Refusal {
    kind: Failure,
    why: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for Refusal {}

fn refused(why: impl Into<String>) -> Refusal {
    Refusal {
        kind: Failure::Auth,
        why: why.into(),
    }
}

/// A live connection; the task driving its socket ends when the client is dropped.
pub struct PgConn {
    pub client: Client,
    driver: JoinHandle<()>,
    /// Where the connection went: `host:port` or the socket directory.
    pub addr: String,
}

impl PgConn {
    /// Closes the connection and waits (briefly) for its socket task to end.
    pub async fn close(self) {
        drop(self.client);
        let mut driver = self.driver;
        if tokio::time::timeout(Duration::from_secs(5), &mut driver)
            .await
            .is_err()
        {
            driver.abort();
        }
    }
}

/// The byte stream tokio-postgres runs on.
enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

/// The stream, with the kill switch's duplicate of its socket and the check of what the
/// server says.
struct Guarded {
    inner: Stream,
    _plug: crate::db::net::sock::PlugGuard,
    guard: AuthGuard,
}

/// Reads the headers of the backend's messages as they pass: the authentication requests
/// must be one method `pg_require_auth` allows and follow its exchange in order (SCRAM to
/// its final message, whose server signature tokio-postgres checks), and no message may
/// exceed [`MAX_MESSAGE`].
struct AuthGuard {
    policy: AuthPolicy,
    private: bool,
    /// The bytes of the current message's header and code read so far.
    head: Vec<u8>,
    /// Bytes of the current message's body still to skip.
    skip: usize,
    login: Step,
}

/// Where the login stands, as the guard sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    /// No authentication request yet.
    Asked,
    /// A password (clear or MD5) was asked for: AuthenticationOk must follow.
    Password,
    /// SCRAM under way: the number of its messages seen after the first (continue, final).
    Scram(u8),
    /// Another method, which tokio-postgres refuses itself.
    Other,
    Accepted,
}

impl AuthGuard {
    /// Scans bytes the server sent.
    fn scan(&mut self, mut bytes: &[u8]) -> Result<(), Refusal> {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = self.skip.min(bytes.len());
                self.skip -= n;
                bytes = &bytes[n..];
                continue;
            }
            // Header (tag and length) and, for 'R', the 4-byte code.
            let want = if self.head.first() == Some(&b'R') {
                9
            } else {
                5
            };
            let n = (want - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.head.len() < want {
                continue;
            }
            let tag = self.head[0];
            let len = i32::from_be_bytes([self.head[1], self.head[2], self.head[3], self.head[4]]);
            let len = usize::try_from(len)
                .ok()
                .filter(|l| (4..=MAX_MESSAGE).contains(l))
                .ok_or_else(|| Refusal {
                    kind: Failure::Lost,
                    why: format!(
                        "the server sent a message of length {len}, outside 4 to {MAX_MESSAGE}"
                    ),
                })?;
            if tag == b'R' && want == 5 {
                if len < 8 {
                    return Err(refused("a truncated authentication request"));
                }
                continue; // read the code too
            }
            let body_read = self.head.len() - 5;
            let code = (tag == b'R').then(|| {
                i32::from_be_bytes([self.head[5], self.head[6], self.head[7], self.head[8]])
            });
            self.head.clear();
            self.skip = len - 4 - body_read;
            if let Some(code) = code {
                self.login = self.next(code)?;
            }
        }
        Ok(())
    }

    /// The login's next step after an authentication request `code`.
    fn next(&self, code: i32) -> Result<Step, Refusal> {
        Ok(match (self.login, code) {
            (Step::Asked, code) => {
                if let Some(method) = AuthMethod::of_code(code) {
                    self.policy.allows(method, self.private).map_err(refused)?;
                }
                match code {
                    0 => Step::Accepted,
                    3 | 5 => Step::Password,
                    10 => Step::Scram(0),
                    _ => Step::Other,
                }
            }
            (Step::Password | Step::Scram(2) | Step::Other, 0) => Step::Accepted,
            (Step::Scram(0), 11) => Step::Scram(1),
            (Step::Scram(1), 12) => Step::Scram(2),
            (Step::Scram(_), 0) => {
                return Err(refused(
                    "the server accepted the login without completing SCRAM (no server \
                     signature), so it may not be the server it claims to be: hammer refuses",
                ))
            }
            (Step::Accepted, _) => {
                return Err(refused(
                    "an authentication request after the login was accepted",
                ))
            }
            (_, other) => {
                return Err(refused(format!(
                    "an authentication request ({other}) out of turn: one method per login"
                )))
            }
        })
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = &mut *self;
        let before = buf.filled().len();
        let polled = match &mut me.inner {
            Stream::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Unix(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        };
        if let Poll::Ready(Ok(())) = &polled {
            if let Err(refusal) = me.guard.scan(&buf.filled()[before..]) {
                // Nothing of what was refused reaches tokio-postgres.
                buf.set_filled(before);
                return Poll::Ready(Err(io::Error::other(refusal)));
            }
        }
        polled
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Stream::Tcp(s) => Pin::new(s).poll_write(cx, data),
            Stream::Unix(s) => Pin::new(s).poll_write(cx, data),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, data),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Stream::Tcp(s) => Pin::new(s).poll_flush(cx),
            Stream::Unix(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Stream::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Unix(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Why the stream could not be had: said as `classify` would say it.
enum StreamError {
    Io(io::Error),
    Tls(String),
}

impl From<io::Error> for StreamError {
    fn from(e: io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// The socket, the TLS request and handshake per `pg_sslmode`.
async fn open_stream(t: &PgTarget) -> Result<Guarded, StreamError> {
    if let Some(path) = t.socket_path() {
        let s = UnixStream::connect(path).await?;
        let plug = crate::db::net::sock::plug_unix(&s, &t.bounds.kill)?;
        return Ok(Guarded {
            inner: Stream::Unix(s),
            _plug: plug,
            guard: AuthGuard::new(t, true),
        });
    }
    let mut s = TcpStream::connect((t.host.as_str(), t.port)).await?;
    s.set_nodelay(true)?;
    crate::db::net::sock::keepalive(&s)?;
    let plug = crate::db::net::sock::plug_tcp(&s, &t.bounds.kill)?;
    if t.sslmode == "disable" {
        return Ok(Guarded {
            inner: Stream::Tcp(s),
            _plug: plug,
            guard: AuthGuard::new(t, false),
        });
    }
    // The configuration first: a missing CA file is said before anything is sent.
    let config = t.tls_config().map_err(StreamError::Tls)?;
    let name = t.server_name().map_err(StreamError::Tls)?;
    s.write_all(&wire::SSL_REQUEST).await?;
    let mut answer = [0u8; 1];
    s.read_exact(&mut answer).await?;
    match wire::ssl_answer(t, answer[0]) {
        SslAnswer::Tls => {}
        SslAnswer::Plain => {
            return Ok(Guarded {
                inner: Stream::Tcp(s),
                _plug: plug,
                guard: AuthGuard::new(t, false),
            })
        }
        // This path has always called an unknown answer a TLS failure (the wire client a
        // protocol error): both stop before anything is sent.
        SslAnswer::Required(why) | SslAnswer::Unknown(why) => return Err(StreamError::Tls(why)),
    }
    let tls = tokio_rustls::TlsConnector::from(config)
        .connect(name, s)
        .await
        .map_err(|e| StreamError::Tls(tls_detail(&e)))?;
    Ok(Guarded {
        inner: Stream::Tls(Box::new(tls)),
        _plug: plug,
        guard: AuthGuard::new(t, true),
    })
}

/// A TLS handshake failure in words (rustls's error, not its I/O wrapper).
fn tls_detail(e: &io::Error) -> String {
    match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        Some(r) => format!("TLS handshake: {r}"),
        None => format!("TLS handshake: {e}"),
    }
}

impl AuthGuard {
    fn new(t: &PgTarget, private: bool) -> Self {
        AuthGuard {
            policy: t.policy(),
            private,
            head: Vec::with_capacity(9),
            skip: 0,
            login: Step::Asked,
        }
    }
}

/// Opens a connection along the target's route (its server, then [`PgTarget::also`], in
/// turn), keeping the first server that is what `pg_target_session_attrs` asks; or says in one
/// line why none was.
pub async fn connect(t: &PgTarget) -> Result<PgConn, DbError> {
    if t.also.is_empty() && !t.attrs.asks() {
        return connect_one(t).await.map(|(c, _)| c);
    }
    let tries = t.tries();
    let mut walked = Walked::default();
    for &pass in t.attrs.passes() {
        for one in &tries {
            match crate::db::net::one_try(&one.peer(), connect_one(one)).await {
                Ok((c, role)) if pass.keeps(role) => return Ok(c),
                Ok((c, role)) => {
                    walked.not_kept(&one.peer().addr, role);
                    c.close().await;
                }
                Err(e) => walked.failed(e),
            }
        }
    }
    Err(walked.into_error(&t.peer(), t.attrs))
}

/// What a server told a new connection of itself (PostgreSQL 14 and later report
/// `in_hot_standby` and `default_transaction_read_only`; an older one counts as a primary).
pub fn role_of(param: impl Fn(&str) -> Option<String>) -> Role {
    let on = |name: &str| param(name).is_some_and(|v| v == "on");
    Role {
        standby: on("in_hot_standby"),
        read_only: on("default_transaction_read_only"),
    }
}

/// Opens a connection to the target's one server, or says in one line why it could not.
async fn connect_one(t: &PgTarget) -> Result<(PgConn, Role), DbError> {
    let peer = t.peer();
    let config = t.config();
    let attempt = async {
        let stream = open_stream(t).await.map_err(|e| match e {
            StreamError::Io(e) => peer.error(io_failure(&e), e.to_string()),
            StreamError::Tls(why) => peer.error(Failure::Tls, why),
        })?;
        let (client, conn) = config.connect_raw(stream, NoTls).await.map_err(|e| {
            let (kind, detail) = classify(&e, false);
            peer.error(kind, t.refused(kind, detail))
        })?;
        let role = role_of(|name| conn.parameter(name).map(str::to_string));
        Ok::<_, DbError>((client, tokio::spawn(async move { drop(conn.await) }), role))
    };
    match tokio::time::timeout(CONNECT_TIMEOUT + Duration::from_secs(1), attempt).await {
        Err(_) => Err(peer.error(
            Failure::Unreachable,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
        Ok(Err(e)) => Err(e),
        Ok(Ok((client, driver, role))) => Ok((
            PgConn {
                client,
                driver,
                addr: peer.addr.clone(),
            },
            role,
        )),
    }
}

/// Sends PostgreSQL's cancel request for the statement `token`'s connection is running, on a
/// new stream to the same server (TLS as the target says); bounded by the connect timeout,
/// silent on failure (the caller cuts the connection anyway).
pub async fn cancel(t: &PgTarget, token: tokio_postgres::CancelToken) {
    let attempt = async {
        if let Ok(stream) = open_stream(t).await {
            let _ = token.cancel_query_raw(stream, NoTls).await;
        }
    };
    let _ = tokio::time::timeout(CONNECT_TIMEOUT + Duration::from_secs(1), attempt).await;
}

/// A query whose reply did not come within the reply timeout: the connection counts as lost.
pub fn overdue(peer: &Peer, timeout: Duration) -> DbError {
    peer.failed(
        "no reply from",
        Failure::Lost,
        format!(
            "nothing within {} s ({}_reply_timeout)",
            timeout.as_secs_f64(),
            peer.db.prefix()
        ),
    )
}

/// The `Failure` a server error's SQLSTATE means.
pub fn code_failure(code: &str) -> Failure {
    if code == SqlState::INVALID_PASSWORD.code()
        || code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION.code()
    {
        Failure::Auth
    } else if code == SqlState::INVALID_CATALOG_NAME.code() {
        Failure::UnknownDatabase
    } else if code == SqlState::T_R_SERIALIZATION_FAILURE.code()
        || code == SqlState::T_R_DEADLOCK_DETECTED.code()
    {
        Failure::Retry
    } else if code.starts_with("08") || code.starts_with("57P") {
        Failure::Lost
    } else {
        Failure::Other
    }
}

/// Maps a tokio-postgres error to a `Failure` using its SQLSTATE and source chain.
pub fn classify(e: &tokio_postgres::Error, tls_required: bool) -> (Failure, String) {
    if let Some(db) = e.as_db_error() {
        let kind = code_failure(db.code().code());
        return (kind, db.message().to_string());
    }
    let io = io_source(e);
    // (An I/O error's `source` skips the error it wraps: look inside it.)
    if let Some(r) = io.and_then(|io| io.get_ref()?.downcast_ref::<Refusal>()) {
        return (r.kind, r.why.clone());
    }
    let text = e.to_string();
    // tokio-postgres's words for a SCRAM exchange that does not verify (the server does not
    // know the password, or is not the server) and other failed exchanges.
    if text.starts_with("authentication error") {
        if text.contains("SCRAM verification") {
            return (
                Failure::Auth,
                "the server's SCRAM signature does not verify: it does not know the \
                 password, so it may not be the server it claims to be"
                    .into(),
            );
        }
        return (Failure::Auth, text);
    }
    if let Some(io) = io {
        return (io_failure(io), io.to_string());
    }
    if e.is_closed() {
        return (Failure::Lost, text);
    }
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<rustls::Error>().is_some() {
            return (Failure::Tls, text);
        }
        cur = err.source();
    }
    (
        if tls_required {
            Failure::Tls
        } else {
            Failure::Other
        },
        text,
    )
}

/// Connects and reads the server's version, named as `dialect`'s server (`PostgreSQL 16.4`),
/// and whether the session is encrypted.
pub async fn probe(t: &PgTarget, dialect: &PgDialect) -> Result<ServerInfo, DbError> {
    let conn = connect(t).await?;
    let peer = t.peer();
    let query = "select current_setting('server_version'), \
                 coalesce((select ssl from pg_stat_ssl where pid = pg_backend_pid()), false), \
                 version()";
    let row = match tokio::time::timeout(t.bounds.reply_timeout, conn.client.query_one(query, &[]))
        .await
    {
        Ok(r) => r.map_err(|e| {
            let (kind, detail) = classify(&e, false);
            peer.failed("cannot query", kind, detail)
        }),
        Err(_) => Err(overdue(&peer, t.bounds.reply_timeout)),
    };
    conn.close().await;
    let row = row?;
    // Named as what the server is; a dialect that reached another kind says so.
    let server = PgDialect::of_server(&row.get::<_, String>(2));
    Ok(ServerInfo {
        version: format!("{} {}", server.server, row.get::<_, String>(0)),
        tls: row.get(1),
        note: dialect.reached(server, &peer.addr),
        peer,
        port: None,
    })
}

#[cfg(test)]
mod tests;
