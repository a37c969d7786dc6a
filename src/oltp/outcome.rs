//! What an OLTP run measured, said twice: sysbench's summary blocks, figure for figure, so
//! that a sysbench user's parsers and eyes find what they expect; then hammer's own lines
//! (per-statement latencies, latency from each event's intended start with a rate, the
//! client's CPU per transaction and per query, the server's own count). And the run as a
//! `bench::Outcome`: its job record and its `lastrun()` map.

use std::time::Duration;

use rhai::Map;

use super::report::{Latency, Summary, ThreadShare};
use super::run::{Ran, ServerFigures, STATEMENTS, TYPE_NAMES};
use crate::bench::outcome::{live_record, run_value, timings, type_map, Outcome};
use crate::jobs::recorder::RunRecord;

/// An OLTP run's result.
pub struct OltpResult {
    ran: Ran,
    db: &'static str,
    test: &'static str,
    threads: u32,
    cpu: Option<Duration>,
}

impl OltpResult {
    pub fn new(ran: Ran, db: &'static str, test: &'static str, threads: u32) -> Self {
        let cpu = ran.outcome.client_cpu.or(ran.cpu);
        OltpResult {
            ran,
            db,
            test,
            threads,
            cpu,
        }
    }

    /// The seconds the figures are over: the measured window of a timed run, else the whole
    /// run.
    pub fn seconds(&self) -> f64 {
        let o = &self.ran.outcome;
        if o.measured.is_zero() {
            self.ran.wall.as_secs_f64()
        } else {
            o.measured.as_secs_f64()
        }
    }

    /// Events that succeeded in the window, as the terminals counted them (with their
    /// queries, so that the two agree).
    pub fn events(&self) -> u64 {
        self.ran.record.events.len()
    }

    fn errors(&self) -> u64 {
        let s = &self.ran.outcome.stats.by_kind[0];
        s.retried + s.failed
    }

    fn reconnects(&self) -> u64 {
        self.ran.outcome.stats.reconnects + self.ran.record.reconnects
    }

    pub fn queries(&self) -> u64 {
        self.ran.record.queries.total()
    }

    /// sysbench's summary of the run.
    pub fn summary(&self) -> Summary {
        let r = &self.ran.record;
        let (min, max) = if r.min_us == u64::MAX {
            (0, 0)
        } else {
            (r.min_us, r.max_us)
        };
        Summary {
            reads: r.queries.reads,
            writes: r.queries.writes,
            others: r.queries.others,
            events: self.events(),
            errors: self.errors(),
            reconnects: self.reconnects(),
            seconds: self.seconds(),
            total_time: self.ran.wall.as_secs_f64(),
            percentile: 95,
            latency: Latency::of(&r.events, r.sum_us, (min, max), 95),
            threads: r
                .threads
                .iter()
                .map(|t| ThreadShare {
                    events: t.events,
                    seconds: t.seconds,
                })
                .collect(),
        }
    }

    fn server(&self) -> Option<&ServerFigures> {
        self.ran.outcome.figures.as_ref()
    }

