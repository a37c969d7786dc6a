//! The records of an established lean TLS session: a request sealed into the caller's
//! send buffer (after what rustls must send first: a key update, an alert), a reply's
//! records opened where they lie in the read buffer, and the bounds on what is held.

use std::io;

use rustls::client::{ClientConnectionData, UnbufferedClientConnection};
use rustls::unbuffered::{
    ConnectionState, EncodeError, EncodeTlsData, EncryptError, ReadTraffic, UnbufferedStatus,
    WriteTraffic,
};

use super::{closed, tls, tls_state, LeanError, LeanTls, MAX_PLAIN, MAX_RECORD};

/// What one sealed record adds to its plaintext at most (header, explicit nonce or content
/// type, tag), with room to spare.
const OVERHEAD: usize = 64;
/// The most bytes held for rustls at once: it joins a handshake message spanning records in
/// the read buffer (and refuses one above 64 KiB itself), so this bound is never the first.
const MAX_PENDING: usize = 1024 * 1024;
/// Copies a TLS record rustls made to the end of `out`.
pub(super) fn encode(mut e: EncodeTlsData<'_, ClientConnectionData>, out: &mut Vec<u8>) {
    let at = out.len();
    out.resize(at + MAX_RECORD, 0);
    loop {
        match e.encode(&mut out[at..]) {
            Ok(n) => {
                out.truncate(at + n);
                return;
            }
            Err(EncodeError::InsufficientSize(s)) => out.resize(at + s.required_size, 0),
            Err(EncodeError::AlreadyEncoded) => {
                out.truncate(at);
                return;
            }
        }
    }
}

/// What to seal once rustls allows it.
enum Seal<'a> {
    Data(&'a [u8]),
    CloseNotify,
}

impl LeanTls {
    /// Whether the server has closed the session (close_notify).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Appends `plain` to `out` as sealed application-data records (after any record rustls
    /// has to send first: a key update, an alert); on failure `out` is left as it was.
    pub(crate) fn seal(&mut self, plain: &[u8], out: &mut Vec<u8>) -> Result<(), LeanError> {
        let at = out.len();
        let sealed = self.write(Seal::Data(plain), out);
        if sealed.is_err() {
            out.truncate(at);
        }
        sealed
    }

    /// Appends a sealed close_notify alert to `out`.
    pub(crate) fn close_notify(&mut self, out: &mut Vec<u8>) {
        let at = out.len();
        if self.write(Seal::CloseNotify, out).is_err() {
            out.truncate(at);
        }
    }

    /// Lets rustls seal `what` into `out`, dealing with what it does first.
    fn write(&mut self, what: Seal<'_>, out: &mut Vec<u8>) -> Result<(), LeanError> {
        self.forget_handed();
        out.append(&mut self.queued);
        loop {
            let (discard, state) = process(
                &mut self.conn,
                &mut self.raw[self.start..self.end],
                &mut self.start,
            )?;
            let done = match state {
                ConnectionState::WriteTraffic(mut w) => {
                    sealed(&mut w, &what, out)?;
                    true
                }
                // Records that came before this request are kept for `open`.
                ConnectionState::ReadTraffic(r) => {
                    keep_plain(r, &mut self.plain)?;
                    false
                }
                ConnectionState::EncodeTlsData(e) => {
                    encode(e, out);
                    false
                }
                // Sent with the records that follow it in `out`.
                ConnectionState::TransmitTlsData(t) => {
                    t.done();
                    false
                }
                ConnectionState::PeerClosed => {
                    self.closed = true;
                    false
                }
                ConnectionState::Closed => return Err(closed()),
                other => return Err(tls_state(other)),
            };
            self.start += discard;
            if done {
                return Ok(());
            }
        }
    }

    /// Free space for the next socket read, after the bytes not yet opened.
    pub(crate) fn space(&mut self) -> &mut [u8] {
        // Room for a whole record; `open` has refused to hold more than MAX_PENDING bytes.
        let _ = self.make_room();
        &mut self.raw[self.end..]
    }

