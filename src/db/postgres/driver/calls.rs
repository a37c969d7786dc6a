//! Functions and procedures: each transaction one call on hammer's lean connection.

use super::outputs::{new_order_done, not_found, read, routine_failed};
use super::sql::ROUTINES;
use crate::db::postgres::wire::{Wire, WireError};
use crate::error::Result;
use crate::fault::Peer;
use crate::tpcc::txn::{Customer, Done, NewOrder};

/// The SQLSTATE `neword` raises for an unused item (routines.sql, as functions): the New-Order
/// rollback.
const ITEM_NOT_VALID: &str = "HR001";

/// A `key=value` field of a DETAIL line such as neword's `w_id=1 d_id=3 ... o_id=3012`.
pub(super) fn detail_field<'a>(detail: &'a str, key: &str) -> Option<&'a str> {
    detail
        .split_whitespace()
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
}

/// A routine's customer arguments: id, by-name flag, last name.
pub(super) fn customer_args(c: &Customer) -> (i64, i64, &str) {
    match c {
        Customer::ById(id) => (i64::from(*id), 0, ""),
        Customer::ByName(name) => (0, 1, name.as_str()),
    }
}

pub(super) async fn routine_new_order(
    wire: &mut Wire,
    procedures: bool,
    peer: &Peer,
    summaries: bool,
    t: &NewOrder,
) -> Result<Done> {
    let txn = "New Order";
    let call = wire
        .call(ROUTINES[0], 8)
        .int(t.w_id.into())
        .int(t.d_id.into())
        .int(t.c_id.into())
        .int(t.lines.len() as i64)
        .int(i64::from(t.all_local))
        .ints(t.lines.iter().map(|l| l.item_id))
        .ints(t.lines.iter().map(|l| l.supply_w_id))
        .ints(t.lines.iter().map(|l| l.quantity));
    let reply = match call.run().await {
        Ok(reply) => reply,
        Err(WireError::Server(e)) if e.code == ITEM_NOT_VALID => {
            let o_id = e
                .detail
                .as_deref()
                .and_then(|d| detail_field(d, "o_id"))
                .and_then(|o| o.parse().ok());
            return Ok(new_order_done(summaries, t, o_id, None));
        }
        Err(e) => return Err(routine_failed(peer, txn, &e)),
    };
    if reply.first().is_none() {
        return Err(not_found(peer, txn, "a result row"));
    }
    let o_id = read(reply.int(0), peer, txn)?;
    let total = read(reply.text(1), peer, txn)?;
    if procedures && read(reply.int(7), peer, txn)? == Some(1) {
        return Ok(new_order_done(summaries, t, o_id, None));
    }
    match total {
        Some(total) => Ok(new_order_done(summaries, t, o_id, Some(total))),
        None => Err(not_found(peer, txn, "the order total")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_fields_are_found_by_key() {
        let d = "w_id=1 d_id=3 c_id=5 o_id=3012 c_last=BARBAR c_credit=GC i_id=100001";
        assert_eq!(detail_field(d, "o_id"), Some("3012"));
        assert_eq!(detail_field(d, "c_id"), Some("5"));
        assert_eq!(detail_field(d, "id"), None);
        assert_eq!(detail_field(d, "x"), None);
    }
}
