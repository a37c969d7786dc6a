//! Reaching a MariaDB/MySQL server and logging in: the unix socket checked against the
//! configured port, the greeting, the capabilities hammer needs, the TLS upgrade, and
//! authentication, which fails closed (what it refuses says what the server asked and what
//! to set).

use std::io;
use std::sync::Arc;

use mysql_common::constants::CapabilityFlags;
use mysql_common::io::ParseBuf;
use mysql_common::packets::{
    AuthPlugin, AuthSwitchRequest, HandshakePacket, HandshakeResponse, SslRequest,
};
use mysql_common::proto::MySerialize;
use mysql_common::Value;
use rustls::pki_types::ServerName;
use rustls::ClientConfig;

use super::packet::server_error;
use super::rows::Parse;
use super::transport::lean;
use super::{Expect, State, Wire, WireError};
use crate::db::mysql::{MyTarget, MyTls};
use crate::db::net::io_failure;
use crate::db::net::leantls;
use crate::db::net::sock::Sock;
use crate::fault::{DbError, Failure};

/// The read buffer's first size: a procedure's reply takes well under 2 KiB.
const READ_BUF: usize = 32 * 1024;
/// `max_allowed_packet` as the handshake response announces it (the usual clients' default).
const MAX_PACKET: u32 = 16 * 1024 * 1024;

/// The plugins that take the password itself, which hammer sends over TLS or a unix socket
/// only (`dialog` is MariaDB's PAM prompt, answered with the password too).
const CLEAR_PLUGINS: [&str; 3] = ["sha256_password", "mysql_clear_password", "dialog"];

/// An authentication hammer will not do: an error, never a reason to try another way.
fn refuse(t: &MyTarget, why: impl Into<String>) -> DbError {
    t.peer().error(Failure::Auth, why)
}

/// Why hammer does not send the password over plain TCP, and what to set instead.
fn clear_over_tcp(t: &MyTarget, what: &str) -> String {
    let p = t.db.prefix();
    format!(
        "the server asks for {what}, which takes the password itself, and this connection is \
         unencrypted TCP: hammer does not send the password in clear, nor encrypt it with a \
         public key the server would send unauthenticated; set {p}_ssl true to connect over \
         TLS, or connect through the server's unix socket ({p}_host localhost and {p}_socket \
         its path); with caching_sha2_password one such login also lets later logins of the \
         user over TCP take the fast path, until the server restarts"
    )
}

fn unknown_plugin(name: &str) -> String {
    format!(
        "the server asks for authentication plugin {name:?}, which hammer does not speak \
         (it speaks mysql_native_password and caching_sha2_password, and over TLS or a unix \
         socket also {}): give the user one of these",
        CLEAR_PLUGINS.join(", ")
    )
}

/// The password as the clear-text plugins take it: its bytes and a NUL.
fn clear_password(pass: Option<&str>) -> Vec<u8> {
    let mut clear = pass.unwrap_or_default().as_bytes().to_vec();
    clear.push(0);
    clear
}

pub(super) async fn reach(t: &MyTarget) -> Result<Wire, DbError> {
    let Some(path) = &t.socket else {
        return handshake(t).await;
    };
    let p = t.db.prefix();
    let tcp = MyTarget {
        socket: None,
        ..t.clone()
    };
    // No database yet: on another server it may not exist, which would hide which server
    // answered.
    let first = MyTarget {
        dbname: None,
        ..t.clone()
    };
    let mut w = match handshake(&first).await {
        Ok(w) => w,
        // The server behind the socket may be another one, without this login: the
        // configured host and port decide.
        Err(e) if e.kind == Failure::Auth => {
            return match handshake(&tcp).await {
                Ok(mut w) => {
                    w.note = Some(format!(
                        "the server behind {p}_socket {} refused the login ({}): connected \
                         over TCP to {} instead",
                        path.display(),
                        e.detail,
                        tcp.peer().addr
                    ));
                    Ok(w)
                }
                Err(_) => Err(e),
            };
        }
        Err(e) => return Err(e),
    };
    let port = match w.query_first("SELECT @@port").await {
        Ok(row) => row.as_deref().and_then(port_of),
        Err(e) => {
            return Err(t
                .peer()
                .failed("cannot ask which server answers at", e.kind, e.detail))
        }
    };
    if port == Some(t.port) {
        if let Some(db) = &t.dbname {
            w.use_database(db)
                .await
                .map_err(|e| t.peer().error(e.kind, e.detail))?;
        }
        return Ok(w);
    }
    w.close().await;
    let listens = port.map_or("an unknown port".to_string(), |n| format!("port {n}"));
    let note = format!(
        "{p}_socket {path} leads to the server listening on {listens}, not {p}_port {port}: \
         connected over TCP to {addr} instead (set {p}_socket to that server's socket, or \
         null, to say so)",
        path = path.display(),
        port = t.port,
        addr = tcp.peer().addr,
    );
    match handshake(&tcp).await {
        Ok(mut w) => {
            w.note = Some(note);
            Ok(w)
        }
        Err(mut e) => {
            e.detail = format!("{} ({note})", e.detail);
            Err(e)
        }
    }
}

