//! TLS for the lean connections (`pgwire`, `mywire`): rustls runs the handshake and keeps the
//! keys, and the records of the session itself are sealed and opened here, in place, with
//! ring's AEAD.
//!
//! rustls's own connection costs a transaction a heap buffer per record each way and carries
//! each record through three or four buffers. A terminal's request and reply are a few hundred
//! bytes, and on a busy machine, where the server's processes have evicted the client's
//! memory from the caches since its last transaction, those touches cost more than the
//! encryption. Here a reply is read into one buffer, decrypted where it lies and copied once
//! to the caller; a request is sealed in the buffer it is sent from.
//!
//! rustls's kernel-connection interface (made for kTLS) hands over the keys after the
//! handshake and computes new ones on a key update. What it leaves to us, we do:
//! - TLS 1.3 records: the inner content type and padding, key updates either way (the
//!   server's, and ours before the AEAD's confidentiality limit), session tickets (dropped:
//!   hammer does not resume sessions), alerts;
//! - TLS 1.2 records with AES-GCM (explicit nonce) or ChaCha20-Poly1305; TLS 1.2 has no key
//!   update and a renegotiation request is ignored, as a client may.

use std::io;
use std::sync::Arc;

use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use rustls::client::{ClientConnectionData, UnbufferedClientConnection};
use rustls::kernel::KernelConnection;
use rustls::pki_types::ServerName;
use rustls::unbuffered::{ConnectionState, EncodeError, UnbufferedStatus};
use rustls::{ClientConfig, ConnectionTrafficSecrets, ProtocolVersion};

use super::sock::Sock;

/// The most plaintext one record carries.
const MAX_PLAIN: usize = 16 * 1024;
/// The longest record body accepted: TLS 1.2 allows 2048 bytes of expansion.
const MAX_BODY: usize = MAX_PLAIN + 2048;
/// The most handshake bytes held at once while the handshake runs.
const MAX_HANDSHAKE: usize = 1024 * 1024;
const HEADER: usize = 5;
const TAG: usize = 16;
/// TLS 1.2 AES-GCM's explicit nonce.
const EXPLICIT: usize = 8;

const APPLICATION_DATA: u8 = 23;
const HANDSHAKE: u8 = 22;
const ALERT: u8 = 21;

/// Records sealed with one TLS 1.3 key before a key update: below every AEAD's limit
/// (AES-GCM's is 2^24.5 full-size records, and ours are small).
const TX_RECORDS_PER_KEY: u64 = 1 << 23;

/// Records sealed in one TLS 1.2 AES-GCM session, which has no key update: rustls's limit.
/// At it the session ends as a lost connection, and the driver opens a new one.
const TLS12_GCM_RECORDS: u64 = 1 << 24;

/// Why the session failed.
#[derive(Debug)]
pub(super) enum LeanError {
    /// The socket failed or closed.
    Io(io::Error),
    /// The handshake failed, or a record could not be opened or was not allowed.
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

/// How records of this session are laid out.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Layout {
    /// TLS 1.3: outer type application data, inner content type, nonce from the sequence.
    Tls13,
    /// TLS 1.2 AES-GCM: an explicit 8-byte nonce before the ciphertext.
    Tls12Gcm,
    /// TLS 1.2 ChaCha20-Poly1305: nonce from the sequence.
    Tls12Chacha,
}

/// One direction's key, fixed IV and record sequence number.
struct Keys {
    key: LessSafeKey,
    iv: [u8; 12],
    seq: u64,
}

impl Keys {
    fn new(seq: u64, secrets: ConnectionTrafficSecrets) -> Result<Keys, LeanError> {
        let (alg, key, iv) = match &secrets {
            ConnectionTrafficSecrets::Aes128Gcm { key, iv } => (&aead::AES_128_GCM, key, iv),
            ConnectionTrafficSecrets::Aes256Gcm { key, iv } => (&aead::AES_256_GCM, key, iv),
            ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => {
                (&aead::CHACHA20_POLY1305, key, iv)
            }
            _ => return Err(tls("a cipher suite hammer's lean connection does not do")),
        };
        let key = UnboundKey::new(alg, key.as_ref()).map_err(|_| tls("a key of the wrong size"))?;
        let iv = iv
            .as_ref()
            .try_into()
            .map_err(|_| tls("an IV of the wrong size"))?;
        Ok(Keys {
            key: LessSafeKey::new(key),
            iv,
            seq,
        })
    }

