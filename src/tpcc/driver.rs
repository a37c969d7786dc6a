//! The TPROC-C workload for the virtual-user runtime: a terminal deals transactions from the
//! deck with TPC-C's inputs, keys and thinks, runs them on a [`TxnDb`]'s connection; the
//! monitor reads the new-order and transaction counters and gives NOPM and TPM.
//!
//! The runtime ([`crate::vu`]) owns the threads, connections, stop, reconnecting and
//! statistics; this file only says what one TPROC-C terminal does.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::SmallRng;

use super::acked::Acked;
use super::inputs::{think_time, Deck, Kind, Terminal};
use super::links::{with_reads, Links, Pool, Which};
use super::random::uniform;
use super::result::{self, Figures, Routing, Slot};
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

/// Schemas whose pre-run checks or counters are asked at once (`*_schemas`): enough to
/// read many quickly, few enough to keep a server's connections for the terminals.
const SCHEMAS_AT_ONCE: usize = 16;

/// TPROC-C on a database: the workload the runtime drives.
struct Tpcc<D> {
    /// One database per schema (`*_schemas`, see [`super::schemas`]); the first is the
    /// session's for what concerns the run as a whole.
    dbs: Vec<Arc<D>>,
    opts: Options,
    /// Terminals print each transaction's summary (the test driver with `show_output`).
    show: bool,
    /// The highest New-Order id acknowledged in each district, per schema.
    acked: Vec<Acked>,
    /// The connect pool (`*_connect_pool`) and a database per named connection, in
    /// [`Pool::ids`]' order.
    pool: Option<(Pool, Vec<Arc<D>>)>,
    /// Where each terminal's connections went first, by terminal number and slot
    /// ([`Which::slot`]): recorded when it connects, never per transaction.
    placed: Mutex<BTreeMap<u32, Vec<Option<String>>>>,
    /// Transactions completed per slot and type, which each terminal adds when it ends.
    tally: Arc<Mutex<Vec<[u64; 5]>>>,
}

/// A connect pool and its named connections' databases, for [`run`].
pub struct PoolRun<D> {
    pub pool: Pool,
    /// One per [`Pool::ids`], in order.
    pub dbs: Vec<Arc<D>>,
}

/// What the pre-run checks found: the schema's warehouses and the run's NURand constants;
/// and this driver's home warehouses among them.
struct Plan {
    warehouses: u32,
    constants: Constants,
    range: super::range::WareRange,
}

/// One TPROC-C terminal: its inputs, its deck, its warehouses in all-warehouse mode, how
/// many transactions it has dealt, and where they ran.
struct TpccTerminal {
    /// Its schema (from 0), whose database its connections reach.
    schema: usize,
    inputs: Terminal,
    deck: Deck,
    /// The warehouses it visits in turn (all-warehouse mode), empty otherwise.
    cycle: Vec<u32>,
    at: usize,
    dealt: u64,
    /// The connect pool's round-robin counters, per type.
    turn: [usize; 5],
    /// The slot the last transaction ran on.
    last: usize,
    /// Transactions completed per slot and type, added to the run's when the terminal ends.
    done: Vec<[u64; 5]>,
    tally: Arc<Mutex<Vec<[u64; 5]>>>,
}

impl Drop for TpccTerminal {
    fn drop(&mut self) {
        let mut tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        if tally.len() < self.done.len() {
            tally.resize(self.done.len(), [0; 5]);
        }
        for (sum, mine) in tally.iter_mut().zip(&self.done) {
            for (s, m) in sum.iter_mut().zip(mine) {
                *s += m;
            }
        }
    }
}

/// The warehouses a virtual user visits in all-warehouse mode: every `vus`-th one.
fn warehouses_of(vu: u32, vus: u32, warehouses: u32) -> Vec<u32> {
    (1..=warehouses)
        .filter(|w| (w - 1) % vus == vu - 1)
        .collect()
}

impl<D: TxnDb> Tpcc<D> {
    /// The first schema's database: the run's name, bounds and replicas.
    fn db(&self) -> &Arc<D> {
        &self.dbs[0]
    }

    /// The schema (from 0) a virtual user's terminal at `at` runs on; the first for the
    /// connections of the run as a whole.
    fn schema_at(&self, at: Position) -> usize {
        match at {
            Position::Terminal { n, .. } => {
                let worker = super::schemas::worker_of(n, self.terminals());
                super::schemas::schema_of(worker, self.dbs.len() as u32) as usize - 1
            }
            _ => 0,
        }
    }

