//! What a terminal sends: the transaction mix and each transaction's inputs, per TPC-C
//! clauses 2.4.1 to 2.8.1 and 5.2.5, generated with the run-time NURand constants.

use std::time::Duration;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::Rng;

use super::random::{last_name, uniform};
use super::txn::{Customer, Delivery, Line, NewOrder, OrderStatus, Payment, StockLevel};
use super::{Constants, DISTRICTS_PER_W, ITEMS};

/// The five transaction types, in the order results are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    NewOrder,
    Payment,
    Delivery,
    StockLevel,
    OrderStatus,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::NewOrder,
        Kind::Payment,
        Kind::Delivery,
        Kind::StockLevel,
        Kind::OrderStatus,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// HammerDB's names in test output and results.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::NewOrder => "new order",
            Kind::Payment => "payment",
            Kind::Delivery => "delivery",
            Kind::StockLevel => "stock level",
            Kind::OrderStatus => "order status",
        }
    }

    /// Keying time (clause 5.2.5.7).
    pub fn keying(self) -> Duration {
        Duration::from_secs(match self {
            Kind::NewOrder => 18,
            Kind::Payment => 3,
            _ => 2,
        })
    }

    /// Mean think time (clause 5.2.5.7).
    pub fn mean_think(self) -> Duration {
        Duration::from_secs(match self {
            Kind::NewOrder | Kind::Payment => 12,
            Kind::OrderStatus => 10,
            Kind::Delivery | Kind::StockLevel => 5,
        })
    }
}

/// HammerDB's mix as a deck of 23 cards (10 New-Order, 10 Payment, one each of the others),
/// dealt without replacement and reshuffled when empty: every 23 transactions hold exactly
/// that mix, which keeps each type above the minimum shares of clause 5.2.3. The cards are
/// the terminal's own, inline (a run may hold a hundred thousand decks).
pub struct Deck {
    cards: [Kind; CARDS],
    next: u8,
}

/// The deck's size.
const CARDS: usize = 23;

impl Deck {
    pub fn new() -> Self {
        let mut cards = [Kind::NewOrder; CARDS];
        cards[10..20].fill(Kind::Payment);
        cards[20..].copy_from_slice(&[Kind::Delivery, Kind::StockLevel, Kind::OrderStatus]);
        Deck {
            cards,
            next: CARDS as u8,
        }
    }

    pub fn deal(&mut self, rng: &mut SmallRng) -> Kind {
        if usize::from(self.next) == CARDS {
            self.cards.shuffle(rng);
            self.next = 0;
        }
        self.next += 1;
        self.cards[usize::from(self.next) - 1]
    }
}

impl Default for Deck {
    fn default() -> Self {
        Self::new()
    }
}

/// Think time: negative exponential with the type's mean, cut at ten times the mean
/// (clause 5.2.5.4).
pub fn think_time(kind: Kind, rng: &mut SmallRng) -> Duration {
    let mean = kind.mean_think().as_secs_f64();
    let u: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
    Duration::from_secs_f64((-u.ln() * mean).min(10.0 * mean))
}

/// One terminal's fixed facts and its random source.
pub struct Terminal {
    pub rng: SmallRng,
    pub constants: Constants,
    /// Warehouses in the schema (`max(w_id)`).
    pub warehouses: u32,
    /// The home warehouse.
    pub w_id: u32,
    /// The district Stock-Level always uses (clause 2.8.1.1).
    pub stock_d_id: u32,
}

impl Terminal {
    pub fn new(mut rng: SmallRng, constants: Constants, warehouses: u32, w_id: u32) -> Self {
        let stock_d_id = uniform(&mut rng, 1, DISTRICTS_PER_W);
        Terminal {
            rng,
            constants,
            warehouses,
            w_id,
            stock_d_id,
        }
    }

    /// Another warehouse than home, uniformly; home when there is only one.
    fn remote_warehouse(&mut self) -> u32 {
        if self.warehouses <= 1 {
            return self.w_id;
        }
        let w = uniform(&mut self.rng, 1, self.warehouses - 1);
        if w >= self.w_id {
            w + 1
        } else {
            w
        }
    }

    /// A customer by last name (60 %) or by id (clauses 2.5.1.2, 2.6.1.2).
    fn customer(&mut self) -> Customer {
        if uniform(&mut self.rng, 1, 100) <= 60 {
            Customer::ByName(last_name(self.constants.last_name_number(&mut self.rng)))
        } else {
            Customer::ById(self.constants.customer_id(&mut self.rng))
        }
    }

    /// Clause 2.4.1.
    pub fn new_order(&mut self) -> NewOrder {
        let rng = &mut self.rng;
        let d_id = uniform(rng, 1, DISTRICTS_PER_W);
        let c_id = self.constants.customer_id(rng);
        let count = uniform(rng, 5, 15);
        let rollback = uniform(rng, 1, 100) == 1;
        let mut lines = Vec::with_capacity(count as usize);
        for n in 1..=count {
            let item_id = if rollback && n == count {
                ITEMS + 1
            } else {
                self.constants.item_id(&mut self.rng)
            };
            let supply_w_id = if uniform(&mut self.rng, 1, 100) == 1 {
                self.remote_warehouse()
            } else {
                self.w_id
            };
            let quantity = uniform(&mut self.rng, 1, 10);
            lines.push(Line {
                item_id,
                supply_w_id,
                quantity,
            });
        }
        let all_local = lines.iter().all(|l| l.supply_w_id == self.w_id);
        // One lock order for STOCK rows across terminals; the unused item stays last.
        lines.sort_by_key(|l| (l.item_id, l.supply_w_id));
        NewOrder {
            w_id: self.w_id,
            d_id,
            c_id,
            lines,
            all_local,
        }
    }

