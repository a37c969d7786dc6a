//! A transaction's results, from a routine call or client-side SQL, read into its summary;
//! and the errors a transaction or a check reports.

use tokio_postgres::error::SqlState;

use crate::db::postgres::classify;
use crate::db::postgres::wire::{self as pgwire, Reply, WireError};
use crate::error::{Error, Result};
use crate::fault::{DbError, Failure, Peer};
use crate::tpcc::summary::{self, LastOrder};
use crate::tpcc::txn::{Delivery, Done, NewOrder, OrderStatus, Payment, StockLevel};

/// `DbError` for a statement that failed, with the driver's own classification.
pub(super) fn failed(
    peer: &Peer,
    action: &'static str,
    what: &str,
    e: &tokio_postgres::Error,
) -> DbError {
    let (kind, detail) = classify(e, false);
    peer.failed(action, kind, format!("{what}: {detail}"))
}

pub(super) fn new_order_done(
    show: bool,
    t: &NewOrder,
    o_id: Option<i64>,
    total: Option<&str>,
) -> Done {
    let done = if show {
        summary::new_order(t, o_id, total)
    } else {
        Done::quiet(total.is_none())
    };
    done.with_order(t.w_id, t.d_id, o_id)
}

/// `Error::Db` for a client-side transaction's failed statement.
pub(super) fn txn_failed(peer: &Peer, txn: &str, e: &WireError) -> Error {
    let (kind, mut detail) = pgwire::classify(e);
    if matches!(e, WireError::Server(s) if s.code == SqlState::NOT_NULL_VIOLATION.code()) {
        // Client-side SQL: a row the transaction needs was missing (see `sql`).
        detail = format!("a warehouse, district, customer or stock row is missing ({detail})");
    }
    Error::Db(peer.failed("cannot run", kind, format!("{txn}: {detail}")))
}

/// `Error::Db` for a transaction that found no row where it needs one.
pub(super) fn not_found(peer: &Peer, txn: &str, what: &str) -> Error {
    Error::Db(peer.failed(
        "cannot run",
        Failure::Other,
        format!("{txn}: {what} not found"),
    ))
}

/// An output read, or the error that says which transaction's result was unreadable.
pub(super) fn read<T>(r: std::result::Result<T, String>, peer: &Peer, txn: &str) -> Result<T> {
    r.map_err(|e| {
        Error::Db(peer.failed(
            "cannot read the result from",
            Failure::Other,
            format!("{txn}: {e}"),
        ))
    })
}

/// An output that must not be NULL.
pub(super) fn need<T>(v: Option<T>, i: usize, peer: &Peer, txn: &str) -> Result<T> {
    v.ok_or_else(|| {
        Error::Db(peer.failed(
            "cannot read the result from",
            Failure::Other,
            format!("{txn}: column {i} is NULL"),
        ))
    })
}

/// `Error::Db` for a routine call that failed.
pub(super) fn routine_failed(peer: &Peer, txn: &str, e: &WireError) -> Error {
    let (kind, detail) = pgwire::classify(e);
    Error::Db(peer.failed("cannot run", kind, format!("{txn}: {detail}")))
}

pub(super) fn payment_result(
    peer: &Peer,
    summaries: bool,
    t: &Payment,
    row: Option<&Reply<'_>>,
) -> Result<Done> {
    let txn = "Payment";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "customer"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let c_id = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let balance = need(read(row.text(4), peer, txn)?, 4, peer, txn)?;
    let credit = need(read(row.text(5), peer, txn)?, 5, peer, txn)?;
    Ok(summary::payment(t, c_id, balance, credit))
}

pub(super) fn order_status_result(
    peer: &Peer,
    summaries: bool,
    t: &OrderStatus,
    row: Option<&Reply<'_>>,
) -> Result<Done> {
    let txn = "Order Status";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "customer"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let c_id = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let balance = need(read(row.text(4), peer, txn)?, 4, peer, txn)?;
    let o_id = read(row.int(5), peer, txn)?;
    let carrier = read(row.int(7), peer, txn)?;
    let lines = need(read(row.int(8), peer, txn)?, 8, peer, txn)?;
    let order = o_id.map(|o_id| LastOrder {
        o_id,
        carrier,
        lines,
    });
    Ok(summary::order_status(t, c_id, balance, order))
}

pub(super) fn delivery_result(
    peer: &Peer,
    summaries: bool,
    t: &Delivery,
    row: Option<&Reply<'_>>,
) -> Result<Done> {
    let txn = "Delivery";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "a result row"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let delivered = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let skipped = need(read(row.int(1), peer, txn)?, 1, peer, txn)?;
    Ok(summary::delivery(t, delivered, skipped))
}

pub(super) fn stock_level_result(
    peer: &Peer,
    summaries: bool,
    t: &StockLevel,
    row: Option<&Reply<'_>>,
) -> Result<Done> {
    let txn = "Stock Level";
    let low = match row {
        Some(row) => read(row.int(0), peer, txn)?,
        None => None,
    };
    let Some(low) = low else {
        return Err(not_found(
            peer,
            txn,
            &format!("district {} of warehouse {}", t.d_id, t.w_id),
        ));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    Ok(summary::stock_level(t, low))
}
