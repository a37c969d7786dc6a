//! The TPROC-C driver: virtual users running terminals, the timed run's monitor, and the
//! measurement (per transaction type counts and latency histograms, merged at the end).
//!
//! Each terminal keeps its own counters and histograms; nothing shared is locked per
//! transaction. Terminals stop between transactions and sleep in short cancellable steps.
//!
//! Nothing waits on the server for ever. A call whose reply does not come within the reply
//! timeout counts as a lost connection (reconnect, count, go on). Once the run is stopping
//! (its end, Ctrl-C, a failed monitor), a terminal still waiting on the server after a short
//! grace has its connection cut, which wakes it whether it waits in tokio or asleep in a
//! blocking `recv`; its call is counted as abandoned, and the result says how many were.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use tokio::sync::TryAcquireError;

use super::inputs::{think_time, Deck, Kind, Terminal};
use super::random::uniform;
use super::schema::Say;
use super::txn::{Counters, Done, TxnConn, TxnDb};
use super::Constants;
use crate::error::{Error, Result};
use crate::fault::Failure;
use crate::interrupt::Interrupt;

/// `*_driver`: a functional test or a measured run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    Test,
    Timed,
}

/// Everything a run needs from the dictionaries, frozen by `loadscript`.
#[derive(Debug, Clone)]
pub struct Options {
    pub driver: DriverKind,
    /// `*_count_ware`: the schema must have at least this many.
    pub warehouses: u32,
    pub total_iterations: u64,
    pub raise_error: bool,
    pub key_and_think: bool,
    pub rampup: Duration,
    pub duration: Duration,
    pub all_warehouses: bool,
    pub time_profile: bool,
    pub async_scale: bool,
    pub async_clients: u32,
    pub async_delay: Duration,
    /// How long terminals keep reconnecting to a server that went away.
    pub reconnect_for: Duration,
    /// `*_async_pool`: connections a virtual user's asynchronous clients share; 0 gives
    /// each client its own (HammerDB's way).
    pub async_pool: u32,
    pub virtual_users: u32,
    pub user_delay: Duration,
    pub show_output: bool,
    /// `benchmark.first_result`: NOPM first (HammerDB's default) or TPM first.
    pub nopm_first: bool,
}

/// A virtual user's state, as `vustatus` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VuState {
    WaitIdle,
    Running,
    FinishSuccess,
    FinishFailed,
}

impl VuState {
    pub fn label(self) -> &'static str {
        match self {
            VuState::WaitIdle => "WAIT IDLE",
            VuState::Running => "RUNNING",
            VuState::FinishSuccess => "FINISH SUCCESS",
            VuState::FinishFailed => "FINISH FAILED",
        }
    }
}

/// Where the driver reports a virtual user's state changes.
pub type StateSink = Arc<dyn Fn(usize, VuState) + Send + Sync>;

/// Counts and latencies of one transaction type.
#[derive(Debug, Clone)]
pub struct TypeStats {
    pub committed: u64,
    pub rolled_back: u64,
    pub retried: u64,
    pub failed: u64,
    /// Response times in microseconds, measured after rampup.
    pub latency: Histogram<u64>,
}

impl TypeStats {
    fn new() -> Self {
        TypeStats {
            committed: 0,
            rolled_back: 0,
            retried: 0,
            failed: 0,
            latency: Histogram::new_with_bounds(1, 3_600_000_000, 3)
                .expect("valid histogram bounds"),
        }
    }

    fn merge(&mut self, other: &TypeStats) {
        self.committed += other.committed;
        self.rolled_back += other.rolled_back;
        self.retried += other.retried;
        self.failed += other.failed;
        let _ = self.latency.add(&other.latency);
    }
}

/// One terminal's or one run's statistics, by transaction type.
#[derive(Debug, Clone)]
pub struct Stats {
    pub by_kind: Vec<TypeStats>,
    /// Lost connections that were reconnected.
    pub reconnects: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            by_kind: Kind::ALL.iter().map(|_| TypeStats::new()).collect(),
            reconnects: 0,
        }
    }
}

impl Stats {
    pub fn merge(&mut self, other: &Stats) {
        for (a, b) in self.by_kind.iter_mut().zip(&other.by_kind) {
            a.merge(b);
        }
        self.reconnects += other.reconnects;
    }

    pub fn kind(&self, k: Kind) -> &TypeStats {
        &self.by_kind[k.index()]
    }

