//! TLS for the lean connections (`pgwire`, `mywire`): rustls's unbuffered client connection
//! does all of TLS (the handshake, sealing and opening every record, alerts, key updates,
//! record limits), and this module only owns the buffers it works in and moves bytes between
//! them and the socket, so that a request is still one `send` and a reply normally one `recv`.
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

use std::io;
use std::sync::Arc;

use rustls::client::{ClientConnectionData, UnbufferedClientConnection};
use rustls::pki_types::ServerName;
use rustls::unbuffered::{
    ConnectionState, EncodeError, EncodeTlsData, EncryptError, UnbufferedStatus, WriteTraffic,
};
use rustls::ClientConfig;

use crate::db::net::sock::Sock;

/// The most plaintext one record carries.
const MAX_PLAIN: usize = 16 * 1024;
/// The longest record on the wire: a header and a body with TLS 1.2's 2048 bytes of expansion.
const MAX_RECORD: usize = 5 + MAX_PLAIN + 2048;
/// What one sealed record adds to its plaintext at most (header, explicit nonce or content
/// type, tag), with room to spare.
const OVERHEAD: usize = 64;
/// The most bytes held for rustls at once: it joins a handshake message spanning records in
/// the read buffer (and refuses one above 64 KiB itself), so this bound is never the first.
const MAX_PENDING: usize = 1024 * 1024;

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
    LeanError::Io(io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the server closed the connection",
    ))
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
            ConnectionState::ReadTraffic(mut r) => {
                while let Some(record) = r.next_record() {
                    tls.plain.extend_from_slice(record?.payload);
                }
            }
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

