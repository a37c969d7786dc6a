//! The runtime driven by a tiny test-only workload: iterations, Ctrl-C, the abandoned call,
//! reconnect counting, a server that stays away, and the monitor's window.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;

use super::live::{Interval, Phase};
use super::*;
use crate::config::Database;
use crate::error::{Error, Result};
use crate::fault::{Failure, Peer};
use crate::interrupt::Interrupt;
use crate::output::Output;

/// A workload whose units alternate between two types and take `unit_time`; the first
/// `lose` calls fail as lost connections (after which, with `stay_away`, connecting fails);
/// with `hang`, every call waits for ever.
#[derive(Default)]
struct Fake {
    units: u64,
    unit_time: Duration,
    lose: AtomicU64,
    hang: bool,
    stay_away: bool,
    refuse: AtomicBool,
    connects: AtomicU64,
    cuts: AtomicU64,
    executed: AtomicU64,
    timed: bool,
    /// Where each connection was asked for.
    positions: std::sync::Mutex<Vec<crate::endpoint::Position>>,
    /// Whose server each message about a connection was asked to name.
    peers: std::sync::Mutex<Vec<crate::endpoint::Position>>,
}

fn peer() -> Peer {
    Peer {
        db: Database::Pg,
        addr: "test:1".into(),
        user: "tester".into(),
    }
}

impl Workload for Fake {
    type Conn = ();
    type Terminal = u64;
    type Unit = usize;
    type Done = ();
    type Plan = ();
    type Monitor = Self;

    fn type_names(&self) -> &'static [&'static str] {
        &["even", "odd"]
    }

    fn index(unit: usize) -> usize {
        unit
    }

    async fn prepare(&self) -> Result<()> {
        Ok(())
    }

    fn monitor(&self) -> Option<&Self> {
        self.timed.then_some(self)
    }

    async fn connect(&self, at: crate::endpoint::Position) -> Result<()> {
        self.connects.fetch_add(1, Ordering::Relaxed);
        self.positions.lock().unwrap().push(at);
        if self.refuse.load(Ordering::Relaxed) {
            return Err(Error::Db(peer().error(Failure::Refused, "refused")));
        }
        Ok(())
    }

    async fn close(_: ()) {}

    fn reply_timeout(&self) -> Duration {
        Duration::from_secs(60)
    }

    fn peer(&self, at: crate::endpoint::Position) -> Peer {
        self.peers.lock().unwrap().push(at);
        peer()
    }

    fn cut(&self) -> usize {
        self.cuts.fetch_add(1, Ordering::Relaxed);
        0
    }

    fn terminal(&self, _: &(), _: Place, _: SmallRng) -> u64 {
        0
    }

    fn next(&self, t: &mut u64, _: &Say) -> Option<usize> {
        (*t < self.units).then(|| {
            *t += 1;
            (*t % 2) as usize
        })
    }

    async fn execute(&self, _: &mut (), _: usize, _: &mut u64) -> Result<()> {
        self.executed.fetch_add(1, Ordering::Relaxed);
        if self.hang {
            std::future::pending::<()>().await;
        }
        let lose = self
            .lose
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        if lose.is_ok() {
            if self.stay_away {
                self.refuse.store(true, Ordering::Relaxed);
            }
            return Err(Error::Db(peer().failed("lost", Failure::Lost, "test")));
        }
        tokio::time::sleep(self.unit_time).await;
        Ok(())
    }

    fn rolled_back(_: &()) -> bool {
        false
    }
}

impl Monitor for Fake {
    type Reading = u64;
    type Figures = u64;

    async fn read(&self) -> Result<u64> {
        Ok(self.executed.load(Ordering::Relaxed))
    }

    fn figures(&self, start: &u64, end: &u64, _: Duration, say: &Say) -> u64 {
        say.line("FIGURES");
        end - start
    }

    fn rates(&self, start: &u64, end: &u64, over: Duration) -> Vec<(&'static str, f64)> {
        vec![("UPM", (end - start) as f64 / over.as_secs_f64() * 60.0)]
    }
}

