//! CPU metrics (`metstart`, `metstatus`, `metstop`): a display task that receives samples from
//! an agent (in-process for localhost, else `hammer agent` over TCP), prints HammerDB's
//! `CPU all usr%-x sys%-y irq%-z idle%-w` lines, and keeps the series.
//!
//! Each line is one interval's shares, not HammerDB's geometric mean of the last five
//! samples (which shows 0.00 whenever one of them was 0).

pub mod agent;
pub mod cpu;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use agent::Message;
use cpu::{CpuLoad, System};

use crate::output::Output;

/// What `metset` configured, read at `metstart`.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub host: String,
    pub port: u16,
    pub interval: Duration,
    /// Print a line per CPU after the `all` line.
    pub per_cpu: bool,
}

impl Options {
    /// `localhost` means the agent inside hammer; any other name, an agent over TCP.
    pub fn is_local(&self) -> bool {
        self.host.eq_ignore_ascii_case("localhost")
    }

    /// `host:port`, or `localhost` for the agent inside hammer.
    pub fn endpoint(&self) -> String {
        if self.is_local() {
            self.host.clone()
        } else if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// One interval's shares.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuSample {
    /// When the interval ended, by the agent's clock.
    pub at: SystemTime,
    pub seconds: f64,
    pub all: CpuLoad,
    /// Each CPU, in the agent's order.
    pub cpus: Vec<CpuLoad>,
}

/// Everything one `metstart` … `metstop` received: what the job history stores.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub host: String,
    pub system: Option<System>,
    pub samples: Vec<CpuSample>,
    pub events: Vec<(SystemTime, String)>,
}

/// Minimum, time-weighted average and maximum of one column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub samples: usize,
    pub seconds: f64,
    pub usr: Stat,
    pub sys: Stat,
    pub irq: Stat,
    pub idle: Stat,
}

impl Series {
    pub fn summary(&self) -> Option<Summary> {
        let s = &self.samples;
        if s.is_empty() {
            return None;
        }
        let seconds: f64 = s.iter().map(|x| x.seconds).sum();
        let stat = |f: fn(&CpuLoad) -> f64| {
            let (min, max) = s
                .iter()
                .map(|x| f(&x.all))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                });
            let weighted: f64 = s.iter().map(|x| f(&x.all) * x.seconds).sum();
            let avg = if seconds > 0.0 {
                weighted / seconds
            } else {
                s.iter().map(|x| f(&x.all)).sum::<f64>() / s.len() as f64
            };
            Stat { min, avg, max }
        };
        Some(Summary {
            samples: s.len(),
            seconds,
            usr: stat(|l| l.usr),
            sys: stat(|l| l.sys),
            irq: stat(|l| l.irq),
            idle: stat(|l| l.idle),
        })
    }

    /// The lines `metstop` prints.
    pub fn summary_lines(&self) -> Vec<String> {
        let Some(s) = self.summary() else {
            return vec!["CPU Metrics: no sample to report".to_string()];
        };
        let col =
            |name: &str, st: Stat| format!("{name}%-{:.2}/{:.2}/{:.2}", st.min, st.avg, st.max);
        vec![
            format!(
                "CPU Metrics: {} samples over {:.1} s on {}",
                s.samples, s.seconds, self.host
            ),
            format!(
                "CPU all min/avg/max {} {} {} {}",
                col("usr", s.usr),
                col("sys", s.sys),
                col("irq", s.irq),
                col("idle", s.idle)
            ),
        ]
    }
}

/// HammerDB's line: `CPU all usr%-12.34 sys%-1.23 irq%-0.00 idle%-85.00`.
pub fn cpu_line(l: &CpuLoad) -> String {
    format!(
        "CPU {} usr%-{:.2} sys%-{:.2} irq%-{:.2} idle%-{:.2}",
        l.cpu, l.usr, l.sys, l.irq, l.idle
    )
}

/// Where the display stands with its agent, for `metstatus`.
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    Connecting,
    Connected,
    /// Not connected; why, and retrying.
    Failing(String),
}

