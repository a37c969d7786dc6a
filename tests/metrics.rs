//! CPU metrics: the agent inside hammer and `hammer agent` over TCP agree with `/proc/stat`
//! deltas the test takes itself, idle and with a core loaded; lost and refused agents; the
//! bad inputs; and `runtimer`, which blocks a script but not the metrics.
//!
//! The tests take turns (a lock): one's load is not the other's noise, and a port one of them
//! has just found free is not handed to another.

mod common;

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Fixture;

static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The test's own reading of `/proc/stat`: (cpu, [user, nice, system, idle, iowait, irq,
/// softirq, steal, guest, guest_nice]).
fn proc_stat() -> Vec<(String, [u64; 10])> {
    std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("cpu"))
        .map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next().unwrap().trim_start_matches("cpu");
            let mut v = [0u64; 10];
            for (i, x) in f.take(10).enumerate() {
                v[i] = x.parse().unwrap();
            }
            let name = if name.is_empty() { "all" } else { name };
            (name.to_string(), v)
        })
        .collect()
}

/// (usr, sys, idle) percentages of `cpu` between two readings, as mpstat computes them.
fn shares(a: &[(String, [u64; 10])], b: &[(String, [u64; 10])], cpu: &str) -> (f64, f64, f64) {
    let get = |s: &[(String, [u64; 10])]| s.iter().find(|x| x.0 == cpu).unwrap().1;
    let (a, b) = (get(a), get(b));
    let d = |i: usize| (b[i] - a[i]) as f64;
    let total: f64 = (0..8).map(d).sum();
    (
        (d(0) - d(8)) * 100.0 / total,
        d(2) * 100.0 / total,
        d(3) * 100.0 / total,
    )
}

/// Keeps one core busy until dropped.
struct Load(Arc<AtomicBool>, Option<std::thread::JoinHandle<()>>);

impl Load {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let t = std::thread::spawn(move || {
            let mut x = 0u64;
            while !s.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
            }
        });
        Load(stop, Some(t))
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        if let Some(t) = self.1.take() {
            let _ = t.join();
        }
    }
}

fn samples(f: &Fixture) -> Vec<hammer::metrics::CpuSample> {
    f.engine
        .session()
        .metrics_series()
        .map(|s| s.samples)
        .unwrap_or_default()
}

