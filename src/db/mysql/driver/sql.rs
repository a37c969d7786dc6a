//! The driver's statements for MariaDB and MySQL, assembled from
//! `schemas/mysql/tprocc/driver.sql` with their placeholder lists filled in.

use std::fmt::Write as _;
use std::sync::LazyLock;

use crate::db::mysql::wire::WireError;
use crate::sqlfile::{render, Named};
use crate::tpcc::DISTRICTS_PER_W;

/// Order lines a client-side New-Order can carry: the statements have this many slots
/// (TPC-C orders have 5 to 15 lines). The stored procedure takes any number.
pub const MAX_LINES: usize = 15;

/// The five stored procedures the procedure mode calls.
pub(super) const PROCEDURES: [&str; 5] = ["NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV"];

// The OUT parameters of each procedure (`schemas/mysql/tprocc/driver.sql` has a `?` each).
pub(super) const NEWORD_OUT: usize = 8;
pub(super) const PAYMENT_OUT: usize = 6;
pub(super) const OSTAT_OUT: usize = 10;
pub(super) const DELIVERY_OUT: usize = 2;
pub(super) const SLEV_OUT: usize = 1;
/// The server's error for a SIGNAL (a compound statement's own errors).
const ER_SIGNAL_EXCEPTION: u16 = 1644;

/// Whether the server's error is the SIGNAL of one of our compound statements with `text`.
pub(super) fn signalled(e: &WireError, text: &str) -> bool {
    e.code == ER_SIGNAL_EXCEPTION && e.detail.contains(text)
}
/// The text of the error NEWORD's quiet call tells a rollback with (`neword_rolled_back`).
pub(super) const NEWORD_ROLLED_BACK: &str = "hammer: NEWORD rolled back";

/// The driver's statements, from `schemas/mysql/tprocc/driver.sql` with the slot lists
/// filled in: New-Order carries up to [`MAX_LINES`] lines, Delivery one order per district.
pub(super) struct Sql {
    pub(super) call_neword: String,
    pub(super) call_payment: String,
    pub(super) call_ostat: String,
    pub(super) call_delivery: String,
    pub(super) call_slev: String,
    /// The calls whose OUT parameters only the summaries need, into session variables: the
    /// server's reply is then one OK, not the OUT row and an OK flushed apart.
    pub(super) call_payment_quiet: String,
    /// NEWORD's quiet call, where compound statements run: a rollback comes back as the
    /// error `NEWORD_ROLLED_BACK`.
    pub(super) call_neword_quiet: String,
    pub(super) call_ostat_quiet: String,
    pub(super) call_delivery_quiet: String,
    pub(super) call_slev_quiet: String,
    pub(super) district_next: String,
    pub(super) items_stock: String,
    pub(super) insert_order: String,
    pub(super) insert_new_order: String,
    pub(super) stock_update: String,
    pub(super) order_lines: String,
    pub(super) pay_ytd: String,
    pub(super) customers_by_name: String,
    pub(super) pay_customer: String,
    pub(super) pay_customer_update: String,
    pub(super) insert_history: String,
    pub(super) commit: String,
    /// New-Order's block of writes: the order's id taken, every write, the COMMIT.
    pub(super) new_order_writes: String,
    /// The same, then the order's id as a row, for the transaction's summary.
    pub(super) new_order_writes_shown: String,
    /// Delivery's writes and COMMIT as one compound statement.
    pub(super) delivery_writes: String,
    /// Payment's block: the customer's id, given or by name, every write, the COMMIT.
    pub(super) payment_block: String,
    /// The same, reading the customer's id, credit and balance before the COMMIT.
    pub(super) payment_block_shown: String,
    pub(super) order_status: String,
    pub(super) oldest_new_orders: String,
    pub(super) delete_new_orders: String,
    pub(super) deliver_lines: String,
    pub(super) deliver_orders: String,
    pub(super) stock_level: String,
}

