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

/// One answer compared with the published answer set (a run with `*_validate`).
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerCheck {
    pub vu: u32,
    pub set: u32,
    pub query: u8,
    /// `Err` says the first difference.
    pub outcome: Result<(), String>,
}

/// What a TPROC-H run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The scale factor of the schema it ran on.
    pub scale_factor: f64,
    /// One virtual user: TPC-H's power test (stream 0); more: its throughput test.
    pub power_test: bool,
    /// The answers compared with the answer set, when the run validated them.
    pub checked: Vec<AnswerCheck>,
    /// QphH@Size, when the session holds a power test on the same database and scale factor
    /// before this throughput test (set by the session, which keeps that power test).
    pub qphh: Option<f64>,
    /// Every query set, complete or not, in the order they ended.
    pub sets: Vec<QuerySet>,
    /// Every refresh function, in the order they ran.
    pub refreshes: Vec<RefreshRun>,
    /// Virtual users that ran query streams (not the refresh stream).
    pub query_streams: u32,
    pub active_vus: u32,
    /// From the run's start (its schema check included) to the last virtual user's end.
    pub elapsed: Duration,
    /// The streams' own time: from the first query or refresh function's start to the last
    /// one's end (TPC-H's Ts, clause 5.3.7.4, for a throughput test).
    pub streams: Duration,
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
    /// job is ranked by), with how many queries it covers. A stopped run's covers its
    /// complete sets only: the few queries of a set cut short are no run's figure.
    pub fn geomean(&self) -> Option<(usize, f64)> {
        geomean(
            self.sets
                .iter()
                .filter(|s| self.stopped_early.is_none() || s.complete())
                .flat_map(|s| &s.queries)
                .filter(|q| q.rows > 0 && q.error.is_none())
                .map(|q| q.seconds),
        )
    }

    /// TPC-H's Power@Size (clause 5.4.1) of the power test's first complete query set:
    /// 3600 × SF over the geometric mean of its 22 query times and, when the refresh functions
    /// ran around it, the two refresh times (each time at least a thousandth of the longest,
    /// as the clause says). `None` for a throughput test, without a complete set, or for a
    /// run that stopped early; the flag says whether the refresh functions were in it.
    pub fn power_at_size(&self) -> Option<(f64, bool)> {
        if !self.power_test || self.stopped_early.is_some() {
            return None;
        }
        let set = self.sets.iter().find(|s| s.complete() && s.stream == 0)?;
        if set.queries.iter().any(|q| q.error.is_some()) {
            return None;
        }
        let mut times: Vec<f64> = set.queries.iter().map(|q| q.seconds).collect();
        let rf = |f| {
            self.refreshes
                .iter()
                .find(|r| r.pair == set.set && r.function == f && r.error.is_none())
                .map(|r| r.seconds)
        };
        let refreshed = match (rf(Refresh::NewSales), rf(Refresh::OldSales)) {
            (Some(a), Some(b)) => {
                times.extend([a, b]);
                true
            }
            _ => false,
        };
        let longest = times.iter().cloned().fold(0.0, f64::max);
        let floor = longest / 1000.0;
        let (_, mean) = geomean(times.into_iter().map(|t| t.max(floor)))?;
        Some((3600.0 * self.scale_factor / mean, refreshed))
    }

    /// TPC-H's Throughput@Size (clause 5.4.2) of a throughput test: complete query sets × 22
    /// × 3600 over the streams' seconds (Ts), × SF. `None` for a power test, without a
    /// complete set, or for a run that stopped early (its streams have no end to time).
    pub fn throughput_at_size(&self) -> Option<f64> {
        let sets = self.complete_sets();
        let secs = self.streams.as_secs_f64();
        (!self.power_test && self.stopped_early.is_none() && sets > 0 && secs > 0.0)
            .then(|| f64::from(sets) * 22.0 * 3600.0 / secs * self.scale_factor)
    }

    /// The sum of every query's time: HammerDB's `querytime`.
    pub fn query_seconds(&self) -> f64 {
        self.sets
            .iter()
            .flat_map(|s| &s.queries)
            .map(|q| q.seconds)
            .sum()
    }

    /// The sets the run stopped inside, as partial: each line says how far its set got.
    pub fn partial_lines(&self) -> Vec<String> {
        let streams = self
            .sets
            .iter()
            .map(|s| s.vu)
            .collect::<std::collections::HashSet<_>>();
        self.sets
            .iter()
            .filter(|s| !s.complete())
            .map(|s| {
                let whose = if streams.len() > 1 {
                    format!("Vuser {} ", s.vu)
                } else {
                    String::new()
                };
                format!(
                    "partial: {whose}stopped after {} of 22 queries of query set {}",
                    s.queries.len(),
                    s.set
                )
            })
            .collect()
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

/// The lines after a run: what ran, the geometric mean, the specification's figures
/// (labelled as hammer's), each query's times, the refresh functions, the answers checked,
/// the client's CPU, and anything that went wrong.
pub fn summary(r: &RunResult, db: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let sf = super::shown(r.scale_factor);
    let test = if r.power_test {
        "power test".to_string()
    } else {
        format!("throughput test, {} query streams", r.query_streams)
    };
    lines.push(format!(
        "TPROC-H on {db}, scale factor {sf}, {test}: {} complete query set(s), {} queries, {:.3} s of query time in {:.1} s",
        r.complete_sets(),
        r.queries(),
        r.query_seconds(),
        r.elapsed.as_secs_f64()
    ));
    let partial = r.partial_lines();
    match r.geomean() {
        Some((n, g)) if r.stopped_early.is_some() => lines.push(format!(
            "{} (of the complete query sets)",
            geomean_line(n, g)
        )),
        Some((n, g)) => lines.push(geomean_line(n, g)),
        None if r.stopped_early.is_some() => lines.push(
            "Stopped before a query set was complete: no geometric mean, Power@Size or QphH".into(),
        ),
        None => lines.push("No query returned rows: no geometric mean".into()),
    }
    lines.extend(partial);
    if let Some((power, refreshed)) = r.power_at_size() {
        let with = if refreshed {
            "with RF1 and RF2"
        } else {
            "without the refresh functions, which the specification's figure includes"
        };
        lines.push(format!(
            "Power@Size {power:.1} ({with}; hammer's figure, not an official TPC-H result)"
        ));
    }
    if let Some(t) = r.throughput_at_size() {
        lines.push(format!(
            "Throughput@Size {t:.1} ({} query sets in {:.1} s; hammer's figure, not an official TPC-H result)",
            r.complete_sets(),
            r.streams.as_secs_f64()
        ));
    }
    lines.extend(query_table(r));
    if !r.checked.is_empty() {
        let bad: Vec<&AnswerCheck> = r.checked.iter().filter(|c| c.outcome.is_err()).collect();
        lines.push(format!(
            "Answers checked against the published answer set at scale factor {sf}: {} of {} match",
            r.checked.len() - bad.len(),
            r.checked.len()
        ));
        for c in bad {
            if let Err(why) = &c.outcome {
                lines.push(format!(
                    "Vuser {} set {} query {} answer differs: {why}",
                    c.vu, c.set, c.query
                ));
            }
        }
    }
    let failed = r
        .sets
        .iter()
        .flat_map(|s| &s.queries)
        .filter(|q| q.error.is_some())
        .count();
    if failed > 0 {
        lines.push(format!(
            "{failed} quer{} failed (counted, not in the geometric mean)",
            if failed == 1 { "y" } else { "ies" }
        ));
    }
    lines.extend(crate::vu::stats::closing_lines(
        r.client_cpu,
        r.elapsed,
        r.queries(),
        "query",
        r.stats.reconnects,
        r.stopped_early.as_deref(),
    ));
    lines
}

/// Each query's and refresh function's times over the run's sets.
fn query_table(r: &RunResult) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<18} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9}",
        "QUERY", "RUNS", "FAILED", "MIN S", "MEAN S", "MAX S", "ROWS"
    )];
    let row = |name: String, times: Vec<f64>, failed: usize, rows: Option<u64>| {
        let n = times.len();
        let (min, max) = times
            .iter()
            .fold((f64::MAX, 0.0f64), |(a, b), t| (a.min(*t), b.max(*t)));
        let mean = times.iter().sum::<f64>() / n.max(1) as f64;
        let shown = |v: f64| {
            if n == 0 {
                "-".to_string()
            } else {
                format!("{v:.3}")
            }
        };
        format!(
            "{:<18} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9}",
            name,
            n + failed,
            failed,
            shown(min),
            shown(mean),
            shown(max),
            rows.map_or("-".to_string(), |r| r.to_string())
        )
    };
    for q in 1..=22u8 {
        let runs: Vec<&QueryRun> = r
            .sets
            .iter()
            .flat_map(|s| &s.queries)
            .filter(|x| x.query == q)
            .collect();
        if runs.is_empty() {
            continue;
        }
        let ok: Vec<&&QueryRun> = runs.iter().filter(|x| x.error.is_none()).collect();
        lines.push(row(
            format!("query {q}"),
            ok.iter().map(|x| x.seconds).collect(),
            runs.len() - ok.len(),
            ok.last().map(|x| x.rows),
        ));
    }
    for f in [Refresh::NewSales, Refresh::OldSales] {
        let runs: Vec<&RefreshRun> = r.refreshes.iter().filter(|x| x.function == f).collect();
        if runs.is_empty() {
            continue;
        }
        let ok: Vec<&&RefreshRun> = runs.iter().filter(|x| x.error.is_none()).collect();
        lines.push(row(
            format!(
                "{} {}",
                f.short(),
                if f == Refresh::NewSales {
                    "new sales"
                } else {
                    "old sales"
                }
            ),
            ok.iter().map(|x| x.seconds).collect(),
            runs.len() - ok.len(),
            ok.last().map(|x| x.rows),
        ));
    }
    lines
}

