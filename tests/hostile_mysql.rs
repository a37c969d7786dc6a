//! Hostile MariaDB/MySQL servers: small listeners on loopback (or a unix socket in a
//! temporary directory) that speak just enough of the protocol to ask for what a real server
//! never would, or for what a man in the middle would. Each case ends in a clear error within
//! a bounded time, with no panic and no password handed over: on the lean connection
//! itself, through `librarycheck` and through `vurun`.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::Fixture;
use hammer::config::Database;
use hammer::db::mysql::MyTarget;
use hammer::db::{mysql::wire as mywire, Failure};

const PASSWORD: &str = "s3cret-Pa55word";

/// The most any case may take.
const BOUND: Duration = Duration::from_secs(15);

// Capability flags a MySQL 8 server offers (no TLS).
const CAPS: u32 = 0x0000_0001 // LONG_PASSWORD
    | 0x0000_0008 // CONNECT_WITH_DB
    | 0x0000_0200 // PROTOCOL_41
    | 0x0000_2000 // TRANSACTIONS
    | 0x0000_8000 // SECURE_CONNECTION
    | 0x0002_0000 // MULTI_RESULTS
    | 0x0004_0000 // PS_MULTI_RESULTS
    | 0x0008_0000 // PLUGIN_AUTH
    | 0x0100_0000; // DEPRECATE_EOF

/// One side of a fake server's connection.
trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// What a fake server's client sent it, byte for byte.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<u8>>>);

impl Heard {
    fn bytes(&self) -> Vec<u8> {
        self.0.lock().expect("heard").clone()
    }

    /// Whether the client sent the password, or a packet asking for the server's public key
    /// (0x02, caching_sha2_password's and sha256_password's request).
    fn password_or_key_request(&self) -> bool {
        let b = self.bytes();
        let pw = PASSWORD.as_bytes();
        b.windows(pw.len()).any(|w| w == pw)
            || packets(&b).iter().any(|p| p == &[0x02])
            || packets(&b).iter().any(|p| p == &[0x01])
    }
}

/// The payloads of the packets in `b`.
fn packets(mut b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while b.len() >= 4 {
        let len = usize::from(b[0]) | usize::from(b[1]) << 8 | usize::from(b[2]) << 16;
        let Some(p) = b.get(4..4 + len) else { break };
        out.push(p.to_vec());
        b = &b[4 + len..];
    }
    out
}

/// A fake server's end of one connection: packets in and out, everything heard kept.
struct Peer<'a> {
    s: &'a mut dyn Stream,
    heard: Heard,
    seq: u8,
}

