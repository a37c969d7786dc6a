//! The socket under hammer's lean connections (`pgwire`, `mywire`): TCP or a unix socket.

use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::{TcpStream, UnixStream};

pub(super) enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    pub(super) async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read(buf).await,
            Sock::Unix(s) => s.read(buf).await,
        }
    }

    pub(super) async fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.write_all(buf).await,
            Sock::Unix(s) => s.write_all(buf).await,
        }
    }

    pub(super) async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.shutdown().await,
            Sock::Unix(s) => s.shutdown().await,
        }
    }

    /// Tells tokio that the socket has nothing more to read, which the last read showed: the
    /// next read then waits for the reply instead of first trying a read that would block.
    pub(super) fn drained(&self) {
        let would_block = || Err::<(), _>(io::ErrorKind::WouldBlock.into());
        let _ = match self {
            Sock::Tcp(s) => s.try_io(Interest::READABLE, would_block),
            Sock::Unix(s) => s.try_io(Interest::READABLE, would_block),
        };
    }
}
