//! The client-side SQL mode: the procedures' business logic as prepared statements inside
//! the session's own transaction, in as few statements as the logic allows, and in as few
//! round trips: the statements that do not wait on each other's results go as one batch.
//!
//! A batch of writes never carries the COMMIT. The server runs every statement of a batch
//! whatever became of the one before it, and after a failed statement (a deadlock rolls the
//! whole transaction back, a lock wait timeout only the statement) the rest would commit
//! without it; so a COMMIT goes once every write has succeeded. A transaction that only
//! reads ends its batch with the COMMIT, which has nothing to commit if the read failed.
//! On MariaDB, New-Order's and Delivery's writes with their COMMIT, and all of Payment, are
//! one compound statement (`sql::block`), which the server stops at its first failed
//! statement, so that its COMMIT is reached only when everything before it succeeded.
//! Each reply the server flushes wakes the terminal once, so the replies count as well: a
//! statement's result set and the OK of a compound statement are flushed apart.
//! Round trips per transaction: New-Order 2 (3 on MySQL; 2 when an item is unused), Payment
//! 1 by id or by name (2 on MySQL, 3 by name), Order-Status 1 (2 by name), Delivery 2 (3 on
//! MySQL; 2 with nothing to deliver), Stock-Level 1. Replies, without summaries, on MariaDB:
//! New-Order 2, Payment 1, Delivery 2.

use mysql_common::Value;

use super::done::{
    delivery_done, new_order_done, order_status_done, payment_done, stock_level_done,
};
use super::sql::{signalled, MAX_LINES, SQL};
use super::values::{cell, order_total, Cols, Fail, Step};
use crate::db::mysql::wire::{Arg, Stmt, Wire, WireError};
use crate::tpcc::summary::{money, LastOrder};
use crate::tpcc::txn::{Customer, Delivery, Done, NewOrder, OrderStatus, Payment, StockLevel};
use crate::tpcc::DISTRICTS_PER_W;

/// The client-side statements, prepared once per connection (18 of them, and three compound
/// statements on MariaDB).
pub(super) struct ClientSql<S> {
    district_next: S,
    items_stock: S,
    insert_order: S,
    insert_new_order: S,
    stock_update: S,
    order_lines: S,
    pay_ytd: S,
    customers_by_name: S,
    pay_customer: S,
    pay_customer_update: S,
    insert_history: S,
    commit: S,
    /// New-Order's order id taken, its writes and its COMMIT as one compound statement, where
    /// the server runs them (MariaDB): one round trip, and nothing committed if a write
    /// fails. With summaries, the order's id comes back as a row.
    new_order_writes: Option<S>,
    /// Payment's customer id, writes and COMMIT as one compound statement (MariaDB); with
    /// summaries, the customer's row comes back.
    payment_block: Option<S>,
    /// Delivery's writes and COMMIT as one compound statement (MariaDB).
    delivery_writes: Option<S>,
    /// The compound statements tell what the summaries need.
    shown: bool,
    order_status: S,
    oldest_new_orders: S,
    delete_new_orders: S,
    deliver_lines: S,
    deliver_orders: S,
    stock_level: S,
}

impl<S> ClientSql<S> {
    /// The statements, with compound statements where `compound` (the server must run them:
    /// MariaDB's); where `shown`, New-Order's and Payment's blocks end telling what the
    /// summaries need (the order's id; the customer's id, credit and balance).
    pub(super) async fn prepare<C: SqlConn<Stmt = S>>(
        conn: &mut C,
        compound: bool,
        shown: bool,
    ) -> Result<Self, C::Error> {
        let (new_order_writes, payment_block) = if shown {
            (&SQL.new_order_writes_shown, &SQL.payment_block_shown)
        } else {
            (&SQL.new_order_writes, &SQL.payment_block)
        };
        Ok(ClientSql {
            district_next: conn.prepare(&SQL.district_next).await?,
            items_stock: conn.prepare(&SQL.items_stock).await?,
            insert_order: conn.prepare(&SQL.insert_order).await?,
            insert_new_order: conn.prepare(&SQL.insert_new_order).await?,
            stock_update: conn.prepare(&SQL.stock_update).await?,
            order_lines: conn.prepare(&SQL.order_lines).await?,
            pay_ytd: conn.prepare(&SQL.pay_ytd).await?,
            customers_by_name: conn.prepare(&SQL.customers_by_name).await?,
            pay_customer: conn.prepare(&SQL.pay_customer).await?,
            pay_customer_update: conn.prepare(&SQL.pay_customer_update).await?,
            insert_history: conn.prepare(&SQL.insert_history).await?,
            commit: conn.prepare(&SQL.commit).await?,
            new_order_writes: prepare_compound(conn, compound, new_order_writes).await?,
            payment_block: prepare_compound(conn, compound, payment_block).await?,
            delivery_writes: prepare_compound(conn, compound, &SQL.delivery_writes).await?,
            shown,
            order_status: conn.prepare(&SQL.order_status).await?,
            oldest_new_orders: conn.prepare(&SQL.oldest_new_orders).await?,
            delete_new_orders: conn.prepare(&SQL.delete_new_orders).await?,
            deliver_lines: conn.prepare(&SQL.deliver_lines).await?,
            deliver_orders: conn.prepare(&SQL.deliver_orders).await?,
            stock_level: conn.prepare(&SQL.stock_level).await?,
        })
    }
}

