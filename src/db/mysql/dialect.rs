//! What differs between the databases of the MariaDB/MySQL family, as one value per database:
//! the family's code asks its [`MyDialect`] and never compares databases.
//!
//! A dialect is chosen two ways that give the same values: by the dictionary in use
//! ([`MyDialect::of`], for what is decided before a server answers: keys, the password rule,
//! option-file groups) and by the server's own version text ([`MyDialect::of_server`], for
//! what the server decides: `dbset db mysql` may point at a MariaDB).

use crate::config::keys::{self, Family, MyDefaults};
use crate::config::Database;

/// One database of the MariaDB/MySQL family.
#[derive(Debug)]
pub struct MyDialect {
    /// The dictionary it reads (`maria_*` keys).
    pub database: Database,
    /// What the server calls itself (`MariaDB 10.11.19-MariaDB`).
    pub server: &'static str,
    /// The word in its `version()` that tells it from the family's base (MySQL), which has
    /// none.
    pub version_mark: Option<&'static str>,
    /// TPROC-C's stored procedures exist; without them the driver runs client-side SQL
    /// whatever `*_no_stored_procs` says, and the build creates none.
    pub routines: bool,
    /// Compound statements outside a routine (`BEGIN NOT ATOMIC`): client-side SQL's
    /// blocks, and the quiet NEWORD call.
    pub compound_statements: bool,
    /// ORDER_LINE's hash partitions (`*_partition`).
    pub partitioning: bool,
    /// HISTORY's invisible key column needs this version or later (`*_history_pk`).
    pub invisible_pk_since: (u16, u16, u16),
    /// The password `null` means no password (MariaDB's dictionary rule).
    pub null_password: bool,
    /// The option-file groups its clients read a password from, in their order.
    pub option_groups: &'static [&'static str],
    /// The bulk load path tried first (the other is multi-row INSERTs).
    pub bulk: Bulk,
    /// The statement the counter reads the statements run and the uptime with.
    pub status_sql: &'static str,
    /// Its own error codes for a transaction to run again (TiDB's write conflicts), beyond
    /// the family's deadlocks, lock wait timeouts and SQLSTATE 40001.
    pub retry_codes: &'static [u16],
    /// HammerDB's build options this database cannot honour, named without the prefix, with
    /// what they would make: a build with one of them on is refused.
    pub unsupported: &'static [(&'static str, &'static str)],
    /// The server its paths are tested on when its own cannot be installed where hammer is
    /// tested (`librarycheck` says so); `None` when it is tested on its own server.
    pub tested_on: Option<&'static str>,
}

/// How a build loads its rows first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    /// `LOAD DATA LOCAL INFILE`, falling back to INSERTs where the server refuses it.
    LoadDataLocal,
    /// Multi-row INSERTs only.
    Insert,
}

/// The statements the server has run, those that read its status, and its uptime.
pub const STATUS_SQL: &str =
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Queries', 'Com_show_status', 'Uptime')";

/// MariaDB.
pub static MARIADB: MyDialect = MyDialect {
    database: Database::Maria,
    server: "MariaDB",
    version_mark: Some("MariaDB"),
    routines: true,
    compound_statements: true,
    partitioning: true,
    invisible_pk_since: (10, 3, 3),
    null_password: true,
    option_groups: &["client", "client-server", "client-mariadb"],
    bulk: Bulk::LoadDataLocal,
    status_sql: STATUS_SQL,
    retry_codes: &[],
    unsupported: &[],
    tested_on: None,
};

/// TiDB: no stored procedures (client-side SQL, without compound statements), `LOAD DATA
/// LOCAL` loading, no partitions; its optimistic transactions' conflicts are retried whole.
pub static TIDB: MyDialect = MyDialect {
    database: Database::Tidb,
    server: "TiDB",
    version_mark: Some("TiDB"),
    routines: false,
    compound_statements: false,
    partitioning: false,
    // No invisible columns: HISTORY's key column (`*_history_pk`) is a visible one.
    invisible_pk_since: (u16::MAX, 0, 0),
    null_password: false,
    option_groups: &["client"],
    bulk: Bulk::LoadDataLocal,
    status_sql: STATUS_SQL,
    // 9007 write conflict, 8002 a SELECT FOR UPDATE's conflict, 8022 a retried commit's
    // failure, 8028 the schema changed under the transaction.
    retry_codes: &[9007, 8002, 8022, 8028],
    unsupported: &[("partition", "ORDER_LINE's hash partitions")],
    tested_on: Some("MariaDB"),
};

/// MySQL: the family's base, what a server is when its version names no other dialect.
pub static MYSQL: MyDialect = MyDialect {
    database: Database::Mysql,
    server: "MySQL",
    version_mark: None,
    routines: true,
    compound_statements: false,
    partitioning: true,
    invisible_pk_since: (8, 0, 30),
    null_password: false,
    option_groups: &["client"],
    bulk: Bulk::LoadDataLocal,
    status_sql: STATUS_SQL,
    retry_codes: &[],
    unsupported: &[],
    tested_on: None,
};