    /// hammer's lines after sysbench's.
    fn own_lines(&self) -> Vec<String> {
        let seconds = self.seconds().max(f64::MIN_POSITIVE);
        let mut lines = vec![format!(
            "TEST RESULT : System achieved {:.2} transactions and {:.2} queries per second \
             ({}, {} virtual users, over {:.1} s)",
            self.events() as f64 / seconds,
            self.queries() as f64 / seconds,
            self.test,
            self.threads,
            seconds
        )];
        if let Some(f) = self.server() {
            lines.push(format!(
                "{} counted {} transactions (commits and rollbacks, server-wide) over the same \
                 {:.1} s: {:.2} per second",
                self.db,
                f.transactions,
                f.seconds,
                f.transactions as f64 / f.seconds.max(f64::MIN_POSITIVE)
            ));
        }
        lines.push("Statements (hammer; latency of each round trip, in the window):".into());
        lines.push(format!(
            "{:<18} {:>10} {:>9} {:>9} {:>9} {:>9}",
            "STATEMENT", "EXECUTED", "P50 MS", "P95 MS", "P99 MS", "MAX MS"
        ));
        for (s, h) in STATEMENTS.iter().zip(&self.ran.record.statements) {
            if h.is_empty() {
                continue;
            }
            let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
            lines.push(format!(
                "{:<18} {:>10} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
                s.name(),
                h.len(),
                ms(0.50),
                ms(0.95),
                ms(0.99),
                h.max() as f64 / 1000.0
            ));
        }
        if let Some(h) = &self.ran.record.intended {
            if !h.is_empty() {
                let ms = |us: u64| us as f64 / 1000.0;
                lines.push(format!(
                    "Latency from each event's intended start (hammer; sysbench's above is from its actual start): \
                     avg {:.2} ms, 95th {:.2} ms, max {:.2} ms",
                    h.mean() / 1000.0,
                    ms(h.value_at_quantile(0.95)),
                    ms(h.max())
                ));
            }
        }
        if self.ran.overflowed {
            lines.push(format!(
                "The virtual users could not keep up with the rate: more than {} events waited, and the run stopped",
                super::arrivals::MAX_QUEUE
            ));
        }
        if let Some(cpu) = self.cpu {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            let c = cpu.as_secs_f64();
            let per = |n: u64| {
                if n == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}", c * 1e6 / n as f64)
                }
            };
            lines.push(format!(
                "Client CPU: {c:.2} s in {seconds:.1} s ({:.1} % of {cpus} CPUs), {} us per transaction, {} us per query",
                c / seconds / cpus as f64 * 100.0,
                per(self.events()),
                per(self.queries())
            ));
        }
        if self.reconnects() > 0 {
            lines.push(format!("Connections reconnected: {}", self.reconnects()));
        }
        if let Some(why) = &self.ran.outcome.stopped_early {
            lines.push(format!("The run ended early: {why}"));
        }
        lines
    }

    fn figures(&self) -> crate::jobs::RunFigures {
        let o = &self.ran.outcome;
        crate::jobs::RunFigures {
            nopm: None,
            tpm: self
                .server()
                .map(|f| f.transactions as f64 * 60.0 / f.seconds.max(f64::MIN_POSITIVE)),
            active_vus: o.active_vus,
            seconds: self.seconds(),
            failed_vus: o.failed_vus,
            reconnects: self.reconnects(),
            transactions: self.events(),
            client_cpu_seconds: self.cpu.map(|c| c.as_secs_f64()),
            stopped_early: o.stopped_early.clone(),
        }
    }
}

impl Outcome for OltpResult {
    fn lines(&self) -> Vec<String> {
        let mut lines = self.summary().lines();
        lines.push(String::new());
        lines.extend(self.own_lines());
        lines
    }

    /// The run's figures (TPM is the server's count, per minute), the transactions' timing
    /// and each statement's.
    fn record(&self) -> RunRecord {
        use crate::jobs::recorder::{timing, Counts};
        let mut t = timings(&TYPE_NAMES, &self.ran.outcome.stats, false);
        for (s, h) in STATEMENTS.iter().zip(&self.ran.record.statements) {
            if h.is_empty() {
                continue;
            }
            let counts = Counts {
                committed: h.len(),
                ..Counts::default()
            };
            t.push(timing(s.name(), counts, h));
        }
        RunRecord {
            figures: self.figures(),
            timings: t,
            live: self.ran.outcome.series.as_ref().map(live_record),
            tpch: None,
            run: None,
        }
    }

    /// A TPROC-C run's keys (`transactions` counts events), sysbench's figures (`tps`,
    /// `qps`, `reads`, `writes`, `others`, `errors`), and `transaction` with its counts and
    /// latencies.
    fn value(&self, id: &str) -> Map {
        let mut m = run_value(id, &self.figures(), self.ran.outcome.abandoned_calls);
        let seconds = self.seconds().max(f64::MIN_POSITIVE);
        let q = &self.ran.record.queries;
        m.insert("tps".into(), (self.events() as f64 / seconds).into());
        m.insert("qps".into(), (self.queries() as f64 / seconds).into());
        m.insert("reads".into(), (q.reads as i64).into());
        m.insert("writes".into(), (q.writes as i64).into());
        m.insert("others".into(), (q.others as i64).into());
        m.insert("queries".into(), (self.queries() as i64).into());
        m.insert("errors".into(), (self.errors() as i64).into());
        m.insert(
            TYPE_NAMES[0].into(),
            type_map(&self.ran.outcome.stats.by_kind[0]).into(),
        );
        m
    }
}