    /// The table printed after a run: counts and latency percentiles per type.
    pub fn table(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{:<13} {:>10} {:>11} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9}",
            "TRANSACTION",
            "COMMITTED",
            "ROLLED BACK",
            "RETRIED",
            "FAILED",
            "P50 MS",
            "P95 MS",
            "P99 MS",
            "MAX MS"
        )];
        for k in Kind::ALL {
            let s = self.kind(k);
            let ms = |q: f64| s.latency.value_at_quantile(q) as f64 / 1000.0;
            lines.push(format!(
                "{:<13} {:>10} {:>11} {:>8} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
                k.name(),
                s.committed,
                s.rolled_back,
                s.retried,
                s.failed,
                ms(0.50),
                ms(0.95),
                ms(0.99),
                s.latency.max() as f64 / 1000.0
            ));
        }
        lines
    }
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// New orders per minute from the districts' `d_next_o_id` (timed runs only).
    pub nopm: Option<f64>,
    /// Server transactions per minute from its commit and rollback counters (timed only).
    pub tpm: Option<f64>,
    pub active_vus: u32,
    /// The measured window (the duration, or less when stopped early).
    pub measured: Duration,
    /// All terminals merged: after rampup for timed runs, everything for test runs.
    pub stats: Stats,
    /// Per virtual user, when `*_timeprofile` is on.
    pub per_vu: Vec<(usize, Stats)>,
    /// The run ended early: Ctrl-C, or the server stayed away.
    pub stopped_early: Option<String>,
    /// Virtual users that finished FAILED.
    pub failed_vus: u32,
    /// The CPU time hammer's own process used in the measured window (timed runs, where the
    /// platform tells).
    pub client_cpu: Option<Duration>,
    /// Calls still waiting for the server when the stopping run cut their connections.
    pub abandoned_calls: u64,
}

impl RunResult {
    /// Transactions the terminals finished in the window (committed, rolled back, failed).
    pub fn transactions(&self) -> u64 {
        self.stats
            .by_kind
            .iter()
            .map(|s| s.committed + s.rolled_back + s.failed)
            .sum()
    }

    /// What the client cost in the measured window, e.g. `Client CPU: 1.02 s in 30.0 s
    /// (1.7 % of 2 CPUs), 10.4 us per transaction`.
    pub fn client_cpu_line(&self) -> Option<String> {
        let cpu = self.client_cpu?.as_secs_f64();
        let window = self.measured.as_secs_f64();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let txns = self.transactions();
        if window <= 0.0 || txns == 0 {
            return None;
        }
        Some(format!(
            "Client CPU: {cpu:.2} s in {window:.1} s ({:.1} % of {cpus} CPUs), {:.1} us per transaction",
            100.0 * cpu / (window * cpus as f64),
            1e6 * cpu / txns as f64
        ))
    }
}

/// The CPU time (user and system) this process has used so far.
fn process_cpu() -> Option<Duration> {
    use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System};
    let pid = sysinfo::get_current_pid().ok()?;
    let mut sys = System::new();
    sys.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        false,
        ProcessRefreshKind::nothing().with_cpu(),
    );
    sys.process(pid)
        .map(|p| Duration::from_millis(p.accumulated_cpu_time()))
}

/// How long after the stop a terminal may still wait on the server before its connection is
/// cut: a healthy server answers in milliseconds, a lock wait is not worth more.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// How long after the cut a virtual user may take to end before it is abandoned as it is.
const CUT_GRACE: Duration = Duration::from_secs(5);

/// State the monitor and the terminals share.
struct Shared {
    /// Terminals stop at their next transaction boundary.
    stop: Interrupt,
    /// Fired a grace after the stop: calls still waiting are abandoned, connections cut.
    cut: Interrupt,
    /// Calls abandoned that way.
    abandoned: AtomicU64,
    /// Set between the monitor's two counter readings: terminals record latencies then.
    measuring: AtomicBool,
    /// Why the run was given up (a server that stayed away), once.
    gave_up: std::sync::OnceLock<String>,
}

impl Shared {
    /// Stops the run because it cannot go on.
    fn give_up(&self, why: &str) {
        let _ = self.gave_up.set(why.to_string());
        self.stop.fire();
    }
}

/// The connections a virtual user's terminals run their transactions on. A terminal of its
/// own holds a pool of one; with `*_async_pool` N, a virtual user's asynchronous clients
/// share N connections as a TPC-C transaction monitor would, so thousands of keyed and
/// thinking terminals need only a few server sessions.
struct Pool<C> {
    /// Idle connections; `None` is a slot whose connection was lost and not yet replaced.
    slots: std::sync::Mutex<Vec<Option<C>>>,
    /// One permit per slot: a terminal holds one while it runs a transaction.
    permits: tokio::sync::Semaphore,
}

impl<C> Pool<C> {
    fn new(conns: Vec<C>) -> Self {
        let n = conns.len();
        Pool {
            slots: std::sync::Mutex::new(conns.into_iter().map(Some).collect()),
            permits: tokio::sync::Semaphore::new(n),
        }
    }

    fn take(&self) -> Option<C> {
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .flatten()
    }

