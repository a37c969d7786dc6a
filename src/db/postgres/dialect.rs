//! What differs between the databases of the PostgreSQL family, as one value per database:
//! the family's code asks its [`PgDialect`] and never compares databases.
//!
//! A dialect is chosen two ways, as in the MariaDB/MySQL family: by the dictionary in use
//! ([`PgDialect::of`]), which decides the SQL hammer sends (routines or client-side SQL,
//! where keys are made, isolation, placement clauses), and by the server's own `version()`
//! ([`PgDialect::of_server`]), which decides what only the server can answer (its counters,
//! how a database is dropped, the session settings it knows). A dialect pointed at another
//! kind of server (the CockroachDB dialect at a PostgreSQL) so runs its own paths on it and
//! says which server it reached.

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
    /// The words in its `version()` that tell it from the family's base (PostgreSQL), which
    /// has none.
    pub version_mark: Option<&'static str>,
    /// TPROC-C's stored routines exist (functions, or procedures with `*_storedprocs`);
    /// without them the driver runs client-side SQL whatever `*_no_stored_procs` says.
    pub routines: bool,
    /// ORDER_LINE's hash partitions (`*_partition`).
    pub partitioning: bool,
    /// Every primary key is made inside its `CREATE TABLE`, not added after the load: a
    /// distributed database stores rows in its primary key's order, and adding one later
    /// rewrites the table (CockroachDB cannot at all without a new table).
    pub keys_in_create: bool,
    /// The isolation client-side SQL's transactions begin with (`BEGIN ISOLATION LEVEL ..`);
    /// `None` takes the server's default.
    pub isolation: Option<&'static str>,
    /// `*_tspace` places the schema's database; without tablespaces it must stay
    /// `pg_default`.
    pub tablespaces: bool,
    /// YugabyteDB's placement keys: `*_colocation` (`CREATE DATABASE .. COLOCATION = true`)
    /// and `*_num_tablets` (`CREATE TABLE .. SPLIT INTO n TABLETS`).
    pub tablets: bool,
    /// How a database with sessions still on it is dropped.
    pub drop_database: DropDatabase,
    /// Roles take comments (`COMMENT ON ROLE`): how hammer marks the role it made. Without
    /// them a role is never taken for hammer's, so `delete` keeps it.
    pub role_comments: bool,
    /// The settings a loading session starts with (`SET synchronous_commit = off`), or empty.
    pub load_session: &'static str,
    /// The settings an index-building session starts with, or empty.
    pub key_session: &'static str,
    /// The statement the counters read every database's transactions and the uptime with:
    /// rows of (oid, name, commits plus rollbacks, uptime in seconds).
    pub counter_sql: &'static str,
    /// HammerDB's build options this database cannot honour, named without the prefix, with
    /// what they would make: a build with one of them on is refused.
    pub unsupported: &'static [(&'static str, &'static str)],
    /// The server its paths are tested on when its own cannot be installed where hammer is
    /// tested (`librarycheck` says so); `None` when it is tested on its own server.
    pub tested_on: Option<&'static str>,
}

/// How `delete` drops a database that sessions may still be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropDatabase {
    /// From this `server_version_num` on, `DROP DATABASE ... WITH (FORCE)` ends them; before
    /// it they are ended first (`pg_terminate_backend`).
    ForceSince(i32),
    /// `DROP DATABASE ... CASCADE` (CockroachDB: its tables go with it, whoever is on it).
    Cascade,
}

/// The options PostgreSQL's dictionary has that hammer does not build.
const PG_UNSUPPORTED: &[(&str, &str)] = &[
    ("oracompat", "EnterpriseDB Oracle compatibility"),
    ("cituscompat", "Citus distribution"),
];

/// PostgreSQL itself: the family's base, what a server is when its version names no other
/// dialect.
pub static POSTGRESQL: PgDialect = PgDialect {
    database: Database::Pg,
    server: "PostgreSQL",
    version_mark: None,
    routines: true,
    partitioning: true,
    keys_in_create: false,
    isolation: None,
    tablespaces: true,
    tablets: false,
    drop_database: DropDatabase::ForceSince(130_000),
    role_comments: true,
    load_session: "SET synchronous_commit = off",
    key_session: "SET maintenance_work_mem = '256MB'",
    counter_sql: counters::SERVER,
    unsupported: PG_UNSUPPORTED,
    tested_on: None,
};

/// CockroachDB: client-side SQL only (it has no stored routines hammer's transactions can
/// use), `SERIALIZABLE` transactions whose restarts (SQLSTATE 40001) are retried whole,
/// primary keys in `CREATE TABLE`, COPY loading, no partitions or tablespaces. Its counters
/// are the node's own (`crdb_internal.node_metrics`): the node the counter is connected to.
pub static COCKROACHDB: PgDialect = PgDialect {
    database: Database::Crdb,
    server: "CockroachDB",
    version_mark: Some("CockroachDB"),
    routines: false,
    partitioning: false,
    keys_in_create: true,
    isolation: Some("SERIALIZABLE"),
    tablespaces: false,
    tablets: false,
    drop_database: DropDatabase::Cascade,
    role_comments: false,
    load_session: "",
    key_session: "",
    counter_sql: counters::CRDB_NODE,
    unsupported: &[
        ("oracompat", "EnterpriseDB Oracle compatibility"),
        ("cituscompat", "Citus distribution"),
        ("partition", "ORDER_LINE's hash partitions"),
        ("storedprocs", "stored procedures"),
    ],
    tested_on: Some("PostgreSQL"),
};