    /// Counts `n` bytes read into [`space`](Self::space).
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// The plaintext of the next application-data record read whole, decrypted by rustls;
    /// None when no whole record is left. Other records are dealt with on the way (by rustls).
    pub(crate) fn open(&mut self) -> Result<Option<&[u8]>, LeanError> {
        self.forget_handed();
        // With no bytes left, rustls has nothing to open: every state a record leads to is
        // reported by the call that consumed it. (The usual end of a reply, and a call saved.)
        while self.plain.is_empty() && self.start < self.end {
            let (discard, state) = process(
                &mut self.conn,
                &mut self.raw[self.start..self.end],
                &mut self.start,
            )?;
            let more = match state {
                ConnectionState::ReadTraffic(r) => {
                    keep_plain(r, &mut self.plain)?;
                    true
                }
                ConnectionState::EncodeTlsData(e) => {
                    encode(e, &mut self.queued);
                    true
                }
                // Sent ahead of the next records sealed.
                ConnectionState::TransmitTlsData(t) => {
                    t.done();
                    true
                }
                ConnectionState::PeerClosed => {
                    self.closed = true;
                    true
                }
                // Nothing more in the buffer: rustls waits for more bytes.
                ConnectionState::WriteTraffic(_)
                | ConnectionState::Closed
                | ConnectionState::BlockedHandshake => false,
                other => return Err(tls_state(other)),
            };
            self.start += discard;
            if !more {
                break;
            }
        }
        if self.plain.is_empty() {
            self.make_room()?;
            return Ok(None);
        }
        self.handed = true;
        Ok(Some(&self.plain))
    }

    /// Drops the plaintext the last `open` handed on.
    fn forget_handed(&mut self) {
        if self.handed {
            self.plain.clear();
            self.handed = false;
        }
    }

    /// Moves the unconsumed bytes to the front and grows the buffer, so that a whole record
    /// fits after them; refuses to hold more than [`MAX_PENDING`] bytes.
    pub(super) fn make_room(&mut self) -> Result<(), LeanError> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.raw.len() - self.end >= MAX_RECORD {
            return Ok(());
        }
        if self.start > 0 {
            self.raw.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.raw.len() - self.end < MAX_RECORD {
            if self.end >= MAX_PENDING {
                return Err(tls(format!(
                    "more than {MAX_PENDING} bytes of TLS records without a whole message"
                )));
            }
            self.raw.resize(self.end + MAX_RECORD, 0);
        }
        Ok(())
    }
}

/// rustls's state after the records in `raw` (the unconsumed part of the read buffer),
/// and how many of their bytes it is done with; on an error those bytes are skipped at once
/// (`start` moved past them).
fn process<'c, 'i>(
    conn: &'c mut UnbufferedClientConnection,
    raw: &'i mut [u8],
    start: &mut usize,
) -> Result<(usize, ConnectionState<'c, 'i, ClientConnectionData>), LeanError> {
    let UnbufferedStatus { discard, state } = conn.process_tls_records(raw);
    match state {
        Ok(state) => Ok((discard, state)),
        Err(e) => {
            *start += discard;
            Err(e.into())
        }
    }
}

/// Appends the plaintext of the application-data records rustls opened to `plain`.
pub(super) fn keep_plain(
    mut r: ReadTraffic<'_, '_, ClientConnectionData>,
    plain: &mut Vec<u8>,
) -> Result<(), LeanError> {
    while let Some(record) = r.next_record() {
        plain.extend_from_slice(record?.payload);
    }
    Ok(())
}

