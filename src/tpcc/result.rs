//! TPROC-C's result and its text: the TEST RESULT line and the per-transaction table, pure
//! functions of plain values (the run prints them, `jobs` re-prints the TEST RESULT line from
//! what it stored). The client's CPU line is `vu::stats`', shared by every workload.

use std::time::Duration;

use super::inputs::Kind;
use super::txn::{Lag, LagReading};
use crate::vu::Stats;

/// What the monitor's two readings give.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub nopm: f64,
    pub tpm: f64,
    /// Each schema's share, with several (`*_schemas`); empty with one.
    pub schemas: Vec<super::schemas::SchemaFigures>,
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
    /// When the measured window began, on this process's clock.
    pub measured_from: Option<std::time::Instant>,
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
    /// Where each transaction type ran when it did not all run on the terminals' own
    /// connections (servers for reads, the connect pool), and the replicas' lag.
    pub routing: Routing,
    /// Each schema's figures, with several (`*_schemas`, timed runs); empty with one.
    pub schemas: Vec<super::schemas::SchemaFigures>,
}

/// Where transactions went among the terminals' connections, and what the replicas said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Routing {
    /// Each connection slot a terminal has (its own, its reads', the pool's named ones, in
    /// `links::Which::slot`'s order), when any terminal opened it.
    pub slots: Vec<Slot>,
    /// The connect pool was on.
    pub pool: bool,
    /// How far each server for reads was behind at the end.
    pub lag: Vec<Lag>,
    /// HammerDB's client-side cross-check in connect-pool mode: each type's completed
    /// transactions per minute over rampup and the measured time, in [`Kind::ALL`]'s order.
    pub client_tpm: Option<[f64; 5]>,
}

/// One of a terminal's connections, over all terminals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slot {
    /// `own`, `reads`, or the pool connection's id.
    pub name: String,
    /// The servers the terminals' connections of this slot reached first, with how many
    /// terminals each.
    pub nodes: Vec<(String, u32)>,
    /// Transactions completed there per type, in [`Kind::ALL`]'s order.
    pub done: [u64; 5],
}

impl Slot {
    /// `127.0.0.1:5433 (4 terminals), 127.0.0.1:5434 (2 terminals)`.
    fn where_(&self) -> String {
        self.nodes
            .iter()
            .map(|(node, n)| format!("{node} ({n} terminal{})", if *n == 1 { "" } else { "s" }))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// HammerDB's names of the five in the pool's words, in [`Kind::ALL`]'s order.
const POOL_NAMES: [&str; 5] = crate::config::pool::TRANSACTIONS;
impl Routing {
    /// The lines after the table: where each type ran, the replicas' lag; in connect-pool
    /// mode each connection's transactions and HammerDB's `CLIENT SIDE TPM` line.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let slot = |name: &str| self.slots.iter().find(|s| s.name == name);
        if self.pool {
            for s in &self.slots {
                if s.done.iter().all(|d| *d == 0) {
                    continue;
                }
                let counts: Vec<String> = POOL_NAMES
                    .iter()
                    .zip(s.done)
                    .filter(|(_, d)| *d > 0)
                    .map(|(t, d)| format!("{t} {d}"))
                    .collect();
                let name = if s.name == "own" {
                    "the terminals' own connections".to_string()
                } else {
                    format!("connection {}", s.name)
                };
                lines.push(format!(
                    "Connect pool {name} on {}: {}",
                    s.where_(),
                    counts.join(", ")
                ));
            }
        } else if let (Some(reads), Some(own)) = (slot("reads"), slot("own")) {
            lines.push(format!(
                "Order-Status, Stock-Level ran on {}; New-Order, Payment, Delivery on {}",
                reads.where_(),
                own.where_()
            ));
        }
        for lag in &self.lag {
            lines.push(lag_line(lag));
        }
        if let Some(tpm) = self.client_tpm {
            let parts: Vec<String> = POOL_NAMES
                .iter()
                .zip(tpm)
                .map(|(t, v)| format!("{t} {}", v.round() as u64))
                .collect();
            lines.push(format!("CLIENT SIDE TPM : {}", parts.join(" ")));
        }
        lines
    }
}

/// `Replay lag at the end: 127.0.0.1:5433 0.012 s behind (its last replayed commit)`.
pub fn lag_line(lag: &Lag) -> String {
    let what = match &lag.reading {
        LagReading::Behind {
            seconds,
            bytes,
            source,
        } => {
            let secs = match seconds {
                Some(s) => format!("{s:.3} s behind"),
                None => "no lag reported".to_string(),
            };
            let bytes = bytes.map_or(String::new(), |b| format!(", {b} bytes of WAL to replay"));
            format!("{secs}{bytes} ({source})")
        }
        LagReading::NotReplica => "is not a replica: no replay lag".to_string(),
        LagReading::Unknown(why) => format!("unknown: {why}"),
    };
    format!("Replay lag at the end: {} {what}", lag.server)
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
