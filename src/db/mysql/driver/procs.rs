//! The stored-procedure mode: each transaction one prepared `CALL`, one round trip. Without
//! summaries the calls put their OUT parameters in session variables, so that their reply is
//! one OK packet, one wake-up of the terminal instead of two (the OUT row and the OK are
//! flushed apart); NEWORD's tells whether it rolled back, so on MariaDB a compound statement
//! around the call turns a rollback into an error the terminal knows, and on MySQL NEWORD
//! returns its OUT parameters still.

use mysql_common::Value;

use super::done::{
    delivery_done, new_order_done, order_status_done, payment_done, stock_level_done,
};
use super::sql::{
    signalled, DELIVERY_OUT, MAX_LINES, NEWORD_OUT, NEWORD_ROLLED_BACK, OSTAT_OUT, PAYMENT_OUT,
    SLEV_OUT, SQL,
};
use super::values::{Cols, Fail, Step};
use crate::db::mysql::wire::{Arg, Stmt, Wire, WireError};
use crate::tpcc::summary::{money, LastOrder};
use crate::tpcc::txn::{Customer, Delivery, Done, NewOrder, OrderStatus, Payment, StockLevel};

/// The procedure calls prepared on a lean connection.
pub(super) struct WireProcs {
    pub(super) neword: Stmt,
    pub(super) payment: Stmt,
    pub(super) ostat: Stmt,
    pub(super) delivery: Stmt,
    pub(super) slev: Stmt,
    /// Payment, Order-Status, Delivery and Stock-Level return their OUT parameters, for the
    /// summaries; else they are the quiet calls of `Sql`.
    pub(super) shown: bool,
    /// NEWORD is the quiet compound call, which tells a rollback as an error.
    neword_quiet: bool,
}

impl WireProcs {
    /// The calls; with `compound`, NEWORD's quiet one too (compound statements: MariaDB's),
    /// unless `order_ids` asks for each New-Order's id (kept to count what a failover lost).
    pub(super) async fn prepare(
        wire: &mut Wire,
        shown: bool,
        compound: bool,
        order_ids: bool,
    ) -> Result<Self, WireError> {
        let q = &*SQL;
        let neword_quiet = !shown && compound && !order_ids;
        let neword = if neword_quiet {
            &q.call_neword_quiet
        } else {
            &q.call_neword
        };
        let [payment, ostat, delivery, slev] = if shown {
            [
                &q.call_payment,
                &q.call_ostat,
                &q.call_delivery,
                &q.call_slev,
            ]
        } else {
            [
                &q.call_payment_quiet,
                &q.call_ostat_quiet,
                &q.call_delivery_quiet,
                &q.call_slev_quiet,
            ]
        };
        Ok(WireProcs {
            neword: wire.prepare(neword).await?,
            payment: wire.prepare(payment).await?,
            ostat: wire.prepare(ostat).await?,
            delivery: wire.prepare(delivery).await?,
            slev: wire.prepare(slev).await?,
            shown,
            neword_quiet,
        })
    }
}

/// A quiet call: its OUT parameters went to session variables, its reply is an OK.
async fn quiet(wire: &mut Wire, stmt: Stmt, args: &[Arg<'_>]) -> Step<Done> {
    wire.execute(stmt, args, 0).await.map_err(Fail::Wire)?;
    Ok(Done::quiet(false))
}

/// Executes a prepared `CALL` with `args` and `n` NULL placeholders for the OUT parameters,
/// and returns the OUT parameters.
async fn call(wire: &mut Wire, stmt: Stmt, args: &[Arg<'_>], n: usize) -> Step<Vec<Value>> {
    let row = wire.execute(stmt, args, n).await.map_err(Fail::Wire)?;
    row.ok_or_else(|| Fail::Data("the procedure returned no OUT parameters".into()))
}

pub(super) fn arg(v: u32) -> Arg<'static> {
    Arg::Int(i64::from(v))
}

/// A comma-separated list of numbers, as NEWORD takes its lines.
pub(super) fn list(values: impl Iterator<Item = u32>) -> String {
    let mut s = String::with_capacity(8 * MAX_LINES);
    let mut buf = itoa::Buffer::new();
    for (i, v) in values.enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(buf.format(v));
    }
    s
}

