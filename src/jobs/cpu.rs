//! The host's CPU over a job, as shares of all its CPUs: busy, hammer's own, the database
//! server's (its processes, when it runs on this host) and what is left, the other work on
//! the machine that `jobs diff` compares. Read from `/proc`, so Linux only; elsewhere a job
//! records none.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use super::HostCpu;
use crate::endpoint::Destination;

/// Where the job's database server listens: its host, ports and socket paths.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listening {
    pub host: String,
    pub ports: Vec<u16>,
    pub sockets: Vec<String>,
}

/// Where the server of `to` listens: the host and socket of its endpoints, and every port
/// its connection keys name.
pub fn listening(to: &Destination) -> Listening {
    let mut at = Listening {
        ports: to.ports(),
        ..Listening::default()
    };
    for e in to.endpoints() {
        at.host = e.host.trim().to_string();
        let socket = e.socket_file.as_ref().map(|f| f.display().to_string());
        at.sockets.extend(
            socket
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty() && s != "null"),
        );
    }
    at
}

/// The database server as found at the job's start.
#[derive(Debug, Clone, PartialEq)]
enum Server {
    /// The process listening at the endpoint; its descendants (PostgreSQL's backends) are
    /// the server's too.
    Here { pid: u32, name: String },
    /// On another host: none of this host's CPU is the server's.
    Elsewhere(String),
    /// Not found on this host (why): its CPU, if any, counts as other work.
    Unknown(String),
}

/// Clock ticks (`/proc`'s USER_HZ) since boot: the host's over all CPUs, and the busy part
/// of them, hammer's own, the server's.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Clock {
    total: u64,
    busy: u64,
    own: u64,
    server: Option<u64>,
}

/// A job's CPU being measured: begun with the job, ended with it.
#[derive(Debug)]
pub struct Span {
    started: Instant,
    start: Clock,
    server: Server,
}

impl Span {
    /// Finds the server of `at` and takes the first reading; `None` where `/proc` cannot be
    /// read.
    pub fn begin(at: &Listening) -> Option<Span> {
        let server = find_server(at);
        let start = clock(&server)?;
        Some(Span {
            started: Instant::now(),
            start,
            server,
        })
    }

    /// The shares between the first reading and now; `None` when no time passed on the
    /// host's clock or `/proc` stopped answering.
    pub fn end(self) -> Option<HostCpu> {
        let now = clock(&self.server)?;
        shares(
            &self.start,
            &now,
            &self.server,
            self.started.elapsed().as_secs_f64(),
        )
    }
}

/// The shares of the host's CPU between two readings, in percent of all CPUs.
fn shares(a: &Clock, b: &Clock, server: &Server, seconds: f64) -> Option<HostCpu> {
    let total = b.total.checked_sub(a.total).filter(|t| *t > 0)? as f64;
    let pct = |x: u64, y: u64| 100.0 * y.saturating_sub(x) as f64 / total;
    let (server_pct, described) = match server {
        Server::Here { pid, name } => (
            a.server.zip(b.server).map(|(x, y)| pct(x, y)),
            format!("{name} (pid {pid} and its processes)"),
        ),
        Server::Elsewhere(host) => (Some(0.0), format!("on {host}, not this host")),
        Server::Unknown(why) => (None, why.clone()),
    };
    Some(HostCpu::new(
        seconds,
        pct(a.busy, b.busy),
        pct(a.own, b.own),
        server_pct,
        described,
    ))
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn clock(server: &Server) -> Option<Clock> {
    let (total, busy) = host_ticks(&read("/proc/stat")?)?;
    let own = proc_stat(&read("/proc/self/stat")?).map(|p| p.ticks + p.children)?;
    let server = match server {
        Server::Here { pid, .. } => tree_ticks(*pid, &processes()),
        _ => None,
    };
    Some(Clock {
        total,
        busy,
        own,
        server,
    })
}

/// The `cpu` line of `/proc/stat`: all CPUs' ticks, and the busy ones (neither idle nor
/// waiting for I/O). Guest time is part of user time already.
fn host_ticks(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let total: u64 = v.iter().sum();
    let idle = v.get(3).copied().unwrap_or(0) + v.get(4).copied().unwrap_or(0);
    Some((total, total.saturating_sub(idle)))
}

/// What one `/proc/PID/stat` says of a process.
#[derive(Debug, Clone, PartialEq)]
struct Proc {
    pid: u32,
    name: String,
    ppid: u32,
    /// Its own user and system ticks.
    ticks: u64,
    /// Those of its children that ended and were waited for.
    children: u64,
}

/// `pid (name) state ppid ... utime stime cutime cstime ...`; the name may hold spaces and
/// parentheses, so the fields are counted from its last `)`.
fn proc_stat(stat: &str) -> Option<Proc> {
    let (head, rest) = stat.rsplit_once(')')?;
    let (pid, name) = head.split_once(" (")?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
    Some(Proc {
        pid: pid.trim().parse().ok()?,
        name: name.to_string(),
        ppid: num(1)? as u32,
        ticks: num(11)? + num(12)?,
        children: num(13)? + num(14)?,
    })
}

/// Every process this user can see, by pid.
fn processes() -> HashMap<u32, Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| proc_stat(&read(e.path().join("stat"))?))
        .map(|p| (p.pid, p))
        .collect()
}

