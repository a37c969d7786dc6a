//! The TPROC-C workload for the virtual-user runtime: a terminal deals transactions from the
//! deck with TPC-C's inputs, keys and thinks, runs them on a [`TxnDb`]'s connection; the
//! monitor reads the new-order and transaction counters and gives NOPM and TPM.
//!
//! The runtime ([`crate::vu`]) owns the threads, connections, stop, reconnecting and
//! statistics; this file only says what one TPROC-C terminal does.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;

use super::acked::Acked;
use super::inputs::{think_time, Deck, Kind, Terminal};
use super::random::uniform;
use super::result::{self, Figures};
use super::txn::{Counters, Done, TxnConn, TxnDb};
use super::Constants;
use crate::endpoint::Position;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::vu::{Monitor, Place, Say, Workload};

pub use super::options::{DriverKind, Options};
pub use super::result::RunResult;
/// Where the run reports virtual users' states (the engines' run signature names it here).
pub use crate::vu::StateSink;

impl From<Kind> for usize {
    fn from(k: Kind) -> usize {
        k.index()
    }
}

/// The names of the five transactions, in [`Kind::ALL`]'s order.
pub const TYPE_NAMES: [&str; 5] = [
    Kind::NewOrder.name(),
    Kind::Payment.name(),
    Kind::Delivery.name(),
    Kind::StockLevel.name(),
    Kind::OrderStatus.name(),
];

/// TPROC-C on a database: the workload the runtime drives.
struct Tpcc<D> {
    db: Arc<D>,
    opts: Options,
    /// Terminals print each transaction's summary (the test driver with `show_output`).
    show: bool,
    /// The highest New-Order id acknowledged in each district.
    acked: Acked,
}

/// What the pre-run checks found: the schema's warehouses and the run's NURand constants.
struct Plan {
    warehouses: u32,
    constants: Constants,
}

/// One TPROC-C terminal: its inputs, its deck, its warehouses in all-warehouse mode, and how
/// many transactions it has dealt.
struct TpccTerminal {
    inputs: Terminal,
    deck: Deck,
    /// The warehouses it visits in turn (all-warehouse mode), empty otherwise.
    cycle: Vec<u32>,
    at: usize,
    dealt: u64,
}

/// The warehouses a virtual user visits in all-warehouse mode: every `vus`-th one.
fn warehouses_of(vu: u32, vus: u32, warehouses: u32) -> Vec<u32> {
    (1..=warehouses)
        .filter(|w| (w - 1) % vus == vu - 1)
        .collect()
}

impl<D: TxnDb> Workload for Tpcc<D> {
    type Conn = D::Conn;
    type Terminal = TpccTerminal;
    type Unit = Kind;
    type Done = Done;
    type Plan = Plan;
    type Monitor = Self;

    fn type_names(&self) -> &'static [&'static str] {
        &TYPE_NAMES
    }

    fn unit_word(&self) -> &'static str {
        "transaction"
    }

    fn index(unit: Kind) -> usize {
        unit.index()
    }

    async fn prepare(&self) -> Result<Plan> {
        let (warehouses, load) = self.db.prepare(self.opts.warehouses).await?;
        let mut seed: SmallRng = rand::SeedableRng::from_os_rng();
        let constants = Constants::for_run(&load, &mut seed);
        self.acked.size(warehouses);
        Ok(Plan {
            warehouses,
            constants,
        })
    }

    fn monitor(&self) -> Option<&Self> {
        (self.opts.driver == DriverKind::Timed).then_some(self)
    }

    fn started(&self, say: &Say) {
        let verb = if self.opts.driver == DriverKind::Test && self.opts.show_output {
            "without"
        } else {
            "with"
        };
        say.line(format!(
            "Processing {} transactions {verb} output suppressed...",
            self.opts.total_iterations
        ));
    }

    fn connect(&self, at: Position) -> impl std::future::Future<Output = Result<D::Conn>> + Send {
        self.db.connect(at)
    }

    fn node(conn: &D::Conn) -> Option<String> {
        Some(conn.node().to_string())
    }

    fn close(conn: D::Conn) -> impl std::future::Future<Output = ()> + Send {
        conn.close()
    }

    fn into_blocking(conn: D::Conn) -> Result<D::Conn> {
        conn.into_blocking()
    }

    fn reply_timeout(&self) -> Duration {
        self.db.reply_timeout()
    }

    fn peer(&self, at: Position) -> crate::fault::Peer {
        self.db.peer(at)
    }

    fn cut(&self) -> usize {
        self.db.cut()
    }

    fn terminal(&self, plan: &Plan, place: Place, mut rng: SmallRng) -> TpccTerminal {
        let home = uniform(&mut rng, 1, plan.warehouses);
        // A virtual user's asynchronous clients each keep their home warehouse.
        let cycle = if self.opts.all_warehouses && place.client.is_none() {
            warehouses_of(place.worker, place.workers, plan.warehouses)
        } else {
            Vec::new()
        };
        TpccTerminal {
            inputs: Terminal::new(rng, plan.constants, plan.warehouses, home),
            deck: Deck::new(),
            cycle,
            at: 0,
            dealt: 0,
        }
    }

    fn next(&self, t: &mut TpccTerminal, _say: &Say) -> Option<Kind> {
        if t.dealt >= self.opts.total_iterations {
            return None;
        }
        t.dealt += 1;
        if let Some(w) = t.cycle.get(t.at) {
            t.inputs.w_id = *w;
            t.at = (t.at + 1) % t.cycle.len();
        }
        Some(t.deck.deal(&mut t.inputs.rng))
    }

    fn keying(&self, _t: &mut TpccTerminal, kind: Kind) -> Option<Duration> {
        self.opts.key_and_think.then(|| kind.keying())
    }

    async fn execute(&self, conn: &mut D::Conn, kind: Kind, t: &mut TpccTerminal) -> Result<Done> {
        let t = &mut t.inputs;
        match kind {
            Kind::NewOrder => conn.new_order(&t.new_order()).await,
            Kind::Payment => conn.payment(&t.payment()).await,
            Kind::Delivery => conn.delivery(&t.delivery()).await,
            Kind::StockLevel => conn.stock_level(&t.stock_level()).await,
            Kind::OrderStatus => conn.order_status(&t.order_status()).await,
        }
    }

    fn rolled_back(done: &Done) -> bool {
        done.rolled_back
    }

    fn done(&self, _t: &mut TpccTerminal, say: &Say, kind: Kind, done: Done, _: Duration) {
        if let Some((w, d, o_id)) = done.ordered {
            self.acked.record(w, d, o_id);
        }
        if self.show {
            say.line(kind.name());
            say.line(done.summary);
        }
    }

    fn think(&self, t: &mut TpccTerminal, kind: Kind) -> Option<Duration> {
        self.opts
            .key_and_think
            .then(|| think_time(kind, &mut t.inputs.rng))
    }
}

