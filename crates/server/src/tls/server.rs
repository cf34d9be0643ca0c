//! The listeners' rustls configuration, built from `[tls]`: TLS 1.2 and 1.3 (or 1.3 only)
//! with aws-lc-rs's cipher suites, ALPN `h2` and `http/1.1` (`http/1.1` alone where HTTP/2 is not
//! served), the certificate chosen by the client's server name ([`BySni`]) and, with
//! `client_ca`, client certificates verified against it.

use std::sync::Arc;

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;

use super::files;
use crate::ops::config::{ClientAuth, Tls};

/// The configurations of one load of the files: for listeners that serve HTTP/2 and for
/// those that serve HTTP/1.1 only (they differ in ALPN only), and what was served.
pub struct Served {
    /// ALPN `h2`, `http/1.1`.
    pub with_h2: Arc<ServerConfig>,
    /// ALPN `http/1.1`.
    pub http1: Arc<ServerConfig>,
    /// Each certificate served: its file, its leaf's first name and its expiry (Unix time).
    pub certificates: Vec<(String, String, i64)>,
}

/// aws-lc-rs's provider, rustls's default: AEAD cipher suites only (AES-GCM,
/// ChaCha20-Poly1305), key exchange X25519MLKEM768 (post-quantum hybrid), X25519, P-256, P-384.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Seeds the provider's random generator now: aws-lc seeds it from CPU jitter on first use,
/// about 30 ms here, which would otherwise be the first client's handshake's (measured: 33 ms,
/// then 3 ms). Called before the listeners open.
pub fn warm() {
    let mut seed = [0u8; 32];
    let _ = provider().secure_random.fill(&mut seed);
}

/// TLS 1.3 alone.
static TLS13_ONLY: [&rustls::SupportedProtocolVersion; 1] = [&rustls::version::TLS13];

/// The protocol versions `[tls]` allows.
pub fn versions(tls13_only: bool) -> &'static [&'static rustls::SupportedProtocolVersion] {
    if tls13_only {
        &TLS13_ONLY
    } else {
        rustls::ALL_VERSIONS
    }
}

/// Loads every file `tls` names and builds the configurations, or says which file is wrong.
pub fn build(tls: &Tls) -> Result<Served, String> {
    let provider = provider();
    let default = tls.default.as_ref().ok_or("no tls.cert and tls.key")?;
    let loaded = files::pair(default, &provider)?;
    let mut certificates = vec![served(&default.cert, &loaded.facts)];
    let mut by_name = Vec::new();
    for pair in &tls.sni {
        let extra = files::pair(pair, &provider)?;
        if extra.facts.dns_names.is_empty() {
            return Err(format!(
                "{}: a tls.sni certificate must list DNS names in its subjectAltName",
                pair.cert.display()
            ));
        }
        certificates.push(served(&pair.cert, &extra.facts));
        for name in &extra.facts.dns_names {
            by_name.push((name.to_ascii_lowercase(), extra.key.clone()));
        }
    }
    let resolver = Arc::new(BySni {
        default: loaded.key,
        by_name,
    });
    let verifier = match &tls.client_ca {
        None => WebPkiClientVerifier::no_client_auth(),
        Some(ca) => {
            let roots = Arc::new(files::roots(ca)?);
            let builder = WebPkiClientVerifier::builder_with_provider(roots, provider.clone());
            let builder = match tls.client_auth {
                ClientAuth::Required => builder,
                ClientAuth::Optional => builder.allow_unauthenticated(),
            };
            builder
                .build()
                .map_err(|e| format!("{}: {e}", ca.display()))?
        }
    };
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(versions(tls.tls13_only))
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_client_cert_verifier(verifier)
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let http1 = Arc::new(config.clone());
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Served {
        with_h2: Arc::new(config),
        http1,
        certificates,
    })
}

/// A served certificate's series labels and value.
fn served(file: &std::path::Path, facts: &super::der::Facts) -> (String, String, i64) {
    let name = (facts.dns_names.first())
        .or(facts.common_name.as_ref())
        .cloned()
        .unwrap_or_default();
    (file.display().to_string(), name, facts.not_after)
}

/// The certificate for a client's server name: the first `sni` certificate naming it (exactly,
/// or by a wildcard for its first label), else the default one.
#[derive(Debug)]
pub struct BySni {
    default: Arc<CertifiedKey>,
    /// Lower-cased names (some `*.`) and their certificates, in the configuration's order.
    by_name: Vec<(String, Arc<CertifiedKey>)>,
}

impl BySni {
    /// The certificate for `server_name` (`None`: the client sent none).
    pub fn choose(&self, server_name: Option<&str>) -> &Arc<CertifiedKey> {
        let Some(name) = server_name else {
            return &self.default;
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let parent = name.split_once('.').map(|(_, rest)| rest);
        self.by_name
            .iter()
            .find(|(pattern, _)| match pattern.strip_prefix("*.") {
                Some(suffix) => parent == Some(suffix),
                None => *pattern == name,
            })
            .map_or(&self.default, |(_, key)| key)
    }
}

impl ResolvesServerCert for BySni {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.choose(hello.server_name()).clone())
    }
}
