//! The socket under hammer's lean connections (`pgwire`, `mywire`): TCP or a unix socket,
//! registered with tokio, or blocking for a virtual user that has a thread of its own.
//!
//! A terminal waits for one reply at a time. On a thread of its own it sleeps in `recv` and
//! the server's reply wakes it there: one system call and one wake-up per round trip. Through
//! tokio the same wait takes `epoll_wait`, a wake-up of the runtime and then `recv`, and on a
//! virtual machine that costs the client two to four times the kernel CPU
//! (`scripts/bench/pingpong.sh` measures both).

use std::io::{self, Read, Write};
use std::net::Shutdown;

use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpStream, UnixStream};

pub(super) enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
    /// Blocking: only for a connection whose thread waits on nothing else.
    BlockingTcp(std::net::TcpStream),
    BlockingUnix(std::os::unix::net::UnixStream),
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

impl Sock {
    /// The same socket, blocking. Its reads and writes then hold the thread until done, so
    /// only a task alone on its thread (`tpcc::driver`'s own-thread virtual users) may ask.
    pub(super) fn into_blocking(self) -> io::Result<Sock> {
        Ok(match self {
            Sock::Tcp(s) => {
                let s = s.into_std()?;
                s.set_nonblocking(false)?;
                Sock::BlockingTcp(s)
            }
            Sock::Unix(s) => {
                let s = s.into_std()?;
                s.set_nonblocking(false)?;
                Sock::BlockingUnix(s)
            }
            blocking => blocking,
        })
    }

    pub(super) fn is_blocking(&self) -> bool {
        matches!(self, Sock::BlockingTcp(_) | Sock::BlockingUnix(_))
    }

    pub(super) fn is_tcp(&self) -> bool {
        matches!(self, Sock::Tcp(_) | Sock::BlockingTcp(_))
    }

    pub(super) async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read(buf).await,
            Sock::Unix(s) => s.read(buf).await,
            Sock::BlockingTcp(s) => restarted(|| s.read(buf)),
            Sock::BlockingUnix(s) => restarted(|| s.read(buf)),
        }
    }

    pub(super) async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.write_all(buf).await,
            Sock::Unix(s) => s.write_all(buf).await,
            Sock::BlockingTcp(s) => s.write_all(buf),
            Sock::BlockingUnix(s) => s.write_all(buf),
        }
    }

    pub(super) async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.shutdown().await,
            Sock::Unix(s) => s.shutdown().await,
            Sock::BlockingTcp(s) => s.shutdown(Shutdown::Both),
            Sock::BlockingUnix(s) => s.shutdown(Shutdown::Both),
        }
    }

    /// Tells tokio that the socket has nothing more to read, which the last read showed: the
    /// next read then waits for the reply instead of first trying a read that would block.
    /// A blocking socket has nothing to tell.
    pub(super) fn drained(&self) {
        let would_block = || Err::<(), _>(io::ErrorKind::WouldBlock.into());
        let _ = match self {
            Sock::Tcp(s) => s.try_io(Interest::READABLE, would_block),
            Sock::Unix(s) => s.try_io(Interest::READABLE, would_block),
            Sock::BlockingTcp(_) | Sock::BlockingUnix(_) => Ok(()),
        };
    }
}
