//! The MariaDB/MySQL family: its logins (this file), what differs between its databases
//! (`dialect`, one [`dialect::MyDialect`] each), its answers to the engine contract (`engine`),
//! its wire client (`wire`), TPROC-C's schema builder (`schema`) and driver (`driver`),
//! TPROC-H's schema (`schema::tpch`; its queries run over `script`'s plain SQL connection), the
//! transaction counter's reading (`counter`) and the option files' passwords (`mycnf`).
//!
//! MariaDB and MySQL logins from the dictionaries, at the endpoint `crate::endpoint` gives
//! (TCP or the `*_socket` path, TLS per `*_ssl`), server errors classified by their codes,
//! and `librarycheck`'s probe. Every connection is `db::mysql::wire`'s lean one.

pub mod counter;
pub mod dialect;
pub mod driver;
pub mod engine;
pub mod mycnf;
pub mod schema;
pub mod script;
pub mod wire;

use std::path::{Path, PathBuf};

use mysql_common::Value;

use crate::config::{Database, Settings};
use crate::db::engine::ServerInfo;
use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::wire as mywire;
use crate::endpoint::{addr, Destination, Endpoint, Position, Route, SessionAttrs, Tls, TlsFiles};
use crate::fault::{DbError, Failure, Peer};

/// One MariaDB/MySQL login.
#[derive(Clone)]
pub struct MyTarget {
    pub db: Database,
    /// The endpoint's host and port ([`MyTarget::at`]).
    pub host: String,
    pub port: u16,
    /// The servers to try after this one when it does not answer or is not what `attrs`
    /// asks ([`MyTarget::routed`]); empty for a target aimed at one server.
    pub also: Vec<Endpoint>,
    /// What a server must be to be kept (`*_target_session_attrs`).
    pub attrs: SessionAttrs,
    /// The endpoint's socket when the socket rule picks it ([`Endpoint::socket`]).
    pub socket: Option<PathBuf>,
    pub user: String,
    /// What the login sends: the dictionary's key, else `~/.my.cnf`'s or `MYSQL_PWD`'s
    /// password (see [`mycnf`]); `None` for MariaDB's `null`.
    pub password: Option<String>,
    pub dbname: Option<String>,
    pub tls: Option<MyTls>,
    /// The longest a reply may take (`*_reply_timeout`), and the switch that cuts the
    /// connections from outside.
    pub bounds: crate::db::net::sock::Bounds,
}

/// TLS settings from the `*_ssl*` keys (read by [`Destination`]).
pub type MyTls = TlsFiles;

impl std::fmt::Debug for MyTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MyTarget")
            .field("addr", &self.peer().addr)
            .field("user", &self.user)
            .field("dbname", &self.dbname)
            .field("tls", &self.tls)
            .finish()
    }
}

impl MyTarget {
    /// The configured user with no database selected: reaches a server whose schema is not built.
    pub fn server(settings: &Settings, dialect: &'static MyDialect) -> Self {
        Self::login(settings, dialect, "user", "pass")
    }

    /// As [`MyTarget::server`], logging in with the keys `{prefix}_{user}` and
    /// `{prefix}_{pass}` (`maria_tpch_user`, `maria_tpch_pass` for TPROC-H), at the endpoint
    /// of the session's own connections ([`Position::Session`]); [`MyTarget::at`] moves it.
    pub fn login(settings: &Settings, dialect: &'static MyDialect, user: &str, pass: &str) -> Self {
        let to = Destination::of(settings, dialect.database);
        Self::login_at(
            settings,
            dialect,
            to.for_position(Position::Session),
            user,
            pass,
        )
        .routed(&to.route(Position::Session))
    }

    /// As [`MyTarget::login`], to the endpoint `at`.
    pub fn login_at(
        settings: &Settings,
        dialect: &'static MyDialect,
        at: &Endpoint,
        user: &str,
        pass: &str,
    ) -> Self {
        let db = dialect.database;
        let d = settings.db(db);
        let k = |key: &str| d.get(&db.key(key)).to_string();
        let pass = k(pass);
        let user = k(user);
        // A dialect may treat the password `null` as "no password" (MariaDB's dictionary
        // does; MySQL's does not). An empty key takes the password the clients would: the
        // option file's groups of the dialect, else MYSQL_PWD's.
        let password = if dialect.null_password && pass == "null" {
            None
        } else if pass.is_empty() {
            let login = mycnf::Login {
                host: &at.host,
                port: at.port,
                user: &user,
            };
            Some(mycnf::lookup(login, dialect.option_groups).unwrap_or_default())
        } else {
            Some(pass)
        };
        MyTarget {
            db,
            host: String::new(),
            port: 0,
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            socket: None,
            user,
            password,
            dbname: None,
            tls: None,
            bounds: crate::db::net::sock::Bounds {
                reply_timeout: std::time::Duration::from_secs(
                    d.get_i64(&db.key("reply_timeout")).max(1) as u64,
                ),
                kill: crate::db::net::sock::KillSwitch::default(),
            },
        }
        .at(at)
    }

