//! The contract every engine keeps: what the rest of hammer may ask of a database's code
//! ([`Engine`]), what a probe learns ([`ServerInfo`]), and the workloads' supports it offers,
//! type-erased ([`Engine::offers`], found with [`offered`]): each workload defines its own
//! support trait, the families implement it in their folders, and this contract names none.
//! The SQL vocabulary both sides share lives below, in `crate::sql` (re-exported here for the
//! families). The function `db::engine` (in `db/mod.rs`) picks the engine for a database;
//! this file says what an engine is.

use std::any::Any;

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::endpoint::Position;
use crate::error::Result;
use crate::fault::{DbError, Peer};

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

/// What a job records of the server it ran on, read over a connection made with the run's
/// connection settings (the same host or socket and TLS keys).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// `PostgreSQL 16.4`, `MariaDB 10.11.6-MariaDB`.
    pub version: String,
    /// The settings that decide a result (durability, memory, checkpoints), as
    /// `(name, value)` in the server's own words.
    pub settings: Vec<(String, String)>,
    /// How the connection went: `unix socket /tmp/mariadb.sock`, `TCP 127.0.0.1:5432`,
    /// `TLSv1.3 over TCP 127.0.0.1:5432`.
    pub transport: String,
}

pub use crate::sql::{Canceller, Rows, ScriptConn, ScriptSql, TableRef};
pub use crate::task::Pending;

/// What the rest of hammer may ask of a database's code.
pub trait Engine: Sync {
    /// The database this engine serves.
    fn database(&self) -> Database;

    /// The client built into hammer for it, as `librarycheck` names it.
    fn client(&self) -> &'static str;

    /// Connects with the settings the database's own tools use and reads the version.
    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>>;

    /// The server's version line and the settings a job records, as `(name, value)`.
    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>>;

    /// A plain SQL connection as the schema owner, for custom workloads: the connection at
    /// `at`.
    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// Reads the server's transaction counters (and TPROC-C's new orders where it can), or
    /// what else `counting` asks for, as the logins of its keys.
    fn counter_source(
        &self,
        settings: &Settings,
        counting: crate::db::counter::Counting,
    ) -> CounterSource;

    /// HammerDB's options this engine does not implement that change what a build makes, as
    /// `(name, what it does)`, the name after the dictionary's prefix (`oracompat` for
    /// `pg_oracompat`): a build with one of them on is refused.
    fn unsupported_build_options(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// What hammer's own tests have not covered of this engine, said by `librarycheck`: a
    /// dialect whose database cannot be installed where hammer is tested, and whose paths
    /// are tested on the nearest real server instead.
    fn untested(&self) -> Option<String> {
        None
    }

    /// What this engine offers the workloads, each entry one workload's support trait object
    /// (`&'static dyn tpcc::support::Support`, ...) made by the family in its own folder and
    /// type-erased, so that this contract names no workload; a workload finds its own with
    /// [`offered`]. An engine without a workload leaves it out.
    fn offers(&'static self) -> Vec<Offer>;
}

/// One workload's support, as an engine offers it: a `&'static dyn` of the workload's own
/// support trait, type-erased.
pub struct Offer(Box<dyn Any + Send + Sync>);

impl Offer {
    /// Offers `support`, typically `self as &'static dyn some_workload::support::Support`.
    pub fn of<T: Any + Send + Sync>(support: T) -> Self {
        Offer(Box::new(support))
    }
}

/// The support of type `T` that `engine` offers (a workload asks for its own
/// `&'static dyn Support`), or `None` when the engine does not offer that workload.
pub fn offered<T: Any + Copy>(engine: &'static dyn Engine) -> Option<T> {
    engine
        .offers()
        .into_iter()
        .find_map(|offer| offer.0.downcast_ref::<T>().copied())
}