/// The ticks of `root` and all its descendants, with those of their children that ended: a
/// backend that exits moves its ticks into its parent's, so a sum over the tree only grows.
fn tree_ticks(root: u32, all: &HashMap<u32, Proc>) -> Option<u64> {
    all.get(&root)?;
    let mut sum = 0;
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        if let Some(p) = all.get(&pid) {
            sum += p.ticks + p.children;
        }
        stack.extend(all.values().filter(|c| c.ppid == pid).map(|c| c.pid));
    }
    Some(sum)
}

/// Whether `host` names this machine.
fn is_local(host: &str) -> bool {
    let h = host.trim().trim_start_matches('[').trim_end_matches(']');
    h.is_empty()
        || h.starts_with('/')
        || h.eq_ignore_ascii_case("localhost")
        || h.starts_with("127.")
        || h == "::1"
        || h.eq_ignore_ascii_case(&super::system::hostname())
}

/// The inodes of the listening TCP sockets on `port`, from `/proc/net/tcp` or `tcp6`.
fn tcp_listeners(table: &str, port: u16) -> Vec<u64> {
    const LISTEN: &str = "0A";
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let local_port = f.get(1)?.rsplit_once(':')?.1;
            let listening = *f.get(3)? == LISTEN;
            (listening && u16::from_str_radix(local_port, 16).ok()? == port)
                .then(|| f.get(9)?.parse().ok())
                .flatten()
        })
        .collect()
}

/// The inodes of the listening unix sockets at `path`, from `/proc/net/unix`.
fn unix_listeners(table: &str, path: &str) -> Vec<u64> {
    const ACCEPTING: &str = "00010000";
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (*f.get(3)? == ACCEPTING && *f.get(7)? == path)
                .then(|| f.get(6)?.parse().ok())
                .flatten()
        })
        .collect()
}

/// The process holding one of the sockets `inodes` open.
fn holder(inodes: &[u64]) -> Option<u32> {
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    // The listener is the server's first process, older than its backends.
    pids.sort_unstable();
    pids.into_iter().find(|pid| {
        std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
            fds.filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .any(|target| wanted.iter().any(|w| target.as_os_str() == w.as_str()))
        })
    })
}

