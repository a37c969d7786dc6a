//! Connections to the databases hammer drives, built from the dictionaries, with failures classified.
//!
//! Everything that knows which database it talks to lives below this module.

pub mod counter;
pub mod facts;
pub mod mysql;
pub(crate) mod net;
pub mod postgres;
pub mod script_conn;

pub use net::sock::{Bounds, KillSwitch};

use std::fmt;
use std::time::Duration;

use thiserror::Error;

use crate::config::{Database, Settings};

/// How long a connection attempt may take before the server counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a connection or statement failed, as a user would act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Nothing listens there (connection refused, or no socket file).
    Refused,
    /// No answer in time, or no route to the host.
    Unreachable,
    /// The server rejected the user or password.
    Auth,
    /// The server has no database of that name.
    UnknownDatabase,
    /// TLS was asked for and could not be set up.
    Tls,
    /// The connection was lost after it was made.
    Lost,
    /// A deadlock or serialization failure: the transaction was rolled back and may run again.
    Retry,
    /// Anything else the server or driver said.
    Other,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Failure::Refused => "connection refused",
            Failure::Unreachable => "server unreachable",
            Failure::Auth => "authentication failed",
            Failure::UnknownDatabase => "unknown database",
            Failure::Tls => "TLS failed",
            Failure::Lost => "connection lost",
            Failure::Retry => "deadlock or serialization failure",
            Failure::Other => "error",
        })
    }
}

/// A failed database operation: which server, as whom, what kind of failure, and the detail.
/// It never holds a password.
#[derive(Debug, Clone, Error)]
#[error("{action} {db} at {addr} as user {user}: {kind} ({detail})")]
pub struct DbError {
    pub action: &'static str,
    pub db: &'static str,
    pub addr: String,
    pub user: String,
    pub kind: Failure,
    pub detail: String,
}

/// Where and as whom to connect: what error messages print about a connection.
#[derive(Debug, Clone)]
pub struct Peer {
    pub db: Database,
    pub addr: String,
    pub user: String,
}

impl Peer {
    pub fn error(&self, kind: Failure, detail: impl Into<String>) -> DbError {
        self.failed("cannot connect to", kind, detail)
    }

    pub fn failed(
        &self,
        action: &'static str,
        kind: Failure,
        detail: impl Into<String>,
    ) -> DbError {
        DbError {
            action,
            db: self.db.name(),
            addr: self.addr.clone(),
            user: self.user.clone(),
            kind,
            detail: detail.into(),
        }
    }
}

/// What `librarycheck` learns from a server that answers.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub version: String,
    pub tls: bool,
    /// Where the connection went: `peer.addr` is the socket path or `host:port` reached.
    pub peer: Peer,
    /// The port the server says it listens on (MariaDB/MySQL's `@@port`), when asked.
    pub port: Option<u16>,
    /// Why the connection went elsewhere than the settings first pointed, if it did.
    pub note: Option<String>,
}

/// Connects with the settings a database's own tools use (the PostgreSQL superuser on its
/// default database; the MariaDB/MySQL user with no database selected) and reads the version.
pub async fn probe(settings: &Settings, db: Database) -> Result<ServerInfo, DbError> {
    match db {
        Database::Pg => postgres::probe(&postgres::PgTarget::admin(settings)).await,
        Database::Maria | Database::Mysql => {
            mysql::probe(&mysql::MyTarget::server(settings, db)).await
        }
    }
}

/// `buildschema` on the given database.
pub async fn build_schema(
    settings: &Settings,
    db: Database,
    plan: crate::tpcc::build::Plan,
    say: crate::tpcc::schema::Say,
    out: crate::output::Output,
    interrupt: crate::interrupt::Interrupt,
) -> crate::error::Result<crate::tpcc::build::Summary> {
    use crate::tpcc::build::build;
    use std::sync::Arc;
    match db {
        Database::Pg => {
            build(
                Arc::new(postgres::schema::PgSchema::new(settings, Database::Pg)),
                plan,
                say,
                out,
                interrupt,
            )
            .await
        }
        Database::Maria | Database::Mysql => {
            build(
                Arc::new(mysql::schema::MySchema::new(settings, db)),
                plan,
                say,
                out,
                interrupt,
            )
            .await
        }
    }
}

