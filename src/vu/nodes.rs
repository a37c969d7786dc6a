//! Where a run's terminals ran, and what a lost server cost: the servers the terminals first
//! reached, each terminal that moved to another server after losing its own (from where, to
//! where, when), the units that failed in flight with it, and every second's commits, from
//! which the result says how long the run went without a commit and how long its throughput
//! took to come back. Workload-blind: a server is named by the address its connection reached
//! (`Workload::node`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest run whose every second is kept: a week; later seconds are not counted.
const SECONDS_KEPT: u64 = 7 * 24 * 3600;

/// What the terminals record while the run goes on; shared, locked only when a terminal
/// connects or loses its server.
pub(super) struct Nodes {
    started: Instant,
    /// Commits in each second since the start.
    per_second: Vec<AtomicU32>,
    /// Microseconds since the start of the latest commit, and the longest time between two
    /// commits with where it ended.
    last_commit: AtomicU64,
    longest_gap: AtomicU64,
    longest_gap_end: AtomicU64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    first: BTreeMap<String, u32>,
    moves: Vec<Move>,
    /// Units that failed with their connection, by the server they were on.
    in_flight: BTreeMap<String, u64>,
}

/// A terminal that lost its server and went on on another.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub from: String,
    pub to: String,
    /// Since the run began: when the unit that found its server gone began (the server was
    /// last heard from then), and when the terminal was connected again.
    pub lost_at: Duration,
    pub back_at: Duration,
}

/// What the result says of the servers: where the terminals ran and what each lost server
/// cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeReport {
    /// The servers the terminals first reached, with how many terminals each.
    pub terminals: Vec<(String, u32)>,
    pub moves: Vec<Move>,
    /// Units that failed with their connection, by server.
    pub in_flight: Vec<(String, u64)>,
    /// Commits in each second since the run began.
    pub per_second: Vec<u32>,
    /// The longest time without a commit once commits had begun, and when it ended.
    pub longest_gap: Duration,
    pub longest_gap_end: Duration,
}

/// How much later than the last commit recorded a commit must be to move it.
const GAP_GRAIN: Duration = Duration::from_millis(1);

/// A terminal's commits in its current second, not yet added to the run's.
#[derive(Debug, Default)]
pub struct Tally {
    second: usize,
    count: u64,
}

impl Nodes {
    /// Room for every second of a run `expected` long (and five minutes over).
    pub fn new(expected: Duration) -> Self {
        let seconds = (expected.as_secs() + 300).clamp(600, SECONDS_KEPT);
        Nodes {
            started: Instant::now(),
            per_second: (0..seconds).map(|_| AtomicU32::new(0)).collect(),
            last_commit: AtomicU64::new(u64::MAX),
            longest_gap: AtomicU64::new(0),
            longest_gap_end: AtomicU64::new(0),
            inner: Mutex::new(Inner::default()),
        }
    }

    fn since(&self) -> Duration {
        self.started.elapsed()
    }

    /// A unit committed now.
    #[cfg(test)]
    pub fn committed(&self) {
        let mut tally = Tally::default();
        self.committed_at(Instant::now(), &mut tally);
        self.flush(&mut tally);
    }

    /// A unit of a terminal that keeps `tally` committed at `at`. The second's count reaches
    /// the run's when the terminal's second turns (or [`Self::flush`]), and the last commit's
    /// time moves only when it is [`GAP_GRAIN`] later: a shared write a second and a thousand
    /// at most per terminal, not one per commit, so that terminals on many threads do not
    /// pass these cache lines between them on every commit. A gap is then long by less than
    /// the grain at most.
    pub fn committed_at(&self, at: Instant, tally: &mut Tally) {
        let now = at.saturating_duration_since(self.started);
        let second = now.as_secs() as usize;
        if second != tally.second {
            self.flush(tally);
            tally.second = second;
        }
        tally.count += 1;
        let us = now.as_micros() as u64;
        let seen = self.last_commit.load(Ordering::Relaxed);
        if seen != u64::MAX && us < seen.saturating_add(GAP_GRAIN.as_micros() as u64) {
            return;
        }
        let before = self.last_commit.swap(us, Ordering::Relaxed);
        if before != u64::MAX && us > before {
            let gap = us - before;
            if self.longest_gap.fetch_max(gap, Ordering::Relaxed) < gap {
                self.longest_gap_end.store(us, Ordering::Relaxed);
            }
        }
    }

