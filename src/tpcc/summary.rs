//! The one-line summaries of finished transactions (`showoutput`): one wording for every
//! engine, made from the values the engine read back.
//!
//! Only terminals with summaries on call these (formatting costs client CPU that a timed run
//! does not spend); the others return [`Done::quiet`].

use super::txn::{Customer, Delivery, Done, NewOrder, OrderStatus, Payment, StockLevel};
use super::ITEMS;

/// A customer's latest order, as Order-Status reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastOrder {
    pub o_id: i64,
    /// `None` while the order is undelivered.
    pub carrier: Option<i64>,
    pub lines: i64,
}

/// Cents as a decimal amount: `-120.00`.
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let a = cents.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// ` (by name X)` for a customer chosen by last name, empty for one chosen by id.
fn by_name(c: &Customer) -> String {
    match c {
        Customer::ById(_) => String::new(),
        Customer::ByName(name) => format!(" (by name {name})"),
    }
}

/// `total` is the order's total as the engine prints it, `None` for the rollback of clause
/// 2.4.2.3 (then the unused item is named); `o_id` is `None` when the engine did not say
/// which order id the rolled-back order had.
pub fn new_order(t: &NewOrder, o_id: Option<i64>, total: Option<&str>) -> Done {
    let head = format!(
        "New Order: w {} d {} c {} o {} lines {}",
        t.w_id,
        t.d_id,
        t.c_id,
        o_id.map_or_else(|| "-".to_string(), |o| o.to_string()),
        t.lines.len()
    );
    match total {
        Some(total) => Done {
            rolled_back: false,
            ordered: None,
            summary: format!("{head} total {total}"),
        },
        None => {
            let bad = t
                .lines
                .iter()
                .map(|l| l.item_id)
                .find(|&i| i > ITEMS)
                .map_or_else(
                    || " (unused item)".to_string(),
                    |i| format!(" (item {i} not valid)"),
                );
            Done {
                rolled_back: true,
                ordered: None,
                summary: format!("{head} rolled back{bad}"),
            }
        }
    }
}

/// `c_id` is the customer paid for (the one chosen when by name); `balance` as printed.
pub fn payment(t: &Payment, c_id: i64, balance: &str, credit: &str) -> Done {
    let remote = if (t.c_w_id, t.c_d_id) == (t.w_id, t.d_id) {
        String::new()
    } else {
        format!(" of w {} d {}", t.c_w_id, t.c_d_id)
    };
    Done {
        rolled_back: false,
        ordered: None,
        summary: format!(
            "Payment: w {} d {} c {c_id}{remote}{} amount {} balance {balance} credit {credit}",
            t.w_id,
            t.d_id,
            by_name(&t.customer),
            money(i64::from(t.amount_cents))
        ),
    }
}

pub fn order_status(t: &OrderStatus, c_id: i64, balance: &str, order: Option<LastOrder>) -> Done {
    let order = match order {
        None => "no order".to_string(),
        Some(o) => format!(
            "o {} carrier {} lines {}",
            o.o_id,
            o.carrier
                .map_or_else(|| "none".to_string(), |c| c.to_string()),
            o.lines
        ),
    };
    Done {
        rolled_back: false,
        ordered: None,
        summary: format!(
            "Order Status: w {} d {} c {c_id}{} balance {balance} {order}",
            t.w_id,
            t.d_id,
            by_name(&t.customer)
        ),
    }
}

pub fn delivery(t: &Delivery, delivered: i64, skipped: i64) -> Done {
    Done {
        rolled_back: false,
        ordered: None,
        summary: format!(
            "Delivery: w {} carrier {} delivered {delivered} skipped {skipped}",
            t.w_id, t.carrier_id
        ),
    }
}

pub fn stock_level(t: &StockLevel, low: i64) -> Done {
    Done {
        rolled_back: false,
        ordered: None,
        summary: format!(
            "Stock Level: w {} d {} threshold {} low {low}",
            t.w_id, t.d_id, t.threshold
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpcc::txn::Line;

    fn line(item_id: u32) -> Line {
        Line {
            item_id,
            supply_w_id: 1,
            quantity: 5,
        }
    }

    fn order(lines: Vec<Line>) -> NewOrder {
        NewOrder {
            w_id: 1,
            d_id: 3,
            c_id: 1201,
            lines,
            all_local: true,
        }
    }

    #[test]
    fn money_prints_cents() {
        assert_eq!(money(152033), "1520.33");
        assert_eq!(money(-12000), "-120.00");
        assert_eq!(money(-5), "-0.05");
        assert_eq!(money(0), "0.00");
        assert_eq!(money(500_000), "5000.00");
    }

    #[test]
    fn new_orders_commit_or_name_the_unused_item() {
        let done = new_order(&order(vec![line(1); 11]), Some(3012), Some("1520.33"));
        assert_eq!(
            done,
            Done {
                rolled_back: false,
                ordered: None,
                summary: "New Order: w 1 d 3 c 1201 o 3012 lines 11 total 1520.33".into()
            }
        );
        let done = new_order(&order(vec![line(1), line(100_001)]), Some(3013), None);
        assert!(done.rolled_back);
        assert_eq!(
            done.summary,
            "New Order: w 1 d 3 c 1201 o 3013 lines 2 rolled back (item 100001 not valid)"
        );
        let done = new_order(&order(vec![line(7)]), None, None);
        assert_eq!(
            done.summary,
            "New Order: w 1 d 3 c 1201 o - lines 1 rolled back (unused item)"
        );
    }

    #[test]
    fn payments_say_whose_and_how_much() {
        let p = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: 2,
            customer: Customer::ByName("BARPRIESE".into()),
            amount_cents: 1200,
        };
        assert_eq!(
            payment(&p, 77, "-120.00", "GC").summary,
            "Payment: w 1 d 2 c 77 (by name BARPRIESE) amount 12.00 balance -120.00 credit GC"
        );
        let p = Payment {
            c_w_id: 2,
            c_d_id: 5,
            customer: Customer::ById(77),
            ..p
        };
        assert_eq!(
            payment(&p, 77, "10.00", "BC").summary,
            "Payment: w 1 d 2 c 77 of w 2 d 5 amount 12.00 balance 10.00 credit BC"
        );
    }

    #[test]
    fn the_others_are_one_line_each() {
        let t = OrderStatus {
            w_id: 1,
            d_id: 3,
            customer: Customer::ById(42),
        };
        let last = LastOrder {
            o_id: 3001,
            carrier: None,
            lines: 5,
        };
        assert_eq!(
            order_status(&t, 42, "-10.00", Some(last)).summary,
            "Order Status: w 1 d 3 c 42 balance -10.00 o 3001 carrier none lines 5"
        );
        let last = LastOrder {
            carrier: Some(7),
            ..last
        };
        assert_eq!(
            order_status(&t, 42, "1.00", Some(last)).summary,
            "Order Status: w 1 d 3 c 42 balance 1.00 o 3001 carrier 7 lines 5"
        );
        assert_eq!(
            order_status(&t, 42, "1.00", None).summary,
            "Order Status: w 1 d 3 c 42 balance 1.00 no order"
        );
        let d = Delivery {
            w_id: 1,
            carrier_id: 7,
        };
        assert_eq!(
            delivery(&d, 9, 1).summary,
            "Delivery: w 1 carrier 7 delivered 9 skipped 1"
        );
        let s = StockLevel {
            w_id: 1,
            d_id: 4,
            threshold: 15,
        };
        assert_eq!(
            stock_level(&s, 3).summary,
            "Stock Level: w 1 d 4 threshold 15 low 3"
        );
    }
}