fn find_server(at: &Listening) -> Server {
    if !is_local(&at.host) {
        return Server::Elsewhere(at.host.clone());
    }
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Some(t) = read(table) {
            for port in &at.ports {
                inodes.extend(tcp_listeners(&t, *port));
            }
        }
    }
    if let Some(t) = read("/proc/net/unix") {
        for path in &at.sockets {
            inodes.extend(unix_listeners(&t, path));
        }
    }
    let listening = || {
        let mut at_: Vec<String> = at.ports.iter().map(|p| format!("port {p}")).collect();
        at_.extend(at.sockets.iter().cloned());
        at_.join(", ")
    };
    if inodes.is_empty() {
        return Server::Unknown(format!(
            "no server found listening on this host at {}",
            listening()
        ));
    }
    let Some(pid) = holder(&inodes) else {
        return Server::Unknown(format!(
            "the server listening at {} is not visible to this user",
            listening()
        ));
    };
    // Climb to the first of its kind (a listener forked by the server's main process).
    let all = processes();
    let mut top = pid;
    while let (Some(p), Some(parent)) =
        (all.get(&top), all.get(&top).and_then(|p| all.get(&p.ppid)))
    {
        if parent.name != p.name || parent.pid == top {
            break;
        }
        top = parent.pid;
    }
    let name = all
        .get(&top)
        .map_or("server".to_string(), |p| p.name.clone());
    Server::Here { pid: top, name }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read() {
        let stat = "cpu  100 5 50 800 20 3 2 0 7 0\ncpu0 50 2 25 400 10 1 1 0 0 0\n";
        assert_eq!(host_ticks(stat), Some((980, 160)));
        let p = proc_stat(
            "1234 (postgres: tpcc (x) idle) S 99 1234 1234 0 -1 4194560 100 0 0 0 \
             40 10 3 2 20 0 1 0 500 1000 100",
        )
        .unwrap();
        assert_eq!(
            p,
            Proc {
                pid: 1234,
                name: "postgres: tpcc (x) idle".into(),
                ppid: 99,
                ticks: 50,
                children: 5
            }
        );
        let tcp = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   \
                   0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   104        0 4242 1 0 100 0 0 10 0\n   \
                   1: 0100007F:1538 0100007F:9C40 01 00000000:00000000 00:00000000 00000000   104        0 4343 1 0 100 0 0 10 0\n";
        assert_eq!(tcp_listeners(tcp, 5432), [4242]);
        assert!(tcp_listeners(tcp, 3306).is_empty());
        let unix = "Num       RefCount Protocol Flags    Type St Inode Path\n\
                    0000000000000000: 00000002 00000000 00010000 0001 01 5151 /tmp/mariadb.sock\n\
                    0000000000000000: 00000003 00000000 00000000 0001 03 5252 /tmp/mariadb.sock\n";
        assert_eq!(unix_listeners(unix, "/tmp/mariadb.sock"), [5151]);
    }

    #[test]
    fn a_tree_sums_its_processes_and_their_ended_children() {
        let p = |pid, ppid, ticks, children| Proc {
            pid,
            name: "postgres".into(),
            ppid,
            ticks,
            children,
        };
        let all: HashMap<u32, Proc> = [
            p(10, 1, 5, 100),
            p(11, 10, 30, 0),
            p(12, 10, 40, 2),
            p(20, 1, 999, 0),
        ]
        .into_iter()
        .map(|p| (p.pid, p))
        .collect();
        assert_eq!(tree_ticks(10, &all), Some(177));
        assert_eq!(tree_ticks(99, &all), None);
    }

    #[test]
    fn shares_leave_the_other_work() {
        let a = Clock {
            total: 1000,
            busy: 100,
            own: 10,
            server: Some(50),
        };
        let b = Clock {
            total: 2000,
            busy: 700,
            own: 210,
            server: Some(350),
        };
        let here = Server::Here {
            pid: 10,
            name: "postgres".into(),
        };
        let c = shares(&a, &b, &here, 5.0).unwrap();
        assert_eq!(
            (c.busy_pct, c.hammer_pct, c.server_pct),
            (60.0, 20.0, Some(30.0))
        );
        assert_eq!(c.other_pct, Some(10.0));
        assert_eq!(c.server, "postgres (pid 10 and its processes)");
        let far = shares(&a, &b, &Server::Elsewhere("db1".into()), 5.0).unwrap();
        assert_eq!(far.other_pct, Some(40.0));
        let unknown = shares(&a, &b, &Server::Unknown("not visible".into()), 5.0).unwrap();
        assert_eq!((unknown.server_pct, unknown.other_pct), (None, None));
        assert!(shares(&a, &a, &here, 0.0).is_none(), "no time passed");
    }

    #[test]
    fn the_server_listens_where_the_connection_keys_say() {
        let s = crate::config::Settings::defaults();
        let at = |db| listening(&Destination::of(&s, db));
        let pg = at(crate::config::Database::Pg);
        assert_eq!(
            (pg.host.as_str(), pg.ports.as_slice()),
            ("localhost", &[5432][..])
        );
        let maria = at(crate::config::Database::Maria);
        assert_eq!(maria.sockets, ["/tmp/mariadb.sock"]);
        let mysql = at(crate::config::Database::Mysql);
        assert_eq!(mysql.ports, [3306, 2881]);
        assert!(is_local("127.0.0.1") && is_local("localhost") && is_local("/tmp"));
        assert!(!is_local("db.example.com"));
    }

    /// This process's own reading: a span over some work of it measures some of it.
    #[test]
    fn a_span_measures_this_host() {
        let Some(span) = Span::begin(&Listening {
            host: "db.example.com".into(),
            ..Listening::default()
        }) else {
            // Not Linux: nothing to measure, and nothing is recorded.
            assert!(read("/proc/stat").is_none());
            return;
        };
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed() < std::time::Duration::from_millis(300) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let c = span.end().expect("time passed");
        // The two clocks tick apart: the host's busy share may read a tick under hammer's.
        assert!(
            c.hammer_pct > 0.0 && c.busy_pct + 5.0 >= c.hammer_pct,
            "{c:?}"
        );
        assert_eq!(c.server_pct, Some(0.0));
    }
}
