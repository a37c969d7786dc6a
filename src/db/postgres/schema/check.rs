//! `checkschema` on PostgreSQL inside the schema database: the facts of `tpcc::checks`'
//! conditions, in PostgreSQL's SQL.

use super::statements::{failed, parallel, WORKERS};
use crate::db::postgres::{PgConn, PgTarget};
use crate::error::Result;
use crate::fault::Peer;
use crate::tpcc::checks::{self, Found, Indexes, Per, CONDITIONS};
use crate::tpcc::fitness::NURAND_TABLE;
use crate::tpcc::schema::{Check, Say};
use crate::tpcc::Table;

/// The five transactions, as functions or procedures.
pub(super) const ROUTINES: [&str; 5] = ["neword", "payment", "ostat", "delivery", "slev"];

/// The five transactions' routines are there, as functions or procedures.
async fn check_routines(
    conn: &PgConn,
    peer: &Peer,
    say: &Say,
    checks: &mut Vec<Check>,
) -> Result<()> {
    say.line("Check routines");
    let sql = "SELECT p.proname::text, p.prokind::text FROM pg_proc p
                 JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = current_schema() AND p.proname = ANY ($1::text[])";
    let found = conn
        .client
        .query(sql, &[&ROUTINES.as_slice()])
        .await
        .map_err(|e| failed(peer, "cannot check", "routines", &e))?;
    for name in ROUTINES {
        let kinds: Vec<&str> = found
            .iter()
            .filter(|r| r.get::<_, &str>(0) == name)
            .map(|r| match r.get::<_, &str>(1) {
                "p" => "procedure",
                _ => "function",
            })
            .collect();
        let kinds = kinds.join(", ");
        let found = (!kinds.is_empty()).then_some(kinds.as_str());
        checks.push(checks::routine("routine", name, found));
    }
    Ok(())
}

/// Everything `check` looks at inside the schema database, as the owner; the routines only
/// where the dialect has them (`routines`).
pub(super) async fn check_schema(
    owner: &PgTarget,
    count_ware: &str,
    routines: bool,
    conn: &PgConn,
    warehouses: u32,
    say: &Say,
    checks: &mut Vec<Check>,
) -> Result<()> {
    let peer = owner.peer();
    let db = owner.dbname.as_str();
    let query = |sql: &'static str, what: &'static str| {
        let peer = &peer;
        async move {
            conn.client
                .query(sql, &[])
                .await
                .map_err(|e| failed(peer, "cannot check", what, &e))
        }
    };

    say.line("Check tables and indices");
    let sql = "SELECT t, c.oid IS NOT NULL,
                      (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid)
                 FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)
                 LEFT JOIN pg_class c ON c.oid = to_regclass(u.t)
                ORDER BY u.n";
    let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
    let rows = conn
        .client
        .query(sql, &[&names])
        .await
        .map_err(|e| failed(&peer, "cannot check", "tables", &e))?;
    if rows.iter().all(|r| !r.get::<_, bool>(1)) {
        checks.push(checks::empty(db));
        return Ok(());
    }
    let mut complete = true;
    for row in &rows {
        let (table, present, indexes): (String, bool, i64) = (row.get(0), row.get(1), row.get(2));
        complete &= present;
        checks.push(checks::table(&table, present));
        if !present || table == Table::History.name() {
            continue;
        }
        checks.push(checks::indexes(&table, Indexes::Count(indexes)));
    }
    let nurand = conn
        .client
        .query_one("SELECT to_regclass($1::text) IS NOT NULL", &[&NURAND_TABLE])
        .await
        .map_err(|e| failed(&peer, "cannot check", NURAND_TABLE, &e))?
        .get::<_, bool>(0);
    let constants: Option<Vec<[String; 3]>> = if nurand {
        let rows = query(
            "SELECT c_last::text, c_id::text, ol_i_id::text FROM tpcc_nurand",
            NURAND_TABLE,
        )
        .await?;
        Some(
            rows.iter()
                .map(|r| [0, 1, 2].map(|i| r.get::<_, Option<String>>(i).unwrap_or_default()))
                .collect(),
        )
    } else {
        None
    };
    checks.push(checks::nurand(constants.as_deref()));

    if routines {
        check_routines(conn, &peer, say, checks).await?;
    }
    if !complete {
        return Ok(());
    }

    say.line("Check warehouses, row counts and consistency");
    let w = warehouses;
    let row = &query(
        "SELECT coalesce(max(w_id), 0)::bigint, count(*) FROM warehouse",
        "warehouses",
    )
    .await?[0];
    let (max_w, count_w): (i64, i64) = (row.get(0), row.get(1));
    let w = u64::from(w);
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    checks.push(checks::warehouse_count(
        Some(count(count_w)),
        count(max_w),
        w,
        count_ware,
    ));

    let counts: Vec<String> = Table::ALL
        .iter()
        .map(|t| format!("SELECT count(*) FROM {}", t.name()))
        .collect();
    let mut jobs: Vec<String> = CONSISTENCY.iter().map(|sql| sql.to_string()).collect();
    jobs.extend(counts);
    let results = parallel(owner, "", &jobs, WORKERS, "cannot check").await?;
    let (consistency, counts) = results.split_at(CONSISTENCY.len());

    let mut units = [0u64; 2];
    for (table, rows) in Table::ALL.iter().zip(counts) {
        let n = count(rows[0].get::<_, i64>(0));
        match table {
            Table::Warehouse => units[0] = n,
            Table::District => units[1] = n,
            _ => {}
        }
        checks.push(checks::rows(*table, Some(n), w));
    }
    for (i, (condition, rows)) in CONDITIONS.iter().zip(consistency).enumerate() {
        let found = match rows.first() {
            None => Found::Holds {
                units: units[usize::from(condition.per == Per::District)],
            },
            Some(r) => {
                let (bad, w, d): (i64, i32, Option<i32>) = (r.get(0), r.get(1), r.get(2));
                Found::Fails {
                    offenders: count(bad),
                    first: match d {
                        Some(d) => format!("first district {d} of warehouse {w}"),
                        None => format!("first warehouse {w}"),
                    },
                }
            }
        };
        checks.push(checks::consistency(i, found));
    }
    Ok(())
}

