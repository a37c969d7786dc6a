//! TLS for the lean connections (`db::postgres::wire`, `db::mysql::wire`): rustls's
//! unbuffered client connection does all of TLS (the handshake, sealing and opening every
//! record, alerts, key updates, record limits), and this module only owns the buffers it
//! works in and moves bytes between them and the socket, so that a request is still one
//! `send` and a reply normally one `recv`.
//!
//! rustls's buffered connection would add its own queues on both sides; its unbuffered one
//! works in the caller's buffers instead: records read from the socket are opened where they
//! lie in [`LeanTls`]'s read buffer (rustls then hands over a copy of the plaintext), and a
//! request is sealed straight into the caller's send buffer. Whatever reaches rustls is
//! rustls's to judge: a record that does not open, an alert, a message out of place is an
//! error of the session, which the lean connections treat as a lost connection.
//!
//! hammer does not resume sessions (both connections' configurations disable resumption):
//! every session is a full handshake, and session tickets are dropped by rustls.
//!
//! The parts, by job: `handshake` (the session set up on a socket the server has readied)
//! and `records` (sealing requests, opening replies, the buffer bounds); here the session's
//! state and its errors.

mod handshake;
mod records;

#[cfg(test)]
mod testkit;

use std::io;

use rustls::client::{ClientConnectionData, UnbufferedClientConnection};
use rustls::unbuffered::ConnectionState;

pub(crate) use handshake::handshake;

use crate::db::net::sock;

/// The most plaintext one record carries.
const MAX_PLAIN: usize = 16 * 1024;
/// The longest record on the wire: a header and a body with TLS 1.2's 2048 bytes of expansion.
const MAX_RECORD: usize = 5 + MAX_PLAIN + 2048;

/// Why the session failed.
#[derive(Debug)]
pub(crate) enum LeanError {
    /// The socket failed or closed, or the session has sealed all its keys allow.
    Io(io::Error),
    /// The handshake failed, or rustls refused what the server sent.
    Tls(String),
}

impl From<io::Error> for LeanError {
    fn from(e: io::Error) -> Self {
        LeanError::Io(e)
    }
}

impl From<rustls::Error> for LeanError {
    fn from(e: rustls::Error) -> Self {
        LeanError::Tls(e.to_string())
    }
}

fn tls(what: impl Into<String>) -> LeanError {
    LeanError::Tls(what.into())
}

fn closed() -> LeanError {
    LeanError::Io(sock::closed())
}

/// An established session.
pub(crate) struct LeanTls {
    conn: UnbufferedClientConnection,
    /// Bytes read from the socket that rustls has not consumed yet: `raw[start..end]`.
    raw: Vec<u8>,
    start: usize,
    end: usize,
    /// Plaintext rustls has opened and [`open`](Self::open) has not handed on yet, or (when
    /// `handed`) the plaintext the last `open` returned.
    plain: Vec<u8>,
    handed: bool,
    /// TLS records rustls made while we were reading (a warning alert refusing a TLS 1.2
    /// renegotiation): they go out ahead of the next records we seal.
    queued: Vec<u8>,
    /// The server sent close_notify.
    closed: bool,
}

/// A state rustls should not reach on a client session.
fn tls_state(state: ConnectionState<'_, '_, ClientConnectionData>) -> LeanError {
    tls(format!("rustls reached an unexpected state: {state:?}"))
}