impl Peer<'_> {
    fn send(&mut self, payload: &[u8]) {
        let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        p.push(self.seq);
        self.seq = self.seq.wrapping_add(1);
        p.extend_from_slice(payload);
        let _ = self.s.write_all(&p);
    }

    /// The next packet's payload, None at the end of the stream.
    fn recv(&mut self) -> Option<Vec<u8>> {
        let mut head = [0u8; 4];
        self.s.read_exact(&mut head).ok()?;
        let len = usize::from(head[0]) | usize::from(head[1]) << 8 | usize::from(head[2]) << 16;
        let mut p = vec![0u8; len];
        self.s.read_exact(&mut p).ok()?;
        let mut h = self.heard.0.lock().expect("heard");
        h.extend_from_slice(&head);
        h.extend_from_slice(&p);
        self.seq = head[3].wrapping_add(1);
        Some(p)
    }

    /// Reads until the client closes, keeping what it says.
    fn drain(&mut self) {
        let mut rest = Vec::new();
        let _ = self.s.read_to_end(&mut rest);
        self.heard.0.lock().expect("heard").extend_from_slice(&rest);
    }

    /// A protocol-10 greeting offering `plugin`.
    fn greet(&mut self, plugin: &str) {
        self.greet_with(plugin, CAPS);
    }

    fn greet_with(&mut self, plugin: &str, caps: u32) {
        self.seq = 0;
        let mut p = vec![10];
        p.extend_from_slice(b"8.0.36-fake\0");
        p.extend_from_slice(&7u32.to_le_bytes());
        p.extend_from_slice(b"abcdefgh\0");
        p.extend_from_slice(&(caps as u16).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&2u16.to_le_bytes());
        p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
        p.push(21);
        p.extend_from_slice(&[0; 10]);
        p.extend_from_slice(b"ijklmnopqrst\0");
        p.extend_from_slice(plugin.as_bytes());
        p.push(0);
        self.send(&p);
    }

    fn ok(&mut self) {
        self.send(&[0x00, 0, 0, 2, 0, 0, 0]);
    }

    /// A text result set (CLIENT_DEPRECATE_EOF framing): one column per name, the rows.
    fn rows(&mut self, names: &[&str], rows: &[&[&str]]) {
        self.send(&[names.len() as u8]);
        for name in names {
            let mut c = Vec::new();
            for s in ["def", "", "", "", name, ""] {
                c.push(s.len() as u8);
                c.extend_from_slice(s.as_bytes());
            }
            c.extend_from_slice(&[0x0C, 8, 0, 0, 1, 0, 0, 0xFD, 0, 0, 0, 0, 0]);
            self.send(&c);
        }
        for row in rows {
            let mut r = Vec::new();
            for v in *row {
                r.push(v.len() as u8);
                r.extend_from_slice(v.as_bytes());
            }
            self.send(&r);
        }
        self.send(&[0xFE, 0, 0, 2, 0, 0, 0]);
    }

    /// Answers commands until the client leaves: `SELECT @@port` with `port`, anything else
    /// with an OK.
    fn serve(&mut self, port: &str) {
        while let Some(command) = self.recv() {
            self.seq = 1;
            match command.first() {
                Some(0x01) | None => return,
                Some(0x03) if command.ends_with(b"@@port") => self.rows(&["@@port"], &[&[port]]),
                _ => self.ok(),
            }
        }
    }
}

/// A fake server that runs `script` on each connection it accepts, on a thread of its own.
struct Fake {
    addr: String,
    heard: Heard,
    _dir: Option<tempfile::TempDir>,
    _thread: JoinHandle<()>,
}

