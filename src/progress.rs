//! Progress of long work counted in units (rows, files): counters the workers bump without a
//! lock, and a reporter thread that shows them through [`Output`]: a block redrawn in place
//! on a terminal, a plain line every few seconds elsewhere (pipes, `hammer auto > log`, CI,
//! tests), and one line as each part finishes. It knows nothing of what is being counted.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::output::Output;

/// How often the terminal's block is redrawn.
pub const REDRAW: Duration = Duration::from_millis(500);
/// How often a plain progress line is printed when output is not a terminal.
pub const LINES: Duration = Duration::from_secs(5);
/// More parts than this and the terminal block shows only the total.
const MAX_SHOWN: usize = 8;

/// One part of the work: a loader, a table, a worker.
struct Part {
    name: String,
    /// How many units it should do; an estimate where the work is random (`~` is shown).
    expected: u64,
    exact: bool,
    done: AtomicU64,
    finished: AtomicBool,
    /// Milliseconds from the tracker's start to the part's finish.
    finished_at: AtomicU64,
}

/// The counters of one piece of long work, shared by its workers and its reporter.
pub struct Tracker {
    started: Instant,
    unit: &'static str,
    parts: Vec<Part>,
}

/// What a part is: its name and the units it should do, exactly or about.
#[derive(Debug, Clone)]
pub struct PartSpec {
    pub name: String,
    pub expected: u64,
    pub exact: bool,
}

impl Tracker {
    /// A tracker of `parts`, counting in `unit` (`rows`).
    pub fn new(unit: &'static str, parts: Vec<PartSpec>) -> Arc<Self> {
        Arc::new(Tracker {
            started: Instant::now(),
            unit,
            parts: parts
                .into_iter()
                .map(|p| Part {
                    name: p.name,
                    expected: p.expected,
                    exact: p.exact,
                    done: AtomicU64::new(0),
                    finished: AtomicBool::new(false),
                    finished_at: AtomicU64::new(0),
                })
                .collect(),
        })
    }

    /// Counts `n` more units done by part `i`.
    pub fn add(&self, i: usize, n: u64) {
        if let Some(p) = self.parts.get(i) {
            p.done.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Marks part `i` finished (its last line is printed at the next look).
    pub fn finish(&self, i: usize) {
        if let Some(p) = self.parts.get(i) {
            let ms = self.started.elapsed().as_millis() as u64;
            p.finished_at.store(ms, Ordering::Relaxed);
            p.finished.store(true, Ordering::Release);
        }
    }

    /// Units done by every part.
    pub fn total(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| p.done.load(Ordering::Relaxed))
            .sum()
    }

    /// The counters as they are now.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            elapsed: self.started.elapsed(),
            unit: self.unit,
            parts: self
                .parts
                .iter()
                .map(|p| {
                    let finished = p.finished.load(Ordering::Acquire);
                    PartState {
                        name: p.name.clone(),
                        done: p.done.load(Ordering::Relaxed),
                        expected: p.expected,
                        exact: p.exact,
                        finished: finished
                            .then(|| Duration::from_millis(p.finished_at.load(Ordering::Relaxed))),
                    }
                })
                .collect(),
        }
    }
}

/// One part at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct PartState {
    pub name: String,
    pub done: u64,
    pub expected: u64,
    pub exact: bool,
    /// When it finished, from the start, if it has.
    pub finished: Option<Duration>,
}

/// Every part at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub elapsed: Duration,
    pub unit: &'static str,
    pub parts: Vec<PartState>,
}

impl Snapshot {
    /// All parts as one: what the total line shows.
    pub fn total(&self) -> PartState {
        let all_done = self.parts.iter().all(|p| p.finished.is_some());
        PartState {
            name: "all".into(),
            done: self.parts.iter().map(|p| p.done).sum(),
            expected: self.parts.iter().map(|p| p.expected).sum(),
            exact: self.parts.iter().all(|p| p.exact),
            finished: all_done.then_some(self.elapsed),
        }
    }
}

