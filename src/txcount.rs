//! The transaction counter (`tcstart`, `tcstatus`, `tcstop`): a background task with its own
//! connection that turns a server's commit and rollback counters into `N PostgreSQL tpm`
//! lines (or, for a benchmark measured in queries, its queries into `N PostgreSQL qph`),
//! keeps the series with timestamps, and rides out a server that goes away. What it counts
//! comes with its source ([`Counted`]): the counter knows no workload.
//!
//! Unlike HammerDB, which multiplies each delta by the integer `60 / refresh` (a refresh of
//! 7 s reports ×8 instead of ×8.57), the rate here is the delta over the exact time between
//! the two readings. The counter's own reads, which PostgreSQL counts as transactions, are
//! subtracted, so an idle server shows 0 tpm.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::db::counter::{Counted, CounterSource, Reading};
use crate::db::DbError;
use crate::output::Output;

/// What `tcset` configured, read at `tcstart`.
#[derive(Debug, Clone)]
pub struct Options {
    pub refresh: Duration,
    pub log_to_temp: bool,
    pub unique_log_name: bool,
    pub log_timestamps: bool,
}

/// One interval between two readings.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// When the interval ended (the later reading).
    pub at: SystemTime,
    pub seconds: f64,
    /// Transactions (or queries) in the interval.
    pub count: u64,
    /// Their rate, per minute (or per hour): the `N` of `N PostgreSQL tpm`.
    pub rate: f64,
    /// New orders in the interval and their rate, where the database holds TPROC-C.
    pub new_orders: Option<u64>,
    pub nopm: Option<f64>,
}

/// Everything one `tcstart` … `tcstop` measured: what the job history stores.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// `PostgreSQL`, `MariaDB`, `MySQL`: the `<rdbms>` of `N <rdbms> tpm`.
    pub rdbms: String,
    /// Transactions per minute, or queries per hour.
    pub counted: Counted,
    pub started: Option<SystemTime>,
    pub samples: Vec<Sample>,
    /// What happened besides samples: the server going away and coming back, resets.
    pub events: Vec<(SystemTime, String)>,
}

/// Minimum, average and maximum over a series; the average is the total over the total time.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub samples: usize,
    pub seconds: f64,
    /// Transactions (or queries) over the series.
    pub count: u64,
    /// Rates in the series' unit (`tpm`, `qph`).
    pub min_rate: f64,
    pub avg_rate: f64,
    pub max_rate: f64,
    /// (min, avg, max) NOPM over the samples that had new orders.
    pub nopm: Option<(f64, f64, f64)>,
}

impl Series {
    pub fn summary(&self) -> Option<Summary> {
        let s = &self.samples;
        if s.is_empty() {
            return None;
        }
        let seconds: f64 = s.iter().map(|x| x.seconds).sum();
        let count: u64 = s.iter().map(|x| x.count).sum();
        let (min, max) = min_max(s.iter().map(|x| x.rate));
        let with_nopm: Vec<&Sample> = s.iter().filter(|x| x.nopm.is_some()).collect();
        let nopm = (!with_nopm.is_empty()).then(|| {
            let (lo, hi) = min_max(with_nopm.iter().filter_map(|x| x.nopm));
            let orders: u64 = with_nopm.iter().filter_map(|x| x.new_orders).sum();
            let secs: f64 = with_nopm.iter().map(|x| x.seconds).sum();
            (lo, orders as f64 * 60.0 / secs, hi)
        });
        Some(Summary {
            samples: s.len(),
            seconds,
            count,
            min_rate: min,
            avg_rate: self.counted.rate(count, seconds),
            max_rate: max,
            nopm,
        })
    }

    /// The lines `tcstop` prints.
    pub fn summary_lines(&self) -> Vec<String> {
        let Some(s) = self.summary() else {
            return vec![
                "Transaction Counter: no complete interval to report (stopped before the first refresh)"
                    .to_string(),
            ];
        };
        let mut lines = vec![format!(
            "Transaction Counter: {} samples over {:.1} s: min {:.0} avg {:.0} max {:.0} {} {}",
            s.samples,
            s.seconds,
            s.min_rate,
            s.avg_rate,
            s.max_rate,
            self.rdbms,
            self.counted.unit()
        )];
        if let Some((lo, avg, hi)) = s.nopm {
            lines.push(format!(
                "Transaction Counter: min {lo:.0} avg {avg:.0} max {hi:.0} NOPM"
            ));
        }
        lines
    }
}