/// `checkschema` on the given database.
pub async fn check_schema(
    settings: &Settings,
    db: Database,
    warehouses: u32,
    say: &crate::tpcc::schema::Say,
) -> crate::error::Result<Vec<crate::tpcc::schema::Check>> {
    use crate::tpcc::schema::SchemaDb;
    match db {
        Database::Pg => {
            postgres::schema::PgSchema::new(settings, Database::Pg)
                .check(warehouses, say)
                .await
        }
        Database::Maria | Database::Mysql => {
            mysql::schema::MySchema::new(settings, db)
                .check(warehouses, say)
                .await
        }
    }
}

/// `deleteschema` on the given database.
pub async fn delete_schema(
    settings: &Settings,
    db: Database,
    say: &crate::tpcc::schema::Say,
) -> crate::error::Result<Vec<String>> {
    use crate::tpcc::schema::SchemaDb;
    match db {
        Database::Pg => {
            postgres::schema::PgSchema::new(settings, Database::Pg)
                .delete(say)
                .await
        }
        Database::Maria | Database::Mysql => {
            mysql::schema::MySchema::new(settings, db).delete(say).await
        }
    }
}

/// Options of HammerDB's dictionaries that hammer does not implement and that change what a
/// build makes: a build with one of them on is refused rather than silently ignoring it.
pub fn unsupported_build_options(settings: &Settings, db: Database) -> Vec<String> {
    let options: &[(&str, &str)] = match db {
        Database::Pg => &[
            ("pg_oracompat", "EnterpriseDB Oracle compatibility"),
            ("pg_cituscompat", "Citus distribution"),
        ],
        Database::Maria | Database::Mysql => &[],
    };
    options
        .iter()
        .filter(|(key, _)| settings.db(db).get_bool(key))
        .map(|(key, what)| format!("{key} ({what})"))
        .collect()
}

/// Where the schema goes, for `buildschema`'s confirmation line.
pub fn describe_schema(settings: &Settings, db: Database) -> String {
    use crate::tpcc::schema::SchemaDb;
    match db {
        Database::Pg => postgres::schema::PgSchema::new(settings, Database::Pg).describe(),
        Database::Maria | Database::Mysql => mysql::schema::MySchema::new(settings, db).describe(),
    }
}

/// `vurun` of the TPROC-C driver on the given database.
pub async fn run_tpcc(
    settings: &Settings,
    db: Database,
    opts: crate::tpcc::driver::Options,
    say: crate::tpcc::schema::Say,
    states: crate::tpcc::driver::StateSink,
    interrupt: crate::interrupt::Interrupt,
) -> crate::error::Result<crate::tpcc::driver::RunResult> {
    use crate::tpcc::driver::{run, DriverKind};
    use std::sync::Arc;
    let summaries = opts.show_output && opts.driver == DriverKind::Test;
    match db {
        Database::Pg => {
            run(
                Arc::new(
                    postgres::driver::PgDriver::new(settings, Database::Pg)
                        .with_summaries(summaries),
                ),
                opts,
                say,
                states,
                interrupt,
            )
            .await
        }
        Database::Maria | Database::Mysql => {
            run(
                Arc::new(mysql::driver::MyDriver::new(settings, db).with_summaries(summaries)),
                opts,
                say,
                states,
                interrupt,
            )
            .await
        }
    }
}

/// The `std::io::Error` somewhere in an error's source chain, if any.
fn io_source<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a std::io::Error> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        cur = e.source();
    }
    None
}

/// Classifies an operating-system error met while connecting.
fn io_failure(e: &std::io::Error) -> Failure {
    use std::io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused | NotFound | AddrNotAvailable => Failure::Refused,
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => Failure::Lost,
        InvalidData => Failure::Tls,
        _ => Failure::Unreachable,
    }
}

/// The `host:port` or socket path a message should name.
fn addr(host: &str, port: u16) -> String {
    if host.starts_with('/') {
        host.to_string()
    } else if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
