//! What the live view shows and the job keeps: one interval of a run (per unit type, the
//! database's rates, where the run is), and a run's series of them. Plain data; the sampler is
//! [`super::live`], the rendering [`super::view`].

use std::time::{Duration, SystemTime};

/// Where an interval lies in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// A timed run before its measured window.
    Rampup,
    /// A timed run's measured window.
    Measured,
    /// After the window: the end reading taken, the terminals stopping.
    Ending,
    /// A run without a monitor: every unit counts.
    Running,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Rampup => "rampup",
            Phase::Measured => "measured",
            Phase::Ending => "ending",
            Phase::Running => "running",
        }
    }
}

/// One unit type over one interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TypeInterval {
    /// Units that finished: committed, rolled back as asked, or failed.
    pub finished: u64,
    pub failed: u64,
    pub retried: u64,
    /// The 95th percentile of the response times of the units that succeeded, in
    /// microseconds; `None` when none did.
    pub p95_us: Option<u64>,
}

/// What a run did over one interval of its live view.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// When the interval ended.
    pub at: SystemTime,
    /// From the run's start to the interval's end.
    pub elapsed: Duration,
    /// The interval's length in seconds.
    pub seconds: f64,
    pub phase: Phase,
    /// Until the end of the measured window, for a timed run.
    pub remaining: Option<Duration>,
    /// The database's own rates over the interval, as the workload's monitor names them
    /// (`NOPM`, `TPM`); empty without a monitor or when a reading failed.
    pub rates: Vec<(&'static str, f64)>,
    /// Per unit type, in the workload's order.
    pub types: Vec<TypeInterval>,
    /// Lost connections that were reconnected in the interval.
    pub reconnects: u64,
    /// CPU time hammer's process used in the interval, where the platform tells.
    pub client_cpu: Option<Duration>,
}

impl Interval {
    pub fn finished(&self) -> u64 {
        self.types.iter().map(|t| t.finished).sum()
    }

    pub fn failed(&self) -> u64 {
        self.types.iter().map(|t| t.failed).sum()
    }

    pub fn retried(&self) -> u64 {
        self.types.iter().map(|t| t.retried).sum()
    }

    /// A database rate by name (`NOPM`).
    pub fn rate(&self, name: &str) -> Option<f64> {
        self.rates.iter().find(|(n, _)| *n == name).map(|r| r.1)
    }

    /// Client CPU as a share of one core over the interval, in percent.
    pub fn client_cpu_percent(&self) -> Option<f64> {
        let cpu = self.client_cpu?;
        (self.seconds > 0.0).then(|| cpu.as_secs_f64() / self.seconds * 100.0)
    }
}

/// A run's live series: the job keeps it and its report draws it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    /// The unit types' names, in the order of each interval's `types`.
    pub names: Vec<String>,
    pub intervals: Vec<Interval>,
    /// The measured window as offsets from the run's start, for a timed run that reached
    /// it (the end is missing when the run stopped inside it).
    pub window: Option<(Duration, Option<Duration>)>,
}