    /// The per-record nonce: the IV with the sequence number XORed into its last 8 bytes.
    fn nonce(&self) -> [u8; 12] {
        let mut n = self.iv;
        for (b, s) in n[4..].iter_mut().zip(self.seq.to_be_bytes()) {
            *b ^= s;
        }
        n
    }

    /// TLS 1.2's additional data: sequence number, type, version, plaintext length.
    fn aad12(&self, header: [u8; HEADER], len: usize) -> [u8; 13] {
        let mut a = [0u8; 13];
        a[..8].copy_from_slice(&self.seq.to_be_bytes());
        a[8..11].copy_from_slice(&header[..3]);
        a[11..].copy_from_slice(&(len as u16).to_be_bytes());
        a
    }
}

/// An established session.
pub(super) struct LeanTls {
    kernel: KernelConnection<ClientConnectionData>,
    layout: Layout,
    tx: Keys,
    rx: Keys,
    /// Bytes read from the socket and not yet opened: `raw[start..end]`.
    raw: Vec<u8>,
    start: usize,
    end: usize,
    /// The server sent close_notify.
    closed: bool,
    /// The server asked for our key update: it goes before the next record we send.
    owe_update: bool,
    /// Records to seal under one key: TLS 1.3 then updates it ([`TX_RECORDS_PER_KEY`]), TLS 1.2
    /// AES-GCM ends the session ([`TLS12_GCM_RECORDS`]); ChaCha20-Poly1305 has no limit.
    tx_limit: u64,
}

/// Runs the handshake on `sock`, on which the server already agreed to TLS.
pub(super) async fn handshake(
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    sock: &mut Sock,
) -> Result<LeanTls, LeanError> {
    let mut conn = UnbufferedClientConnection::new(config, name)?;
    let mut incoming = vec![0u8; HEADER + MAX_BODY];
    let mut filled = 0;
    let mut outgoing = vec![0u8; 4096];
    let mut used = 0;
    loop {
        let UnbufferedStatus { discard, state } = conn.process_tls_records(&mut incoming[..filled]);
        let mut read = false;
        let mut done = false;
        match state? {
            ConnectionState::EncodeTlsData(mut e) => loop {
                match e.encode(&mut outgoing[used..]) {
                    Ok(n) => {
                        used += n;
                        break;
                    }
                    Err(EncodeError::InsufficientSize(s)) => {
                        outgoing.resize(used + s.required_size, 0)
                    }
                    Err(EncodeError::AlreadyEncoded) => break,
                }
            },
            ConnectionState::TransmitTlsData(t) => {
                sock.write_all(&outgoing[..used]).await?;
                used = 0;
                t.done();
            }
            ConnectionState::BlockedHandshake => read = true,
            ConnectionState::WriteTraffic(_) => done = true,
            ConnectionState::PeerClosed | ConnectionState::Closed => return Err(closed()),
            _ => return Err(tls("application data during the handshake")),
        }
        incoming.copy_within(discard..filled, 0);
        filled -= discard;
        if done {
            break;
        }
        if read {
            // A handshake message (a long certificate chain) may span records, and rustls
            // joins them in this buffer.
            if filled == incoming.len() {
                if incoming.len() >= MAX_HANDSHAKE {
                    return Err(tls(format!(
                        "a handshake message longer than {MAX_HANDSHAKE} bytes"
                    )));
                }
                incoming.resize(incoming.len() * 2, 0);
            }
            let n = sock.read(&mut incoming[filled..]).await?;
            if n == 0 {
                return Err(closed());
            }
            filled += n;
        }
    }
    // What is left is at most part of a record; a buffer grown for the handshake is not kept.
    if incoming.len() > HEADER + MAX_BODY {
        let mut raw = vec![0u8; (HEADER + MAX_BODY).max(filled)];
        raw[..filled].copy_from_slice(&incoming[..filled]);
        incoming = raw;
    }
    let version = conn.protocol_version();
    let (secrets, kernel) = conn.dangerous_into_kernel_connection()?;
    let tx = Keys::new(secrets.tx.0, secrets.tx.1)?;
    let chacha = tx.key.algorithm() == &aead::CHACHA20_POLY1305;
    let layout = match version {
        Some(ProtocolVersion::TLSv1_3) => Layout::Tls13,
        Some(ProtocolVersion::TLSv1_2) if chacha => Layout::Tls12Chacha,
        Some(ProtocolVersion::TLSv1_2) => Layout::Tls12Gcm,
        other => return Err(tls(format!("protocol version {other:?}"))),
    };
    Ok(LeanTls {
        kernel,
        layout,
        tx,
        rx: Keys::new(secrets.rx.0, secrets.rx.1)?,
        raw: incoming,
        start: 0,
        end: filled,
        closed: false,
        owe_update: false,
        tx_limit: match layout {
            Layout::Tls13 => TX_RECORDS_PER_KEY,
            Layout::Tls12Gcm => TLS12_GCM_RECORDS,
            Layout::Tls12Chacha => u64::MAX,
        },
    })
}