    fn put(&self, conn: Option<C>) {
        self.slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(conn);
    }
}

impl<C: TxnConn> Pool<C> {
    /// Closes the connections, once no terminal uses them.
    async fn close(&self) {
        let conns: Vec<C> = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            slots.drain(..).flatten().collect()
        };
        for c in conns {
            c.close().await;
        }
    }
}

/// How long a terminal keeps reconnecting to a server that went away before it gives up,
/// unless `HAMMER_RECONNECT_SECS` says otherwise.
pub const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// A deadlocked or serialization-failed transaction is run again this many times.
const RETRIES: u32 = 10;
/// Errors a terminal prints before it only counts them.
const ERRORS_SHOWN: u32 = 5;

/// Sleeps `d` in steps of at most 250 ms; false when the stop came first.
async fn nap(d: Duration, stop: &Interrupt) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(d) => true,
        _ = stop.wait() => false,
    }
}

async fn execute<C: TxnConn>(conn: &mut C, kind: Kind, t: &mut Terminal) -> Result<Done> {
    match kind {
        Kind::NewOrder => conn.new_order(&t.new_order()).await,
        Kind::Payment => conn.payment(&t.payment()).await,
        Kind::Delivery => conn.delivery(&t.delivery()).await,
        Kind::StockLevel => conn.stock_level(&t.stock_level()).await,
        Kind::OrderStatus => conn.order_status(&t.order_status()).await,
    }
}

/// A connection-level failure the runtime itself decides on (a reply overdue, a call
/// abandoned at the stop), said like the databases' own.
fn lost(peer: &crate::fault::Peer, why: String) -> Error {
    Error::Db(peer.failed("gave up waiting for", Failure::Lost, why))
}

/// Runs one transaction, bounded: by the reply timeout (a connection whose driver does not
/// bound its own reads, such as tokio-postgres's, is given up on), and by the cut (a call
/// still waiting when the stopping run cuts its connections is abandoned). A blocking
/// connection bounds its own reads and is woken by the cut itself.
async fn bounded<D: TxnDb>(
    db: &D,
    conn: &mut D::Conn,
    kind: Kind,
    t: &mut Terminal,
    cut: &Interrupt,
) -> Result<Done> {
    let reply_timeout = db.reply_timeout();
    tokio::select! {
        biased;
        r = tokio::time::timeout(reply_timeout, execute(conn, kind, t)) => r.unwrap_or_else(|_| {
            Err(lost(&db.peer(), format!(
                "no reply within {} s (the reply timeout)",
                reply_timeout.as_secs_f64()
            )))
        }),
        _ = cut.wait() => Err(lost(&db.peer(), "the run stopped while the call waited".into())),
    }
}

fn is_kind(e: &Error, f: Failure) -> bool {
    matches!(e, Error::Db(d) if d.kind == f)
}

