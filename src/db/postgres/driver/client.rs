//! Client-side SQL: the routines' business logic as prepared statements, pipelined inside
//! `BEGIN ... COMMIT` so that a transaction costs one round trip, New-Order two.

use std::collections::HashMap;

use futures_util::future::join_all;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, Statement};

use super::numeric::Numeric;
use super::outputs::{col, new_order_done, not_found, txn_failed};
use super::sql;
use crate::db::postgres::PgConn;
use crate::error::Result;
use crate::fault::Peer;
use crate::tpcc::txn::{Done, Line, NewOrder};

/// Client-side SQL: the connection, its statements, and whether a transaction may still be
/// open because a call was dropped halfway.
pub(super) struct ClientLink {
    pub(super) conn: PgConn,
    pub(super) st: ClientStatements,
    pub(super) open: bool,
}

/// Client-side SQL, in the order of `sql::client`.
pub(super) struct ClientStatements {
    pub(super) begin: Statement,
    pub(super) commit: Statement,
    pub(super) rollback: Statement,
    pub(super) neword_start: Statement,
    pub(super) neword_finish: Statement,
    pub(super) stock: Statement,
    pub(super) payment_by_id: Statement,
    pub(super) payment_by_name: Statement,
    pub(super) ostat_by_id: Statement,
    pub(super) ostat_by_name: Statement,
    pub(super) delivery: Statement,
    pub(super) slev: Statement,
}

impl ClientStatements {
    /// Prepares the statements, all in one round trip.
    pub(super) async fn prepare(client: &Client) -> Result<Self, tokio_postgres::Error> {
        let [begin, commit, rollback, neword_start, neword_finish, stock, payment_by_id, payment_by_name, ostat_by_id, ostat_by_name, delivery, slev] =
            prepare_all(client, sql::client()).await?;
        Ok(ClientStatements {
            begin,
            commit,
            rollback,
            neword_start,
            neword_finish,
            stock,
            payment_by_id,
            payment_by_name,
            ostat_by_id,
            ostat_by_name,
            delivery,
            slev,
        })
    }
}

/// Prepares `N` statements, pipelined.
pub(super) async fn prepare_all<const N: usize>(
    client: &Client,
    texts: [String; N],
) -> Result<[Statement; N], tokio_postgres::Error> {
    let prepared = join_all(texts.iter().map(|t| client.prepare(t))).await;
    let statements = prepared.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(statements
        .try_into()
        .unwrap_or_else(|_: Vec<Statement>| unreachable!("join_all gives one result per text")))
}

/// A statement parameter: TPC-C's numbers are small, and the schema's columns are `int`.
pub(super) fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Cents as the text a `$n::text::numeric` parameter takes: 1234 is `12.34`.
pub(super) fn money(cents: u32) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// Stock updates beyond the first for order lines that repeat an (item, supply warehouse)
/// pair: the first occurrence of every pair is updated with the order's other writes, the
/// second ones in a second statement, and so on, so each line applies the replenishment rule
/// to the quantity the previous one left, as the functions' line-by-line loop does.
#[derive(Debug, Default, PartialEq)]
pub(super) struct StockRound {
    pub(super) items: Vec<i32>,
    pub(super) supply: Vec<i32>,
    pub(super) quantities: Vec<i32>,
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
        round.items.push(int(l.item_id));
        round.supply.push(int(l.supply_w_id));
        round.quantities.push(int(l.quantity));
    }
    rounds
}

/// The inputs shared by the New-Order statements.
pub(super) struct OrderArgs {
    pub(super) w: i32,
    pub(super) d: i32,
    pub(super) c: i32,
    pub(super) all_local: i32,
    pub(super) items: Vec<i32>,
    pub(super) supply: Vec<i32>,
    pub(super) quantities: Vec<i32>,
}

impl OrderArgs {
    pub(super) fn new(t: &NewOrder) -> Self {
        OrderArgs {
            w: int(t.w_id),
            d: int(t.d_id),
            c: int(t.c_id),
            all_local: i32::from(t.all_local),
            items: t.lines.iter().map(|l| int(l.item_id)).collect(),
            supply: t.lines.iter().map(|l| int(l.supply_w_id)).collect(),
            quantities: t.lines.iter().map(|l| int(l.quantity)).collect(),
        }
    }
}

/// Client-side SQL: a ROLLBACK request when a dropped call may have left a transaction
/// open, sent first in a pipeline (a ROLLBACK with nothing open only draws a warning).
pub(super) async fn reset(client: &Client, st: &ClientStatements, open: bool) {
    if open {
        let _ = client.execute(&st.rollback, &[]).await;
    }
}

