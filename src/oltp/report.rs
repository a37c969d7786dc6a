//! sysbench's report, line for line, so that a sysbench user's parsers and eyes find what they
//! expect: the `--report-interval` line of each interval and, at the end, the summary blocks
//! (SQL statistics, general statistics, latency, threads fairness), in the shape sysbench
//! 1.0.20 prints them (Debian's). The figures come from the run; this only says them.

/// One interval, as sysbench's `--report-interval` line says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// Seconds since the run began, at the interval's end.
    pub at: f64,
    /// The interval's length in seconds.
    pub seconds: f64,
    /// Threads (virtual users) running.
    pub threads: u32,
    /// Transactions (events) that ended in the interval.
    pub events: u64,
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
    /// The percentile the line gives (95 by default) and the events' latency at it, in ms.
    pub percentile: u32,
    pub latency_ms: f64,
    /// Ignored errors and reconnects in the interval.
    pub errors: u64,
    pub reconnects: u64,
    /// With a target rate: the events waiting to start, and those running.
    pub queue: Option<(u64, u64)>,
}

impl Interval {
    /// `[ 1s ] thds: 2 tps: 2085.28 qps: 41817.75 (r/w/o: 29290.20/8350.04/4177.50) lat
    /// (ms,95%): 1.55 err/s: 4.96 reconn/s: 0.00`, and with a rate its queue line.
    pub fn lines(&self) -> Vec<String> {
        let per = |n: u64| n as f64 / self.seconds.max(f64::MIN_POSITIVE);
        let stamp = format!("[ {:.0}s ] ", self.at);
        let mut lines = vec![format!(
            "{stamp}thds: {} tps: {:4.2} qps: {:4.2} (r/w/o: {:4.2}/{:4.2}/{:4.2}) \
             lat (ms,{}%): {:4.2} err/s: {:4.2} reconn/s: {:4.2}",
            self.threads,
            per(self.events),
            per(self.reads + self.writes + self.others),
            per(self.reads),
            per(self.writes),
            per(self.others),
            self.percentile,
            self.latency_ms,
            per(self.errors),
            per(self.reconnects),
        )];
        if let Some((queue, concurrency)) = self.queue {
            lines.push(format!(
                "{stamp}queue length: {queue}, concurrency: {concurrency}"
            ));
        }
        lines
    }
}

/// The whole run's latency of events, in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    /// At [`Summary::percentile`]; `None` when percentiles are off (sysbench's
    /// `--percentile=0`).
    pub pct: Option<f64>,
    pub sum: f64,
}

impl Latency {
    /// From a histogram of the events' latencies in microseconds, with their exact sum,
    /// least and greatest (a histogram's buckets would round them), and the percentile to
    /// give (0 for none).
    pub fn of(
        h: &hdrhistogram::Histogram<u64>,
        sum_us: u128,
        (min_us, max_us): (u64, u64),
        percentile: u32,
    ) -> Latency {
        let ms = |us: f64| us / 1000.0;
        let empty = h.is_empty();
        Latency {
            min: if empty { 0.0 } else { ms(min_us as f64) },
            avg: if empty {
                0.0
            } else {
                ms(sum_us as f64 / h.len() as f64)
            },
            max: if empty { 0.0 } else { ms(max_us as f64) },
            pct: (percentile > 0).then(|| {
                if empty {
                    0.0
                } else {
                    ms(h.value_at_quantile(f64::from(percentile) / 100.0) as f64)
                }
            }),
            sum: ms(sum_us as f64),
        }
    }
}

/// One thread's (virtual user's) share: its events and the seconds they took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreadShare {
    pub events: u64,
    pub seconds: f64,
}

/// The run's figures, as sysbench's summary says them.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
    /// Transactions: sysbench's events.
    pub events: u64,
    pub errors: u64,
    pub reconnects: u64,
    /// The seconds the rates are over.
    pub seconds: f64,
    /// The run's wall time in seconds (sysbench's `total time`).
    pub total_time: f64,
    pub percentile: u32,
    pub latency: Latency,
    pub threads: Vec<ThreadShare>,
}

/// A figure's line with its rate: `%-6` then ` (%.2f per sec.)`.
fn with_rate(label: &str, n: u64, seconds: f64) -> String {
    format!(
        "    {label:<37}{n:<6} ({:.2} per sec.)",
        n as f64 / seconds.max(f64::MIN_POSITIVE)
    )
}

/// The mean and the population standard deviation.
fn spread(values: impl Iterator<Item = f64> + Clone, mean: f64) -> f64 {
    let (sum, n) = values
        .map(|v| (v - mean) * (v - mean))
        .fold((0.0, 0usize), |(s, n), d| (s + d, n + 1));
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).sqrt()
    }
}