/// Waits for the next sample and reads `/proc/stat` the moment it arrives.
fn next_sample(f: &Fixture) -> (hammer::metrics::CpuSample, Vec<(String, [u64; 10])>) {
    let seen = samples(f).len();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let s = samples(f);
        if s.len() > seen {
            let stat = proc_stat();
            return (s[s.len() - 1].clone(), stat);
        }
        assert!(Instant::now() < deadline, "no sample in 30 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Over `n` one-second samples, the agent's time-weighted usr/sys/idle of every CPU agree with
/// the test's own `/proc/stat` deltas over the same period within 5 percentage points.
/// Returns the busy share (usr + sys) of `all` by `/proc/stat`.
fn agree_over(f: &Fixture, n: usize, label: &str) -> f64 {
    let (_, start) = next_sample(f);
    let mut got = Vec::new();
    let mut end = start.clone();
    for _ in 0..n {
        let (s, stat) = next_sample(f);
        got.push(s);
        end = stat;
    }
    let seconds: f64 = got.iter().map(|s| s.seconds).sum();
    let cpus: Vec<String> = start.iter().map(|x| x.0.clone()).collect();
    let mut all_busy = 0.0;
    for cpu in &cpus {
        let pick = |s: &hammer::metrics::CpuSample| {
            if cpu == "all" {
                s.all.clone()
            } else {
                s.cpus
                    .iter()
                    .find(|c| &c.cpu == cpu)
                    .cloned()
                    .unwrap_or_else(|| panic!("no cpu {cpu} in {s:?}"))
            }
        };
        let avg = |col: fn(&hammer::metrics::cpu::CpuLoad) -> f64| {
            got.iter().map(|s| col(&pick(s)) * s.seconds).sum::<f64>() / seconds
        };
        let agent = (avg(|l| l.usr), avg(|l| l.sys), avg(|l| l.idle));
        let test = shares(&start, &end, cpu);
        println!("{label} cpu {cpu}: agent usr/sys/idle {agent:.2?}, /proc/stat {test:.2?}");
        for (what, a, t) in [
            ("usr", agent.0, test.0),
            ("sys", agent.1, test.1),
            ("idle", agent.2, test.2),
        ] {
            assert!(
                (a - t).abs() <= 5.0,
                "{label} cpu {cpu} {what}%: agent {a:.2}, /proc/stat {t:.2}"
            );
        }
        if cpu == "all" {
            all_busy = test.0 + test.1;
        }
    }
    all_busy
}

#[test]
fn the_agent_inside_hammer_agrees_with_proc_stat() {
    let _turn = turn();
    let mut f = Fixture::new();
    f.ok("metset interval 1; metset percpu 1");
    let started = f.ok("metstart");
    assert_eq!(started[0], "Starting Local Metrics Agent on localhost");
    agree_over(&f, 3, "without load of ours");
    let load = Load::start();
    let busy = agree_over(&f, 3, "one core loaded");
    drop(load);
    // The loaded core shows, whatever else runs: at least most of one CPU's share.
    let cpus = std::thread::available_parallelism().unwrap().get() as f64;
    assert!(
        busy > 100.0 / cpus * 0.8,
        "usr+sys {busy:.2} with a core loaded"
    );
    let lines = [started, f.out.take_captured()].concat();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Started CPU Metrics for ") && l.ends_with(" CPUs)")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("System Discovery: ")));
    let all = lines
        .iter()
        .filter(|l| l.starts_with("CPU all usr%-"))
        .count();
    let cpu0 = lines
        .iter()
        .filter(|l| l.starts_with("CPU 0 usr%-"))
        .count();
    // (The last sample's per-CPU lines may still be on their way.)
    assert!(all >= 8 && cpu0 + 1 >= all, "{lines:#?}");
    let line = lines.iter().find(|l| l.starts_with("CPU all")).unwrap();
    // Two decimals in each of the four columns.
    for part in line.split(' ').skip(2) {
        let (_, v) = part.split_once("%-").unwrap();
        assert_eq!(v.split_once('.').unwrap().1.len(), 2, "{line}");
    }
    // metset is refused while metrics run; metstop prints min/avg/max and returns them.
    let e = f.err("metset agent_id 10001");
    assert!(
        e.contains("Stop Metrics before setting configuration"),
        "{e}"
    );
    let e = f.err("metstart");
    assert_eq!(
        e,
        "CPU metrics are already running on localhost, call metstop to stop"
    );
    let (r, lines) = f.console(
        "let m = metstop(); m.usr.max >= m.usr.avg && m.usr.avg >= m.usr.min && m.samples >= 8",
    );
    assert_eq!(r, Ok("true".to_string()), "{lines:#?}");
    assert!(
        lines.contains(&"Stopping Metrics Agent and Display on localhost".to_string()),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("CPU all min/avg/max usr%-")),
        "{lines:#?}"
    );
    assert_eq!(f.err("metstop"), "CPU Metrics are not running on localhost");
    f.ok("metset agent_id 10001");
}

/// A free loopback port (nothing listens on it once this returns).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A `hammer agent` process, killed when dropped (a failing test leaves none behind).
struct Agent(Child);

