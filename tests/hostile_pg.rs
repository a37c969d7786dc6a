//! Hostile and stalled PostgreSQL servers: small fake backends on loopback that do what no
//! real server does (stall mid-reply, skip SCRAM's proof, ask for a password in the open,
//! announce absurd lengths, answer out of turn). Each ends in a clear error within a bounded
//! time, the password never reaches them, and nothing panics.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hammer::db::postgres::wire::{self as pgwire, Wire};
use hammer::db::postgres::{self, PgTarget};
use hammer::db::{Bounds, Failure, KillSwitch};

const PASSWORD: &str = "s3cret-Pa55word";

/// What the fake server received, to check that no password reached it.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<u8>>>);

impl Heard {
    fn add(&self, b: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(b);
    }

    fn has_password(&self) -> bool {
        let all = self.0.lock().unwrap();
        all.windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes())
    }
}

/// A fake backend's byte stream: plain TCP, or TLS over it.
trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

/// One connection of a fake backend.
struct Backend {
    s: Box<dyn Stream>,
    /// The TCP socket under `s`, for bytes written past TLS.
    raw: TcpStream,
    heard: Heard,
}

impl Backend {
    fn read_exact(&mut self, n: usize) -> Option<Vec<u8>> {
        let mut b = vec![0; n];
        self.s.read_exact(&mut b).ok()?;
        self.heard.add(&b);
        Some(b)
    }

    /// The start-up packet (no tag); answers an SSLRequest with `tls` first.
    fn startup(&mut self, tls: u8) -> Option<()> {
        loop {
            let len = self.read_exact(4)?;
            let len = u32::from_be_bytes(len.try_into().ok()?) as usize;
            let body = self.read_exact(len - 4)?;
            if body == [0x04, 0xd2, 0x16, 0x2f] {
                self.s.write_all(&[tls]).ok()?;
                continue;
            }
            return Some(());
        }
    }

    /// A tagged frontend message: its tag and body.
    fn message(&mut self) -> Option<(u8, Vec<u8>)> {
        let head = self.read_exact(5)?;
        let len = u32::from_be_bytes(head[1..5].try_into().ok()?) as usize;
        Some((head[0], self.read_exact(len - 4)?))
    }

    fn send(&mut self, tag: u8, body: &[u8]) {
        let mut m = vec![tag];
        m.extend_from_slice(&((body.len() + 4) as u32).to_be_bytes());
        m.extend_from_slice(body);
        let _ = self.s.write_all(&m);
    }

    fn auth(&mut self, code: i32, rest: &[u8]) {
        let mut body = code.to_be_bytes().to_vec();
        body.extend_from_slice(rest);
        self.send(b'R', &body);
    }

    /// AuthenticationOk, a parameter and ReadyForQuery.
    fn accept(&mut self) {
        self.auth(0, &[]);
        self.send(b'S', b"server_version\x0015.0\x00");
        self.send(b'Z', b"I");
    }

    /// Reads frontend messages up to and including Sync.
    fn until_sync(&mut self) -> Option<()> {
        loop {
            if self.message()?.0 == b'S' {
                return Some(());
            }
        }
    }

    /// Holds the connection open, saying nothing, until the client goes.
    fn stall(&mut self) {
        let _ = self.raw.set_read_timeout(Some(Duration::from_secs(30)));
        let mut b = [0; 256];
        while let Ok(n) = self.s.read(&mut b) {
            if n == 0 {
                break;
            }
            self.heard.add(&b[..n]);
        }
    }

    /// The SCRAM exchange up to the client's final message; the server's answer is the
    /// caller's.
    fn scram_until_client_final(&mut self) -> Option<()> {
        self.auth(10, b"SCRAM-SHA-256\x00\x00");
        let (_, first) = self.message()?;
        // mechanism\0, length, "n,,n=,r=NONCE"
        let text = String::from_utf8_lossy(&first).into_owned();
        // The first ",r=": the nonce itself may hold "r=" (never a comma).
        let nonce = text.split_once(",r=")?.1.to_string();
        let server_first = format!("r={nonce}srvnonce,s=c2FsdHNhbHRzYWx0c2FsdA==,i=4096");
        self.auth(11, server_first.as_bytes());
        self.message()?;
        Some(())
    }
}

