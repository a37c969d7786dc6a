//! The socket under hammer's connections: TCP or a unix socket, registered with tokio, or
//! blocking for a virtual user that has a thread of its own; every reply bounded by a
//! deadline, TCP keepalive on, and a [`KillSwitch`] that can shut it down from any thread.
//!
//! A terminal waits for one reply at a time. On a thread of its own it sleeps in `recv` (on a
//! unix socket in `poll`, see [`readable`]) and the server's reply wakes it there: one
//! wake-up per round trip. Through
//! tokio the same wait takes `epoll_wait`, a wake-up of the runtime and then `recv`, and on a
//! virtual machine that costs the client two to four times the kernel CPU
//! (`scripts/bench/pingpong.sh` measures both).
//!
//! Nothing that waits here may wait for ever. Each reply has a deadline (the dictionary's
//! `*_reply_timeout` from the first read after the request's write): a read past it fails with `TimedOut`, so a server that
//! stops answering mid-reply costs a terminal one timeout, not the run. A thread asleep in a
//! blocking `recv` cannot be woken by a flag, so each socket also hands a duplicate of itself
//! to its connection's kill switch: shutting that duplicate down ends the sleeping `recv` at
//! once, whichever thread is in it.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpStream, UnixStream};

use super::watch::{Cut, Watched};

/// TCP keepalive: probes after this much silence, this far apart, this many times, so that
/// a peer that vanished (a host down, a cable pulled) is noticed within about a minute.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);
const KEEPALIVE_RETRIES: u32 = 3;

/// What bounds a connection's waits: the longest a reply may take, and the switch that cuts
/// the connection from outside.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub reply_timeout: Duration,
    pub kill: KillSwitch,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            reply_timeout: Duration::from_secs(120),
            kill: KillSwitch::default(),
        }
    }
}

/// A duplicate of a connection's socket, kept only to shut it down from another thread.
pub(crate) enum Plug {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl Cut for Plug {
    fn cut(&self) {
        let _ = match self {
            Plug::Tcp(s) => s.shutdown(Shutdown::Both),
            Plug::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }
}

/// The connections opened with one set of [`Bounds`]: `cut` shuts every one still open
/// down, which ends any call waiting on it with an error (a lost connection). Cheap to clone:
/// all clones are the same switch.
#[derive(Clone, Default)]
pub struct KillSwitch(Arc<Mutex<Registry>>);

#[derive(Default)]
struct Registry {
    plugs: Vec<Weak<Plug>>,
    /// Set once cut: connections made afterwards are cut as they are registered.
    cut: bool,
}

impl std::fmt::Debug for KillSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KillSwitch")
    }
}

impl KillSwitch {
    fn register(&self, plug: &Arc<Plug>) {
        let mut r = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if r.cut {
            plug.cut();
        }
        // Closed connections leave dead entries: sweep them whenever the list doubles.
        if r.plugs.len() >= 16 && r.plugs.len().is_power_of_two() {
            r.plugs.retain(|p| p.strong_count() > 0);
        }
        r.plugs.push(Arc::downgrade(plug));
    }

    /// Shuts down every connection still open, and every one opened from now on; returns
    /// how many were open.
    pub fn cut(&self) -> usize {
        let plugs: Vec<Arc<Plug>> = {
            let mut r = self.0.lock().unwrap_or_else(|e| e.into_inner());
            r.cut = true;
            r.plugs.drain(..).filter_map(|p| p.upgrade()).collect()
        };
        for p in &plugs {
            p.cut();
        }
        plugs.len()
    }

    pub fn is_cut(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).cut
    }
}

enum Io {
    Tcp(TcpStream),
    Unix(UnixStream),
    /// Blocking: only for a connection whose thread waits on nothing else.
    BlockingTcp(std::net::TcpStream),
    BlockingUnix(std::os::unix::net::UnixStream),
}

