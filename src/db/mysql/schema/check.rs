//! `checkschema` on MariaDB and MySQL: the facts of `tpcc::checks`' conditions, in MySQL's SQL.

use std::collections::{HashMap, HashSet};

use super::queries::{cell, ident, row_texts, Queries};
use crate::db::mysql::wire::{Wire, WireError};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::tpcc::checks::{self, Found, Indexes, CONDITIONS};
use crate::tpcc::fitness::NURAND_TABLE;
use crate::tpcc::schema::{Check, Say};
use crate::tpcc::Table;

/// The five transactions' stored procedures (procedures.sql).
pub(super) const PROCEDURES: [&str; 5] = ["NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV"];

/// What the checks name: the schema's database, the warehouse count's key, the server.
pub(super) struct Names<'a> {
    pub(super) db: &'a str,
    pub(super) count_ware: String,
    /// The dialect has stored routines: the procedures are checked.
    pub(super) routines: bool,
    pub(super) peer: Peer,
}

impl Names<'_> {
    fn failed(&self, action: &'static str, what: &str, e: &WireError) -> Error {
        Error::Db(
            self.peer
                .failed(action, e.kind, format!("{what}: {}", e.detail)),
        )
    }
}

/// The five procedures are there.
async fn check_procedures(
    conn: &mut Wire,
    names: &Names<'_>,
    say: &Say,
    checks: &mut Vec<Check>,
) -> Result<()> {
    say.line("Check procedures");
    let routines: HashSet<String> = conn
        .exec_texts(
            "SELECT ROUTINE_NAME FROM information_schema.ROUTINES \
             WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'PROCEDURE'",
            names.db,
        )
        .await
        .map_err(|e| names.failed("cannot check", "the procedures", &e))?
        .iter()
        .map(|r| cell(r, 0).to_ascii_uppercase())
        .collect();
    for p in PROCEDURES {
        let found = routines.contains(p).then_some("present");
        checks.push(checks::routine("procedure", p, found));
    }
    Ok(())
}

pub(super) async fn check_on(
    conn: &mut Wire,
    names: &Names<'_>,
    warehouses: u32,
    say: &Say,
) -> Result<Vec<Check>> {
    let db = names.db;
    let q = |what: &str, e: WireError| names.failed("cannot check", what, &e);
    let mut checks = Vec::new();

    say.line("Check database");
    let exists = conn
        .exec_texts(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
            db,
        )
        .await
        .map_err(|e| q("the database", e))?;
    checks.push(checks::database(db, !exists.is_empty()));
    if exists.is_empty() {
        return Ok(checks);
    }
    conn.query_drop(format!("USE {}", ident(db)))
        .await
        .map_err(|e| q("the database", e))?;

    say.line("Check tables and indices");
    let tables: HashSet<String> = conn
        .exec_texts(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
            db,
        )
        .await
        .map_err(|e| q("the tables", e))?
        .iter()
        .map(|r| cell(r, 0).to_ascii_lowercase())
        .collect();
    let indexes: HashMap<String, String> = conn
        .exec_texts(
            "SELECT TABLE_NAME, GROUP_CONCAT(DISTINCT INDEX_NAME ORDER BY INDEX_NAME SEPARATOR ', ') \
             FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? GROUP BY TABLE_NAME",
            db,
        )
        .await
        .map_err(|e| q("the indexes", e))?
        .iter()
        .map(|r| (cell(r, 0).to_ascii_lowercase(), cell(r, 1)))
        .collect();
    for table in Table::ALL {
        let t = table.name();
        checks.push(checks::table(t, tables.contains(t)));
    }
    for table in Table::ALL.into_iter().filter(|t| *t != Table::History) {
        let t = table.name();
        let found = match indexes.get(t) {
            None if !tables.contains(t) => Indexes::NoTable,
            None => Indexes::Names {
                found: "",
                missing: &[],
            },
            Some(names) => {
                let have: Vec<&str> = names.split(", ").collect();
                let missing: Vec<&str> = expected_indexes(table)
                    .iter()
                    .copied()
                    .filter(|e| !have.iter().any(|h| h.eq_ignore_ascii_case(e)))
                    .collect();
                checks.push(checks::indexes(
                    t,
                    Indexes::Names {
                        found: names,
                        missing: &missing,
                    },
                ));
                continue;
            }
        };
        checks.push(checks::indexes(t, found));
    }

    if names.routines {
        check_procedures(conn, names, say, &mut checks).await?;
    }
    let constants: Option<Vec<[String; 3]>> = if tables.contains(NURAND_TABLE) {
        let rows = conn
            .query_texts("SELECT c_last, c_id, ol_i_id FROM tpcc_nurand")
            .await
            .map_err(|e| q(NURAND_TABLE, e))?;
        Some(
            rows.iter()
                .map(|row| [0, 1, 2].map(|i| cell(row, i)))
                .collect(),
        )
    } else {
        None
    };
    checks.push(checks::nurand(constants.as_deref()));

    // Row counts, and the warehouse count against the dictionary.
    let w = u64::from(warehouses);
    let mut counts: HashMap<Table, u64> = HashMap::new();
    for table in Table::ALL {
        let t = table.name();
        if !tables.contains(t) {
            continue;
        }
        let n = conn
            .first_int(&format!("SELECT COUNT(*) FROM {t}"))
            .await
            .map_err(|e| q(&format!("the rows of {t}"), e))?
            .unwrap_or(0)
            .max(0) as u64;
        counts.insert(table, n);
    }
    let max = if tables.contains("warehouse") {
        conn.first_int("SELECT COALESCE(MAX(w_id), 0) FROM warehouse")
            .await
            .map_err(|e| q("the warehouses", e))?
            .unwrap_or(0)
            .max(0) as u64
    } else {
        0
    };
    checks.push(checks::warehouse_count(
        counts.get(&Table::Warehouse).copied(),
        max,
        w,
        &names.count_ware,
    ));
    for table in Table::ALL {
        checks.push(checks::rows(table, counts.get(&table).copied(), w));
    }

    for (i, (condition, (sql, describe))) in CONDITIONS.iter().zip(&CONSISTENCY).enumerate() {
        say.line(format!("Check consistency {}", i + 1));
        if let Some(t) = condition.tables.iter().find(|t| !tables.contains(t.name())) {
            checks.push(checks::consistency(i, Found::NoTable(t.name())));
            continue;
        }
        let first = conn
            .query_first(sql)
            .await
            .map_err(|e| q(&format!("Check consistency {}", i + 1), e))?;
        let found = match first {
            None => Found::Holds {
                units: counts.get(&condition.per.table()).copied().unwrap_or(0),
            },
            Some(row) => {
                let v = row_texts(&row);
                Found::Fails {
                    offenders: v.last().and_then(|n| n.parse().ok()).unwrap_or(0),
                    first: describe(&v),
                }
            }
        };
        checks.push(checks::consistency(i, found));
    }
    Ok(checks)
}

