//! Where a connection goes: the servers' addresses (host and port, or a unix socket) and the
//! TLS its dictionary asks for ([`Endpoint`]), read in this one place from a database's
//! connection keys (`*_host`, `*_port`, `*_socket`, `*_ssl*`, `pg_sslmode`,
//! `pg_sslrootcert`, `*_target_session_attrs`, `*_load_balance`, `*_read_only_hosts`), and
//! which servers each connection of a job tries by its position among them
//! ([`Destination::route`], [`Position`]).
//!
//! `*_host` is one server or a list (`h1,h2,h3`, `h1:5432,h2:5433`: [`crate::hostlist`]), for
//! every family alike. Terminal and loader n start at server n of the list and keep to it
//! (`*_load_balance round_robin`, the default), or every connection tries the list in order
//! (libpq's `disable`) or in a random order (`random`); the monitor, the counter and the
//! session's own connections start at the first. A connection takes the first server of its
//! [`Route`] that answers and is what `*_target_session_attrs` asks (libpq's meanings: a
//! read-write server, a primary, a standby, ...); the families' openers walk the route
//! (`grep -rn "fn connect\|fn open" src/db`) and ask the server what it is ([`Role`]) only
//! when the attributes are not `any`. A terminal whose server goes away reconnects along the
//! same route, so it lands on another server of the list. `*_read_only_hosts` names the
//! servers the read-only transactions go to ([`Destination::read_route`]).
//!
//! Logins (user, password, database) are the families' business; they make their targets at
//! the route this file gives. It stands on the ground floor (it reads only the dictionary),
//! so the families, the workloads, the runtime and the jobs' CPU measure all take it without
//! importing one another.

use std::path::{Path, PathBuf};

use crate::config::{Dict, Settings};
use crate::database::Database;
use crate::fault::{DbError, Failure, Peer};

/// The TLS a dictionary asks for, in the words of its family's keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tls {
    /// libpq's choice: `pg_sslmode` (`disable` to `verify-full`) and the CA file for
    /// `verify-ca` and `verify-full` (`pg_sslrootcert`; empty for libpq's default).
    Mode { sslmode: String, rootcert: String },
    /// MariaDB/MySQL's `*_ssl` off: no TLS.
    Off,
    /// MariaDB/MySQL's `*_ssl` on: TLS required, checked as the files say.
    Required(TlsFiles),
}

/// The files of MariaDB/MySQL's `*_ssl*` keys, under `*_ssl_linux_capath`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The CA the server's certificate must chain to (`*_ssl_ca`); `None`: encryption only.
    pub ca: Option<PathBuf>,
    /// The client's certificate and key, when `*_ssl_two_way` is on.
    pub identity: Option<(PathBuf, PathBuf)>,
    /// With a CA, the certificate must name the host (`*_ssl_verify_hostname`, default true).
    pub verify_hostname: bool,
}

/// Where one connection goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// A host name or address (`pg_host` may also be a socket directory, libpq's way).
    pub host: String,
    pub port: u16,
    /// The server's unix socket as configured (`*_socket`), when the dictionary names one
    /// (neither empty nor `null`); [`Endpoint::socket`] says whether a connection takes it.
    pub socket_file: Option<PathBuf>,
    pub tls: Tls,
}

impl Endpoint {
    /// The socket a connection goes over instead of TCP: the configured one when the host is
    /// this machine (`127.0.0.1` or `localhost`), TLS is not asked for (TLS is for TCP: asked
    /// for, it wins over a socket picked only because it is there) and the file exists.
    pub fn socket(&self) -> Option<&Path> {
        let local = matches!(self.host.as_str(), "127.0.0.1" | "localhost");
        let tls = matches!(self.tls, Tls::Required(_));
        self.socket_file
            .as_deref()
            .filter(|path| local && !tls && path.exists())
    }
}