/// YugabyteDB's YSQL: functions and procedures as PostgreSQL's, primary keys in
/// `CREATE TABLE` (its tables are stored by them), colocation and tablet splits as keys, no
/// partitions; its conflicts (SQLSTATE 40001) are retried whole.
pub static YUGABYTEDB: PgDialect = PgDialect {
    database: Database::Yb,
    server: "YugabyteDB",
    version_mark: Some("-YB-"),
    routines: true,
    partitioning: false,
    keys_in_create: true,
    isolation: None,
    tablespaces: true,
    tablets: true,
    drop_database: DropDatabase::ForceSince(130_000),
    role_comments: true,
    load_session: "SET synchronous_commit = off",
    key_session: "",
    counter_sql: counters::SERVER,
    unsupported: &[
        ("oracompat", "EnterpriseDB Oracle compatibility"),
        ("cituscompat", "Citus distribution"),
        ("partition", "ORDER_LINE's hash partitions"),
    ],
    tested_on: Some("PostgreSQL"),
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
    pub const ALL: [&'static PgDialect; 3] = [&COCKROACHDB, &YUGABYTEDB, &POSTGRESQL];

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

    /// The dialect a server is, from its `version()`: the one whose mark the text holds,
    /// else the base.
    pub fn of_server(version: &str) -> &'static PgDialect {
        Self::ALL
            .into_iter()
            .find(|d| d.version_mark.is_some_and(|m| version.contains(m)))
            .unwrap_or(&POSTGRESQL)
    }

    /// The dialect the server behind `client` is, from its `version()`.
    pub async fn of_client(
        client: &tokio_postgres::Client,
    ) -> Result<&'static PgDialect, tokio_postgres::Error> {
        let messages = client.simple_query("SELECT version()").await?;
        let version = counters::first_cell(&messages, 0).unwrap_or_default();
        Ok(Self::of_server(&version))
    }

    /// The line that says a server of another kind was reached: `None` when `reached` is
    /// this dialect.
    pub fn reached(&self, reached: &'static PgDialect, addr: &str) -> Option<String> {
        (!std::ptr::eq(self, reached)).then(|| {
            format!(
                "the {} dialect reached a {} server at {addr}: it runs its own SQL there, \
                 and reads what only the server answers (counters, catalogs) as {}'s",
                self.server, reached.server, reached.server
            )
        })
    }

    /// `BEGIN`, with the dialect's isolation when it has one.
    pub fn begin(&self) -> String {
        match self.isolation {
            Some(level) => format!("BEGIN ISOLATION LEVEL {level}"),
            None => "BEGIN".to_string(),
        }
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
    fn a_server_is_the_dialect_its_version_names() {
        for (version, server) in [
            (
                "PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64-pc-linux-gnu",
                "PostgreSQL",
            ),
            (
                "PostgreSQL 11.2-YB-2.20.1.0-b0 on x86_64-pc-linux-gnu, compiled by clang",
                "YugabyteDB",
            ),
            (
                "CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27)",
                "CockroachDB",
            ),
            ("", "PostgreSQL"),
        ] {
            assert_eq!(PgDialect::of_server(version).server, server, "{version}");
        }
        let unmarked: Vec<_> = PgDialect::ALL
            .iter()
            .filter(|d| d.version_mark.is_none())
            .collect();
        assert_eq!(unmarked.len(), 1);
        assert!(std::ptr::eq(*unmarked[0], &POSTGRESQL));
    }

    #[test]
    fn a_dialect_says_when_it_reached_another_kind_of_server() {
        assert_eq!(POSTGRESQL.reached(&POSTGRESQL, "127.0.0.1:5432"), None);
        let line = COCKROACHDB
            .reached(&POSTGRESQL, "127.0.0.1:5432")
            .expect("another server");
        assert!(
            line.starts_with(
                "the CockroachDB dialect reached a PostgreSQL server at 127.0.0.1:5432"
            ),
            "{line}"
        );
        assert!(!line.contains('\n'), "one line: {line}");
    }

    #[test]
    fn each_dialects_capabilities() {
        let s = Settings::defaults();
        // CockroachDB: client-side SQL under SERIALIZABLE, keys in CREATE TABLE.
        assert_eq!(COCKROACHDB.routines(&s), Routines::ClientSql);
        assert_eq!(COCKROACHDB.begin(), "BEGIN ISOLATION LEVEL SERIALIZABLE");
        assert!(COCKROACHDB.keys_in_create && !COCKROACHDB.partitioning);
        assert!(!COCKROACHDB.tablespaces && !COCKROACHDB.role_comments);
        assert_eq!(COCKROACHDB.drop_database, DropDatabase::Cascade);
        assert!(COCKROACHDB.load_session.is_empty() && COCKROACHDB.key_session.is_empty());
        // YugabyteDB: PostgreSQL's routines, keys in CREATE TABLE, its placement keys.
        assert_eq!(YUGABYTEDB.routines(&s), Routines::Functions);
        assert_eq!(YUGABYTEDB.begin(), "BEGIN");
        assert!(YUGABYTEDB.keys_in_create && YUGABYTEDB.tablets && !YUGABYTEDB.partitioning);
        // PostgreSQL: as it always was.
        assert_eq!(POSTGRESQL.begin(), "BEGIN");
        assert!(!POSTGRESQL.keys_in_create && POSTGRESQL.partitioning);
        // What a dialect cannot build is refused under its own prefix.
        for d in PgDialect::ALL {
            let names: Vec<_> = d.unsupported.iter().map(|(n, _)| *n).collect();
            assert_eq!(
                names.contains(&"partition"),
                !d.partitioning,
                "{}",
                d.server
            );
        }
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
