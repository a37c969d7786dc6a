//! A sample of the invariants dbgen's data keeps (TPC-H clause 4.2.3), which `checkschema`
//! checks after the row counts: each a query, in SQL every dialect runs, that counts the rows
//! breaking it.

use super::build::query_or_cancel;
use crate::bench::benchmark::Check;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::sql::ScriptConn;

/// What each invariant says, and the query counting the rows that break it.
pub const INVARIANTS: [(&str, &str); 5] = [
    (
        "every order has line items",
        "SELECT count(*) FROM orders WHERE NOT EXISTS \
         (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey)",
    ),
    (
        "no order has more than 7 line items",
        "SELECT count(*) FROM (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey \
         HAVING count(*) > 7) t",
    ),
    (
        "every part has 4 suppliers in partsupp",
        "SELECT count(*) FROM (SELECT ps_partkey FROM partsupp GROUP BY ps_partkey \
         HAVING count(*) <> 4) t",
    ),
    (
        "every line item's part and supplier are in partsupp",
        "SELECT count(*) FROM lineitem WHERE NOT EXISTS \
         (SELECT 1 FROM partsupp WHERE ps_partkey = l_partkey AND ps_suppkey = l_suppkey)",
    ),
    (
        "every line item ships after its order date",
        "SELECT count(*) FROM lineitem, orders \
         WHERE l_orderkey = o_orderkey AND l_shipdate <= o_orderdate",
    ),
];

/// Checks each invariant on `conn`: a pass, or a fail saying how many rows break it (or the
/// server's error). The stop cancels the running query on the server and ends the checks.
pub async fn check(conn: &mut ScriptConn, stop: &Interrupt) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    for (what, sql) in INVARIANTS {
        let what = format!("invariant: {what}");
        let found = match query_or_cancel(conn, sql, stop).await {
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            found => found.map(|rows| {
                rows.first()
                    .and_then(|r| r.first().cloned().flatten())
                    .and_then(|v| v.parse::<u64>().ok())
            }),
        };
        checks.push(match found {
            Ok(Some(0)) => Check::pass(what, "holds"),
            Ok(Some(n)) => Check::fail(what, format!("{n} rows break it")),
            Ok(None) => Check::fail(what, "the server gave no count"),
            Err(e) => Check::fail(what, format!("cannot be checked: {e}")),
        });
    }
    Ok(checks)
}