/// TPC-C's consistency conditions (`tpcc::checks::CONDITIONS`, in order), each a query
/// returning, when some rows break it, one row of (offenders, first warehouse, first
/// district or NULL).
const CONSISTENCY: [&str; 4] = [
    "WITH d AS (SELECT d_w_id, sum(d_ytd) AS ytd FROM district GROUP BY d_w_id),
          bad AS (SELECT w.w_id FROM warehouse w LEFT JOIN d ON d.d_w_id = w.w_id
                   WHERE d.ytd IS DISTINCT FROM w.w_ytd)
     SELECT count(*) OVER (), w_id::int, NULL::int FROM bad ORDER BY w_id LIMIT 1",
    "WITH o AS (SELECT o_w_id AS w, o_d_id AS d, max(o_id) AS m FROM orders
                 GROUP BY o_w_id, o_d_id),
          n AS (SELECT no_w_id AS w, no_d_id AS d, max(no_o_id) AS m FROM new_order
                 GROUP BY no_w_id, no_d_id),
          bad AS (SELECT t.d_w_id AS w, t.d_id AS d FROM district t
                    LEFT JOIN o ON o.w = t.d_w_id AND o.d = t.d_id
                    LEFT JOIN n ON n.w = t.d_w_id AND n.d = t.d_id
                   WHERE o.m IS DISTINCT FROM t.d_next_o_id - 1
                      OR n.m <> t.d_next_o_id - 1)
     SELECT count(*) OVER (), w::int, d::int FROM bad ORDER BY w, d LIMIT 1",
    "WITH bad AS (SELECT no_w_id AS w, no_d_id AS d FROM new_order
                   GROUP BY no_w_id, no_d_id
                  HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*))
     SELECT count(*) OVER (), w::int, d::int FROM bad ORDER BY w, d LIMIT 1",
    "WITH o AS (SELECT o_w_id AS w, o_d_id AS d, sum(o_ol_cnt) AS n FROM orders
                 GROUP BY o_w_id, o_d_id),
          l AS (SELECT ol_w_id AS w, ol_d_id AS d, count(*) AS n FROM order_line
                 GROUP BY ol_w_id, ol_d_id),
          bad AS (SELECT w, d FROM o FULL JOIN l USING (w, d)
                   WHERE o.n IS DISTINCT FROM l.n)
     SELECT count(*) OVER (), w::int, d::int FROM bad ORDER BY w, d LIMIT 1",
];