impl Summary {
    pub fn lines(&self) -> Vec<String> {
        let queries = self.reads + self.writes + self.others;
        let mut lines = vec![
            "SQL statistics:".to_string(),
            "    queries performed:".to_string(),
            format!("        read:                            {}", self.reads),
            format!("        write:                           {}", self.writes),
            format!("        other:                           {}", self.others),
            format!("        total:                           {queries}"),
            with_rate("transactions:", self.events, self.seconds),
            with_rate("queries:", queries, self.seconds),
            with_rate("ignored errors:", self.errors, self.seconds),
            with_rate("reconnects:", self.reconnects, self.seconds),
            String::new(),
            "General statistics:".to_string(),
            format!(
                "    total time:                          {:.4}s",
                self.total_time
            ),
            format!("    total number of events:              {}", self.events),
            String::new(),
            "Latency (ms):".to_string(),
            format!("         min: {:39.2}", self.latency.min),
            format!("         avg: {:39.2}", self.latency.avg),
            format!("         max: {:39.2}", self.latency.max),
        ];
        match self.latency.pct {
            Some(p) => lines.push(format!(
                "        {:3}th percentile: {p:27.2}",
                self.percentile
            )),
            None => lines.push("         percentile stats:               disabled".into()),
        }
        lines.push(format!("         sum: {:39.2}", self.latency.sum));
        lines.push(String::new());
        let n = self.threads.len().max(1) as f64;
        let events_avg = self.threads.iter().map(|t| t.events).sum::<u64>() as f64 / n;
        let time_avg = self.latency.sum / 1000.0 / n;
        let events = self.threads.iter().map(|t| t.events as f64);
        let times = self.threads.iter().map(|t| t.seconds);
        lines.push("Threads fairness:".into());
        lines.push(format!(
            "    events (avg/stddev):           {events_avg:.4}/{:3.2}",
            spread(events, events_avg)
        ));
        lines.push(format!(
            "    execution time (avg/stddev):   {time_avg:.4}/{:3.2}",
            spread(times, time_avg)
        ));
        lines.push(String::new());
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sysbench 1.0.20's `oltp_read_write` on MariaDB, 2 threads for 3 s: its lines, from its
    /// figures.
    #[test]
    fn the_lines_are_sysbenchs() {
        let i = Interval {
            at: 1.0,
            seconds: 1.0,
            threads: 2,
            events: 2085,
            reads: 29290,
            writes: 8350,
            others: 4177,
            percentile: 95,
            latency_ms: 1.55,
            errors: 5,
            reconnects: 0,
            queue: None,
        };
        assert_eq!(
            i.lines(),
            [
                "[ 1s ] thds: 2 tps: 2085.00 qps: 41817.00 (r/w/o: 29290.00/8350.00/4177.00) \
              lat (ms,95%): 1.55 err/s: 5.00 reconn/s: 0.00"
            ]
        );
        let with_rate = Interval {
            queue: Some((3, 2)),
            ..i
        };
        assert_eq!(
            with_rate.lines()[1],
            "[ 1s ] queue length: 3, concurrency: 2"
        );
        let s = Summary {
            reads: 82418,
            writes: 23530,
            others: 11766,
            events: 5879,
            errors: 8,
            reconnects: 0,
            seconds: 3.012348,
            total_time: 3.0113,
            percentile: 95,
            latency: Latency {
                min: 0.51,
                avg: 1.02,
                max: 18.39,
                pct: Some(2.03),
                sum: 5983.88,
            },
            threads: vec![
                ThreadShare {
                    events: 3009,
                    seconds: 2.9920,
                },
                ThreadShare {
                    events: 2870,
                    seconds: 2.9919,
                },
            ],
        };
        let expected = "\
SQL statistics:
    queries performed:
        read:                            82418
        write:                           23530
        other:                           11766
        total:                           117714
    transactions:                        5879   (1951.63 per sec.)
    queries:                             117714 (39077.16 per sec.)
    ignored errors:                      8      (2.66 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          3.0113s
    total number of events:              5879

Latency (ms):
         min:                                    0.51
         avg:                                    1.02
         max:                                   18.39
         95th percentile:                        2.03
         sum:                                 5983.88

Threads fairness:
    events (avg/stddev):           2939.5000/69.50
    execution time (avg/stddev):   2.9919/0.00
";
        assert_eq!(s.lines().join("\n"), expected);
    }

    #[test]
    fn latency_comes_from_the_histogram_and_the_exact_sum() {
        let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for us in [510, 1000, 1000, 2030, 18_390] {
            h.record(us).unwrap();
        }
        let l = Latency::of(&h, 22_930, (510, 18_390), 95);
        assert_eq!((l.min, l.max, l.sum), (0.51, 18.39, 22.93));
        assert!((l.avg - 4.586).abs() < 1e-9);
        assert!((l.pct.unwrap() - 18.39).abs() < 0.02, "{:?}", l.pct);
        assert_eq!(Latency::of(&h, 22_930, (510, 18_390), 0).pct, None);
        let none = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        assert_eq!(Latency::of(&none, 0, (0, 0), 95).max, 0.0);
    }
}