/// One connection's socket.
pub(crate) struct Sock {
    io: Io,
    /// How long a reply may take, from the request's last write.
    reply_timeout: Duration,
    /// When the reply now awaited is overdue; set by the first read after a write (a few
    /// microseconds after the write ends, and one clock read fewer per round trip).
    deadline: Option<Instant>,
    /// The receive timeout set on a blocking socket (`SO_RCVTIMEO`), changed only when a
    /// reply that trickles in leaves less than this before its deadline.
    recv_timeout: Option<Duration>,
    /// The duplicate the kill switch holds; dropped with the socket, so that it never keeps
    /// a closed connection open.
    plug: Arc<Plug>,
    /// A blocking unix socket's place under the reply watch, which bounds its waits.
    watched: Option<Arc<Watched>>,
}

/// A read or write that its deadline (tokio's timer, or a blocking socket's own timeout) cut
/// short, as the error `overdue` makes.
fn timed<T>(
    r: Result<io::Result<T>, tokio::time::error::Elapsed>,
    overdue: impl FnOnce() -> io::Error,
) -> io::Result<T> {
    match r {
        Ok(Err(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(overdue())
        }
        Ok(done) => done,
        Err(_) => Err(overdue()),
    }
}

impl Io {
    /// A blocking socket's receive timeout; the tokio sockets have none.
    fn set_read_timeout(&self, d: Duration) -> io::Result<()> {
        match self {
            Io::BlockingTcp(s) => s.set_read_timeout(Some(d)),
            Io::BlockingUnix(s) => s.set_read_timeout(Some(d)),
            Io::Tcp(_) | Io::Unix(_) => Ok(()),
        }
    }
}

/// Waits until a blocking unix socket has something to read (data, the peer's close or an
/// error), or fails with `TimedOut` at the deadline, when given one with the time `left`
/// before it (without, the reply watch bounds the wait: [`super::watch`]).
///
/// A thread asleep in `recv` on a unix stream socket is woken each time the peer takes a
/// request off it: the kernel wakes everyone waiting on the socket to say it can be written
/// again, the reader finds no reply yet and goes back to sleep. That doubled every round
/// trip's sleep and wake-up (a MariaDB terminal over the socket switched context twice per
/// statement). `poll` for input only is not woken by that, so the reply's arrival is the
/// only wake-up. TCP wakes a writer only when it was out of buffer space, so its sockets
/// sleep in `recv` directly.
fn readable(
    s: &std::os::unix::net::UnixStream,
    mut bound: Option<(Instant, Duration)>,
) -> io::Result<()> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    loop {
        let timeout = bound.map(|(_, left)| Timespec {
            tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: left.subsec_nanos().into(),
        });
        let mut fds = [PollFd::new(s, PollFlags::IN)];
        match poll(&mut fds, timeout.as_ref()) {
            Ok(0) => return Err(io::ErrorKind::TimedOut.into()),
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => {
                if let Some((deadline, left)) = &mut bound {
                    *left = deadline.saturating_duration_since(Instant::now());
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Retries a blocking call a signal interrupted.
fn restarted<T>(mut call: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    loop {
        match call() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

/// Turns TCP keepalive on, with hammer's timings.
pub(crate) fn keepalive(s: &TcpStream) -> io::Result<()> {
    let ka = socket2::TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL)
        .with_retries(KEEPALIVE_RETRIES);
    socket2::SockRef::from(s).set_tcp_keepalive(&ka)
}

/// A socket's duplicate under a kill switch, for a connection whose socket hammer does not
/// read itself (tokio-postgres's): held as long as the connection lives.
pub(crate) type PlugGuard = Arc<Plug>;

/// Puts a TCP socket under `kill`.
pub(crate) fn plug_tcp(s: &TcpStream, kill: &KillSwitch) -> io::Result<PlugGuard> {
    let plug = Arc::new(Plug::Tcp(socket2::SockRef::from(s).try_clone()?.into()));
    kill.register(&plug);
    Ok(plug)
}

/// Puts a unix socket under `kill`.
pub(crate) fn plug_unix(s: &UnixStream, kill: &KillSwitch) -> io::Result<PlugGuard> {
    let plug = Arc::new(Plug::Unix(socket2::SockRef::from(s).try_clone()?.into()));
    kill.register(&plug);
    Ok(plug)
}

/// The error for a server that closed the connection while hammer waited for its answer
/// (a read of no bytes), as the lean connections and their TLS report it.
pub(crate) fn closed() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the server closed the connection",
    )
}

impl Sock {
    /// Connects over TCP (no Nagle, keepalive on). The caller bounds the connect itself.
    pub(crate) async fn tcp(host: &str, port: u16, b: &Bounds) -> io::Result<Sock> {
        let s = TcpStream::connect((host, port)).await?;
        s.set_nodelay(true)?;
        keepalive(&s)?;
        let plug = Plug::Tcp(socket2::SockRef::from(&s).try_clone()?.into());
        Ok(Sock::new(Io::Tcp(s), plug, b))
    }

    /// Connects to a unix socket. The caller bounds the connect itself.
    pub(crate) async fn unix(path: impl AsRef<Path>, b: &Bounds) -> io::Result<Sock> {
        let s = UnixStream::connect(path).await?;
        let plug = Plug::Unix(socket2::SockRef::from(&s).try_clone()?.into());
        Ok(Sock::new(Io::Unix(s), plug, b))
    }

    fn new(io: Io, plug: Plug, b: &Bounds) -> Sock {
        let plug = Arc::new(plug);
        b.kill.register(&plug);
        Sock {
            io,
            reply_timeout: b.reply_timeout,
            deadline: None,
            recv_timeout: None,
            plug,
            watched: None,
        }
    }

    /// The same socket, blocking. Its reads and writes then hold the thread until done (or
    /// the deadline, or the kill switch), so only a task alone on its thread
    /// (`vu::runtime`'s own-thread virtual users) may ask.
    pub(crate) fn into_blocking(self) -> io::Result<Sock> {
        let io = match self.io {
            Io::Tcp(s) => {
                let s = s.into_std()?;
                s.set_nonblocking(false)?;
                s.set_read_timeout(Some(self.reply_timeout))?;
                s.set_write_timeout(Some(self.reply_timeout))?;
                Io::BlockingTcp(s)
            }
            Io::Unix(s) => {
                let s = s.into_std()?;
                s.set_nonblocking(false)?;
                s.set_read_timeout(Some(self.reply_timeout))?;
                s.set_write_timeout(Some(self.reply_timeout))?;
                Io::BlockingUnix(s)
            }
            blocking => blocking,
        };
        let watched = match io {
            Io::BlockingUnix(_) => Watched::new(&self.plug),
            _ => None,
        };
        Ok(Sock {
            io,
            recv_timeout: Some(self.reply_timeout),
            watched,
            ..self
        })
    }

    pub(crate) fn is_blocking(&self) -> bool {
        matches!(self.io, Io::BlockingTcp(_) | Io::BlockingUnix(_))
    }

    pub(crate) fn is_tcp(&self) -> bool {
        matches!(self.io, Io::Tcp(_) | Io::BlockingTcp(_))
    }

    fn overdue(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "no reply from the server within {} s (the reply timeout)",
                self.reply_timeout.as_secs_f64()
            ),
        )
    }

    /// Reads what has arrived, waiting until the reply's deadline at most.
    pub(crate) async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let now = Instant::now();
        let deadline = *self.deadline.get_or_insert(now + self.reply_timeout);
        if now >= deadline {
            return Err(self.overdue());
        }
        let left = deadline - now;
        // A tenth of the reply timeout is slack, so that only a reply that trickles in pays
        // a setsockopt.
        if self
            .recv_timeout
            .is_some_and(|t| t > left + self.reply_timeout / 10)
        {
            // A reply trickling in: the blocking read may wait only what is left.
            self.io.set_read_timeout(left)?;
            self.recv_timeout = Some(left);
        }
        let read = match &mut self.io {
            Io::Tcp(s) => tokio::time::timeout_at(deadline.into(), s.read(buf)).await,
            Io::Unix(s) => tokio::time::timeout_at(deadline.into(), s.read(buf)).await,
            Io::BlockingTcp(s) => Ok(restarted(|| s.read(buf))),
            Io::BlockingUnix(s) => Ok(match &self.watched {
                Some(w) => {
                    w.begin(deadline);
                    let woken = readable(s, None);
                    if w.end() {
                        Err(io::ErrorKind::TimedOut.into())
                    } else {
                        woken.and_then(|()| restarted(|| s.read(buf)))
                    }
                }
                None => {
                    readable(s, Some((deadline, left))).and_then(|()| restarted(|| s.read(buf)))
                }
            }),
        };
        timed(read, || self.overdue())
    }

    /// Writes all of `buf`; the reply it asks for gets its deadline at its first read.
    pub(crate) async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let timeout = self.reply_timeout;
        let written = match &mut self.io {
            Io::Tcp(s) => tokio::time::timeout(timeout, s.write_all(buf)).await,
            Io::Unix(s) => tokio::time::timeout(timeout, s.write_all(buf)).await,
            Io::BlockingTcp(s) => Ok(s.write_all(buf)),
            Io::BlockingUnix(s) => Ok(s.write_all(buf)),
        };
        timed(written, || {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "the server took no data for the reply timeout",
            )
        })?;
        self.deadline = None;
        if self.recv_timeout.is_some_and(|t| t != timeout) {
            // A trickling reply shortened the receive timeout: the next reply gets it whole.
            self.io.set_read_timeout(timeout)?;
            self.recv_timeout = Some(timeout);
        }
        Ok(())
    }

    pub(crate) async fn shutdown(&mut self) -> io::Result<()> {
        match &mut self.io {
            Io::Tcp(s) => s.shutdown().await,
            Io::Unix(s) => s.shutdown().await,
            Io::BlockingTcp(s) => s.shutdown(Shutdown::Both),
            Io::BlockingUnix(s) => s.shutdown(Shutdown::Both),
        }
    }

    /// Tells tokio that the socket has nothing more to read, which the last read showed: the
    /// next read then waits for the reply instead of first trying a read that would block.
    /// A blocking socket has nothing to tell.
    pub(crate) fn drained(&self) {
        let would_block = || Err::<(), _>(io::ErrorKind::WouldBlock.into());
        let _ = match &self.io {
            Io::Tcp(s) => s.try_io(Interest::READABLE, would_block),
            Io::Unix(s) => s.try_io(Interest::READABLE, would_block),
            Io::BlockingTcp(_) | Io::BlockingUnix(_) => Ok(()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(secs: f64) -> Bounds {
        Bounds {
            reply_timeout: Duration::from_secs_f64(secs),
            kill: KillSwitch::default(),
        }
    }

    /// A listener that accepts and then says nothing, keeping the connection open.
    fn silent_server() -> (u16, std::thread::JoinHandle<()>) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let h = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            std::thread::sleep(Duration::from_secs(5));
            drop(s);
        });
        (port, h)
    }

    #[tokio::test]
    async fn a_silent_server_is_overdue_on_either_kind_of_socket() {
        for (unix, blocking) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut s = if unix {
                let (dir, path) = silent_unix_server();
                let s = Sock::unix(&path, &bounds(0.3)).await.unwrap();
                drop(dir);
                s
            } else {
                let (port, _server) = silent_server();
                Sock::tcp("127.0.0.1", port, &bounds(0.3)).await.unwrap()
            };
            if blocking {
                s = s.into_blocking().unwrap();
            }
            s.write_all(b"hello").await.unwrap();
            let started = Instant::now();
            let e = s.read(&mut [0; 16]).await.unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
            assert!(e.to_string().contains("0.3 s"), "{e}");
            let took = started.elapsed();
            assert!(took >= Duration::from_millis(250), "{took:?}");
            assert!(took < Duration::from_secs(3), "{took:?}");
        }
    }

    #[tokio::test]
    async fn a_reply_that_trickles_in_is_bounded_by_its_deadline() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let _server = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut b = [0; 5];
            let _ = s.read_exact(&mut b);
            for _ in 0..40 {
                if s.write_all(b"x").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let mut s = Sock::tcp("127.0.0.1", port, &bounds(0.5))
            .await
            .unwrap()
            .into_blocking()
            .unwrap();
        s.write_all(b"hello").await.unwrap();
        let started = Instant::now();
        let mut got = 0;
        let e = loop {
            match s.read(&mut [0; 16]).await {
                Ok(n) => got += n,
                Err(e) => break e,
            }
        };
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(got >= 2, "{got}");
        assert!(started.elapsed() < Duration::from_millis(1500));
    }

    #[test]
    fn the_kill_switch_wakes_a_thread_asleep_in_recv() {
        let (port, _server) = silent_server();
        let kill = KillSwitch::default();
        let b = Bounds {
            reply_timeout: Duration::from_secs(60),
            kill: kill.clone(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut s = rt
            .block_on(Sock::tcp("127.0.0.1", port, &b))
            .unwrap()
            .into_blocking()
            .unwrap();
        let reader = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let started = Instant::now();
            let r = rt.block_on(async { s.read(&mut [0; 16]).await });
            (r.map_err(|e| e.kind()), started.elapsed())
        });
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(kill.cut(), 1);
        let (r, took) = reader.join().unwrap();
        // A shut-down socket reads as closed.
        assert_eq!(r, Ok(0));
        assert!(took < Duration::from_secs(5), "{took:?}");
        // A connection made after the cut is cut at once.
        let (port, _server) = silent_server();
        let mut late = rt.block_on(Sock::tcp("127.0.0.1", port, &b)).unwrap();
        assert_eq!(rt.block_on(late.read(&mut [0; 4])).unwrap(), 0);
    }

    /// A unix socket that accepts and then says nothing, keeping the connection open.
    fn silent_unix_server() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("silent.sock");
        let l = std::os::unix::net::UnixListener::bind(&path).unwrap();
        std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            std::thread::sleep(Duration::from_secs(5));
            drop(s);
        });
        (dir, path)
    }

    /// How often this thread has slept (its voluntary context switches).
    fn sleeps() -> u64 {
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    #[test]
    fn a_blocking_unix_socket_reads_its_reply_and_the_kill_switch_wakes_it() {
        const EXCHANGES: usize = 3;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("echo.sock");
        let l = std::os::unix::net::UnixListener::bind(&path).unwrap();
        // Takes each request a while after it came and answers it a while later; then
        // stays silent.
        std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            for _ in 0..EXCHANGES {
                let mut b = [0; 5];
                std::thread::sleep(Duration::from_millis(50));
                s.read_exact(&mut b).unwrap();
                std::thread::sleep(Duration::from_millis(50));
                s.write_all(b"world").unwrap();
            }
            std::thread::sleep(Duration::from_secs(5));
        });
        let kill = KillSwitch::default();
        let b = Bounds {
            reply_timeout: Duration::from_secs(60),
            kill: kill.clone(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut s = rt
            .block_on(Sock::unix(&path, &b))
            .unwrap()
            .into_blocking()
            .unwrap();
        let (answered, all_answered) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut got = [0; 16];
                let mut slept = Vec::new();
                for _ in 0..EXCHANGES {
                    s.write_all(b"hello").await.unwrap();
                    let before = sleeps();
                    let n = s.read(&mut got).await.unwrap();
                    slept.push(sleeps() - before);
                    assert_eq!(&got[..n], b"world");
                }
                // The server taking the request off the socket does not wake the reader:
                // only the reply does. (A signal may wake a wait too, so one clean exchange
                // of three is enough; a reader woken by the server's read sleeps twice in
                // every one.)
                assert_eq!(slept.iter().min(), Some(&1), "sleeps per reply: {slept:?}");
                answered.send(()).unwrap();
                let started = Instant::now();
                let r = s.read(&mut got).await;
                (r.map_err(|e| e.kind()), started.elapsed())
            })
        });
        // The reader waits for a fourth reply that never comes, until the switch is cut.
        if all_answered.recv_timeout(Duration::from_secs(30)).is_ok() {
            std::thread::sleep(Duration::from_millis(100));
            assert_eq!(kill.cut(), 1);
        }
        let (r, took) = reader.join().unwrap();
        assert_eq!(r, Ok(0));
        assert!(took < Duration::from_secs(5), "{took:?}");
    }

    #[test]
    fn closed_connections_leave_the_switch() {
        let kill = KillSwitch::default();
        let b = Bounds {
            reply_timeout: Duration::from_secs(5),
            kill: kill.clone(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        for _ in 0..40 {
            let s = rt.block_on(Sock::tcp("127.0.0.1", port, &b)).unwrap();
            let (_peer, _) = l.accept().unwrap();
            drop(s);
        }
        assert_eq!(kill.cut(), 0);
        assert!(kill.0.lock().unwrap().plugs.is_empty());
    }
}
