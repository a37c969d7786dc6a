//! Client-side SQL: the routines' business logic as prepared statements on hammer's lean
//! connection, `BEGIN`, the statement and `COMMIT` pipelined behind one Sync, so that a
//! transaction costs one round trip (New-Order two: whether it commits depends on the item
//! lookup) and the server answers each in one flush.
//!
//! After an error the server skips the rest of the pipeline up to its Sync, so a failed
//! statement leaves the transaction block open and failed; it is rolled back at once, so
//! that the locks it took go before the driver retries or moves on.

use std::collections::HashMap;

use super::outputs::{new_order_done, not_found, read, txn_failed};
use super::sql;
use crate::db::postgres::wire::{Call, Reply, Wire, WireError};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::tpcc::txn::{Done, Line, NewOrder};

/// A client-side statement: its name on the connection and its number of placeholders.
#[derive(Debug, Clone, Copy)]
pub(super) struct St(pub(super) &'static str, pub(super) i16);

const BEGIN: St = St("begin", 0);
const COMMIT: St = St("commit", 0);
const ROLLBACK: St = St("rollback", 0);
const NEWORD_START: St = St("neword_start", 4);
const NEWORD_FINISH: St = St("neword_finish", 11);
const STOCK: St = St("stock", 4);
pub(super) const PAYMENT_BY_ID: St = St("payment_by_id", 6);
pub(super) const PAYMENT_BY_NAME: St = St("payment_by_name", 6);
pub(super) const OSTAT_BY_ID: St = St("ostat_by_id", 3);
pub(super) const OSTAT_BY_NAME: St = St("ostat_by_name", 3);
pub(super) const DELIVERY: St = St("delivery", 2);
pub(super) const SLEV: St = St("slev", 3);

/// The statements in the order of `sql::client`.
const STATEMENTS: [St; 12] = [
    BEGIN,
    COMMIT,
    ROLLBACK,
    NEWORD_START,
    NEWORD_FINISH,
    STOCK,
    PAYMENT_BY_ID,
    PAYMENT_BY_NAME,
    OSTAT_BY_ID,
    OSTAT_BY_NAME,
    DELIVERY,
    SLEV,
];

/// Client-side SQL: the connection, and whether a transaction may still be open because a
/// call was dropped halfway or its rollback failed.
pub(super) struct ClientLink {
    pub(super) wire: Wire,
    pub(super) open: bool,
}

/// Prepares the client-side statements on `wire`, all in one round trip; `begin` starts
/// each transaction (its dialect's isolation: `BEGIN ISOLATION LEVEL SERIALIZABLE`).
pub(super) async fn prepare(wire: &mut Wire, begin: String) -> Result<(), WireError> {
    let mut texts = sql::client();
    texts[0] = begin;
    let named: Vec<(&str, &str)> = STATEMENTS
        .iter()
        .zip(&texts)
        .map(|(st, sql)| (st.0, sql.as_str()))
        .collect();
    wire.prepare(&named).await
}

/// Stock updates beyond the first for order lines that repeat an (item, supply warehouse)
/// pair: the first occurrence of every pair is updated with the order's other writes, the
/// second ones in a second statement, and so on, so each line applies the replenishment rule
/// to the quantity the previous one left, as the functions' line-by-line loop does.
#[derive(Debug, Default, PartialEq)]
pub(super) struct StockRound {
    pub(super) items: Vec<u32>,
    pub(super) supply: Vec<u32>,
    pub(super) quantities: Vec<u32>,
}

pub(super) fn later_rounds(lines: &[Line]) -> Vec<StockRound> {
    let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
    let mut rounds: Vec<StockRound> = Vec::new();
    for l in lines {
        let n = seen.entry((l.item_id, l.supply_w_id)).or_insert(0);
        *n += 1;
        if *n < 2 {
            continue;
        }
        let r = *n - 2;
        if rounds.len() <= r {
            rounds.push(StockRound::default());
        }
        let round = &mut rounds[r];
        round.items.push(l.item_id);
        round.supply.push(l.supply_w_id);
        round.quantities.push(l.quantity);
    }
    rounds
}

/// Starts a transaction's pipeline: a ROLLBACK first when a dropped call may have left a
/// transaction open (with nothing open it only draws a warning), `BEGIN`, then `st`, whose
/// parameters the caller adds.
fn begin(wire: &mut Wire, was_open: bool, st: St) -> Call<'_> {
    let call = if was_open {
        wire.call(ROLLBACK.0, 0).then(BEGIN.0, 0)
    } else {
        wire.call(BEGIN.0, 0)
    };
    call.then(st.0, st.1)
}

/// Ends the open transaction with a rollback; `open` stays set when it could not be sent,
/// so the next transaction's pipeline starts with one.
async fn rollback(wire: &mut Wire, open: &mut bool) -> Result<(), WireError> {
    wire.call(ROLLBACK.0, 0).run().await?;
    *open = wire.in_transaction();
    Ok(())
}

/// A pipeline's failure: the transaction left open by the server's error is rolled back now
/// (a lost connection has nothing left to roll back), and the error says which transaction.
async fn failed(wire: &mut Wire, open: &mut bool, peer: &Peer, txn: &str, e: WireError) -> Error {
    let err = txn_failed(peer, txn, &e);
    if matches!(e, WireError::Server(_)) {
        if wire.in_transaction() {
            let _ = rollback(wire, open).await;
        } else {
            *open = false;
        }
    }
    err
}

