//! Connections to the databases hammer drives, and the one dispatch point: [`engine`] picks the
//! code that serves a database; nothing else matches on [`Database`] to pick code.
//!
//! An engine is a family's code for one database. A family (`db::postgres`, `db::mysql`) takes
//! its database as a value and reads its keys by the database's prefix, so a database that
//! speaks a family's protocol with its own SQL differences (YugabyteDB or CockroachDB for
//! PostgreSQL, TiDB for MySQL, as MariaDB is for MySQL today) is a dialect of that family, not a
//! copy of it. `db::net` holds what every family's connection shares (socket, TLS).
//!
//! Adding an engine:
//! 1. its name and dictionary prefix in `crate::database` (a variant, `ALL`, `prefix`, `name`);
//! 2. its dictionary in `config::keys`: its own block of keys, or its family's block under its
//!    prefix;
//! 3. its code: a dialect of an existing family (what differs, decided by the family's
//!    `Database` value), or a new folder `db/<family>/` whose `engine.rs` implements
//!    [`engine::Engine`] (connection, wire client, schema and workload drivers, counters),
//!    and each workload's family trait (TPROC-C's `tpcc::support::Family`: its schema builder
//!    and driver), each offered in its `Engine::offers`;
//! 4. one arm in [`engine`] below;
//! 5. its server in `scripts/ci/servers.sh` and its row in the engine-generic tests
//!    (`tests/engines.rs`), which put every engine through the same battery.

pub mod counter;
pub mod engine;
pub mod mysql;
pub(crate) mod net;
pub mod postgres;
pub mod warnings;

pub use crate::fault::{DbError, Failure, Peer};
pub use engine::{Engine, ServerInfo};
pub use net::sock::{Bounds, KillSwitch};
pub use net::CONNECT_TIMEOUT;
pub use warnings::warn_once;

use crate::config::{Database, Settings};
use crate::error::Result;

/// The engine that serves `db`: the only place a database picks its code.
pub fn engine(db: Database) -> &'static dyn Engine {
    match db {
        Database::Pg => &postgres::engine::POSTGRESQL,
        Database::Maria => &mysql::engine::MARIADB,
        Database::Mysql => &mysql::engine::MYSQL,
    }
}

/// Connects with the settings a database's own tools use (the PostgreSQL superuser on its
/// default database; the MariaDB/MySQL user with no database selected) and reads the version.
pub async fn probe(settings: &Settings, db: Database) -> Result<ServerInfo, DbError> {
    engine(db).probe(settings).await
}

/// Options of HammerDB's dictionaries that hammer does not implement and that change what a
/// build makes: a build with one of them on is refused rather than silently ignoring it.
pub fn unsupported_build_options(settings: &Settings, db: Database) -> Vec<String> {
    engine(db)
        .unsupported_build_options()
        .iter()
        .filter(|(key, _)| settings.db(db).get_bool(key))
        .map(|(key, what)| format!("{key} ({what})"))
        .collect()
}

/// The server's version line and the settings a job records, as `(name, value)`.
pub async fn server_facts(settings: &Settings, db: Database) -> Result<engine::Facts, DbError> {
    engine(db).server_facts(settings).await
}

/// Reads `db`'s counters as its dictionary says: for TPROC-C's `counting` (PostgreSQL as
/// `pg_superuser` on `pg_defaultdbase`, NOPM as `pg_user` on `pg_dbase`; MariaDB/MySQL as
/// `*_user`), for TPROC-H's the same with the `tpch_` keys, counting queries.
pub fn counter_source(
    settings: &Settings,
    db: Database,
    counting: counter::Counting,
) -> counter::CounterSource {
    engine(db).counter_source(settings, counting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_database_has_its_own_engine() {
        for db in Database::ALL {
            assert_eq!(engine(db).database(), db, "{}", db.name());
        }
    }
}
