//! Connections to the databases hammer drives, and the one dispatch point: [`engine`] picks the
//! code that serves a database; nothing else matches on [`Database`] to pick code.
//!
//! An engine is a family's code for one database. A family (`db::postgres`, `db::mysql`) holds
//! one dialect value per database it serves (`postgres::dialect::PgDialect`,
//! `mysql::dialect::MyDialect`) saying what differs between them: stored routines or none,
//! partitioning, the bulk load path, the counter SQL, version floors, the dictionary's prefix
//! and defaults, the option-file groups, the `null` password rule. The family's code asks its
//! dialect and never compares databases; where the server must decide (`dbset db mysql` may
//! reach a MariaDB) its version text picks the same values (`MyDialect::of_server`). A database
//! that speaks a family's protocol with its own SQL differences (YugabyteDB or CockroachDB for
//! PostgreSQL, TiDB for MySQL, as MariaDB is for MySQL today) is a dialect of that family, not
//! a copy of it. `db::net` holds what every family's connection shares (socket, TLS).
//!
//! Adding a dialect (a database of an existing family), in order:
//! 1. `crate::database`: a `Database` variant and its row in `DATABASES` (prefix, display name,
//!    the aliases users type); `rdbms`, `dbset db`, its errors and Tab completion read that row;
//! 2. `config::keys`: its defaults row, one const (`MyDefaults`: host, port, socket, user,
//!    password and the keys only it has; `PgDefaults`: host, port, superuser and its password,
//!    default database, tablespace) and its arm in `keys::family` (the compiler asks for it),
//!    the one place that says which defaults a database has; its `tpch_` logins take the same
//!    values. HammerDB's options it cannot build are its engine's `unsupported_build_options`,
//!    named without the prefix;
//! 3. the family's `dialect.rs`: one static value (`MyDialect` or `PgDialect`) saying what
//!    differs, added to the family's `ALL` (a test holds every database of the family to
//!    exactly one dialect there); its `server` is the word `librarycheck`, `server_facts` and
//!    the job record put before the version (`CockroachDB 23.1`), and for MySQL-family servers
//!    its `version_mark` is the word its `version()` holds, by which a server reached through
//!    another dictionary is still named as what it is (a PostgreSQL-family dialect's
//!    `version_mark` is likewise looked for in `version()`); `tested_on` names the server its
//!    paths are tested on when its own cannot be installed, which `librarycheck` says;
//! 4. the family's `engine.rs`: one static engine made from it (`Mysql::of(&dialect::TIDB)`),
//!    which hands that dialect to everything the family builds (schema, driver, TPROC-H schema,
//!    logins, counters);
//! 5. one arm in [`engine`] below, and its name in `dbset`'s help (`crate::commands`, whose
//!    test asks for every database's prefix);
//! 6. README's "Connections and security" section: its connection keys and defaults;
//! 7. its test server: `scripts/ci/servers.sh`, its fields in `tests/common/mod.rs`'s
//!    `Servers` (with `configure` and `require`), and its row in the engine-generic tests
//!    (`tests/engines.rs`), which put every engine through the same battery.
//!
//! A dialect without stored routines (`routines: false`) gets client-side SQL for TPROC-C
//! whatever `*_no_stored_procs` says, a build that creates no routines and a check that asks
//! for none; a MySQL-family dialect without a bulk load path (`bulk: Bulk::Insert`) loads with
//! multi-row INSERTs; without partitioning (`partitioning: false`) `*_partition` builds one
//! ORDER_LINE. None of these needs code outside its dialect value.
//!
//! Adding an engine (a new family):
//! 1. as step 1 for a dialect;
//! 2. `config::keys`: a `Family` variant with its defaults type and row, and its dictionary's
//!    keys (a `*_keys` function beside `pg_keys` and `mysql_family_keys`, and its arm in
//!    `tpch_keys`);
//! 3. a new folder `db/<family>/`: `mod.rs` its logins (a target made from the dictionary and
//!    `crate::endpoint`'s endpoint) and `probe`, `dialect.rs` its dialect values (with a test
//!    that every database of the family has exactly one), `engine.rs` implementing
//!    [`engine::Engine`] (`probe`, `server_facts` naming the server by its dialect,
//!    `script_conn`, `counter_source`), `wire/` or a client crate, `counter.rs` the
//!    transaction counter's reading, and each workload's family trait (TPROC-C's
//!    `tpcc::support::Family`: its `schema.rs` builder and `driver.rs`; TPROC-H's
//!    `tpch::support::Family`: `schema/tpch.rs` and its queries), each offered in its
//!    `Engine::offers`;
//! 4. `crate::endpoint`: where its dictionary's TLS keys are named differently from
//!    PostgreSQL's (`*_sslmode`) and MariaDB/MySQL's (`*_ssl`, `*_ssl_ca`), their reading in
//!    `Destination::from_dict`;
//! 5. one arm in [`engine`] below, and its name in `dbset`'s help (`crate::commands`);
//! 6. and 7. as for a dialect, SQL files under `schemas/<prefix>/`.

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
        Database::Crdb => &postgres::engine::COCKROACHDB,
        Database::Yb => &postgres::engine::YUGABYTEDB,
        Database::Tidb => &mysql::engine::TIDB,
    }
}