    /// Adds a terminal's count of its current second to the run's.
    pub fn flush(&self, tally: &mut Tally) {
        if tally.count == 0 {
            return;
        }
        if let Some(slot) = self.per_second.get(tally.second) {
            slot.fetch_add(tally.count as u32, Ordering::Relaxed);
        }
        tally.count = 0;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A terminal's first connection reached `node`.
    pub fn joined(&self, node: Option<String>) {
        if let Some(node) = node {
            *self.lock().first.entry(node).or_default() += 1;
        }
    }

    /// A unit that began at `began` failed with its connection to `node`: the server was
    /// last heard from then (a call that timed out waited its reply timeout for nothing).
    pub fn lost(&self, node: Option<&str>, began: Instant) -> Duration {
        if let Some(node) = node {
            *self.lock().in_flight.entry(node.to_string()).or_default() += 1;
        }
        began.saturating_duration_since(self.started)
    }

    /// A terminal that lost `from` at `lost_at` is connected again, to `to`: a move when it
    /// is another server.
    pub fn reconnected(&self, from: Option<String>, to: Option<String>, lost_at: Duration) {
        if let (Some(from), Some(to)) = (from, to) {
            if from != to {
                let back_at = self.since();
                self.lock().moves.push(Move {
                    from,
                    to,
                    lost_at,
                    back_at,
                });
            }
        }
    }

    /// What was recorded, for the result.
    pub fn report(&self) -> NodeReport {
        let inner = self.lock();
        let elapsed = self.since().as_secs() as usize + 1;
        let gap_end = self.longest_gap_end.load(Ordering::Relaxed);
        NodeReport {
            terminals: inner.first.iter().map(|(n, c)| (n.clone(), *c)).collect(),
            moves: inner.moves.clone(),
            in_flight: inner
                .in_flight
                .iter()
                .map(|(n, c)| (n.clone(), *c))
                .collect(),
            per_second: self
                .per_second
                .iter()
                .take(elapsed)
                .map(|c| c.load(Ordering::Relaxed))
                .collect(),
            longest_gap: Duration::from_micros(self.longest_gap.load(Ordering::Relaxed)),
            longest_gap_end: Duration::from_micros(gap_end),
        }
    }
}

/// One lost server's figures: from the terminals that moved away from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loss {
    pub node: String,
    /// When it was last heard from: the start of the first unit that failed with it.
    pub lost_at: Duration,
    /// Its terminals that moved, and where to (server, terminals).
    pub moved: u32,
    pub to: Vec<(String, u32)>,
    /// When the last of them was connected again.
    pub all_back_at: Duration,
    /// Units that failed with their connection to it.
    pub in_flight: u64,
    /// Seconds after `lost_at` until the run's commits per second were back within 10 % of
    /// the ten seconds before it (two seconds in a row); `None`: not within the run.
    pub recovered_after: Option<Duration>,
    /// The commits per second before the loss it compares with.
    pub rate_before: f64,
}

impl NodeReport {
    /// The lost servers, in the order they were lost.
    pub fn losses(&self) -> Vec<Loss> {
        let mut by_node: BTreeMap<&str, Vec<&Move>> = BTreeMap::new();
        for m in &self.moves {
            by_node.entry(&m.from).or_default().push(m);
        }
        let mut losses: Vec<Loss> = by_node
            .into_iter()
            .map(|(node, moves)| {
                let lost_at = moves.iter().map(|m| m.lost_at).min().unwrap_or_default();
                let all_back_at = moves.iter().map(|m| m.back_at).max().unwrap_or_default();
                let mut to: BTreeMap<&str, u32> = BTreeMap::new();
                for m in &moves {
                    *to.entry(&m.to).or_default() += 1;
                }
                let (recovered_after, rate_before) = self.recovery(lost_at);
                Loss {
                    node: node.to_string(),
                    lost_at,
                    moved: moves.len() as u32,
                    to: to.into_iter().map(|(n, c)| (n.to_string(), c)).collect(),
                    all_back_at,
                    in_flight: self
                        .in_flight
                        .iter()
                        .find(|(n, _)| n == node)
                        .map_or(0, |(_, c)| *c),
                    recovered_after,
                    rate_before,
                }
            })
            .collect();
        losses.sort_by_key(|l| l.lost_at);
        losses
    }

    /// How long after `lost_at` the commits per second were back within 10 % of the (up to)
    /// ten whole seconds before it, two seconds in a row, and that rate.
    fn recovery(&self, lost_at: Duration) -> (Option<Duration>, f64) {
        let s = &self.per_second;
        let lost = lost_at.as_secs() as usize;
        let from = lost.saturating_sub(10);
        let before = &s[from.min(s.len())..lost.min(s.len())];
        if before.is_empty() {
            return (None, 0.0);
        }
        let rate = before.iter().map(|&c| f64::from(c)).sum::<f64>() / before.len() as f64;
        let target = 0.9 * rate;
        // The last second is partial: it is not counted.
        let whole = s.len().saturating_sub(1);
        let back = (lost + 1..whole.saturating_sub(1))
            .find(|&i| f64::from(s[i]) >= target && f64::from(s[i + 1]) >= target);
        (
            back.map(|i| Duration::from_secs(i as u64).saturating_sub(lost_at)),
            rate,
        )
    }

