//! What every engine family's connection shares: the bounded socket and its kill switch, the TLS
//! verifier, and the lean TLS record layer the hand-written wire clients run over.

pub(crate) mod leantls;
pub(crate) mod sock;
pub(crate) mod tls;
pub(crate) mod watch;

use std::time::Duration;

use crate::fault::Failure;

/// How long a connection attempt may take before the server counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long each server of a host list may take to connect before the walk goes on to the
/// next: a server that accepts TCP but answers nothing (stopped, cut off) must not hold every
/// connection of the list for the whole [`CONNECT_TIMEOUT`].
pub const CONNECT_TRY_TIMEOUT: Duration = Duration::from_secs(4);

/// A walk's try of one server: bounded by [`CONNECT_TRY_TIMEOUT`], unreachable past it.
pub(crate) async fn one_try<T>(
    peer: &crate::fault::Peer,
    attempt: impl std::future::Future<Output = Result<T, crate::fault::DbError>>,
) -> Result<T, crate::fault::DbError> {
    tokio::time::timeout(CONNECT_TRY_TIMEOUT, attempt)
        .await
        .unwrap_or_else(|_| {
            Err(peer.error(
                Failure::Unreachable,
                format!(
                    "no answer within {} s (each server of a list)",
                    CONNECT_TRY_TIMEOUT.as_secs()
                ),
            ))
        })
}

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

/// How a connection went, as a job records it: `unix socket PATH`, `TCP HOST:PORT`, or
/// `TLSv1.3 over TCP HOST:PORT`. `tls` is the protocol version the server reports for the
/// session (empty or `None` when the session is not encrypted).
pub(crate) fn transport(socket: Option<&str>, addr: &str, tls: Option<&str>) -> String {
    match (socket, tls.map(str::trim).filter(|v| !v.is_empty())) {
        (Some(path), None) => format!("unix socket {path}"),
        (Some(path), Some(v)) => format!("{v} over unix socket {path}"),
        (None, None) => format!("TCP {addr}"),
        (None, Some(v)) => format!("{v} over TCP {addr}"),
    }
}

#[cfg(test)]
mod tests {
    use super::transport;

    #[test]
    fn transports_are_named_with_their_address_and_tls_version() {
        assert_eq!(
            transport(Some("/tmp/mariadb.sock"), "x", None),
            "unix socket /tmp/mariadb.sock"
        );
        assert_eq!(
            transport(None, "127.0.0.1:5432", Some("")),
            "TCP 127.0.0.1:5432"
        );
        assert_eq!(
            transport(None, "127.0.0.1:5432", Some("TLSv1.3")),
            "TLSv1.3 over TCP 127.0.0.1:5432"
        );
    }
}