/// The metrics a session owns: at most one display, and the last series kept after `metstop`.
#[derive(Default)]
pub struct Metrics {
    running: Option<Running>,
    last: Option<Arc<Mutex<Series>>>,
}

struct Running {
    opts: Options,
    handle: JoinHandle<()>,
    stop: watch::Sender<bool>,
    series: Arc<Mutex<Series>>,
    link: Arc<Mutex<Link>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
const MAX_BACKOFF: Duration = Duration::from_secs(16);
/// Longer than the longest sampling interval: an agent that stays silent longer is gone.
const MAX_INTERVAL_WAIT: Duration = Duration::from_secs(3600 + 60);
/// How long a connected agent may take to say hello (it does at once).
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How `metstop` ended.
pub struct Stopped {
    pub opts: Options,
    pub series: Series,
    pub aborted: bool,
}

impl Metrics {
    /// The options of the running display, if one runs, and its link.
    pub fn status(&self) -> Option<(Options, Link)> {
        self.running
            .as_ref()
            .map(|r| (r.opts.clone(), lock(&r.link).clone()))
    }

    /// The current series, or the last one after `metstop`.
    pub fn series(&self) -> Option<Series> {
        self.running
            .as_ref()
            .map(|r| &r.series)
            .or(self.last.as_ref())
            .map(|s| lock(s).clone())
    }

    /// Starts the display (and, for localhost, the agent inside hammer).
    pub fn start(
        &mut self,
        rt: &tokio::runtime::Handle,
        opts: Options,
        out: Output,
        sink: crate::jobs::recorder::SeriesSink,
    ) {
        let series = Arc::new(Mutex::new(Series {
            host: opts.host.clone(),
            ..Series::default()
        }));
        let link = Arc::new(Mutex::new(if opts.is_local() {
            Link::Connected
        } else {
            Link::Connecting
        }));
        let (stop, stop_rx) = watch::channel(false);
        let display = Display {
            opts: opts.clone(),
            out,
            series: series.clone(),
            sink,
            link: link.clone(),
            stop: stop_rx,
        };
        let handle = rt.spawn(display.run());
        self.running = Some(Running {
            opts,
            handle,
            stop,
            series,
            link,
        });
    }

    /// Signals the display, waits for it (aborting it after a timeout), and keeps its series.
    pub fn stop(&mut self, rt: &tokio::runtime::Handle) -> Option<Stopped> {
        let r = self.running.take()?;
        let _ = r.stop.send(true);
        let aborted = crate::task::join_or_abort(rt, r.handle);
        let series = lock(&r.series).clone();
        self.last = Some(r.series);
        Some(Stopped {
            opts: r.opts,
            series,
            aborted,
        })
    }
}

struct Display {
    opts: Options,
    out: Output,
    series: Arc<Mutex<Series>>,
    /// The job history's copy of each sample (all CPUs).
    sink: crate::jobs::recorder::SeriesSink,
    link: Arc<Mutex<Link>>,
    stop: watch::Receiver<bool>,
}

/// Why a connection to the agent ended.
enum Ended {
    Stopped,
    /// The connection ended; `streamed` when the agent had said hello on it first (a busy
    /// agent, or something that is no agent, never does).
    Lost {
        why: String,
        streamed: bool,
    },
}

impl Display {
    fn say(&self, what: String) {
        lock(&self.series)
            .events
            .push((SystemTime::now(), what.clone()));
        self.out.line(what);
    }

    fn set_link(&self, link: Link) {
        *lock(&self.link) = link;
    }

    async fn stopped(stop: &mut watch::Receiver<bool>) {
        if *stop.borrow() {
            return;
        }
        // A dropped sender (the session went away) stops the display too.
        let _ = stop.changed().await;
    }

    /// Waits `d`; false when asked to stop first.
    async fn pause(&mut self, d: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(d) => !*self.stop.borrow(),
            _ = Self::stopped(&mut self.stop) => false,
        }
    }

    async fn run(mut self) {
        if self.opts.is_local() {
            self.run_local().await;
        } else {
            self.run_remote().await;
        }
    }