impl LeanTls {
    /// Whether the server has closed the session (close_notify).
    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Appends `plain` to `out` as sealed application-data records.
    pub(super) fn seal(&mut self, plain: &[u8], out: &mut Vec<u8>) -> Result<(), LeanError> {
        if self.layout == Layout::Tls13 && (self.owe_update || self.tx.seq >= self.tx_limit) {
            // KeyUpdate, update_not_requested, under the old key; then the new key.
            self.seal_record(HANDSHAKE, &[24, 0, 0, 1, 0], out)?;
            let (seq, secrets) = self.kernel.update_tx_secret()?;
            self.tx = Keys::new(seq, secrets)?;
            self.owe_update = false;
        }
        let records = plain.len().div_ceil(MAX_PLAIN) as u64;
        if self.layout == Layout::Tls12Gcm && self.tx.seq.saturating_add(records) > self.tx_limit {
            return Err(LeanError::Io(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the TLS 1.2 session has sealed AES-GCM's limit of 2^24 records; a new connection is needed",
            )));
        }
        for chunk in plain.chunks(MAX_PLAIN) {
            self.seal_record(APPLICATION_DATA, chunk, out)?;
        }
        Ok(())
    }

    /// Appends a sealed close_notify alert to `out`.
    pub(super) fn close_notify(&mut self, out: &mut Vec<u8>) {
        let _ = self.seal_record(ALERT, &[1, 0], out);
    }

    /// Appends one sealed record to `out`; on failure `out` is left as it was.
    fn seal_record(&mut self, typ: u8, plain: &[u8], out: &mut Vec<u8>) -> Result<(), LeanError> {
        let at = out.len();
        let sealed = self.seal_at(typ, plain, out, at);
        if sealed.is_err() {
            out.truncate(at);
        }
        sealed
    }

    fn seal_at(
        &mut self,
        typ: u8,
        plain: &[u8],
        out: &mut Vec<u8>,
        at: usize,
    ) -> Result<(), LeanError> {
        let nonce = self.tx.nonce();
        let sealed = |key: &LessSafeKey, aad: &[u8], data: &mut [u8]| {
            key.seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad),
                data,
            )
            .map_err(|_| tls("sealing a record failed"))
        };
        let tag = match self.layout {
            Layout::Tls13 => {
                let len = plain.len() + 1 + TAG;
                out.extend_from_slice(&[APPLICATION_DATA, 3, 3]);
                out.extend_from_slice(&(len as u16).to_be_bytes());
                out.extend_from_slice(plain);
                out.push(typ);
                let header: [u8; HEADER] = out[at..at + HEADER].try_into().expect("5 bytes");
                sealed(&self.tx.key, &header, &mut out[at + HEADER..])?
            }
            Layout::Tls12Gcm | Layout::Tls12Chacha => {
                let explicit = if self.layout == Layout::Tls12Gcm {
                    EXPLICIT
                } else {
                    0
                };
                let len = explicit + plain.len() + TAG;
                out.extend_from_slice(&[typ, 3, 3]);
                out.extend_from_slice(&(len as u16).to_be_bytes());
                let header: [u8; HEADER] = out[at..at + HEADER].try_into().expect("5 bytes");
                out.extend_from_slice(&nonce[12 - explicit..]);
                out.extend_from_slice(plain);
                let aad = self.tx.aad12(header, plain.len());
                sealed(&self.tx.key, &aad, &mut out[at + HEADER + explicit..])?
            }
        };
        out.extend_from_slice(tag.as_ref());
        self.tx.seq += 1;
        Ok(())
    }

    /// Free space for the next socket read, after the bytes not yet opened.
    pub(super) fn space(&mut self) -> &mut [u8] {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.start > 0 && self.raw.len() - self.end < HEADER + MAX_BODY {
            self.raw.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        &mut self.raw[self.end..]
    }

    /// Counts `n` bytes read into [`space`](Self::space).
    pub(super) fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// The plaintext of the next application-data record read whole, decrypted where it lies;
    /// None when no whole record is left. Other records are dealt with on the way.
    pub(super) fn open(&mut self) -> Result<Option<&[u8]>, LeanError> {
        loop {
            let have = &self.raw[self.start..self.end];
            if have.len() < HEADER {
                return Ok(None);
            }
            let header: [u8; HEADER] = have[..HEADER].try_into().expect("5 bytes");
            let len = usize::from(u16::from_be_bytes([header[3], header[4]]));
            if len > MAX_BODY {
                return Err(tls(format!("a record of {len} bytes")));
            }
            if have.len() < HEADER + len {
                return Ok(None);
            }
            let body = self.start + HEADER;
            self.start = body + len;
            if self.closed {
                // Nothing after close_notify counts.
                continue;
            }
            let (typ, from, to) = self.open_record(header, body, len)?;
            if to - from > MAX_PLAIN {
                return Err(tls(format!("a record of {} bytes of plaintext", to - from)));
            }
            match typ {
                APPLICATION_DATA => return Ok(Some(&self.raw[from..to])),
                ALERT => self.alert(from, to)?,
                HANDSHAKE => self.handshake_message(from, to)?,
                other => return Err(tls(format!("a record of type {other}"))),
            }
        }
    }

    /// Opens the record whose body is `raw[body..body + len]`: its content type and where
    /// its plaintext lies.
    fn open_record(
        &mut self,
        header: [u8; HEADER],
        body: usize,
        len: usize,
    ) -> Result<(u8, usize, usize), LeanError> {
        let bad = || tls("a record that does not decrypt (bad record MAC)");
        let rx = &mut self.rx;
        let data = &mut self.raw[body..body + len];
        let opened = match self.layout {
            Layout::Tls13 => {
                // A ChangeCipherSpec is allowed only during the handshake.
                if header[0] != APPLICATION_DATA {
                    return Err(tls(format!("an unencrypted record of type {}", header[0])));
                }
                let nonce = Nonce::assume_unique_for_key(rx.nonce());
                let plain = rx
                    .key
                    .open_in_place(nonce, Aad::from(header), data)
                    .map_err(|_| bad())?;
                // The content type is the last byte that is not padding.
                let Some(at) = plain.iter().rposition(|b| *b != 0) else {
                    return Err(tls("a record with no content type"));
                };
                (plain[at], body, body + at)
            }
            Layout::Tls12Gcm => {
                if len < EXPLICIT + TAG {
                    return Err(bad());
                }
                let mut nonce = rx.iv;
                nonce[4..].copy_from_slice(&data[..EXPLICIT]);
                let aad = rx.aad12(header, len - EXPLICIT - TAG);
                let plain = rx
                    .key
                    .open_in_place(
                        Nonce::assume_unique_for_key(nonce),
                        Aad::from(aad),
                        &mut data[EXPLICIT..],
                    )
                    .map_err(|_| bad())?;
                let n = plain.len();
                (header[0], body + EXPLICIT, body + EXPLICIT + n)
            }
            Layout::Tls12Chacha => {
                if len < TAG {
                    return Err(bad());
                }
                let nonce = Nonce::assume_unique_for_key(rx.nonce());
                let aad = rx.aad12(header, len - TAG);
                let n = rx
                    .key
                    .open_in_place(nonce, Aad::from(aad), data)
                    .map_err(|_| bad())?
                    .len();
                (header[0], body, body + n)
            }
        };
        rx.seq += 1;
        Ok(opened)
    }

    fn alert(&mut self, from: usize, to: usize) -> Result<(), LeanError> {
        match (self.layout, &self.raw[from..to]) {
            (_, [_, 0]) => {
                self.closed = true;
                Ok(())
            }
            // user_canceled as a warning, followed by close_notify; in TLS 1.2 any warning.
            (_, [1, 90]) | (Layout::Tls12Gcm | Layout::Tls12Chacha, [1, _]) => Ok(()),
            (_, [_, desc]) => Err(tls(format!("the server sent alert {desc}"))),
            _ => Err(tls("a malformed alert")),
        }
    }

    /// Handshake messages after the handshake: session tickets (dropped), key updates
    /// (TLS 1.3) and renegotiation requests (TLS 1.2, ignored).
    fn handshake_message(&mut self, from: usize, to: usize) -> Result<(), LeanError> {
        if from == to {
            return Err(tls("an empty handshake record"));
        }
        let mut at = from;
        while at < to {
            let Some(&[typ, a, b, c]) = self.raw.get(at..at + 4) else {
                return Err(tls("a handshake message split across records"));
            };
            let len = usize::from(a) << 16 | usize::from(b) << 8 | usize::from(c);
            let body = at + 4;
            at = body + len;
            if at > to {
                return Err(tls("a handshake message split across records"));
            }
            match (self.layout, typ) {
                (Layout::Tls13, 4) => {}
                (Layout::Tls13, 24) => {
                    let request = match self.raw[body..at] {
                        [0] => false,
                        [1] => true,
                        _ => return Err(tls("a malformed key update")),
                    };
                    // The records after it are under the new key, so it ends its record.
                    if at != to {
                        return Err(tls("a key update not at the end of its record"));
                    }
                    let (seq, secrets) = self.kernel.update_rx_secret()?;
                    self.rx = Keys::new(seq, secrets)?;
                    self.owe_update |= request;
                }
                (Layout::Tls12Gcm | Layout::Tls12Chacha, 0) => {}
                (_, other) => {
                    return Err(tls(format!(
                        "handshake message {other} after the handshake"
                    )))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! Against a real TLS peer: rustls's own server, on a loopback socket, in each protocol
    //! version and cipher suite hammer's client offers.

    use std::io::{Read, Write};
    use std::net::TcpListener;
    use std::thread::JoinHandle;

    use rustls::crypto::ring::{cipher_suite, default_provider};
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    use rustls::{ServerConfig, ServerConnection, StreamOwned, SupportedCipherSuite};

    use super::*;
    use crate::db::tls::encrypt_only;

    /// What the server does on a request: answer it, or first ask for a key update, or
    /// close the session.
    const UPDATE: &[u8] = b"update your keys";
    const BYE: &[u8] = b"bye";

    /// A server on its own thread: for each request (a 4-byte length, then the bytes) it
    /// answers the same bytes reversed, in one write, until the client says bye. It returns
    /// the number of requests it served.
    fn server(
        version: &'static rustls::SupportedProtocolVersion,
        suite: SupportedCipherSuite,
    ) -> (u16, JoinHandle<usize>) {
        server_named(version, suite, vec!["localhost".into()])
    }

    /// The same, with a certificate for `names`.
    fn server_named(
        version: &'static rustls::SupportedProtocolVersion,
        suite: SupportedCipherSuite,
        names: Vec<String>,
    ) -> (u16, JoinHandle<usize>) {
        let cert = rcgen::generate_simple_self_signed(names).expect("cert");
        let chain = vec![CertificateDer::from(cert.cert.der().to_vec())];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
        let mut provider = default_provider();
        provider.cipher_suites = vec![suite];
        let config = ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("server config");
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let thread = std::thread::spawn(move || {
            let (sock, _) = listener.accept().expect("accept");
            let conn = ServerConnection::new(config).expect("server connection");
            let mut tls = StreamOwned::new(conn, sock);
            let mut served = 0;
            loop {
                let mut len = [0u8; 4];
                tls.read_exact(&mut len).expect("request length");
                let mut request = vec![0u8; u32::from_be_bytes(len) as usize];
                tls.read_exact(&mut request).expect("request");
                served += 1;
                if request == BYE {
                    tls.conn.send_close_notify();
                    tls.flush().expect("close_notify");
                    return served;
                }
                if request == UPDATE {
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
            let mut config = encrypt_only();
            config.enable_secret_extraction = true;
            let mut sock = Sock::tcp("127.0.0.1", port, &Default::default())
                .await
                .expect("connect");
            let name = ServerName::try_from("localhost").expect("name");
            let tls = handshake(Arc::new(config), name, &mut sock)
                .await
                .expect("handshake");
            Client {
                sock,
                tls,
                got: Vec::new(),
            }
        }

        async fn send(&mut self, request: &[u8]) {
            let mut plain = (request.len() as u32).to_be_bytes().to_vec();
            plain.extend_from_slice(request);
            let mut sealed = Vec::new();
            self.tls.seal(&plain, &mut sealed).expect("seal");
            self.sock.write_all(&sealed).await.expect("send");
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
    }

    async fn converse(
        version: &'static rustls::SupportedProtocolVersion,
        suite: SupportedCipherSuite,
        layout: Layout,
    ) {
        let (port, server) = server(version, suite);
        let mut c = Client::connect(port).await;
        assert_eq!(c.tls.layout, layout);
        for size in [1, 300, 16 * 1024, 40_000] {
            let request: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            c.round_trip(&request).await;
        }
        if layout == Layout::Tls13 {
            // The server's key update, which asks for ours in return.
            c.round_trip(UPDATE).await;
            assert!(c.tls.owe_update, "the server asked for our key update");
            c.round_trip(b"after the update").await;
            assert!(!c.tls.owe_update);
            assert_eq!(
                c.tls.rx.seq, 2,
                "both answers since, under the server's new key"
            );
            // Our own key update before the confidentiality limit.
            c.tls.tx_limit = c.tls.tx.seq;
            c.round_trip(b"at the limit").await;
            assert_eq!(c.tls.tx.seq, 1, "a record under our new key");
        }
        c.send(BYE).await;
        assert!(!c.receive(1).await, "closed by the server");
        assert!(c.tls.is_closed());
        let served = server.join().expect("server");
        assert_eq!(served, if layout == Layout::Tls13 { 8 } else { 5 });
    }

    #[tokio::test]
    async fn tls13_every_suite() {
        for suite in [
            cipher_suite::TLS13_AES_256_GCM_SHA384,
            cipher_suite::TLS13_AES_128_GCM_SHA256,
            cipher_suite::TLS13_CHACHA20_POLY1305_SHA256,
        ] {
            converse(&rustls::version::TLS13, suite, Layout::Tls13).await;
        }
    }

    #[tokio::test]
    async fn tls12_aes_gcm() {
        for suite in [
            cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        ] {
            converse(&rustls::version::TLS12, suite, Layout::Tls12Gcm).await;
        }
    }

    #[tokio::test]
    async fn tls12_chacha20_poly1305() {
        let suite = cipher_suite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256;
        converse(&rustls::version::TLS12, suite, Layout::Tls12Chacha).await;
    }

    #[tokio::test]
    async fn a_certificate_longer_than_a_record() {
        // About 40 KB of names: the Certificate message spans three records.
        let names = (0..2000).map(|i| format!("host-{i}.example.com")).collect();
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, server) = server_named(&rustls::version::TLS13, suite, names);
        let mut c = Client::connect(port).await;
        c.round_trip(b"hello").await;
        c.send(BYE).await;
        assert!(!c.receive(1).await, "closed by the server");
        assert_eq!(server.join().expect("server"), 2);
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
            matches!(&e, LeanError::Tls(m) if m.contains("unencrypted")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn a_tampered_record_is_refused() {
        let suite = cipher_suite::TLS13_AES_256_GCM_SHA384;
        let (port, _server) = server(&rustls::version::TLS13, suite);
        let mut c = Client::connect(port).await;
        c.send(b"hello").await;
        // Read the whole answer's record, then flip a bit of its ciphertext.
        loop {
            let read = c.sock.read(c.tls.space()).await.expect("read");
            c.tls.filled(read);
            let have = c.tls.end - c.tls.start;
            if have >= HEADER {
                let at = c.tls.start;
                let len = usize::from(u16::from_be_bytes([c.tls.raw[at + 3], c.tls.raw[at + 4]]));
                if have >= HEADER + len {
                    c.tls.raw[at + HEADER + 2] ^= 1;
                    break;
                }
            }
        }
        let e = c.tls.open().expect_err("a tampered record");
        assert!(
            matches!(&e, LeanError::Tls(m) if m.contains("bad record MAC")),
            "{e:?}"
        );
    }

    #[tokio::test]
    async fn a_tls12_gcm_session_ends_at_its_record_limit() {
        let suite = cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
        let (port, _server) = server(&rustls::version::TLS12, suite);
        let mut c = Client::connect(port).await;
        assert_eq!(c.tls.tx_limit, TLS12_GCM_RECORDS);
        c.round_trip(b"hello").await;
        c.tls.tx_limit = c.tls.tx.seq + 1;
        let mut out = Vec::new();
        let e = c
            .tls
            .seal(&[7u8; MAX_PLAIN + 1], &mut out)
            .expect_err("two records, one allowed");
        assert!(
            matches!(&e, LeanError::Io(e) if e.kind() == io::ErrorKind::ConnectionAborted),
            "{e:?}"
        );
        assert!(out.is_empty(), "nothing sealed");
        c.tls.seal(b"one record", &mut out).expect("the last one");
    }

    /// Builds the records a hand-made server sends.
    type Records = fn(&mut Keys) -> Vec<u8>;

    /// One TLS 1.3 record sealed with `k`: `plain`, its content type, `pad` zero bytes.
    fn seal13(k: &mut Keys, typ: u8, plain: &[u8], pad: usize) -> Vec<u8> {
        let mut inner = plain.to_vec();
        inner.push(typ);
        inner.resize(inner.len() + pad, 0);
        let len = inner.len() + TAG;
        let header = [APPLICATION_DATA, 3, 3, (len >> 8) as u8, len as u8];
        let nonce = Nonce::assume_unique_for_key(k.nonce());
        let tag = k
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(header), &mut inner)
            .expect("seal");
        k.seq += 1;
        [&header[..], &inner, tag.as_ref()].concat()
    }

    /// What the client opens of the records a TLS 1.3 server builds by hand with its own
    /// keys (`records`) and sends after the handshake before hanging up: each record's
    /// plaintext, then the error if one came.
    async fn opened(records: Records) -> (Vec<Vec<u8>>, Option<String>) {
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).expect("cert");
        let chain = vec![CertificateDer::from(cert.cert.der().to_vec())];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
        let mut provider = default_provider();
        provider.cipher_suites = vec![cipher_suite::TLS13_AES_128_GCM_SHA256];
        let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])
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
            let mut keys = Keys::new(secrets.tx.0, secrets.tx.1).expect("keys");
            sock.write_all(&records(&mut keys)).expect("records");
            // Dropping the socket hangs up.
        });
        let mut c = Client::connect(port).await;
        let mut plain = Vec::new();
        let error = loop {
            match c.tls.open() {
                Ok(Some(p)) => plain.push(p.to_vec()),
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

    #[tokio::test]
    async fn padding_empty_records_and_a_warning_are_let_through() {
        let (plain, error) = opened(|k| {
            [
                seal13(k, APPLICATION_DATA, b"hi", 300),
                seal13(k, APPLICATION_DATA, b"", 5),
                seal13(k, ALERT, &[1, 90], 0),
                seal13(k, APPLICATION_DATA, b"yo", 0),
            ]
            .concat()
        })
        .await;
        assert_eq!(plain, [&b"hi"[..], b"", b"yo"]);
        assert_eq!(error, None);
    }

    #[tokio::test]
    async fn nothing_after_close_notify_counts() {
        let (plain, error) = opened(|k| {
            [
                seal13(k, APPLICATION_DATA, b"last", 0),
                seal13(k, ALERT, &[1, 0], 0),
                seal13(k, APPLICATION_DATA, b"late", 0),
            ]
            .concat()
        })
        .await;
        assert_eq!(plain, [b"last"]);
        assert_eq!(error, None);
    }

    #[tokio::test]
    async fn records_the_client_cannot_take_are_refused_with_the_reason() {
        let cases: [(Records, &str); 5] = [
            (|k| seal13(k, ALERT, &[2, 40], 0), "alert 40"),
            (
                // A session ticket whose body would go on in the next record.
                |k| seal13(k, HANDSHAKE, &[4, 0, 0, 8, 0, 0], 0),
                "a handshake message split across records",
            ),
            (
                // A key update, then a session ticket under the old key.
                |k| seal13(k, HANDSHAKE, &[24, 0, 0, 1, 0, 4, 0, 0, 0], 0),
                "a key update not at the end of its record",
            ),
            (
                |k| seal13(k, HANDSHAKE, &[24, 0, 0, 1, 7], 0),
                "a malformed key update",
            ),
            (
                |k| seal13(k, APPLICATION_DATA, &[7u8; MAX_PLAIN + 1], 0),
                "bytes of plaintext",
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
