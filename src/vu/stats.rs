//! Measurement: per unit type counts and HDR latency histograms, kept by each virtual user
//! and merged at the end, and the client's own CPU time.
//!
//! A workload names its unit types (TPROC-C's five transactions, a query set's queries);
//! the statistics hold one [`TypeStats`] per type, in the workload's order.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Counts and latencies of one unit type.
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

    /// Units that finished: committed, rolled back or failed.
    pub fn finished(&self) -> u64 {
        self.committed + self.rolled_back + self.failed
    }
}

/// What one unit type did since the live view's last look, rampup included: taken and
/// reset at each of its intervals.
#[derive(Debug, Clone)]
pub struct Tally {
    /// Units that finished (committed, rolled back as asked, or failed).
    pub finished: u64,
    pub failed: u64,
    pub retried: u64,
    /// Response times in microseconds of the units that succeeded.
    pub latency: Histogram<u64>,
}

impl Tally {
    fn new() -> Self {
        Tally {
            finished: 0,
            failed: 0,
            retried: 0,
            latency: Histogram::new_with_bounds(1, 3_600_000_000, 2)
                .expect("valid histogram bounds"),
        }
    }

    /// Adds `other` and empties it.
    pub fn take_from(&mut self, other: &mut Tally) {
        self.finished += other.finished;
        self.failed += other.failed;
        self.retried += other.retried;
        let _ = self.latency.add(&other.latency);
        other.finished = 0;
        other.failed = 0;
        other.retried = 0;
        other.latency.reset();
    }
}

/// One terminal's or one run's statistics, by unit type.
#[derive(Debug, Clone)]
pub struct Stats {
    pub by_kind: Vec<TypeStats>,
    /// Lost connections that were reconnected.
    pub reconnects: u64,
    /// Per unit type, what happened since the live view last looked; empty when the run has
    /// no live view.
    pub live: Vec<Tally>,
}

impl Stats {
    /// Empty statistics for a workload of `types` unit types.
    pub fn new(types: usize) -> Self {
        Stats {
            by_kind: (0..types).map(|_| TypeStats::new()).collect(),
            reconnects: 0,
            live: Vec::new(),
        }
    }

    /// Empty statistics that also keep tallies for a live view.
    pub fn with_live(types: usize) -> Self {
        Stats {
            live: Self::tallies(types),
            ..Self::new(types)
        }
    }

    /// Empty tallies for `types` unit types.
    pub fn tallies(types: usize) -> Vec<Tally> {
        (0..types).map(|_| Tally::new()).collect()
    }

    pub fn merge(&mut self, other: &Stats) {
        for (a, b) in self.by_kind.iter_mut().zip(&other.by_kind) {
            a.merge(b);
        }
        self.reconnects += other.reconnects;
    }

    /// One type's statistics: a workload's unit type converts into its index.
    pub fn kind(&self, k: impl Into<usize>) -> &TypeStats {
        &self.by_kind[k.into()]
    }

    /// Units that finished, over every type.
    pub fn finished(&self) -> u64 {
        self.by_kind.iter().map(TypeStats::finished).sum()
    }
}