    async fn run_local(&mut self) {
        let (tx, mut rx) = mpsc::channel(16);
        let agent = tokio::spawn(agent::stream(self.opts.interval, tx));
        self.out.line("Metrics Connected");
        loop {
            let msg = tokio::select! {
                m = rx.recv() => m,
                _ = Self::stopped(&mut self.stop) => None,
            };
            let Some(msg) = msg else { break };
            self.handle(msg);
        }
        drop(rx);
        let _ = agent.await;
    }

    /// Connects to the agent and keeps connecting: a refusal or a loss is said once, the
    /// return once, and the retries between them are quiet.
    async fn run_remote(&mut self) {
        let endpoint = self.opts.endpoint();
        let mut wait = Duration::from_secs(1);
        // Whether the trouble has been said since the agent last streamed.
        let mut said_trouble = false;
        let mut ever_streamed = false;
        loop {
            self.set_link(Link::Connecting);
            let attempt = tokio::time::timeout(
                CONNECT_TIMEOUT,
                TcpStream::connect((self.opts.host.as_str(), self.opts.port)),
            )
            .await;
            let trouble = match attempt {
                Ok(Ok(stream)) => {
                    let again = if ever_streamed { " again" } else { "" };
                    match self.connected(stream, again).await {
                        Ended::Stopped => return,
                        Ended::Lost { why, streamed } => {
                            if streamed {
                                ever_streamed = true;
                                said_trouble = false;
                                wait = Duration::from_secs(1);
                            }
                            let what = if streamed {
                                format!(
                                    "Lost connection to Metrics Agent @ {endpoint} ({why}); retrying"
                                )
                            } else {
                                format!("Metrics Agent @ {endpoint} refused the display ({why}); retrying")
                            };
                            Some((why, what))
                        }
                    }
                }
                Ok(Err(e)) => Some(self.unreachable(e.to_string())),
                Err(_) => Some(
                    self.unreachable(format!("no answer within {} s", CONNECT_TIMEOUT.as_secs())),
                ),
            };
            if let Some((why, what)) = trouble {
                if !said_trouble {
                    said_trouble = true;
                    self.say(what);
                }
                self.set_link(Link::Failing(why));
            }
            if !self.pause(wait).await {
                return;
            }
            wait = (wait * 2).min(MAX_BACKOFF);
        }
    }

    /// Why no connection could be made, and how that is said.
    fn unreachable(&self, why: String) -> (String, String) {
        let what = format!(
            "Connection failed verify agent hostname and id @ {} ({why}); \
             is `hammer agent --port {}` running there? Retrying",
            self.opts.endpoint(),
            self.opts.port
        );
        (why, what)
    }

    /// Talks to a connected agent until it goes away or the display is stopped.
    async fn connected(&mut self, stream: TcpStream, again: &str) -> Ended {
        let endpoint = self.opts.endpoint();
        let (read, mut write) = stream.into_split();
        let start = Message::Start {
            interval_ms: self.opts.interval.as_millis() as u64,
        };
        if let Err(e) = write.write_all(start.to_line().as_bytes()).await {
            return Ended::Lost {
                why: e.to_string(),
                streamed: false,
            };
        }
        let mut lines = BufReader::new(read).lines();
        let mut said_connected = false;
        loop {
            // Something that accepts the connection and says nothing is no agent of ours.
            let patience = if said_connected {
                MAX_INTERVAL_WAIT
            } else {
                HELLO_TIMEOUT
            };
            let line = tokio::select! {
                l = tokio::time::timeout(patience, lines.next_line()) => match l {
                    Ok(l) => l,
                    Err(_) => return Ended::Lost {
                        why: format!(
                            "nothing received for {} s: is `hammer agent` listening there?",
                            patience.as_secs()
                        ),
                        streamed: said_connected,
                    },
                },
                _ = Self::stopped(&mut self.stop) => return Ended::Stopped,
            };
            let line = match line {
                Ok(Some(l)) => l,
                Ok(None) => {
                    return Ended::Lost {
                        why: "the agent closed the connection".into(),
                        streamed: said_connected,
                    }
                }
                Err(e) => {
                    return Ended::Lost {
                        why: e.to_string(),
                        streamed: said_connected,
                    }
                }
            };
            let msg = match serde_json::from_str::<Message>(&line) {
                Ok(Message::Busy { message }) => {
                    return Ended::Lost {
                        why: format!("{message}: another display is connected"),
                        streamed: said_connected,
                    }
                }
                Ok(m) => m,
                Err(e) => {
                    return Ended::Lost {
                        why: format!("it does not speak hammer's metrics protocol: {e}"),
                        streamed: said_connected,
                    }
                }
            };
            if !said_connected {
                said_connected = true;
                self.set_link(Link::Connected);
                self.say(format!("Metrics Connected{again} to Agent @ {endpoint}"));
            }
            self.handle(msg);
        }
    }