impl MyDialect {
    /// The family's dialects; the base (no version mark) last.
    pub const ALL: [&'static MyDialect; 3] = [&MARIADB, &TIDB, &MYSQL];

    /// The dialect of `db`'s dictionary, for code that holds only the database (a login made
    /// from settings, a test); the engine's code is handed its dialect. Every database of the
    /// family has exactly one (a test holds `ALL` to it); asking for another family's database
    /// is a bug in the caller, and panics.
    pub fn of(db: Database) -> &'static MyDialect {
        Self::ALL
            .into_iter()
            .find(|d| d.database == db)
            .unwrap_or_else(|| panic!("{} is not a MariaDB/MySQL-family database", db.name()))
    }

    /// The dialect a server is, from its version text (`version()`, or the handshake's):
    /// the one whose mark the text holds, else the base.
    pub fn of_server(version: &str) -> &'static MyDialect {
        Self::ALL
            .into_iter()
            .find(|d| d.version_mark.is_some_and(|m| version.contains(m)))
            .unwrap_or(&MYSQL)
    }

    /// Whether `code` is one of any dialect's own codes for a transaction to run again: the
    /// server's greeting, not the dictionary, says which dialect answered.
    pub fn retry_code(code: u16) -> bool {
        Self::ALL.iter().any(|d| d.retry_codes.contains(&code))
    }

    /// The line that says a server of another kind was reached: `None` when `reached` is
    /// this dialect.
    pub fn reached(&self, reached: &'static MyDialect, addr: &str) -> Option<String> {
        (!std::ptr::eq(self, reached)).then(|| {
            format!(
                "the {} dialect reached a {} server at {addr}: it runs its own SQL there, \
                 and reads what only the server answers (status, version) as {}'s",
                self.server, reached.server, reached.server
            )
        })
    }

    /// Its dictionary's defaults (socket, port, user, password, the keys only it has), as
    /// `config::keys` holds them for its database.
    pub fn defaults(&self) -> &'static MyDefaults {
        match keys::family(self.database) {
            Family::My(defaults) => defaults,
            Family::Pg(_) => panic!("{} has a PostgreSQL dictionary", self.database.name()),
        }
    }

    /// The name of one of its dictionary's keys: `maria_count_ware`.
    pub fn key(&self, name: &str) -> String {
        self.database.key(name)
    }

    /// Whether TPROC-C runs client-side SQL: asked (`*_no_stored_procs`), or no routines.
    pub fn client_sql(&self, settings: &crate::config::Settings) -> bool {
        !self.routines
            || settings
                .db(self.database)
                .get_bool(&self.key("no_stored_procs"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_database_of_the_family_has_exactly_one_dialect() {
        assert!(std::ptr::eq(MyDialect::of(Database::Maria), &MARIADB));
        assert!(std::ptr::eq(MyDialect::of(Database::Mysql), &MYSQL));
        for db in Database::ALL {
            let dialects = MyDialect::ALL.iter().filter(|d| d.database == db).count();
            let mine = matches!(keys::family(db), Family::My(_));
            assert_eq!(dialects, usize::from(mine), "{}", db.name());
        }
        for d in MyDialect::ALL {
            assert!(std::ptr::eq(MyDialect::of(d.database), d), "{}", d.server);
        }
        assert_eq!(MARIADB.key("count_ware"), "maria_count_ware");
        assert_eq!(MYSQL.defaults().pass, "mysql");
        assert_eq!(MARIADB.defaults().socket, "/tmp/mariadb.sock");
    }

    #[test]
    #[should_panic(expected = "PostgreSQL is not a MariaDB/MySQL-family database")]
    fn another_familys_database_has_no_dialect_here() {
        MyDialect::of(Database::Pg);
    }

    #[test]
    fn a_server_is_the_dialect_its_version_names() {
        for (version, server) in [
            ("10.11.19-MariaDB-0+deb12u1", "MariaDB"),
            ("5.5.5-10.11.19-MariaDB-0+deb12u1", "MariaDB"),
            ("11.8.2-MariaDB", "MariaDB"),
            ("8.0.36", "MySQL"),
            ("8.0.11-TiDB-v7.5.0", "TiDB"),
            ("5.7.25-TiDB-v6.5.0", "TiDB"),
            ("8.4.0-commercial", "MySQL"),
            ("", "MySQL"),
        ] {
            assert_eq!(MyDialect::of_server(version).server, server, "{version}");
        }
    }

    #[test]
    fn tidb_runs_client_side_sql_loads_with_load_data_and_retries_its_conflicts() {
        let s = crate::config::Settings::defaults();
        assert!(TIDB.client_sql(&s) && !TIDB.routines && !TIDB.compound_statements);
        assert!(!MARIADB.client_sql(&s));
        assert_eq!(TIDB.bulk, Bulk::LoadDataLocal);
        assert!(!TIDB.partitioning);
        for code in [9007, 8002, 8022, 8028] {
            assert!(MyDialect::retry_code(code), "{code}");
        }
        assert!(!MyDialect::retry_code(1062));
        assert_eq!(TIDB.defaults().port, "4000");
        assert_eq!(TIDB.reached(&TIDB, "x"), None);
        let line = TIDB.reached(&MARIADB, "127.0.0.1:3306").expect("another");
        assert!(line.starts_with("the TiDB dialect reached a MariaDB server at 127.0.0.1:3306"));
    }

    #[test]
    fn only_the_base_has_no_version_mark() {
        let unmarked: Vec<_> = MyDialect::ALL
            .iter()
            .filter(|d| d.version_mark.is_none())
            .collect();
        assert_eq!(unmarked.len(), 1);
        assert!(std::ptr::eq(*unmarked[0], &MYSQL));
    }
}
