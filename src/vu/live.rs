//! The live view of a run: every `refresh` the runtime takes what each virtual user did in
//! the interval (per unit type: how many finished and failed, retries, the response times'
//! 95th percentile), reads the database's counters when the workload has a monitor (TPROC-C:
//! NOPM and TPM over the interval), and the client's own CPU time; shows it
//! ([`super::view`]) and keeps the series for the job.
//!
//! Units count here when they finish, rampup included, whatever the measured window: the
//! phase of each interval says where in the run it lies. The result's figures still come
//! from the monitor's two readings around the window alone.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

pub use super::interval::{Interval, Phase, Series, TypeInterval};
use super::say::Say;
use super::shared::Shared;
use super::stats::{process_cpu, Stats, Tally};
use super::view::View;
use super::workload::{Monitor, Workload};
use crate::interrupt::Interrupt;

/// How the view knows where a timed run is: its rampup and duration.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    pub rampup: Duration,
    pub duration: Duration,
}

/// The live view's task: one interval every `every` until `done` fires, then a last one for
/// what is left; returns the series.
///
/// The measured window's edges end an interval where they fall, and the intervals after an
/// edge are counted from it: the window's intervals then cover it exactly, from its start to
/// its end, each labelled by the phase it lies in, and sum to the run's counts (which count
/// what finished inside the window) but for the few units finishing as an edge is marked.
pub(super) async fn sample<W: Workload>(
    w: Arc<W>,
    shared: Arc<Shared>,
    vus: Vec<Arc<Mutex<Stats>>>,
    every: Duration,
    timing: Option<Timing>,
    say: Say,
    done: Interrupt,
) -> Series {
    let names = w.type_names();
    let mut view = View::new(&say, names, w.unit_word());
    let started = Instant::now();
    let mut series = Series {
        names: names.iter().map(|n| n.to_string()).collect(),
        ..Series::default()
    };
    let mut phase = if timing.is_some() {
        Phase::Rampup
    } else {
        Phase::Running
    };
    let mut last = started;
    let mut last_cpu = process_cpu();
    let mut last_reconnects = 0;
    let mut last_reading = read_at(&*w).await;
    let mut next = started + every;
    loop {
        // An edge already crossed is taken at once; `done` is looked at again next time.
        let woken_by_done = loop {
            if edge(&shared, phase).is_some() {
                break false;
            }
            let tick = tick(&shared, timing, phase, next, every);
            tokio::select! {
                _ = until(tick) => break false,
                // (Also news of an edge already taken: then nothing has changed.)
                _ = shared.window_moved.notified() => continue,
                _ = done.wait() => break true,
            }
        };
        let taken = Instant::now();
        let (types, reconnects) = take(&vus, names.len());
        let crossed = edge(&shared, phase);
        let ending = woken_by_done && crossed.is_none();
        // (An edge marked a moment before the last interval was taken counts from there.)
        let end = crossed.map_or(taken, |(at, _)| at.max(last).min(taken));
        let seconds = end.duration_since(last).as_secs_f64();
        // The last, partial interval is kept when it says something.
        let idle = types.iter().all(|t| t.finished == 0) && reconnects == last_reconnects;
        if ending && idle && seconds < every.as_secs_f64() / 2.0 {
            break;
        }
        let reading = if ending { None } else { read_at(&*w).await };
        let rates = match (w.monitor(), &last_reading, &reading) {
            // Over less than half an interval (a window's edge just after a tick) a rate is
            // the counters' granularity, not the database's pace.
            (Some(m), Some((a, from)), Some((b, to))) if *to - *from >= every / 2 => {
                m.rates(a, b, *to - *from)
            }
            _ => Vec::new(),
        };
        let cpu = process_cpu();
        let ago = taken.saturating_duration_since(end);
        let interval = Interval {
            at: SystemTime::now()
                .checked_sub(ago)
                .unwrap_or_else(SystemTime::now),
            elapsed: end.duration_since(started),
            seconds,
            phase,
            remaining: remaining(&shared, timing, phase, started, end),
            rates,
            types,
            reconnects: reconnects.saturating_sub(last_reconnects),
            client_cpu: cpu.zip(last_cpu).map(|(b, a)| b.saturating_sub(a)),
        };
        let own = w.interval_lines(&interval);
        view.show(&interval, &series.intervals, own);
        series.intervals.push(interval);
        (last, last_cpu, last_reconnects) = (end, cpu, reconnects);
        if reading.is_some() {
            last_reading = reading;
        }
        if ending {
            break;
        }
        match crossed {
            Some((at, after)) => {
                phase = after;
                next = at + every;
            }
            None => next += every,
        }
        // A view that fell behind (a slow counter reading) skips, not bunches.
        while next <= Instant::now() {
            next += every;
        }
    }
    view.close();
    let window = shared.window.lock().unwrap_or_else(|e| e.into_inner());
    series.window = window.start.map(|s| {
        (
            s.saturating_duration_since(started),
            window.end.map(|e| e.saturating_duration_since(started)),
        )
    });
    series
}