/// A compound statement, prepared where the connection runs them.
async fn prepare_compound<C: SqlConn>(
    conn: &mut C,
    compound: bool,
    sql: &str,
) -> Result<Option<C::Stmt>, C::Error> {
    if !compound {
        return Ok(None);
    }
    conn.prepare(sql).await.map(Some)
}

/// A connection client-side SQL runs on, with its kind of prepared statement (one kind
/// today: the lean connection's; the seam keeps the transactions apart from the protocol).
pub(super) trait SqlConn {
    type Stmt;
    type Error;
    /// Prepares a statement.
    async fn prepare(&mut self, sql: &str) -> Result<Self::Stmt, Self::Error>;
    /// Every row the statement gives.
    async fn all(&mut self, st: &Self::Stmt, args: Vec<Value>) -> Step<Vec<Vec<Value>>>;
    /// Runs statements back to back in one round trip: each one's rows, in order. The
    /// server runs them all whatever became of the one before; the first server error is
    /// the batch's error, once every reply is in.
    async fn batch(&mut self, calls: &[(&Self::Stmt, &[Value])]) -> Step<Vec<Vec<Vec<Value>>>>;
    /// `COMMIT` or `ROLLBACK`.
    async fn end(&mut self, sql: &str) -> Step<()>;
}

/// Values as the lean connection binds them.
pub(super) fn wire_args(values: &[Value]) -> Step<Vec<Arg<'_>>> {
    values
        .iter()
        .map(|v| match v {
            Value::Int(i) => Ok(Arg::Int(*i)),
            Value::Bytes(b) => Ok(Arg::Text(b)),
            Value::NULL => Ok(Arg::Null),
            other => Err(Fail::Data(format!("a parameter of {other:?}"))),
        })
        .collect()
}

impl SqlConn for Wire {
    type Stmt = Stmt;
    type Error = WireError;

    async fn prepare(&mut self, sql: &str) -> Result<Stmt, WireError> {
        Wire::prepare(self, sql).await
    }

    async fn all(&mut self, st: &Stmt, args: Vec<Value>) -> Step<Vec<Vec<Value>>> {
        Ok(self.execute_all(*st, &wire_args(&args)?).await?)
    }