pub(super) static SQL: LazyLock<Sql> = LazyLock::new(|| {
    let file = Named::parse(include_str!("../../../../schemas/mysql/tprocc/driver.sql"));
    let districts = DISTRICTS_PER_W as usize;
    let item_slots = slots("?", MAX_LINES);
    let stock_keys = slots("(?, ?)", MAX_LINES);
    let stock_rows = rows(&["w", "i", "q", "ytd", "cnt", "rem"], &[INT; 6], MAX_LINES);
    let line_rows = rows(
        &["n", "i", "w", "q", "a", "info"],
        &[INT, INT, INT, INT, MONEY, "CHAR(24)"],
        MAX_LINES,
    );
    let district_keys = slots("(?, ?)", districts);
    // The order's and the customer's ids: placeholders, or in a compound statement the
    // block's variables.
    let vars = |in_block: bool| -> [(&str, &str); 7] {
        let (o_id, c_id) = if in_block { ("o", "c") } else { ("?", "?") };
        [
            ("item_slots", &item_slots),
            ("stock_keys", &stock_keys),
            ("stock_rows", &stock_rows),
            ("line_rows", &line_rows),
            ("district_keys", &district_keys),
            ("o_id", o_id),
            ("c_id", c_id),
        ]
    };
    let get = |name: &str| render(file.get(name), &vars(false));
    let in_block = |name: &str| render(file.get(name), &vars(true));
    let new_order_writes = |then: &[&str]| {
        let mut statements = vec![
            "DECLARE o INT".to_string(),
            get("district_next"),
            get("order_id"),
            in_block("insert_order"),
            in_block("insert_new_order"),
            get("stock_update"),
            in_block("order_lines"),
            get("commit"),
        ];
        statements.extend(then.iter().map(|s| s.to_string()));
        block(&statements)
    };
    let payment_block = |shown: &[String]| {
        let mut statements = vec![
            "DECLARE c INT".to_string(),
            get("pay_customer_id"),
            get("pay_all"),
            get("pay_found"),
            in_block("insert_history"),
        ];
        statements.extend(shown.iter().cloned());
        statements.push(get("commit"));
        block(&statements)
    };
    Sql {
        call_neword: get("call_neword"),
        call_payment: get("call_payment"),
        call_ostat: get("call_ostat"),
        call_delivery: get("call_delivery"),
        call_slev: get("call_slev"),
        call_payment_quiet: quiet_call(&get("call_payment"), PAYMENT_OUT),
        call_neword_quiet: block(&[
            &quiet_call(&get("call_neword"), NEWORD_OUT),
            &get("neword_rolled_back"),
        ]),
        call_ostat_quiet: quiet_call(&get("call_ostat"), OSTAT_OUT),
        call_delivery_quiet: quiet_call(&get("call_delivery"), DELIVERY_OUT),
        call_slev_quiet: quiet_call(&get("call_slev"), SLEV_OUT),
        district_next: get("district_next"),
        items_stock: get("items_stock"),
        insert_order: get("insert_order"),
        insert_new_order: get("insert_new_order"),
        stock_update: get("stock_update"),
        order_lines: get("order_lines"),
        pay_ytd: get("pay_ytd"),
        customers_by_name: get("customers_by_name"),
        pay_customer: get("pay_customer"),
        pay_customer_update: get("pay_customer_update"),
        insert_history: get("insert_history"),
        commit: get("commit"),
        new_order_writes: new_order_writes(&[]),
        new_order_writes_shown: new_order_writes(&["SELECT o"]),
        delivery_writes: block(&[
            &get("delete_new_orders"),
            &get("deliver_lines"),
            &get("deliver_orders"),
            &get("commit"),
        ]),
        payment_block: payment_block(&[]),
        payment_block_shown: payment_block(&[get("pay_shown")]),
        order_status: get("order_status"),
        oldest_new_orders: (1..=DISTRICTS_PER_W)
            .map(|d| render(file.get("oldest_new_order"), &[("d", &d.to_string())]))
            .collect::<Vec<_>>()
            .join(" UNION ALL "),
        delete_new_orders: get("delete_new_orders"),
        deliver_lines: get("deliver_lines"),
        deliver_orders: get("deliver_orders"),
        stock_level: get("stock_level"),
    }
});

pub(super) const INT: &str = "SIGNED";
pub(super) const MONEY: &str = "DECIMAL(6,2)";

