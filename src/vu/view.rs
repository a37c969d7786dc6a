//! How the live view shows an interval: in a terminal, a compact panel redrawn in place below
//! the scrolling output (sparklines of the database's rates and of each type's p95 over the
//! run); elsewhere (pipes, `hammer auto > log`, CI), one plain line per interval in the
//! style of pgbench's `--progress`.

use std::time::Duration;

use super::interval::Interval;
use super::say::Say;
use crate::output::Output;

/// The live view of one run.
pub(super) struct View {
    out: Output,
    names: &'static [&'static str],
    unit: &'static str,
    terminal: bool,
}

impl View {
    pub fn new(say: &Say, names: &'static [&'static str], unit: &'static str) -> Self {
        let out = say.out().clone();
        let terminal = out.is_terminal();
        View {
            out,
            names,
            unit,
            terminal,
        }
    }

    /// Shows `now`, the latest interval, after the `earlier` ones.
    /// `own`: the workload's lines in place of the progress line, when it has its own.
    pub fn show(&mut self, now: &Interval, earlier: &[Interval], own: Option<Vec<String>>) {
        if let Some(lines) = own {
            if self.terminal {
                self.out.panel(lines);
            } else {
                for l in lines {
                    self.out.line(l);
                }
            }
            return;
        }
        if self.terminal {
            let width = match crossterm::terminal::size() {
                Ok((w, _)) if w > 0 => w as usize,
                _ => 80,
            };
            self.out
                .panel(panel(now, earlier, self.names, self.unit, width));
        } else {
            self.out.line(line(now, self.names, self.unit));
        }
    }

    /// Takes the panel away at the end of the run.
    pub fn close(&mut self) {
        if self.terminal {
            self.out.clear_status();
        }
    }
}

/// `1:05`, `1:02:03`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A response time in milliseconds, with the precision its size deserves.
pub fn ms(us: u64) -> String {
    let ms = us as f64 / 1000.0;
    if ms < 10.0 {
        format!("{ms:.2}")
    } else if ms < 100.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// A rate per second of `n` units over `seconds`.
fn per_second(n: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    }
}

/// Where the interval is: `20.0 s, measured, 1:40 left`.
fn head(i: &Interval) -> String {
    let mut s = format!("{:.1} s, {}", i.elapsed.as_secs_f64(), i.phase.label());
    if let Some(r) = i.remaining {
        s.push_str(&format!(", {} left", clock(r)));
    }
    s
}

/// The logical CPUs the client's share is of.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Errors, retries, reconnects and the client's CPU: `errors 0, retries 3, reconnects 0,
/// client cpu 7.7% of 2 CPUs, 62 us per transaction` (the result's `Client CPU` line, per
/// interval; no cost per unit over an interval with too few units to say it).
fn health(i: &Interval, unit: &str, cpus: usize) -> String {
    let mut s = format!(
        "errors {}, retries {}, reconnects {}",
        i.failed(),
        i.retried(),
        i.reconnects
    );
    if let Some(cpu) = i.client_cpu_percent() {
        s.push_str(&format!(
            ", client cpu {:.1}% of {cpus} CPUs",
            cpu / cpus.max(1) as f64
        ));
        let n = i.finished();
        if let (Some(c), true) = (i.client_cpu, n >= 100) {
            s.push_str(&format!(
                ", {:.0} us per {unit}",
                c.as_secs_f64() * 1e6 / n as f64
            ));
        }
    }
    s
}

/// One plain line: `progress: 20.0 s, measured, 1:40 left, NOPM 52310, TPM 121004, errors 0,
/// retries 3, reconnects 0, client cpu 4.1% | NEWORD 87.1/s p95 4.12 ms, ...`.
pub fn line(i: &Interval, names: &[&str], unit: &str) -> String {
    let mut s = format!("progress: {}", head(i));
    for (name, v) in &i.rates {
        s.push_str(&format!(", {name} {v:.0}"));
    }
    s.push_str(&format!(", {}", health(i, unit, cpus())));
    let types: Vec<String> = names
        .iter()
        .zip(&i.types)
        .map(|(name, t)| {
            let mut x = format!("{name} {:.1}/s", per_second(t.finished, i.seconds));
            if let Some(p) = t.p95_us {
                x.push_str(&format!(" p95 {} ms", ms(p)));
            }
            x
        })
        .collect();
    if !types.is_empty() {
        s.push_str(" | ");
        s.push_str(&types.join(", "));
    }
    s
}

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The last `width` values as bars scaled from 0 to their maximum; a gap is a space.
pub fn sparkline(values: &[Option<f64>], width: usize) -> String {
    let shown = &values[values.len().saturating_sub(width)..];
    let max = shown.iter().flatten().cloned().fold(0.0_f64, f64::max);
    shown
        .iter()
        .map(|v| match v {
            None => ' ',
            Some(_) if max <= 0.0 => BARS[0],
            Some(v) => {
                let k = (v / max * (BARS.len() - 1) as f64).round() as usize;
                BARS[k.min(BARS.len() - 1)]
            }
        })
        .collect()
}