/// The `host:port` or socket directory a message should name (`[::1]:5432` for an IPv6
/// address): how the families' logins name their server, a socket they took aside.
pub fn addr(host: &str, port: u16) -> String {
    if host.starts_with('/') {
        host.to_string()
    } else if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A connection's position among a job's connections: which endpoint it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Terminal `n` (from 1) of the `of` terminals of a run's virtual users.
    Terminal { n: u32, of: u32 },
    /// Loader `n` (from 1) of the `of` loaders of a build.
    Loader { n: u32, of: u32 },
    /// The timed run's monitor (its counters' readings).
    Monitor,
    /// The transaction counter (`tcstart`).
    Counter,
    /// A connection of the session's own: `librarycheck`'s probe, a job's server facts, a
    /// build's, check's or delete's statements beside the loaders, a run's checks before it
    /// starts.
    Session,
}

impl Position {
    /// Terminal or loader n's place from 0, by which connections spread over a list; `None`
    /// for the connections that start at the first server.
    fn spread(self) -> Option<usize> {
        match self {
            Position::Terminal { n, .. } | Position::Loader { n, .. } => {
                Some(n.max(1) as usize - 1)
            }
            Position::Monitor | Position::Counter | Position::Session => None,
        }
    }
}

/// What a connection must find on a server of the host list to keep it: libpq's
/// `target_session_attrs` (`*_target_session_attrs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionAttrs {
    /// Any server that answers.
    #[default]
    Any,
    /// A server that takes writes: not a standby, not read-only by default.
    ReadWrite,
    /// A standby, or a server read-only by default.
    ReadOnly,
    /// Not a standby (PostgreSQL's `in_hot_standby` off; MariaDB/MySQL: not `read_only`).
    Primary,
    /// A standby (`in_hot_standby` on; MariaDB/MySQL: `read_only`).
    Standby,
    /// A standby if one answers, else any server.
    PreferStandby,
}

/// What a server said of itself when a connection reached it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Role {
    /// A hot standby (PostgreSQL in recovery; a MariaDB/MySQL replica set `read_only`).
    pub standby: bool,
    /// Transactions are read-only by default there.
    pub read_only: bool,
}

impl SessionAttrs {
    /// The value `*_target_session_attrs` holds (one of [`crate::config::keys::SESSION_ATTRS`]);
    /// anything else is `any`.
    pub fn of(word: &str) -> Self {
        match word {
            "read-write" => SessionAttrs::ReadWrite,
            "read-only" => SessionAttrs::ReadOnly,
            "primary" => SessionAttrs::Primary,
            "standby" => SessionAttrs::Standby,
            "prefer-standby" => SessionAttrs::PreferStandby,
            _ => SessionAttrs::Any,
        }
    }

    /// libpq's word for it.
    pub fn word(self) -> &'static str {
        match self {
            SessionAttrs::Any => "any",
            SessionAttrs::ReadWrite => "read-write",
            SessionAttrs::ReadOnly => "read-only",
            SessionAttrs::Primary => "primary",
            SessionAttrs::Standby => "standby",
            SessionAttrs::PreferStandby => "prefer-standby",
        }
    }

    /// The passes over the host list: `prefer-standby` looks for a standby first, then takes
    /// any server; the others make one pass.
    pub fn passes(self) -> &'static [SessionAttrs] {
        match self {
            SessionAttrs::PreferStandby => &[SessionAttrs::Standby, SessionAttrs::Any],
            SessionAttrs::Any => &[SessionAttrs::Any],
            SessionAttrs::ReadWrite => &[SessionAttrs::ReadWrite],
            SessionAttrs::ReadOnly => &[SessionAttrs::ReadOnly],
            SessionAttrs::Primary => &[SessionAttrs::Primary],
            SessionAttrs::Standby => &[SessionAttrs::Standby],
        }
    }

    /// Whether a server of `role` is kept by this pass.
    pub fn keeps(self, role: Role) -> bool {
        match self {
            SessionAttrs::Any => true,
            SessionAttrs::ReadWrite => !role.standby && !role.read_only,
            SessionAttrs::ReadOnly => role.standby || role.read_only,
            SessionAttrs::Primary => !role.standby,
            SessionAttrs::Standby | SessionAttrs::PreferStandby => role.standby,
        }
    }

    /// Whether a connection must ask the server what it is.
    pub fn asks(self) -> bool {
        self != SessionAttrs::Any
    }
}