/// What `librarycheck` says of a dialect tested on `on` rather than on its own server.
pub(crate) fn untested(server: &str, on: &str) -> String {
    format!(
        "hammer's {server} dialect has not been run against {server} here: its paths are \
         tested on {on} only"
    )
}

/// Connects with the settings a database's own tools use (the PostgreSQL superuser on its
/// default database; the MariaDB/MySQL user with no database selected) and reads the version.
pub async fn probe(settings: &Settings, db: Database) -> Result<ServerInfo, DbError> {
    engine(db).probe(settings).await
}

/// Options of HammerDB's dictionaries that hammer does not implement and that change what a
/// build makes: a build with one of them on is refused rather than silently ignoring it.
pub fn unsupported_build_options(settings: &Settings, db: Database) -> Vec<String> {
    let dict = settings.db(db);
    engine(db)
        .unsupported_build_options()
        .iter()
        .map(|(name, what)| (db.key(name), what))
        .filter(|(key, _)| dict.spec(key).is_some() && dict.get_bool(key))
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

    #[test]
    fn unsupported_build_options_are_named_under_each_databases_prefix() {
        for db in Database::ALL {
            let defaults = Settings::defaults();
            assert!(unsupported_build_options(&defaults, db).is_empty());
            for (name, _) in engine(db).unsupported_build_options() {
                let key = db.key(name);
                assert!(!name.starts_with(&db.key("")), "{name} is a bare name");
                assert!(defaults.db(db).spec(&key).is_some(), "{key}");
            }
        }
        let mut s = Settings::defaults();
        let pg = crate::config::Target::Db(Database::Pg);
        s.set(pg, "tpcc", "pg_cituscompat", "true").unwrap();
        assert_eq!(
            unsupported_build_options(&s, Database::Pg),
            ["pg_cituscompat (Citus distribution)"]
        );
    }

    #[test]
    fn each_engine_carries_its_databases_dialect() {
        for d in mysql::dialect::MyDialect::ALL {
            assert!(std::ptr::eq(mysql::dialect::MyDialect::of(d.database), d));
            assert_eq!(engine(d.database).database(), d.database);
        }
        assert!(std::ptr::eq(
            mysql::engine::MARIADB.dialect(),
            &mysql::dialect::MARIADB
        ));
        assert!(std::ptr::eq(
            mysql::engine::MYSQL.dialect(),
            &mysql::dialect::MYSQL
        ));
        assert!(std::ptr::eq(
            postgres::engine::POSTGRESQL.dialect(),
            &postgres::dialect::POSTGRESQL
        ));
        for d in postgres::dialect::PgDialect::ALL {
            assert_eq!(engine(d.database).database(), d.database);
        }
    }
}