impl<D: TxnDb> Monitor for Tpcc<D> {
    type Reading = Counters;
    type Figures = Figures;

    fn read(&self) -> impl std::future::Future<Output = Result<Counters>> + Send {
        self.db.counters()
    }

    fn figures(&self, start: &Counters, end: &Counters, measured: Duration, say: &Say) -> Figures {
        let mins = measured.as_secs_f64() / 60.0;
        let nopm = end.new_orders.saturating_sub(start.new_orders) as f64 / mins;
        if end.went_back(start) {
            // A server restart resets (or rewinds) its statistics: no honest TPM exists then.
            say.line(format!(
                "The server's transaction counter went back from {} to {} during the run (a restart?): TPM is not comparable",
                start.transactions, end.transactions
            ));
        }
        let missing = end.missing_since(start);
        if !missing.is_empty() {
            say.line(format!(
                "TPM counts the servers that answered both readings: {} did not (its \
                 transactions are left out); NOPM is read from the schema on a live server",
                missing.join(", ")
            ));
        }
        let tpm = end.transactions_since(start) as f64 / mins;
        say.line(format!(
            "{} Active Virtual Users configured",
            self.opts.virtual_users
        ));
        say.line(result::test_result(
            self.db.name(),
            nopm,
            tpm,
            self.opts.nopm_first,
        ));
        Figures { nopm, tpm }
    }

    fn rates(&self, start: &Counters, end: &Counters, over: Duration) -> Vec<(&'static str, f64)> {
        let mins = over.as_secs_f64() / 60.0;
        if mins <= 0.0 {
            return Vec::new();
        }
        let nopm = end.new_orders.saturating_sub(start.new_orders) as f64 / mins;
        let tpm = end.transactions_since(start) as f64 / mins;
        let rates = [("NOPM", nopm), ("TPM", tpm)];
        if self.opts.nopm_first {
            rates.to_vec()
        } else {
            rates.into_iter().rev().collect()
        }
    }
}

/// Runs TPROC-C: checks the schema, starts the virtual users one `user_delay` apart, and for
/// a timed run lets virtual user 1 monitor it and report NOPM and TPM.
pub async fn run<D: TxnDb>(
    db: Arc<D>,
    opts: Options,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<RunResult> {
    let run_opts = crate::vu::RunOptions {
        virtual_users: opts.virtual_users,
        user_delay: opts.user_delay,
        terminals: if opts.async_scale {
            opts.async_clients.max(1)
        } else {
            1
        },
        login_delay: opts.async_delay,
        pool: opts.async_pool,
        raise_error: opts.raise_error,
        reconnect_for: opts.reconnect_for,
        time_profile: opts.time_profile,
        rampup: opts.rampup,
        duration: opts.duration,
        refresh: opts.refresh,
    };
    let show = opts.show_output && opts.driver == DriverKind::Test;
    let w = Arc::new(Tpcc {
        db: db.clone(),
        opts,
        show,
        acked: Acked::default(),
    });
    let o = crate::vu::run(w.clone(), run_opts, say, states, interrupt).await?;
    // A run that lost connections may have lost acknowledged commits with them: compare
    // each district's highest acknowledged New-Order with the server that answers now.
    let lost_any = o.stats.reconnects > 0 || !o.nodes.moves.is_empty();
    let failover = if lost_any {
        Some(match db.district_heads().await {
            Ok((server, heads)) => Ok(w.acked.compare(&heads, &server)),
            Err(e) => Err(e.to_string()),
        })
    } else {
        None
    };
    Ok(RunResult {
        nopm: o.figures.as_ref().map(|f| f.nopm),
        tpm: o.figures.as_ref().map(|f| f.tpm),
        active_vus: o.active_vus,
        measured: o.measured,
        stats: o.stats,
        per_vu: o.per_vu,
        stopped_early: o.stopped_early,
        failed_vus: o.failed_vus,
        client_cpu: o.client_cpu,
        abandoned_calls: o.abandoned_calls,
        series: o.series,
        nodes: o.nodes,
        failover,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_warehouse_mode_covers_every_warehouse_once() {
        let mut seen: Vec<u32> = (1..=3).flat_map(|vu| warehouses_of(vu, 3, 10)).collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..=10).collect::<Vec<_>>());
        assert_eq!(warehouses_of(2, 3, 10), [2, 5, 8]);
    }

    #[test]
    fn type_names_follow_the_kinds() {
        for k in Kind::ALL {
            assert_eq!(TYPE_NAMES[k.index()], k.name());
        }
    }
}