fn opts(virtual_users: u32) -> RunOptions {
    RunOptions {
        virtual_users,
        user_delay: Duration::ZERO,
        terminals: 1,
        login_delay: Duration::ZERO,
        pool: 0,
        raise_error: false,
        reconnect_for: Duration::from_secs(5),
        time_profile: true,
        rampup: Duration::ZERO,
        duration: Duration::from_millis(400),
        refresh: Duration::ZERO,
        window: None,
    }
}

async fn go(w: Arc<Fake>, o: RunOptions, interrupt: Interrupt) -> (Outcome<u64>, Vec<String>) {
    let out = Output::capture();
    let states: StateSink = Arc::new(|_, _| {});
    let r = run(w, o, Say::new(out.clone(), 1), states, interrupt)
        .await
        .expect("the run starts");
    (r, out.take_captured())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminals_run_their_units_and_end() {
    let w = Arc::new(Fake {
        units: 5,
        ..Fake::default()
    });
    let (r, lines) = go(w.clone(), opts(2), Interrupt::default()).await;
    assert_eq!(r.stats.finished(), 10);
    assert_eq!(
        (
            r.stats.kind(0usize).committed,
            r.stats.kind(1usize).committed
        ),
        (4, 6)
    );
    assert_eq!(
        (r.failed_vus, r.abandoned_calls, r.stopped_early),
        (0, 0, None)
    );
    assert_eq!(r.per_vu.len(), 2);
    assert_eq!(w.connects.load(Ordering::Relaxed), 2);
    assert!(
        lines.contains(&"Vuser 1:FINISHED SUCCESS".to_string()),
        "{lines:?}"
    );
    // Asynchronous clients on a shared pool of one connection: the same work.
    let w = Arc::new(Fake {
        units: 3,
        ..Fake::default()
    });
    let (r, _) = go(
        w.clone(),
        RunOptions {
            terminals: 4,
            pool: 1,
            ..opts(1)
        },
        Interrupt::default(),
    )
    .await;
    assert_eq!(r.stats.finished(), 12);
    assert_eq!(w.connects.load(Ordering::Relaxed), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_between_units() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(5),
        ..Fake::default()
    });
    let interrupt = Interrupt::default();
    let fire = {
        let i = interrupt.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            i.fire();
        })
    };
    let started = std::time::Instant::now();
    let (r, lines) = go(w, opts(2), interrupt).await;
    fire.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "no grace was needed"
    );
    assert_eq!(r.stopped_early.as_deref(), Some("stopped by Ctrl-C"));
    assert_eq!((r.failed_vus, r.abandoned_calls), (0, 0));
    assert!(r.stats.finished() > 0);
    // A stopped virtual user says so, never that it succeeded.
    for line in ["Vuser 1:FINISHED STOPPED", "Vuser 2:FINISHED STOPPED"] {
        assert!(lines.iter().any(|l| l == line), "{line} in {lines:?}");
    }
    assert!(!lines.iter().any(|l| l.contains("SUCCESS")), "{lines:?}");
}

/// A virtual user whose work was done before the Ctrl-C finished with success; the one the
/// stop ended says it stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_virtual_users_the_stop_ended_say_they_stopped() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(5),
        ..Fake::default()
    });
    let interrupt = Interrupt::default();
    let fire = {
        let i = interrupt.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            i.fire();
        })
    };
    // Virtual user 2 starts a minute later: the stop ends it before it starts.
    let o = RunOptions {
        user_delay: Duration::from_secs(60),
        ..opts(2)
    };
    let (r, lines) = go(w, o, interrupt).await;
    fire.await.unwrap();
    for line in ["Vuser 1:FINISHED STOPPED", "Vuser 2:FINISHED STOPPED"] {
        assert!(lines.iter().any(|l| l == line), "{line} in {lines:?}");
    }
    assert_eq!(r.stopped_early.as_deref(), Some("stopped by Ctrl-C"));

    // Work done before the Ctrl-C: a success, and no run stopped early.
    let w = Arc::new(Fake {
        units: 2,
        ..Fake::default()
    });
    let interrupt = Interrupt::default();
    let (r, lines) = go(w, opts(1), interrupt.clone()).await;
    interrupt.fire();
    assert!(
        lines.iter().any(|l| l == "Vuser 1:FINISHED SUCCESS"),
        "{lines:?}"
    );
    assert_eq!(r.stopped_early, None);
}