/// The keys tables.sql gives each table: the primary key, and the indexes Payment and
/// Order-Status use to find a customer by name and a customer's last order.
pub(super) fn expected_indexes(table: Table) -> &'static [&'static str] {
    match table {
        Table::History => &[],
        Table::Customer => &["PRIMARY", "c_w_id"],
        Table::Orders => &["PRIMARY", "o_w_id"],
        _ => &["PRIMARY"],
    }
}

/// TPC-C's consistency conditions (`tpcc::checks::CONDITIONS`, in order): a query returning
/// the first offender (its key and values, then the number of offenders) or no row at all,
/// and how to describe that offender.
pub(super) type Describe = fn(&[String]) -> String;
pub(super) const CONSISTENCY: [(&str, Describe); 4] = [
    (
        "SELECT w.w_id, w.w_ytd, d.ytd, COUNT(*) OVER () \
              FROM warehouse w \
              LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS ytd FROM district GROUP BY d_w_id) d \
                ON d.d_w_id = w.w_id \
              WHERE d.ytd IS NULL OR w.w_ytd <> d.ytd \
              ORDER BY w.w_id LIMIT 1",
        |v| {
            format!(
                "warehouse {} has W_YTD {} but sum(D_YTD) {}",
                v[0], v[1], v[2]
            )
        },
    ),
    (
        "SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.m, n.m, COUNT(*) OVER () \
              FROM district d \
              LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders \
                         GROUP BY o_w_id, o_d_id) o \
                ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
              LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order \
                         GROUP BY no_w_id, no_d_id) n \
                ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
              WHERE d.d_next_o_id - 1 <> COALESCE(o.m, 0) \
                 OR (n.m IS NOT NULL AND n.m <> COALESCE(o.m, 0)) \
              ORDER BY d.d_w_id, d.d_id LIMIT 1",
        |v| {
            format!(
                "district {} of warehouse {} has D_NEXT_O_ID {}, max(O_ID) {}, max(NO_O_ID) {}",
                v[1], v[0], v[2], v[3], v[4]
            )
        },
    ),
    (
        "SELECT no_w_id, no_d_id, COUNT(*), MIN(no_o_id), MAX(no_o_id), COUNT(*) OVER () \
              FROM new_order GROUP BY no_w_id, no_d_id \
              HAVING COUNT(*) <> MAX(no_o_id) - MIN(no_o_id) + 1 \
              ORDER BY no_w_id, no_d_id LIMIT 1",
        |v| {
            format!(
                "district {} of warehouse {} has {} new orders from {} to {}",
                v[1], v[0], v[2], v[3], v[4]
            )
        },
    ),
    (
        "SELECT d.d_w_id, d.d_id, COALESCE(o.n, 0), COALESCE(l.n, 0), COUNT(*) OVER () \
              FROM district d \
              LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS n FROM orders \
                         GROUP BY o_w_id, o_d_id) o \
                ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
              LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line \
                         GROUP BY ol_w_id, ol_d_id) l \
                ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id \
              WHERE COALESCE(o.n, 0) <> COALESCE(l.n, 0) \
              ORDER BY d.d_w_id, d.d_id LIMIT 1",
        |v| {
            format!(
                "district {} of warehouse {} has sum(O_OL_CNT) {} but {} order lines",
                v[1], v[0], v[2], v[3]
            )
        },
    ),
];
