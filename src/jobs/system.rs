//! The machine a job runs on (CPU, memory, OS) and whether a job's process is still alive.

use sysinfo::{CpuRefreshKind, Pid, ProcessRefreshKind, ProcessesToUpdate, System};

use super::SystemInfo;

/// This host's name, as jobs record it.
pub fn hostname() -> String {
    System::host_name().unwrap_or_else(|| "localhost".to_string())
}

/// When this process started, seconds since the epoch.
pub fn own_start() -> Option<u64> {
    start_of(std::process::id())
}

fn start_of(pid: u32) -> Option<u64> {
    let pid = Pid::from_u32(pid);
    let mut sys = System::new();
    sys.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        false,
        ProcessRefreshKind::nothing(),
    );
    sys.process(pid).map(|p| p.start_time())
}

/// Whether the process that ran a job on `host` is known to be gone: it ran here and no
/// process `pid` exists, or the one that does started at another time (a reused pid).
/// A job of another host cannot be checked and counts as alive.
pub fn process_gone(host: &str, pid: u32, started: Option<u64>) -> bool {
    if host != hostname() {
        return false;
    }
    match (start_of(pid), started) {
        (None, _) => true,
        (Some(now), Some(then)) => now != then,
        (Some(_), None) => false,
    }
}

/// CPU model and count, memory and OS of this machine; the server part left empty.
pub fn host_info() -> SystemInfo {
    let mut sys = System::new();
    sys.refresh_cpu_list(CpuRefreshKind::nothing());
    sys.refresh_memory();
    let cpu_model = sys
        .cpus()
        .first()
        .map(|c| c.brand().trim().to_string())
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let os = match (System::long_os_version(), System::kernel_version()) {
        (Some(os), Some(k)) => format!("{os} (kernel {k})"),
        (Some(os), None) => os,
        (None, Some(k)) => format!("{} {k}", std::env::consts::OS),
        (None, None) => std::env::consts::OS.to_string(),
    };
    SystemInfo {
        hostname: hostname(),
        os,
        cpu_model,
        cpu_count: sys.cpus().len().max(1) as u32,
        physical_cores: System::physical_core_count().map(|n| n as u32),
        memory_bytes: sys.total_memory(),
        server_version: None,
        server_settings: Vec::new(),
        transport: None,
        hammer_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        hammer_build: Some(super::build_profile().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_is_described() {
        let s = host_info();
        assert!(s.cpu_count >= 1);
        assert!(s.memory_bytes > 0);
        assert!(!s.os.is_empty() && !s.hostname.is_empty());
        assert_eq!(s.hammer_version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
        // The tests are built as the profile they run under.
        let build = if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        };
        assert_eq!(s.hammer_build.as_deref(), Some(build));
    }

    #[test]
    fn our_process_is_alive_and_a_missing_one_is_gone() {
        let me = std::process::id();
        assert!(!process_gone(&hostname(), me, own_start()));
        // Our pid with another start time: a reused pid.
        assert!(process_gone(&hostname(), me, own_start().map(|s| s + 1000)));
        assert!(process_gone(&hostname(), u32::MAX - 1, None));
        assert!(!process_gone("not-this-host", u32::MAX - 1, None));
    }
}