impl Agent {
    fn kill(mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `hammer agent` on loopback; returns once it listens.
fn agent(port: u16) -> Agent {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["agent", "--port", &port.to_string(), "--bind", "127.0.0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer agent starts");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(
        first.contains(&format!("listening on 127.0.0.1:{port}")),
        "{first}"
    );
    // Keep draining its output so that it never blocks on a full pipe.
    std::thread::spawn(move || for _ in out.lines() {});
    Agent(child)
}

fn wait_for(f: &Fixture, what: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !seen.iter().any(|l| l.contains(what)) {
        if Instant::now() > deadline {
            let status = f.engine.session().metrics_series();
            panic!("no {what:?} in {seen:#?}\n{status:#?}");
        }
        std::thread::sleep(Duration::from_millis(50));
        seen.extend(f.out.take_captured());
    }
}

#[test]
fn hammer_agent_over_tcp_agrees_with_proc_stat_and_survives_a_restart() {
    let _turn = turn();
    let port = free_port();
    let agent_process = agent(port);
    let mut f = Fixture::new();
    f.ok(&format!(
        "metset agent_hostname 127.0.0.1; metset agent_id {port}; metset interval 1"
    ));
    let mut seen = f.ok("metstart");
    assert_eq!(
        seen[0],
        format!("Connecting to Metrics Agent @ 127.0.0.1:{port}")
    );
    wait_for(&f, "Started CPU Metrics for ", &mut seen);
    assert!(
        seen.contains(&format!("Metrics Connected to Agent @ 127.0.0.1:{port}")),
        "{seen:#?}"
    );
    let load = Load::start();
    agree_over(&f, 3, "hammer agent, one core loaded");
    drop(load);
    let status: Vec<String> = f
        .ok("metstatus")
        .into_iter()
        .filter(|l| !l.starts_with("CPU all usr%-"))
        .collect();
    assert_eq!(
        status,
        [
            "CPU Metrics are running on 127.0.0.1".to_string(),
            format!("Metrics Agent running on 127.0.0.1:{port}")
        ]
    );

    // The agent goes away: the loss said once, the retries quiet while it is away, and its
    // return said once when it is back.
    agent_process.kill();
    seen.clear();
    let lost = format!("Lost connection to Metrics Agent @ 127.0.0.1:{port}");
    wait_for(&f, &lost, &mut seen);
    // Retries at 1, 2 and 4 s find nothing listening.
    std::thread::sleep(Duration::from_secs(4));
    seen.extend(f.out.take_captured());
    let agent_process = agent(port);
    let back = format!("Metrics Connected again to Agent @ 127.0.0.1:{port}");
    wait_for(&f, &back, &mut seen);
    let before = samples(&f).len();
    next_sample(&f);
    assert!(samples(&f).len() > before);
    seen.extend(f.out.take_captured());
    let count = |lines: &[String], what: &str| lines.iter().filter(|l| l.contains(what)).count();
    assert_eq!(count(&seen, &lost), 1, "{seen:#?}");
    assert_eq!(count(&seen, "Connection failed"), 0, "{seen:#?}");
    assert_eq!(count(&seen, &back), 1, "{seen:#?}");

    // A second display is refused while the first holds the stream: said once, however
    // many retries; when the first lets go, the second connects, said once (not "again":
    // it never streamed before).
    let mut other = Fixture::new();
    other.ok(&format!(
        "metset agent_hostname 127.0.0.1; metset agent_id {port}"
    ));
    let mut other_seen = other.ok("metstart");
    wait_for(&other, "AGENT BUSY - STREAM IN USE", &mut other_seen);
    std::thread::sleep(Duration::from_secs(4));
    other_seen.extend(other.out.take_captured());
    assert_eq!(count(&other_seen, "AGENT BUSY"), 1, "{other_seen:#?}");
    let refused = other_seen
        .iter()
        .find(|l| l.contains("AGENT BUSY"))
        .unwrap();
    assert!(
        refused.starts_with(&format!(
            "Metrics Agent @ 127.0.0.1:{port} refused the display (AGENT BUSY - STREAM IN USE"
        )),
        "{refused}"
    );
    let lines = f.ok("metstop");
    assert!(
        lines.contains(&format!(
            "Stopping Metrics Agent and Display on 127.0.0.1:{port}"
        )),
        "{lines:#?}"
    );
    let connected = format!("Metrics Connected to Agent @ 127.0.0.1:{port}");
    wait_for(&other, &connected, &mut other_seen);
    next_sample(&other);
    other_seen.extend(other.out.take_captured());
    assert_eq!(count(&other_seen, &connected), 1, "{other_seen:#?}");
    assert_eq!(count(&other_seen, "AGENT BUSY"), 1, "{other_seen:#?}");
    assert_eq!(count(&other_seen, "again"), 0, "{other_seen:#?}");
    other.ok("metstop");
    agent_process.kill();
}

#[test]
fn an_agent_that_does_not_answer_is_said_and_retried() {
    let _turn = turn();
    let port = free_port();
    let mut f = Fixture::new();
    f.ok(&format!(
        "metset agent_hostname 127.0.0.1; metset agent_id {port}"
    ));
    let mut seen = f.ok("metstart");
    wait_for(
        &f,
        &format!("Connection failed verify agent hostname and id @ 127.0.0.1:{port}"),
        &mut seen,
    );
    let failed = seen
        .iter()
        .find(|l| l.contains("Connection failed"))
        .unwrap();
    assert!(
        failed.contains("refused") && failed.contains(&format!("hammer agent --port {port}")),
        "{failed}"
    );
    let status = f.ok("metstatus");
    assert_eq!(status[0], "CPU Metrics are running on 127.0.0.1");
    assert!(
        status[1].starts_with(&format!("Metrics Agent not connected @ 127.0.0.1:{port}"))
            || status[1].starts_with("Connecting to Metrics Agent"),
        "{status:#?}"
    );
    let lines = f.ok("metstop");
    assert!(
        lines.contains(&"CPU Metrics: no sample to report".to_string()),
        "{lines:#?}"
    );
    // The failure was said once, however many retries there were.
    let all = [seen, lines].concat();
    assert_eq!(
        all.iter()
            .filter(|l| l.contains("Connection failed"))
            .count(),
        1,
        "{all:#?}"
    );
}

#[test]
fn hammer_agent_on_a_port_in_use_is_a_clear_error() {
    let _turn = turn();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["agent", "--port", &port.to_string(), "--bind", "127.0.0.1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "the Metrics Agent cannot listen on 127.0.0.1:{port}: port {port} is already in use"
        )),
        "{err}"
    );
}

