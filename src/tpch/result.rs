//! TPROC-H's result and its text: what each query set and refresh took, the geometric mean
//! HammerDB prints, and the specification's power and throughput figures (hammer's, not an
//! official result). Plain data and pure functions: the run prints them, `jobs` re-prints
//! them from what it stored.

use std::time::Duration;

use crate::vu::Stats;

/// One query of a query set as it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRun {
    /// The query's number, 1 to 22.
    pub query: u8,
    /// Its position in the stream's order, 1 to 22.
    pub position: u8,
    pub seconds: f64,
    /// Rows it returned (0 for a failed query).
    pub rows: u64,
    /// The server's error, when it failed (and `*_raise_query_error` was false).
    pub error: Option<String>,
}

/// One query set (a stream's 22 queries) of one virtual user.
#[derive(Debug, Clone, PartialEq)]
pub struct QuerySet {
    /// The `Vuser N` that ran it.
    pub vu: u32,
    /// The TPC-H stream whose order it followed: 0 for the power test, 1.. for the
    /// throughput test's streams.
    pub stream: u32,
    /// Which of the virtual user's sets, from 1.
    pub set: u32,
    /// The queries that ran, in the order they ran; fewer than 22 when the run stopped.
    pub queries: Vec<QueryRun>,
    /// Wall time of the whole set.
    pub seconds: f64,
}

impl QuerySet {
    /// All 22 queries ran.
    pub fn complete(&self) -> bool {
        self.queries.len() == 22
    }

    /// HammerDB's figure: the geometric mean of the times of the queries that returned
    /// rows, and how many those were; `None` when none did.
    pub fn geomean(&self) -> Option<(usize, f64)> {
        geomean(
            self.queries
                .iter()
                .filter(|q| q.rows > 0 && q.error.is_none())
                .map(|q| q.seconds),
        )
    }
}

/// The two refresh functions (TPC-H clause 2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    /// RF1: new sales, inserts into ORDERS and LINEITEM.
    NewSales,
    /// RF2: old sales, deletes from ORDERS and LINEITEM.
    OldSales,
}

impl Refresh {
    /// HammerDB's words: `New Sales refresh`, `Old Sales refresh`.
    pub fn name(self) -> &'static str {
        match self {
            Refresh::NewSales => "New Sales refresh",
            Refresh::OldSales => "Old Sales refresh",
        }
    }

    /// The specification's name: `RF1`, `RF2`.
    pub fn short(self) -> &'static str {
        match self {
            Refresh::NewSales => "RF1",
            Refresh::OldSales => "RF2",
        }
    }
}

/// One refresh function as it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct RefreshRun {
    pub vu: u32,
    /// Which refresh pair (update set), from 1.
    pub pair: u32,
    pub function: Refresh,
    pub seconds: f64,
    /// Rows inserted or deleted (orders and line items together).
    pub rows: u64,
    pub error: Option<String>,
}

/// What a TPROC-H run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The scale factor of the schema it ran on.
    pub scale_factor: f64,
    /// Every query set, complete or not, in the order they ended.
    pub sets: Vec<QuerySet>,
    /// Every refresh function, in the order they ran.
    pub refreshes: Vec<RefreshRun>,
    /// Virtual users that ran query streams (not the refresh stream).
    pub query_streams: u32,
    pub active_vus: u32,
    /// From the first virtual user's start to the last one's end.
    pub elapsed: Duration,
    /// Per query (`query 1` .. `query 22`) and refresh function: counts and latencies.
    pub stats: Stats,
    /// The run ended early: Ctrl-C, or the server stayed away.
    pub stopped_early: Option<String>,
    /// Virtual users that finished FAILED.
    pub failed_vus: u32,
    /// The CPU time hammer's own process used during the run, where the platform tells.
    pub client_cpu: Option<Duration>,
    /// Calls still waiting for the server when the stopping run cut their connections.
    pub abandoned_calls: u64,
    /// The live view's intervals, when the run had one.
    pub series: Option<crate::vu::live::Series>,
}

impl RunResult {
    /// Queries run (each query of each set, failed ones included).
    pub fn queries(&self) -> u64 {
        self.sets.iter().map(|s| s.queries.len() as u64).sum()
    }

    /// Query sets that ran all 22 queries.
    pub fn complete_sets(&self) -> u32 {
        self.sets.iter().filter(|s| s.complete()).count() as u32
    }

    /// The geometric mean over every query of every set that returned rows (the figure a
    /// job is ranked by), with how many queries it covers.
    pub fn geomean(&self) -> Option<(usize, f64)> {
        geomean(
            self.sets
                .iter()
                .flat_map(|s| &s.queries)
                .filter(|q| q.rows > 0 && q.error.is_none())
                .map(|q| q.seconds),
        )
    }

    /// The sum of every query's time: HammerDB's `querytime`.
    pub fn query_seconds(&self) -> f64 {
        self.sets
            .iter()
            .flat_map(|s| &s.queries)
            .map(|q| q.seconds)
            .sum()
    }
}

/// The geometric mean of some positive times, and how many there were; `None` for none.
/// A time of 0 (a query faster than the clock) counts as a microsecond, so that one fast
/// query cannot make the mean 0.
pub fn geomean(times: impl Iterator<Item = f64>) -> Option<(usize, f64)> {
    let (mut n, mut logs) = (0usize, 0.0f64);
    for t in times {
        n += 1;
        logs += t.max(1e-6).ln();
    }
    (n > 0).then(|| (n, (logs / n as f64).exp()))
}

/// HammerDB's per-set line: `Geometric mean of query times returning rows (22) is 0.43356`.
pub fn geomean_line(count: usize, mean: f64) -> String {
    format!("Geometric mean of query times returning rows ({count}) is {mean:.5}")
}

/// HammerDB's line at a virtual user's end: `Completed 1 query set(s) in 34 seconds`.
pub fn completed_line(sets: u32, seconds: f64) -> String {
    format!(
        "Completed {sets} query set(s) in {} seconds",
        seconds.round() as u64
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometric_mean_counts_only_queries_that_returned_rows() {
        let q = |query, seconds, rows| QueryRun {
            query,
            position: query,
            seconds,
            rows,
            error: None,
        };
        let set = QuerySet {
            vu: 1,
            stream: 0,
            set: 1,
            queries: vec![q(1, 2.0, 4), q(2, 8.0, 100), q(3, 50.0, 0)],
            seconds: 60.0,
        };
        let (n, g) = set.geomean().unwrap();
        assert_eq!(n, 2);
        assert!((g - 4.0).abs() < 1e-9, "{g}");
        assert_eq!(
            geomean_line(n, g),
            "Geometric mean of query times returning rows (2) is 4.00000"
        );
        assert_eq!(geomean(std::iter::empty()), None);
        assert_eq!(
            completed_line(1, 33.6),
            "Completed 1 query set(s) in 34 seconds"
        );
    }
}