/// Statements as one MariaDB compound statement (`BEGIN NOT ATOMIC ... END`): the server
/// runs them in order and stops at the first that fails, so that a COMMIT at the end commits
/// only when everything before it succeeded. A sequence: the business logic stays in the
/// client, but for a check that fails the block (`IF ... SIGNAL`) where a statement would
/// succeed having changed nothing, and Payment's pick of the middle customer by name, a read.
pub(super) fn block(statements: &[impl AsRef<str>]) -> String {
    let mut sql = String::from("BEGIN NOT ATOMIC\n");
    for s in statements {
        let _ = writeln!(sql, "{};", s.as_ref().trim_end().trim_end_matches(';'));
    }
    sql.push_str("END");
    sql
}

/// A `CALL` whose last `outs` placeholders (its OUT parameters) become the session
/// variables `@hammer_out_1` and on.
fn quiet_call(call: &str, outs: usize) -> String {
    let mut marks: Vec<usize> = call.match_indices('?').map(|(at, _)| at).collect();
    let outs = marks.split_off(marks.len().saturating_sub(outs));
    let mut sql = String::with_capacity(call.len() + 16 * outs.len());
    let mut from = 0;
    for (k, at) in outs.iter().enumerate() {
        sql.push_str(&call[from..*at]);
        let _ = write!(sql, "@hammer_out_{}", k + 1);
        from = at + 1;
    }
    sql.push_str(&call[from..]);
    sql
}

/// `n` copies of `item`, comma-separated.
pub(super) fn slots(item: &str, n: usize) -> String {
    vec![item; n].join(", ")
}