    async fn batch(&mut self, calls: &[(&Stmt, &[Value])]) -> Step<Vec<Vec<Vec<Value>>>> {
        let args = calls
            .iter()
            .map(|(_, values)| wire_args(values))
            .collect::<Step<Vec<_>>>()?;
        let calls: Vec<(Stmt, &[Arg<'_>])> = calls
            .iter()
            .zip(&args)
            .map(|((st, _), args)| (**st, args.as_slice()))
            .collect();
        Ok(self.execute_batch(&calls).await?)
    }

    async fn end(&mut self, sql: &str) -> Step<()> {
        self.query(sql).await?;
        Ok(())
    }
}

/// Integer parameters.
pub(super) fn ints<const N: usize>(values: [i64; N]) -> Vec<Value> {
    values.into_iter().map(Value::Int).collect()
}

/// A STOCK row a New-Order changes, with what its lines add up to.
pub(super) struct StockRow {
    w: i64,
    i: i64,
    quantity: i64,
    dist_info: Value,
    ytd: i64,
    count: i64,
    remote: i64,
}

/// The replies of a batch of `N` statements, one each.
fn replies<const N: usize>(replies: Vec<Vec<Vec<Value>>>) -> Step<[Vec<Vec<Value>>; N]> {
    let got = replies.len();
    replies
        .try_into()
        .map_err(|_| Fail::Data(format!("{got} replies to a batch of {N} statements")))
}

pub(super) async fn sql_new_order<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &NewOrder,
    show: bool,
) -> Step<Done> {
    let n = t.lines.len();
    if n == 0 || n > MAX_LINES {
        return Err(Fail::Data(format!(
            "{n} order lines; client-side SQL takes 1 to {MAX_LINES}"
        )));
    }
    let (w, d, c) = (i64::from(t.w_id), i64::from(t.d_id), i64::from(t.c_id));

    // The first round trip, one reply: warehouse, district, customer and items read, the
    // STOCK rows locked (in key order). Without compound statements the district's next
    // order id is taken first (its row locked) in the same round trip; with them it is
    // taken with the writes, so that the district row, which every Payment of the district
    // also updates, stays locked for one round trip only.
    let mut first = Vec::with_capacity(MAX_LINES + 4 + 2 * MAX_LINES);
    first.extend((0..MAX_LINES).map(|k| t.lines.get(k).map_or(Value::NULL, |l| int(l.item_id))));
    first.extend([Value::Int(w), Value::Int(d), Value::Int(c), Value::Int(d)]);
    for k in 0..MAX_LINES {
        match t.lines.get(k) {
            Some(l) => first.extend([int(l.supply_w_id), int(l.item_id)]),
            None => first.extend([Value::NULL, Value::NULL]),
        }
    }
    let compound = st.new_order_writes.as_ref();
    let rows = match compound {
        Some(_) => conn.all(&st.items_stock, first).await?,
        None => {
            let [_, rows] = replies(
                conn.batch(&[
                    (&st.district_next, &ints([w, d])),
                    (&st.items_stock, &first),
                ])
                .await?,
            )?;
            rows
        }
    };
    let head = rows
        .iter()
        .find(|row| matches!(cell(*row, 10), Value::NULL))
        .ok_or_else(|| {
            Fail::Data(format!(
                "warehouse {w}, district {d}, or customer {c} of district {d}, not found"
            ))
        })?;
    let head = Cols(head);
    let w_tax = head.fixed(0, 4, "w_tax")?;
    let discount = head.fixed(1, 4, "c_discount")?;
    let d_tax = head.fixed(8, 4, "d_tax")?;
    // Taken in this round trip, d_next_o_id - 1 after the update is the order's id; else
    // d_next_o_id is the id the order is to take, read without a lock: a rolled-back
    // order's summary tells it, a committed one's the id its writes took.
    let next = head.int(9, "d_next_o_id")?;
    let taken = match compound {
        Some(_) => next,
        None => next - 1,
    };
    // Item id and price in cents; the STOCK rows.
    let mut items: Vec<(i64, i64)> = Vec::with_capacity(MAX_LINES);
    let mut stock = Vec::with_capacity(MAX_LINES);
    for row in &rows {
        let r = Cols(row);
        if matches!(cell(row, 10), Value::NULL) {
            if let Some(id) = r.opt_int(4) {
                items.push((id, r.fixed(5, 2, "i_price")?));
            }
        } else {
            stock.push(StockRow {
                w: r.int(10, "s_w_id")?,
                i: r.int(11, "s_i_id")?,
                quantity: r.int(12, "s_quantity")?,
                dist_info: cell(row, 13).clone(),
                ytd: 0,
                count: 0,
                remote: 0,
            });
        }
    }
    let price = |item: u32| {
        items
            .iter()
            .find(|(id, _)| *id == i64::from(item))
            .map(|(_, p)| *p)
    };
    if t.lines.iter().any(|l| price(l.item_id).is_none()) {
        // Clause 2.4.2.3: an unused item rolls the whole transaction back.
        conn.end("ROLLBACK").await?;
        return Ok(new_order_done(show, t, Some(taken), None));
    }

    let mut lines = Vec::with_capacity(6 * MAX_LINES);
    let mut sum = 0i64;
    for (k, l) in t.lines.iter().enumerate() {
        let (supply, item, qty) = (
            i64::from(l.supply_w_id),
            i64::from(l.item_id),
            i64::from(l.quantity),
        );
        let s = stock
            .iter_mut()
            .find(|s| s.w == supply && s.i == item)
            .ok_or_else(|| {
                Fail::Data(format!(
                    "stock of item {item} in warehouse {supply} not found"
                ))
            })?;
        s.quantity = if s.quantity >= qty + 10 {
            s.quantity - qty
        } else {
            s.quantity - qty + 91
        };
        s.ytd += qty;
        s.count += 1;
        s.remote += i64::from(supply != w);
        let amount = qty * price(l.item_id).unwrap_or(0);
        sum += amount;
        lines.extend([
            Value::Int(k as i64 + 1),
            Value::Int(item),
            Value::Int(supply),
            Value::Int(qty),
            Value::Bytes(money(amount).into_bytes()),
            s.dist_info.clone(),
        ]);
    }
    lines.resize(6 * MAX_LINES, Value::NULL);
    let mut update = Vec::with_capacity(6 * MAX_LINES);
    for s in stock.iter().filter(|s| s.count > 0) {
        update.extend([s.w, s.i, s.quantity, s.ytd, s.count, s.remote].map(Value::Int));
    }
    update.resize(6 * MAX_LINES, Value::NULL);
    let order = ints([d, w, c, n as i64, i64::from(t.all_local)]);
    let here = ints([d, w]);
    let total = Some(order_total(sum, discount, w_tax, d_tax));
    match (compound, taken) {
        // The second round trip: the order's id taken, every write, then the COMMIT, which
        // the server reaches only if every write succeeded; with summaries the block ends
        // telling the order's id.
        (Some(block), _) => {
            let args = [ints([w, d, w, d]), order, here.clone(), update, here, lines].concat();
            let got = conn.batch(&[(block, &args)]).await?;
            let o_id = match st.shown {
                true => Some(
                    got.first()
                        .and_then(|rows| rows.first())
                        .ok_or_else(|| Fail::Data("no order id from New-Order's writes".into()))
                        .and_then(|row| Cols(row).int(0, "o_id"))?,
                ),
                false => None,
            };
            Ok(new_order_done(show, t, o_id, total))
        }
        // The second: every write; the third, once they all succeeded, the COMMIT.
        (None, o_id) => {
            let id = || Value::Int(o_id);
            let order = [vec![id()], order].concat();
            let new_order = [vec![id()], here.clone()].concat();
            let lines = [vec![id()], here, lines].concat();
            conn.batch(&[
                (&st.insert_order, &order),
                (&st.insert_new_order, &new_order),
                (&st.stock_update, &update),
                (&st.order_lines, &lines),
            ])
            .await?;
            conn.end("COMMIT").await?;
            Ok(new_order_done(show, t, Some(o_id), total))
        }
    }
}

/// The middle customer of those with a last name (clause 2.5.2.2): position ceil(n/2) of
/// the list ordered by c_first.
fn middle_customer(rows: &[Vec<Value>], w: i64, d: i64, last: &str) -> Step<i64> {
    match rows.get(rows.len().saturating_sub(1) / 2) {
        Some(row) => Cols(row).int(0, "c_id"),
        None => Err(Fail::Data(format!(
            "no customer named {last} in district {d} of warehouse {w}"
        ))),
    }
}

/// The arguments that find the customers with a last name.
fn by_name(w: i64, d: i64, last: &str) -> Vec<Value> {
    vec![
        Value::Int(w),
        Value::Int(d),
        Value::Bytes(last.as_bytes().to_vec()),
    ]
}

/// A Payment's warehouse and district, then the customer's.
fn payment_keys(t: &Payment) -> (i64, i64, i64, i64) {
    (
        i64::from(t.w_id),
        i64::from(t.d_id),
        i64::from(t.c_w_id),
        i64::from(t.c_d_id),
    )
}

pub(super) async fn sql_payment<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &Payment,
    show: bool,
) -> Step<Done> {
    let (w, d, c_w, c_d) = payment_keys(t);
    let cents = i64::from(t.amount_cents);
    let amount = money(cents);
    let amount = || Value::Bytes(amount.as_bytes().to_vec());
    if let Some(block) = &st.payment_block {
        return block_payment(conn, block, st.shown, t, amount).await;
    }
    let ytd = || vec![amount(), amount(), Value::Int(w), Value::Int(d)];
    // By name, the customer's id comes first, with the year-to-date update's round trip.
    let mut ytd_done = false;
    let c_id = match &t.customer {
        Customer::ById(id) => i64::from(*id),
        Customer::ByName(last) => {
            ytd_done = true;
            let find = by_name(c_w, c_d, last);
            let [_, candidates] = replies(
                conn.batch(&[(&st.pay_ytd, &ytd()), (&st.customers_by_name, &find)])
                    .await?,
            )?;
            middle_customer(&candidates, c_w, c_d, last)?
        }
    };
    let customer = ints([w, d, c_w, c_d, c_id]);
    let history = vec![
        amount(),
        Value::Int(c_w),
        Value::Int(c_d),
        Value::Int(c_id),
        Value::Int(w),
        Value::Int(d),
    ];
    // The customer read (locked) before its update; the HISTORY row reads its names itself;
    // all in one round trip, then the COMMIT.
    let ytd = ytd();
    let update = vec![
        amount(),
        amount(),
        Value::Int(d),
        Value::Int(w),
        amount(),
        Value::Int(c_w),
        Value::Int(c_d),
        Value::Int(c_id),
    ];
    let mut calls = Vec::with_capacity(4);
    if !ytd_done {
        calls.push((&st.pay_ytd, ytd.as_slice()));
    }
    let read = calls.len();
    calls.extend([
        (&st.pay_customer, customer.as_slice()),
        (&st.pay_customer_update, update.as_slice()),
        (&st.insert_history, history.as_slice()),
    ]);
    let got = conn.batch(&calls).await?;
    let row = got
        .get(read)
        .and_then(|rows| rows.first())
        .ok_or_else(|| not_found(w, d, c_id, c_d, c_w))?;
    let r = Cols(row);
    let credit = r.text(5);
    let balance = r.fixed(6, 2, "c_balance")? - cents;
    conn.end("COMMIT").await?;
    Ok(payment_done(show, t, c_id, balance, &credit))
}

