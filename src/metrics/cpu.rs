//! Measuring: CPU time shares between two moments, and what the machine is.
//!
//! On Linux the shares come from `/proc/stat` deltas, split as `mpstat` splits them (usr
//! without guest time, sys, irq, soft, idle, ...), so the figures compare with HammerDB's,
//! which come from `mpstat`. Elsewhere sysinfo gives one total usage per CPU, reported as
//! usr with sys and irq 0.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Cumulative CPU times in clock ticks, one line of `/proc/stat`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
    /// Already included in `user` (and `guest_nice` in `nice`).
    pub guest: u64,
    pub guest_nice: u64,
}

impl CpuTimes {
    fn total(&self) -> u64 {
        self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
    }
}

/// The `cpu` lines of `/proc/stat`: `("all", ..)` for the total, then `("0", ..)`, `("1", ..)`.
pub fn parse_proc_stat(text: &str) -> Vec<(String, CpuTimes)> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let name = fields.next()?.strip_prefix("cpu")?;
            let v: Vec<u64> = fields.map(|f| f.parse().unwrap_or(0)).collect();
            let at = |i: usize| v.get(i).copied().unwrap_or(0);
            let cpu = if name.is_empty() { "all" } else { name };
            Some((
                cpu.to_string(),
                CpuTimes {
                    user: at(0),
                    nice: at(1),
                    system: at(2),
                    idle: at(3),
                    iowait: at(4),
                    irq: at(5),
                    softirq: at(6),
                    steal: at(7),
                    guest: at(8),
                    guest_nice: at(9),
                },
            ))
        })
        .collect()
}

/// Percentages of one CPU (or `all`) over an interval, in mpstat's columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuLoad {
    pub cpu: String,
    pub usr: f64,
    pub nice: f64,
    pub sys: f64,
    pub iowait: f64,
    pub irq: f64,
    pub soft: f64,
    pub steal: f64,
    pub idle: f64,
}

/// The shares between two readings of one CPU.
pub fn load(cpu: &str, prev: &CpuTimes, now: &CpuTimes) -> CpuLoad {
    let d = |a: u64, b: u64| b.saturating_sub(a) as f64;
    let total = d(prev.total(), now.total());
    let pct = |v: f64| if total > 0.0 { v * 100.0 / total } else { 0.0 };
    CpuLoad {
        cpu: cpu.to_string(),
        usr: pct(d(
            prev.user - prev.guest.min(prev.user),
            now.user - now.guest.min(now.user),
        )),
        nice: pct(d(
            prev.nice - prev.guest_nice.min(prev.nice),
            now.nice - now.guest_nice.min(now.nice),
        )),
        sys: pct(d(prev.system, now.system)),
        iowait: pct(d(prev.iowait, now.iowait)),
        irq: pct(d(prev.irq, now.irq)),
        soft: pct(d(prev.softirq, now.softirq)),
        steal: pct(d(prev.steal, now.steal)),
        // No ticks at all (a CPU gone offline): call it idle rather than divide by zero.
        idle: if total > 0.0 {
            pct(d(prev.idle, now.idle))
        } else {
            100.0
        },
    }
}

/// Takes CPU readings and gives the shares since the previous one.
pub enum Sampler {
    ProcStat {
        prev: Vec<(String, CpuTimes)>,
        at: Instant,
    },
    Sysinfo {
        sys: Box<sysinfo::System>,
        at: Instant,
    },
}

const PROC_STAT: &str = "/proc/stat";

impl Sampler {
    /// `/proc/stat` where it can be read (Linux), else sysinfo.
    pub fn new() -> Self {
        match std::fs::read_to_string(PROC_STAT) {
            Ok(text) if !parse_proc_stat(&text).is_empty() => Sampler::ProcStat {
                prev: parse_proc_stat(&text),
                at: Instant::now(),
            },
            _ => Self::sysinfo(),
        }
    }

    /// The portable sampler: total usage only.
    pub fn sysinfo() -> Self {
        let mut sys = sysinfo::System::new();
        sys.refresh_cpu_usage();
        Sampler::Sysinfo {
            sys: Box::new(sys),
            at: Instant::now(),
        }
    }

    /// Whether usr, sys and irq are told apart (else usr holds the total usage).
    pub fn splits(&self) -> bool {
        matches!(self, Sampler::ProcStat { .. })
    }

    /// Seconds since the previous reading and the shares over them: `all` first, then each CPU.
    pub fn sample(&mut self) -> (f64, Vec<CpuLoad>) {
        match self {
            Sampler::ProcStat { prev, at } => {
                let now = std::fs::read_to_string(PROC_STAT)
                    .map(|t| parse_proc_stat(&t))
                    .unwrap_or_default();
                let seconds = at.elapsed().as_secs_f64();
                *at = Instant::now();
                let loads = now
                    .iter()
                    .filter_map(|(cpu, times)| {
                        let (_, before) = prev.iter().find(|(c, _)| c == cpu)?;
                        Some(load(cpu, before, times))
                    })
                    .collect();
                if !now.is_empty() {
                    *prev = now;
                }
                (seconds, loads)
            }
            Sampler::Sysinfo { sys, at } => {
                sys.refresh_cpu_usage();
                let seconds = at.elapsed().as_secs_f64();
                *at = Instant::now();
                let total = |cpu: String, usage: f32| {
                    let usage = f64::from(usage).clamp(0.0, 100.0);
                    CpuLoad {
                        cpu,
                        usr: usage,
                        nice: 0.0,
                        sys: 0.0,
                        iowait: 0.0,
                        irq: 0.0,
                        soft: 0.0,
                        steal: 0.0,
                        idle: 100.0 - usage,
                    }
                };
                let mut loads = vec![total("all".into(), sys.global_cpu_usage())];
                loads.extend(
                    sys.cpus()
                        .iter()
                        .enumerate()
                        .map(|(i, c)| total(i.to_string(), c.cpu_usage())),
                );
                (seconds, loads)
            }
        }
    }
}