/// The panel: where the run is and its health, the database's rates with their sparklines,
/// then a row per unit type that has run (rate, p95, p95's sparkline).
pub fn panel(
    now: &Interval,
    earlier: &[Interval],
    names: &[&str],
    unit: &str,
    width: usize,
) -> Vec<String> {
    let all: Vec<&Interval> = earlier.iter().chain(std::iter::once(now)).collect();
    let spark = width.saturating_sub(40).clamp(8, 60);
    let mut lines = vec![format!("── {} ── {}", head(now), health(now, unit, cpus()))];
    for (name, v) in &now.rates {
        let values: Vec<Option<f64>> = all.iter().map(|i| i.rate(name)).collect();
        lines.push(format!(
            "{name:<10} {v:>12.0}   {}",
            sparkline(&values, spark)
        ));
    }
    let w = names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
    lines.push(format!(
        "{:<w$} {:>9} {:>9}   p95 over the run",
        "type", "per s", "p95 ms"
    ));
    for (k, (name, t)) in names.iter().zip(&now.types).enumerate() {
        // A type that has not run yet (a TPROC-H query still to come) takes no row.
        let ran = all
            .iter()
            .any(|i| i.types.get(k).is_some_and(|t| t.finished > 0));
        if !ran {
            continue;
        }
        let values: Vec<Option<f64>> = all
            .iter()
            .map(|i| i.types.get(k).and_then(|t| t.p95_us).map(|p| p as f64))
            .collect();
        lines.push(format!(
            "{name:<w$} {:>9.1} {:>9}   {}",
            per_second(t.finished, now.seconds),
            t.p95_us.map_or("-".to_string(), ms),
            sparkline(&values, spark)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::super::interval::{Phase, TypeInterval};
    use super::*;

    fn interval(nopm: f64, p95: Option<u64>) -> Interval {
        Interval {
            at: SystemTime::UNIX_EPOCH,
            elapsed: Duration::from_secs(20),
            seconds: 10.0,
            phase: Phase::Measured,
            remaining: Some(Duration::from_secs(100)),
            rates: vec![("NOPM", nopm), ("TPM", nopm * 2.3)],
            types: vec![
                TypeInterval {
                    finished: 871,
                    failed: 1,
                    retried: 3,
                    p95_us: p95,
                },
                TypeInterval::default(),
            ],
            reconnects: 2,
            client_cpu: Some(Duration::from_millis(410)),
        }
    }

    #[test]
    fn a_plain_line_says_where_the_run_is_and_what_each_type_did() {
        let i = interval(52310.0, Some(4123));
        let l = line(&i, &["NEWORD", "SLEV"], "transaction");
        let cpu = health(&i, "transaction", cpus());
        assert_eq!(
            l,
            format!(
                "progress: 20.0 s, measured, 1:40 left, NOPM 52310, TPM 120313, {cpu} \
                 | NEWORD 87.1/s p95 4.12 ms, SLEV 0.0/s"
            )
        );
        assert_eq!(
            health(&i, "transaction", 2),
            "errors 1, retries 3, reconnects 2, client cpu 2.0% of 2 CPUs, \
             471 us per transaction"
        );
    }

    #[test]
    fn sparklines_scale_to_their_maximum_and_keep_the_latest() {
        let v: Vec<Option<f64>> = [0.0, 50.0, 100.0].iter().map(|x| Some(*x)).collect();
        assert_eq!(sparkline(&v, 10), "▁▅█");
        assert_eq!(sparkline(&v, 2), "▅█");
        assert_eq!(sparkline(&[None, Some(0.0)], 5), " ▁");
    }

    #[test]
    fn the_panel_has_a_row_per_rate_and_per_type() {
        let mut earlier = vec![interval(40000.0, Some(2000)), interval(50000.0, None)];
        // SLEV ran once, in the first interval: it keeps its row, idle now.
        earlier[0].types[1].finished = 1;
        let p = panel(
            &interval(52310.0, Some(4123)),
            &earlier,
            &["NEWORD", "SLEV"],
            "transaction",
            100,
        );
        assert_eq!(p.len(), 2 + 1 + 1 + 2, "{p:#?}");
        assert!(p[0].starts_with("── 20.0 s, measured, 1:40 left ── errors 1"));
        assert!(
            p[1].starts_with("NOPM") && p[1].contains("52310"),
            "{}",
            p[1]
        );
        assert!(p[4].contains("87.1") && p[4].contains("4.12"), "{}", p[4]);
        assert!(p[4].ends_with("▄ █"), "{}", p[4]);
        assert!(p[5].contains(" -"), "{}", p[5]);
        // A type that has not run yet takes no row.
        let p = panel(
            &interval(52310.0, Some(4123)),
            &earlier[1..],
            &["NEWORD", "SLEV"],
            "transaction",
            100,
        );
        assert_eq!(p.len(), 2 + 1 + 1 + 1, "{p:#?}");
    }

    #[test]
    fn clocks_and_milliseconds_read_naturally() {
        assert_eq!(clock(Duration::from_secs(65)), "1:05");
        assert_eq!(clock(Duration::from_secs(3723)), "1:02:03");
        assert_eq!(ms(4123), "4.12");
        assert_eq!(ms(41230), "41.2");
        assert_eq!(ms(412300), "412");
    }
}