/// How connections spread over the host list (`*_load_balance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Balance {
    /// Terminal and loader n start at host n (of the list, round the list), each keeping to
    /// its host; the monitor, the counter and the session's connections start at the first.
    #[default]
    RoundRobin,
    /// libpq's `disable`: every connection tries the hosts in the order listed.
    InOrder,
    /// libpq's `random`: every connection tries the hosts in a random order.
    Random,
}

impl Balance {
    fn of(word: &str) -> Self {
        match word {
            "disable" => Balance::InOrder,
            "random" => Balance::Random,
            _ => Balance::RoundRobin,
        }
    }
}

/// The servers a connection tries, in order, and what it must find there: the first that
/// answers and keeps to `attrs` is the one it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Never empty: the first is the connection's own server.
    pub tries: Vec<Endpoint>,
    pub attrs: SessionAttrs,
}

impl Route {
    /// A route to one server, taken whatever it is.
    pub fn one(at: &Endpoint) -> Self {
        Route {
            tries: vec![at.clone()],
            attrs: SessionAttrs::Any,
        }
    }

    /// Whether the route has somewhere else to go, or asks what the server is: a plain
    /// connect is all it needs otherwise.
    pub fn is_plain(&self) -> bool {
        self.tries.len() <= 1 && !self.attrs.asks()
    }

    /// The servers the route tried, for a message: `h1:5432, h2:5433`.
    pub fn named(&self) -> String {
        self.tries
            .iter()
            .map(|e| addr(&e.host, e.port))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a walk along a [`Route`] met at each server it left: the one error that names them
/// all when no server was kept.
#[derive(Debug, Default)]
pub struct Walked {
    left: Vec<String>,
    /// A server answered but was not what the attributes ask.
    answered: bool,
    last: Option<DbError>,
}

impl Role {
    /// What a server of this role is, in a message: `a standby`.
    pub fn describe(self) -> &'static str {
        match (self.standby, self.read_only) {
            (true, _) => "a standby",
            (false, true) => "read-only",
            (false, false) => "a read-write primary",
        }
    }
}

impl Walked {
    /// A server that did not answer or refused the login.
    pub fn failed(&mut self, e: DbError) {
        self.left
            .push(format!("{}: {} ({})", e.addr, e.kind, e.detail));
        self.last = Some(e);
    }

    /// A server that answered but is not what the walk's pass keeps.
    pub fn not_kept(&mut self, addr: &str, role: Role) {
        self.left.push(format!("{addr}: {}", role.describe()));
        self.answered = true;
    }

    /// The error of a walk that kept no server, as `peer` (the route's first server) would
    /// say it: one server that failed gives its own error; otherwise every server is named
    /// with what it was. A server that answered but was not what `attrs` asks makes the whole
    /// walk unreachable (a failover may make one so soon: reconnecting tries again).
    pub fn into_error(self, peer: &Peer, attrs: SessionAttrs) -> DbError {
        match self.last {
            Some(e) if self.left.len() == 1 => e,
            last => {
                let kind = match (&last, self.answered) {
                    (Some(e), false) => e.kind,
                    _ => Failure::Unreachable,
                };
                let what = if attrs.asks() && self.answered {
                    format!("no server of the list is {}", attrs.word())
                } else {
                    "no server of the list answered".to_string()
                };
                peer.error(kind, format!("{what} ({})", self.left.join("; ")))
            }
        }
    }
}

/// Where a database's connections go: its endpoints (`*_host`, one or a list), the servers
/// reads may go to (`*_read_only_hosts`), what a server must be to be kept
/// (`*_target_session_attrs`) and how connections spread (`*_load_balance`), made from its
/// dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// Never empty.
    endpoints: Vec<Endpoint>,
    /// Where Order-Status and Stock-Level go, when the dictionary names servers for reads.
    read_only: Vec<Endpoint>,
    attrs: SessionAttrs,
    balance: Balance,
    /// Other ports the connection keys name (`mysql_oceanbase_port`), which no login uses.
    other_ports: Vec<u16>,
}

