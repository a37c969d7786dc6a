//! What differs between the databases of the PostgreSQL family, as one value per database:
//! the family's code asks its [`PgDialect`] and never compares databases. PostgreSQL is the
//! only one today; a PostgreSQL-speaking database with its own SQL differences (CockroachDB,
//! YugabyteDB) is one more value here and its rows in `config::keys` and `crate::database`.

use crate::config::keys::{self, Family, PgDefaults};
use crate::config::{Database, Settings};
use crate::db::postgres::driver::counters;

/// One database of the PostgreSQL family.
#[derive(Debug)]
pub struct PgDialect {
    /// The dictionary it reads (`pg_*` keys).
    pub database: Database,
    /// What the server calls itself, the word before its version (`PostgreSQL 15.1`).
    pub server: &'static str,
    /// TPROC-C's stored routines exist (functions, or procedures with `*_storedprocs`);
    /// without them the driver runs client-side SQL whatever `*_no_stored_procs` says.
    pub routines: bool,
    /// ORDER_LINE's hash partitions (`*_partition`).
    pub partitioning: bool,
    /// From this `server_version_num` on, `DROP DATABASE ... WITH (FORCE)` ends the sessions
    /// still on a database; before it they are ended first.
    pub drop_force_since: i32,
    /// The statement the counters read every database's transactions and the uptime with:
    /// rows of (oid, name, commits plus rollbacks, uptime in seconds).
    pub counter_sql: &'static str,
}

/// PostgreSQL itself.
pub static POSTGRESQL: PgDialect = PgDialect {
    database: Database::Pg,
    server: "PostgreSQL",
    routines: true,
    partitioning: true,
    drop_force_since: 130_000,
    counter_sql: counters::SERVER,
};

/// How TPROC-C's transactions run on a PostgreSQL-family server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routines {
    /// `SELECT fn(...)`: HammerDB's default.
    Functions,
    /// `CALL proc(...)` (`*_storedprocs`).
    Procedures,
    /// The transactions' SQL sent by the client (`*_no_stored_procs`, or no routines).
    ClientSql,
}

impl PgDialect {
    /// The family's dialects.
    pub const ALL: [&'static PgDialect; 1] = [&POSTGRESQL];

    /// The dialect of `db`'s dictionary, for code that holds only the database (a login made
    /// from settings, a test); the engine's code is handed its dialect. Every database of the
    /// family has exactly one (a test holds `ALL` to it); asking for another family's database
    /// is a bug in the caller, and panics.
    pub fn of(db: Database) -> &'static PgDialect {
        Self::ALL
            .into_iter()
            .find(|d| d.database == db)
            .unwrap_or_else(|| panic!("{} is not a PostgreSQL-family database", db.name()))
    }

    /// Its dictionary's defaults (host, port, superuser, default database, tablespace), as
    /// `config::keys` holds them for its database.
    pub fn defaults(&self) -> &'static PgDefaults {
        match keys::family(self.database) {
            Family::Pg(defaults) => defaults,
            Family::My(_) => panic!("{} has a MariaDB/MySQL dictionary", self.database.name()),
        }
    }

    /// The name of one of its dictionary's keys: `pg_count_ware`.
    pub fn key(&self, name: &str) -> String {
        self.database.key(name)
    }

    /// How TPROC-C runs, as the dictionary asks and the dialect allows.
    pub fn routines(&self, settings: &Settings) -> Routines {
        let d = settings.db(self.database);
        if !self.routines || d.get_bool(&self.key("no_stored_procs")) {
            Routines::ClientSql
        } else if d.get_bool(&self.key("storedprocs")) {
            Routines::Procedures
        } else {
            Routines::Functions
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Target;

    #[test]
    fn each_database_of_the_family_has_exactly_one_dialect() {
        assert!(std::ptr::eq(PgDialect::of(Database::Pg), &POSTGRESQL));
        for db in Database::ALL {
            let dialects = PgDialect::ALL.iter().filter(|d| d.database == db).count();
            let mine = matches!(keys::family(db), Family::Pg(_));
            assert_eq!(dialects, usize::from(mine), "{}", db.name());
        }
        for d in PgDialect::ALL {
            assert!(std::ptr::eq(PgDialect::of(d.database), d), "{}", d.server);
        }
        assert_eq!(POSTGRESQL.key("count_ware"), "pg_count_ware");
        assert_eq!(POSTGRESQL.defaults().superuser, "postgres");
    }

    #[test]
    #[should_panic(expected = "MariaDB is not a PostgreSQL-family database")]
    fn another_familys_database_has_no_dialect_here() {
        PgDialect::of(Database::Maria);
    }

    #[test]
    fn routines_as_the_dictionary_asks() {
        let mut s = Settings::defaults();
        assert_eq!(POSTGRESQL.routines(&s), Routines::Functions);
        let pg = Target::Db(Database::Pg);
        s.set(pg, "tpcc", "pg_storedprocs", "true").unwrap();
        assert_eq!(POSTGRESQL.routines(&s), Routines::Procedures);
        s.set(pg, "tpcc", "pg_no_stored_procs", "true").unwrap();
        assert_eq!(POSTGRESQL.routines(&s), Routines::ClientSql);
        let none = PgDialect {
            routines: false,
            ..POSTGRESQL
        };
        s.set(pg, "tpcc", "pg_no_stored_procs", "false").unwrap();
        assert_eq!(none.routines(&s), Routines::ClientSql);
    }
}