impl Fake {
    fn tcp(script: impl Fn(&mut Peer<'_>) + Send + Sync + 'static) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let heard = Heard::default();
        let h = heard.clone();
        let thread = std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(mut s) = s else { return };
                let _ = s.set_read_timeout(Some(BOUND));
                let mut peer = Peer {
                    s: &mut s,
                    heard: h.clone(),
                    seq: 0,
                };
                script(&mut peer);
            }
        });
        Fake {
            addr: port.to_string(),
            heard,
            _dir: None,
            _thread: thread,
        }
    }

    fn unix(script: impl Fn(&mut Peer<'_>) + Send + Sync + 'static) -> Fake {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("fake.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let heard = Heard::default();
        let h = heard.clone();
        let thread = std::thread::spawn(move || {
            for s in listener.incoming() {
                let Ok(mut s) = s else { return };
                let _ = s.set_read_timeout(Some(BOUND));
                let mut peer = Peer {
                    s: &mut s,
                    heard: h.clone(),
                    seq: 0,
                };
                script(&mut peer);
            }
        });
        Fake {
            addr: path.display().to_string(),
            heard,
            _dir: Some(dir),
            _thread: thread,
        }
    }

    fn port(&self) -> u16 {
        self.addr.parse().expect("a TCP fake")
    }

    /// The MariaDB login at this fake server.
    fn target(&self) -> MyTarget {
        let tcp = self.addr.parse::<u16>().ok();
        MyTarget {
            db: Database::Maria,
            host: "127.0.0.1".into(),
            port: tcp.unwrap_or(3306),
            also: Vec::new(),
            attrs: Default::default(),
            socket: tcp.is_none().then(|| self.addr.clone().into()),
            user: "hammer".into(),
            password: Some(PASSWORD.into()),
            dbname: Some("tpcc".into()),
            tls: None,
            bounds: hammer::db::Bounds {
                reply_timeout: std::time::Duration::from_secs(2),
                kill: Default::default(),
            },
        }
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}

/// Connects the lean connection to `fake`; the error it gives, within [`BOUND`].
fn lean_error(fake: &Fake) -> hammer::db::DbError {
    let started = Instant::now();
    let r = block_on(mywire::connect(&fake.target()));
    assert!(started.elapsed() < BOUND, "took {:?}", started.elapsed());
    match r {
        Ok(_) => panic!("connected to a hostile server"),
        Err(e) => {
            assert!(!e.to_string().contains(PASSWORD), "{e}");
            e
        }
    }
}

/// A server that asks for caching_sha2_password's full authentication after the scramble,
/// then for anything the client sends, offers a public key of `key`.
fn full_auth(key: &'static [u8]) -> impl Fn(&mut Peer<'_>) + Send + Sync {
    move |p| {
        p.greet("caching_sha2_password");
        if p.recv().is_none() {
            return;
        }
        p.send(&[0x01, 0x04]);
        while let Some(req) = p.recv() {
            if req == [0x02] {
                let mut k = vec![0x01];
                k.extend_from_slice(key);
                p.send(&k);
            } else if req.ends_with(b"\0") {
                // The password itself: a real server would say OK.
                p.ok();
            }
        }
    }
}

#[test]
fn full_authentication_over_plain_tcp_is_refused() {
    for key in [
        &b"-----BEGIN PUBLIC KEY-----\ngarbage\n"[..],
        b"",
        b"\x00\xff",
    ] {
        let fake = Fake::tcp(full_auth(key));
        let e = lean_error(&fake);
        assert_eq!(e.kind, Failure::Auth, "{e}");
        assert!(
            e.detail
                .contains("caching_sha2_password's full authentication")
                && e.detail.contains("maria_ssl true")
                && e.detail.contains("maria_socket"),
            "{e}"
        );
        // The client said no more than its scramble, and hung up.
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !fake.heard.password_or_key_request(),
            "the client gave it away"
        );
        assert_eq!(packets(&fake.heard.bytes()).len(), 1);
    }
}

#[test]
fn full_authentication_over_the_socket_is_done() {
    let fake = Fake::unix(|p| {
        p.greet("caching_sha2_password");
        if p.recv().is_none() {
            return;
        }
        p.send(&[0x01, 0x04]);
        match p.recv() {
            Some(clear) if clear == [PASSWORD.as_bytes(), b"\0"].concat() => p.ok(),
            _ => p.send(b"\xff\x15\x04#28000Access denied"),
        }
        p.serve("3306");
    });
    let w = block_on(mywire::connect(&fake.target())).expect("authenticated over the socket");
    assert!(!w.is_tls() && w.is_socket());
}

/// A server that switches the client to `plugin`.
fn switch_to(plugin: &'static str) -> impl Fn(&mut Peer<'_>) + Send + Sync {
    move |p| {
        p.greet("mysql_native_password");
        if p.recv().is_none() {
            return;
        }
        let mut s = vec![0xFE];
        s.extend_from_slice(plugin.as_bytes());
        s.push(0);
        s.extend_from_slice(b"abcdefghijklmnopqrst\0");
        p.send(&s);
        p.drain();
    }
}

#[test]
fn clear_text_plugins_over_plain_tcp_are_refused() {
    for plugin in ["sha256_password", "mysql_clear_password", "dialog"] {
        let fake = Fake::tcp(switch_to(plugin));
        let e = lean_error(&fake);
        assert_eq!(e.kind, Failure::Auth, "{e}");
        assert!(
            e.detail.contains(plugin) && e.detail.contains("maria_ssl true"),
            "{e}"
        );
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !fake.heard.password_or_key_request(),
            "{plugin}: given away"
        );
    }
}