/// One terminal: run transactions on connections from `pool` until the iterations are done
/// or the stop, and keep count in its virtual user's `stats`. A lost connection is
/// reconnected (with backoff, for up to a minute); a server that stays away stops the run.
async fn run_terminal<D: TxnDb>(
    vu: &Vu<D>,
    mut t: Terminal,
    pool: &Pool<D::Conn>,
    warehouses_cycle: Vec<u32>,
) -> Result<()> {
    let Vu {
        opts,
        shared,
        say,
        stats,
        ..
    } = vu;
    let show = opts.show_output && opts.driver == DriverKind::Test;
    let measure_all = opts.driver == DriverKind::Test;
    let mut deck = Deck::new();
    let mut errors_shown = 0;
    let mut cycle = warehouses_cycle.iter().cycle();
    let mut done = 0u64;
    while done < opts.total_iterations && !shared.stop.is_set() {
        if let Some(w) = cycle.next() {
            t.w_id = *w;
        }
        let kind = deck.deal(&mut t.rng);
        if opts.key_and_think && !nap(kind.keying(), &shared.stop).await {
            break;
        }
        // The response time includes any wait for a shared connection, as a terminal sees it.
        let started = Instant::now();
        let _permit = match pool.permits.try_acquire() {
            Ok(p) => p,
            Err(TryAcquireError::Closed) => break,
            // Only a shared connection is ever busy: wait for it, or for the stop.
            Err(TryAcquireError::NoPermits) => {
                let waited = tokio::select! {
                    p = pool.permits.acquire() => p,
                    _ = shared.stop.wait() => break,
                };
                let Ok(p) = waited else { break };
                p
            }
        };
        // An empty slot is a connection given up on, and the run is stopping.
        let Some(mut conn) = pool.take() else { break };
        let mut attempt = 0;
        let result = loop {
            match bounded(&*vu.db, &mut conn, kind, &mut t, &shared.cut).await {
                Err(e) if is_kind(&e, Failure::Retry) && attempt < RETRIES => attempt += 1,
                other => break other,
            }
        };
        let elapsed = started.elapsed();
        if result.is_err() && shared.cut.is_set() {
            // The run is over and this call was cut off: neither a failure nor a reconnect.
            shared.abandoned.fetch_add(1, Ordering::Relaxed);
            drop(conn);
            pool.put(None);
            break;
        }
        // A timed run counts only what completes between the monitor's two counter readings,
        // so that its figures describe the same window as NOPM and TPM.
        let in_window = measure_all || shared.measuring.load(Ordering::Relaxed);
        done += 1;
        let lost = matches!(&result, Err(e) if e.is_connection_loss());
        let mut gave_up = None;
        if lost {
            drop(conn);
            if let Err(e) = &result {
                say.line(format!("{e}; reconnecting"));
            }
            match reconnect(vu).await {
                Some(Ok(c)) => {
                    say.line("reconnected");
                    pool.put(Some(c));
                }
                Some(Err(e)) => {
                    pool.put(None);
                    gave_up = Some(e);
                }
                None => pool.put(None),
            }
        } else {
            pool.put(Some(conn));
        }
        drop(_permit);
        {
            let mut all = stats.lock().unwrap_or_else(|e| e.into_inner());
            if lost && gave_up.is_none() {
                all.reconnects += 1;
            }
            if in_window {
                let s = &mut all.by_kind[kind.index()];
                s.retried += u64::from(attempt);
                match &result {
                    Ok(d) if d.rolled_back => s.rolled_back += 1,
                    Ok(_) => s.committed += 1,
                    Err(_) => s.failed += 1,
                }
                if result.is_ok() {
                    let _ = s.latency.record((elapsed.as_micros() as u64).max(1));
                }
            }
        }
        if let Some(e) = gave_up {
            let why = format!(
                "the server did not come back within {} s: {e}",
                opts.reconnect_for.as_secs_f64()
            );
            shared.give_up(&why);
            return Err(Error::State(why));
        }
        match result {
            Ok(d) => {
                if show {
                    say.line(kind.name());
                    say.line(d.summary);
                }
            }
            Err(_) if lost => {}
            Err(e) => {
                if opts.raise_error {
                    return Err(e);
                }
                if errors_shown < ERRORS_SHOWN {
                    errors_shown += 1;
                    let more = if errors_shown == ERRORS_SHOWN {
                        " (further errors are only counted)"
                    } else {
                        ""
                    };
                    say.line(format!("{} failed: {e}{more}", kind.name()));
                }
            }
        }
        if opts.key_and_think && !nap(think_time(kind, &mut t.rng), &shared.stop).await {
            break;
        }
    }
    Ok(())
}

/// What a virtual user's terminals share: the database, the run's options and state, the
/// virtual user's output and its statistics (behind a lock taken once per transaction, by
/// its own terminals only).
struct Vu<D> {
    db: Arc<D>,
    opts: Arc<Options>,
    shared: Arc<Shared>,
    say: Say,
    stats: Arc<std::sync::Mutex<Stats>>,
    /// The virtual user has a thread of its own and one terminal: its connection may block.
    own_thread: bool,
}

impl<D: TxnDb> Vu<D> {
    /// Opens a terminal's connection, blocking when the virtual user has its own thread; the
    /// stop ends the attempt.
    async fn connect(&self) -> Result<D::Conn> {
        let conn = tokio::select! {
            c = self.db.connect() => c?,
            _ = self.shared.stop.wait() => {
                return Err(Error::State("stopped while connecting".into()))
            }
        };
        if self.own_thread {
            conn.into_blocking()
        } else {
            Ok(conn)
        }
    }
}

impl<D> Clone for Vu<D> {
    fn clone(&self) -> Self {
        Vu {
            db: self.db.clone(),
            opts: self.opts.clone(),
            shared: self.shared.clone(),
            say: self.say.clone(),
            stats: self.stats.clone(),
            own_thread: self.own_thread,
        }
    }
}

/// A terminal with a connection of its own: connects, runs, closes.
async fn own_terminal<D: TxnDb>(vu: &Vu<D>, t: Terminal, warehouses_cycle: Vec<u32>) -> Result<()> {
    let pool = Pool::new(vec![vu.connect().await?]);
    let outcome = run_terminal(vu, t, &pool, warehouses_cycle).await;
    pool.close().await;
    outcome
}

/// Tries to connect again with doubling waits; `None` when stopped meanwhile.
async fn reconnect<D: TxnDb>(vu: &Vu<D>) -> Option<Result<D::Conn>> {
    let (stop, limit) = (&vu.shared.stop, vu.opts.reconnect_for);
    let started = Instant::now();
    let mut wait = Duration::from_millis(250);
    loop {
        if !nap(wait, stop).await {
            return None;
        }
        match vu.connect().await {
            Ok(c) => return Some(Ok(c)),
            Err(e) if started.elapsed() >= limit => return Some(Err(e)),
            Err(_) => wait = (wait * 2).min(Duration::from_secs(5)),
        }
    }
}