#[test]
fn runtimer_blocks_the_script_not_the_metrics_and_ends_on_ctrl_c() {
    let _turn = turn();
    let mut f = Fixture::new();
    for bad in ["abc", "-1", "inf"] {
        let e = f.err(&format!("runtimer {bad}"));
        assert!(
            e.starts_with(&format!(
                "Error: runtimer takes a number of seconds >= 0, not {bad}"
            )) && e.contains("Usage: runtimer seconds"),
            "{e}"
        );
    }
    f.ok("metset interval 1; metstart");
    let (r, lines) = f.console("runtimer(2.5); 1");
    assert_eq!(r, Ok("1".to_string()));
    // Samples arrived while the script waited.
    assert!(
        lines.iter().any(|l| l.starts_with("CPU all usr%-")),
        "{lines:#?}"
    );
    // Ctrl-C ends a long wait, and the script goes on to its next statement.
    let interrupt = f.engine.session().interrupt.clone();
    let ctrl_c = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        interrupt.fire();
    });
    let (r, lines) = f.console("runtimer(600); \"after\"");
    ctrl_c.join().unwrap();
    assert_eq!(r, Ok("after".to_string()), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("runtimer: Ctrl-C ended the wait after ")),
        "{lines:#?}"
    );
    assert!(!f.engine.session().interrupt.is_set());
    f.ok("metstop");
}

/// The new commands are in help and Tab completion, from the one command table.
#[test]
fn help_and_completion_know_the_monitoring_commands() {
    use hammer::shell::completions;
    let mut f = Fixture::new();
    let lines = f.ok("help");
    for name in [
        "metstart",
        "metstatus",
        "metstop",
        "runtimer",
        "tcstart",
        "tcstatus",
        "tcstop",
    ] {
        assert!(
            lines.iter().any(|l| l == &format!("\t{name}")),
            "{name}: {lines:#?}"
        );
    }
    let lines = f.ok("help metset");
    assert!(
        lines[0] == "metset - Usage: metset [agent_hostname|agent_id|interval|percpu] value"
            && lines[1].contains("percpu"),
        "{lines:#?}"
    );
    assert_eq!(
        f.ok("help runtimer")[0],
        "runtimer - Usage: runtimer seconds"
    );
    let s = f.engine.session();
    assert_eq!(
        completions(&s, "tcs").1,
        ["tcset", "tcstart", "tcstatus", "tcstop"]
    );
    assert_eq!(
        completions(&s, "mets").1,
        ["metset", "metstart", "metstatus", "metstop"]
    );
    assert_eq!(completions(&s, "metset p").1, ["percpu"]);
    assert_eq!(completions(&s, "metset i").1, ["interval"]);
    drop(s);
    // The two options of hammer's own are checked like the others.
    let e = f.err("metset interval 0");
    assert!(e.contains("must be an integer from 1 to 3600"), "{e}");
    let e = f.err("metset percpu maybe");
    assert!(e.contains("must be 0 or 1"), "{e}");
    assert_eq!(f.ok("metset percpu 1"), ["Metrics per CPU set to 1"]);
}