fn min_max(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// What two consecutive readings say.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Rate {
        seconds: f64,
        transactions: u64,
        new_orders: Option<u64>,
    },
    /// The server's uptime went back: it restarted between the readings.
    Restarted,
    /// A counter went back without a restart (statistics reset): no rate for this interval.
    Backwards,
}

/// The transactions between two readings. `debt` carries the counter's own transactions
/// not yet subtracted (PostgreSQL publishes them a little later than they happen).
pub fn step(prev: &Reading, now: &Reading, debt: &mut u64) -> Step {
    if now.uptime + 0.5 < prev.uptime {
        return Step::Restarted;
    }
    let mut delta = 0u64;
    for (key, value) in &now.parts {
        match prev.parts.iter().find(|(k, _)| k == key) {
            Some((_, before)) if value < before => return Step::Backwards,
            Some((_, before)) => delta += value - before,
            // A database created since the last reading: all of its transactions are new.
            None => delta += value,
        }
    }
    let own = (*debt).min(delta);
    *debt = *debt - own + now.own;
    let new_orders = match (prev.new_orders, now.new_orders) {
        (Some(a), Some(b)) if b >= a => Some(b - a),
        _ => None,
    };
    Step::Rate {
        seconds: now.at.duration_since(prev.at).as_secs_f64(),
        transactions: delta - own,
        new_orders,
    }
}

/// The `N PostgreSQL tpm` line (`N PostgreSQL qph` counting queries; with ` M NOPM` where the
/// schema gives new orders).
pub fn rate_line(rdbms: &str, counted: Counted, s: &Sample) -> String {
    let mut line = format!("{:.0} {rdbms} {}", s.rate, counted.unit());
    if let Some(nopm) = s.nopm {
        line.push_str(&format!(" {nopm:.0} NOPM"));
    }
    line
}

