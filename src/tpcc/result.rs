//! TPROC-C's result and its text: the TEST RESULT line and the per-transaction table, pure
//! functions of plain values (the run prints them, `jobs` re-prints the TEST RESULT line from
//! what it stored). The client's CPU line is `vu::stats`', shared by every workload.

use std::time::Duration;

use super::inputs::Kind;
use crate::vu::Stats;

/// What the monitor's two readings give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub nopm: f64,
    pub tpm: f64,
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
    /// The live view's intervals, when the run had one.
    pub series: Option<crate::vu::live::Series>,
    /// Where the terminals ran and what each lost server cost.
    pub nodes: crate::vu::nodes::NodeReport,
    /// After a run that lost connections: the acknowledged New-Orders the server that
    /// answers now lacks, or why they could not be compared.
    pub failover: Option<std::result::Result<super::acked::Lost, String>>,
}

impl RunResult {
    /// Transactions the terminals finished in the window (committed, rolled back, failed).
    pub fn transactions(&self) -> u64 {
        self.stats.finished()
    }
}

/// HammerDB's result line, which the job history prints the same way for a recorded run.
pub use crate::jobs::text::test_result;

/// The table printed after a run: counts and latency percentiles per transaction type.
pub fn table(stats: &Stats) -> Vec<String> {
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
        let s = stats.kind(k);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_merge_and_render() {
        let mut a = Stats::new(Kind::ALL.len());
        a.by_kind[Kind::NewOrder.index()].committed = 3;
        a.by_kind[Kind::NewOrder.index()]
            .latency
            .record(1_500)
            .unwrap();
        let mut b = Stats::new(Kind::ALL.len());
        b.by_kind[Kind::NewOrder.index()].committed = 2;
        b.by_kind[Kind::NewOrder.index()].rolled_back = 1;
        b.by_kind[Kind::NewOrder.index()]
            .latency
            .record(3_000)
            .unwrap();
        a.merge(&b);
        let no = a.kind(Kind::NewOrder);
        assert_eq!((no.committed, no.rolled_back, no.latency.len()), (5, 1, 2));
        let table = table(&a);
        assert!(table[0].starts_with("TRANSACTION"));
        assert!(
            table[1].starts_with("new order") && table[1].contains(" 1.500 "),
            "{}",
            table[1]
        );
    }

    #[test]
    fn the_result_line_in_either_order() {
        assert_eq!(
            test_result("PostgreSQL", 1234.4, 5678.6, true),
            "TEST RESULT : System achieved 1234 NOPM from 5679 PostgreSQL TPM"
        );
        assert_eq!(
            test_result("MariaDB", 10.0, 20.0, false),
            "TEST RESULT : System achieved 20 MariaDB TPM at 10 NOPM"
        );
    }
}
