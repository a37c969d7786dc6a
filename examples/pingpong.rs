//! What a client pays the kernel to wait for replies, the two ways hammer can wait.
//!
//! A child process plays the server: per connection it reads a request, burns `work` us of
//! CPU as a database would, and answers. The client runs `conns` connections, each one
//! request at a time like a terminal, either
//! - `blocking`: a thread per connection that sleeps in `recv` (a one-terminal virtual user),
//! - `tokio`: tasks on tokio's multi-thread runtime (`*_async_scale` terminals),
//!
//! and prints its own CPU per round trip. `scripts/bench/pingpong.sh` runs both.
//! `PINGPONG_SERVER=sleep` makes the server sleep its `work` instead of burning it, as a
//! durable server waits for its log flush while the machine idles.
//!
//!   cargo run --release --example pingpong -- [blocking|tokio] [conns=4] [work_us=300] [trips=40000]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const REQUEST: usize = 100;
const REPLY: usize = 200;

fn arg(args: &[String], i: usize, default: u64) -> u64 {
    args.get(i).map_or(default, |a| {
        a.parse()
            .unwrap_or_else(|_| panic!("argument {i}: {a} is not a whole number"))
    })
}

/// The server: answers each request after `work` of busy CPU, or of sleep when `sleep` (a
/// durable server waiting for its log flush).
fn serve(work: Duration, sleep: bool) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    println!("{}", listener.local_addr().expect("address").port());
    for conn in listener.incoming() {
        let Ok(mut conn) = conn else { return };
        std::thread::spawn(move || {
            let _ = conn.set_nodelay(true);
            let mut buf = [0u8; REQUEST];
            while conn.read_exact(&mut buf).is_ok() {
                if sleep {
                    std::thread::sleep(work);
                } else {
                    let until = Instant::now() + work;
                    while Instant::now() < until {
                        std::hint::spin_loop();
                    }
                }
                if conn.write_all(&[1u8; REPLY]).is_err() {
                    return;
                }
            }
        });
    }
}

fn own_cpu() -> Duration {
    use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System};
    let pid = sysinfo::get_current_pid().expect("own pid");
    let mut sys = System::new();
    sys.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        false,
        ProcessRefreshKind::nothing().with_cpu(),
    );
    Duration::from_millis(
        sys.process(pid)
            .expect("own process")
            .accumulated_cpu_time(),
    )
}

fn blocking(port: u16, conns: u64, trips: u64) {
    let threads: Vec<_> = (0..conns)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            s.set_nodelay(true).expect("nodelay");
            std::thread::spawn(move || {
                let mut reply = [0u8; REPLY];
                for _ in 0..trips / conns {
                    s.write_all(&[0u8; REQUEST]).expect("send");
                    s.read_exact(&mut reply).expect("receive");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("client thread");
    }
}

fn tokio(port: u16, conns: u64, trips: u64) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..conns {
            let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .expect("connect");
            s.set_nodelay(true).expect("nodelay");
            set.spawn(async move {
                let mut reply = [0u8; REPLY];
                for _ in 0..trips / conns {
                    s.write_all(&[0u8; REQUEST]).await.expect("send");
                    s.read_exact(&mut reply).await.expect("receive");
                }
            });
        }
        while let Some(done) = set.join_next().await {
            done.expect("client task");
        }
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        let sleep = args.get(3).map(String::as_str) == Some("sleep");
        return serve(Duration::from_micros(arg(&args, 2, 300)), sleep);
    }
    let mode = args.get(1).map_or("blocking", String::as_str).to_string();
    let (conns, work, trips) = (
        arg(&args, 2, 4).max(1),
        arg(&args, 3, 300),
        arg(&args, 4, 40_000),
    );
    let exe = std::env::current_exe().expect("own path");
    let mut server = Command::new(exe)
        .args([
            "serve",
            &work.to_string(),
            std::env::var("PINGPONG_SERVER")
                .as_deref()
                .unwrap_or("spin"),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the server");
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("server output"))
        .read_line(&mut line)
        .expect("server port");
    let port: u16 = line.trim().parse().expect("a port");

    let (cpu0, t0) = (own_cpu(), Instant::now());
    match mode.as_str() {
        "blocking" => blocking(port, conns, trips),
        "tokio" => tokio(port, conns, trips),
        other => panic!("mode {other}: choose blocking or tokio"),
    }
    let (cpu, secs) = ((own_cpu() - cpu0).as_secs_f64(), t0.elapsed().as_secs_f64());
    let _ = server.kill();
    let _ = server.wait();
    let done = (trips / conns * conns) as f64;
    println!(
        "{mode:>8}: {conns} connections, {work} us of server work: {:.0} round trips/s, client {:.1} us CPU per round trip",
        done / secs,
        1e6 * cpu / done
    );
}