/// Seconds rounded for people: `0.4 s`, `7 s`, `2 min 05 s`, `1 h 02 min`.
pub fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 60.0 {
        format!("{} s", s.round() as u64)
    } else if s < 3600.0 {
        let s = s.round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

/// A rate for people: three significant figures at most, `812`, `45.2k`, `1.20M`.
pub fn rate(per_second: f64) -> String {
    let r = per_second.max(0.0);
    if r < 1000.0 {
        format!("{r:.0}")
    } else if r < 1e6 {
        let k = r / 1e3;
        if k < 100.0 {
            format!("{k:.1}k")
        } else {
            format!("{k:.0}k")
        }
    } else {
        format!("{:.2}M", r / 1e6)
    }
}

/// One part in words: `warehouse 1: 245100 of ~499000 rows (49%), 52.1k rows/s, ETA 5 s`,
/// or when it has finished `item: 100000 rows in 1.9 s, 52.6k rows/s, done`.
pub fn describe(p: &PartState, elapsed: Duration, unit: &str) -> String {
    let secs_so_far = p.finished.unwrap_or(elapsed).as_secs_f64().max(1e-3);
    let per_s = p.done as f64 / secs_so_far;
    if let Some(took) = p.finished {
        return format!(
            "{}: {} {unit} in {}, {} {unit}/s, done",
            p.name,
            p.done,
            secs(took),
            rate(per_s)
        );
    }
    let about = if p.exact { "" } else { "~" };
    // An estimate is not past 99 % while the part is still at work.
    let pct = (p.done as f64 * 100.0 / p.expected.max(1) as f64).min(99.0);
    let eta = if p.done == 0 {
        "ETA unknown".to_string()
    } else {
        let left = p.expected.saturating_sub(p.done) as f64 / per_s;
        format!("ETA {}", secs(Duration::from_secs_f64(left.min(1e7))))
    };
    format!(
        "{}: {} of {about}{} {unit} ({pct:.0}%), {} {unit}/s, {eta}",
        p.name,
        p.done,
        p.expected,
        rate(per_s)
    )
}

/// The lines one look shows: a line per part still at work (none past [`MAX_SHOWN`] parts)
/// and, with more than one part, the total; each prefixed with `label` (`Loading`).
pub fn lines(s: &Snapshot, label: &str, with_finished: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if s.parts.len() <= MAX_SHOWN {
        out.extend(
            s.parts
                .iter()
                .filter(|p| with_finished || p.finished.is_none())
                .map(|p| format!("{label} {}", describe(p, s.elapsed, s.unit))),
        );
    }
    if s.parts.len() > 1 {
        out.push(format!(
            "{label} {}",
            describe(&s.total(), s.elapsed, s.unit)
        ));
    }
    out
}

/// How the reporter shows progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// A block at the bottom of the terminal, redrawn in place.
    Redraw,
    /// A plain line every `interval`, and one as each part finishes.
    Lines(Duration),
}

impl Mode {
    /// Redrawn on a terminal, plain lines every [`LINES`] elsewhere.
    pub fn of(out: &Output) -> Mode {
        if out.is_terminal() {
            Mode::Redraw
        } else {
            Mode::Lines(LINES)
        }
    }
}

/// The thread that shows a tracker's progress until [`Reporter::finish`] (or drop).
pub struct Reporter {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Reporter {
    /// Starts showing `tracker` on `out`, its lines prefixed with `label`.
    pub fn start(out: Output, tracker: Arc<Tracker>, label: &str, mode: Mode) -> Reporter {
        let (stop, stopped) = mpsc::channel::<()>();
        let label = label.to_string();
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || report(out, tracker, &label, mode, stopped))
            .ok();
        Reporter {
            stop: Some(stop),
            thread,
        }
    }

    /// Stops the reporter: the parts that finished since its last look are said, and the
    /// terminal block is removed.
    pub fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            // The thread wakes at once on the closed channel; it only prints before ending.
            let _ = t.join();
        }
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.end();
    }
}