/// A derived table of `n` rows of typed placeholders: `SELECT CAST(? AS t) AS name, ...
/// UNION ALL SELECT ...` (every placeholder cast, so the column types never depend on the
/// values of one execution).
pub(super) fn rows(names: &[&str], types: &[&str], n: usize) -> String {
    let row = |named: bool| {
        names
            .iter()
            .zip(types)
            .map(|(name, ty)| {
                if named {
                    format!("CAST(? AS {ty}) AS {name}")
                } else {
                    format!("CAST(? AS {ty})")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut sql = format!("SELECT {}", row(true));
    for _ in 1..n {
        let _ = write!(sql, " UNION ALL SELECT {}", row(false));
    }
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_and_rows() {
        assert_eq!(slots("(?, ?)", 2), "(?, ?), (?, ?)");
        assert_eq!(
            rows(&["a", "b"], &[INT, MONEY], 2),
            "SELECT CAST(? AS SIGNED) AS a, CAST(? AS DECIMAL(6,2)) AS b \
             UNION ALL SELECT CAST(? AS SIGNED), CAST(? AS DECIMAL(6,2))"
        );
    }

    #[test]
    fn statements_have_the_placeholders_the_code_sends() {
        let count = |s: &str| s.matches('?').count();
        assert_eq!(count(&SQL.call_neword), 8 + NEWORD_OUT);
        assert_eq!(count(&SQL.call_payment), 8 + PAYMENT_OUT);
        assert_eq!(count(&SQL.call_ostat), 5 + OSTAT_OUT);
        assert_eq!(count(&SQL.call_delivery), 2 + DELIVERY_OUT);
        assert_eq!(count(&SQL.call_slev), 3 + SLEV_OUT);
        assert_eq!(count(&SQL.call_payment_quiet), 8);
        assert_eq!(count(&SQL.call_neword_quiet), 8);
        assert!(SQL
            .call_neword_quiet
            .contains(", @hammer_out_8);\nIF @hammer_out_8 = 1 THEN"));
        assert!(SQL.call_neword_quiet.contains(NEWORD_ROLLED_BACK));
        assert_eq!(count(&SQL.call_ostat_quiet), 5);
        assert_eq!(count(&SQL.call_delivery_quiet), 2);
        assert_eq!(count(&SQL.call_slev_quiet), 3);
        assert_eq!(
            SQL.call_delivery_quiet,
            "CALL DELIVERY(?, ?, NULL, @hammer_out_1, @hammer_out_2)"
        );
        assert_eq!(SQL.call_slev_quiet, "CALL SLEV(?, ?, ?, @hammer_out_1)");
        assert_eq!(count(&SQL.items_stock), MAX_LINES + 3 + 1 + 2 * MAX_LINES);
        assert_eq!(count(&SQL.insert_order), 6);
        assert_eq!(count(&SQL.stock_update), 6 * MAX_LINES);
        assert_eq!(count(&SQL.order_lines), 3 + 6 * MAX_LINES);
        let districts = DISTRICTS_PER_W as usize;
        assert_eq!(count(&SQL.oldest_new_orders), districts);
        assert_eq!(count(&SQL.delete_new_orders), 1 + 2 * districts);
        assert_eq!(count(&SQL.deliver_lines), 1 + 2 * districts);
        assert_eq!(count(&SQL.deliver_orders), 3 + 4 * districts);
        assert_eq!(
            count(&SQL.delivery_writes),
            2 * (1 + 2 * districts) + 3 + 4 * districts
        );
        assert!(SQL.delivery_writes.ends_with(";\nCOMMIT;\nEND"));
        assert_eq!(count(&SQL.stock_level), 3);
        assert_eq!(count(&SQL.pay_customer_update), 8);
        assert_eq!(count(&SQL.insert_history), 6);
        // The customer's id or name, the update, the HISTORY row without the customer's id.
        assert_eq!(count(&SQL.payment_block), 4 + 9 + 5);
        assert_eq!(count(&SQL.payment_block_shown), 4 + 9 + 5 + 2);
        assert!(SQL
            .payment_block
            .starts_with("BEGIN NOT ATOMIC\nDECLARE c INT;\nSELECT COALESCE(?, "));
        assert!(SQL
            .payment_block
            .contains("AND c_id = c\n WHERE w_id = ? AND d_id = ?;"));
        assert!(SQL.payment_block.contains("SIGNAL SQLSTATE '45000'"));
        assert!(SQL.payment_block.ends_with(";\nCOMMIT;\nEND"));
        assert!(SQL.payment_block_shown.contains("c_id = c;\nCOMMIT;\nEND"));
        assert_eq!(count(&SQL.commit), 0);
        // The order's id is the block's own: 2 + 2 keys of the district, then the writes
        // without it.
        let writes = 2 + 2 + 5 + 2 + 6 * MAX_LINES + 2 + 6 * MAX_LINES;
        assert_eq!(count(&SQL.new_order_writes), writes);
        assert_eq!(count(&SQL.new_order_writes_shown), writes);
        assert!(SQL
            .new_order_writes
            .starts_with("BEGIN NOT ATOMIC\nDECLARE o INT;\nUPDATE district"));
        assert!(SQL.new_order_writes.contains("VALUES (o, ?, ?, ?, NOW()"));
        assert!(SQL.new_order_writes.ends_with(";\nCOMMIT;\nEND"));
        assert!(SQL
            .new_order_writes_shown
            .ends_with(";\nCOMMIT;\nSELECT o;\nEND"));
        let q = &*SQL;
        for text in [
            &q.call_neword,
            &q.call_payment,
            &q.call_ostat,
            &q.call_delivery,
            &q.call_slev,
            &q.call_payment_quiet,
            &q.call_neword_quiet,
            &q.call_ostat_quiet,
            &q.call_delivery_quiet,
            &q.call_slev_quiet,
            &q.district_next,
            &q.items_stock,
            &q.insert_order,
            &q.insert_new_order,
            &q.stock_update,
            &q.order_lines,
            &q.pay_ytd,
            &q.customers_by_name,
            &q.pay_customer,
            &q.pay_customer_update,
            &q.insert_history,
            &q.commit,
            &q.new_order_writes,
            &q.new_order_writes_shown,
            &q.payment_block,
            &q.payment_block_shown,
            &q.order_status,
            &q.oldest_new_orders,
            &q.delete_new_orders,
            &q.deliver_lines,
            &q.deliver_orders,
            &q.delivery_writes,
            &q.stock_level,
        ] {
            assert!(!text.is_empty() && !text.contains("{{"), "{text}");
        }
    }

    #[test]
    fn procedures_match_the_schema() {
        let sql = include_str!("../../../../schemas/mysql/tprocc/procedures.sql");
        for p in PROCEDURES {
            assert!(sql.contains(&format!("CREATE PROCEDURE {p}(")), "{p}");
        }
    }
}
