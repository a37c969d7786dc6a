//! The databases hammer knows by name: each one's dictionary prefix and display name, the ground
//! every other module stands on. Which code serves each is `db::engine`'s business.

/// A database hammer supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Database {
    Pg,
    Maria,
    Mysql,
}

/// Databases HammerDB knows that hammer does not (yet): prefix and display name.
pub const UNSUPPORTED: &[(&str, &str)] =
    &[("ora", "Oracle"), ("mssqls", "MSSQLServer"), ("db2", "Db2")];

impl Database {
    pub const ALL: [Database; 3] = [Database::Pg, Database::Maria, Database::Mysql];

    /// The dictionary prefix (`dbset db pg`).
    pub fn prefix(self) -> &'static str {
        match self {
            Database::Pg => "pg",
            Database::Maria => "maria",
            Database::Mysql => "mysql",
        }
    }

    /// The display name HammerDB prints (`Database set to PostgreSQL`).
    pub fn name(self) -> &'static str {
        match self {
            Database::Pg => "PostgreSQL",
            Database::Maria => "MariaDB",
            Database::Mysql => "MySQL",
        }
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

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}