    /// Terminals per virtual user.
    fn terminals(&self) -> u32 {
        if self.opts.async_scale {
            self.opts.async_clients.max(1)
        } else {
            1
        }
    }

    /// Opens the terminal at `at`'s connections: its own, its reads' when servers are named
    /// for reads (not with the connect pool, which says where every type goes), and the
    /// pool's named ones. One that fails closes those already open.
    async fn open(&self, at: Position) -> Result<Links<D::Conn>> {
        let db = &self.dbs[self.schema_at(at)];
        let own = db.connect(at).await?;
        let mut links = Links {
            own,
            reads: None,
            named: Vec::new(),
        };
        let more: Result<()> = async {
            match &self.pool {
                Some((_, dbs)) => {
                    for db in dbs {
                        links.named.push(db.connect(at).await?);
                    }
                }
                None => links.reads = db.connect_reads(at).await?,
            }
            Ok(())
        }
        .await;
        if let Err(e) = more {
            links.close().await;
            return Err(e);
        }
        if let Position::Terminal { n, .. } = at {
            let mut placed = self.placed.lock().unwrap_or_else(|p| p.into_inner());
            placed.entry(n).or_insert_with(|| links.nodes());
        }
        Ok(links)
    }

    /// Where the terminals' connections went and what ran on each, as the result says it.
    fn routing(&self) -> Vec<Slot> {
        let placed = self.placed.lock().unwrap_or_else(|p| p.into_inner());
        let tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        let mut names = vec!["own".to_string(), "reads".to_string()];
        if let Some((pool, _)) = &self.pool {
            names.extend(pool.ids.iter().cloned());
        }
        names
            .into_iter()
            .enumerate()
            .filter_map(|(i, name)| {
                let mut nodes: Vec<(String, u32)> = Vec::new();
                for node in placed.values().filter_map(|slots| slots.get(i)?.as_ref()) {
                    match nodes.iter_mut().find(|(n, _)| n == node) {
                        Some((_, count)) => *count += 1,
                        None => nodes.push((node.clone(), 1)),
                    }
                }
                let done = tally.get(i).copied().unwrap_or_default();
                (!nodes.is_empty()).then_some(Slot { name, nodes, done })
            })
            .collect()
    }
}

impl<D: TxnDb> Workload for Tpcc<D> {
    type Conn = Links<D::Conn>;
    type Terminal = TpccTerminal;
    type Unit = Kind;
    type Done = Done;
    type Plan = Vec<Plan>;
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

