//! The transactions' summaries from MariaDB/MySQL values (cents as integers), through the one
//! renderer of `tpcc::summary`; quiet when summaries are off.

use crate::tpcc::summary::{self, money, LastOrder};
use crate::tpcc::txn::{Delivery, Done, NewOrder, OrderStatus, Payment, StockLevel};

/// A New-Order's summary; `o_id` is None where, with summaries off, nobody asked for it.
pub(super) fn new_order_done(
    show: bool,
    t: &NewOrder,
    o_id: Option<i64>,
    total: Option<i64>,
) -> Done {
    let done = if show {
        summary::new_order(t, o_id, total.map(money).as_deref())
    } else {
        Done::quiet(total.is_none())
    };
    done.with_order(t.w_id, t.d_id, o_id)
}

pub(super) fn payment_done(show: bool, t: &Payment, c_id: i64, balance: i64, credit: &str) -> Done {
    if !show {
        return Done::quiet(false);
    }
    summary::payment(t, c_id, &money(balance), credit)
}

pub(super) fn order_status_done(
    show: bool,
    t: &OrderStatus,
    c_id: i64,
    balance: i64,
    order: Option<LastOrder>,
) -> Done {
    if !show {
        return Done::quiet(false);
    }
    summary::order_status(t, c_id, &money(balance), order)
}

pub(super) fn delivery_done(show: bool, t: &Delivery, delivered: i64, skipped: i64) -> Done {
    if !show {
        return Done::quiet(false);
    }
    summary::delivery(t, delivered, skipped)
}

pub(super) fn stock_level_done(show: bool, t: &StockLevel, low: i64) -> Done {
    if !show {
        return Done::quiet(false);
    }
    summary::stock_level(t, low)
}
