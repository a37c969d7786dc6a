//! The peers the lean TLS tests run against: rustls's own server, on a loopback socket, in
//! each protocol version and cipher suite hammer's client offers; a server that seals
//! records by hand (with rustls's record encrypter and the session's keys) to send what a
//! well-behaved server would not; and the client that talks to them.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::thread::JoinHandle;

use rustls::crypto::cipher::{MessageEncrypter, OutboundChunks, OutboundPlainMessage};
use rustls::crypto::ring::{cipher_suite, default_provider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{
    ClientConfig, ConnectionTrafficSecrets, ContentType, ProtocolVersion, ServerConfig,
    ServerConnection, StreamOwned, SupportedCipherSuite, SupportedProtocolVersion,
};

use super::{handshake, LeanError, LeanTls};
use crate::db::net::sock::Sock;
use crate::db::net::tls::encrypt_only;

/// What the server does on a request: answer it, or first ask for a key update, or
/// close the session.
pub(super) const UPDATE: &[u8] = b"update your keys";
pub(super) const BYE: &[u8] = b"bye";

pub(super) const APPLICATION_DATA: u8 = 23;
pub(super) const HANDSHAKE: u8 = 22;
pub(super) const ALERT: u8 = 21;

/// What a server saw of a session: the requests it served, and how many records the
/// client sealed under its last key (the sequence number rustls reads next).
#[derive(Debug)]
pub(super) struct Served {
    pub(super) requests: usize,
    pub(super) records_under_last_key: u64,
}

/// A certificate for `names`, with its key.
pub(super) fn identity(
    names: Vec<String>,
) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
    let cert = rcgen::generate_simple_self_signed(names).expect("cert");
    let chain = vec![CertificateDer::from(cert.cert.der().to_vec())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
    (chain, key)
}

/// The client settings the lean connections use: encrypt, no resumption.
pub(super) fn lean_config() -> Arc<ClientConfig> {
    let mut config = encrypt_only();
    config.resumption = rustls::client::Resumption::disabled();
    Arc::new(config)
}

/// Server settings offering only `suite` in `version`, with the certificate and key given.
fn server_config(
    version: &'static SupportedProtocolVersion,
    suite: SupportedCipherSuite,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> ServerConfig {
    let mut provider = default_provider();
    provider.cipher_suites = vec![suite];
    ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[version])
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("server config")
}

/// A server on its own thread: for each request (a 4-byte length, then the bytes) it
/// answers the same bytes reversed, in one write, until the client says bye.
pub(super) fn server(
    version: &'static SupportedProtocolVersion,
    suite: SupportedCipherSuite,
) -> (u16, JoinHandle<Served>) {
    server_with(version, suite, identity(vec!["localhost".into()]))
}

/// The same, with the certificate and key given.
pub(super) fn server_with(
    version: &'static SupportedProtocolVersion,
    suite: SupportedCipherSuite,
    (chain, key): (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>),
) -> (u16, JoinHandle<Served>) {
    let mut config = server_config(version, suite, chain, key);
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

pub(super) struct Client {
    pub(super) sock: Sock,
    pub(super) tls: LeanTls,
    pub(super) got: Vec<u8>,
}

impl Client {
    pub(super) async fn connect(port: u16) -> Client {
        Client::connect_with(port, lean_config()).await
    }

    pub(super) async fn connect_with(port: u16, config: Arc<ClientConfig>) -> Client {
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

    pub(super) async fn try_send(&mut self, request: &[u8]) -> Result<(), LeanError> {
        let mut plain = (request.len() as u32).to_be_bytes().to_vec();
        plain.extend_from_slice(request);
        let mut sealed = Vec::new();
        self.tls.seal(&plain, &mut sealed)?;
        self.sock.write_all(&sealed).await?;
        Ok(())
    }

    pub(super) async fn send(&mut self, request: &[u8]) {
        self.try_send(request).await.expect("send");
    }

    /// Reads plaintext until `n` bytes have come, or the session closes (false).
    pub(super) async fn receive(&mut self, n: usize) -> bool {
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

    pub(super) async fn round_trip(&mut self, request: &[u8]) {
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
    pub(super) async fn bye(mut self) {
        self.send(BYE).await;
        assert!(!self.receive(1).await, "closed by the server");
        assert!(self.tls.is_closed());
    }
}
/// Seals TLS 1.3 records as the server, with the session's server key.
pub(super) struct Sealer {
    pub(super) encrypter: Box<dyn MessageEncrypter>,
    pub(super) seq: u64,
}

impl Sealer {
    /// One record: `plain`, its content type `typ`, `pad` zero bytes of padding.
    pub(super) fn record(&mut self, typ: u8, plain: &[u8], pad: usize) -> Vec<u8> {
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
pub(super) type Records = fn(&mut Sealer) -> Vec<u8>;

/// A TLS 1.3 server that, after the handshake, sends the records `records` builds and
/// hangs up.
pub(super) fn hand_made(records: Records) -> (u16, JoinHandle<()>) {
    hand_made_in(&rustls::version::TLS13, false, records)
}

/// The same in `version` (AES-128-GCM either way); with `wait`, the records go only once
/// the client has sent something (in TLS 1.2 the server finishes its handshake last, and
/// records sent right after it can reach the client while it is still in `handshake`).
pub(super) fn hand_made_in(
    version: &'static SupportedProtocolVersion,
    wait: bool,
    records: Records,
) -> (u16, JoinHandle<()>) {
    let (chain, key) = identity(vec!["localhost".into()]);
    let suite = match version.version {
        ProtocolVersion::TLSv1_3 => cipher_suite::TLS13_AES_128_GCM_SHA256,
        _ => cipher_suite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    };
    let mut config = server_config(version, suite, chain, key);
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
pub(super) async fn opened(records: Records) -> (Vec<(Vec<u8>, bool)>, Option<String>) {
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
