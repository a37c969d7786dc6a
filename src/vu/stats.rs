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
}