fn report(out: Output, tracker: Arc<Tracker>, label: &str, mode: Mode, stop: mpsc::Receiver<()>) {
    let every = match mode {
        Mode::Redraw => REDRAW,
        Mode::Lines(d) => d,
    };
    let mut said = vec![false; tracker.parts.len()];
    let mut said_all = false;
    let mut next_tick = Instant::now() + every;
    loop {
        // A closed channel (the owner is done) ends the wait at once.
        let wait = next_tick.saturating_duration_since(Instant::now());
        let ending = !matches!(
            stop.recv_timeout(wait.min(REDRAW)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        let snap = tracker.snapshot();
        // Each part's last line, once, as it finishes.
        let mut news = false;
        for (i, p) in snap.parts.iter().enumerate() {
            if p.finished.is_some() && !said[i] {
                said[i] = true;
                news = true;
                out.line(format!("{label} {}", describe(p, snap.elapsed, snap.unit)));
            }
        }
        // The block below the new line must not show the part at work any more.
        if news && mode == Mode::Redraw && !ending {
            out.panel(lines(&snap, label, false));
        }
        let all_done = snap.parts.iter().all(|p| p.finished.is_some());
        if all_done && snap.parts.len() > 1 && !said_all {
            said_all = true;
            out.line(format!(
                "{label} {}",
                describe(&snap.total(), snap.elapsed, snap.unit)
            ));
        }
        if ending {
            break;
        }
        if Instant::now() < next_tick || all_done {
            continue;
        }
        next_tick += every;
        match mode {
            Mode::Redraw => out.panel(lines(&snap, label, false)),
            Mode::Lines(_) => {
                for line in lines(&snap, label, false) {
                    out.line(line);
                }
            }
        }
    }
    if mode == Mode::Redraw {
        out.clear_status();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_rounded_for_people() {
        let s = |f: f64| secs(Duration::from_secs_f64(f));
        assert_eq!(s(4.389669702), "4.4 s");
        assert_eq!(s(0.04), "0.0 s");
        assert_eq!(s(12.6), "13 s");
        assert_eq!(s(125.2), "2 min 05 s");
        assert_eq!(s(3725.0), "1 h 02 min");
    }

    #[test]
    fn rates_have_three_figures_at_most() {
        assert_eq!(rate(812.4), "812");
        assert_eq!(rate(45_210.0), "45.2k");
        assert_eq!(rate(452_100.0), "452k");
        assert_eq!(rate(1_204_000.0), "1.20M");
        assert_eq!(rate(-1.0), "0");
    }

    fn part(name: &str, done: u64, expected: u64, finished: Option<f64>) -> PartState {
        PartState {
            name: name.into(),
            done,
            expected,
            exact: name == "item",
            finished: finished.map(Duration::from_secs_f64),
        }
    }

    #[test]
    fn a_part_says_its_rows_rate_and_eta_or_that_it_is_done() {
        let t = Duration::from_secs(10);
        assert_eq!(
            describe(&part("warehouse 1", 250_000, 500_000, None), t, "rows"),
            "warehouse 1: 250000 of ~500000 rows (50%), 25.0k rows/s, ETA 10 s"
        );
        assert_eq!(
            describe(&part("item", 100_000, 100_000, Some(2.0)), t, "rows"),
            "item: 100000 rows in 2.0 s, 50.0k rows/s, done"
        );
        assert_eq!(
            describe(&part("warehouse 1", 0, 500_000, None), t, "rows"),
            "warehouse 1: 0 of ~500000 rows (0%), 0 rows/s, ETA unknown"
        );
        // Past an estimate while still at work: 99 %, not more.
        assert!(describe(&part("w", 600, 500, None), t, "rows").contains("(99%)"));
    }

    #[test]
    fn a_look_shows_the_parts_at_work_and_the_total() {
        let snap = Snapshot {
            elapsed: Duration::from_secs(10),
            unit: "rows",
            parts: vec![
                part("item", 100_000, 100_000, Some(2.0)),
                part("warehouse 1", 250_000, 500_000, None),
            ],
        };
        let l = lines(&snap, "Loading", false);
        assert_eq!(l.len(), 2, "{l:?}");
        assert!(l[0].starts_with("Loading warehouse 1: 250000 of ~500000"));
        assert!(l[1].starts_with("Loading all: 350000 of ~600000 rows (58%), 35.0k rows/s"));
        assert_eq!(lines(&snap, "Loading", true).len(), 3);
    }

    #[test]
    fn plain_lines_come_every_interval_and_as_parts_finish() {
        let out = Output::capture();
        let tracker = Tracker::new(
            "rows",
            vec![
                PartSpec {
                    name: "a".into(),
                    expected: 10,
                    exact: true,
                },
                PartSpec {
                    name: "b".into(),
                    expected: 10,
                    exact: true,
                },
            ],
        );
        let r = Reporter::start(
            out.clone(),
            tracker.clone(),
            "Loading",
            Mode::Lines(Duration::from_millis(100)),
        );
        tracker.add(0, 10);
        tracker.finish(0);
        tracker.add(1, 3);
        std::thread::sleep(Duration::from_millis(350));
        tracker.add(1, 7);
        tracker.finish(1);
        r.finish();
        let got = out.take_captured();
        let done: Vec<&String> = got.iter().filter(|l| l.ends_with(", done")).collect();
        assert_eq!(done.len(), 3, "a, b and all finish once each: {got:#?}");
        assert!(
            got.iter()
                .any(|l| l.starts_with("Loading b: 3 of 10 rows (30%)")),
            "{got:#?}"
        );
        let ticks = got.iter().filter(|l| l.contains("ETA")).count();
        assert!(ticks >= 2, "a line or more every 100 ms: {got:#?}");
        assert!(
            got.last().unwrap().starts_with("Loading all: 20 rows in"),
            "{got:#?}"
        );
    }
}
