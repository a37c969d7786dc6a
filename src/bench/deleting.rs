//! Whether `deleteschema` may drop the database it found, and the line saying what it drops:
//! a database holding tables, none of them the chosen workload's own, is refused (settings
//! persist, so a workload chosen in an earlier session must not pick what is lost).

use super::benchmark::{Benchmark, Survey};
use crate::error::{DeleteRefusal, Error, Result};

/// Tables named in a line before the rest is counted.
const NAMED: usize = 10;

/// The line that starts a deletion, or the refusal: a database may go when it is missing or
/// empty, holds one of `bm`'s own tables (those no other workload has: a partly built schema
/// counts), or holds only tables `bm` has too. `all` is every workload (`bm` among them), whose
/// tables say whose a database is.
pub fn verdict(bm: &dyn Benchmark, all: &[&dyn Benchmark], survey: &Survey) -> Result<String> {
    let head = format!(
        "Deleting schema with 1 Virtual User: {} database {} with {} on {}",
        bm.name(),
        survey.database,
        survey.user,
        survey.server
    );
    if !survey.exists {
        return Ok(format!("{head}, which does not exist"));
    }
    let found = listed(&survey.tables);
    let size = format!("{:.1} MB", survey.bytes as f64 / 1e6);
    // A table outside the default schema is `schema.name`: its name is what counts.
    let is = |t: &str, of: &dyn Benchmark| of.owns(t.rsplit('.').next().unwrap_or(t));
    let own = |b: &dyn Benchmark, t: &str| {
        is(t, b)
            && all
                .iter()
                .filter(|o| o.name() != b.name())
                .all(|o| !is(t, *o))
    };
    let fits = survey.tables.is_empty()
        || survey.tables.iter().any(|t| own(bm, t))
        || survey.tables.iter().all(|t| is(t, bm));
    if fits {
        return Ok(format!("{head}: {found}, {size}"));
    }
    let theirs = all
        .iter()
        .find(|o| o.name() != bm.name() && survey.tables.iter().any(|t| own(**o, t)))
        .map(|o| o.name());
    Err(Error::DeleteRefused(Box::new(DeleteRefusal {
        database: survey.database.clone(),
        server: survey.server.clone(),
        found,
        workload: bm.name(),
        theirs,
        dictionary: bm.dictionary(),
        key: survey.database_key.clone(),
    })))
}

/// `3 tables (a, b, c)`, `no tables`, or the first ten and how many more.
fn listed(tables: &[String]) -> String {
    match tables.len() {
        0 => "no tables".to_string(),
        n => {
            let mut names = tables
                .iter()
                .take(NAMED)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            if n > NAMED {
                names.push_str(&format!(" and {} more", n - NAMED));
            }
            format!("{n} table{} ({names})", if n == 1 { "" } else { "s" })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn survey(tables: &[&str]) -> Survey {
        Survey {
            server: "PostgreSQL at 127.0.0.1:5432".into(),
            database: "tpch".into(),
            database_key: "pg_dbase".into(),
            user: "role tpcc".into(),
            exists: true,
            tables: tables.iter().map(|t| t.to_string()).collect(),
            bytes: 12_300_000,
        }
    }

    const TPCH: [&str; 8] = [
        "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier",
    ];

    #[test]
    fn another_workloads_schema_is_refused_and_named() {
        let c = &crate::tpcc::bench::TPROC_C;
        let e = verdict(c, &crate::workloads::ALL, &survey(&TPCH))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "deleteschema refused, nothing dropped: database tpch on PostgreSQL at \
             127.0.0.1:5432 holds 8 tables (customer, lineitem, nation, orders, part, partsupp, \
             region, supplier), none of them TPROC-C's own; they are TPROC-H's: to delete that \
             schema, dbset bm TPROC-H then deleteschema; to delete a TPROC-C schema, set its \
             database with diset tpcc pg_dbase"
        );
        // TPROC-H's shared names (customer, orders) do not make it TPROC-C's, in any case.
        let upper: Vec<String> = TPCH.iter().map(|t| t.to_uppercase()).collect();
        let upper: Vec<&str> = upper.iter().map(String::as_str).collect();
        assert!(verdict(c, &crate::workloads::ALL, &survey(&upper)).is_err());
        // And the other way round.
        let h = &crate::tpch::bench::TPROC_H;
        let e = verdict(
            h,
            &crate::workloads::ALL,
            &survey(&["warehouse", "district", "customer"]),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("they are TPROC-C's: to delete that schema, dbset bm TPROC-C"),
            "{e}"
        );
    }

    #[test]
    fn tables_of_nobodys_are_refused() {
        let c = &crate::tpcc::bench::TPROC_C;
        let e = verdict(
            c,
            &crate::workloads::ALL,
            &survey(&["accounts", "public.users"]),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "deleteschema refused, nothing dropped: database tpch on PostgreSQL at \
             127.0.0.1:5432 holds 2 tables (accounts, public.users), none of them TPROC-C's own; \
             hammer did not make them: drop the database yourself if it is to go, or set the \
             TPROC-C schema's database with diset tpcc pg_dbase"
        );
    }

    #[test]
    fn the_workloads_own_missing_partial_or_empty_schema_goes() {
        let c = &crate::tpcc::bench::TPROC_C;
        assert_eq!(
            verdict(
                c,
                &crate::workloads::ALL,
                &survey(&["district", "warehouse"])
            )
            .unwrap(),
            "Deleting schema with 1 Virtual User: TPROC-C database tpch with role tpcc on \
             PostgreSQL at 127.0.0.1:5432: 2 tables (district, warehouse), 12.3 MB"
        );
        // Its own tables beside others: it is the workload's schema, extended.
        assert!(verdict(c, &crate::workloads::ALL, &survey(&["stock", "notes"])).is_ok());
        // Only tables both workloads have: nothing says it is another's.
        assert!(verdict(c, &crate::workloads::ALL, &survey(&["customer", "orders"])).is_ok());
        assert!(verdict(c, &crate::workloads::ALL, &survey(&[]))
            .unwrap()
            .ends_with(": no tables, 12.3 MB"));
        let missing = Survey {
            exists: false,
            ..survey(&[])
        };
        assert!(verdict(c, &crate::workloads::ALL, &missing)
            .unwrap()
            .ends_with(", which does not exist"));
        let many: Vec<String> = (0..12).map(|i| format!("stock{i}")).collect();
        let mut many: Vec<&str> = many.iter().map(String::as_str).collect();
        many.push("stock");
        let line = verdict(c, &crate::workloads::ALL, &survey(&many)).unwrap();
        assert!(line.contains("13 tables (stock0, "), "{line}");
        assert!(line.contains("stock9 and 3 more), 12.3 MB"), "{line}");
    }
}