impl Destination {
    /// The destination `db`'s dictionary names.
    pub fn of(settings: &Settings, db: Database) -> Self {
        Self::from_dict(settings.db(db), db)
    }

    /// The destination of `db`'s dictionary `d` (its keys named by [`Database::key`]): its
    /// hosts and ports, its socket key when it has one, and its TLS keys (libpq's `*_sslmode`
    /// where the dictionary has it, else MariaDB/MySQL's `*_ssl`), shared by every host.
    pub fn from_dict(d: &Dict, db: Database) -> Self {
        let name = |key: &str| db.key(key);
        let has = |key: &str| d.spec(&name(key)).is_some();
        let text = |key: &str| d.get(&name(key)).to_string();
        let socket_file = has("socket")
            .then(|| text("socket"))
            .filter(|s| !s.is_empty() && s != "null")
            .map(PathBuf::from);
        let tls = if has("sslmode") {
            Tls::Mode {
                sslmode: text("sslmode"),
                rootcert: text("sslrootcert"),
            }
        } else if has("ssl") && d.get_bool(&name("ssl")) {
            let capath = PathBuf::from(text("ssl_linux_capath"));
            let file = |key: &str| {
                Some(text(key))
                    .filter(|f| !f.is_empty())
                    .map(|f| capath.join(f))
            };
            Tls::Required(TlsFiles {
                ca: file("ssl_ca"),
                identity: d
                    .get_bool(&name("ssl_two_way"))
                    .then(|| (capath.join(text("ssl_cert")), capath.join(text("ssl_key")))),
                verify_hostname: d.get_bool(&name("ssl_verify_hostname")),
            })
        } else {
            Tls::Off
        };
        let port_key = name("port");
        let port = d.get_u16(&port_key);
        let other_ports = d
            .specs()
            .iter()
            .filter(|s| s.section == "connection" && s.key.ends_with("_port") && s.key != port_key)
            .filter_map(|s| d.get(&s.key).trim().parse().ok())
            .collect();
        // The dictionary checked the lists when they were set; an unreadable one (a
        // hand-edited settings file) is read as far as it goes.
        let list = |key: &str| -> Vec<Endpoint> {
            let text = if has(key) { text(key) } else { String::new() };
            crate::hostlist::parse(&text)
                .unwrap_or_default()
                .into_iter()
                .map(|item| Endpoint {
                    host: item.host,
                    port: item.port.unwrap_or(port),
                    socket_file: socket_file.clone(),
                    tls: tls.clone(),
                })
                .collect()
        };
        let mut endpoints = list("host");
        if endpoints.is_empty() {
            endpoints.push(Endpoint {
                host: text("host"),
                port,
                socket_file: socket_file.clone(),
                tls: tls.clone(),
            });
        }
        let word = |key: &str| if has(key) { text(key) } else { String::new() };
        Destination {
            endpoints,
            read_only: list("read_only_hosts"),
            attrs: SessionAttrs::of(&word("target_session_attrs")),
            balance: Balance::of(&word("load_balance")),
            other_ports,
        }
    }

    /// The endpoint the connection at `position` goes to first: terminal and loader n take
    /// endpoint `(n - 1) % len` (round-robin), or the first (libpq's `disable` and, for
    /// naming, `random`); the monitor, the counter and the session's connections the first.
    pub fn for_position(&self, position: Position) -> &Endpoint {
        &self.endpoints[self.start(position)]
    }

    fn start(&self, position: Position) -> usize {
        match (self.balance, position.spread()) {
            (Balance::RoundRobin, Some(i)) => i % self.endpoints.len(),
            _ => 0,
        }
    }

