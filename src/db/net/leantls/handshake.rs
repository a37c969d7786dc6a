//! The TLS handshake of a lean connection, run by rustls's unbuffered client in the
//! session's own read buffer: a handshake message spanning records is joined there, and the
//! buffer grown for it is not kept.

use std::sync::Arc;

use rustls::client::UnbufferedClientConnection;
use rustls::pki_types::ServerName;
use rustls::unbuffered::{ConnectionState, UnbufferedStatus};
use rustls::ClientConfig;

use super::records::{encode, keep_plain};
use super::{closed, tls_state, LeanError, LeanTls, MAX_RECORD};
use crate::db::net::sock::Sock;

/// Runs the handshake on `sock`, on which the server already agreed to TLS.
pub(crate) async fn handshake(
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    sock: &mut Sock,
) -> Result<LeanTls, LeanError> {
    let conn = UnbufferedClientConnection::new(config, name)?;
    let mut tls = LeanTls {
        conn,
        raw: vec![0u8; MAX_RECORD],
        start: 0,
        end: 0,
        plain: Vec::new(),
        handed: false,
        queued: Vec::new(),
        closed: false,
    };
    let mut outgoing = Vec::with_capacity(4096);
    loop {
        let UnbufferedStatus { discard, state } = tls
            .conn
            .process_tls_records(&mut tls.raw[tls.start..tls.end]);
        let mut read = false;
        let mut done = false;
        match state? {
            ConnectionState::EncodeTlsData(e) => encode(e, &mut outgoing),
            ConnectionState::TransmitTlsData(t) => {
                sock.write_all(&outgoing).await?;
                outgoing.clear();
                t.done();
            }
            ConnectionState::BlockedHandshake => read = true,
            ConnectionState::WriteTraffic(_) => done = true,
            // Data the server sends right after its Finished is kept for the first `open`.
            ConnectionState::ReadTraffic(r) => keep_plain(r, &mut tls.plain)?,
            ConnectionState::PeerClosed | ConnectionState::Closed => return Err(closed()),
            other => return Err(tls_state(other)),
        }
        tls.start += discard;
        if done {
            break;
        }
        if read {
            // A handshake message (a long certificate chain) may span records, and rustls
            // joins them in this buffer.
            tls.make_room()?;
            let n = sock.read(&mut tls.raw[tls.end..]).await?;
            if n == 0 {
                return Err(closed());
            }
            tls.end += n;
        }
    }
    // A buffer grown for the handshake is not kept: what is left is at most part of a record.
    let left = tls.end - tls.start;
    if tls.raw.len() > MAX_RECORD && left < MAX_RECORD {
        let mut raw = vec![0u8; MAX_RECORD];
        raw[..left].copy_from_slice(&tls.raw[tls.start..tls.end]);
        tls.raw = raw;
        tls.start = 0;
        tls.end = left;
    }
    Ok(tls)
}
#[cfg(test)]
mod tests {
    use rustls::crypto::ring::cipher_suite;
    use rustls::{ProtocolVersion, SupportedCipherSuite, SupportedProtocolVersion};

    use crate::db::net::leantls::testkit::*;
    use crate::db::net::leantls::MAX_RECORD;

    async fn converse(version: &'static SupportedProtocolVersion, suite: SupportedCipherSuite) {
        let (port, server) = server(version, suite);
        let mut c = Client::connect(port).await;
        // One record, one, two (a record holds 16 KiB) and three.
        for size in [1, 300, 16 * 1024, 40_000] {
            let request: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            c.round_trip(&request).await;
        }
        let tls13 = version.version == ProtocolVersion::TLSv1_3;
        if tls13 {
            // The server's key update, which asks for ours in return.
            c.round_trip(UPDATE).await;
            c.round_trip(b"after the update").await;
        }
        c.bye().await;
        let served = server.join().expect("server");
        if tls13 {
            assert_eq!(served.requests, 7);
            assert_eq!(
                served.records_under_last_key, 2,
                "the client updated its key when asked: {served:?}"
            );
        } else {
            assert_eq!(served.requests, 5);
            // Its Finished message, then the eight records of the requests.
            assert_eq!(served.records_under_last_key, 9, "{served:?}");
        }
    }

    #[tokio::test]
    async fn tls13_every_suite() {
        for suite in [
            cipher_suite::TLS13_AES_256_GCM_SHA384,
            cipher_suite::TLS13_AES_128_GCM_SHA256,
            cipher_suite::TLS13_CHACHA20_POLY1305_SHA256,
        ] {
            converse(&rustls::version::TLS13, suite).await;
        }
    }

    #[tokio::test]
    async fn tls12_every_suite() {
        for suite in [
            cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            cipher_suite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        ] {
            converse(&rustls::version::TLS12, suite).await;
        }
    }

    #[tokio::test]
    async fn a_certificate_longer_than_a_record() {
        // About 40 KB of names: the Certificate message spans three records.
        let names = (0..2000).map(|i| format!("host-{i}.example.com")).collect();
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, server) = server_with(&rustls::version::TLS13, suite, identity(names));
        let mut c = Client::connect(port).await;
        assert_eq!(c.tls.raw.len(), MAX_RECORD, "the grown buffer is not kept");
        c.round_trip(b"hello").await;
        c.bye().await;
        assert_eq!(server.join().expect("server").requests, 2);
    }
}