/// Copies a TLS record rustls made to the end of `out`.
fn encode(mut e: EncodeTlsData<'_, ClientConnectionData>, out: &mut Vec<u8>) {
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

/// A state rustls should not reach on a client session.
fn tls_state(state: ConnectionState<'_, '_, ClientConnectionData>) -> LeanError {
    tls(format!("rustls reached an unexpected state: {state:?}"))
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
            let UnbufferedStatus { discard, state } = self
                .conn
                .process_tls_records(&mut self.raw[self.start..self.end]);
            let state = match state {
                Ok(state) => state,
                Err(e) => {
                    self.start += discard;
                    return Err(e.into());
                }
            };
            let done = match state {
                ConnectionState::WriteTraffic(mut w) => {
                    sealed(&mut w, &what, out)?;
                    true
                }
                // Records that came before this request are kept for `open`.
                ConnectionState::ReadTraffic(mut r) => {
                    while let Some(record) = r.next_record() {
                        self.plain.extend_from_slice(record?.payload);
                    }
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
            let UnbufferedStatus { discard, state } = self
                .conn
                .process_tls_records(&mut self.raw[self.start..self.end]);
            let state = match state {
                Ok(state) => state,
                Err(e) => {
                    self.start += discard;
                    return Err(e.into());
                }
            };
            let more = match state {
                ConnectionState::ReadTraffic(mut r) => {
                    while let Some(record) = r.next_record() {
                        self.plain.extend_from_slice(record?.payload);
                    }
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
    fn make_room(&mut self) -> Result<(), LeanError> {
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
    //! Against a real TLS peer: rustls's own server, on a loopback socket, in each protocol
    //! version and cipher suite hammer's client offers; and a server that seals records by
    //! hand (with rustls's record encrypter and the session's keys) to send what a
    //! well-behaved server would not.

    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::thread::JoinHandle;

    use rustls::crypto::cipher::{MessageEncrypter, OutboundChunks, OutboundPlainMessage};
    use rustls::crypto::ring::{cipher_suite, default_provider};
    use rustls::crypto::CipherSuiteCommon;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{
        ConnectionTrafficSecrets, ContentType, ProtocolVersion, RootCertStore, ServerConfig,
        ServerConnection, StreamOwned, SupportedCipherSuite, SupportedProtocolVersion,
        Tls12CipherSuite, Tls13CipherSuite,
    };

    use super::*;
    use crate::db::net::tls::encrypt_only;

    /// What the server does on a request: answer it, or first ask for a key update, or
    /// close the session.
    const UPDATE: &[u8] = b"update your keys";
    const BYE: &[u8] = b"bye";

    const APPLICATION_DATA: u8 = 23;
    const HANDSHAKE: u8 = 22;
    const ALERT: u8 = 21;

    /// What a server saw of a session: the requests it served, and how many records the
    /// client sealed under its last key (the sequence number rustls reads next).
    #[derive(Debug)]
    struct Served {
        requests: usize,
        records_under_last_key: u64,
    }

    /// A certificate for `names`, with its key.
    fn identity(names: Vec<String>) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        let cert = rcgen::generate_simple_self_signed(names).expect("cert");
        let chain = vec![CertificateDer::from(cert.cert.der().to_vec())];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
        (chain, key)
    }

    /// The client settings the lean connections use: encrypt, no resumption.
    fn lean_config() -> Arc<ClientConfig> {
        let mut config = encrypt_only();
        config.resumption = rustls::client::Resumption::disabled();
        Arc::new(config)
    }

    /// A server on its own thread: for each request (a 4-byte length, then the bytes) it
    /// answers the same bytes reversed, in one write, until the client says bye.
    fn server(
        version: &'static SupportedProtocolVersion,
        suite: SupportedCipherSuite,
    ) -> (u16, JoinHandle<Served>) {
        server_with(version, suite, identity(vec!["localhost".into()]))
    }

    /// The same, with the certificate and key given.
    fn server_with(
        version: &'static SupportedProtocolVersion,
        suite: SupportedCipherSuite,
        (chain, key): (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>),
    ) -> (u16, JoinHandle<Served>) {
        let mut provider = default_provider();
        provider.cipher_suites = vec![suite];
        let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("server config");
        // To count the client's records under its last key at the end.
        config.enable_secret_extraction = true;
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let thread = std::thread::spawn(move || {
            let (sock, _) = listener.accept().expect("accept");
            let conn = ServerConnection::new(config).expect("server connection");
            let mut tls = StreamOwned::new(conn, sock);
            let mut requests = 0;
            loop {
                let mut len = [0u8; 4];
                tls.read_exact(&mut len).expect("request length");
                let mut request = vec![0u8; u32::from_be_bytes(len) as usize];
                tls.read_exact(&mut request).expect("request");
                requests += 1;
                if request == BYE {
                    tls.conn.send_close_notify();
                    tls.flush().expect("close_notify");
                    let secrets = tls.conn.dangerous_extract_secrets().expect("secrets");
                    return Served {
                        requests,
                        records_under_last_key: secrets.rx.0,
                    };
                }
                if request == UPDATE {
                    // Asks for the client's key update in return.
                    tls.conn.refresh_traffic_keys().expect("key update");
                }
                request.reverse();
                let mut answer = (request.len() as u32).to_be_bytes().to_vec();
                answer.extend_from_slice(&request);
                tls.write_all(&answer).expect("answer");
                tls.flush().expect("flush");
            }
        });
        (port, thread)
    }

    struct Client {
        sock: Sock,
        tls: LeanTls,
        got: Vec<u8>,
    }

    impl Client {
        async fn connect(port: u16) -> Client {
            Client::connect_with(port, lean_config()).await
        }

        async fn connect_with(port: u16, config: Arc<ClientConfig>) -> Client {
            let mut sock = Sock::tcp("127.0.0.1", port, &Default::default())
                .await
                .expect("connect");
            let name = ServerName::try_from("localhost").expect("name");
            let tls = handshake(config, name, &mut sock).await.expect("handshake");
            Client {
                sock,
                tls,
                got: Vec::new(),
            }
        }

        async fn try_send(&mut self, request: &[u8]) -> Result<(), LeanError> {
            let mut plain = (request.len() as u32).to_be_bytes().to_vec();
            plain.extend_from_slice(request);
            let mut sealed = Vec::new();
            self.tls.seal(&plain, &mut sealed)?;
            self.sock.write_all(&sealed).await?;
            Ok(())
        }

        async fn send(&mut self, request: &[u8]) {
            self.try_send(request).await.expect("send");
        }

        /// Reads plaintext until `n` bytes have come, or the session closes (false).
        async fn receive(&mut self, n: usize) -> bool {
            while self.got.len() < n {
                while let Some(plain) = self.tls.open().expect("open") {
                    self.got.extend_from_slice(plain);
                }
                if self.got.len() >= n {
                    break;
                }
                if self.tls.is_closed() {
                    return false;
                }
                let read = self.sock.read(self.tls.space()).await.expect("read");
                assert!(read > 0, "the server hung up without close_notify");
                self.tls.filled(read);
            }
            true
        }

        async fn round_trip(&mut self, request: &[u8]) {
            self.send(request).await;
            assert!(self.receive(4).await, "an answer");
            let len = u32::from_be_bytes(self.got[..4].try_into().expect("4 bytes")) as usize;
            assert!(self.receive(4 + len).await, "the whole answer");
            let answer: Vec<u8> = self.got.drain(..4 + len).skip(4).collect();
            let mut want = request.to_vec();
            want.reverse();
            assert_eq!(answer, want);
        }

        /// Says bye and checks that the server closed the session.
        async fn bye(mut self) {
            self.send(BYE).await;
            assert!(!self.receive(1).await, "closed by the server");
            assert!(self.tls.is_closed());
        }
    }

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

    #[tokio::test]
    async fn an_unencrypted_record_after_the_handshake_is_refused() {
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, _server) = server(&rustls::version::TLS13, suite);
        let mut c = Client::connect(port).await;
        // A ChangeCipherSpec, as a man in the middle could add: allowed only in the handshake.
        let ccs = [20, 3, 3, 0, 1, 1];
        c.tls.space()[..ccs.len()].copy_from_slice(&ccs);
        c.tls.filled(ccs.len());
        let e = c.tls.open().expect_err("an unencrypted record");
        assert!(
            matches!(&e, LeanError::Tls(m) if m.contains("ChangeCipherSpec")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn a_record_longer_than_tls_allows_is_refused() {
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, _server) = server(&rustls::version::TLS13, suite);
        let mut c = Client::connect(port).await;
        let header = [APPLICATION_DATA, 3, 3, 0x48, 0x01];
        c.tls.space()[..header.len()].copy_from_slice(&header);
        c.tls.filled(header.len());
        let e = c.tls.open().expect_err("an oversize record");
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

    /// Seals TLS 1.3 records as the server, with the session's server key.
    struct Sealer {
        encrypter: Box<dyn MessageEncrypter>,
        seq: u64,
    }

    impl Sealer {
        /// One record: `plain`, its content type `typ`, `pad` zero bytes of padding.
        fn record(&mut self, typ: u8, plain: &[u8], pad: usize) -> Vec<u8> {
            // rustls's encrypter appends the content type it is given: with padding, the
            // real type goes in the payload, and the one given is a last zero of padding.
            let (typ, payload) = match pad {
                0 => (typ, plain.to_vec()),
                _ => {
                    let mut inner = plain.to_vec();
                    inner.push(typ);
                    inner.resize(inner.len() + pad - 1, 0);
                    (0, inner)
                }
            };
            let message = OutboundPlainMessage {
                typ: ContentType::from(typ),
                version: ProtocolVersion::TLSv1_2,
                payload: OutboundChunks::Single(&payload),
            };
            let sealed = self.encrypter.encrypt(message, self.seq).expect("seal");
            self.seq += 1;
            sealed.encode()
        }
    }

    /// Builds the records a hand-made server sends.
    type Records = fn(&mut Sealer) -> Vec<u8>;

    /// A TLS 1.3 server that, after the handshake, sends the records `records` builds and
    /// hangs up.
    fn hand_made(records: Records) -> (u16, JoinHandle<()>) {
        hand_made_in(&rustls::version::TLS13, false, records)
    }

    /// The same in `version` (AES-128-GCM either way); with `wait`, the records go only once
    /// the client has sent something (in TLS 1.2 the server finishes its handshake last, and
    /// records sent right after it can reach the client while it is still in `handshake`).
    fn hand_made_in(
        version: &'static SupportedProtocolVersion,
        wait: bool,
        records: Records,
    ) -> (u16, JoinHandle<()>) {
        let (chain, key) = identity(vec!["localhost".into()]);
        let suite = match version.version {
            ProtocolVersion::TLSv1_3 => cipher_suite::TLS13_AES_128_GCM_SHA256,
            _ => cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        };
        let mut provider = default_provider();
        provider.cipher_suites = vec![suite];
        let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("server config");
        config.send_tls13_tickets = 0;
        config.enable_secret_extraction = true;
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let server = std::thread::spawn(move || {
            let (mut sock, _) = listener.accept().expect("accept");
            let mut conn = ServerConnection::new(config).expect("server connection");
            while conn.is_handshaking() {
                conn.complete_io(&mut sock).expect("handshake");
            }
            while conn.wants_write() {
                conn.write_tls(&mut sock).expect("write");
            }
            let secrets = conn.dangerous_extract_secrets().expect("secrets");
            let (seq, ConnectionTrafficSecrets::Aes128Gcm { key, iv }) = secrets.tx else {
                panic!("the suite asked for");
            };
            let encrypter = match suite {
                SupportedCipherSuite::Tls13(suite) => suite.aead_alg.encrypter(key, iv),
                // TLS 1.2's GCM nonce: a 4-byte salt from the keys, 8 bytes sent explicitly.
                SupportedCipherSuite::Tls12(suite) => {
                    let (salt, explicit) = iv.as_ref().split_at(4);
                    suite.aead_alg.encrypter(key, salt, explicit)
                }
            };
            let mut sealer = Sealer { encrypter, seq };
            if wait {
                let mut some = [0u8; 64];
                assert!(
                    sock.read(&mut some).expect("read") > 0,
                    "the client's request"
                );
            }
            sock.write_all(&records(&mut sealer)).expect("records");
            // Dropping the socket hangs up.
        });
        (port, server)
    }

    /// What the client opens of the records a hand-made server sends: each piece of
    /// plaintext, whether close_notify had come before it, then the error if one came.
    async fn opened(records: Records) -> (Vec<(Vec<u8>, bool)>, Option<String>) {
        let (port, server) = hand_made(records);
        let mut c = Client::connect(port).await;
        let mut plain = Vec::new();
        let error = loop {
            let closed = c.tls.is_closed();
            match c.tls.open().map(|p| p.map(<[u8]>::to_vec)) {
                Ok(Some(p)) => plain.push((p, closed)),
                Ok(None) if c.tls.is_closed() => break None,
                Ok(None) => {
                    let read = c.sock.read(c.tls.space()).await.expect("read");
                    if read == 0 {
                        break None;
                    }
                    c.tls.filled(read);
                }
                Err(LeanError::Tls(e)) => break Some(e),
                Err(e) => panic!("{e:?}"),
            }
        };
        server.join().expect("server");
        (plain, error)
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
        // The last words come before the close (pgwire hands on a FATAL error first).
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
