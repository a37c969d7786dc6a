//! TLS client settings for both database families: encryption without checking the server
//! (libpq's `prefer` and `require`, MariaDB's `*_ssl` without a CA), or the server's
//! certificate checked against a CA file, with or without its host name (libpq's
//! `verify-ca` and `verify-full`, MariaDB's `*_ssl_verify_hostname`), and a client identity
//! for two-way TLS. One verifier serves them all.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::SignatureScheme;
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore};

/// How the server's certificate is checked.
pub enum Trust<'a> {
    /// Not at all: the session is encrypted, the server not authenticated.
    Anyone,
    /// Against the CA certificates in a PEM file; the host name too when `names`, and a
    /// wrong name is refused with `way_out` (what to set).
    Ca {
        file: &'a Path,
        names: bool,
        way_out: String,
    },
}

/// A client configuration for `trust`, with `identity` (certificate chain and key files) for
/// two-way TLS; no session resumption (every session is a full handshake, the one kind the
/// lean connections are tested with).
pub fn client_config(
    trust: Trust<'_>,
    identity: Option<(&Path, &Path)>,
) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let check = match trust {
        Trust::Anyone => Check {
            inner: None,
            names: false,
            way_out: String::new(),
            provider: provider.clone(),
        },
        Trust::Ca {
            file,
            names,
            way_out,
        } => Check {
            inner: Some(ca_verifier(file, &provider)?),
            names,
            way_out,
            provider: provider.clone(),
        },
    };
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(check));
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain = CertificateDer::pem_file_iter(cert)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("certificate {}: {e}", cert.display()))?;
            let key = PrivateKeyDer::from_pem_file(key)
                .map_err(|e| format!("key {}: {e}", key.display()))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| e.to_string())?
        }
    };
    config.resumption = rustls::client::Resumption::disabled();
    Ok(config)
}

/// [`client_config`] that trusts anyone, made once and shared.
pub fn encrypt_only_shared() -> Arc<ClientConfig> {
    static CONFIG: LazyLock<Arc<ClientConfig>> = LazyLock::new(|| Arc::new(encrypt_only()));
    CONFIG.clone()
}

/// A client configuration that encrypts but does not verify the server's certificate.
pub fn encrypt_only() -> ClientConfig {
    client_config(Trust::Anyone, None).expect("ring supports the default TLS versions")
}

/// A webpki verifier of the CA certificates in the PEM file `ca`.
fn ca_verifier(
    ca: &Path,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    let bad = |e: &dyn std::fmt::Display| format!("CA file {}: {e}", ca.display());
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca).map_err(|e| bad(&e))? {
        roots.add(cert.map_err(|e| bad(&e))?).map_err(|e| bad(&e))?;
    }
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| bad(&e))
}

/// The server's certificate checked as [`Trust`] says; signatures always verified.
#[derive(Debug)]
struct Check {
    inner: Option<Arc<WebPkiServerVerifier>>,
    names: bool,
    way_out: String,
    provider: Arc<CryptoProvider>,
}

/// A certificate that does not name the host, with the way out.
#[derive(Debug)]
struct WrongName(String);

impl std::fmt::Display for WrongName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WrongName {}

impl ServerCertVerifier for Check {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(inner) = &self.inner else {
            return Ok(ServerCertVerified::assertion());
        };
        match inner.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                e @ (CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. }),
            )) => {
                if !self.names {
                    return Ok(ServerCertVerified::assertion());
                }
                let why = format!("{e}: {}", self.way_out);
                Err(rustls::Error::InvalidCertificate(CertificateError::Other(
                    rustls::OtherError(Arc::new(WrongName(why))),
                )))
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