#[test]
fn an_unknown_plugin_is_refused_by_name() {
    let fake = Fake::tcp(switch_to("client_ed25519"));
    let e = lean_error(&fake);
    assert_eq!(e.kind, Failure::Auth, "{e}");
    assert!(
        e.detail.contains("\"client_ed25519\"") && e.detail.contains("mysql_native_password"),
        "{e}"
    );
    let fake = Fake::tcp(|p| {
        p.greet("mysql_native_password");
        p.recv();
        // mysql_old_password's switch: a lone 0xFE.
        p.send(&[0xFE]);
        p.drain();
    });
    let e = lean_error(&fake);
    assert!(e.detail.contains("mysql_old_password"), "{e}");
}

/// A CA, and a server certificate for `names` it signed: the server's TLS settings and the
/// CA's PEM file (in a directory dropped with it).
struct Pki {
    _dir: tempfile::TempDir,
    ca_file: std::path::PathBuf,
    config: Arc<rustls::ServerConfig>,
}

fn pki(names: &[&str]) -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca =
        CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key")).expect("CA");
    let key = KeyPair::generate().expect("key");
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let leaf = CertificateParams::new(names)
        .expect("params")
        .signed_by(&key, &ca)
        .expect("leaf");
    let dir = tempfile::tempdir().expect("dir");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).expect("CA file");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone(), ca.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .expect("server config");
    Pki {
        _dir: dir,
        ca_file,
        config: Arc::new(config),
    }
}

/// A server that offers TLS, and once it is up takes any login.
fn tls_server(config: Arc<rustls::ServerConfig>) -> impl Fn(&mut Peer<'_>) + Send + Sync {
    move |p| {
        p.greet_with("mysql_native_password", CAPS | 0x0800);
        // The SSL request, then the TLS handshake on the same stream.
        if p.recv().is_none() {
            return;
        }
        let Ok(mut conn) = rustls::ServerConnection::new(config.clone()) else {
            return;
        };
        let mut tls = rustls::Stream::new(&mut conn, &mut p.s);
        let mut inner = Peer {
            s: &mut tls,
            heard: p.heard.clone(),
            seq: p.seq,
        };
        if inner.recv().is_some() {
            inner.ok();
        }
        inner.drain();
    }
}

#[test]
fn with_a_ca_the_certificate_must_name_the_host() {
    let certs = pki(&["localhost"]);
    let fake = Fake::tcp(tls_server(certs.config.clone()));
    let tls = |verify_hostname| hammer::db::mysql::MyTls {
        ca: Some(certs.ca_file.clone()),
        identity: None,
        verify_hostname,
    };
    // 127.0.0.1 is not a name the certificate has.
    let by_ip = MyTarget {
        tls: Some(tls(true)),
        ..fake.target()
    };
    let started = Instant::now();
    let e = block_on(mywire::connect(&by_ip))
        .err()
        .expect("a certificate for another name");
    assert!(started.elapsed() < BOUND);
    assert_eq!(e.kind, Failure::Tls, "{e}");
    assert!(
        e.detail.contains("maria_ssl_verify_hostname false") && e.detail.contains("maria_host"),
        "{e}"
    );
    // By the name it has, or with the name not checked, the chain is enough.
    let by_name = MyTarget {
        host: "localhost".into(),
        ..by_ip.clone()
    };
    let w = block_on(mywire::connect(&by_name)).expect("the name the certificate has");
    assert!(w.is_tls());
    // The fake serves one connection at a time.
    drop(w);
    let unchecked = MyTarget {
        tls: Some(tls(false)),
        ..by_ip.clone()
    };
    let w = block_on(mywire::connect(&unchecked)).expect("the name not checked");
    assert!(w.is_tls());
    drop(w);
    // Another CA's certificate is refused whatever the name.
    let other = pki(&["localhost"]);
    let stranger = MyTarget {
        tls: Some(hammer::db::mysql::MyTls {
            ca: Some(other.ca_file.clone()),
            identity: None,
            verify_hostname: false,
        }),
        ..by_name.clone()
    };
    let e = block_on(mywire::connect(&stranger))
        .err()
        .expect("another CA");
    assert_eq!(e.kind, Failure::Tls, "{e}");
}