/// Payment as one compound statement, one round trip, by id or by name: the customer's id
/// taken, warehouse, district and customer updated, the HISTORY row, the COMMIT. A missing
/// row fails the block before its COMMIT. A block `shown` reads the customer's id, credit and
/// new balance before its COMMIT (one reply more) for the summary.
async fn block_payment<C: SqlConn>(
    conn: &mut C,
    block: &C::Stmt,
    shown: bool,
    t: &Payment,
    amount: impl Fn() -> Value,
) -> Step<Done> {
    let (w, d, c_w, c_d) = payment_keys(t);
    let (id, last) = match &t.customer {
        Customer::ById(id) => (int(*id), Value::NULL),
        Customer::ByName(last) => (Value::NULL, Value::Bytes(last.as_bytes().to_vec())),
    };
    let mut args = Vec::with_capacity(4 + 9 + 5 + 2);
    args.extend([id, Value::Int(c_w), Value::Int(c_d), last]);
    args.extend([Value::Int(c_w), Value::Int(c_d)]);
    args.extend([amount(), amount(), amount(), amount(), amount()]);
    args.extend([Value::Int(w), Value::Int(d)]);
    args.extend([amount(), Value::Int(c_w), Value::Int(c_d)]);
    args.extend([Value::Int(w), Value::Int(d)]);
    if shown {
        args.extend([Value::Int(c_w), Value::Int(c_d)]);
    }
    let got = match conn.batch(&[(block, &args)]).await {
        Err(Fail::Wire(e)) if signalled(&e, NO_CUSTOMER) => {
            return Err(match &t.customer {
                Customer::ById(id) => not_found(w, d, i64::from(*id), c_d, c_w),
                Customer::ByName(last) => Fail::Data(format!(
                    "no customer named {last} in district {c_d} of warehouse {c_w} \
                     (or warehouse {w}, district {d}, not found)"
                )),
            });
        }
        got => got?,
    };
    if !shown {
        return Ok(Done::quiet(false));
    }
    let row = got
        .first()
        .and_then(|rows| rows.first())
        .ok_or_else(|| Fail::Data("no customer row from Payment's block".into()))?;
    let r = Cols(row);
    let c_id = r.int(0, "c_id")?;
    let credit = r.text(1);
    let balance = r.fixed(2, 2, "c_balance")?;
    Ok(payment_done(true, t, c_id, balance, &credit))
}

