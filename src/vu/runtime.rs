//! The virtual-user runtime: workers started one delay apart, each with one terminal on a
//! thread of its own or many on shared threads (with a connection each or a shared pool),
//! the stop, reconnecting, and the merge of every terminal's statistics.
//!
//! Each terminal keeps its own counters and histograms; nothing shared is locked per unit.
//! Terminals stop between units and sleep in short cancellable steps.
//!
//! Nothing waits on the server for ever. A call whose reply does not come within the reply
//! timeout counts as a lost connection (reconnect, count, go on). Once the run is stopping
//! (its end, Ctrl-C, a failed monitor), a terminal still waiting on the server after a short
//! grace has its connection cut, which wakes it whether it waits in tokio or asleep in a
//! blocking `recv`; its call is counted as abandoned, and the result says how many were.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tokio::sync::TryAcquireError;

use super::live::{sample, Series, Timing};
use super::monitor::{monitor_run, Measured};
use super::nodes::{NodeReport, Nodes, Tally};
use super::say::Say;
use super::shared::{lost, nap, RunOptions, Shared, CUT_GRACE, STOP_GRACE};
use super::stats::Stats;
use super::workload::{Monitor, Place, Workload};
use super::{StateSink, VuState};
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::fault::Failure;
use crate::interrupt::Interrupt;

/// What a run measured, whatever the workload; `F` is the monitor's figures.
#[derive(Debug, Clone)]
pub struct Outcome<F> {
    /// What the monitor's readings gave (timed runs that reached their end count).
    pub figures: Option<F>,
    pub active_vus: u32,
    /// The measured window (the duration, or less when stopped early).
    pub measured: Duration,
    /// When the measured window began, on this process's clock (a timed run that got there).
    pub measured_from: Option<std::time::Instant>,
    /// All terminals merged: after rampup for timed runs, everything otherwise.
    pub stats: Stats,
    /// Per virtual user, when `time_profile` is on.
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
    /// The live view's intervals, when the run had one.
    pub series: Option<Series>,
    /// Where the terminals ran and what each lost server cost.
    pub nodes: NodeReport,
}

/// The connections a virtual user's terminals run their units on. A terminal of its own
/// holds a pool of one; with a shared pool of N, a virtual user's asynchronous clients share
/// N connections as a TPC-C transaction monitor would, so thousands of keyed and thinking
/// terminals need only a few server sessions.
struct Pool<C> {
    /// Idle connections; `None` is a slot whose connection was lost and not yet replaced.
    slots: std::sync::Mutex<Vec<Option<C>>>,
    /// One permit per slot: a terminal holds one while it runs a unit. None for a terminal's
    /// own connection, which nobody else waits for.
    permits: Option<tokio::sync::Semaphore>,
}

impl<C> Pool<C> {
    fn new(conns: Vec<C>) -> Self {
        let n = conns.len();
        Pool {
            slots: std::sync::Mutex::new(conns.into_iter().map(Some).collect()),
            permits: Some(tokio::sync::Semaphore::new(n)),
        }
    }