/// Where HammerDB writes its logs: `$TMP`, `$TMPDIR` or `$TEMP` when one is a writable
/// directory, else `/tmp`, else the current directory.
pub fn log_dir() -> PathBuf {
    let usable =
        |p: &Path| p.is_dir() && std::fs::metadata(p).is_ok_and(|m| !m.permissions().readonly());
    ["TMP", "TMPDIR", "TEMP"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain([PathBuf::from("/tmp")])
        .find(|p| usable(p))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The counter's log file (`tcset logtotemp 1`).
struct Log {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    timestamps: bool,
}

impl Log {
    fn open(opts: &Options) -> crate::error::Result<Log> {
        let name = if opts.unique_log_name {
            format!("hdbtcount_{}.log", guid())
        } else {
            "hdbtcount.log".to_string()
        };
        let path = log_dir().join(name);
        let io = |source| crate::error::Error::Io {
            what: "cannot write the transaction counter log",
            path: path.display().to_string(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        let mut log = Log {
            path: path.clone(),
            file: std::io::BufWriter::new(file),
            timestamps: opts.log_timestamps,
        };
        let header = format!(
            "hammer Transaction Counter Log @ {}",
            crate::clock::utc(SystemTime::now())
        );
        log.write_raw(&header);
        log.write_raw(&"+-".repeat(25));
        Ok(log)
    }

    fn write_raw(&mut self, line: &str) {
        // A full disk must not stop the counter; the console still shows every line.
        let _ = writeln!(self.file, "{line}");
        let _ = self.file.flush();
    }

    fn write(&mut self, line: &str, at: SystemTime) {
        if self.timestamps {
            self.write_raw(&format!("{line} @ {}", crate::clock::utc(at)));
        } else {
            self.write_raw(line);
        }
    }
}

fn guid() -> String {
    use rand::Rng;
    let b: [u8; 16] = rand::rng().random();
    let h: String = b.iter().map(|x| format!("{x:02X}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// The counter a session owns: at most one running, and the last series kept after `tcstop`.
#[derive(Default)]
pub struct TxCounter {
    running: Option<Running>,
    last: Option<Arc<Mutex<Series>>>,
}

struct Running {
    handle: JoinHandle<()>,
    stop: watch::Sender<bool>,
    series: Arc<Mutex<Series>>,
    log: Option<PathBuf>,
}

/// How `tcstop` ended.
pub struct Stopped {
    pub series: Series,
    pub log: Option<PathBuf>,
    /// The task did not end in time and was aborted.
    pub aborted: bool,
}

fn lock(s: &Mutex<Series>) -> MutexGuard<'_, Series> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// The longest pause between two attempts to reach a server that went away.
const MAX_BACKOFF: Duration = Duration::from_secs(16);

impl TxCounter {
    /// The running task's id (HammerDB's "threadid"), if one runs.
    pub fn thread_id(&self) -> Option<String> {
        self.running.as_ref().map(|r| r.handle.id().to_string())
    }

    /// The current series, or the last one after `tcstop`.
    pub fn series(&self) -> Option<Series> {
        self.running
            .as_ref()
            .map(|r| &r.series)
            .or(self.last.as_ref())
            .map(|s| lock(s).clone())
    }

    /// Starts the task on a connected source whose first reading is the baseline. Returns
    /// the log file's path when logging.
    pub fn start(
        &mut self,
        rt: &tokio::runtime::Handle,
        source: CounterSource,
        first: Reading,
        opts: &Options,
        out: Output,
        sink: crate::jobs::recorder::SeriesSink,
    ) -> crate::error::Result<Option<PathBuf>> {
        let log = if opts.log_to_temp {
            Some(Log::open(opts)?)
        } else {
            None
        };
        let log_path = log.as_ref().map(|l| l.path.clone());
        let series = Arc::new(Mutex::new(Series {
            rdbms: source.db().name().to_string(),
            counted: source.counted(),
            started: Some(first.wall),
            ..Series::default()
        }));
        let (stop, stop_rx) = watch::channel(false);
        let task = Task {
            source,
            refresh: opts.refresh,
            out,
            series: series.clone(),
            sink,
            log,
            stop: stop_rx,
        };
        let handle = rt.spawn(task.run(first));
        self.running = Some(Running {
            handle,
            stop,
            series,
            log: log_path.clone(),
        });
        Ok(log_path)
    }

    /// Signals the task, waits for it to end (aborting it after a timeout), and keeps its series.
    pub fn stop(&mut self, rt: &tokio::runtime::Handle) -> Option<Stopped> {
        let r = self.running.take()?;
        let _ = r.stop.send(true);
        let aborted = crate::task::join_or_abort(rt, r.handle);
        let series = lock(&r.series).clone();
        self.last = Some(r.series);
        Some(Stopped {
            series,
            log: r.log,
            aborted,
        })
    }
}

struct Task {
    source: CounterSource,
    refresh: Duration,
    out: Output,
    series: Arc<Mutex<Series>>,
    /// The job history's copy of each sample.
    sink: crate::jobs::recorder::SeriesSink,
    log: Option<Log>,
    stop: watch::Receiver<bool>,
}

impl Task {
    /// Waits until `deadline`; false when asked to stop first.
    async fn wait_until(&mut self, deadline: Instant) -> bool {
        if *self.stop.borrow() {
            return false;
        }
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => true,
            // A dropped sender (the session went away) stops the task too.
            _ = self.stop.changed() => false,
        }
    }

    /// Reads, unless asked to stop first: connecting to a server that does not answer can
    /// take seconds, and `tcstop` should not wait for that.
    async fn read(&mut self) -> Option<Result<Reading, DbError>> {
        if *self.stop.borrow() {
            return None;
        }
        tokio::select! {
            r = self.source.read() => Some(r),
            _ = self.stop.changed() => None,
        }
    }

    fn say(&mut self, what: String) {
        lock(&self.series)
            .events
            .push((SystemTime::now(), what.clone()));
        self.out.line(format!("Transaction Counter: {what}"));
    }

    async fn run(mut self, first: Reading) {
        let rdbms = self.source.db().name();
        let counted = self.source.counted();
        let mut debt = first.own;
        let mut prev = Some(first);
        let mut next = Instant::now() + self.refresh;
        loop {
            if !self.wait_until(next).await {
                break;
            }
            next += self.refresh;
            let now = Instant::now();
            if next < now {
                next = now + self.refresh;
            }
            let reading = match self.read().await {
                None => break,
                Some(Ok(r)) => r,
                Some(Err(e)) => {
                    // The server may have restarted already; otherwise wait for it.
                    let Some(r) = self.reconnect(e).await else {
                        break;
                    };
                    debt = r.own;
                    prev = Some(r);
                    next = Instant::now() + self.refresh;
                    continue;
                }
            };
            let Some(p) = prev.as_ref() else {
                debt = reading.own;
                prev = Some(reading);
                continue;
            };
            match step(p, &reading, &mut debt) {
                Step::Rate {
                    seconds,
                    transactions,
                    new_orders,
                } => {
                    let sample = Sample {
                        at: reading.wall,
                        seconds,
                        count: transactions,
                        rate: counted.rate(transactions, seconds),
                        new_orders,
                        nopm: new_orders.map(|n| n as f64 * 60.0 / seconds),
                    };
                    let line = rate_line(rdbms, counted, &sample);
                    self.out.line(&line);
                    if let Some(log) = &mut self.log {
                        log.write(&line, sample.at);
                    }
                    self.sink
                        .record_tcount(sample.at, counted.unit(), sample.rate, sample.nopm);
                    lock(&self.series).samples.push(sample);
                }
                Step::Restarted => {
                    debt = reading.own;
                    self.say(format!(
                        "{rdbms} restarted between two readings; counting again from here"
                    ));
                }
                Step::Backwards => {
                    debt = reading.own;
                    self.say(format!(
                        "{rdbms}'s transaction counters went back (statistics reset); counting again from here"
                    ));
                }
            }
            prev = Some(reading);
        }
        self.source.close().await;
    }

    /// After a failed reading: reconnects at once if the server answers (it restarted between
    /// readings), else says once that it is gone and retries with backoff until it is back.
    /// The reading returned is a new baseline; `None` when asked to stop meanwhile.
    async fn reconnect(&mut self, lost: DbError) -> Option<Reading> {
        if let Ok(r) = self.read().await? {
            self.say(format!(
                "{lost}; reconnected at once, counting again from here"
            ));
            return Some(r);
        }
        let gone = Instant::now();
        self.say(format!("{lost}; retrying with backoff"));
        let mut wait = Duration::from_secs(1);
        loop {
            if !self.wait_until(Instant::now() + wait).await {
                return None;
            }
            if let Ok(r) = self.read().await? {
                let what = self.source.describe();
                self.say(format!(
                    "{what} is back after {:.1} s; counting again from here",
                    gone.elapsed().as_secs_f64()
                ));
                return Some(r);
            }
            wait = (wait * 2).min(MAX_BACKOFF);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(at_ms: u64, parts: &[(u64, u64)], uptime: f64, own: u64) -> Reading {
        let base = std::time::Instant::now();
        Reading {
            parts: parts.to_vec(),
            uptime,
            new_orders: None,
            own,
            at: base + Duration::from_millis(at_ms),
            wall: SystemTime::UNIX_EPOCH,
        }
    }

    #[test]
    fn a_step_counts_the_delta_over_the_exact_time() {
        let base = std::time::Instant::now();
        let mut a = reading(0, &[(1, 100), (2, 50)], 10.0, 0);
        let mut b = reading(0, &[(1, 130), (2, 70)], 17.0, 0);
        a.at = base;
        b.at = base + Duration::from_millis(7_000);
        let mut debt = 0;
        let Step::Rate {
            seconds,
            transactions,
            new_orders,
        } = step(&a, &b, &mut debt)
        else {
            panic!("no rate")
        };
        assert_eq!(transactions, 50);
        assert!((seconds - 7.0).abs() < 1e-9);
        assert_eq!(new_orders, None);
        // HammerDB's integer factor would say 50 * (60 / 7) = 400; the rate is 428.57.
        assert!((transactions as f64 * 60.0 / seconds - 428.571).abs() < 0.01);
    }

    #[test]
    fn own_reads_are_subtracted_even_when_published_late() {
        let a = reading(0, &[(1, 100)], 10.0, 1);
        let b = reading(1000, &[(1, 100)], 11.0, 1);
        let c = reading(2000, &[(1, 102)], 12.0, 1);
        let d = reading(3000, &[(1, 110)], 13.0, 1);
        let mut debt = a.own;
        let t = |s| match s {
            Step::Rate { transactions, .. } => transactions,
            other => panic!("{other:?}"),
        };
        assert_eq!(t(step(&a, &b, &mut debt)), 0);
        assert_eq!(t(step(&b, &c, &mut debt)), 0);
        // The reads of a and b were published by c; c's own read is one of d's eight.
        assert_eq!(t(step(&c, &d, &mut debt)), 7);
        assert_eq!(debt, 1);
    }

    #[test]
    fn restarts_and_resets_never_give_a_rate() {
        let a = reading(0, &[(0, 1_000), (1, 10)], 500.0, 0);
        let restarted = reading(1000, &[(0, 5_000), (1, 10)], 3.0, 0);
        let reset = reading(1000, &[(0, 10), (1, 10)], 501.0, 0);
        let mut debt = 0;
        assert_eq!(step(&a, &restarted, &mut debt), Step::Restarted);
        assert_eq!(step(&a, &reset, &mut debt), Step::Backwards);
    }

    #[test]
    fn a_dropped_database_is_not_a_reset_and_a_new_one_counts() {
        let a = reading(0, &[(1, 100), (2, 500)], 10.0, 0);
        let b = reading(1000, &[(1, 110), (3, 4)], 11.0, 0);
        let mut debt = 0;
        assert!(matches!(
            step(&a, &b, &mut debt),
            Step::Rate {
                transactions: 14,
                ..
            }
        ));
    }

    #[test]
    fn new_orders_need_both_readings_and_never_go_negative() {
        let mut a = reading(0, &[(1, 0)], 1.0, 0);
        let mut b = reading(60_000, &[(1, 0)], 61.0, 0);
        a.new_orders = Some(300);
        b.new_orders = Some(360);
        let mut debt = 0;
        assert!(matches!(
            step(&a, &b, &mut debt),
            Step::Rate {
                new_orders: Some(60),
                ..
            }
        ));
        b.new_orders = Some(10);
        assert!(matches!(
            step(&a, &b, &mut debt),
            Step::Rate {
                new_orders: None,
                ..
            }
        ));
    }

    #[test]
    fn summary_is_weighted_by_time() {
        let sample = |seconds: f64, count: u64, nopm: Option<u64>| Sample {
            at: SystemTime::UNIX_EPOCH,
            seconds,
            count,
            rate: count as f64 * 60.0 / seconds,
            new_orders: nopm,
            nopm: nopm.map(|n| n as f64 * 60.0 / seconds),
        };
        let s = Series {
            rdbms: "MariaDB".into(),
            samples: vec![sample(1.0, 10, Some(2)), sample(3.0, 90, Some(6))],
            ..Series::default()
        };
        let sum = s.summary().unwrap();
        assert_eq!(sum.count, 100);
        assert_eq!(sum.min_rate, 600.0);
        assert_eq!(sum.max_rate, 1800.0);
        assert_eq!(sum.avg_rate, 1500.0);
        assert_eq!(sum.nopm, Some((120.0, 120.0, 120.0)));
        assert_eq!(
            s.summary_lines(),
            [
                "Transaction Counter: 2 samples over 4.0 s: min 600 avg 1500 max 1800 MariaDB tpm",
                "Transaction Counter: min 120 avg 120 max 120 NOPM"
            ]
        );
        assert_eq!(
            rate_line("MariaDB", Counted::Transactions, &s.samples[0]),
            "600 MariaDB tpm 120 NOPM"
        );
        assert!(Series::default().summary_lines()[0].contains("no complete interval"));
    }

    /// Counting queries: the rate is per hour and every line says qph.
    #[test]
    fn queries_are_counted_per_hour() {
        let sample = |seconds: f64, count: u64| Sample {
            at: SystemTime::UNIX_EPOCH,
            seconds,
            count,
            rate: Counted::Queries.rate(count, seconds),
            new_orders: None,
            nopm: None,
        };
        let s = Series {
            rdbms: "PostgreSQL".into(),
            counted: Counted::Queries,
            samples: vec![sample(10.0, 5), sample(10.0, 15)],
            ..Series::default()
        };
        assert_eq!(s.samples[0].rate, 1800.0);
        assert_eq!(
            rate_line("PostgreSQL", Counted::Queries, &s.samples[1]),
            "5400 PostgreSQL qph"
        );
        let sum = s.summary().unwrap();
        assert_eq!((sum.count, sum.avg_rate), (20, 3600.0));
        assert_eq!(
            s.summary_lines(),
            ["Transaction Counter: 2 samples over 20.0 s: min 1800 avg 3600 max 5400 PostgreSQL qph"]
        );
    }
}