/// The window's edge the series has not yet passed in `phase`, if the monitor has marked
/// it: where it lies, and the phase after it.
fn edge(shared: &Shared, phase: Phase) -> Option<(Instant, Phase)> {
    let w = shared.window.lock().unwrap_or_else(|e| e.into_inner());
    match phase {
        Phase::Rampup => w.start.map(|s| (s, Phase::Measured)),
        Phase::Measured => w.end.map(|e| (e, Phase::Ending)),
        Phase::Ending | Phase::Running => None,
    }
}

/// One reading of the counters and when it came, bounded by the reply timeout; `None`
/// without a monitor or when it fails (the interval then shows no database rates).
async fn read_at<W: Workload>(w: &W) -> Option<(<W::Monitor as Monitor>::Reading, Instant)> {
    let m = w.monitor()?;
    let reading = tokio::time::timeout(w.reply_timeout(), m.read())
        .await
        .ok()?
        .ok()?;
    Some((reading, Instant::now()))
}

/// When the next interval ends by the clock: at `next`, except in the measured window when
/// `next` falls at (or within a tenth of an interval before) the window's planned end, where
/// the end itself ends the interval, not a tick a moment before it.
fn tick(
    shared: &Shared,
    timing: Option<Timing>,
    phase: Phase,
    next: Instant,
    every: Duration,
) -> Option<Instant> {
    let start = shared
        .window
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .start;
    match (phase, timing, start) {
        (Phase::Measured, Some(t), Some(s)) if next + every / 10 >= s + t.duration => None,
        _ => Some(next),
    }
}

/// Sleeps until `at`, or for ever.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// Takes and resets every virtual user's tallies: per type, and the reconnects so far.
fn take(vus: &[Arc<Mutex<Stats>>], types: usize) -> (Vec<TypeInterval>, u64) {
    let mut sum = Stats::tallies(types);
    let mut reconnects = 0;
    for vu in vus {
        let mut s = vu.lock().unwrap_or_else(|e| e.into_inner());
        reconnects += s.reconnects;
        for (into, from) in sum.iter_mut().zip(s.live.iter_mut()) {
            into.take_from(from);
        }
    }
    (sum.iter().map(of_tally).collect(), reconnects)
}

fn of_tally(t: &Tally) -> TypeInterval {
    TypeInterval {
        finished: t.finished,
        failed: t.failed,
        retried: t.retried,
        p95_us: (!t.latency.is_empty()).then(|| t.latency.value_at_quantile(0.95)),
    }
}

/// What is left of a timed run's measured window at `now`, in `phase`.
fn remaining(
    shared: &Shared,
    timing: Option<Timing>,
    phase: Phase,
    started: Instant,
    now: Instant,
) -> Option<Duration> {
    let t = timing?;
    let start = shared
        .window
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .start;
    match (phase, start) {
        (Phase::Running, _) => None,
        (Phase::Ending, _) => Some(Duration::ZERO),
        (Phase::Measured, Some(s)) => Some(
            (s + t.duration)
                .saturating_duration_since(now)
                .min(t.duration),
        ),
        (Phase::Rampup | Phase::Measured, _) => {
            Some((started + t.rampup + t.duration).saturating_duration_since(now))
        }
    }
}