    /// One terminal's own connection.
    fn own(conn: C) -> Self {
        Pool {
            slots: std::sync::Mutex::new(vec![Some(conn)]),
            permits: None,
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

/// Closes a pool's connections, once no terminal uses them.
async fn close_pool<W: Workload>(pool: &Pool<W::Conn>) {
    let conns: Vec<W::Conn> = {
        let mut slots = pool.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.drain(..).flatten().collect()
    };
    for c in conns {
        W::close(c).await;
    }
}

/// A deadlocked or serialization-failed unit is run again this many times.
const RETRIES: u32 = 10;

/// The pause before retry `attempt` (from 1) of a unit that conflicted: a random part of 1 ms
/// doubled each time, at most 64 ms, so that terminals that conflicted with each other (a
/// Galera certification failure, CockroachDB's restarts) do not meet again at once. The unit's
/// response time includes it, as the terminal waits it.
fn retry_pause(attempt: u32) -> Duration {
    use rand::Rng;
    let most = Duration::from_micros(1000u64 << attempt.saturating_sub(1).min(6));
    most.mul_f64(rand::rng().random::<f64>())
}
/// Errors a terminal prints before it only counts them.
const ERRORS_SHOWN: u32 = 5;

/// Runs one unit, bounded: by the reply timeout (a connection whose driver does not bound
/// its own reads, such as tokio-postgres's, is given up on), and by the cut (a call still
/// waiting when the stopping run cuts its connections is abandoned). A blocking connection
/// bounds its own reads and is woken by the cut itself. `at` is the terminal's position, for
/// the message naming its server.
async fn bounded<W: Workload>(
    w: &W,
    conn: &mut W::Conn,
    unit: W::Unit,
    t: &mut W::Terminal,
    cut: &Interrupt,
    at: Position,
) -> Result<W::Done> {
    if w.bounds_own_replies() {
        // The connection's own deadline and the workload's cut do both.
        return w.execute(conn, unit, t).await;
    }
    let reply_timeout = w.reply_timeout();
    tokio::select! {
        biased;
        r = tokio::time::timeout(reply_timeout, w.execute(conn, unit, t)) => r.unwrap_or_else(|_| {
            Err(lost(&w.peer(at), format!(
                "no reply within {} s (the reply timeout)",
                reply_timeout.as_secs_f64()
            )))
        }),
        _ = cut.wait() => Err(lost(&w.peer(at), "the run stopped while the call waited".into())),
    }
}

/// How a terminal, or a virtual user's terminals, ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// Its work was done.
    Done,
    /// The run's stop ended it first (a timed run's end is such a stop too).
    Stopped,
}

impl Ended {
    /// Stopped if either was.
    fn and(self, other: Ended) -> Ended {
        if self == Ended::Done {
            other
        } else {
            self
        }
    }
}

fn is_kind(e: &Error, f: Failure) -> bool {
    matches!(e, Error::Db(d) if d.kind == f)
}

/// What one unit on a pooled connection came to, for its terminal to count.
struct Ran<D> {
    result: Result<D>,
    /// Retries after conflicts.
    attempt: u32,
    /// From the start of the wait for a connection to the unit's end (retries included,
    /// reconnecting not).
    elapsed: Duration,
    /// The connection was lost (and reconnected, unless `gave_up`).
    lost: bool,
    /// The server stayed away for the whole reconnect time.
    gave_up: Option<Error>,
}

/// One unit on a connection from `pool`, for a terminal that holds one of its permits: takes
/// the connection, runs the unit (again after a conflict), reconnects a lost connection and
/// puts it back. `None` when the run is stopping: the pool had no connection left, or the cut
/// abandoned the call.
///
/// An asynchronous client's terminal awaits this on the heap ([`run_terminal`], [`OnHeap`]):
/// the connection and the database's futures (kilobytes: a reconnect holds a whole
/// connection's handshake) then exist only for the few terminals that hold a connection,
/// never in every keying or thinking terminal's task.
async fn on_connection<W: Workload>(
    vu: &Vu<W>,
    t: &mut W::Terminal,
    pool: &Pool<W::Conn>,
    kind: W::Unit,
    at: Position,
    started: Instant,
) -> Option<Ran<W::Done>> {
    let Vu { w, shared, say, .. } = vu;
    let w = &**w;
    // An empty slot is a connection given up on, and the run is stopping.
    let mut conn = pool.take()?;
    let mut attempt = 0;
    let result = loop {
        match bounded(w, &mut conn, kind, t, &shared.cut, at).await {
            Err(e) if is_kind(&e, Failure::Retry) && attempt < RETRIES => {
                attempt += 1;
                if !nap(retry_pause(attempt), &shared.stop).await {
                    break Err(e);
                }
            }
            other => break other,
        }
    };
    let elapsed = started.elapsed();
    if result.is_err() && shared.cut.is_set() {
        // The run is over and this call was cut off: neither a failure nor a reconnect.
        shared.abandoned.fetch_add(1, Ordering::Relaxed);
        drop(conn);
        pool.put(None);
        return None;
    }
    let lost = matches!(&result, Err(e) if e.is_connection_loss());
    let mut gave_up = None;
    if lost {
        let from = W::node(&conn);
        let lost_at = shared.nodes.lost(from.as_deref(), started);
        drop(conn);
        if let Err(e) = &result {
            say.line(format!("{e}; reconnecting"));
        }
        match reconnect(vu, at).await {
            Some(Ok(c)) => {
                let to = W::node(&c);
                match &to {
                    Some(node) if from.as_ref() != Some(node) => {
                        say.line(format!("reconnected to {node}"))
                    }
                    _ => say.line("reconnected"),
                }
                shared.nodes.reconnected(from, to, lost_at);
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
    Some(Ran {
        result,
        attempt,
        elapsed,
        lost,
        gave_up,
    })
}

/// Where a terminal's future holds the future of the unit it runs ([`on_connection`]).
trait UnitPlace {
    fn hold<F: Future + Send>(unit: F) -> impl Future<Output = F::Output> + Send;
}

/// On the heap: a waiting terminal holds a pointer, not the unit's future (kilobytes: a
/// reconnect holds a whole connection's handshake). For asynchronous clients, which may be a
/// hundred thousand.
struct OnHeap;

impl UnitPlace for OnHeap {
    fn hold<F: Future + Send>(unit: F) -> impl Future<Output = F::Output> + Send {
        Box::pin(unit)
    }
}

/// In the terminal's own future: no allocation, and no copy of the unit's future into it,
/// per unit. For a virtual user's one terminal, whose future exists once.
struct InPlace;

impl UnitPlace for InPlace {
    fn hold<F: Future + Send>(unit: F) -> impl Future<Output = F::Output> + Send {
        unit
    }
}

/// One terminal: run units on connections from `pool` until its work is done or the stop,
/// and keep count in its virtual user's `stats`. A lost connection is reconnected (with
/// backoff, for up to a minute); a server that stays away stops the run. The caller ends a
/// terminal whose work is done ([`Workload::end`]).
///
/// A run may have a hundred thousand of these, most of them keying, thinking or waiting for
/// a shared connection: what this future holds across those waits is all that a terminal
/// costs. So an asynchronous client's unit runs in a future on the heap ([`OnHeap`]), the
/// terminal stays in the caller's future, and what a unit came to is counted in a plain
/// function. A virtual user's one terminal runs its units in place ([`InPlace`]).
async fn run_terminal<W: Workload, P: UnitPlace>(
    vu: &Vu<W>,
    t: &mut W::Terminal,
    pool: &Pool<W::Conn>,
    at: Position,
) -> Result<Ended> {
    let Vu { w, shared, say, .. } = vu;
    let w = &**w;
    let mut errors_shown = 0;
    let mut commits = Commits {
        nodes: &shared.nodes,
        tally: Tally::default(),
    };
    while !shared.stop.is_set() {
        let Some(kind) = w.next(t, say) else {
            return Ok(Ended::Done);
        };
        if let Some(d) = w.keying(t, kind) {
            if !nap(d, &shared.stop).await {
                break;
            }
        }
        // The response time includes any wait for a shared connection, as a terminal sees it.
        let started = Instant::now();
        let permit = match &pool.permits {
            None => None,
            Some(permits) => Some(match permits.try_acquire() {
                Ok(p) => p,
                Err(TryAcquireError::Closed) => break,
                // Only a shared connection is ever busy: wait for it, or for the stop.
                Err(TryAcquireError::NoPermits) => {
                    let waited = tokio::select! {
                        p = permits.acquire() => p,
                        _ = shared.stop.wait() => break,
                    };
                    let Ok(p) = waited else { break };
                    p
                }
            }),
        };
        // (A match, so that what the unit came to is gone before the think time's nap.)
        match P::hold(on_connection(vu, t, pool, kind, at, started)).await {
            Some(ran) => {
                drop(permit);
                if ran.result.is_ok() {
                    commits
                        .nodes
                        .committed_at(started + ran.elapsed, &mut commits.tally);
                }
                count(vu, t, kind, ran, &mut errors_shown)?;
            }
            None => break,
        }
        if let Some(d) = w.think(t, kind) {
            if !nap(d, &shared.stop).await {
                break;
            }
        }
    }
    // Every way out of the loop but the end of its work is the stop.
    Ok(Ended::Stopped)
}

/// A terminal's commits for the run's record of them ([`Nodes`]), added to it when the
/// terminal ends, however it ends.
struct Commits<'a> {
    nodes: &'a Nodes,
    tally: Tally,
}

impl Drop for Commits<'_> {
    fn drop(&mut self) {
        self.nodes.flush(&mut self.tally);
    }
}

/// Counts a unit in its virtual user's statistics and hands a success to the workload. An
/// error ends the terminal: a server that stayed away (which stops the run), or any failure
/// with `raise_error`; other failures are said, the first few, and counted.
fn count<W: Workload>(
    vu: &Vu<W>,
    t: &mut W::Terminal,
    kind: W::Unit,
    ran: Ran<W::Done>,
    errors_shown: &mut u32,
) -> Result<()> {
    let Vu {
        w,
        opts,
        shared,
        say,
        stats,
        measure_all,
        ..
    } = vu;
    let Ran {
        result,
        attempt,
        elapsed,
        lost,
        gave_up,
    } = ran;
    // A timed run counts only what completes between the monitor's two counter readings,
    // so that its figures describe the same window as the monitor's.
    let in_window = *measure_all || shared.measuring.load(Ordering::Relaxed);
    {
        let mut all = stats.lock().unwrap_or_else(|e| e.into_inner());
        if lost && gave_up.is_none() {
            all.reconnects += 1;
        }
        if let Some(t) = all.live.get_mut(W::index(kind)) {
            t.finished += 1;
            t.retried += u64::from(attempt);
            match &result {
                Ok(_) => {
                    let _ = t.latency.record((elapsed.as_micros() as u64).max(1));
                }
                Err(_) => t.failed += 1,
            }
        }
        if in_window {
            let s = &mut all.by_kind[W::index(kind)];
            s.retried += u64::from(attempt);
            match &result {
                Ok(d) if W::rolled_back(d) => s.rolled_back += 1,
                Ok(_) => s.committed += 1,
                Err(_) => s.failed += 1,
            }
            if result.is_ok() {
                let _ = s.latency.record((elapsed.as_micros() as u64).max(1));
            }
        }
    }
    if let Some(why) = gave_up {
        let e = Error::ServerGone {
            waited: opts.reconnect_for,
            why: Box::new(why),
        };
        shared.give_up(&e.to_string());
        return Err(e);
    }
    match result {
        Ok(d) => w.done(t, say, kind, d, elapsed),
        Err(_) if lost => {}
        Err(e) => {
            if opts.raise_error {
                return Err(e);
            }
            if *errors_shown < ERRORS_SHOWN {
                *errors_shown += 1;
                let more = if *errors_shown == ERRORS_SHOWN {
                    " (further errors are only counted)"
                } else {
                    ""
                };
                let name = w.type_names()[W::index(kind)];
                say.line(format!("{name} failed: {e}{more}"));
            }
        }
    }
    Ok(())
}

/// What a virtual user's terminals share: the workload, the run's options and state, the
/// virtual user's output and its statistics (behind a lock taken once per unit, by its own
/// terminals only).
struct Vu<W> {
    w: Arc<W>,
    opts: Arc<RunOptions>,
    shared: Arc<Shared>,
    say: Say,
    stats: Arc<std::sync::Mutex<Stats>>,
    /// The virtual user has a thread of its own and one terminal: its connection may block.
    own_thread: bool,
    /// No monitor bounds a measured window: every unit counts.
    measure_all: bool,
}

impl<W: Workload> Vu<W> {
    /// Opens a terminal's connection, blocking when the virtual user has its own thread; the
    /// stop ends the attempt.
    async fn connect(&self, at: Position) -> Result<W::Conn> {
        let conn = tokio::select! {
            c = self.w.connect(at) => c?,
            _ = self.shared.stop.wait() => {
                return Err(Error::StoppedConnecting)
            }
        };
        if self.own_thread {
            W::into_blocking(conn)
        } else {
            Ok(conn)
        }
    }
}

/// A terminal with a connection of its own: connects, runs, closes.
async fn own_terminal<W: Workload, P: UnitPlace>(
    vu: &Vu<W>,
    mut t: W::Terminal,
    at: Position,
) -> Result<Ended> {
    let conn = match vu.connect(at).await {
        Ok(c) => c,
        // The stop came first: this terminal did nothing.
        Err(Error::StoppedConnecting) => return Ok(Ended::Stopped),
        Err(e) => return Err(e),
    };
    vu.shared.nodes.joined(W::node(&conn));
    let pool = Pool::own(conn);
    let outcome = run_terminal::<W, P>(vu, &mut t, &pool, at).await;
    let outcome = end_terminal(vu, t, outcome);
    close_pool::<W>(&pool).await;
    outcome
}

/// Ends a terminal whose work is done ([`Workload::end`]); one the stop or an error ended
/// has no last lines.
fn end_terminal<W: Workload>(vu: &Vu<W>, t: W::Terminal, outcome: Result<Ended>) -> Result<Ended> {
    if let Ok(Ended::Done) = outcome {
        vu.w.end(t, &vu.say);
    }
    outcome
}

/// Tries to connect again with doubling waits; `None` when stopped meanwhile.
async fn reconnect<W: Workload>(vu: &Vu<W>, at: Position) -> Option<Result<W::Conn>> {
    let (stop, limit) = (&vu.shared.stop, vu.opts.reconnect_for);
    let started = Instant::now();
    let mut wait = Duration::from_millis(250);
    loop {
        if !nap(wait, stop).await {
            return None;
        }
        match vu.connect(at).await {
            Ok(c) => return Some(Ok(c)),
            Err(e) if started.elapsed() >= limit => return Some(Err(e)),
            Err(_) => wait = (wait * 2).min(Duration::from_secs(5)),
        }
    }
}

/// A virtual user's asynchronous clients: `terminals` terminals logging in `login_delay`
/// apart, on a connection each or sharing a pool.
async fn run_clients<W: Workload>(
    vu: &Arc<Vu<W>>,
    plan: &Arc<W::Plan>,
    worker: Place,
    rng: &mut SmallRng,
    terminals: u32,
) -> Result<Ended> {
    let opts = &vu.opts;
    let pool = if opts.pool > 0 {
        let mut conns = Vec::new();
        // A shared connection goes where the terminal of its number would.
        for c in 0..opts.pool.min(terminals) {
            let at = Place {
                client: Some(c),
                ..worker
            };
            match vu.w.connect(at.position(terminals)).await {
                Ok(c) => {
                    vu.shared.nodes.joined(W::node(&c));
                    conns.push(c)
                }
                Err(e) => {
                    close_pool::<W>(&Pool::new(conns)).await;
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
        let place = Place {
            client: Some(c),
            ..worker
        };
        set.spawn(client(
            vu.clone(),
            pool.clone(),
            plan.clone(),
            place,
            terminals,
            SmallRng::from_rng(&mut *rng),
        ));
    }
    let mut outcome = Ok(Ended::Done);
    while let Some(j) = set.join_next().await {
        let o = j.unwrap_or_else(|why| {
            Err(Error::TaskFailed {
                task: "terminal",
                why,
            })
        });
        outcome = match (outcome, o) {
            (Ok(a), Ok(b)) => Ok(a.and(b)),
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
        };
    }
    if let Some(pool) = pool {
        close_pool::<W>(&pool).await;
    }
    outcome
}

/// One asynchronous client's task: it logs in its number of login delays after the first,
/// makes its terminal then (so that a waiting client holds only what makes it), and runs on
/// the shared pool or on a connection of its own.
///
/// Everything this future holds, every client of the run holds: the virtual user and the
/// pool are shared, and a connection of its own is opened on the heap.
async fn client<W: Workload>(
    vu: Arc<Vu<W>>,
    pool: Option<Arc<Pool<W::Conn>>>,
    plan: Arc<W::Plan>,
    place: Place,
    terminals: u32,
    rng: SmallRng,
) -> Result<Ended> {
    let login = vu.opts.login_delay * place.client.unwrap_or(0);
    if !nap(login, &vu.shared.stop).await {
        return Ok(Ended::Stopped);
    }
    let mut t = vu.w.terminal(&plan, place, rng);
    drop(plan);
    let at = place.position(terminals);
    match &pool {
        Some(pool) => {
            let outcome = run_terminal::<W, OnHeap>(&vu, &mut t, pool, at).await;
            end_terminal(&vu, t, outcome)
        }
        None => Box::pin(own_terminal::<W, OnHeap>(&vu, t, at)).await,
    }
}

/// The size of one asynchronous client's task for workload `W`: what each of a run's
/// terminals holds while it keys, thinks or waits for a connection.
#[cfg(test)]
pub(super) fn client_task_size<W: Workload>() -> usize {
    fn returned<A, B, C, D, E, G, F>(_: impl FnOnce(A, B, C, D, E, G) -> F) -> usize {
        std::mem::size_of::<F>()
    }
    returned(client::<W>)
}

/// Whether `HAMMER_VU_THREADS=shared` asks for every virtual user on the runtime's shared
/// threads, to compare the two ways (`scripts/bench/driver.sh`).
fn shared_threads() -> bool {
    std::env::var("HAMMER_VU_THREADS").is_ok_and(|v| v == "shared")
}

/// An error starting a virtual user's thread, with what to do when it is a limit.
fn thread_start(what: &'static str, why: std::io::Error) -> Error {
    let hint = match why.raw_os_error() {
        // EMFILE, ENFILE
        Some(24 | 23) => {
            Some("the open-files limit (ulimit -n) is too low for this many virtual users")
        }
        // EAGAIN from clone: threads or memory
        Some(11) => Some("the limit on threads (ulimit -u) or memory is reached"),
        _ => None,
    };
    Error::ThreadStart { what, why, hint }
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
/// units, as a task's abort would.
async fn on_own_thread<T: Send + 'static>(
    vu: usize,
    stop: Interrupt,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name(format!("vuser-{vu}"))
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            let _ = tx.send(match runtime {
                Ok(rt) => Ok(rt.block_on(work)),
                Err(e) => Err(thread_start("a runtime on its thread", e)),
            });
        })
        .map_err(|e| thread_start("a thread of its own", e))?;
    let mut armed = StopOnDrop(Some(stop));
    let outcome = rx.await;
    armed.0 = None;
    outcome.map_err(|_| Error::VuThreadPanicked)?
}

/// Runs a workload: checks the database, starts the virtual users one `user_delay` apart,
/// and when the workload has a monitor lets virtual user 1 time the run.
pub async fn run<W: Workload>(
    w: Arc<W>,
    opts: RunOptions,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<Outcome<<W::Monitor as Monitor>::Figures>> {
    let plan = tokio::select! {
        r = tokio::time::timeout(w.reply_timeout(), w.prepare()) => {
            r.unwrap_or_else(|_| Err(Error::NoAnswer {
                what: "the pre-run checks",
                within: w.reply_timeout(),
            }))?
        }
        _ = interrupt.wait() => return Err(Error::Interrupted),
    };
    let plan = Arc::new(plan);
    let mut seed = SmallRng::from_os_rng();
    let monitor = w.monitor().is_some();
    let types = w.type_names().len();
    let shared = Arc::new(Shared {
        stop: Interrupt::default(),
        cut: Interrupt::default(),
        abandoned: AtomicU64::new(0),
        measuring: AtomicBool::new(!monitor),
        interrupted: AtomicBool::new(false),
        gave_up: std::sync::OnceLock::new(),
        window: Default::default(),
        window_moved: Default::default(),
        nodes: Nodes::new(opts.rampup + opts.duration),
    });
    // Once stopping, the terminals get a grace to finish their calls; then their connections
    // are cut, and a virtual user that still has not ended after that is abandoned.
    let abandon = Interrupt::default();
    let reaper = {
        let (w, shared, abandon) = (w.clone(), shared.clone(), abandon.clone());
        tokio::spawn(async move {
            shared.stop.wait().await;
            tokio::time::sleep(STOP_GRACE).await;
            shared.cut.fire();
            w.cut();
            tokio::time::sleep(CUT_GRACE).await;
            abandon.fire();
        })
    };
    // Ctrl-C reaches the terminals through the run's own stop flag; a run already ending
    // as planned is not one Ctrl-C cut short.
    let forward = {
        let shared = shared.clone();
        tokio::spawn(async move {
            interrupt.wait().await;
            if !shared.stop.is_set() {
                shared.interrupted.store(true, Ordering::SeqCst);
            }
            shared.stop.fire();
        })
    };
    let first_worker = if monitor { 2 } else { 1 };
    let opts = Arc::new(opts);
    // Each worker's statistics, made here so that the live view can take its tallies.
    let live = !opts.refresh.is_zero();
    let vu_stats: Vec<Arc<std::sync::Mutex<Stats>>> = (0..opts.virtual_users)
        .map(|_| {
            Arc::new(std::sync::Mutex::new(if live {
                Stats::with_live(types)
            } else {
                Stats::new(types)
            }))
        })
        .collect();
    let live_done = Interrupt::default();
    let sampler = live.then(|| {
        let timing = monitor.then_some(Timing {
            rampup: opts.rampup,
            duration: opts.duration,
        });
        tokio::spawn(sample(
            w.clone(),
            shared.clone(),
            vu_stats.clone(),
            opts.refresh,
            timing,
            say.clone(),
            live_done.clone(),
        ))
    });
    let mut workers = tokio::task::JoinSet::new();
    let all_shared = shared_threads();
    for i in 0..opts.virtual_users {
        let vu = first_worker + i as usize;
        let (w, opts, shared, states, plan, stats) = (
            w.clone(),
            opts.clone(),
            shared.clone(),
            states.clone(),
            plan.clone(),
            vu_stats[i as usize].clone(),
        );
        let vsay = say.as_vuser(vu);
        let mut rng = SmallRng::from_rng(&mut seed);
        let delay = opts.user_delay * i;
        let terminals = opts.terminals.max(1);
        // One terminal gets a thread of its own and waits for replies in a blocking read;
        // many share the runtime's threads, as tasks.
        let own_thread = terminals == 1 && !all_shared;
        let stop = shared.stop.clone();
        let place = Place {
            worker: i + 1,
            workers: opts.virtual_users,
            client: None,
        };
        let work = async move {
            if !nap(delay, &shared.stop).await {
                // Stopped before it started: said at the join, as every virtual user's end.
                return (vu, Stats::new(types), Ok(Ended::Stopped));
            }
            states(vu, VuState::Running);
            vsay.line("RUNNING");
            w.started(&vsay);
            let ctx = Arc::new(Vu {
                w,
                opts,
                shared,
                say: vsay,
                stats,
                own_thread,
                measure_all: !monitor,
            });
            let outcome = if terminals == 1 {
                let t = ctx.w.terminal(&plan, place, rng);
                own_terminal::<W, InPlace>(&ctx, t, place.position(1)).await
            } else {
                run_clients(&ctx, &plan, place, &mut rng, terminals).await
            };
            // The counts go to the result; the tallies stay for the live view's last look.
            let stats = {
                let mut s = ctx.stats.lock().unwrap_or_else(|e| e.into_inner());
                Stats {
                    by_kind: std::mem::take(&mut s.by_kind),
                    reconnects: s.reconnects,
                    live: Vec::new(),
                }
            };
            (vu, stats, outcome)
        };
        if own_thread {
            workers.spawn(async move {
                on_own_thread(vu, stop, work)
                    .await
                    .unwrap_or_else(|e| (vu, Stats::new(types), Err(e)))
            });
        } else {
            workers.spawn(work);
        }
    }

    let mut result = Outcome {
        figures: None,
        active_vus: opts.virtual_users,
        measured: Duration::ZERO,
        measured_from: None,
        stats: Stats::new(types),
        per_vu: Vec::new(),
        stopped_early: None,
        failed_vus: 0,
        client_cpu: None,
        abandoned_calls: 0,
        series: None,
        nodes: NodeReport::default(),
    };
    let monitor_task = if monitor {
        states(1, VuState::Running);
        say.line("RUNNING");
        let (w, opts, shared, msay) = (w.clone(), opts.clone(), shared.clone(), say.clone());
        Some(tokio::spawn(async move {
            let Some(m) = w.monitor() else {
                return Err(Error::NoMonitor);
            };
            let outcome = monitor_run(m, &*w, &opts, &shared, &msay).await;
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
    // What is about the whole run the monitor says when there is one; without a monitor,
    // virtual user 1 is a worker like the others, and the line is said without a Vuser.
    let run_says = |text: String| {
        if monitor {
            say.line(text);
        } else {
            say.out().line(text);
        }
    };
    let mut finished = 0;
    let mut stopped_vus = 0;
    let mut abandoned_vus = 0;
    loop {
        let joined = tokio::select! {
            j = workers.join_next() => match j {
                Some(j) => j,
                None => break,
            },
            _ = abandon.wait(), if !workers.is_empty() && abandoned_vus == 0 => {
                abandoned_vus = workers.len();
                run_says(format!(
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
                Stats::new(types),
                Err(Error::TaskFailed {
                    task: "virtual user",
                    why: e,
                }),
            )
        });
        finished += 1;
        match outcome {
            // Not a success: the stop came before its work was done.
            Ok(Ended::Stopped) if shared.cut_short() => {
                stopped_vus += 1;
                states(vu, VuState::FinishStopped);
                say.as_vuser(vu).line("FINISHED STOPPED");
            }
            Ok(_) => {
                states(vu, VuState::FinishSuccess);
                say.as_vuser(vu).line("FINISHED SUCCESS");
            }
            Err(e) => {
                result.failed_vus += 1;
                states(vu, VuState::FinishFailed);
                let vsay = say.as_vuser(vu);
                vsay.line(format!("Error in Virtual User {vu}: {e}"));
                vsay.line("FINISHED FAILED");
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
            .map_err(|why| Error::TaskFailed {
                task: "monitor",
                why,
            })
            .and_then(|r| r);
        match outcome {
            Ok(Measured {
                figures,
                measured,
                from,
                stopped_early,
                client_cpu,
            }) => {
                result.measured_from = from;
                let stopped = stopped_early.is_some() && shared.cut_short();
                result.figures = figures;
                result.measured = measured;
                result.stopped_early = stopped_early;
                result.client_cpu = client_cpu;
                if stopped {
                    states(1, VuState::FinishStopped);
                    say.line("FINISHED STOPPED");
                } else {
                    states(1, VuState::FinishSuccess);
                    say.line("FINISHED SUCCESS");
                }
            }
            Err(_) => {
                // (The error was said when the monitor failed.)
                states(1, VuState::FinishFailed);
                say.line("FINISHED FAILED");
                result.failed_vus += 1;
            }
        }
    }
    live_done.fire();
    if let Some(sampler) = sampler {
        result.series = sampler.await.ok();
    }
    forward.abort();
    reaper.abort();
    let abandoned = shared.abandoned.load(Ordering::Relaxed);
    if abandoned > 0 {
        run_says(format!(
            "{abandoned} call(s) still waiting for the server when the run stopped were abandoned \
             (their connections cut {} s after the stop)",
            STOP_GRACE.as_secs()
        ));
    }
    result.abandoned_calls = abandoned;
    result.nodes = shared.nodes.report();
    if let Some(why) = shared.gave_up.get() {
        result.stopped_early = Some(why.clone());
    } else if !monitor && shared.cut_short() && stopped_vus + abandoned_vus > 0 {
        result.stopped_early = Some("stopped by Ctrl-C".into());
    }
    Ok(result)
}

#[cfg(test)]
mod retry_tests {
    use super::*;

    #[test]
    fn retry_pauses_grow_and_stay_bounded() {
        for attempt in 1..=RETRIES {
            let most = Duration::from_micros(1000 << (attempt - 1).min(6));
            for _ in 0..50 {
                assert!(retry_pause(attempt) <= most, "attempt {attempt}");
            }
        }
    }
}