/// Seals `what` into the end of `out` with rustls.
fn sealed(
    w: &mut WriteTraffic<'_, ClientConnectionData>,
    what: &Seal<'_>,
    out: &mut Vec<u8>,
) -> Result<(), LeanError> {
    let at = out.len();
    let room = match what {
        Seal::Data(plain) => plain.len() + plain.len().div_ceil(MAX_PLAIN).max(1) * OVERHEAD,
        Seal::CloseNotify => OVERHEAD,
    };
    // A key update rustls sends first needs room too: grown on demand.
    out.resize(at + room + OVERHEAD, 0);
    loop {
        let n = match what {
            Seal::Data(plain) => w.encrypt(plain, &mut out[at..]),
            Seal::CloseNotify => w.queue_close_notify(&mut out[at..]),
        };
        match n {
            Ok(n) => {
                out.truncate(at + n);
                return Ok(());
            }
            Err(EncryptError::InsufficientSize(s)) => out.resize(at + s.required_size, 0),
            Err(EncryptError::EncryptExhausted) => {
                // TLS 1.2 has no key update: at the AEAD's limit the session ends, and the
                // driver opens a new one as after any lost connection.
                out.truncate(at);
                return Err(LeanError::Io(io::Error::new(
                    io::ErrorKind::ConnectionAborted,
                    "the TLS session has sealed as many records as its key allows; a new connection is needed",
                )));
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rustls::crypto::ring::{cipher_suite, default_provider};
    use rustls::crypto::CipherSuiteCommon;
    use rustls::pki_types::CertificateDer;
    use rustls::{
        ClientConfig, RootCertStore, SupportedCipherSuite, SupportedProtocolVersion,
        Tls12CipherSuite, Tls13CipherSuite,
    };

    use super::*;
    use crate::db::net::leantls::testkit::*;

    /// `suite` with a confidentiality limit of `records`, for the client.
    fn limited(suite: SupportedCipherSuite, records: u64) -> SupportedCipherSuite {
        match suite {
            SupportedCipherSuite::Tls13(s) => {
                SupportedCipherSuite::Tls13(Box::leak(Box::new(Tls13CipherSuite {
                    common: CipherSuiteCommon {
                        confidentiality_limit: records,
                        ..s.common
                    },
                    ..*s
                })))
            }
            SupportedCipherSuite::Tls12(s) => {
                SupportedCipherSuite::Tls12(Box::leak(Box::new(Tls12CipherSuite {
                    common: CipherSuiteCommon {
                        confidentiality_limit: records,
                        ..s.common
                    },
                    ..*s
                })))
            }
        }
    }

    /// Client settings offering only `suite` in `version`, trusting `chain`'s certificate.
    fn client_config(
        version: &'static SupportedProtocolVersion,
        suite: SupportedCipherSuite,
        chain: &[CertificateDer<'static>],
    ) -> Arc<ClientConfig> {
        let mut provider = default_provider();
        provider.cipher_suites = vec![suite];
        let mut roots = RootCertStore::empty();
        roots.add(chain[0].clone()).expect("root");
        let mut config = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.resumption = rustls::client::Resumption::disabled();
        Arc::new(config)
    }

    #[tokio::test]
    async fn tls13_updates_its_key_before_the_aead_limit() {
        let version = &rustls::version::TLS13;
        let suite = cipher_suite::TLS13_AES_128_GCM_SHA256;
        let (chain, key) = identity(vec!["localhost".into()]);
        let config = client_config(version, limited(suite, 3), &chain);
        let (port, server) = server_with(version, suite, (chain, key));
        let mut c = Client::connect_with(port, config).await;
        for i in 0..10 {
            c.round_trip(format!("request {i}").as_bytes()).await;
        }
        c.bye().await;
        let served = server.join().expect("server");
        assert_eq!(served.requests, 11);
        assert!(
            served.records_under_last_key < 3,
            "a key never seals more than the limit: {served:?}"
        );
    }

    #[tokio::test]
    async fn a_tls12_session_ends_at_the_aead_limit() {
        let version = &rustls::version::TLS12;
        let suite = cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
        let (chain, key) = identity(vec!["localhost".into()]);
        let config = client_config(version, limited(suite, 4), &chain);
        let (port, _server) = server_with(version, suite, (chain, key));
        let mut c = Client::connect_with(port, config).await;
        let mut sealed = 0;
        let e = loop {
            let mut out = Vec::new();
            match c.tls.seal(b"one record", &mut out) {
                Ok(()) => sealed += 1,
                Err(e) => {
                    assert!(out.is_empty(), "nothing sealed");
                    break e;
                }
            }
            assert!(sealed < 10, "sealed past the limit");
        };
        // The Finished message took the first of the four sequence numbers.
        assert_eq!(sealed, 3, "records sealed before the limit");
        assert!(
            matches!(&e, LeanError::Io(e) if e.kind() == io::ErrorKind::ConnectionAborted),
            "{e:?}"
        );
    }

    /// What `open` says of `bytes` placed in the read buffer after a TLS 1.3 handshake.
    async fn refused(bytes: &[u8], what: &str) -> LeanError {
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, _server) = server(&rustls::version::TLS13, suite);
        let mut c = Client::connect(port).await;
        c.tls.space()[..bytes.len()].copy_from_slice(bytes);
        c.tls.filled(bytes.len());
        c.tls.open().expect_err(what)
    }

    #[tokio::test]
    async fn an_unencrypted_record_after_the_handshake_is_refused() {
        // A ChangeCipherSpec, as a man in the middle could add: allowed only in the handshake.
        let e = refused(&[20, 3, 3, 0, 1, 1], "an unencrypted record").await;
        assert!(
            matches!(&e, LeanError::Tls(m) if m.contains("ChangeCipherSpec")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn a_record_longer_than_tls_allows_is_refused() {
        let header = [APPLICATION_DATA, 3, 3, 0x48, 0x01];
        let e = refused(&header, "an oversize record").await;
        assert!(
            matches!(&e, LeanError::Tls(m) if m.contains("MessageTooLarge")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn a_tampered_record_is_refused() {
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, _server) = server(&rustls::version::TLS13, suite);
        let mut c = Client::connect(port).await;
        c.send(b"hello").await;
        // Read until the answer's record is in, then flip a bit of its ciphertext. (The
        // server's session tickets come first, in records of their own.)
        'read: loop {
            let read = c.sock.read(c.tls.space()).await.expect("read");
            c.tls.filled(read);
            let mut at = c.tls.start;
            while let Some(&[typ, _, _, a, b]) = c.tls.raw[..c.tls.end].get(at..at + 5) {
                let len = usize::from(u16::from_be_bytes([a, b]));
                if at + 5 + len > c.tls.end {
                    break;
                }
                // The answer: 4 + 5 bytes, its content type and the tag.
                if typ == APPLICATION_DATA && len == 4 + 5 + 1 + 16 {
                    c.tls.raw[at + 5 + 2] ^= 1;
                    break 'read;
                }
                at += 5 + len;
            }
        }
        let e = c.tls.open().expect_err("a tampered record");
        assert!(
            matches!(&e, LeanError::Tls(m) if m.contains("cannot decrypt")),
            "{e:?}"
        );
    }

    fn open(plain: &[&[u8]]) -> Vec<(Vec<u8>, bool)> {
        plain.iter().map(|p| (p.to_vec(), false)).collect()
    }

    #[tokio::test]
    async fn padding_empty_records_and_a_warning_are_let_through() {
        let (plain, error) = opened(|s| {
            [
                s.record(APPLICATION_DATA, b"hi", 300),
                s.record(APPLICATION_DATA, b"", 5),
                s.record(ALERT, &[1, 90], 0),
                s.record(APPLICATION_DATA, b"yo", 0),
            ]
            .concat()
        })
        .await;
        assert_eq!(plain, open(&[b"hi", b"yo"]));
        assert_eq!(error, None);
    }

    #[tokio::test]
    async fn nothing_after_close_notify_counts() {
        // The last words come before the close (the PostgreSQL wire client hands on a FATAL error first).
        let (plain, error) = opened(|s| {
            [
                s.record(APPLICATION_DATA, b"last", 0),
                s.record(ALERT, &[1, 0], 0),
                s.record(APPLICATION_DATA, b"late", 0),
            ]
            .concat()
        })
        .await;
        assert_eq!(plain, open(&[b"last"]));
        assert_eq!(error, None);
    }

    /// A session ticket: lifetime, age add, nonce, ticket, no extensions.
    const TICKET: [u8; 22] = [
        4, 0, 0, 18, 0, 0, 14, 16, 0, 0, 0, 0, 1, 0, 0, 4, b't', b'i', b'c', b'k', 0, 0,
    ];

    #[tokio::test]
    async fn a_handshake_message_spanning_records_is_joined() {
        let (plain, error) = opened(|s| {
            [
                s.record(HANDSHAKE, &TICKET[..7], 0),
                s.record(HANDSHAKE, &TICKET[7..], 0),
                s.record(APPLICATION_DATA, b"after", 0),
            ]
            .concat()
        })
        .await;
        assert_eq!(plain, open(&[b"after"]));
        assert_eq!(error, None);
    }

    #[tokio::test]
    async fn records_read_before_a_request_are_kept_for_the_reply() {
        let (port, server) = hand_made(|s| s.record(APPLICATION_DATA, b"early", 0));
        let mut c = Client::connect(port).await;
        server.join().expect("server");
        loop {
            let read = c.sock.read(c.tls.space()).await.expect("read");
            if read == 0 {
                break;
            }
            c.tls.filled(read);
        }
        let mut out = Vec::new();
        c.tls.seal(b"a request", &mut out).expect("seal");
        assert!(!out.is_empty());
        assert_eq!(c.tls.open().expect("open"), Some(&b"early"[..]));
        assert_eq!(c.tls.open().expect("open"), None);
    }

    #[tokio::test]
    async fn a_tls12_renegotiation_request_is_refused_with_a_warning_and_the_session_goes_on() {
        let version = &rustls::version::TLS12;
        let (port, server) = hand_made_in(version, true, |s| {
            [
                // HelloRequest.
                s.record(HANDSHAKE, &[0, 0, 0, 0], 0),
                s.record(APPLICATION_DATA, b"after", 0),
            ]
            .concat()
        });
        let mut c = Client::connect_with(port, lean_config()).await;
        c.send(b"first").await;
        server.join().expect("server");
        assert!(c.receive(5).await, "the data after the request");
        assert_eq!(c.got, b"after");
        // rustls's no_renegotiation warning goes out ahead of the next request: two records
        // of a header, an explicit nonce and a tag, around a 2-byte alert and the request.
        let mut out = Vec::new();
        c.tls.seal(b"request", &mut out).expect("seal");
        assert_eq!(out.len(), (5 + 8 + 16) * 2 + 2 + 7);
        assert_eq!(out[0], ALERT);
        let mut again = Vec::new();
        c.tls.seal(b"request", &mut again).expect("seal");
        assert_eq!(again.len(), 5 + 8 + 16 + 7, "the warning went once");
    }

    #[tokio::test]
    async fn records_the_client_cannot_take_are_refused_with_the_reason() {
        let cases: [(Records, &str); 6] = [
            (|s| s.record(ALERT, &[2, 40], 0), "HandshakeFailure"),
            // TLS 1.3 allows no warning but user_canceled.
            (|s| s.record(ALERT, &[1, 10], 0), "UnexpectedMessage"),
            (
                // A key update, then a session ticket under the old key.
                |s| s.record(HANDSHAKE, &[&[24, 0, 0, 1, 0][..], &TICKET].concat(), 0),
                "KeyEpochWithPendingFragment",
            ),
            (
                |s| s.record(HANDSHAKE, &[24, 0, 0, 1, 7], 0),
                "InvalidKeyUpdate",
            ),
            (|s| s.record(HANDSHAKE, &[20, 0, 0, 0], 0), "got Finished"),
            (
                |s| s.record(APPLICATION_DATA, &[7u8; MAX_PLAIN + 1], 0),
                "excess record size",
            ),
        ];
        for (records, want) in cases {
            let (plain, error) = opened(records).await;
            assert!(plain.is_empty(), "{plain:?}");
            let error = error.expect("an error");
            assert!(error.contains(want), "{error:?}, want {want:?}");
        }
    }
}