    /// Clause 2.5.1.
    pub fn payment(&mut self) -> Payment {
        let d_id = uniform(&mut self.rng, 1, DISTRICTS_PER_W);
        let (c_w_id, c_d_id) = if uniform(&mut self.rng, 1, 100) <= 85 {
            (self.w_id, d_id)
        } else {
            let c_d_id = uniform(&mut self.rng, 1, DISTRICTS_PER_W);
            (self.remote_warehouse(), c_d_id)
        };
        let customer = self.customer();
        Payment {
            w_id: self.w_id,
            d_id,
            c_w_id,
            c_d_id,
            customer,
            amount_cents: uniform(&mut self.rng, 100, 500_000),
        }
    }

    /// Clause 2.6.1.
    pub fn order_status(&mut self) -> OrderStatus {
        let d_id = uniform(&mut self.rng, 1, DISTRICTS_PER_W);
        OrderStatus {
            w_id: self.w_id,
            d_id,
            customer: self.customer(),
        }
    }

    /// Clause 2.7.1.
    pub fn delivery(&mut self) -> Delivery {
        Delivery {
            w_id: self.w_id,
            carrier_id: uniform(&mut self.rng, 1, 10),
        }
    }

    /// Clause 2.8.1.
    pub fn stock_level(&mut self) -> StockLevel {
        StockLevel {
            w_id: self.w_id,
            d_id: self.stock_d_id,
            threshold: uniform(&mut self.rng, 10, 20),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn terminal(warehouses: u32, w_id: u32) -> Terminal {
        let mut rng = SmallRng::seed_from_u64(7);
        let load = Constants::for_load(&mut rng);
        let run = Constants::for_run(&load, &mut rng);
        Terminal::new(rng, run, warehouses, w_id)
    }

    #[test]
    fn the_deck_deals_the_mix_exactly_every_23() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut deck = Deck::new();
        for _ in 0..50 {
            let mut counts = [0; 5];
            for _ in 0..23 {
                counts[deck.deal(&mut rng).index()] += 1;
            }
            assert_eq!(counts, [10, 10, 1, 1, 1]);
        }
    }

    #[test]
    fn new_orders_follow_clause_2_4_1() {
        let mut t = terminal(10, 4);
        let (mut rollbacks, mut remote_lines, mut lines_total, mut orders) = (0, 0, 0, 0);
        for _ in 0..20_000 {
            let o = t.new_order();
            orders += 1;
            assert!((5..=15).contains(&o.lines.len()));
            assert!((1..=10).contains(&o.d_id) && (1..=3000).contains(&o.c_id));
            if o.lines.last().unwrap().item_id == ITEMS + 1 {
                rollbacks += 1;
            }
            for l in &o.lines {
                assert!((1..=10).contains(&l.quantity));
                assert!(l.item_id <= ITEMS + 1);
                if l.supply_w_id != 4 {
                    remote_lines += 1;
                    assert!((1..=10).contains(&l.supply_w_id));
                }
            }
            assert_eq!(o.all_local, o.lines.iter().all(|l| l.supply_w_id == 4));
            assert!(o
                .lines
                .windows(2)
                .all(|w| (w[0].item_id, w[0].supply_w_id) <= (w[1].item_id, w[1].supply_w_id)));
            lines_total += o.lines.len();
        }
        let share = rollbacks as f64 / orders as f64;
        assert!((0.007..0.013).contains(&share), "rollback share {share}");
        let remote = remote_lines as f64 / lines_total as f64;
        assert!((0.007..0.013).contains(&remote), "remote share {remote}");
    }

    #[test]
    fn payments_follow_clause_2_5_1() {
        let mut t = terminal(5, 2);
        let (mut remote, mut by_name, n) = (0, 0, 20_000);
        for _ in 0..n {
            let p = t.payment();
            assert!((100..=500_000).contains(&p.amount_cents));
            if p.c_w_id != 2 {
                remote += 1;
            } else {
                assert_eq!(p.c_d_id, p.d_id);
            }
            if let Customer::ByName(name) = &p.customer {
                by_name += 1;
                assert!(name.len() >= 9, "{name}");
            }
        }
        let remote = remote as f64 / n as f64;
        let by_name = by_name as f64 / n as f64;
        assert!((0.13..0.17).contains(&remote), "{remote}");
        assert!((0.57..0.63).contains(&by_name), "{by_name}");
    }

    #[test]
    fn one_warehouse_never_goes_remote() {
        let mut t = terminal(1, 1);
        for _ in 0..2_000 {
            assert_eq!(t.payment().c_w_id, 1);
            assert!(t.new_order().all_local);
        }
    }

    #[test]
    fn stock_level_keeps_its_district_and_think_times_are_bounded() {
        let mut t = terminal(3, 3);
        let d = t.stock_level().d_id;
        for _ in 0..100 {
            let s = t.stock_level();
            assert_eq!(s.d_id, d);
            assert!((10..=20).contains(&s.threshold));
        }
        let mut rng = SmallRng::seed_from_u64(3);
        let mean: f64 = (0..20_000)
            .map(|_| think_time(Kind::NewOrder, &mut rng).as_secs_f64())
            .sum::<f64>()
            / 20_000.0;
        assert!((11.0..13.0).contains(&mean), "{mean}");
        assert!(
            (0..1000).all(|_| think_time(Kind::StockLevel, &mut rng) <= Duration::from_secs(50))
        );
    }
}