/// The CPU time (user and system) this process has used so far.
pub fn process_cpu() -> Option<Duration> {
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

/// Fewer units than this give no per-unit CPU figure: the process's CPU clock ticks in
/// milliseconds (Linux: ten), so a handful of units would read as free or as noise.
pub const CPU_PER_UNIT_MIN: u64 = 100;

/// What the client cost over `window`, e.g. `Client CPU: 1.02 s in 30.0 s (1.7 % of 2 CPUs),
/// 10.4 us per transaction`, with `unit` naming what was counted. The per-unit figure keeps
/// at least three significant digits (`0.0523 us`) and one decimal (`110.1 us`), and is
/// `n/a` below [`CPU_PER_UNIT_MIN`] units or when no CPU time was measured. None without a
/// window or a unit.
pub fn client_cpu_line(
    cpu: Duration,
    window: Duration,
    units: u64,
    cpus: usize,
    unit: &str,
) -> Option<String> {
    let (cpu, window) = (cpu.as_secs_f64(), window.as_secs_f64());
    if window <= 0.0 || units == 0 {
        return None;
    }
    let per = if units < CPU_PER_UNIT_MIN {
        let units = match unit.strip_suffix('y') {
            Some(stem) => format!("{stem}ies"),
            None => format!("{unit}s"),
        };
        format!("n/a per {unit} (fewer than {CPU_PER_UNIT_MIN} {units})")
    } else if cpu <= 0.0 {
        format!("n/a per {unit} (less CPU time than the clock resolves)")
    } else {
        let us = 1e6 * cpu / units as f64;
        let decimals = (2 - us.log10().floor() as i32).clamp(1, 9) as usize;
        format!("{us:.decimals$} us per {unit}")
    };
    Some(format!(
        "Client CPU: {cpu:.2} s in {window:.1} s ({:.1} % of {cpus} CPUs), {per}",
        100.0 * cpu / (window * cpus as f64),
    ))
}

/// The lines every run ends with, whatever its workload: the client's CPU per `unit` over the
/// window (see [`client_cpu_line`]), the lost connections reconnected, and why the run ended
/// early, each only when there is something to say.
pub fn closing_lines(
    client_cpu: Option<Duration>,
    window: Duration,
    units: u64,
    unit: &str,
    reconnects: u64,
    stopped_early: Option<&str>,
) -> Vec<String> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut lines: Vec<String> = client_cpu
        .and_then(|cpu| client_cpu_line(cpu, window, units, cpus, unit))
        .into_iter()
        .collect();
    if reconnects > 0 {
        lines.push(format!("Lost connections reconnected: {reconnects}"));
    }
    if let Some(why) = stopped_early {
        lines.push(format!("The run ended early: {why}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_merge_by_type() {
        let mut a = Stats::new(2);
        a.by_kind[0].committed = 3;
        a.by_kind[0].latency.record(1_500).unwrap();
        let mut b = Stats::new(2);
        b.by_kind[0].committed = 2;
        b.by_kind[0].rolled_back = 1;
        b.by_kind[1].failed = 4;
        b.by_kind[0].latency.record(3_000).unwrap();
        b.reconnects = 2;
        a.merge(&b);
        let first = a.kind(0usize);
        assert_eq!(
            (first.committed, first.rolled_back, first.latency.len()),
            (5, 1, 2)
        );
        assert_eq!((a.finished(), a.reconnects), (10, 2));
    }

    #[test]
    fn the_client_cpu_line_is_never_falsely_free() {
        let line = |ms: u64, units: u64| {
            client_cpu_line(
                Duration::from_millis(ms),
                Duration::from_secs(30),
                units,
                2,
                "transaction",
            )
        };
        // The figures TPROC-C's runs print keep their shape.
        assert_eq!(
            line(1020, 98_077).as_deref(),
            Some("Client CPU: 1.02 s in 30.0 s (1.7 % of 2 CPUs), 10.4 us per transaction")
        );
        assert_eq!(
            line(11_010, 100_000).unwrap(),
            "Client CPU: 11.01 s in 30.0 s (18.4 % of 2 CPUs), 110.1 us per transaction"
        );
        // Small figures keep three significant digits instead of rounding to 0.0.
        assert!(
            line(10, 191_000)
                .unwrap()
                .ends_with(", 0.0524 us per transaction"),
            "{:?}",
            line(10, 191_000)
        );
        assert!(line(20, 10_000)
            .unwrap()
            .ends_with(", 2.00 us per transaction"));
        // Too few units, or no CPU time measured: no figure at all.
        assert!(line(10, 99)
            .unwrap()
            .ends_with(", n/a per transaction (fewer than 100 transactions)"));
        assert!(line(0, 5_000)
            .unwrap()
            .ends_with(", n/a per transaction (less CPU time than the clock resolves)"));
        assert_eq!(line(10, 0), None);
        assert_eq!(
            client_cpu_line(Duration::from_secs(1), Duration::ZERO, 500, 2, "x"),
            None
        );
    }
}