pub(super) async fn new_order(
    wire: &mut Wire,
    procs: &WireProcs,
    t: &NewOrder,
    show: bool,
) -> Step<Done> {
    let items = list(t.lines.iter().map(|l| l.item_id));
    let supply = list(t.lines.iter().map(|l| l.supply_w_id));
    let quantities = list(t.lines.iter().map(|l| l.quantity));
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(t.c_id),
        Arg::Int(t.lines.len() as i64),
        Arg::Int(i64::from(t.all_local)),
        Arg::Text(items.as_bytes()),
        Arg::Text(supply.as_bytes()),
        Arg::Text(quantities.as_bytes()),
    ];
    if procs.neword_quiet {
        return match wire.execute(procs.neword, &args, 0).await {
            Ok(_) => Ok(Done::quiet(false)),
            // NEWORD rolled back (and ended its transaction) and returned normally; the
            // compound statement around it tells so.
            Err(e) if signalled(&e, NEWORD_ROLLED_BACK) => Ok(Done::quiet(true)),
            Err(e) => Err(Fail::Wire(e)),
        };
    }
    let row = call(wire, procs.neword, &args, NEWORD_OUT).await?;
    let out = Cols(&row[..]);
    let o_id = out.int(0, "order_id")?;
    let rolled_back = out.int(7, "rolled_back")? == 1;
    let total = if rolled_back {
        None
    } else {
        Some(out.fixed(1, 2, "total_amount")?)
    };
    Ok(new_order_done(show, t, Some(o_id), total))
}

pub(super) async fn payment(
    wire: &mut Wire,
    procs: &WireProcs,
    t: &Payment,
    show: bool,
) -> Step<Done> {
    let (c_id, byname, last) = match &t.customer {
        Customer::ById(id) => (*id, 0, ""),
        Customer::ByName(last) => (0, 1, last.as_str()),
    };
    let amount = money(i64::from(t.amount_cents));
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(t.c_w_id),
        arg(t.c_d_id),
        arg(c_id),
        Arg::Int(byname),
        Arg::Text(last.as_bytes()),
        Arg::Text(amount.as_bytes()),
    ];
    if !procs.shown {
        return quiet(wire, procs.payment, &args).await;
    }
    let row = call(wire, procs.payment, &args, PAYMENT_OUT).await?;
    let out = Cols(&row[..]);
    Ok(payment_done(
        show,
        t,
        out.int(0, "cust_id")?,
        out.fixed(4, 2, "cust_balance")?,
        &out.text(5),
    ))
}

pub(super) async fn order_status(
    wire: &mut Wire,
    procs: &WireProcs,
    t: &OrderStatus,
    show: bool,
) -> Step<Done> {
    let (c_id, byname, last) = match &t.customer {
        Customer::ById(id) => (*id, 0, ""),
        Customer::ByName(last) => (0, 1, last.as_str()),
    };
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(c_id),
        Arg::Int(byname),
        Arg::Text(last.as_bytes()),
    ];
    if !procs.shown {
        return quiet(wire, procs.ostat, &args).await;
    }
    let row = call(wire, procs.ostat, &args, OSTAT_OUT).await?;
    let out = Cols(&row[..]);
    let order = match out.opt_int(5) {
        Some(o_id) => Some(LastOrder {
            o_id,
            carrier: out.opt_int(7),
            lines: out.int(8, "line_count")?,
        }),
        None => None,
    };
    Ok(order_status_done(
        show,
        t,
        out.int(0, "cust_id")?,
        out.fixed(4, 2, "cust_balance")?,
        order,
    ))
}

pub(super) async fn delivery(
    wire: &mut Wire,
    procs: &WireProcs,
    t: &Delivery,
    show: bool,
) -> Step<Done> {
    let args = [arg(t.w_id), arg(t.carrier_id)];
    if !procs.shown {
        return quiet(wire, procs.delivery, &args).await;
    }
    let row = call(wire, procs.delivery, &args, DELIVERY_OUT).await?;
    let out = Cols(&row[..]);
    Ok(delivery_done(
        show,
        t,
        out.int(0, "delivered")?,
        out.int(1, "skipped")?,
    ))
}

pub(super) async fn stock_level(
    wire: &mut Wire,
    procs: &WireProcs,
    t: &StockLevel,
    show: bool,
) -> Step<Done> {
    let args = [arg(t.w_id), arg(t.d_id), arg(t.threshold)];
    if !procs.shown {
        return quiet(wire, procs.slev, &args).await;
    }
    let row = call(wire, procs.slev, &args, SLEV_OUT).await?;
    Ok(stock_level_done(
        show,
        t,
        Cols(&row[..]).int(0, "stock_count")?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_comma_separated() {
        assert_eq!(list([12, 407, 93001].into_iter()), "12,407,93001");
    }
}