    /// Each schema's plan, in order: its warehouses and its own NURand load constants.
    async fn prepare(&self) -> Result<Vec<Plan>> {
        use futures_util::StreamExt;
        let plans: Vec<Result<Plan>> = futures_util::stream::iter(0..self.dbs.len())
            .map(|i| async move {
                let prepared = async {
                    let (warehouses, load) = self.dbs[i].prepare(self.opts.warehouses).await?;
                    let mut seed: SmallRng = rand::SeedableRng::from_os_rng();
                    let constants = Constants::for_run(&load, &mut seed);
                    self.acked[i].size(warehouses);
                    Ok(Plan {
                        warehouses,
                        constants,
                        range: self.opts.range(warehouses)?,
                    })
                };
                prepared.await.map_err(|e| self.in_schema(i, e))
            })
            .buffered(SCHEMAS_AT_ONCE)
            .collect()
            .await;
        plans.into_iter().collect()
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

    fn connect(
        &self,
        at: Position,
    ) -> impl std::future::Future<Output = Result<Links<D::Conn>>> + Send {
        self.open(at)
    }

    fn node(conn: &Links<D::Conn>) -> Option<String> {
        Some(conn.own.node().to_string())
    }

    fn close(conn: Links<D::Conn>) -> impl std::future::Future<Output = ()> + Send {
        conn.close()
    }

    fn into_blocking(conn: Links<D::Conn>) -> Result<Links<D::Conn>> {
        conn.into_blocking()
    }

    fn reply_timeout(&self) -> Duration {
        self.db().reply_timeout()
    }

    fn peer(&self, at: Position) -> crate::fault::Peer {
        self.dbs[self.schema_at(at)].peer(at)
    }

    fn cut(&self) -> usize {
        let named = self.pool.iter().flat_map(|(_, dbs)| dbs);
        self.dbs
            .iter()
            .chain(named)
            .map(|db| db.cut())
            .sum::<usize>()
    }

    fn terminal(&self, plans: &Vec<Plan>, place: Place, mut rng: SmallRng) -> TpccTerminal {
        // A virtual user runs on its schema, with that schema's plan (see `schemas`).
        let n = self.dbs.len() as u32;
        let schema = super::schemas::schema_of(place.worker, n) as usize - 1;
        let plan = &plans[schema];
        let (worker, workers) = super::schemas::among(place.worker, place.workers, n);
        // Home warehouses come from this driver's range; the remote ones of Payment and
        // New-Order's supply warehouses from the whole schema, as the specification has them.
        let range = plan.range;
        let home = uniform(&mut rng, range.first, range.last);
        // A virtual user's asynchronous clients each keep their home warehouse.
        let cycle = if self.opts.all_warehouses && place.client.is_none() {
            warehouses_of(worker, workers, range.count())
                .into_iter()
                .map(|w| w + range.first - 1)
                .collect()
        } else {
            Vec::new()
        };
        TpccTerminal {
            schema,
            inputs: Terminal::new(rng, plan.constants, plan.warehouses, home),
            deck: Deck::new(),
            cycle,
            at: 0,
            dealt: 0,
            turn: [0; 5],
            last: 0,
            done: vec![[0; 5]; 2 + self.pool.as_ref().map_or(0, |(p, _)| p.ids.len())],
            tally: self.tally.clone(),
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

    async fn execute(
        &self,
        links: &mut Links<D::Conn>,
        kind: Kind,
        t: &mut TpccTerminal,
    ) -> Result<Done> {
        let which = match &self.pool {
            Some((pool, _)) => pool.choose(kind, &mut t.turn, &mut t.inputs.rng),
            None if links.reads.is_some() => with_reads(kind),
            None => Which::Own,
        };
        t.last = which.slot();
        let conn = links.get(which);
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

    fn done(&self, t: &mut TpccTerminal, say: &Say, kind: Kind, done: Done, _: Duration) {
        if let Some((w, d, o_id)) = done.ordered {
            self.acked[t.schema].record(w, d, o_id);
        }
        if let Some(slot) = t.done.get_mut(t.last) {
            slot[kind.index()] += 1;
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

impl<D: TxnDb> Tpcc<D> {
    /// `e` as it happened on schema `i`, named when there are several.
    fn in_schema(&self, i: usize, e: crate::error::Error) -> crate::error::Error {
        match self.opts.schemas.get(i) {
            Some(schema) if !matches!(e, crate::error::Error::Interrupted) => {
                crate::error::Error::InSchema {
                    schema: schema.clone(),
                    why: Box::new(e),
                }
            }
            _ => e,
        }
    }

    /// Whether the counters' transactions are each schema's database's own.
    fn by_database(&self) -> bool {
        self.db().counts_by_database()
    }
}

impl<D: TxnDb> Monitor for Tpcc<D> {
    /// Each schema's reading, in order.
    type Reading = Vec<Counters>;
    type Figures = Figures;

    async fn read(&self) -> Result<Vec<Counters>> {
        use futures_util::StreamExt;
        let readings: Vec<Result<Counters>> = futures_util::stream::iter(0..self.dbs.len())
            .map(|i| async move {
                let reading = self.dbs[i].counters().await;
                reading.map_err(|e| self.in_schema(i, e))
            })
            .buffered(SCHEMAS_AT_ONCE)
            .collect()
            .await;
        readings.into_iter().collect()
    }

    fn figures(
        &self,
        start: &Vec<Counters>,
        end: &Vec<Counters>,
        measured: Duration,
        say: &Say,
    ) -> Figures {
        let mins = measured.as_secs_f64() / 60.0;
        let by_database = self.by_database();
        // Where the server counts for itself as a whole, the first schema's reading holds it.
        let counted = if by_database { start.len() } else { 1 };
        for (start, end) in start.iter().zip(end).take(counted) {
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
        }
        let (nopm, tpm, schemas) =
            super::schemas::split(&self.opts.schemas, start, end, mins, by_database);
        say.line(format!(
            "{} Active Virtual Users configured",
            self.opts.virtual_users
        ));
        let name = self.db().name();
        say.line(result::test_result(name, nopm, tpm, self.opts.nopm_first));
        for s in &schemas {
            say.line(s.line(name, self.opts.nopm_first));
        }
        if !schemas.is_empty() && !by_database {
            say.line(super::schemas::server_tpm_line(name));
        }
        Figures { nopm, tpm, schemas }
    }

    fn rates(
        &self,
        start: &Vec<Counters>,
        end: &Vec<Counters>,
        over: Duration,
    ) -> Vec<(&'static str, f64)> {
        let mins = over.as_secs_f64() / 60.0;
        if mins <= 0.0 {
            return Vec::new();
        }
        let (nopm, tpm, _) = super::schemas::split(&[], start, end, mins, self.by_database());
        let rates = [("NOPM", nopm), ("TPM", tpm)];
        if self.opts.nopm_first {
            rates.to_vec()
        } else {
            rates.into_iter().rev().collect()
        }
    }
}

/// Runs TPROC-C: checks the schema, starts the virtual users one `user_delay` apart, and for
/// a timed run lets virtual user 1 monitor it and report NOPM and TPM. `dbs`: one database
/// per schema (`*_schemas`), the virtual users spread over them.
pub async fn run<D: TxnDb>(
    dbs: Vec<Arc<D>>,
    pool: Option<PoolRun<D>>,
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
        window: opts.window,
    };
    let show = opts.show_output && opts.driver == DriverKind::Test;
    if let Some(p) = &pool {
        for w in &p.pool.warnings {
            say.line(format!("Warning: {w}"));
        }
    }
    let acked = dbs.iter().map(|_| Acked::default()).collect();
    let w = Arc::new(Tpcc {
        dbs,
        opts,
        show,
        pool: pool.map(|p| (p.pool, p.dbs)),
        placed: Mutex::new(BTreeMap::new()),
        tally: Arc::new(Mutex::new(Vec::new())),
        acked,
    });
    let o = crate::vu::run(w.clone(), run_opts, say, states, interrupt).await?;
    // A run that lost connections may have lost acknowledged commits with them: compare
    // each district's highest acknowledged New-Order with the server that answers now.
    let lost_any = o.stats.reconnects > 0 || !o.nodes.moves.is_empty();
    let failover = if lost_any {
        let mut compared: Option<std::result::Result<super::acked::Lost, String>> = None;
        for (i, (db, acked)) in w.dbs.iter().zip(&w.acked).enumerate() {
            let one = match db.district_heads().await {
                Ok((server, heads)) => Ok(acked.compare(&heads, &server)),
                Err(e) => Err(w.in_schema(i, e).to_string()),
            };
            compared = Some(match (compared, one) {
                (None, one) => one,
                (Some(Ok(sum)), Ok(one)) => Ok(sum.merge(one)),
                (Some(Err(e)), _) | (_, Err(e)) => Err(e),
            });
        }
        compared
    } else {
        None
    };
    let mut routing = Routing {
        slots: w.routing(),
        pool: w.pool.is_some(),
        lag: w.db().replay_lag().await,
        client_tpm: None,
    };
    // HammerDB's cross-check: what the terminals completed over rampup and the test.
    if routing.pool && w.opts.driver == DriverKind::Timed {
        let mins = (w.opts.rampup + o.measured).as_secs_f64() / 60.0;
        if mins > 0.0 {
            let mut per_type = [0.0; 5];
            for s in &routing.slots {
                for (sum, d) in per_type.iter_mut().zip(s.done) {
                    *sum += d as f64;
                }
            }
            routing.client_tpm = Some(per_type.map(|n| n / mins));
        }
    }
    Ok(RunResult {
        nopm: o.figures.as_ref().map(|f| f.nopm),
        tpm: o.figures.as_ref().map(|f| f.tpm),
        active_vus: o.active_vus,
        measured: o.measured,
        measured_from: o.measured_from,
        stats: o.stats,
        per_vu: o.per_vu,
        stopped_early: o.stopped_early,
        failed_vus: o.failed_vus,
        client_cpu: o.client_cpu,
        abandoned_calls: o.abandoned_calls,
        series: o.series,
        nodes: o.nodes,
        failover,
        routing,
        schemas: o.figures.map(|f| f.schemas).unwrap_or_default(),
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