impl ClientLink {
    /// BEGIN, one statement with the parameters `args` adds, and COMMIT in one round trip;
    /// `done` reads the statement's row.
    pub(super) async fn single(
        &mut self,
        peer: &Peer,
        txn: &str,
        st: St,
        args: impl for<'a> FnOnce(Call<'a>) -> Call<'a>,
        done: impl FnOnce(Option<&Reply<'_>>) -> Result<Done>,
    ) -> Result<Done> {
        let ClientLink { wire, open } = self;
        let was_open = std::mem::replace(open, true);
        let call = args(begin(wire, was_open, st)).then(COMMIT.0, 0);
        let out = match call.run().await {
            Ok(reply) => done(reply.first()),
            Err(e) => return Err(failed(wire, open, peer, txn, e).await),
        };
        *open = wire.in_transaction();
        out
    }

    pub(super) async fn new_order(
        &mut self,
        peer: &Peer,
        summaries: bool,
        t: &NewOrder,
    ) -> Result<Done> {
        let txn = "New Order";
        let ClientLink { wire, open } = self;
        let was_open = std::mem::replace(open, true);

        // Round trip 1: take the order id, read the customer and taxes, count valid items.
        let call = begin(wire, was_open, NEWORD_START)
            .int(t.w_id.into())
            .int(t.d_id.into())
            .int(t.c_id.into())
            .ints(t.lines.iter().map(|l| l.item_id));
        let read_start = |reply: Reply<'_>| -> Result<_> {
            let Some(row) = reply.first() else {
                return Err(not_found(
                    peer,
                    txn,
                    &format!(
                        "warehouse {}, district {} or customer {}",
                        t.w_id, t.d_id, t.c_id
                    ),
                ));
            };
            let text = |i| -> Result<String> {
                match read(row.text(i), peer, txn)? {
                    Some(v) => Ok(v.to_string()),
                    None => Err(not_found(peer, txn, &format!("column {i}"))),
                }
            };
            let o_id = read(row.int(0), peer, txn)?;
            let found = read(row.int(4), peer, txn)?.unwrap_or(0);
            Ok((o_id, text(1)?, text(2)?, text(3)?, found))
        };
        let start = match call.run().await {
            Ok(reply) => read_start(reply),
            Err(e) => return Err(failed(wire, open, peer, txn, e).await),
        };
        let (o_id, d_tax, w_tax, discount, found) = match start {
            Ok(values) => values,
            Err(e) => {
                let _ = rollback(wire, open).await;
                return Err(e);
            }
        };
        let Some(o_id) = o_id else {
            let _ = rollback(wire, open).await;
            return Err(not_found(peer, txn, "the order id"));
        };
        if usize::try_from(found).unwrap_or(0) < t.lines.len() {
            // Clause 2.4.2.3: an unused item rolls the whole order back.
            return match rollback(wire, open).await {
                Ok(()) => Ok(new_order_done(summaries, t, Some(o_id), None)),
                Err(e) => Err(txn_failed(peer, txn, &e)),
            };
        }

        // Round trip 2: the order, its lines and the stock, then COMMIT.
        let mut call = wire
            .call(NEWORD_FINISH.0, NEWORD_FINISH.1)
            .int(t.w_id.into())
            .int(t.d_id.into())
            .int(t.c_id.into())
            .int(o_id)
            .int(i64::from(t.all_local))
            .ints(t.lines.iter().map(|l| l.item_id))
            .ints(t.lines.iter().map(|l| l.supply_w_id))
            .ints(t.lines.iter().map(|l| l.quantity))
            .text(&discount)
            .text(&w_tax)
            .text(&d_tax);
        for r in later_rounds(&t.lines) {
            call = call
                .then(STOCK.0, STOCK.1)
                .int(t.w_id.into())
                .ints(r.items.into_iter())
                .ints(r.supply.into_iter())
                .ints(r.quantities.into_iter());
        }
        let out = match call.then(COMMIT.0, 0).run().await {
            Ok(reply) => match reply.first() {
                Some(row) => match read(row.text(0), peer, txn)? {
                    Some(total) => Ok(new_order_done(summaries, t, Some(o_id), Some(total))),
                    None => Err(not_found(peer, txn, "the order total")),
                },
                None => Err(not_found(peer, txn, "the order total")),
            },
            Err(e) => return Err(failed(wire, open, peer, txn, e).await),
        };
        *open = wire.in_transaction();
        out
    }

    /// Closes the connection, rolling back what a dropped call may have left open.
    pub(super) async fn close(mut self) {
        if self.open {
            let _ = rollback(&mut self.wire, &mut self.open).await;
        }
        self.wire.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(item_id: u32, supply_w_id: u32, quantity: u32) -> Line {
        Line {
            item_id,
            supply_w_id,
            quantity,
        }
    }

    #[test]
    fn repeated_lines_update_stock_in_later_rounds() {
        assert!(later_rounds(&[line(1, 1, 5), line(2, 1, 5), line(2, 2, 5)]).is_empty());
        let rounds = later_rounds(&[
            line(1, 1, 5),
            line(2, 1, 6),
            line(2, 1, 7),
            line(2, 1, 8),
            line(3, 1, 9),
            line(3, 1, 10),
        ]);
        assert_eq!(
            rounds,
            vec![
                StockRound {
                    items: vec![2, 3],
                    supply: vec![1, 1],
                    quantities: vec![7, 10],
                },
                StockRound {
                    items: vec![2],
                    supply: vec![1],
                    quantities: vec![8],
                },
            ]
        );
    }

    #[test]
    fn the_statements_are_named_once_each() {
        let mut names: Vec<_> = STATEMENTS.iter().map(|s| s.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), STATEMENTS.len());
        // Each statement's placeholders are the ones its text uses, $1 to $n.
        for (st, text) in STATEMENTS.iter().zip(sql::client()) {
            let highest = (1..=40)
                .filter(|n| text.contains(&format!("${n}::")))
                .max()
                .unwrap_or(0);
            assert_eq!(highest, st.1, "{}: {text}", st.0);
        }
    }
}