    fn handle(&self, msg: Message) {
        match msg {
            Message::Hello { system, .. } => {
                for line in system.lines() {
                    self.out.line(line);
                }
                lock(&self.series).system = Some(system);
            }
            Message::Sample {
                time_ms,
                seconds,
                cpus,
            } => {
                let mut cpus = cpus.into_iter();
                let Some(all) = cpus.next() else { return };
                let sample = CpuSample {
                    at: crate::clock::from_unix_ms(time_ms),
                    seconds,
                    all,
                    cpus: cpus.collect(),
                };
                self.out.line(cpu_line(&sample.all));
                if self.opts.per_cpu {
                    for c in &sample.cpus {
                        self.out.line(cpu_line(c));
                    }
                }
                let a = &sample.all;
                self.sink
                    .record_metric(sample.at, a.usr, a.sys, a.irq, a.idle);
                lock(&self.series).samples.push(sample);
            }
            Message::Start { .. } | Message::Busy { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(usr: f64, sys: f64, idle: f64) -> CpuLoad {
        CpuLoad {
            cpu: "all".into(),
            usr,
            nice: 0.0,
            sys,
            iowait: 0.0,
            irq: 0.0,
            soft: 0.0,
            steal: 0.0,
            idle,
        }
    }

    #[test]
    fn lines_have_hammerdb_shape_and_two_decimals() {
        assert_eq!(
            cpu_line(&load(12.346, 1.0, 86.654)),
            "CPU all usr%-12.35 sys%-1.00 irq%-0.00 idle%-86.65"
        );
    }

    #[test]
    fn summary_weights_by_interval() {
        let sample = |seconds, l| CpuSample {
            at: SystemTime::UNIX_EPOCH,
            seconds,
            all: l,
            cpus: vec![],
        };
        let s = Series {
            host: "localhost".into(),
            samples: vec![
                sample(1.0, load(10.0, 0.0, 90.0)),
                sample(3.0, load(50.0, 10.0, 40.0)),
            ],
            ..Series::default()
        };
        let sum = s.summary().unwrap();
        assert_eq!(
            sum.usr,
            Stat {
                min: 10.0,
                avg: 40.0,
                max: 50.0
            }
        );
        assert_eq!(sum.idle.avg, 52.5);
        assert_eq!(
            s.summary_lines()[1],
            "CPU all min/avg/max usr%-10.00/40.00/50.00 sys%-0.00/7.50/10.00 irq%-0.00/0.00/0.00 idle%-40.00/52.50/90.00"
        );
        assert_eq!(
            Series::default().summary_lines(),
            ["CPU Metrics: no sample to report"]
        );
    }

    #[test]
    fn localhost_is_the_agent_inside_hammer() {
        let mut o = Options {
            host: "LocalHost".into(),
            port: 10000,
            interval: Duration::from_secs(2),
            per_cpu: false,
        };
        assert!(o.is_local());
        assert_eq!(o.endpoint(), "LocalHost");
        o.host = "127.0.0.1".into();
        assert!(!o.is_local());
        assert_eq!(o.endpoint(), "127.0.0.1:10000");
        o.host = "::1".into();
        assert_eq!(o.endpoint(), "[::1]:10000");
    }
}