/// Client-side SQL: ends the open transaction with a rollback.
pub(super) async fn rollback(
    client: &Client,
    st: &ClientStatements,
    open: &mut bool,
) -> Result<(), tokio_postgres::Error> {
    let r = client.execute(&st.rollback, &[]).await;
    if r.is_ok() || client.is_closed() {
        *open = false;
    }
    r.map(|_| ())
}

impl ClientLink {
    /// BEGIN, one statement and COMMIT in one round trip. A failed statement turns the
    /// COMMIT into a rollback, so nothing stays open either way.
    pub(super) async fn single(
        &mut self,
        peer: &Peer,
        txn: &str,
        pick: impl Fn(&ClientStatements) -> &Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        let (client, st) = (&self.conn.client, &self.st);
        let was_open = std::mem::replace(&mut self.open, true);
        let (_, begin, rows, commit) = tokio::join!(
            biased;
            reset(client, st, was_open),
            client.execute(&st.begin, &[]),
            client.query(pick(st), params),
            client.execute(&st.commit, &[]),
        );
        self.open = false;
        let r = begin.and(rows).and_then(|rows| commit.map(|_| rows));
        r.map_err(|e| txn_failed(peer, txn, &e))
    }

    pub(super) async fn new_order(
        &mut self,
        peer: &Peer,
        summaries: bool,
        t: &NewOrder,
    ) -> Result<Done> {
        let txn = "New Order";
        let ClientLink { conn, st, open } = self;
        let client = &conn.client;
        let a = OrderArgs::new(t);

        // Round trip 1: take the order id, read the customer and taxes, count valid items.
        let was_open = std::mem::replace(open, true);
        let params: [&(dyn ToSql + Sync); 4] = [&a.w, &a.d, &a.c, &a.items];
        let (_, begin, start) = tokio::join!(
            biased;
            reset(client, st, was_open),
            client.execute(&st.begin, &[]),
            client.query(&st.neword_start, &params),
        );
        let read = match begin.and(start) {
            Ok(rows) => match rows.first() {
                None => Err(not_found(
                    peer,
                    txn,
                    &format!(
                        "warehouse {}, district {} or customer {}",
                        t.w_id, t.d_id, t.c_id
                    ),
                )),
                Some(row) => (|| {
                    Ok((
                        col::<i32>(row, 0, peer, txn)?,
                        col::<Numeric>(row, 1, peer, txn)?,
                        col::<Numeric>(row, 2, peer, txn)?,
                        col::<Numeric>(row, 3, peer, txn)?,
                        col::<i32>(row, 4, peer, txn)?,
                    ))
                })(),
            },
            Err(e) => Err(txn_failed(peer, txn, &e)),
        };
        let (o_id, d_tax, w_tax, discount, found) = match read {
            Ok(values) => values,
            Err(e) => {
                let _ = rollback(client, st, open).await;
                return Err(e);
            }
        };
        if usize::try_from(found).unwrap_or(0) < t.lines.len() {
            // Clause 2.4.2.3: an unused item rolls the whole order back.
            return match rollback(client, st, open).await {
                Ok(()) => Ok(new_order_done(summaries, t, Some(o_id.into()), None)),
                Err(e) => Err(txn_failed(peer, txn, &e)),
            };
        }

        // Round trip 2: the order, its lines and the stock, then COMMIT.
        let rounds = later_rounds(&t.lines);
        let round_params: Vec<[&(dyn ToSql + Sync); 4]> = rounds
            .iter()
            .map(|r| -> [&(dyn ToSql + Sync); 4] { [&a.w, &r.items, &r.supply, &r.quantities] })
            .collect();
        let params: [&(dyn ToSql + Sync); 11] = [
            &a.w,
            &a.d,
            &a.c,
            &o_id,
            &a.all_local,
            &a.items,
            &a.supply,
            &a.quantities,
            &discount.0,
            &w_tax.0,
            &d_tax.0,
        ];
        let (finish, later, commit) = tokio::join!(
            biased;
            client.query(&st.neword_finish, &params),
            join_all(round_params.iter().map(|p| client.execute(&st.stock, p))),
            client.execute(&st.commit, &[]),
        );
        *open = false;
        let rows = finish
            .and_then(|rows| later.into_iter().try_fold(rows, |rows, r| r.map(|_| rows)))
            .and_then(|rows| commit.map(|_| rows))
            .map_err(|e| txn_failed(peer, txn, &e))?;
        let total: Option<Numeric> = match rows.first() {
            Some(row) => col(row, 0, peer, txn)?,
            None => None,
        };
        match total {
            Some(total) => Ok(new_order_done(
                summaries,
                t,
                Some(o_id.into()),
                Some(&total.0),
            )),
            None => Err(not_found(peer, txn, "the order total")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_has_two_decimals() {
        assert_eq!(money(100), "1.00");
        assert_eq!(money(500_000), "5000.00");
        assert_eq!(money(1234), "12.34");
        assert_eq!(money(5), "0.05");
    }

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
}
