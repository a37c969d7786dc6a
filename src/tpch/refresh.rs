//! TPC-H's refresh functions (clause 2.5) as portable SQL: RF1 (new sales) inserts orders
//! and their line items, RF2 (old sales) deletes the same rows again, so each RF1+RF2 pair
//! leaves the database as it was loaded (HammerDB's behaviour).
//!
//! The rows are dbgen's, from the `tpchgen` generators: pair `p` takes one slice of dbgen's
//! orders (the order generator's part `s` of `parts`, SF*1500 orders each) and moves every
//! key into the gap dbgen's sparse keys leave. dbgen uses 8 of every 32 consecutive order
//! keys (bits 3 and 4 of a loaded key are 0); a refresh key sets those bits to 1, 2 or 3. So
//! no refresh key is a loaded key, and the pairs cycle through every slice with gap 1, then
//! every slice with gap 2, then 3: `3 * parts` pairs (3000 at every scale factor) before a
//! key comes back. Line items follow their order's new key.
//!
//! Every statement commits on its own (autocommit): RF1 is its clean-up deletes, then the
//! ORDERS inserts, then the LINEITEM inserts; RF2 is the LINEITEM deletes, then the ORDERS
//! deletes (the foreign key's order). A run stopped between RF1 and RF2 leaves that pair's
//! rows behind; RF1 first deletes any rows of its own keys, so running it again never fails
//! on a duplicate key, and RF2 removes them.

use std::fmt::Write;

use tpchgen::generators::{LineItem, LineItemGenerator, Order, OrderGenerator};

use super::Table;

/// Rows per INSERT and keys per DELETE: a statement of at most a few hundred kB.
pub const BATCH_ROWS: usize = 1000;

/// The statements of one refresh function, in the order they run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshSql {
    /// Portable SQL (PostgreSQL, MariaDB, MySQL), each statement committed on its own.
    pub statements: Vec<String>,
    /// Orders plus line items it inserts (RF1) or deletes (RF2).
    pub rows: u64,
}

/// RF1, new sales, of refresh pair `pair` (1-based) at scale factor `sf`: deletes what an
/// earlier, unfinished run of the same pair left, then inserts SF*1500 orders (at least 1)
/// and their line items.
pub fn new_sales(sf: f64, pair: u32) -> RefreshSql {
    let slice = Slice::of(sf, pair);
    let mut statements = deletes(&slice.keys());
    let (orders, n_orders) = inserts(Table::Orders, slice.orders(), push_order);
    let (lines, n_lines) = inserts(Table::Lineitem, slice.lines(), push_line);
    statements.extend(orders);
    statements.extend(lines);
    RefreshSql {
        statements,
        rows: n_orders + n_lines,
    }
}

/// RF2, old sales, of refresh pair `pair` (1-based) at scale factor `sf`: deletes the
/// orders and line items [`new_sales`] of the same pair inserted. `rows` is what it deletes
/// after that RF1.
pub fn old_sales(sf: f64, pair: u32) -> RefreshSql {
    let slice = Slice::of(sf, pair);
    let keys = slice.keys();
    let lines = slice.line_count();
    RefreshSql {
        statements: deletes(&keys),
        rows: keys.len() as u64 + lines,
    }
}

/// Orders each refresh function inserts or deletes: SF*1500 (clause 2.5.2), at least 1.
pub fn orders_per_refresh(sf: f64) -> i64 {
    ((sf * 1500.0).round() as i64).max(1)
}

/// Values a gap takes: bits 3 and 4 of a refresh key, never 0 (a loaded key's).
const GAPS: i64 = 3;
/// Where the gap's bits start: dbgen keeps the low 3 bits of an order's index.
const GAP_SHIFT: u32 = 3;

/// The rows a refresh pair moves: part `part` of `parts` of dbgen's orders, their keys in
/// gap `gap`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Slice {
    sf: f64,
    part: i32,
    parts: i32,
    gap: i64,
}

impl Slice {
    fn of(sf: f64, pair: u32) -> Slice {
        let orders = OrderGenerator::calculate_row_count(sf, 1, 1).max(1);
        let parts = (orders / orders_per_refresh(sf)).clamp(1, i64::from(i32::MAX));
        let i = (i64::from(pair.max(1)) - 1) % (parts * GAPS);
        Slice {
            sf,
            part: (i % parts + 1) as i32,
            parts: parts as i32,
            gap: i / parts + 1,
        }
    }

    /// A loaded order key moved into this slice's gap.
    fn key(&self, loaded: i64) -> i64 {
        loaded | (self.gap << GAP_SHIFT)
    }

