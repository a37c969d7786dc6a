//! What `deleteschema` drops under OLTP (sysbench's `cleanup`): the database, as the other
//! workloads do, when it holds nothing but `sbtest` tables; only the `sbtest` tables, as
//! sysbench's `cleanup` does, when it holds others too (sysbench users often prepare into a
//! database that has more in it); and nothing, refused, when none of its tables is an
//! `sbtest` table ([`crate::bench::deleting::verdict`]).

use super::schema::Say;
use super::{Table, NAME};
use crate::bench::{Benchmark, Survey};
use crate::error::Result;
use crate::sql::ScriptConn;

/// What a delete drops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dropping {
    /// The database, and the login where the engine drops it.
    Database,
    /// These tables only; the database keeps its other tables.
    Tables(Vec<Table>),
}

/// The line that starts the delete and what it drops, or the refusal. `bm` is OLTP, `all`
/// every workload.
pub fn plan(
    bm: &dyn Benchmark,
    all: &[&dyn Benchmark],
    survey: &Survey,
) -> Result<(String, Dropping)> {
    let line = crate::bench::deleting::verdict(bm, all, survey)?;
    let own = |t: &String| !t.contains('.') && Table::is_one(t);
    let others: Vec<&String> = survey.tables.iter().filter(|t| !own(t)).collect();
    if !survey.exists || others.is_empty() {
        return Ok((line, Dropping::Database));
    }
    let mut tables: Vec<Table> = survey
        .tables
        .iter()
        .filter(|t| own(t))
        .filter_map(|t| Table::parse(t))
        .collect();
    tables.sort();
    let kept = others
        .iter()
        .take(10)
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let more = if others.len() > 10 {
        format!(" and {} more", others.len() - 10)
    } else {
        String::new()
    };
    let line = format!(
        "Deleting the {NAME} tables with 1 Virtual User: {} of database {} on {}, as sysbench's \
         cleanup does; the database and its other tables ({kept}{more}) stay",
        tables.len(),
        survey.database,
        survey.server
    );
    Ok((line, Dropping::Tables(tables)))
}

/// Drops `tables` on `conn` (the schema owner's), one line each as sysbench says it, and
/// closes the connection.
pub async fn drop_tables(
    mut conn: ScriptConn,
    tables: &[Table],
    database: &str,
    say: &Say,
) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let mut outcome: Result<()> = Ok(());
    for t in tables {
        let line = format!("Dropping table '{}'...", t.name());
        say.line(&line);
        lines.push(line);
        if let Err(e) = conn
            .execute(&format!("DROP TABLE IF EXISTS {}", t.name()))
            .await
        {
            outcome = Err(e.into());
            break;
        }
    }
    conn.close().await;
    outcome?;
    let line = format!(
        "{} {NAME} tables of database {database} have been deleted successfully.",
        tables.len()
    );
    say.line(&line);
    lines.push(line);
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn survey(tables: &[&str]) -> Survey {
        Survey {
            server: "MariaDB at 127.0.0.1:3306".into(),
            database: "sbtest".into(),
            database_key: "maria_oltp_dbase".into(),
            user: "user root (kept)".into(),
            exists: true,
            tables: tables.iter().map(|t| t.to_string()).collect(),
            bytes: 1_000_000,
        }
    }

    fn oltp() -> &'static dyn Benchmark {
        &crate::oltp::bench::OLTP
    }

    #[test]
    fn a_database_of_sbtest_tables_alone_goes() {
        let (line, drop) = plan(
            oltp(),
            &crate::workloads::ALL,
            &survey(&["sbtest1", "sbtest2"]),
        )
        .unwrap();
        assert_eq!(drop, Dropping::Database);
        assert_eq!(
            line,
            "Deleting schema with 1 Virtual User: OLTP database sbtest with user root (kept) on \
             MariaDB at 127.0.0.1:3306: 2 tables (sbtest1, sbtest2), 1.0 MB"
        );
        let missing = Survey {
            exists: false,
            ..survey(&[])
        };
        assert_eq!(
            plan(oltp(), &crate::workloads::ALL, &missing).unwrap().1,
            Dropping::Database
        );
    }

    #[test]
    fn beside_other_tables_only_the_sbtest_tables_go() {
        let (line, drop) = plan(
            oltp(),
            &crate::workloads::ALL,
            &survey(&["accounts", "sbtest10", "sbtest2", "sbtest_notes"]),
        )
        .unwrap();
        assert_eq!(drop, Dropping::Tables(vec![Table(2), Table(10)]));
        assert_eq!(
            line,
            "Deleting the OLTP tables with 1 Virtual User: 2 of database sbtest on MariaDB at \
             127.0.0.1:3306, as sysbench's cleanup does; the database and its other tables \
             (accounts, sbtest_notes) stay"
        );
    }

    #[test]
    fn a_database_without_sbtest_tables_is_refused() {
        let e = plan(
            oltp(),
            &crate::workloads::ALL,
            &survey(&["accounts", "users"]),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("deleteschema refused, nothing dropped: database sbtest on MariaDB"),
            "{e}"
        );
        assert!(e.contains("none of them OLTP's own"), "{e}");
        // Another workload's tables are named as theirs.
        let e = plan(
            oltp(),
            &crate::workloads::ALL,
            &survey(&["warehouse", "district"]),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("they are TPROC-C's"), "{e}");
    }
}
