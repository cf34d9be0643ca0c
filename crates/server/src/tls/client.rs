//! The rustls configuration of the connections to an `https://` upstream: its CA bundle or
//! the system's roots, TLS 1.2 and 1.3, the proxy's own certificate for mutual TLS if set.
//! The connector (hyper-rustls) sends the server name and offers ALPN `h2` and `http/1.1`.

use std::sync::{Arc, Mutex};

use rustls::client::ResolvesClientCert;
use rustls::sign::CertifiedKey;
use rustls::{ClientConfig, SignatureScheme};

use super::files;
use super::server::{provider, versions};
use crate::ops::config::UpstreamTls;

/// Whether `config`'s upstream is `https://` and, if so, its TLS settings load (a file named
/// if not): what `serve` and `check-config` check before anything listens.
pub fn upstream_loads(config: &crate::ops::config::Config) -> Result<bool, String> {
    let https = (config.upstream.as_deref()).is_some_and(crate::ops::config::upstream_is_https);
    if https {
        self::config(&config.upstream_tls)?;
    }
    Ok(https)
}

/// The client configuration for `tls`, made once for the process: the check before the
/// listeners open and every proxy thread's client share it (reading the system's roots and the
/// files once). The upstream's TLS keys are restart-only; another `tls` (a test's state) makes
/// and keeps its own.
pub fn config(tls: &UpstreamTls) -> Result<ClientConfig, String> {
    static MADE: Mutex<Option<(UpstreamTls, ClientConfig)>> = Mutex::new(None);
    let mut made = MADE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((of, config)) = made.as_ref()
        && of == tls
    {
        return Ok(config.clone());
    }
    let config = make(tls)?;
    *made = Some((tls.clone(), config.clone()));
    Ok(config)
}

/// The client configuration for `tls`, or why it cannot be made (a file named).
fn make(tls: &UpstreamTls) -> Result<ClientConfig, String> {
    let provider = provider();
    let roots = match &tls.ca {
        Some(ca) => files::roots(ca)?,
        None => system_roots()?,
    };
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions(false))
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_root_certificates(Arc::new(roots));
    match &tls.client {
        None => Ok(builder.with_no_client_auth()),
        Some(pair) => {
            let loaded = files::pair(pair, &provider)?;
            Ok(builder.with_client_cert_resolver(Arc::new(Presents(loaded.key))))
        }
    }
}

/// The proxy's client certificate, presented whenever the upstream asks for one.
#[derive(Debug)]
struct Presents(Arc<CertifiedKey>);

impl ResolvesClientCert for Presents {
    fn resolve(&self, _: &[&[u8]], _: &[SignatureScheme]) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// The platform's trusted roots (`/etc/ssl/certs` and its kind), or why there are none.
fn system_roots() -> Result<rustls::RootCertStore, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut store = rustls::RootCertStore::empty();
    let (added, _) = store.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found
            .errors
            .first()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        return Err(format!(
            "no system CA certificates found{why}; set upstream.tls_ca"
        ));
    }
    Ok(store)
}