/// `librarycheck` and `vurun` on the MariaDB dictionary pointed at `fake`: each fails within
/// [`BOUND`] with an error holding every one of `says`, and nothing printed holds the
/// password.
fn through_hammer(fake: &Fake, says: &[&str]) {
    let mut f = Fixture::new();
    f.ok(&format!(
        "dbset db maria; diset connection maria_host 127.0.0.1; diset connection maria_port {}; \
         diset connection maria_socket null; diset tpcc maria_user hammer; \
         diset tpcc maria_pass {PASSWORD}; diset tpcc maria_dbase tpcc",
        fake.port()
    ));
    let started = Instant::now();
    let (r, lines) = f.console("let r = librarycheck(); [r.maria.ok, r.maria.error]");
    assert!(
        started.elapsed() < BOUND,
        "librarycheck took {:?}",
        started.elapsed()
    );
    let r = r.expect("librarycheck runs");
    let text = lines.join("\n");
    assert!(r.starts_with("[false, "), "{r}\n{text}");
    for said in says {
        assert!(r.contains(said), "librarycheck: {said:?} not in {r}");
    }
    assert!(
        !r.contains(PASSWORD) && !text.contains(PASSWORD),
        "{r}\n{text}"
    );

    let started = Instant::now();
    let (r, lines) = f.console("vurun()");
    assert!(
        started.elapsed() < BOUND,
        "vurun took {:?}",
        started.elapsed()
    );
    let text = lines.join("\n");
    let e = r.expect_err("vurun on a hostile server");
    for said in says {
        assert!(e.contains(said), "vurun: {said:?} not in {e}\n{text}");
    }
    assert!(
        !e.contains(PASSWORD) && !text.contains(PASSWORD),
        "{e}\n{text}"
    );
    // The refused vurun took away the virtual users it made.
    let e = f.err("vudestroy");
    assert!(e.contains("No Virtual Users found"), "{e}");
}