/// Ctrl-C in a timed run's window: the monitor still gives the figures of the time measured,
/// and every virtual user, the monitor too, says it stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_run_stopped_in_its_window_says_every_virtual_user_stopped() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(2),
        timed: true,
        ..Fake::default()
    });
    let interrupt = Interrupt::default();
    let fire = {
        let i = interrupt.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            i.fire();
        })
    };
    let o = RunOptions {
        duration: Duration::from_secs(60),
        ..opts(2)
    };
    let (r, lines) = go(w, o, interrupt).await;
    fire.await.unwrap();
    assert!(r.figures.is_some());
    assert_eq!(
        r.stopped_early.as_deref(),
        Some("stopped before the end of the duration")
    );
    for vu in 1..=3 {
        let line = format!("Vuser {vu}:FINISHED STOPPED");
        assert!(lines.contains(&line), "{line} in {lines:?}");
    }
    assert!(!lines.iter().any(|l| l.contains("SUCCESS")), "{lines:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_still_waiting_at_the_stop_is_abandoned() {
    let w = Arc::new(Fake {
        units: 10,
        hang: true,
        ..Fake::default()
    });
    let interrupt = Interrupt::default();
    let i = interrupt.clone();
    let fire = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        i.fire();
    });
    let started = std::time::Instant::now();
    let (r, lines) = go(w.clone(), opts(2), interrupt).await;
    fire.await.unwrap();
    let took = started.elapsed();
    // Ended by the cut a grace after the stop, well before the abandon (a grace later).
    assert!(
        took >= STOP_GRACE && took < STOP_GRACE + Duration::from_secs(4),
        "{took:?}"
    );
    assert_eq!(r.abandoned_calls, 2);
    // Neither a failure nor a reconnect.
    assert_eq!(
        (r.stats.finished(), r.stats.reconnects, r.failed_vus),
        (0, 0, 0)
    );
    // The stopping run cut the connections once (the reaper may still be finishing its
    // step when the run has returned).
    for _ in 0..100 {
        if w.cuts.load(Ordering::Relaxed) > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(w.cuts.load(Ordering::Relaxed), 1);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("2 call(s) still waiting for the server")),
        "{lines:?}"
    );
    // Each abandoned call is said of its own terminal's connection.
    let mut peers = w.peers.lock().unwrap().clone();
    peers.sort_by_key(|p| format!("{p:?}"));
    use crate::endpoint::Position::Terminal;
    assert_eq!(peers, [Terminal { n: 1, of: 2 }, Terminal { n: 2, of: 2 }]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_connections_are_reconnected_and_counted() {
    let w = Arc::new(Fake {
        units: 5,
        lose: AtomicU64::new(2),
        ..Fake::default()
    });
    let (r, lines) = go(w.clone(), opts(1), Interrupt::default()).await;
    assert_eq!(r.stats.reconnects, 2);
    // A lost call is a failed unit, counted but not said as a failure.
    assert_eq!((r.stats.finished(), r.failed_vus), (5, 0));
    assert_eq!(
        r.stats.by_kind.iter().map(|s| s.failed).sum::<u64>(),
        2,
        "{:?}",
        r.stats
    );
    assert_eq!(w.connects.load(Ordering::Relaxed), 3);
    let reconnected = lines.iter().filter(|l| *l == "Vuser 1:reconnected").count();
    assert_eq!(reconnected, 2, "{lines:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stays_away_stops_the_run() {
    let w = Arc::new(Fake {
        units: 3,
        lose: AtomicU64::new(1),
        stay_away: true,
        ..Fake::default()
    });
    let o = RunOptions {
        reconnect_for: Duration::ZERO,
        ..opts(1)
    };
    let (r, lines) = go(w, o, Interrupt::default()).await;
    assert_eq!(r.failed_vus, 1);
    assert_eq!(r.stats.reconnects, 0);
    let why = r.stopped_early.expect("the run gave up");
    assert!(
        why.starts_with("the server did not come back within 0 s: "),
        "{why}"
    );
    assert!(
        lines.iter().any(|l| l == "Vuser 1:FINISHED FAILED"),
        "{lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_monitor_times_a_window_and_stops_the_workers() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(2),
        timed: true,
        ..Fake::default()
    });
    let (r, lines) = go(w, opts(2), Interrupt::default()).await;
    let counted = r.figures.expect("the monitor's figures");
    assert!(counted > 0);
    assert!(r.measured >= Duration::from_millis(400), "{:?}", r.measured);
    assert_eq!((r.failed_vus, r.stopped_early), (0, None));
    // Workers are virtual users 2 and 3; the monitor says the figures.
    for line in [
        "Vuser 1:Rampup complete, Taking start Transaction Count.",
        "Vuser 1:FIGURES",
        "Vuser 2:FINISHED SUCCESS",
        "Vuser 3:FINISHED SUCCESS",
        "Vuser 1:FINISHED SUCCESS",
    ] {
        assert!(lines.iter().any(|l| l == line), "{line} in {lines:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_view_shows_each_interval_and_keeps_the_series() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(2),
        timed: true,
        ..Fake::default()
    });
    let o = RunOptions {
        rampup: Duration::from_millis(300),
        duration: Duration::from_millis(600),
        refresh: Duration::from_millis(100),
        ..opts(2)
    };
    let (r, lines) = go(w.clone(), o, Interrupt::default()).await;
    let series = r.series.expect("a live series");
    assert_eq!(series.names, ["even", "odd"]);
    let n = series.intervals.len();
    assert!((5..=14).contains(&n), "{n} intervals: {series:#?}");
    // Every unit that ran is in exactly one interval, rampup included.
    let finished: u64 = series.intervals.iter().map(|i| i.finished()).sum();
    assert_eq!(finished, w.executed.load(Ordering::Relaxed));
    // Rampup first, then the measured window, in order; the database's rates in between.
    let phases: Vec<Phase> = series.intervals.iter().map(|i| i.phase).collect();
    assert_eq!(phases[0], Phase::Rampup, "{phases:?}");
    assert!(phases.contains(&Phase::Measured), "{phases:?}");
    assert!(
        phases.windows(2).all(|p| p[0] as u8 <= p[1] as u8),
        "{phases:?}"
    );
    let measured = series
        .intervals
        .iter()
        .find(|i| i.phase == Phase::Measured && !i.rates.is_empty())
        .expect("a measured interval with rates");
    assert!(measured.rate("UPM").unwrap() > 0.0, "{measured:?}");
    assert!(measured.remaining.unwrap() <= Duration::from_millis(600));
    let (start, end) = series.window.expect("the window");
    assert!(start >= Duration::from_millis(250), "{start:?}");
    assert!(end.unwrap() >= start + Duration::from_millis(600));
    // Not a terminal: one plain line per interval.
    let progress = lines.iter().filter(|l| l.starts_with("progress: ")).count();
    assert_eq!(progress, n, "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(", measured, ") && l.contains(" UPM ")),
        "{lines:?}"
    );
}

/// The window's edges end intervals where they fall: the measured intervals run from the
/// window's start to its end (a duration that is not a whole number of intervals ends in a
/// short one), every interval before is rampup and every one after is ending, and the
/// measured ones sum to the run's counts within one interval's worth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_measured_intervals_cover_the_window_and_sum_to_its_counts() {
    let w = Arc::new(Fake {
        units: u64::MAX,
        unit_time: Duration::from_millis(2),
        timed: true,
        ..Fake::default()
    });
    let o = RunOptions {
        rampup: Duration::from_millis(250),
        duration: Duration::from_millis(500),
        refresh: Duration::from_millis(200),
        ..opts(2)
    };
    let (r, _) = go(w, o, Interrupt::default()).await;
    let series = r.series.expect("a live series");
    let (start, end) = series.window.expect("the window");
    let end = end.expect("the window's end");
    let begins = |i: &Interval| i.elapsed - Duration::from_secs_f64(i.seconds);
    let measured: Vec<&Interval> = series
        .intervals
        .iter()
        .filter(|i| i.phase == Phase::Measured)
        .collect();
    let (first, last) = (measured[0], measured[measured.len() - 1]);
    let near = |a: Duration, b: Duration| a.abs_diff(b) < Duration::from_micros(10);
    assert!(near(begins(first), start), "{start:?}: {series:#?}");
    assert_eq!(last.elapsed, end, "{series:#?}");
    for i in &series.intervals {
        let want = if i.elapsed <= start {
            Phase::Rampup
        } else if i.elapsed <= end {
            Phase::Measured
        } else {
            Phase::Ending
        };
        assert_eq!(i.phase, want, "{start:?}..{end:?}: {i:#?}");
    }
    // Four intervals of 200 ms would overrun the 500 ms: the third ends with the window.
    assert_eq!(measured.len(), 3, "{series:#?}");
    let sum: u64 = measured.iter().map(|i| i.finished()).sum();
    let one = measured.iter().map(|i| i.finished()).max().unwrap_or(0);
    let counted = r.stats.finished();
    assert!(counted > 0);
    assert!(sum.abs_diff(counted) <= one, "{sum} against {counted}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_refresh_there_is_no_live_view() {
    let w = Arc::new(Fake {
        units: 3,
        ..Fake::default()
    });
    let (r, lines) = go(w, opts(1), Interrupt::default()).await;
    assert!(r.series.is_none());
    assert!(!lines.iter().any(|l| l.starts_with("progress: ")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_terminal_connects_at_its_position_among_the_run_s() {
    use crate::endpoint::Position::Terminal;
    let positions = |w: &Fake| {
        let mut p = w.positions.lock().unwrap().clone();
        p.sort_by_key(|p| match p {
            Terminal { n, .. } => *n,
            _ => 0,
        });
        p
    };
    let w = Arc::new(Fake {
        units: 1,
        ..Fake::default()
    });
    go(w.clone(), opts(3), Interrupt::default()).await;
    let all = |of| (1..=of).map(|n| Terminal { n, of }).collect::<Vec<_>>();
    assert_eq!(positions(&w), all(3));
    // Two virtual users of two asynchronous clients: four terminals.
    let w = Arc::new(Fake {
        units: 1,
        ..Fake::default()
    });
    let two = RunOptions {
        terminals: 2,
        ..opts(2)
    };
    go(w.clone(), two.clone(), Interrupt::default()).await;
    assert_eq!(positions(&w), all(4));
    // A shared pool of one connection per virtual user: its first terminal's position.
    let w = Arc::new(Fake {
        units: 1,
        ..Fake::default()
    });
    go(
        w.clone(),
        RunOptions { pool: 1, ..two },
        Interrupt::default(),
    )
    .await;
    let first = |n| Terminal { n, of: 4 };
    assert_eq!(positions(&w), [first(1), first(3)]);
}

#[test]
fn a_place_is_a_terminal_n_of_n() {
    use crate::endpoint::Position::Terminal;
    let place = |worker, client| Place {
        worker,
        workers: 3,
        client,
    };
    assert_eq!(place(1, None).position(1), Terminal { n: 1, of: 3 });
    assert_eq!(place(3, None).position(1), Terminal { n: 3, of: 3 });
    assert_eq!(place(2, Some(0)).position(4), Terminal { n: 5, of: 12 });
    assert_eq!(place(3, Some(3)).position(4), Terminal { n: 12, of: 12 });
}

/// [`Fake`] whose connecting and units each hold a large buffer across an await, as a real
/// database's handshake and calls hold kilobytes.
#[derive(Default)]
struct Heavy(Fake);

/// What each of [`Heavy`]'s futures holds.
const HEAVY: usize = 16 * 1024;

/// Holds `HEAVY` bytes across an await.
async fn heavy_wait() {
    let buffer = [7u8; HEAVY];
    tokio::task::yield_now().await;
    std::hint::black_box(&buffer);
}

impl Workload for Heavy {
    type Conn = ();
    type Terminal = u64;
    type Unit = usize;
    type Done = ();
    type Plan = ();
    type Monitor = NoMonitor;

    fn type_names(&self) -> &'static [&'static str] {
        self.0.type_names()
    }

    fn index(unit: usize) -> usize {
        unit
    }

    async fn prepare(&self) -> Result<()> {
        Ok(())
    }

    fn monitor(&self) -> Option<&NoMonitor> {
        None
    }

    async fn connect(&self, at: crate::endpoint::Position) -> Result<()> {
        heavy_wait().await;
        self.0.connect(at).await
    }

    async fn close(_: ()) {}

    fn reply_timeout(&self) -> Duration {
        self.0.reply_timeout()
    }

    fn peer(&self, at: crate::endpoint::Position) -> Peer {
        self.0.peer(at)
    }

    fn cut(&self) -> usize {
        self.0.cut()
    }

    fn terminal(&self, _: &(), _: Place, _: SmallRng) -> u64 {
        0
    }

    fn next(&self, t: &mut u64, say: &Say) -> Option<usize> {
        self.0.next(t, say)
    }

    async fn execute(&self, conn: &mut (), unit: usize, t: &mut u64) -> Result<()> {
        heavy_wait().await;
        self.0.execute(conn, unit, t).await
    }

    fn rolled_back(_: &()) -> bool {
        false
    }
}

/// A hundred thousand terminals cost what their tasks hold while they key, think or wait for
/// a shared connection: the database's futures (connecting, reconnecting, a call) are not
/// part of it, whatever their size.
#[test]
fn a_clients_task_does_not_grow_with_the_databases_futures() {
    let light = runtime::client_task_size::<Fake>();
    let heavy = runtime::client_task_size::<Heavy>();
    assert_eq!(light, heavy, "a client's task holds a database future");
    assert!(heavy < HEAVY, "{heavy} bytes");
}

/// Many clients on a small pool, each unit holding a large future: every unit is counted,
/// losses reconnected, as with light ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_on_a_pool_count_every_unit() {
    let w = Arc::new(Heavy(Fake {
        units: 7,
        lose: AtomicU64::new(3),
        ..Fake::default()
    }));
    let out = Output::capture();
    let states: StateSink = Arc::new(|_, _| {});
    let o = RunOptions {
        terminals: 300,
        pool: 3,
        ..opts(2)
    };
    let r = run(
        w.clone(),
        o,
        Say::new(out.clone(), 1),
        states,
        Interrupt::default(),
    )
    .await
    .expect("the run starts");
    let (units, lost) = (2 * 300 * 7, 3);
    assert_eq!(r.stats.finished(), units);
    assert_eq!(r.stats.reconnects, lost);
    let failed: u64 = r.stats.by_kind.iter().map(|k| k.failed).sum();
    assert_eq!(failed, lost);
    // Each terminal deals odd, even, odd...: four odd units and three even ones of seven.
    let counted = |k: usize| r.stats.kind(k).committed + r.stats.kind(k).failed;
    assert_eq!((counted(1), counted(0)), (2 * 300 * 4, 2 * 300 * 3));
    let latencies: u64 = r.stats.by_kind.iter().map(|k| k.latency.len()).sum();
    assert_eq!(latencies, units - lost);
    // Two pools of three: six connections, and one more for each loss.
    assert_eq!(w.0.connects.load(Ordering::Relaxed), 6 + lost);
    assert_eq!((r.failed_vus, r.abandoned_calls), (0, 0));
}
