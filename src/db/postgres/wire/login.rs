//! Logging in to PostgreSQL on the lean connection: TLS asked for per `pg_sslmode`, the
//! start-up message, and the password exchange the server asks for (cleartext, MD5 or
//! SCRAM-SHA-256), one method per login as `pg_require_auth` allows.

use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256, SCRAM_SHA_256};
use postgres_protocol::message::frontend;

use super::messages::{be_i32, server_error};
use super::{auth, closed, protocol, Wire, WireError};
use crate::db::net::leantls;
use crate::db::postgres::{AuthMethod, PgTarget};

/// PostgreSQL's SSLRequest: its length (8) and the request code 80877103.
pub(crate) const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// What the server's one-byte answer to an SSLRequest means under `pg_sslmode`.
#[derive(Debug, PartialEq)]
pub(crate) enum SslAnswer {
    /// `S`: the TLS handshake follows.
    Tls,
    /// `N` where the mode allows plain text (libpq's `prefer`).
    Plain,
    /// `N` where the mode requires TLS: why the connection cannot go on.
    Required(String),
    /// Neither `S` nor `N`: the answer, in words.
    Unknown(String),
}

/// Reads the server's answer to an SSLRequest under `t`'s `pg_sslmode`.
pub(crate) fn ssl_answer(t: &PgTarget, answer: u8) -> SslAnswer {
    match answer {
        b'S' => SslAnswer::Tls,
        b'N' if t.tls_required() => SslAnswer::Required(format!(
            "the server does not support TLS, which {} {} requires",
            t.key("sslmode"),
            t.sslmode
        )),
        b'N' => SslAnswer::Plain,
        other => SslAnswer::Unknown(format!("an answer {other} to the TLS request")),
    }
}

impl Wire {
    /// Asks for TLS; with `require` and the verify modes a server without it is an error,
    /// otherwise the session goes on in plain text (libpq's `prefer`).
    pub(super) async fn start_tls(&mut self, t: &PgTarget) -> Result<(), WireError> {
        // The configuration first: a missing CA file is said before anything is sent.
        let config = t.tls_config().map_err(WireError::Tls)?;
        let name = t.server_name().map_err(WireError::Tls)?;
        self.sock.write_all(&SSL_REQUEST).await?;
        let mut answer = [0u8; 1];
        if self.sock.read(&mut answer).await? == 0 {
            return Err(closed());
        }
        match ssl_answer(t, answer[0]) {
            SslAnswer::Tls => {}
            SslAnswer::Plain => return Ok(()),
            SslAnswer::Required(why) => return Err(WireError::Tls(why)),
            SslAnswer::Unknown(what) => return Err(protocol(what)),
        }
        let tls = leantls::handshake(config, name, &mut self.sock).await?;
        self.tls = Some(Box::new(tls));
        Ok(())
    }

    /// The start-up message and the password exchange the server asks for (cleartext, MD5
    /// or SCRAM-SHA-256), up to the first ReadyForQuery. One method per login, as
    /// `pg_require_auth` allows; SCRAM must end with the server's proof that it knows the
    /// password (SASLFinal), and no other request is answered once it has begun.
    pub(super) async fn login(&mut self, t: &PgTarget) -> Result<(), WireError> {
        frontend::startup_message(
            [
                ("user", t.user.as_str()),
                ("database", t.dbname.as_str()),
                ("application_name", "hammer"),
                ("client_encoding", "UTF8"),
            ],
            &mut self.out,
        )?;
        self.flush().await?;
        let policy = t.policy();
        let private = self.tls.is_some() || !self.sock.is_tcp();
        let password = t.login_password();
        let mut state = Login::Asked;
        loop {
            let f = self.frame().await?;
            let body = self.inbox.body(f);
            match f.tag {
                b'R' => {
                    let code = be_i32(body)?;
                    let rest = body[4..].to_vec();
                    state =
                        self.authenticate(state, code, &rest, (t, &password), &policy, private)?;
                    if !self.out.is_empty() {
                        self.flush().await?;
                    }
                }
                b'E' => return Err(WireError::Server(server_error(body))),
                b'Z' if matches!(state, Login::Accepted) => return Ok(()),
                b'Z' => return Err(auth("the server ended the login before accepting it")),
                // ParameterStatus: what the server is, for `pg_target_session_attrs`.
                b'S' => {
                    let mut parts = body.split(|&b| b == 0);
                    let (name, value) = (parts.next(), parts.next());
                    let on = value == Some(b"on".as_slice());
                    match name {
                        Some(b"in_hot_standby") => self.role.standby = on,
                        Some(b"default_transaction_read_only") => self.role.read_only = on,
                        _ => {}
                    }
                }
                // BackendKeyData, notices, NegotiateProtocolVersion.
                _ => {}
            }
        }
    }