    /// The servers the connection at `position` tries, in order: its own, then the others
    /// round the list (shuffled with `load_balance random`), and what it must find there.
    /// Round-robin terminals that share a server try the others from different places, so
    /// that when it is lost they spread over the rest.
    pub fn route(&self, position: Position) -> Route {
        let n = self.endpoints.len();
        let start = self.start(position);
        let mut tries: Vec<Endpoint> = (0..n)
            .map(|i| self.endpoints[(start + i) % n].clone())
            .collect();
        // Round-robin terminals that share a server go on to different ones when it is
        // lost: the others are rotated by how many times round the list the terminal is.
        if let (Balance::RoundRobin, Some(i)) = (self.balance, position.spread()) {
            if n > 2 {
                tries[1..].rotate_left(i / n % (n - 1));
            }
        }
        if self.balance == Balance::Random {
            use rand::seq::SliceRandom;
            tries.shuffle(&mut rand::rng());
        }
        Route {
            tries,
            attrs: self.attrs,
        }
    }

    /// Where the reads of the terminal at `position` go when the dictionary names servers
    /// for reads (`*_read_only_hosts`): terminal n starts at read server n, round the list,
    /// taking whichever answers.
    pub fn read_route(&self, position: Position) -> Option<Route> {
        let n = self.read_only.len();
        if n == 0 {
            return None;
        }
        let start = position.spread().map_or(0, |i| i % n);
        Some(Route {
            tries: (0..n)
                .map(|i| self.read_only[(start + i) % n].clone())
                .collect(),
            attrs: SessionAttrs::Any,
        })
    }

    /// What a server must be for a connection to keep it.
    pub fn attrs(&self) -> SessionAttrs {
        self.attrs
    }

