//! The databases hammer knows by name: the one list of them (each one's dictionary prefix,
//! display name and the other names users type), the ground every other module stands on.
//! `rdbms`'s choices, `dbset db`, its errors and Tab completion all read [`DATABASES`]; which
//! code serves each database is `db::engine`'s business.

/// A database hammer supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Database {
    Pg,
    Maria,
    Mysql,
    /// CockroachDB: a dialect of the PostgreSQL family.
    Crdb,
    /// YugabyteDB's YSQL: a dialect of the PostgreSQL family.
    Yb,
    /// TiDB: a dialect of the MariaDB/MySQL family.
    Tidb,
}

/// Everything hammer knows a database by: one row of [`DATABASES`].
#[derive(Debug, Clone, Copy)]
pub struct Named {
    pub db: Database,
    /// The dictionary prefix (`dbset db pg`, `pg_count_ware`).
    pub prefix: &'static str,
    /// The display name HammerDB prints (`Database set to PostgreSQL`) and `rdbms` holds.
    pub name: &'static str,
    /// Other names users type for it (its prefix and display name count too).
    pub aliases: &'static [&'static str],
}

/// The databases hammer supports, in `Database`'s order.
pub const DATABASES: [Named; 6] = [
    Named {
        db: Database::Pg,
        prefix: "pg",
        name: "PostgreSQL",
        aliases: &["postgres", "postgre", "pgsql", "psql"],
    },
    Named {
        db: Database::Maria,
        prefix: "maria",
        name: "MariaDB",
        aliases: &[],
    },
    Named {
        db: Database::Mysql,
        prefix: "mysql",
        name: "MySQL",
        aliases: &[],
    },
    Named {
        db: Database::Crdb,
        prefix: "crdb",
        name: "CockroachDB",
        aliases: &["cockroach"],
    },
    Named {
        db: Database::Yb,
        prefix: "yb",
        name: "YugabyteDB",
        aliases: &["yugabyte", "ysql"],
    },
    Named {
        db: Database::Tidb,
        prefix: "tidb",
        name: "TiDB",
        aliases: &[],
    },
];

// Each row sits at its database's index: `Database::named` reads the list by it.
const _: () = {
    let mut i = 0;
    while i < DATABASES.len() {
        assert!(
            DATABASES[i].db as usize == i,
            "DATABASES is in Database's order"
        );
        i += 1;
    }
};

/// A database HammerDB knows that hammer does not (yet).
#[derive(Debug, Clone, Copy)]
pub struct Unsupported {
    pub prefix: &'static str,
    pub name: &'static str,
    /// Other names users type for it.
    pub aliases: &'static [&'static str],
}

/// Databases HammerDB knows that hammer does not (yet).
pub const UNSUPPORTED: &[Unsupported] = &[
    Unsupported {
        prefix: "ora",
        name: "Oracle",
        aliases: &["oracle"],
    },
    Unsupported {
        prefix: "mssqls",
        name: "MSSQLServer",
        aliases: &["mssql", "sqlserver"],
    },
    Unsupported {
        prefix: "db2",
        name: "Db2",
        aliases: &[],
    },
];

impl Unsupported {
    /// The unsupported database `typed` names: its prefix, display name or an alias, in any case.
    pub fn named(typed: &str) -> Option<&'static Unsupported> {
        UNSUPPORTED.iter().find(|u| {
            u.prefix.eq_ignore_ascii_case(typed)
                || u.name.eq_ignore_ascii_case(typed)
                || u.aliases.iter().any(|a| a.eq_ignore_ascii_case(typed))
        })
    }
}

/// `rdbms`'s choices: the display names, in the list's order.
pub const NAMES: [&str; DATABASES.len()] = {
    let mut names = [""; DATABASES.len()];
    let mut i = 0;
    while i < DATABASES.len() {
        names[i] = DATABASES[i].name;
        i += 1;
    }
    names
};

impl Database {
    pub const ALL: [Database; DATABASES.len()] = {
        let mut all = [Database::Pg; DATABASES.len()];
        let mut i = 0;
        while i < DATABASES.len() {
            all[i] = DATABASES[i].db;
            i += 1;
        }
        all
    };

    /// Its row of [`DATABASES`].
    pub fn named(self) -> &'static Named {
        &DATABASES[self.index()]
    }

    /// The dictionary prefix (`dbset db pg`).
    pub fn prefix(self) -> &'static str {
        self.named().prefix
    }

    /// The display name HammerDB prints (`Database set to PostgreSQL`).
    pub fn name(self) -> &'static str {
        self.named().name
    }

    /// The name of one of its dictionary's keys: `key("count_ware")` is `pg_count_ware` for
    /// PostgreSQL, `maria_count_ware` for MariaDB.
    pub fn key(self, name: &str) -> String {
        format!("{}_{name}", self.prefix())
    }

    pub fn from_prefix(prefix: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|d| d.prefix().eq_ignore_ascii_case(prefix))
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(name))
    }

    /// The database `typed` names: its prefix, its display name or another name users type
    /// (`postgres`, `mariadb`), in any case.
    pub fn from_typed(typed: &str) -> Option<Self> {
        Self::from_prefix(typed)
            .or_else(|| Self::from_name(typed))
            .or_else(|| {
                DATABASES
                    .iter()
                    .find(|n| n.aliases.iter().any(|a| a.eq_ignore_ascii_case(typed)))
                    .map(|n| n.db)
            })
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_finds_its_database() {
        for (typed, db) in [
            ("pg", Database::Pg),
            ("PostgreSQL", Database::Pg),
            ("postgres", Database::Pg),
            ("PSQL", Database::Pg),
            ("maria", Database::Maria),
            ("MariaDB", Database::Maria),
            ("mysql", Database::Mysql),
            ("cockroach", Database::Crdb),
            ("CockroachDB", Database::Crdb),
            ("crdb", Database::Crdb),
            ("yugabytedb", Database::Yb),
            ("YSQL", Database::Yb),
            ("yb", Database::Yb),
            ("tidb", Database::Tidb),
        ] {
            assert_eq!(Database::from_typed(typed), Some(db), "{typed}");
        }
        assert_eq!(Database::from_typed("ora"), None);
        assert_eq!(Database::Maria.key("count_ware"), "maria_count_ware");
        assert_eq!(
            NAMES,
            [
                "PostgreSQL",
                "MariaDB",
                "MySQL",
                "CockroachDB",
                "YugabyteDB",
                "TiDB"
            ]
        );
    }

    #[test]
    fn unsupported_databases_by_any_of_their_names() {
        for typed in ["ora", "Oracle", "ORACLE"] {
            assert_eq!(Unsupported::named(typed).map(|u| u.prefix), Some("ora"));
        }
        for typed in ["mssqls", "MSSQLServer", "sqlserver", "mssql"] {
            assert_eq!(Unsupported::named(typed).map(|u| u.prefix), Some("mssqls"));
        }
        assert_eq!(Unsupported::named("db2").map(|u| u.name), Some("Db2"));
        assert!(Unsupported::named("pg").is_none());
    }
}