/// A virtual user's asynchronous clients (`*_async_scale`): `terminals` terminals, each with
/// its own home warehouse, logging in `*_async_delay` apart; on a connection each
/// (HammerDB's way) or sharing `*_async_pool` connections.
async fn run_clients<D: TxnDb>(
    vu: &Vu<D>,
    rng: &mut SmallRng,
    constants: Constants,
    max_w: u32,
    terminals: u32,
) -> Result<()> {
    let opts = &vu.opts;
    let pool = if opts.async_pool > 0 {
        let mut conns = Vec::new();
        for _ in 0..opts.async_pool.min(terminals) {
            match vu.db.connect().await {
                Ok(c) => conns.push(c),
                Err(e) => {
                    Pool::new(conns).close().await;
                    return Err(e);
                }
            }
        }
        Some(Arc::new(Pool::new(conns)))
    } else {
        None
    };
    let mut set = tokio::task::JoinSet::new();
    for c in 0..terminals {
        let (vu, pool) = (vu.clone(), pool.clone());
        let mut trng = SmallRng::from_rng(&mut *rng);
        let w = uniform(&mut trng, 1, max_w);
        let login_delay = opts.async_delay * c;
        set.spawn(async move {
            if !nap(login_delay, &vu.shared.stop).await {
                return Ok(());
            }
            let t = Terminal::new(trng, constants, max_w, w);
            match &pool {
                Some(pool) => run_terminal(&vu, t, pool, Vec::new()).await,
                None => own_terminal(&vu, t, Vec::new()).await,
            }
        });
    }
    let mut outcome = Ok(());
    while let Some(j) = set.join_next().await {
        let o = j.unwrap_or_else(|e| Err(Error::State(format!("terminal task failed: {e}"))));
        if outcome.is_ok() {
            outcome = o;
        }
    }
    if let Some(pool) = pool {
        pool.close().await;
    }
    outcome
}

/// The warehouses a virtual user visits in all-warehouse mode: every `vus`-th one.
fn warehouses_of(vu: u32, vus: u32, warehouses: u32) -> Vec<u32> {
    (1..=warehouses)
        .filter(|w| (w - 1) % vus == vu - 1)
        .collect()
}

fn minutes(d: Duration) -> String {
    let m = d.as_secs_f64() / 60.0;
    if m.fract() == 0.0 {
        format!("{m:.0}")
    } else {
        format!("{m}")
    }
}

/// Whether `HAMMER_VU_THREADS=shared` asks for every virtual user on the runtime's shared
/// threads, to compare the two ways (`scripts/bench/driver.sh`).
fn shared_threads() -> bool {
    std::env::var("HAMMER_VU_THREADS").is_ok_and(|v| v == "shared")
}

/// An error starting a virtual user's thread, with what to do when it is a limit.
fn hinted(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        // EMFILE, ENFILE
        Some(24 | 23) => {
            format!("{e}; the open-files limit (ulimit -n) is too low for this many virtual users")
        }
        // EAGAIN from clone: threads or memory
        Some(11) => format!("{e}; the limit on threads (ulimit -u) or memory is reached"),
        _ => e.to_string(),
    }
}

/// Fires a stop when dropped, unless disarmed.
struct StopOnDrop(Option<Interrupt>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop.fire();
        }
    }
}

/// Runs `work` on a thread of its own with a runtime of its own, and hands back its result.
/// Dropped before that (the run abandoned), it fires `stop`, which ends `work` between two
/// transactions, as a task's abort would.
async fn on_own_thread<T: Send + 'static>(
    vu: usize,
    stop: Interrupt,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> std::result::Result<T, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name(format!("vuser-{vu}"))
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            let _ = tx.send(match runtime {
                Ok(rt) => Ok(rt.block_on(work)),
                Err(e) => Err(format!(
                    "cannot start a runtime on its thread: {}",
                    hinted(&e)
                )),
            });
        })
        .map_err(|e| format!("cannot start a thread of its own: {}", hinted(&e)))?;
    let mut armed = StopOnDrop(Some(stop));
    let outcome = rx.await;
    armed.0 = None;
    outcome.map_err(|_| "stopped without an answer: its thread panicked".to_string())?
}

