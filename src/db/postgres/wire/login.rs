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

impl Wire {
    /// Asks for TLS; with `require` and the verify modes a server without it is an error,
    /// otherwise the session goes on in plain text (libpq's `prefer`).
    pub(super) async fn start_tls(&mut self, t: &PgTarget) -> Result<(), WireError> {
        // The configuration first: a missing CA file is said before anything is sent.
        let config = t.tls_config().map_err(WireError::Tls)?;
        let name = t.server_name().map_err(WireError::Tls)?;
        frontend::ssl_request(&mut self.out);
        self.sock.write_all(&self.out).await?;
        self.out.clear();
        let mut answer = [0u8; 1];
        if self.sock.read(&mut answer).await? == 0 {
            return Err(closed());
        }
        match answer[0] {
            b'S' => {}
            b'N' if t.tls_required() => {
                return Err(WireError::Tls(format!(
                    "the server does not support TLS, which {} {} requires",
                    t.key("sslmode"),
                    t.sslmode
                )))
            }
            b'N' => return Ok(()),
            other => return Err(protocol(format!("an answer {other} to the TLS request"))),
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
        let mut state = Login::Asked;
        loop {
            let f = self.frame().await?;
            let body = self.inbox.body(f);
            match f.tag {
                b'R' => {
                    let code = be_i32(body)?;
                    let rest = body[4..].to_vec();
                    state = self.authenticate(state, code, &rest, t, &policy, private)?;
                    if !self.out.is_empty() {
                        self.flush().await?;
                    }
                }
                b'E' => return Err(WireError::Server(server_error(body))),
                b'Z' if matches!(state, Login::Accepted) => return Ok(()),
                b'Z' => return Err(auth("the server ended the login before accepting it")),
                // ParameterStatus, BackendKeyData, notices, NegotiateProtocolVersion.
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
        t: &PgTarget,
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
                frontend::password_message(t.password.as_bytes(), &mut self.out)?;
                Login::Answered
            }
            (Login::Asked, 5) => {
                let salt: [u8; 4] = rest
                    .get(..4)
                    .and_then(|s| s.try_into().ok())
                    .ok_or_else(|| protocol("an MD5 request without salt"))?;
                let hash = md5_hash(t.user.as_bytes(), t.password.as_bytes(), salt);
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
                let s = ScramSha256::new(t.password.as_bytes(), ChannelBinding::unsupported());
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