/// A fake server on loopback running `script` on each of its first `conns` connections.
fn fake(
    conns: usize,
    script: impl Fn(&mut Backend) + Send + Sync + 'static,
) -> (u16, Heard, JoinHandle<()>) {
    fake_with(conns, None, script)
}

/// A certificate for `names` and its key, as rustls's server wants them, and as PEM.
fn certificate(names: &[&str]) -> (Arc<rustls::ServerConfig>, String) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    let cert =
        rcgen::generate_simple_self_signed(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .unwrap();
    let chain = vec![CertificateDer::from(cert.cert.der().to_vec())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.signing_key.serialize_der()));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .unwrap();
    (Arc::new(config), cert.cert.pem())
}

/// A fake server that answers the TLS request with yes and runs `script` over TLS.
fn fake_tls(
    conns: usize,
    tls: Arc<rustls::ServerConfig>,
    script: impl Fn(&mut Backend) + Send + Sync + 'static,
) -> (u16, Heard, JoinHandle<()>) {
    fake_with(conns, Some(tls), script)
}

fn fake_with(
    conns: usize,
    tls: Option<Arc<rustls::ServerConfig>>,
    script: impl Fn(&mut Backend) + Send + Sync + 'static,
) -> (u16, Heard, JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let heard = Heard::default();
    let h = heard.clone();
    let script = Arc::new(script);
    let server = std::thread::spawn(move || {
        let mut handlers = Vec::new();
        for _ in 0..conns {
            let Ok((s, _)) = l.accept() else { return };
            let (h, script, tls) = (h.clone(), script.clone(), tls.clone());
            handlers.push(std::thread::spawn(move || {
                let raw = s.try_clone().unwrap();
                let mut b = Backend {
                    s: Box::new(s),
                    raw,
                    heard: h,
                };
                if let Some(tls) = tls {
                    // The TLS request, yes, and the handshake as the client drives it.
                    if b.read_exact(8).is_none() || b.s.write_all(b"S").is_err() {
                        return;
                    }
                    let sock = b.raw.try_clone().unwrap();
                    let conn = rustls::ServerConnection::new(tls).unwrap();
                    b.s = Box::new(rustls::StreamOwned::new(conn, sock));
                }
                script(&mut b);
            }));
        }
        for h in handlers {
            let _ = h.join();
        }
    });
    (port, heard, server)
}