    /// The same login to the endpoint `at`: its host and port, its socket when the socket
    /// rule picks it ([`Endpoint::socket`]), its TLS.
    /// The same login along `route`: to its first server, then the others in turn, keeping
    /// the first that is what the route's attributes ask.
    pub fn routed(self, route: &Route) -> Self {
        let mut t = self.at(&route.tries[0]);
        t.also = route.tries[1..].to_vec();
        t.attrs = route.attrs;
        t
    }

    /// The servers this target tries, in order: itself, then each of [`MyTarget::also`],
    /// each aimed at its one server.
    pub fn tries(&self) -> Vec<MyTarget> {
        let one = MyTarget {
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            ..self.clone()
        };
        let mut all = vec![one.clone()];
        all.extend(self.also.iter().map(|e| one.clone().at(e)));
        all
    }

    /// The same login to the endpoint `at` alone.
    pub fn at(self, at: &Endpoint) -> Self {
        MyTarget {
            host: at.host.clone(),
            port: at.port,
            also: Vec::new(),
            attrs: SessionAttrs::Any,
            socket: at.socket().map(Path::to_path_buf),
            tls: match &at.tls {
                Tls::Required(files) => Some(files.clone()),
                Tls::Off | Tls::Mode { .. } => None,
            },
            ..self
        }
    }

    /// The same login on the schema's database (`*_dbase`).
    pub fn schema(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let dbname = settings
            .db(dialect.database)
            .get(&dialect.key("dbase"))
            .to_string();
        MyTarget {
            dbname: Some(dbname),
            ..Self::server(settings, dialect)
        }
    }

    pub fn peer(&self) -> Peer {
        Peer {
            db: self.db,
            addr: match &self.socket {
                Some(s) => s.display().to_string(),
                None => addr(&self.host, self.port),
            },
            user: self.user.clone(),
        }
    }
}

/// Maps a server error (its code and SQLSTATE) to a `Failure`.
pub fn server_failure(code: u16, state: &str) -> Failure {
    match code {
        // ER_ACCESS_DENIED_ERROR, ER_DBACCESS_DENIED_ERROR, ER_ACCESS_DENIED_NO_PASSWORD_ERROR
        1045 | 1044 | 1698 => Failure::Auth,
        // ER_BAD_DB_ERROR
        1049 => Failure::UnknownDatabase,
        // ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, and any serialization failure
        1213 | 1205 => Failure::Retry,
        _ if state == "40001" => Failure::Retry,
        // A dialect's own (TiDB's write conflicts): codes no other server of the family uses.
        _ if MyDialect::retry_code(code) => Failure::Retry,
        // ER_SERVER_SHUTDOWN, ER_CONNECTION_KILLED; ER_UNKNOWN_COM_ERROR, which a Galera
        // node out of its cluster's primary component answers every statement with ("WSREP
        // has not yet prepared node for application use"): the terminal goes to another node.
        1053 | 1927 | 1047 => Failure::Lost,
        _ => Failure::Other,
    }
}

/// A server's `version()` named as what the server is, whichever dictionary reached it:
/// `MariaDB 10.11.19-MariaDB` also when `dbset db mysql` points at a MariaDB.
pub fn server_version(version: &str) -> String {
    format!("{} {version}", MyDialect::of_server(version).server)
}

/// Connects over the lean connection and reads the server's version and port, and whether
/// the session is encrypted.
pub async fn probe(t: &MyTarget) -> Result<ServerInfo, DbError> {
    let mut wire = mywire::connect(t).await?;
    let row = wire.query_first("SELECT version(), @@port").await;
    let tls = wire.is_tls();
    let note = wire.note().map(str::to_string);
    // Where the connection went (a socket that leads elsewhere is left for TCP).
    let peer = Peer {
        addr: wire.addr().to_string(),
        ..t.peer()
    };
    wire.close().await;
    let row = row
        .map_err(|e| peer.failed("cannot query", e.kind, e.detail))?
        .unwrap_or_default();
    let text = |i: usize| match row.get(i) {
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        _ => String::new(),
    };
    // A dialect that reached another kind of server says so.
    let reached = MyDialect::of(t.db).reached(MyDialect::of_server(&text(0)), &peer.addr);
    let note = match (note, reached) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    Ok(ServerInfo {
        version: server_version(&text(0)),
        tls,
        port: text(1).trim().parse().ok(),
        note,
        peer,
    })
}

/// A value the lean connection read, as text: a text-protocol value is its bytes; `None` for
/// NULL.
pub fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

/// A value the lean connection read, as an integer, if it is one.
pub fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_is_named_as_what_it_is() {
        assert_eq!(
            super::server_version("10.11.19-MariaDB-0+deb12u1"),
            "MariaDB 10.11.19-MariaDB-0+deb12u1"
        );
        assert_eq!(super::server_version("8.0.36"), "MySQL 8.0.36");
    }
}
