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
    let mut last = started;
    let mut last_cpu = process_cpu();
    let mut last_reconnects = 0;
    let mut last_reading = read(&*w).await;
    let mut next = started + every;
    loop {
        let ending = tokio::select! {
            _ = tokio::time::sleep_until(next.into()) => false,
            _ = done.wait() => true,
        };
        let now = Instant::now();
        let seconds = now.duration_since(last).as_secs_f64();
        let (types, reconnects) = take(&vus, names.len());
        // The last, partial interval is kept when it says something.
        let idle = types.iter().all(|t| t.finished == 0) && reconnects == last_reconnects;
        if ending && idle && seconds < every.as_secs_f64() / 2.0 {
            break;
        }
        let reading = if ending { None } else { read(&*w).await };
        let rates = match (w.monitor(), &last_reading, &reading) {
            (Some(m), Some(a), Some(b)) => m.rates(a, b, Duration::from_secs_f64(seconds)),
            _ => Vec::new(),
        };
        let cpu = process_cpu();
        let (phase, remaining) = phase(&shared, timing, started, now);
        let interval = Interval {
            at: SystemTime::now(),
            elapsed: now.duration_since(started),
            seconds,
            phase,
            remaining,
            rates,
            types,
            reconnects: reconnects.saturating_sub(last_reconnects),
            client_cpu: cpu.zip(last_cpu).map(|(b, a)| b.saturating_sub(a)),
        };
        view.show(&interval, &series.intervals);
        series.intervals.push(interval);
        (last, last_cpu, last_reconnects) = (now, cpu, reconnects);
        if reading.is_some() {
            last_reading = reading;
        }
        if ending {
            break;
        }
        next += every;
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

/// One reading of the counters, bounded by the reply timeout; `None` without a monitor or
/// when it fails (the interval then shows no database rates).
async fn read<W: Workload>(w: &W) -> Option<<W::Monitor as Monitor>::Reading> {
    let m = w.monitor()?;
    tokio::time::timeout(w.reply_timeout(), m.read())
        .await
        .ok()?
        .ok()
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

/// Where the run is at `now`, and what is left of its measured window.
fn phase(
    shared: &Shared,
    timing: Option<Timing>,
    started: Instant,
    now: Instant,
) -> (Phase, Option<Duration>) {
    let Some(t) = timing else {
        return (Phase::Running, None);
    };
    let w = shared.window.lock().unwrap_or_else(|e| e.into_inner());
    match (w.start, w.end) {
        (_, Some(_)) => (Phase::Ending, Some(Duration::ZERO)),
        (Some(s), None) => (
            Phase::Measured,
            // (The window may have begun just after `now` was taken.)
            Some(
                (s + t.duration)
                    .saturating_duration_since(now)
                    .min(t.duration),
            ),
        ),
        (None, None) => (
            Phase::Rampup,
            Some((started + t.rampup + t.duration).saturating_duration_since(now)),
        ),
    }
}