/// Refuses a greeting that mysql_common's parser would panic on: it subtracts 8 from the
/// auth-plugin-data length read as an `i8`, which overflows for 0x80 to 0x87.
fn greeting_parsable(p: &[u8]) -> Result<(), WireError> {
    let Some(nul) = p.get(1..).and_then(|v| v.iter().position(|b| *b == 0)) else {
        return Ok(());
    };
    // Protocol version, the version string and its NUL, then 20 bytes of fixed fields.
    match p.get(1 + nul + 1 + 20) {
        Some(0x80..=0x87) => Err(WireError::protocol(
            "a greeting with an auth-plugin-data length of more than 127",
        )),
        _ => Ok(()),
    }
}

/// A port number as the server gives `@@port`.
fn port_of(row: &[Value]) -> Option<u16> {
    match row.first()? {
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        Value::Int(n) => u16::try_from(*n).ok(),
        Value::UInt(n) => u16::try_from(*n).ok(),
        _ => None,
    }
}

async fn handshake(t: &MyTarget) -> Result<Wire, DbError> {
    let peer = t.peer();
    let failed = |e: WireError| peer.error(e.kind, e.detail);
    let connect_failed = |e: io::Error| peer.error(io_failure(&e), e.to_string());
    if t.tls.is_some() && t.socket.is_some() {
        // `MyTarget` never asks for it: TLS is for TCP (see `MyTarget::server`).
        return Err(peer.error(Failure::Tls, "TLS is for TCP, not a unix socket"));
    }
    let bounds = t.bounds.clone();
    let sock = match &t.socket {
        Some(path) => Sock::unix(path, &bounds).await.map_err(connect_failed)?,
        None => Sock::tcp(&t.host, t.port, &bounds)
            .await
            .map_err(connect_failed)?,
    };
    let mut w = Wire {
        sock,
        tls: None,
        sealed: Vec::new(),
        buf: vec![0; READ_BUF],
        start: 0,
        end: 0,
        drained: false,
        out: Vec::with_capacity(1024),
        caps: CapabilityFlags::empty(),
        state: State::Idle,
        owed: 0,
        cols: Vec::with_capacity(16),
        rows: Vec::new(),
        parse: Parse::new(Expect::Query),
        seq: 0,
        version: (0, 0, 0),
        dialect: &crate::db::mysql::dialect::MYSQL,
        note: None,
        addr: t.peer().addr,
    };

    let packet = w.packet().await.map_err(failed)?;
    if packet.first() == Some(&0xFF) {
        // Before the handshake the server's errors carry no SQLSTATE.
        return Err(failed(server_error(&packet, CapabilityFlags::empty())));
    }
    greeting_parsable(&packet).map_err(failed)?;
    let hs: HandshakePacket = match ParseBuf(&packet).parse(()) {
        Ok(hs) => hs,
        Err(e) => {
            return Err(failed(WireError::protocol(format!(
                "an unreadable handshake: {e}"
            ))))
        }
    };
    let need = CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS;
    let server = hs.capabilities();
    if !server.contains(need) {
        // No fallback to a client that would do without them: a man in the middle could
        // strip capabilities from the greeting to pick the client he likes best.
        return Err(peer.error(
            Failure::Other,
            format!(
                "the server lacks capabilities {:?}, which hammer needs (MySQL 5.5 and \
                 MariaDB 5.5 have them all)",
                need.difference(server)
            ),
        ));
    }
    let mut want = need
        | CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_DEPRECATE_EOF
        // For the build's LOAD DATA LOCAL: hammer sends only the rows it was given, never a
        // file, and refuses a request for one in reply to any other statement.
        | CapabilityFlags::CLIENT_LOCAL_FILES;
    if t.dbname.is_some() {
        want |= CapabilityFlags::CLIENT_CONNECT_WITH_DB;
    }
    if t.tls.is_some() {
        want |= CapabilityFlags::CLIENT_SSL;
    }
    w.caps = server & want;
    let version = hs
        .maria_db_server_version_parsed()
        .or_else(|| hs.server_version_parsed())
        .unwrap_or((0, 0, 0));
    w.version = version;
    w.dialect = crate::db::mysql::dialect::MyDialect::of_server(&String::from_utf8_lossy(
        hs.server_version_ref(),
    ));
    let mut nonce = hs.scramble_1_ref().to_vec();
    nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
    nonce.resize(20, 0);
    let mut plugin = match hs.auth_plugin() {
        Some(AuthPlugin::CachingSha2Password) => AuthPlugin::CachingSha2Password,
        _ => AuthPlugin::MysqlNativePassword,
    };

    if let Some(tls) = &t.tls {
        if !server.contains(CapabilityFlags::CLIENT_SSL) {
            return Err(peer.error(Failure::Tls, "the server does not offer TLS"));
        }
        if let Some(ca) = tls.ca.as_ref().filter(|ca| !ca.exists()) {
            return Err(peer.error(
                Failure::Tls,
                format!(
                    "CA file {} not found; set {p}_ssl_ca to an empty value to encrypt without \
                     verifying the server",
                    ca.display(),
                    p = t.db.prefix()
                ),
            ));
        }
        let config = tls_config(tls, t.db.prefix()).map_err(|e| peer.error(Failure::Tls, e))?;
        let name = match ServerName::try_from(t.host.clone()) {
            Ok(name) => name,
            Err(e) => {
                return Err(peer.error(Failure::Tls, format!("TLS server name {}: {e}", t.host)))
            }
        };
        let collation = if version >= (5, 5, 3) { 45 } else { 33 };
        let mut request = Vec::with_capacity(32);
        SslRequest::new(w.caps, MAX_PACKET, collation).serialize(&mut request);
        // Bytes already read past the greeting came unencrypted: were they taken for the
        // server's answers once TLS is up, a man in the middle could forge them.
        if w.start != w.end {
            return Err(peer.error(
                Failure::Tls,
                "the server sent unencrypted bytes after its greeting, before TLS",
            ));
        }
        w.write_packet(&request).await.map_err(failed)?;
        match leantls::handshake(config, name, &mut w.sock)
            .await
            .map_err(lean)
        {
            Ok(tls) => w.tls = Some(Box::new(tls)),
            Err(e) => return Err(failed(e)),
        }
    }

    let pass = t.password.as_deref();
    let data = plugin.gen_data(pass, &nonce);
    let response = HandshakeResponse::new(
        data.as_deref(),
        version,
        Some(t.user.as_bytes()),
        t.dbname.as_ref().map(|d| d.as_bytes()),
        Some(plugin.clone()),
        w.caps,
        None,
        MAX_PACKET,
    );
    let mut bytes = Vec::with_capacity(128);
    response.serialize(&mut bytes);
    w.write_packet(&bytes).await.map_err(failed)?;

    let mut switched = false;
    loop {
        let packet = w.packet().await.map_err(failed)?;
        match (packet.first(), packet.get(1)) {
            (Some(0x00), _) => break,
            (Some(0xFF), _) => return Err(failed(server_error(&packet, w.caps))),
            (Some(0xFE), _) if packet.len() == 1 => {
                return Err(refuse(
                    t,
                    "the server asks for mysql_old_password, whose scramble is broken; \
                     hammer refuses it: give the user a mysql_native_password or \
                     caching_sha2_password password",
                ))
            }
            (Some(0xFE), _) if switched => {
                return Err(failed(WireError::protocol(
                    "a second authentication switch",
                )))
            }
            (Some(0xFE), _) => {
                let request: AuthSwitchRequest = match ParseBuf(&packet).parse(()) {
                    Ok(r) => r,
                    Err(e) => {
                        return Err(failed(WireError::protocol(format!(
                            "an unreadable authentication switch: {e}"
                        ))))
                    }
                };
                switched = true;
                plugin = request.auth_plugin().into_owned();
                nonce = request.plugin_data().to_vec();
                let data = match &plugin {
                    AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password => plugin
                        .gen_data(pass, &nonce)
                        .as_deref()
                        .unwrap_or_default()
                        .to_vec(),
                    other => {
                        let name = String::from_utf8_lossy(other.as_bytes()).into_owned();
                        if !CLEAR_PLUGINS.contains(&name.as_str()) {
                            return Err(refuse(t, unknown_plugin(&name)));
                        }
                        // These plugins take the password itself: only a secure channel
                        // may carry it.
                        if !w.is_secure() {
                            return Err(refuse(t, clear_over_tcp(t, &name)));
                        }
                        clear_password(pass)
                    }
                };
                w.write_packet(&data).await.map_err(failed)?;
            }
            (Some(0x01), Some(0x03)) if plugin == AuthPlugin::CachingSha2Password => {
                // Fast authentication succeeded: the OK follows.
            }
            (Some(0x01), Some(0x04)) if plugin == AuthPlugin::CachingSha2Password => {
                // Full authentication: the password in clear, which only a secure channel may
                // carry. Over plain TCP the alternative is to encrypt it with an RSA key the
                // server sends unauthenticated, which a man in the middle replaces with his.
                if !w.is_secure() {
                    return Err(refuse(
                        t,
                        clear_over_tcp(t, "caching_sha2_password's full authentication"),
                    ));
                }
                w.write_packet(&clear_password(pass))
                    .await
                    .map_err(failed)?;
            }
            (first, _) => {
                return Err(failed(WireError::protocol(format!(
                    "an authentication packet starting with {first:?}"
                ))))
            }
        }
    }
    Ok(w)
}

