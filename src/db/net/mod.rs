//! What every engine family's connection shares: the bounded socket and its kill switch, the TLS
//! verifier, and the lean TLS record layer the hand-written wire clients run over.

pub(crate) mod leantls;
pub(crate) mod sock;
pub(crate) mod tls;

use std::time::Duration;

use crate::fault::Failure;

/// How long a connection attempt may take before the server counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The `std::io::Error` somewhere in an error's source chain, if any.
pub(crate) fn io_source<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> Option<&'a std::io::Error> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        cur = e.source();
    }
    None
}

/// Classifies an operating-system error met while connecting.
pub(crate) fn io_failure(e: &std::io::Error) -> Failure {
    use std::io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused | NotFound | AddrNotAvailable => Failure::Refused,
        ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => Failure::Lost,
        InvalidData => Failure::Tls,
        _ => Failure::Unreachable,
    }
}

/// The `host:port` or socket path a message should name.
pub(crate) fn addr(host: &str, port: u16) -> String {
    if host.starts_with('/') {
        host.to_string()
    } else if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
