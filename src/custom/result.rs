//! What a custom run measured, and its text: the iteration table and the client's CPU line,
//! pure functions of the result; and the result as a `bench::Outcome` (its lines, its job
//! record and its `lastrun()` map).

use std::time::Duration;

use rhai::Map;

use crate::bench::outcome::{live_record, run_value, timings, type_map, Outcome};
use crate::jobs::recorder::RunRecord;
use crate::vu::Stats;

/// The custom workload's one unit type.
pub const TYPE_NAMES: [&str; 1] = ["iteration"];

/// What a custom run measured.
#[derive(Debug, Clone)]
pub struct CustomResult {
    pub active_vus: u32,
    /// From the first virtual user's start to the last one's end.
    pub elapsed: Duration,
    /// Every iteration, by its one type.
    pub stats: Stats,
    /// The run ended early: Ctrl-C, or the server stayed away.
    pub stopped_early: Option<String>,
    /// Virtual users that finished FAILED.
    pub failed_vus: u32,
    /// The CPU time hammer's own process used during the run, where the platform tells.
    pub client_cpu: Option<Duration>,
    /// Statements still waiting for the server when the stopping run cut their connections.
    pub abandoned_calls: u64,
    /// The live view's intervals, when the run had one.
    pub series: Option<crate::vu::live::Series>,
}

impl CustomResult {
    /// Iterations that finished (succeeded or failed).
    pub fn iterations(&self) -> u64 {
        self.stats.finished()
    }

    /// The lines a run prints after its virtual users end.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec!["Iterations (hammer):".to_string()];
        lines.extend(table(&self.stats));
        lines.extend(crate::vu::stats::closing_lines(
            self.client_cpu,
            self.elapsed,
            self.iterations(),
            "iteration",
            self.stats.reconnects,
            self.stopped_early.as_deref(),
        ));
        lines
    }
}

impl CustomResult {
    fn figures(&self) -> crate::jobs::RunFigures {
        crate::jobs::RunFigures {
            nopm: None,
            tpm: None,
            active_vus: self.active_vus,
            seconds: self.elapsed.as_secs_f64(),
            failed_vus: self.failed_vus,
            reconnects: self.stats.reconnects,
            transactions: self.iterations(),
            client_cpu_seconds: self.client_cpu.map(|c| c.as_secs_f64()),
            stopped_early: self.stopped_early.clone(),
        }
    }
}

impl Outcome for CustomResult {
    fn lines(&self) -> Vec<String> {
        CustomResult::lines(self)
    }

    /// The same figures as a TPROC-C run's (no NOPM or TPM), and the iterations' timing;
    /// failed virtual users make the job FAILED (the recorder reads them from the figures).
    fn record(&self) -> RunRecord {
        RunRecord {
            figures: self.figures(),
            timings: timings(&TYPE_NAMES, &self.stats, false),
            live: self.series.as_ref().map(live_record),
            tpch: None,
            run: None,
        }
    }

    /// The keys of a TPROC-C run's (`nopm` and `tpm` are `()`, `transactions` counts
    /// iterations), and `iteration` with its counts and latencies.
    fn value(&self, id: &str) -> Map {
        let mut m = run_value(id, &self.figures(), self.abandoned_calls);
        for (name, s) in TYPE_NAMES.iter().zip(&self.stats.by_kind) {
            m.insert((*name).into(), type_map(s).into());
        }
        m
    }
}

/// Counts and latency percentiles of the iterations.
pub fn table(stats: &Stats) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<13} {:>10} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "UNIT", "SUCCEEDED", "FAILED", "P50 MS", "P95 MS", "P99 MS", "MAX MS"
    )];
    for (i, name) in TYPE_NAMES.iter().enumerate() {
        let s = &stats.by_kind[i];
        let ms = |q: f64| s.latency.value_at_quantile(q) as f64 / 1000.0;
        lines.push(format!(
            "{:<13} {:>10} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            name,
            s.committed,
            s.failed,
            ms(0.50),
            ms(0.95),
            ms(0.99),
            s.latency.max() as f64 / 1000.0
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_counts_iterations() {
        let mut stats = Stats::new(TYPE_NAMES.len());
        stats.by_kind[0].committed = 7;
        stats.by_kind[0].failed = 1;
        stats.by_kind[0].latency.record(1_500).unwrap();
        let t = table(&stats);
        assert!(
            t[0].starts_with("UNIT") && t[0].contains("SUCCEEDED"),
            "{t:?}"
        );
        assert!(
            t[1].starts_with("iteration") && t[1].contains(" 7 ") && t[1].contains(" 1.500 "),
            "{t:?}"
        );
    }
}
