//! Where a connection goes: the server's address (host and port, or a unix socket) and the
//! TLS its dictionary asks for ([`Endpoint`]), read in this one place from a database's
//! connection keys (`*_host`, `*_port`, `*_socket`, `*_ssl*`, `pg_sslmode`,
//! `pg_sslrootcert`), and which endpoint each connection of a job takes by its position
//! among them ([`Destination::for_position`], [`Position`]).
//!
//! A database has one endpoint: every position gets it. Logins (user, password, database)
//! are the families' business; they make their targets at the endpoint this file gives. It
//! stands on the ground floor (it reads only the dictionary), so the families, the
//! workloads, the runtime and the jobs' CPU measure all take it without importing one
//! another.
//!
//! Every connection asks for its endpoint by position, and every message about a connection
//! names the server of its position (`vu::Workload::peer`), so spreading a list of hosts is
//! this file's change alone:
//! - [`Destination`] holds the endpoints, in order; [`Destination::from_dict`] reads them
//!   from the host keys (a list in `*_host`, one port each or the shared `*_port`).
//! - [`Destination::for_position`] spreads the connections by position: terminal and loader
//!   `n` take endpoint `(n - 1) % len`; the monitor, the counter and the session's own
//!   connections take the first. [`Destination::endpoints`] and [`Destination::ports`]
//!   already give every endpoint.
//!
//! Trying the others when a position's endpoint does not answer is the one step past this
//! file: a function here beside `for_position` gives a position's endpoints in the order to
//! try (its own, then the rest), and the families' openers that now take
//! `for_position(at)` (`grep -rn for_position src/db`) loop over it, keeping the first
//! that answers; a message then names the server the connection reached, as the MariaDB and
//! MySQL terminals already take it from their connection.

use std::path::{Path, PathBuf};

use crate::config::{Dict, Settings};
use crate::database::Database;

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

/// Where a database's connections go: its endpoints (one), made from its dictionary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    endpoint: Endpoint,
    /// Other ports the connection keys name (`mysql_oceanbase_port`), which no login uses.
    other_ports: Vec<u16>,
}

impl Destination {
    /// The destination `db`'s dictionary names.
    pub fn of(settings: &Settings, db: Database) -> Self {
        Self::from_dict(settings.db(db), db)
    }

    /// The destination of `db`'s dictionary `d` (its keys named by [`Database::key`]): its
    /// host and port, its socket key when it has one, and its TLS keys (libpq's `*_sslmode`
    /// where the dictionary has it, else MariaDB/MySQL's `*_ssl`).
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
        let other_ports = d
            .specs()
            .iter()
            .filter(|s| s.section == "connection" && s.key.ends_with("_port") && s.key != port_key)
            .filter_map(|s| d.get(&s.key).trim().parse().ok())
            .collect();
        Destination {
            endpoint: Endpoint {
                host: text("host"),
                port: d.get_u16(&port_key),
                socket_file,
                tls,
            },
            other_ports,
        }
    }

    /// The endpoint the connection at `position` goes to (with a list of hosts, spread by
    /// position: see the module's doc).
    pub fn for_position(&self, position: Position) -> &Endpoint {
        // One endpoint: every position goes to it.
        let _ = position;
        &self.endpoint
    }

    /// Every endpoint, in order.
    pub fn endpoints(&self) -> std::slice::Iter<'_, Endpoint> {
        std::slice::from_ref(&self.endpoint).iter()
    }

    /// Every port the connection keys name, the endpoints' first: where the server may
    /// listen.
    pub fn ports(&self) -> Vec<u16> {
        let mut ports: Vec<u16> = self.endpoints().map(|e| e.port).collect();
        ports.extend(&self.other_ports);
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