    /// The result's lines about the servers: with more than one server reached, how many
    /// terminals ran on each; for each lost server, its terminals' moves, the units that
    /// failed in flight, the time without a commit and until throughput came back.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.terminals.len() > 1 || !self.moves.is_empty() {
            let each: Vec<String> = self
                .terminals
                .iter()
                .map(|(n, c)| format!("{n} {c}"))
                .collect();
            lines.push(format!("Terminals per server: {}", each.join(", ")));
        }
        for loss in self.losses() {
            let to: Vec<String> = loss.to.iter().map(|(n, c)| format!("{n} ({c})")).collect();
            lines.push(format!(
                "Server {} lost at {:.1} s: {} terminal(s) moved to {} by {:.1} s; {} unit(s) \
                 failed in flight",
                loss.node,
                loss.lost_at.as_secs_f64(),
                loss.moved,
                to.join(", "),
                loss.all_back_at.as_secs_f64(),
                loss.in_flight,
            ));
            lines.push(match loss.recovered_after {
                Some(after) => format!(
                    "Throughput back within 10 % of before ({:.0} commits/s) {:.0} s after the \
                     loss",
                    loss.rate_before,
                    after.as_secs_f64().max(1.0)
                ),
                None if loss.rate_before > 0.0 => format!(
                    "Throughput not back within 10 % of before ({:.0} commits/s) by the end of \
                     the run",
                    loss.rate_before
                ),
                None => "Throughput before the loss: too little run to compare with".into(),
            });
        }
        if !self.moves.is_empty() && !self.longest_gap.is_zero() {
            lines.push(format!(
                "Longest time without a commit: {:.2} s (ending at {:.1} s)",
                self.longest_gap.as_secs_f64(),
                self.longest_gap_end.as_secs_f64()
            ));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn a_lost_server_says_its_moves_and_the_recovery() {
        let mut per_second = vec![100; 12];
        per_second.extend([0, 0, 40, 95, 98, 100, 100]);
        let moves = vec![
            Move {
                from: "h3:3306".into(),
                to: "h1:3306".into(),
                lost_at: secs(12.2),
                back_at: secs(13.5),
            },
            Move {
                from: "h3:3306".into(),
                to: "h2:3306".into(),
                lost_at: secs(12.4),
                back_at: secs(14.0),
            },
        ];
        let report = NodeReport {
            terminals: vec![
                ("h1:3306".into(), 2),
                ("h2:3306".into(), 2),
                ("h3:3306".into(), 2),
            ],
            moves,
            in_flight: vec![("h3:3306".into(), 2)],
            per_second,
            longest_gap: secs(2.3),
            longest_gap_end: secs(14.5),
        };
        let losses = report.losses();
        assert_eq!(losses.len(), 1);
        let l = &losses[0];
        assert_eq!((l.moved, l.in_flight, l.lost_at), (2, 2, secs(12.2)));
        assert_eq!(l.rate_before, 100.0);
        // Second 15 (95) and 16 (98) are both within 10 % of 100.
        assert_eq!(l.recovered_after, Some(secs(15.0) - secs(12.2)));
        let lines = report.lines();
        assert_eq!(
            lines[0],
            "Terminals per server: h1:3306 2, h2:3306 2, h3:3306 2"
        );
        assert!(
            lines[1].starts_with("Server h3:3306 lost at 12.2 s: 2 terminal(s) moved to h1:3306 (1), h2:3306 (1) by 14.0 s; 2 unit(s)"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].contains("100 commits/s) 3 s after"),
            "{}",
            lines[2]
        );
        assert!(lines[3].contains("2.30 s"), "{}", lines[3]);
    }

    #[test]
    fn one_server_and_no_loss_say_nothing() {
        let nodes = Nodes::new(Duration::from_secs(1));
        nodes.joined(Some("h1:5432".into()));
        nodes.joined(Some("h1:5432".into()));
        nodes.committed();
        nodes.committed();
        // A reconnect to the same server is not a move.
        let at = nodes.lost(Some("h1:5432"), Instant::now());
        nodes.reconnected(Some("h1:5432".into()), Some("h1:5432".into()), at);
        let report = nodes.report();
        assert_eq!(report.terminals, [("h1:5432".to_string(), 2)]);
        assert!(report.moves.is_empty());
        assert_eq!(report.per_second.iter().sum::<u32>(), 2);
        assert!(report.lines().is_empty());
    }

    #[test]
    fn a_loss_that_never_recovers_says_so() {
        let report = NodeReport {
            terminals: vec![("a".into(), 1), ("b".into(), 1)],
            moves: vec![Move {
                from: "a".into(),
                to: "b".into(),
                lost_at: secs(5.0),
                back_at: secs(6.0),
            }],
            in_flight: vec![],
            per_second: vec![10, 10, 10, 10, 10, 0, 1, 1, 1, 1],
            longest_gap: secs(1.0),
            longest_gap_end: secs(6.0),
        };
        assert!(
            report.lines()[2].contains("not back"),
            "{:?}",
            report.lines()
        );
    }
}