/// The text of the error Payment's block raises (`pay_found` in `driver.sql`).
const NO_CUSTOMER: &str = "hammer: Payment found no such customer";

/// A Payment's rows, not all found.
fn not_found(w: i64, d: i64, c_id: i64, c_d: i64, c_w: i64) -> Fail {
    Fail::Data(format!(
        "warehouse {w}, district {d}, or customer {c_id} of district {c_d} warehouse {c_w}, \
         not found"
    ))
}

pub(super) async fn sql_order_status<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &OrderStatus,
    show: bool,
) -> Step<Done> {
    let (w, d) = (i64::from(t.w_id), i64::from(t.d_id));
    let c_id = match &t.customer {
        Customer::ById(id) => i64::from(*id),
        Customer::ByName(last) => {
            let candidates = conn.all(&st.customers_by_name, by_name(w, d, last)).await?;
            middle_customer(&candidates, w, d, last)?
        }
    };
    // A read only: the COMMIT goes with it.
    let [rows, _] = replies(
        conn.batch(&[(&st.order_status, &ints([w, d, c_id])), (&st.commit, &[])])
            .await?,
    )?;
    let first = rows.first().ok_or_else(|| {
        Fail::Data(format!(
            "customer {c_id} of district {d} warehouse {w} not found"
        ))
    })?;
    let r = Cols(first);
    let balance = r.fixed(4, 2, "c_balance")?;
    let order = r.opt_int(5).map(|o_id| LastOrder {
        o_id,
        carrier: r.opt_int(7),
        lines: rows
            .iter()
            .filter(|row| !matches!(cell(*row, 8), Value::NULL))
            .count() as i64,
    });
    Ok(order_status_done(show, t, c_id, balance, order))
}