    /// The orders, with their new keys.
    fn orders(self) -> impl Iterator<Item = Order<'static>> {
        OrderGenerator::new(self.sf, self.part, self.parts)
            .iter()
            .map(move |mut o| {
                o.o_orderkey = self.key(o.o_orderkey);
                o
            })
    }

    /// The orders' line items, with their orders' new keys.
    fn lines(self) -> impl Iterator<Item = LineItem<'static>> {
        LineItemGenerator::new(self.sf, self.part, self.parts)
            .iter()
            .map(move |mut l| {
                l.l_orderkey = self.key(l.l_orderkey);
                l
            })
    }

    /// The new order keys alone.
    fn keys(&self) -> Vec<i64> {
        OrderGenerator::new(self.sf, self.part, self.parts)
            .iter()
            .map(|o| self.key(o.o_orderkey))
            .collect()
    }

    /// How many line items the orders have.
    fn line_count(&self) -> u64 {
        LineItemGenerator::new(self.sf, self.part, self.parts)
            .iter()
            .count() as u64
    }
}

/// LINEITEM's deletes, then ORDERS', by key, [`BATCH_ROWS`] keys a statement.
fn deletes(keys: &[i64]) -> Vec<String> {
    let by = |table: &'static str, column: &'static str| {
        keys.chunks(BATCH_ROWS).map(move |chunk| {
            let mut sql = format!("DELETE FROM {table} WHERE {column} IN (");
            for (i, k) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push(',');
                }
                // Writing into a String cannot fail.
                let _ = write!(sql, "{k}");
            }
            sql.push(')');
            sql
        })
    };
    by("lineitem", "l_orderkey")
        .chain(by("orders", "o_orderkey"))
        .collect()
}

/// Multi-row INSERTs of `rows` into `table`, [`BATCH_ROWS`] rows a statement, each row's
/// values written by `push` in the order of `table.columns()`; and how many rows.
fn inserts<R>(
    table: Table,
    rows: impl Iterator<Item = R>,
    push: fn(&R, &mut String),
) -> (Vec<String>, u64) {
    let head = format!(
        "INSERT INTO {} ({}) VALUES ",
        table.name(),
        table.columns().join(", ")
    );
    let (mut statements, mut sql, mut n, mut in_sql) = (Vec::new(), String::new(), 0, 0);
    for row in rows {
        if in_sql == 0 {
            sql = String::with_capacity(head.len() + BATCH_ROWS * 200);
            sql.push_str(&head);
        } else {
            sql.push(',');
        }
        push(&row, &mut sql);
        n += 1;
        in_sql += 1;
        if in_sql == BATCH_ROWS {
            statements.push(std::mem::take(&mut sql));
            in_sql = 0;
        }
    }
    if in_sql > 0 {
        statements.push(sql);
    }
    (statements, n)
}

/// A string literal: quoted, `'` doubled. dbgen's text holds no backslash, the one
/// character MySQL's and PostgreSQL's literals would read differently.
fn push_text(sql: &mut String, text: &str) {
    sql.push('\'');
    for c in text.chars() {
        if c == '\'' {
            sql.push('\'');
        }
        sql.push(c);
    }
    sql.push('\'');
}

/// A value written with its `Display`, quoted (text, dates) or not (numbers).
fn push_value(sql: &mut String, value: impl std::fmt::Display, quoted: bool) {
    if quoted {
        push_text(sql, &value.to_string());
    } else {
        // Writing into a String cannot fail.
        let _ = write!(sql, "{value}");
    }
}

/// One ORDERS row's values, in `Table::Orders.columns()` order.
fn push_order(o: &Order<'_>, sql: &mut String) {
    sql.push('(');
    push_value(sql, o.o_orderkey, false);
    sql.push(',');
    push_value(sql, o.o_custkey, false);
    sql.push(',');
    push_value(sql, o.o_orderstatus, true);
    sql.push(',');
    push_value(sql, o.o_totalprice, false);
    sql.push(',');
    push_value(sql, o.o_orderdate, true);
    sql.push(',');
    push_value(sql, o.o_orderpriority, true);
    sql.push(',');
    push_value(sql, o.o_clerk, true);
    sql.push(',');
    push_value(sql, o.o_shippriority, false);
    sql.push(',');
    push_value(sql, o.o_comment, true);
    sql.push(')');
}