fn target(port: u16, sslmode: &str, require_auth: &str) -> PgTarget {
    PgTarget {
        db: hammer::config::Database::Pg,
        host: "127.0.0.1".into(),
        port,
        also: Vec::new(),
        attrs: Default::default(),
        user: "hammer".into(),
        password: PASSWORD.into(),
        dbname: "tpcc".into(),
        sslmode: sslmode.into(),
        sslrootcert: String::new(),
        require_auth: require_auth.into(),
        bounds: Bounds {
            reply_timeout: Duration::from_secs(1),
            kill: KillSwitch::default(),
        },
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Both clients' logins (the lean one and tokio-postgres) against the same script: each must
/// fail with `kind`, its message containing `says`, the password never sent.
fn both_logins_fail(
    sslmode: &str,
    require_auth: &str,
    kind: Failure,
    says: &str,
    script: impl Fn(&mut Backend) + Send + Sync + 'static,
) {
    let (port, heard, server) = fake(2, script);
    let t = target(port, sslmode, require_auth);
    let rt = runtime();
    let started = Instant::now();
    let lean = rt
        .block_on(pgwire::open(&t))
        .err()
        .expect("the lean login fails");
    let general = rt
        .block_on(postgres::connect(&t))
        .err()
        .expect("tokio-postgres's login fails");
    for e in [&lean, &general] {
        assert_eq!(e.kind, kind, "{e}");
        assert!(e.to_string().contains(says), "{e}");
        assert!(!e.to_string().contains(PASSWORD), "{e}");
    }
    assert!(started.elapsed() < Duration::from_secs(10));
    server.join().unwrap();
    assert!(
        !heard.has_password(),
        "the password reached the fake server"
    );
}

#[test]
fn a_login_without_scram_s_server_signature_is_refused() {
    both_logins_fail(
        "disable",
        "",
        Failure::Auth,
        "without completing SCRAM",
        |b| {
            b.startup(b'N');
            if b.scram_until_client_final().is_some() {
                b.accept();
            }
        },
    );
}

#[test]
fn a_cleartext_request_after_scram_began_is_refused() {
    both_logins_fail("disable", "", Failure::Auth, "out of turn", |b| {
        b.startup(b'N');
        b.auth(10, b"SCRAM-SHA-256\x00\x00");
        if b.message().is_some() {
            b.auth(3, &[]);
            let _ = b.message();
        }
    });
}

#[test]
fn a_wrong_server_signature_is_an_authentication_failure() {
    both_logins_fail("disable", "", Failure::Auth, "", |b| {
        b.startup(b'N');
        if b.scram_until_client_final().is_some() {
            b.auth(12, b"v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=");
            b.accept();
        }
    });
}

#[test]
fn a_cleartext_password_in_the_open_is_refused_after_tls_was_refused() {
    // sslmode prefer: the server says no to TLS, then asks for the password in clear.
    both_logins_fail(
        "prefer",
        "",
        Failure::Auth,
        "pg_require_auth password",
        |b| {
            b.startup(b'N');
            b.auth(3, &[]);
            let _ = b.message();
        },
    );
}

#[test]
fn require_auth_refuses_what_it_does_not_list() {
    both_logins_fail("disable", "scram-sha-256", Failure::Auth, "md5", |b| {
        b.startup(b'N');
        b.auth(5, &[1, 2, 3, 4]);
        let _ = b.message();
    });
}

#[test]
fn a_cleartext_password_goes_where_require_auth_allows_it() {
    let (port, heard, server) = fake(1, |b| {
        b.startup(b'N');
        b.auth(3, &[]);
        if b.message().is_some() {
            b.accept();
            b.stall();
        }
    });
    let t = target(port, "disable", "password");
    let rt = runtime();
    let wire = rt.block_on(pgwire::open(&t)).expect("the login is allowed");
    rt.block_on(wire.close());
    server.join().unwrap();
    assert!(heard.has_password());
}

#[test]
fn a_huge_length_is_refused_without_allocating_it() {
    both_logins_fail("disable", "", Failure::Lost, "2147483647", |b| {
        b.startup(b'N');
        let _ = b.s.write_all(&[b'R', 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        b.stall();
    });
}

/// A logged-in lean connection to a fake server whose reply to the first call is `reply`,
/// after which it stalls; its prepare reply is `prepared`.
fn lean_call(prepared: &'static [u8], reply: &'static [u8]) -> (pgwire::WireError, Duration) {
    let (port, _heard, _server) = fake(1, move |b| {
        b.startup(b'N');
        b.accept();
        if b.until_sync().is_none() {
            return;
        }
        let _ = b.s.write_all(prepared);
        if b.until_sync().is_none() {
            return;
        }
        let _ = b.s.write_all(reply);
        b.stall();
    });
    let t = target(port, "disable", "");
    let rt = runtime();
    rt.block_on(async {
        let mut w = Wire::connect(&t).await.expect("login");
        w.prepare(&[("q", "select 1")]).await.expect("prepare");
        let started = Instant::now();
        let e = match w.call("q", 0).run().await {
            Ok(_) => panic!("the call should fail"),
            Err(e) => e,
        };
        (e, started.elapsed())
    })
}

const PARSED: &[u8] = b"1\x00\x00\x00\x04Z\x00\x00\x00\x05I";

#[test]
fn a_reply_that_stops_midway_is_a_lost_connection_after_the_reply_timeout() {
    // BindComplete, then half a DataRow.
    let (e, took) = lean_call(PARSED, b"2\x00\x00\x00\x04D\x00\x00\x00\x0b\x00\x01");
    let (kind, detail) = pgwire::classify(&e);
    assert_eq!(kind, Failure::Lost, "{detail}");
    assert!(detail.contains("within 1 s"), "{detail}");
    assert!(took >= Duration::from_millis(900) && took < Duration::from_secs(5));
}

#[test]
fn a_reply_without_ready_for_query_is_bounded_too() {
    let (e, took) = lean_call(PARSED, b"2\x00\x00\x00\x04C\x00\x00\x00\x0dSELECT 1\x00");
    assert_eq!(pgwire::classify(&e).0, Failure::Lost);
    assert!(took < Duration::from_secs(5));
}

#[test]
fn an_extra_ready_for_query_is_not_taken_for_the_next_reply() {
    // The prepare's reply carries a second ReadyForQuery: the call must not take it for its
    // own answer.
    let (e, _) = lean_call(
        b"1\x00\x00\x00\x04Z\x00\x00\x00\x05IZ\x00\x00\x00\x05I",
        b"2\x00\x00\x00\x04D\x00\x00\x00\x06\x00\x00C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05I",
    );
    let (kind, detail) = pgwire::classify(&e);
    assert_eq!(kind, Failure::Lost, "{detail}");
    assert!(detail.contains("no call asked for"), "{detail}");
}

#[test]
fn a_ready_for_query_before_the_reply_is_out_of_step() {
    let (e, _) = lean_call(PARSED, b"Z\x00\x00\x00\x05I");
    let (kind, detail) = pgwire::classify(&e);
    assert_eq!(kind, Failure::Lost, "{detail}");
    assert!(detail.contains("before the call's reply"), "{detail}");
}

#[test]
fn the_kill_switch_ends_a_blocking_call_on_a_stalled_server() {
    let (port, _heard, _server) = fake(1, |b| {
        b.startup(b'N');
        b.accept();
        if b.until_sync().is_some() {
            let _ = b.s.write_all(PARSED);
        }
        b.stall();
    });
    let mut t = target(port, "disable", "");
    t.bounds.reply_timeout = Duration::from_secs(60);
    let kill = t.bounds.kill.clone();
    let rt = runtime();
    let mut w = rt
        .block_on(async {
            let mut w = Wire::connect(&t).await?;
            w.prepare(&[("q", "select 1")]).await?;
            Ok::<_, pgwire::WireError>(w)
        })
        .expect("login")
        .into_blocking()
        .expect("blocking");
    let caller = std::thread::spawn(move || {
        let started = Instant::now();
        let r = runtime().block_on(async { w.call("q", 0).run().await.map(|_| ()) });
        (r.map_err(|e| pgwire::classify(&e).0), started.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(kill.cut(), 1);
    let (r, took) = caller.join().unwrap();
    assert_eq!(r, Err(Failure::Lost));
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn librarycheck_refuses_a_cleartext_password_in_the_open() {
    let (port, heard, server) = fake(1, |b| {
        b.startup(b'N');
        b.auth(3, &[]);
        let _ = b.message();
    });
    let home = tempfile::tempdir().unwrap();
    let script = home.path().join("check.rhai");
    std::fs::write(
        &script,
        format!(
            "dbset(\"db\", \"pg\");\ndiset(\"connection\", \"pg_host\", \"127.0.0.1\");\n\
             diset(\"connection\", \"pg_port\", \"{port}\");\n\
             diset(\"tpcc\", \"pg_superuserpass\", \"{PASSWORD}\");\nlibrarycheck();\n"
        ),
    )
    .unwrap();
    let out = common::hammer(home.path(), &["auto", script.to_str().unwrap()], "");
    let (stdout, stderr) = (common::text(&out.stdout), common::text(&out.stderr));
    server.join().unwrap();
    assert!(
        !heard.has_password(),
        "the password reached the fake server"
    );
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("clear text"), "{all}");
    assert!(!all.contains(PASSWORD), "{all}");
    assert_ne!(out.status.code(), Some(101), "{all}");
}

/// A fake TLS server that accepts any login and then stalls.
fn accepting_tls(names: &[&str]) -> (u16, String, JoinHandle<()>) {
    let (tls, pem) = certificate(names);
    let (port, _heard, server) = fake_tls(2, tls, |b| {
        if b.startup(b'N').is_some() {
            b.accept();
            b.stall();
        }
    });
    (port, pem, server)
}

fn verify(
    port: u16,
    mode: &str,
    ca_pem: &str,
) -> (Result<(), DbErrorText>, Result<(), DbErrorText>) {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let mut t = target(port, mode, "");
    t.sslrootcert = ca.display().to_string();
    let rt = runtime();
    let lean = rt.block_on(async {
        match pgwire::open(&t).await {
            Ok(w) => {
                w.close().await;
                Ok(())
            }
            Err(e) => Err((e.kind, e.to_string())),
        }
    });
    let general = rt.block_on(async {
        match postgres::connect(&t).await {
            Ok(c) => {
                c.close().await;
                Ok(())
            }
            Err(e) => Err((e.kind, e.to_string())),
        }
    });
    (lean, general)
}

type DbErrorText = (Failure, String);

#[test]
fn verify_full_checks_the_host_name_and_verify_ca_does_not() {
    let (port, pem, _server) = accepting_tls(&["elsewhere.invalid"]);
    for r in <[_; 2]>::from(verify(port, "verify-full", &pem)) {
        let (kind, text) = r.expect_err("the name does not match");
        assert_eq!(kind, Failure::Tls, "{text}");
        assert!(text.to_lowercase().contains("name"), "{text}");
    }
    let (port, pem, _server) = accepting_tls(&["elsewhere.invalid"]);
    let (lean, general) = verify(port, "verify-ca", &pem);
    lean.expect("verify-ca checks the chain only");
    general.expect("verify-ca checks the chain only");
}

#[test]
fn verify_ca_refuses_a_certificate_from_another_ca() {
    let (port, _pem, _server) = accepting_tls(&["127.0.0.1"]);
    let (_, other_ca) = certificate(&["127.0.0.1"]);
    for r in <[_; 2]>::from(verify(port, "verify-ca", &other_ca)) {
        let (kind, text) = r.expect_err("another CA's certificate");
        assert_eq!(kind, Failure::Tls, "{text}");
    }
}

#[test]
fn the_verify_modes_need_a_ca_file() {
    let (port, heard, _server) = fake(2, |b| {
        let _ = b.startup(b'S');
    });
    let mut t = target(port, "verify-full", "");
    t.sslrootcert = "/nonexistent/root.crt".into();
    let rt = runtime();
    let lean = rt.block_on(pgwire::open(&t)).err().expect("no CA file");
    let general = rt
        .block_on(postgres::connect(&t))
        .err()
        .expect("no CA file");
    for e in [lean, general] {
        assert_eq!(e.kind, Failure::Tls, "{e}");
        assert!(e.to_string().contains("/nonexistent/root.crt"), "{e}");
    }
    // Refused before anything was sent.
    assert!(heard.0.lock().unwrap().is_empty());
}

#[test]
fn half_a_tls_record_is_bounded_by_the_reply_timeout() {
    let (tls, _) = certificate(&["localhost"]);
    let (port, _heard, _server) = fake_tls(1, tls, |b| {
        b.startup(b'N');
        b.accept();
        let _ = b.s.flush();
        if b.until_sync().is_none() {
            return;
        }
        let _ = b.s.write_all(PARSED);
        let _ = b.s.flush();
        if b.until_sync().is_none() {
            return;
        }
        // A record header announcing 64 bytes, and 3 of them.
        let _ = b.raw.write_all(&[0x17, 0x03, 0x03, 0x00, 0x40, 1, 2, 3]);
        b.stall();
    });
    let t = target(port, "require", "");
    let rt = runtime();
    let (e, took) = rt.block_on(async {
        let mut w = Wire::connect(&t).await.expect("login over TLS");
        w.prepare(&[("q", "select 1")]).await.expect("prepare");
        let started = Instant::now();
        let e = match w.call("q", 0).run().await {
            Ok(_) => panic!("the call should fail"),
            Err(e) => e,
        };
        (e, started.elapsed())
    });
    assert_eq!(pgwire::classify(&e).0, Failure::Lost, "{e}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}