/// The TLS settings for a `MyTls`: the CA file's certificates, with the host name checked
/// unless `*_ssl_verify_hostname` is off, or no verification at all without a CA (encryption
/// only, as libpq's `sslmode=require`); the client identity for two-way TLS.
fn tls_config(tls: &MyTls, prefix: &'static str) -> Result<Arc<ClientConfig>, String> {
    let trust = match &tls.ca {
        None => crate::db::net::tls::Trust::Anyone,
        Some(ca) => crate::db::net::tls::Trust::Ca {
            file: ca,
            names: tls.verify_hostname,
            way_out: format!(
                "connect by a name the certificate has ({prefix}_host), or set \
                 {prefix}_ssl_verify_hostname false to check the chain only"
            ),
        },
    };
    let identity = tls
        .identity
        .as_ref()
        .map(|(cert, key)| (cert.as_path(), key.as_path()));
    crate::db::net::tls::client_config(trust, identity).map(Arc::new)
}

#[cfg(test)]
mod tests {
    use mysql_common::io::ParseBuf;
    use mysql_common::packets::{AuthPlugin, AuthSwitchRequest, HandshakePacket};
    use proptest::prelude::*;

    use super::greeting_parsable;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn greetings(
            version in "[0-9a-zA-Z.-]{0,20}",
            fixed in proptest::collection::vec(any::<u8>(), 31),
            tail in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            // Greeting-shaped packets, so the parser gets past its first fields.
            let mut p = vec![10];
            p.extend_from_slice(version.as_bytes());
            p.push(0);
            p.extend_from_slice(&fixed);
            p.extend_from_slice(&tail);
            if greeting_parsable(&p).is_ok() {
                if let Ok(hs) = ParseBuf(&p).parse::<HandshakePacket>(()) {
                    let mut nonce = hs.scramble_1_ref().to_vec();
                    nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
                    let _ = hs.maria_db_server_version_parsed();
                    let _ = hs.server_version_parsed();
                    let _ = hs.auth_plugin();
                    let _ = AuthPlugin::CachingSha2Password.gen_data(Some("pw"), &nonce);
                }
            }
        }