/// A server that takes the login, then answers every command with `reply`.
fn after_login(reply: fn(&mut Peer<'_>)) -> impl Fn(&mut Peer<'_>) + Send + Sync {
    move |p| {
        p.greet("mysql_native_password");
        if p.recv().is_none() {
            return;
        }
        p.ok();
        while let Some(command) = p.recv() {
            if command.first() == Some(&0x01) {
                return;
            }
            p.seq = 1;
            match command.first() {
                // A statement of one parameter (the checks' name), so the hostile reply
                // comes to its execution.
                Some(0x16) => {
                    let mut ok = vec![0x00];
                    ok.extend_from_slice(&1u32.to_le_bytes());
                    ok.extend_from_slice(&0u16.to_le_bytes());
                    ok.extend_from_slice(&1u16.to_le_bytes());
                    ok.extend_from_slice(&[0, 0, 0]);
                    p.send(&ok);
                    p.send(b"\x03def\x00\x00\x00\x01?\x00\x0c\x3f\x00\x00\x00\x00\x00\xfd\x80\x00\x00\x00\x00");
                }
                // COM_STMT_CLOSE has no reply.
                Some(0x19) => {}
                _ => reply(p),
            }
        }
    }
}

#[test]
fn an_rsa_key_exchange_over_plain_tcp_is_refused_by_hammer() {
    for key in [
        &b"-----BEGIN PUBLIC KEY-----\ngarbage\n"[..],
        b"",
        b"\x00\xff",
    ] {
        let fake = Fake::tcp(full_auth(key));
        through_hammer(
            &fake,
            &[
                "authentication failed",
                "caching_sha2_password's full authentication",
                "maria_ssl true",
            ],
        );
        assert!(
            !fake.heard.password_or_key_request(),
            "the client gave it away"
        );
    }
}

#[test]
fn an_unknown_plugin_is_refused_by_hammer() {
    let fake = Fake::tcp(switch_to("client_ed25519"));
    through_hammer(&fake, &["authentication failed", "client_ed25519"]);
    let fake = Fake::tcp(switch_to("sha256_password"));
    through_hammer(
        &fake,
        &["authentication failed", "sha256_password", "maria_ssl true"],
    );
    assert!(!fake.heard.password_or_key_request());
}

#[test]
fn a_huge_column_count_is_a_lost_connection() {
    let fake = Fake::tcp(after_login(|p| {
        // 2^62 columns.
        let mut head = vec![0xFE];
        head.extend_from_slice(&(1u64 << 62).to_le_bytes());
        p.send(&head);
    }));
    through_hammer(&fake, &["connection lost", "columns (at most 4096)"]);
}

#[test]
fn a_wrong_sequence_id_is_a_lost_connection() {
    let fake = Fake::tcp(after_login(|p| {
        p.seq = 7;
        p.ok();
    }));
    through_hammer(&fake, &["connection lost", "sequence id 7 where 1 was due"]);
    // In the middle of a result set too.
    let fake = Fake::tcp(after_login(|p| {
        p.send(&[1]);
        p.seq += 1;
        p.send(b"garbage");
    }));
    through_hammer(&fake, &["connection lost", "sequence id 3 where 2 was due"]);
}

#[test]
fn a_greeting_mysql_common_would_panic_on_is_refused() {
    let fake = Fake::tcp(|p| {
        let mut g = vec![10];
        g.extend_from_slice(b"8.0.36\0");
        g.extend_from_slice(&[0; 20]);
        g.push(0x80);
        g.extend_from_slice(&[0; 40]);
        p.seq = 0;
        p.send(&g);
        p.drain();
    });
    through_hammer(&fake, &["connection lost", "auth-plugin-data length"]);
}

/// The server behind the socket refuses the login (it may be another server, without this
/// user): the configured host and port decide, and the connection says why it went there.
#[test]
fn a_login_the_sockets_server_refuses_goes_to_the_configured_port() {
    let refusing = Fake::unix(|p| {
        p.greet("mysql_native_password");
        if p.recv().is_some() {
            p.send(b"\xff\x15\x04#28000Access denied for user 'hammer'@'localhost'");
        }
        p.drain();
    });
    let named = Fake::tcp(|p| {
        p.greet("mysql_native_password");
        if p.recv().is_some() {
            p.ok();
        }
        p.serve("3306");
    });
    let target = MyTarget {
        port: named.port(),
        also: Vec::new(),
        attrs: Default::default(),
        ..refusing.target()
    };
    let w = block_on(mywire::connect(&target)).expect("the configured port takes the login");
    assert!(!w.is_socket());
    let note = w.note().expect("a note");
    assert!(
        note.contains("refused the login") && note.contains(&format!("127.0.0.1:{}", named.port())),
        "{note}"
    );
    drop(w);
    // Refused on both: the socket's refusal is the error, as an authentication failure.
    let target = MyTarget {
        port: Fake::tcp(|p| {
            p.greet("mysql_native_password");
            if p.recv().is_some() {
                p.send(b"\xff\x15\x04#28000Access denied");
            }
            p.drain();
        })
        .port(),
        ..refusing.target()
    };
    let e = block_on(mywire::connect(&target)).err().expect("refused");
    assert_eq!(e.kind, Failure::Auth, "{e}");
}