    /// Every endpoint, in order.
    pub fn endpoints(&self) -> std::slice::Iter<'_, Endpoint> {
        self.endpoints.iter()
    }

    /// Every server connections may go to: the host list, then the servers for reads not in
    /// it; each once. With more than one, a counter of the whole system reads each.
    pub fn servers(&self) -> Vec<Endpoint> {
        let mut all: Vec<Endpoint> = Vec::new();
        for e in self.endpoints.iter().chain(&self.read_only) {
            if !all.iter().any(|a| a.host == e.host && a.port == e.port) {
                all.push(e.clone());
            }
        }
        all
    }

    /// The servers reads go to (`*_read_only_hosts`), in order; empty when none are named.
    pub fn read_only_endpoints(&self) -> &[Endpoint] {
        &self.read_only
    }

    /// Every port the connection keys name, the endpoints' first: where the server may
    /// listen.
    pub fn ports(&self) -> Vec<u16> {
        let mut ports: Vec<u16> = Vec::new();
        for p in self
            .endpoints()
            .map(|e| e.port)
            .chain(self.other_ports.iter().copied())
        {
            if !ports.contains(&p) {
                ports.push(p);
            }
        }
        ports
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Target;

    fn set(s: &mut Settings, db: Database, key: &str, value: &str) {
        s.set(Target::Db(db), "connection", key, value)
            .expect("a valid value");
    }

    #[test]
    fn the_dictionary_makes_the_destination() {
        let s = Settings::defaults();
        let pg = Destination::of(&s, Database::Pg);
        let e = pg.for_position(Position::Session);
        assert_eq!((e.host.as_str(), e.port), ("localhost", 5432));
        assert_eq!(e.socket_file, None);
        assert_eq!(
            e.tls,
            Tls::Mode {
                sslmode: "prefer".into(),
                rootcert: String::new()
            }
        );
        assert_eq!(pg.ports(), [5432]);

        let maria = Destination::of(&s, Database::Maria);
        let e = maria.for_position(Position::Session);
        assert_eq!((e.host.as_str(), e.port), ("127.0.0.1", 3306));
        assert_eq!(
            e.socket_file.as_deref(),
            Some(Path::new("/tmp/mariadb.sock"))
        );
        assert_eq!(e.tls, Tls::Off);
        // MySQL's dictionary names OceanBase's port too: where a server may listen.
        assert_eq!(Destination::of(&s, Database::Mysql).ports(), [3306, 2881]);
    }

    #[test]
    fn tls_keys_are_read_as_their_family_means_them() {
        let mut s = Settings::defaults();
        set(&mut s, Database::Maria, "maria_ssl", "true");
        set(&mut s, Database::Maria, "maria_ssl_linux_capath", "/certs");
        set(&mut s, Database::Maria, "maria_ssl_two_way", "true");
        let e = Destination::of(&s, Database::Maria)
            .for_position(Position::Session)
            .clone();
        assert_eq!(
            e.tls,
            Tls::Required(TlsFiles {
                ca: Some("/certs/ca-cert.pem".into()),
                identity: Some((
                    "/certs/client-cert.pem".into(),
                    "/certs/client-key.pem".into()
                )),
                verify_hostname: true,
            })
        );
        set(&mut s, Database::Maria, "maria_ssl_ca", "");
        let e = Destination::of(&s, Database::Maria)
            .for_position(Position::Session)
            .clone();
        assert!(matches!(e.tls, Tls::Required(TlsFiles { ca: None, .. })));

        set(&mut s, Database::Pg, "pg_sslmode", "verify-full");
        set(&mut s, Database::Pg, "pg_sslrootcert", "/ca.pem");
        let pg = Destination::of(&s, Database::Pg);
        assert_eq!(
            pg.for_position(Position::Session).tls,
            Tls::Mode {
                sslmode: "verify-full".into(),
                rootcert: "/ca.pem".into()
            }
        );
    }

    #[test]
    fn a_local_host_whose_socket_file_exists_goes_over_the_socket() {
        let dir = std::env::temp_dir().join(format!("hammer-endpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let file = dir.join("server.sock");
        std::fs::write(&file, b"").expect("a stand-in socket file");
        let at = |host: &str, socket: &Path, tls: Tls| Endpoint {
            host: host.into(),
            port: 3306,
            socket_file: Some(socket.to_path_buf()),
            tls,
        };
        for host in ["127.0.0.1", "localhost"] {
            assert_eq!(at(host, &file, Tls::Off).socket(), Some(file.as_path()));
        }
        // Another host, a missing file, or TLS asked for: TCP.
        assert_eq!(at("db.example.com", &file, Tls::Off).socket(), None);
        assert_eq!(
            at("localhost", &dir.join("none.sock"), Tls::Off).socket(),
            None
        );
        let files = TlsFiles {
            ca: None,
            identity: None,
            verify_hostname: true,
        };
        assert_eq!(at("localhost", &file, Tls::Required(files)).socket(), None);
        let none = Endpoint {
            socket_file: None,
            ..at("localhost", &file, Tls::Off)
        };
        assert_eq!(none.socket(), None);
        std::fs::remove_dir_all(&dir).ok();
        // The socket key's empty and `null` values name no socket.
        let mut s = Settings::defaults();
        for value in ["", "null"] {
            set(&mut s, Database::Maria, "maria_socket", value);
            let d = Destination::of(&s, Database::Maria);
            assert_eq!(d.for_position(Position::Session).socket_file, None);
        }
    }

    #[test]
    fn a_host_list_spreads_terminals_round_robin_and_routes_round_the_list() {
        let mut s = Settings::defaults();
        set(&mut s, Database::Pg, "pg_host", "h1, h2:5433,[::1]:5434");
        set(&mut s, Database::Pg, "pg_port", "6000");
        let d = Destination::of(&s, Database::Pg);
        let names: Vec<String> = d.endpoints().map(|e| addr(&e.host, e.port)).collect();
        assert_eq!(names, ["h1:6000", "h2:5433", "[::1]:5434"]);
        let first = |n| d.for_position(Position::Terminal { n, of: 5 }).host.clone();
        assert_eq!(
            [first(1), first(2), first(3), first(4)],
            ["h1", "h2", "::1", "h1"]
        );
        assert_eq!(d.for_position(Position::Monitor).host, "h1");
        assert_eq!(d.for_position(Position::Loader { n: 2, of: 2 }).host, "h2");
        let route = d.route(Position::Terminal { n: 2, of: 5 });
        assert_eq!(route.named(), "h2:5433, [::1]:5434, h1:6000");
        assert_eq!(route.attrs, SessionAttrs::Any);
        assert!(!route.is_plain());
        assert_eq!(d.ports(), [6000, 5433, 5434]);
        assert_eq!(d.read_route(Position::Terminal { n: 1, of: 1 }), None);
        // Terminals 1 and 4 share h1: losing it, they go on to different servers.
        let after = |n| {
            d.route(Position::Terminal { n, of: 6 }).tries[1]
                .host
                .clone()
        };
        assert_eq!((after(1), after(4)), ("h2".to_string(), "::1".to_string()));

        // libpq's disable: every connection tries the list in order.
        set(&mut s, Database::Pg, "pg_load_balance", "disable");
        set(
            &mut s,
            Database::Pg,
            "pg_target_session_attrs",
            "read-write",
        );
        let d = Destination::of(&s, Database::Pg);
        let route = d.route(Position::Terminal { n: 2, of: 5 });
        assert_eq!(route.named(), "h1:6000, h2:5433, [::1]:5434");
        assert_eq!(route.attrs, SessionAttrs::ReadWrite);
        // random: every server, in some order.
        set(&mut s, Database::Pg, "pg_load_balance", "random");
        let d = Destination::of(&s, Database::Pg);
        let mut hosts: Vec<String> = d
            .route(Position::Counter)
            .tries
            .into_iter()
            .map(|e| e.host)
            .collect();
        hosts.sort();
        assert_eq!(hosts, ["::1", "h1", "h2"]);

        // Servers for reads, round robin from the terminal's number.
        set(
            &mut s,
            Database::Maria,
            "maria_read_only_hosts",
            "r1:3307,r2",
        );
        let d = Destination::of(&s, Database::Maria);
        let reads = d.read_route(Position::Terminal { n: 2, of: 2 }).unwrap();
        assert_eq!(reads.named(), "r2:3306, r1:3307");
        assert_eq!(d.read_only_endpoints().len(), 2);
    }

    #[test]
    fn session_attributes_keep_what_libpq_keeps() {
        let primary = Role::default();
        let standby = Role {
            standby: true,
            read_only: true,
        };
        let read_only_primary = Role {
            standby: false,
            read_only: true,
        };
        let keeps =
            |attrs: SessionAttrs| [primary, standby, read_only_primary].map(|r| attrs.keeps(r));
        assert_eq!(keeps(SessionAttrs::Any), [true, true, true]);
        assert_eq!(keeps(SessionAttrs::ReadWrite), [true, false, false]);
        assert_eq!(keeps(SessionAttrs::ReadOnly), [false, true, true]);
        assert_eq!(keeps(SessionAttrs::Primary), [true, false, true]);
        assert_eq!(keeps(SessionAttrs::Standby), [false, true, false]);
        assert_eq!(
            SessionAttrs::PreferStandby.passes(),
            [SessionAttrs::Standby, SessionAttrs::Any]
        );
        for w in crate::config::keys::SESSION_ATTRS {
            assert_eq!(SessionAttrs::of(w).word(), *w);
        }
    }

    #[test]
    fn a_bad_host_list_is_refused_naming_the_item() {
        let mut s = Settings::defaults();
        let e = s
            .set(
                Target::Db(Database::Pg),
                "connection",
                "pg_host",
                "h1,h2:70000",
            )
            .expect_err("a bad port");
        let text = e.to_string();
        assert!(
            text.contains("h2:70000") && text.contains("65535"),
            "{text}"
        );
    }

    #[test]
    fn every_position_goes_to_the_one_endpoint() {
        let d = Destination::of(&Settings::defaults(), Database::Pg);
        let one = d.for_position(Position::Session);
        for at in [
            Position::Terminal { n: 1, of: 4 },
            Position::Terminal { n: 4, of: 4 },
            Position::Loader { n: 2, of: 3 },
            Position::Monitor,
            Position::Counter,
        ] {
            assert_eq!(d.for_position(at), one);
        }
        assert_eq!(d.endpoints().count(), 1);
    }

    #[test]
    fn addresses_are_named_as_messages_name_them() {
        assert_eq!(addr("127.0.0.1", 5432), "127.0.0.1:5432");
        assert_eq!(addr("::1", 5432), "[::1]:5432");
        assert_eq!(addr("/var/run/postgresql", 5432), "/var/run/postgresql");
    }
}