        #[test]
        fn handshake_packets(p in proptest::collection::vec(any::<u8>(), 0..200)) {
            // What the connection phase hands to mysql_common's parsers and scrambles.
            let parsable = greeting_parsable(&p).is_ok();
            if let Some(hs) = parsable
                .then(|| ParseBuf(&p).parse::<HandshakePacket>(()).ok())
                .flatten()
            {
                let mut nonce = hs.scramble_1_ref().to_vec();
                nonce.extend_from_slice(hs.scramble_2_ref().unwrap_or_default());
                let _ = hs.capabilities();
                let _ = hs.maria_db_server_version_parsed();
                let _ = hs.server_version_parsed();
                let _ = hs.auth_plugin();
                for plugin in [AuthPlugin::MysqlNativePassword, AuthPlugin::CachingSha2Password] {
                    let _ = plugin.gen_data(Some("pw"), &nonce);
                }
            }
            if let Ok(r) = ParseBuf(&p).parse::<AuthSwitchRequest>(()) {
                let plugin = r.auth_plugin().into_owned();
                if matches!(plugin, AuthPlugin::MysqlNativePassword | AuthPlugin::CachingSha2Password) {
                    let _ = plugin.gen_data(Some("pw"), r.plugin_data());
                }
            }
        }
    }
}