    /// One authentication request: checked against the login's state and the policy, its
    /// answer written to `out`.
    fn authenticate(
        &mut self,
        state: Login,
        code: i32,
        rest: &[u8],
        (t, password): (&PgTarget, &str),
        policy: &crate::db::postgres::AuthPolicy,
        private: bool,
    ) -> Result<Login, WireError> {
        let first = matches!(state, Login::Asked);
        if first {
            if let Some(method) = AuthMethod::of_code(code) {
                policy.allows(method, private).map_err(WireError::Auth)?;
            }
        }
        Ok(match (state, code) {
            (Login::Asked | Login::Answered | Login::Proven, 0) => Login::Accepted,
            (Login::Asked, 3) => {
                frontend::password_message(password.as_bytes(), &mut self.out)?;
                Login::Answered
            }
            (Login::Asked, 5) => {
                let salt: [u8; 4] = rest
                    .get(..4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| protocol("an MD5 request without salt"))?;
                let hash = md5_hash(t.user.as_bytes(), password.as_bytes(), salt);
                frontend::password_message(hash.as_bytes(), &mut self.out)?;
                Login::Answered
            }
            (Login::Asked, 10) => {
                let offered = rest
                    .split(|b| *b == 0)
                    .any(|m| m == SCRAM_SHA_256.as_bytes());
                if !offered {
                    return Err(auth(
                        "the server asks for a SASL mechanism other than SCRAM-SHA-256",
                    ));
                }
                // Channel binding is not offered: the session is bound to no checked
                // certificate either way.
                let s = ScramSha256::new(password.as_bytes(), ChannelBinding::unsupported());
                frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.out)?;
                Login::Scram(Box::new(s), false)
            }
            (Login::Scram(mut s, false), 11) => {
                s.update(rest)
                    .map_err(|e| auth(format!("the server's SCRAM challenge: {e}")))?;
                frontend::sasl_response(s.message(), &mut self.out)?;
                Login::Scram(s, true)
            }
            (Login::Scram(mut s, true), 12) => {
                s.finish(rest).map_err(|e| {
                    auth(format!(
                        "the server's SCRAM signature does not verify ({e}): it does not know \
                         the password, so it may not be the server it claims to be"
                    ))
                })?;
                Login::Proven
            }
            (Login::Scram(..), 0) => {
                return Err(auth(
                    "the server accepted the login without completing SCRAM (no server \
                     signature), so it may not be the server it claims to be: hammer refuses",
                ))
            }
            (Login::Asked, other) => {
                return Err(auth(format!(
                "the server asks for authentication method {other}, which hammer does not support"
            )))
            }
            (Login::Accepted, _) => {
                return Err(auth(
                    "an authentication request after the login was accepted",
                ))
            }
            (_, other) => {
                return Err(auth(format!(
                    "an authentication request ({other}) out of turn: one method per login"
                )))
            }
        })
    }
}

/// Where a login stands.
enum Login {
    /// No authentication request yet.
    Asked,
    /// A password (clear or MD5) was sent: AuthenticationOk must follow.
    Answered,
    /// SCRAM under way; true once the client's final message was sent.
    Scram(Box<ScramSha256>, bool),
    /// SCRAM verified the server's signature: AuthenticationOk must follow.
    Proven,
    /// AuthenticationOk came: the server's parameters follow, then ReadyForQuery.
    Accepted,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(sslmode: &str) -> PgTarget {
        PgTarget {
            db: crate::config::Database::Pg,
            host: "localhost".into(),
            port: 5432,
            also: Vec::new(),
            attrs: Default::default(),
            user: "hammer".into(),
            password: String::new(),
            dbname: "tpcc".into(),
            sslmode: sslmode.into(),
            sslrootcert: String::new(),
            require_auth: String::new(),
            bounds: Default::default(),
        }
    }

    #[test]
    fn the_request_is_libpqs() {
        let mut request = bytes::BytesMut::new();
        frontend::ssl_request(&mut request);
        assert_eq!(&request[..], &SSL_REQUEST[..]);
    }

    #[test]
    fn the_answer_to_the_tls_request_is_read_under_the_sslmode() {
        for mode in ["prefer", "require", "verify-ca", "verify-full"] {
            let t = target(mode);
            assert_eq!(ssl_answer(&t, b'S'), SslAnswer::Tls, "{mode}");
            assert_eq!(
                ssl_answer(&t, b'E'),
                SslAnswer::Unknown("an answer 69 to the TLS request".into()),
                "{mode}"
            );
        }
        assert_eq!(ssl_answer(&target("prefer"), b'N'), SslAnswer::Plain);
        assert_eq!(
            ssl_answer(&target("verify-full"), b'N'),
            SslAnswer::Required(
                "the server does not support TLS, which pg_sslmode verify-full requires".into()
            )
        );
    }
}