/// Runs the workload: checks the schema, starts the virtual users one `user_delay` apart,
/// and for a timed run lets virtual user 1 monitor it and report NOPM and TPM.
pub async fn run<D: TxnDb>(
    db: Arc<D>,
    opts: Options,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<RunResult> {
    let (max_w, load) = tokio::select! {
        r = tokio::time::timeout(db.reply_timeout(), db.prepare(opts.warehouses)) => {
            r.unwrap_or_else(|_| Err(Error::State(format!(
                "the server did not answer the pre-run checks within {} s (the reply timeout)",
                db.reply_timeout().as_secs_f64()
            ))))?
        }
        _ = interrupt.wait() => return Err(Error::Interrupted),
    };
    let mut seed = SmallRng::from_os_rng();
    let constants = Constants::for_run(&load, &mut seed);
    let shared = Arc::new(Shared {
        stop: Interrupt::default(),
        cut: Interrupt::default(),
        abandoned: AtomicU64::new(0),
        measuring: AtomicBool::new(opts.driver == DriverKind::Test),
        gave_up: std::sync::OnceLock::new(),
    });
    // Once stopping, the terminals get a grace to finish their calls; then their connections
    // are cut, and a virtual user that still has not ended after that is abandoned.
    let abandon = Interrupt::default();
    let reaper = {
        let (db, shared, abandon) = (db.clone(), shared.clone(), abandon.clone());
        tokio::spawn(async move {
            shared.stop.wait().await;
            tokio::time::sleep(STOP_GRACE).await;
            shared.cut.fire();
            db.cut();
            tokio::time::sleep(CUT_GRACE).await;
            abandon.fire();
        })
    };
    // Ctrl-C reaches the terminals through the run's own stop flag.
    let forward = {
        let stop = shared.stop.clone();
        tokio::spawn(async move {
            interrupt.wait().await;
            stop.fire();
        })
    };
    let monitor = opts.driver == DriverKind::Timed;
    let first_worker = if monitor { 2 } else { 1 };
    let mut workers = tokio::task::JoinSet::new();
    let all_shared = shared_threads();
    for i in 0..opts.virtual_users {
        let vu = first_worker + i as usize;
        let (db, opts, shared, states) = (db.clone(), opts.clone(), shared.clone(), states.clone());
        let vsay = say.as_vuser(vu);
        let mut rng = SmallRng::from_rng(&mut seed);
        let home = uniform(&mut rng, 1, max_w);
        let delay = opts.user_delay * i;
        let terminals = if opts.async_scale {
            opts.async_clients.max(1)
        } else {
            1
        };
        // One terminal gets a thread of its own and waits for replies in a blocking read;
        // many share the runtime's threads, as tasks.
        let own_thread = terminals == 1 && !all_shared;
        let stop = shared.stop.clone();
        let work = async move {
            if !nap(delay, &shared.stop).await {
                states(vu, VuState::FinishSuccess);
                return (vu, Stats::default(), Ok(()));
            }
            states(vu, VuState::Running);
            vsay.line("RUNNING");
            let cycle = if opts.all_warehouses {
                warehouses_of(i + 1, opts.virtual_users, max_w)
            } else {
                Vec::new()
            };
            let verb = if opts.driver == DriverKind::Test && opts.show_output {
                "without"
            } else {
                "with"
            };
            vsay.line(format!(
                "Processing {} transactions {verb} output suppressed...",
                opts.total_iterations
            ));
            let ctx = Vu {
                db,
                opts: Arc::new(opts),
                shared,
                say: vsay,
                stats: Arc::new(std::sync::Mutex::new(Stats::default())),
                own_thread,
            };
            let outcome = if terminals == 1 {
                let t = Terminal::new(rng, constants, max_w, home);
                own_terminal(&ctx, t, cycle).await
            } else {
                run_clients(&ctx, &mut rng, constants, max_w, terminals).await
            };
            let stats = std::mem::take(&mut *ctx.stats.lock().unwrap_or_else(|e| e.into_inner()));
            (vu, stats, outcome)
        };
        if own_thread {
            workers.spawn(async move {
                on_own_thread(vu, stop, work).await.unwrap_or_else(|why| {
                    let e = Error::State(why);
                    (vu, Stats::default(), Err(e))
                })
            });
        } else {
            workers.spawn(work);
        }
    }

    let mut result = RunResult {
        nopm: None,
        tpm: None,
        active_vus: opts.virtual_users,
        measured: Duration::ZERO,
        stats: Stats::default(),
        per_vu: Vec::new(),
        stopped_early: None,
        failed_vus: 0,
        client_cpu: None,
        abandoned_calls: 0,
    };
    let monitor_task = if monitor {
        states(1, VuState::Running);
        say.line("RUNNING");
        let (db, opts, shared, msay) = (db.clone(), opts.clone(), shared.clone(), say.clone());
        Some(tokio::spawn(async move {
            let outcome = monitor_run(&*db, &opts, &shared, &msay).await;
            if let Err(e) = &outcome {
                // Without the monitor nothing is measured: stop the terminals now.
                msay.line(format!("Error in Virtual User 1: {e}"));
                shared.give_up(&format!("the monitor failed: {e}"));
            }
            outcome
        }))
    } else {
        None
    };
    let mut finished = 0;
    let mut abandoned_vus = 0;
    loop {
        let joined = tokio::select! {
            j = workers.join_next() => match j {
                Some(j) => j,
                None => break,
            },
            _ = abandon.wait(), if !workers.is_empty() && abandoned_vus == 0 => {
                abandoned_vus = workers.len();
                say.line(format!(
                    "{abandoned_vus} virtual user(s) did not end within {} s of the stop and were abandoned",
                    (STOP_GRACE + CUT_GRACE).as_secs()
                ));
                workers.abort_all();
                continue;
            }
        };
        let (vu, stats, outcome) = joined.unwrap_or_else(|e| {
            (
                0,
                Stats::default(),
                Err(Error::State(format!("virtual user task failed: {e}"))),
            )
        });
        finished += 1;
        match outcome {
            Ok(()) => {
                states(vu, VuState::FinishSuccess);
                say.as_vuser(vu).line("FINISHED SUCCESS");
            }
            Err(e) => {
                result.failed_vus += 1;
                states(vu, VuState::FinishFailed);
                say.line(format!("Error in Virtual User {vu}: {e}"));
                say.as_vuser(vu).line("FINISHED FAILED");
            }
        }
        if opts.time_profile {
            result.per_vu.push((vu, stats.clone()));
        }
        result.stats.merge(&stats);
        if monitor && finished == opts.virtual_users as usize && !shared.stop.is_set() {
            // Every worker has ended before the monitor: nothing is left to measure.
            shared.stop.fire();
        }
    }
    if let Some(task) = monitor_task {
        // The workers have all ended: wake the monitor if it still waits.
        shared.stop.fire();
        let outcome = task
            .await
            .map_err(|e| Error::State(format!("monitor task failed: {e}")))
            .and_then(|r| r);
        match outcome {
            Ok(m) => {
                result.nopm = m.nopm;
                result.tpm = m.tpm;
                result.measured = m.measured;
                result.stopped_early = m.stopped_early;
                result.client_cpu = m.client_cpu;
                states(1, VuState::FinishSuccess);
                say.line("FINISHED SUCCESS");
            }
            Err(_) => {
                // (The error was said when the monitor failed.)
                states(1, VuState::FinishFailed);
                say.line("FINISHED FAILED");
                result.failed_vus += 1;
            }
        }
    }
    forward.abort();
    reaper.abort();
    let abandoned = shared.abandoned.load(Ordering::Relaxed);
    if abandoned > 0 {
        say.line(format!(
            "{abandoned} call(s) still waiting for the server when the run stopped were abandoned \
             (their connections cut {} s after the stop)",
            STOP_GRACE.as_secs()
        ));
    }
    result.abandoned_calls = abandoned;
    if let Some(why) = shared.gave_up.get() {
        result.stopped_early = Some(why.clone());
    } else if opts.driver == DriverKind::Test && shared.stop.is_set() {
        result.stopped_early = Some("stopped by Ctrl-C".into());
    }
    Ok(result)
}

/// Reads the counters, riding out a server that went away for up to `limit` as the
/// terminals do (a reading that fails for any other reason fails at once).
async fn read_counters<D: TxnDb>(db: &D, limit: Duration, say: &Say) -> Result<Counters> {
    let started = Instant::now();
    let mut wait = Duration::from_millis(250);
    let mut said = false;
    loop {
        match counters_once(db, db.reply_timeout()).await {
            Err(e) if e.is_connection_loss() && started.elapsed() < limit => {
                if !said {
                    say.line(format!("{e}; trying again"));
                    said = true;
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// One reading of the counters, given up after `timeout` as a lost connection.
async fn counters_once<D: TxnDb>(db: &D, timeout: Duration) -> Result<Counters> {
    tokio::time::timeout(timeout, db.counters())
        .await
        .unwrap_or_else(|_| {
            Err(lost(
                &db.peer(),
                format!(
                    "no reply to the counters' query within {} s",
                    timeout.as_secs_f64()
                ),
            ))
        })
}

struct Measured {
    nopm: Option<f64>,
    tpm: Option<f64>,
    measured: Duration,
    stopped_early: Option<String>,
    client_cpu: Option<Duration>,
}

/// Virtual user 1 of a timed run: rampup, first counter reading, the measured duration,
/// second reading, result; then it stops the workers.
async fn monitor_run<D: TxnDb>(
    db: &D,
    opts: &Options,
    shared: &Shared,
    say: &Say,
) -> Result<Measured> {
    // A first reading opens the counters' connections now, so that the readings that bound
    // the measured window take one round trip each, not a connection set-up.
    counters_once(db, db.reply_timeout()).await?;
    say.line(format!(
        "Beginning rampup time of {} minutes",
        minutes(opts.rampup)
    ));
    let rampup_end = Instant::now() + opts.rampup;
    let mut minute = 0;
    while Instant::now() < rampup_end {
        let step = (rampup_end - Instant::now()).min(Duration::from_secs(60));
        if !nap(step, &shared.stop).await {
            say.line("Run stopped during rampup: nothing was measured");
            return Ok(Measured {
                nopm: None,
                tpm: None,
                measured: Duration::ZERO,
                stopped_early: Some("stopped during rampup".into()),
                client_cpu: None,
            });
        }
        minute += 1;
        if Instant::now() < rampup_end {
            say.line(format!("Rampup {minute} minutes complete ..."));
        }
    }
    say.line("Rampup complete, Taking start Transaction Count.");
    let start = read_counters(db, opts.reconnect_for, say)
        .await
        .map_err(|e| Error::State(format!("cannot take the start transaction count: {e}")))?;
    let t1 = Instant::now();
    let cpu1 = process_cpu();
    shared.measuring.store(true, Ordering::Relaxed);
    say.line(format!(
        "Timing test period of {} in minutes",
        minutes(opts.duration)
    ));
    let end = t1 + opts.duration;
    let mut minute = 0;
    let mut stopped = None;
    while Instant::now() < end {
        let step = (end - Instant::now()).min(Duration::from_secs(60));
        if !nap(step, &shared.stop).await {
            stopped = Some("stopped before the end of the duration".to_string());
            break;
        }
        minute += 1;
        if Instant::now() < end {
            say.line(format!("{minute}  ...,"));
        }
    }
    shared.measuring.store(false, Ordering::Relaxed);
    let client_cpu = process_cpu().zip(cpu1).map(|(b, a)| b.saturating_sub(a));
    say.line("Test complete, Taking end Transaction Count.");
    // Stopped by hand: one quick reading, since the user waits for the prompt.
    let finish = if stopped.is_some() {
        counters_once(db, db.reply_timeout().min(STOP_GRACE)).await
    } else {
        read_counters(db, opts.reconnect_for, say).await
    };
    let finish =
        finish.map_err(|e| Error::State(format!("cannot take the end transaction count: {e}")))?;
    let measured = t1.elapsed();
    shared.stop.fire();
    let mins = measured.as_secs_f64() / 60.0;
    let nopm = finish.new_orders.saturating_sub(start.new_orders) as f64 / mins;
    if finish.transactions < start.transactions {
        // A server restart resets (or rewinds) its statistics: no honest TPM exists then.
        say.line(format!(
            "The server's transaction counter went back from {} to {} during the run (a restart?): TPM is not comparable",
            start.transactions, finish.transactions
        ));
    }
    let tpm = finish.transactions.saturating_sub(start.transactions) as f64 / mins;
    say.line(format!(
        "{} Active Virtual Users configured",
        opts.virtual_users
    ));
    let (n, m) = (nopm.round() as u64, tpm.round() as u64);
    if opts.nopm_first {
        say.line(format!(
            "TEST RESULT : System achieved {n} NOPM from {m} {} TPM",
            db.name()
        ));
    } else {
        say.line(format!(
            "TEST RESULT : System achieved {m} {} TPM at {n} NOPM",
            db.name()
        ));
    }
    if let Some(why) = &stopped {
        say.line(format!(
            "(the run was {why}: the figures cover {:.1} s)",
            measured.as_secs_f64()
        ));
    }
    Ok(Measured {
        nopm: Some(nopm),
        tpm: Some(tpm),
        measured,
        stopped_early: stopped,
        client_cpu,
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
    fn stats_merge_and_render() {
        let mut a = Stats::default();
        a.by_kind[Kind::NewOrder.index()].committed = 3;
        a.by_kind[Kind::NewOrder.index()]
            .latency
            .record(1_500)
            .unwrap();
        let mut b = Stats::default();
        b.by_kind[Kind::NewOrder.index()].committed = 2;
        b.by_kind[Kind::NewOrder.index()].rolled_back = 1;
        b.by_kind[Kind::NewOrder.index()]
            .latency
            .record(3_000)
            .unwrap();
        a.merge(&b);
        let no = a.kind(Kind::NewOrder);
        assert_eq!((no.committed, no.rolled_back, no.latency.len()), (5, 1, 2));
        let table = a.table();
        assert!(table[0].starts_with("TRANSACTION"));
        assert!(
            table[1].starts_with("new order") && table[1].contains(" 1.500 "),
            "{}",
            table[1]
        );
    }

    #[test]
    fn minutes_print_like_the_dictionary() {
        assert_eq!(minutes(Duration::from_secs(120)), "2");
        assert_eq!(minutes(Duration::from_secs(30)), "0.5");
    }
}