/// One LINEITEM row's values, in `Table::Lineitem.columns()` order.
fn push_line(l: &LineItem<'_>, sql: &mut String) {
    sql.push('(');
    push_value(sql, l.l_orderkey, false);
    sql.push(',');
    push_value(sql, l.l_partkey, false);
    sql.push(',');
    push_value(sql, l.l_suppkey, false);
    sql.push(',');
    push_value(sql, l.l_linenumber, false);
    sql.push(',');
    push_value(sql, l.l_quantity, false);
    sql.push(',');
    push_value(sql, l.l_extendedprice, false);
    sql.push(',');
    push_value(sql, l.l_discount, false);
    sql.push(',');
    push_value(sql, l.l_tax, false);
    sql.push(',');
    push_value(sql, l.l_returnflag, true);
    sql.push(',');
    push_value(sql, l.l_linestatus, true);
    sql.push(',');
    push_value(sql, l.l_shipdate, true);
    sql.push(',');
    push_value(sql, l.l_commitdate, true);
    sql.push(',');
    push_value(sql, l.l_receiptdate, true);
    sql.push(',');
    push_value(sql, l.l_shipinstruct, true);
    sql.push(',');
    push_value(sql, l.l_shipmode, true);
    sql.push(',');
    push_value(sql, l.l_comment, true);
    sql.push(')');
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// The values of a `VALUES` list's tuples, unquoted (`''` read back as `'`).
    fn tuples(values: &str) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut row: Vec<String> = Vec::new();
        let mut field = String::new();
        let mut chars = values.chars().peekable();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '\'') if chars.peek() == Some(&'\'') => {
                    chars.next();
                    field.push('\'');
                }
                (true, '\'') => quoted = false,
                (true, c) => field.push(c),
                (false, '\'') => quoted = true,
                (false, '(') => row.clear(),
                (false, ',') => row.push(std::mem::take(&mut field)),
                (false, ')') => {
                    row.push(std::mem::take(&mut field));
                    out.push(std::mem::take(&mut row));
                    // The comma between tuples.
                    if chars.peek() == Some(&',') {
                        chars.next();
                    }
                }
                (false, c) => field.push(c),
            }
        }
        out
    }

    /// dbgen's fields of a row's `|`-ended text.
    fn fields(text: &str) -> Vec<String> {
        let t = text.strip_suffix('|').unwrap_or(text);
        t.split('|').map(str::to_string).collect()
    }

    fn loaded_keys(sf: f64) -> HashSet<i64> {
        OrderGenerator::new(sf, 1, 1)
            .iter()
            .map(|o| o.o_orderkey)
            .collect()
    }

    #[test]
    fn no_refresh_key_is_a_loaded_key_and_the_pairs_do_not_share_keys() {
        let sf = 0.01;
        let loaded = loaded_keys(sf);
        assert_eq!(loaded.len(), 15_000);
        // 1000 slices of 15 orders, three gaps: 3000 pairs before a key comes back.
        let cycle = 3000;
        let mut seen: HashSet<i64> = HashSet::new();
        for pair in 1..=cycle {
            let keys = Slice::of(sf, pair).keys();
            assert_eq!(keys.len(), 15, "pair {pair}");
            for k in keys {
                assert!(!loaded.contains(&k), "pair {pair}: key {k} is loaded");
                assert!(seen.insert(k), "pair {pair}: key {k} of an earlier pair");
            }
        }
        assert_eq!(seen.len(), 3 * loaded.len());
        assert_eq!(Slice::of(sf, cycle + 1), Slice::of(sf, 1));
        assert_eq!(Slice::of(sf, 0), Slice::of(sf, 1));
        // Pair 1 and pair 2 are different slices in the same gap.
        assert_ne!(old_sales(sf, 1).statements, old_sales(sf, 2).statements);
        assert_ne!(new_sales(sf, 1).statements, new_sales(sf, 1001).statements);
    }

    #[test]
    fn rows_per_refresh_follow_the_scale_factor() {
        assert_eq!(orders_per_refresh(0.01), 15);
        assert_eq!(orders_per_refresh(0.1), 150);
        assert_eq!(orders_per_refresh(1.0), 1500);
        assert_eq!(orders_per_refresh(100.0), 150_000);
        assert_eq!(orders_per_refresh(0.0001), 1);
        let s = Slice::of(1.0, 1);
        assert_eq!((s.part, s.parts, s.gap), (1, 1000, 1));
        let s = Slice::of(1.0, 2500);
        assert_eq!((s.part, s.parts, s.gap), (500, 1000, 3));
        assert_eq!(Slice::of(1.0, 7).keys().len(), 1500);
    }

    #[test]
    fn the_rows_are_dbgens_in_the_tables_columns_with_their_new_keys() {
        let sf = 0.01;
        let pair = 5;
        let rf1 = new_sales(sf, pair);
        let slice = Slice::of(sf, pair);
        let (orders, lines): (Vec<_>, Vec<_>) = (slice.orders().collect(), slice.lines().collect());
        // The dbgen rows as loaded, before their keys move.
        let dbgen_orders: Vec<String> = OrderGenerator::new(sf, slice.part, slice.parts)
            .iter()
            .map(|o| o.to_string())
            .collect();
        let dbgen_lines: Vec<String> = LineItemGenerator::new(sf, slice.part, slice.parts)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(rf1.rows, (orders.len() + lines.len()) as u64);
        assert!(lines.len() >= orders.len() && lines.len() <= 7 * orders.len());
        let order_keys: HashSet<i64> = orders.iter().map(|o| o.o_orderkey).collect();
        assert!(lines.iter().all(|l| order_keys.contains(&l.l_orderkey)));

        let insert = |table: Table| {
            let head = format!(
                "INSERT INTO {} ({}) VALUES ",
                table.name(),
                table.columns().join(", ")
            );
            rf1.statements
                .iter()
                .filter_map(|s| s.strip_prefix(&head))
                .flat_map(tuples)
                .collect::<Vec<_>>()
        };
        for (table, rows, dbgen) in [
            (Table::Orders, insert(Table::Orders), dbgen_orders),
            (Table::Lineitem, insert(Table::Lineitem), dbgen_lines),
        ] {
            assert_eq!(rows.len(), dbgen.len(), "{table:?}");
            for (row, text) in rows.iter().zip(&dbgen) {
                let want = fields(text);
                assert_eq!(row.len(), table.columns().len(), "{table:?}");
                assert_eq!(row[1..], want[1..], "{table:?}");
                let (new, old): (i64, i64) = (row[0].parse().unwrap(), want[0].parse().unwrap());
                assert_eq!(new, old | (slice.gap << 3), "{table:?}");
                assert!(row.iter().all(|v| !v.contains('\\')), "{row:?}");
            }
        }
        // Dates and text are quoted, numbers not.
        let first = rf1
            .statements
            .iter()
            .find(|s| s.starts_with("INSERT INTO orders"))
            .unwrap();
        let o = &orders[0];
        assert!(
            first.contains(&format!(
                "({},{},'{}',{},'{}','",
                o.o_orderkey, o.o_custkey, o.o_orderstatus, o.o_totalprice, o.o_orderdate
            )),
            "{first}"
        );
    }

    #[test]
    fn strings_are_quoted_with_their_quotes_doubled() {
        let mut sql = String::new();
        push_text(&mut sql, "it's a 'test'");
        assert_eq!(sql, "'it''s a ''test'''");
        assert_eq!(tuples(&format!("(1,{sql})")), [["1", "it's a 'test'"]]);
        let mut sql = String::new();
        push_value(&mut sql, 12.5, false);
        push_value(&mut sql, "x", true);
        assert_eq!(sql, "12.5'x'");
    }

    #[test]
    fn statements_come_in_batches_deletes_lineitem_first() {
        // Scale factor 1: 1500 orders, about 6000 line items.
        let rf1 = new_sales(1.0, 3);
        let rf2 = old_sales(1.0, 3);
        let count = |sql: &RefreshSql, prefix: &str| {
            sql.statements
                .iter()
                .filter(|s| s.starts_with(prefix))
                .count()
        };
        let lines = rf1.rows - 1500;
        assert_eq!(rf2.rows, rf1.rows);
        assert_eq!(count(&rf1, "DELETE FROM lineitem WHERE l_orderkey IN ("), 2);
        assert_eq!(count(&rf1, "DELETE FROM orders WHERE o_orderkey IN ("), 2);
        assert_eq!(count(&rf1, "INSERT INTO orders ("), 2);
        assert_eq!(
            count(&rf1, "INSERT INTO lineitem (") as u64,
            lines.div_ceil(BATCH_ROWS as u64)
        );
        assert_eq!(rf1.statements.len() as u64, 6 + lines.div_ceil(1000));
        // RF1 cleans up first, in the foreign key's order, then inserts orders first.
        assert!(rf1.statements[0].starts_with("DELETE FROM lineitem"));
        assert!(rf1.statements[2].starts_with("DELETE FROM orders"));
        assert!(rf1.statements[4].starts_with("INSERT INTO orders"));
        assert!(rf1.statements[6].starts_with("INSERT INTO lineitem"));
        // RF2 is RF1's clean-up: the same keys.
        assert_eq!(rf2.statements[..], rf1.statements[..4]);
        let keys: usize = rf2.statements[2..]
            .iter()
            .map(|s| s.matches(',').count() + 1)
            .sum();
        assert_eq!(keys, 1500);
        for s in &rf1.statements {
            let rows = s.matches("),(").count() + 1;
            assert!(rows <= BATCH_ROWS, "{rows} rows");
        }
        // Scale factor 0.01: one statement of each kind.
        let tiny = new_sales(0.01, 1);
        assert!(tiny.rows > 15 && tiny.rows <= 15 * 8, "{}", tiny.rows);
        assert_eq!(tiny.statements.len(), 4);
    }
}