pub(super) async fn sql_delivery<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &Delivery,
    show: bool,
) -> Step<Done> {
    let w = i64::from(t.w_id);
    let districts = DISTRICTS_PER_W as usize;
    let rows = conn
        .all(&st.oldest_new_orders, vec![Value::Int(w); districts])
        .await?;
    let mut keys = Vec::with_capacity(2 * districts);
    for row in &rows {
        let r = Cols(row);
        keys.extend([
            Value::Int(r.int(0, "no_d_id")?),
            Value::Int(r.int(1, "no_o_id")?),
        ]);
    }
    let delivered = rows.len() as i64;
    if delivered > 0 {
        keys.resize(2 * districts, Value::NULL);
        let mut with_w = vec![Value::Int(w)];
        with_w.extend(keys.iter().cloned());
        let mut orders = with_w.clone();
        orders.extend([int(t.carrier_id), Value::Int(w)]);
        orders.extend(keys.iter().cloned());
        match &st.delivery_writes {
            // One round trip, one reply: the writes, then the COMMIT, which the server
            // reaches only if every write succeeded.
            Some(block) => {
                let args = [with_w.clone(), with_w, orders].concat();
                conn.batch(&[(block, &args)]).await?;
            }
            // The writes; once they all succeeded, the COMMIT.
            None => {
                conn.batch(&[
                    (&st.delete_new_orders, &with_w),
                    (&st.deliver_lines, &with_w),
                    (&st.deliver_orders, &orders),
                ])
                .await?;
                conn.end("COMMIT").await?;
            }
        }
    } else {
        conn.end("COMMIT").await?;
    }
    Ok(delivery_done(
        show,
        t,
        delivered,
        DISTRICTS_PER_W as i64 - delivered,
    ))
}

pub(super) async fn sql_stock_level<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &StockLevel,
    show: bool,
) -> Step<Done> {
    // A read only: the COMMIT goes with it.
    let args = ints([i64::from(t.threshold), i64::from(t.w_id), i64::from(t.d_id)]);
    let [rows, _] = replies(
        conn.batch(&[(&st.stock_level, &args), (&st.commit, &[])])
            .await?,
    )?;
    let (low, district) = match rows.first() {
        Some(row) => (Cols(row).int(0, "count")?, Cols(row).opt_int(1)),
        None => (0, None),
    };
    if district.is_none() {
        return Err(Fail::Data(format!(
            "district {} of warehouse {} not found",
            t.d_id, t.w_id
        )));
    }
    Ok(stock_level_done(show, t, low))
}

fn int(v: u32) -> Value {
    Value::Int(i64::from(v))
}