/// QphH@Size (clause 5.4.3): the geometric mean of Power@Size and Throughput@Size.
pub fn qphh(power: f64, throughput: f64) -> f64 {
    (power * throughput).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of `sets` complete sets of 22 queries of `secs` seconds each.
    fn run(power_test: bool, sets: u32, secs: f64, refresh: Option<(f64, f64)>) -> RunResult {
        let set = |n: u32| QuerySet {
            vu: n,
            stream: if power_test { 0 } else { n },
            set: 1,
            queries: (1..=22)
                .map(|q| QueryRun {
                    query: q,
                    position: q,
                    seconds: secs,
                    rows: 1,
                    error: None,
                })
                .collect(),
            seconds: 22.0 * secs,
        };
        let refreshes = refresh.map_or(Vec::new(), |(a, b)| {
            [(Refresh::NewSales, a), (Refresh::OldSales, b)]
                .into_iter()
                .map(|(function, seconds)| RefreshRun {
                    vu: 1,
                    pair: 1,
                    function,
                    seconds,
                    rows: 10,
                    error: None,
                })
                .collect()
        });
        RunResult {
            scale_factor: 10.0,
            power_test,
            checked: Vec::new(),
            qphh: None,
            sets: (1..=sets).map(set).collect(),
            refreshes,
            query_streams: sets,
            active_vus: sets,
            elapsed: Duration::from_secs(200),
            streams: Duration::from_secs(100),
            stats: Stats::new(24),
            stopped_early: None,
            failed_vus: 0,
            client_cpu: None,
            abandoned_calls: 0,
            series: None,
        }
    }

    #[test]
    fn the_specifications_figures() {
        // Power@Size = 3600 * SF / geometric mean of the 22 queries and 2 refresh functions.
        let (p, refreshed) = run(true, 1, 2.0, Some((2.0, 2.0))).power_at_size().unwrap();
        assert!(refreshed);
        assert!((p - 3600.0 * 10.0 / 2.0).abs() < 1e-6, "{p}");
        let (p, refreshed) = run(true, 1, 4.0, None).power_at_size().unwrap();
        assert!(!refreshed);
        assert!((p - 9000.0).abs() < 1e-6, "{p}");
        // A time under a thousandth of the longest counts as that thousandth (clause 5.4.1.4).
        let mut r = run(true, 1, 1.0, None);
        r.sets[0].queries[0].seconds = 0.0;
        r.sets[0].queries[1].seconds = 1000.0;
        let (p, _) = r.power_at_size().unwrap();
        let mean = ((1.0f64.ln() + 1000.0f64.ln()) / 22.0).exp();
        assert!((p - 36000.0 / mean).abs() < 1e-6, "{p} {mean}");
        assert_eq!(r.throughput_at_size(), None);
        // Throughput@Size = sets * 22 * 3600 / Ts * SF, Ts the streams' own time.
        let t = run(false, 3, 1.0, None).throughput_at_size().unwrap();
        assert!((t - 3.0 * 22.0 * 3600.0 / 100.0 * 10.0).abs() < 1e-6, "{t}");
        assert_eq!(run(false, 3, 1.0, None).power_at_size(), None);
        assert!((qphh(400.0, 100.0) - 200.0).abs() < 1e-9);
    }

    /// A power test stopped after 5 of its 22 queries: what it completed, as partial, and
    /// no figure of a whole run (no geometric mean, Power@Size, Throughput@Size or QphH).
    #[test]
    fn a_stopped_power_test_says_what_it_completed_as_partial() {
        let mut r = run(true, 1, 2.0, Some((1.0, 1.0)));
        r.sets[0].queries.truncate(5);
        r.refreshes.truncate(1);
        r.stopped_early = Some("stopped by Ctrl-C".into());
        assert_eq!(r.geomean(), None);
        assert_eq!(r.power_at_size(), None);
        let text = summary(&r, "PostgreSQL").join("\n");
        assert!(
            text.contains("partial: stopped after 5 of 22 queries of query set 1"),
            "{text}"
        );
        assert!(
            text.contains("no geometric mean, Power@Size or QphH"),
            "{text}"
        );
        for never in [
            "Geometric mean of query times",
            "Power@Size",
            "QphH@Size",
            "TEST RESULT",
        ] {
            assert!(
                !text.lines().any(|l| l.starts_with(never)),
                "{never} in {text}"
            );
        }
        // Each query it ran, with its time.
        assert!(text.contains("query 5 "), "{text}");
        assert!(!text.contains("query 6 "), "{text}");
        assert!(
            text.contains("The run ended early: stopped by Ctrl-C"),
            "{text}"
        );

        // A throughput test stopped with one stream's set complete: that set's geometric
        // mean, said to be of the complete sets, and no Throughput@Size.
        let mut r = run(false, 2, 1.0, None);
        r.sets[1].queries.truncate(3);
        r.stopped_early = Some("stopped by Ctrl-C".into());
        assert_eq!(r.geomean().map(|(n, _)| n), Some(22));
        assert_eq!(r.throughput_at_size(), None);
        let text = summary(&r, "MariaDB").join("\n");
        assert!(
            text.contains("Geometric mean of query times returning rows (22) is 1.00000 (of the complete query sets)")
                && text.contains("partial: Vuser 2 stopped after 3 of 22 queries of query set 1"),
            "{text}"
        );
        assert!(!text.contains("Throughput@Size"), "{text}");
    }

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