impl Default for Sampler {
    fn default() -> Self {
        Self::new()
    }
}

/// What the machine is: the agent's hello.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct System {
    pub host: String,
    pub cpu_model: String,
    pub cpu_vendor: String,
    pub cpus: usize,
    pub memory_bytes: u64,
    pub os: String,
    pub kernel: String,
    pub arch: String,
    /// Whether usr, sys and irq are measured apart.
    pub split: bool,
}

impl System {
    pub fn discover(split: bool) -> Self {
        use sysinfo::{CpuRefreshKind, MemoryRefreshKind, RefreshKind};
        let sys = sysinfo::System::new_with_specifics(
            RefreshKind::nothing()
                .with_cpu(CpuRefreshKind::nothing())
                .with_memory(MemoryRefreshKind::nothing().with_ram()),
        );
        let first = sys.cpus().first();
        System {
            host: sysinfo::System::host_name().unwrap_or_default(),
            cpu_model: first
                .map(|c| c.brand().trim().to_string())
                .filter(|b| !b.is_empty())
                .unwrap_or_else(|| "unknown CPU".into()),
            cpu_vendor: first.map(|c| c.vendor_id().to_string()).unwrap_or_default(),
            cpus: sys.cpus().len(),
            memory_bytes: sys.total_memory(),
            os: sysinfo::System::long_os_version().unwrap_or_else(|| std::env::consts::OS.into()),
            kernel: sysinfo::System::kernel_version().unwrap_or_default(),
            arch: sysinfo::System::cpu_arch(),
            split,
        }
    }

    /// HammerDB's two lines: `Started CPU Metrics for <model>:(<n> CPUs)` and the discovery.
    pub fn lines(&self) -> [String; 2] {
        [
            format!(
                "Started CPU Metrics for {}:({} CPUs)",
                self.cpu_model, self.cpus
            ),
            format!(
                "System Discovery: {} {} {} | OS: {} (kernel {}) | Memory: {:.1} GB",
                self.host,
                self.cpu_vendor,
                self.arch,
                self.os,
                self.kernel,
                self.memory_bytes as f64 / (1u64 << 30) as f64
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_A: &str = "cpu  100 10 50 800 20 5 5 0 30 0\n\
                          cpu0 50 5 25 400 10 3 2 0 30 0\n\
                          cpu1 50 5 25 400 10 2 3 0 0 0\n\
                          intr 1234 5 6\nctxt 99\n";
    const STAT_B: &str = "cpu  200 10 100 1600 20 5 5 0 40 0\n\
                          cpu0 150 5 75 400 10 3 2 0 40 0\n\
                          cpu1 50 5 25 1200 10 2 3 0 0 0\n";

    #[test]
    fn proc_stat_lines_parse_into_named_cpus() {
        let a = parse_proc_stat(STAT_A);
        assert_eq!(
            a.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
            ["all", "0", "1"]
        );
        assert_eq!(a[0].1.guest, 30);
        assert_eq!(a[2].1.softirq, 3);
    }

    #[test]
    fn shares_follow_mpstat() {
        let a = parse_proc_stat(STAT_A);
        let b = parse_proc_stat(STAT_B);
        // all: Δtotal = 100 + 50 + 800 = 950; Δ(user - guest) = 90.
        let all = load("all", &a[0].1, &b[0].1);
        assert!((all.usr - 90.0 * 100.0 / 950.0).abs() < 1e-9);
        assert!((all.sys - 50.0 * 100.0 / 950.0).abs() < 1e-9);
        assert!((all.idle - 800.0 * 100.0 / 950.0).abs() < 1e-9);
        assert_eq!(all.irq, 0.0);
        // cpu0 was busy (a tenth of its user time running a guest, which mpstat leaves out
        // of %usr), cpu1 idle.
        let c0 = load("0", &a[1].1, &b[1].1);
        assert_eq!((c0.usr, c0.idle), (60.0, 0.0), "{c0:?}");
        let c1 = load("1", &a[2].1, &b[2].1);
        assert_eq!(c1.idle, 100.0);
        // No ticks: idle, not NaN.
        assert_eq!(load("2", &a[2].1, &a[2].1).idle, 100.0);
    }

    #[test]
    fn the_portable_sampler_gives_total_usage_for_every_cpu() {
        let mut s = Sampler::sysinfo();
        assert!(!s.splits());
        std::thread::sleep(sysinfo::MINIMUM_CPU_UPDATE_INTERVAL);
        let (seconds, loads) = s.sample();
        assert!(seconds > 0.0);
        assert_eq!(loads[0].cpu, "all");
        assert_eq!(
            loads.len(),
            1 + std::thread::available_parallelism().unwrap().get()
        );
        for l in &loads {
            assert!((l.usr + l.idle - 100.0).abs() < 1e-6, "{l:?}");
            assert_eq!(l.sys, 0.0);
        }
    }

    #[test]
    fn discovery_names_the_machine() {
        let s = System::discover(true);
        assert!(s.cpus >= 1 && s.memory_bytes > 0, "{s:?}");
        let [started, discovery] = s.lines();
        assert!(started.starts_with("Started CPU Metrics for "), "{started}");
        assert!(
            started.ends_with(&format!(":({} CPUs)", s.cpus)),
            "{started}"
        );
        assert!(discovery.starts_with("System Discovery: "), "{discovery}");
    }
}
