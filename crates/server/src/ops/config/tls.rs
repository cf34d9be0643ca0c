//! The `[tls]` section (TLS on the listeners) and the upstream's TLS keys (`upstream.tls_*`,
//! used when `upstream.url` is `https://`). What is checked here is the shape: names, paths
//! given together, versions. The files themselves are read by `crate::tls` when the listeners
//! start and on every reload, with errors naming the file.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::error::ConfigError;

/// `[tls]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTls {
    pub(super) listeners: Vec<Spanned<String>>,
    pub(super) cert: Spanned<String>,
    pub(super) key: Spanned<String>,
    pub(super) sni: Vec<Spanned<RawPair>>,
    pub(super) client_ca: Spanned<String>,
    pub(super) client_auth: Spanned<String>,
    pub(super) min_version: Spanned<String>,
    pub(super) watch_seconds: Spanned<f64>,
}

/// A certificate chain and its key, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPair {
    cert: String,
    key: String,
}

/// The upstream's TLS keys as written.
pub(super) struct RawUpstreamTls<'a> {
    pub(super) ca: &'a Spanned<String>,
    pub(super) cert: &'a Spanned<String>,
    pub(super) key: &'a Spanned<String>,
    pub(super) server_name: &'a Spanned<String>,
}

/// A certificate chain (PEM, the leaf first) and its private key (PEM: PKCS#8, PKCS#1 or SEC1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The chain's file.
    pub cert: PathBuf,
    /// The key's file.
    pub key: PathBuf,
}

/// Which listeners speak TLS.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TlsListeners {
    /// The proxy listener.
    pub proxy: bool,
    /// The API listener.
    pub api: bool,
    /// The admin listener.
    pub admin: bool,
}

impl TlsListeners {
    /// Whether the listener named `name` (proxy, api, admin) speaks TLS.
    pub fn has(&self, name: &str) -> bool {
        match name {
            "proxy" => self.proxy,
            "api" => self.api,
            "admin" => self.admin,
            _ => false,
        }
    }

    /// Whether any listener speaks TLS.
    pub fn any(&self) -> bool {
        self.proxy || self.api || self.admin
    }
}

/// Whether a client must present a certificate (with `client_ca`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// Refused at the handshake without one the CA signed.
    Required,
    /// Asked for; a client without one is served, anonymous.
    Optional,
}

/// The validated `[tls]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    /// The listeners that speak TLS (restart-only: they are bound as such).
    pub listeners: TlsListeners,
    /// The certificate served when no other matches the client's server name (or it sent none).
    pub default: Option<Pair>,
    /// More certificates, each served to the server names its subjectAltName lists.
    pub sni: Vec<Pair>,
    /// CAs whose client certificates are accepted (mutual TLS); `None`: no client certificate.
    pub client_ca: Option<PathBuf>,
    /// Whether a client certificate is required or only asked for.
    pub client_auth: ClientAuth,
    /// TLS 1.3 only (`min_version = "1.3"`); otherwise TLS 1.2 and 1.3.
    pub tls13_only: bool,
    /// How often the files are looked at for a change (a secret volume's update); zero: never.
    pub watch: Duration,
}

/// The upstream's TLS, for an `https://` upstream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UpstreamTls {
    /// CAs that sign the upstream's certificate; `None`: the system's roots.
    pub ca: Option<PathBuf>,
    /// The certificate the proxy presents to the upstream (mutual TLS), if any.
    pub client: Option<Pair>,
    /// The server name sent and verified; `None`: the upstream URL's host.
    pub server_name: Option<String>,
}

/// The validation's error at a key's span.
type Bad<'a> = &'a dyn Fn(&str, std::ops::Range<usize>, String) -> ConfigError;
/// The validation's reader of seconds (zero allowed or not).
type Seconds<'a> = &'a dyn Fn(&str, &Spanned<f64>, bool) -> Result<Duration, ConfigError>;

/// A path, or `None` for an empty string.
fn path(value: &Spanned<String>) -> Option<PathBuf> {
    (!value.get_ref().is_empty()).then(|| PathBuf::from(value.get_ref()))
}

/// A certificate and key given by the keys `cert` and `key` (name and value), both or
/// neither; an error names the one that is missing, at the one that is set.
fn pair(
    (cert_key, cert): (&str, &Spanned<String>),
    (key_key, key): (&str, &Spanned<String>),
    bad: Bad<'_>,
) -> Result<Option<Pair>, ConfigError> {
    match (path(cert), path(key)) {
        (Some(cert), Some(key)) => Ok(Some(Pair { cert, key })),
        (None, None) => Ok(None),
        (Some(_), None) => {
            let message = format!("{cert_key} is set without {key_key}");
            Err(bad(key_key, key.span(), message))
        }
        (None, Some(_)) => {
            let message = format!("{key_key} is set without {cert_key}");
            Err(bad(cert_key, cert.span(), message))
        }
    }
}

/// Checks `[tls]`.
pub(super) fn validate(
    raw: &RawTls,
    bad: Bad<'_>,
    seconds: Seconds<'_>,
) -> Result<Tls, ConfigError> {
    let mut listeners = TlsListeners::default();
    for name in &raw.listeners {
        let on = match name.get_ref().as_str() {
            "proxy" => &mut listeners.proxy,
            "api" => &mut listeners.api,
            "admin" => &mut listeners.admin,
            other => {
                let message = format!("{other:?} is not proxy, api or admin");
                return Err(bad("tls.listeners", name.span(), message));
            }
        };
        *on = true;
    }
    let default = pair(("tls.cert", &raw.cert), ("tls.key", &raw.key), bad)?;
    let mut sni = Vec::new();
    for pair in &raw.sni {
        let RawPair { cert, key } = pair.get_ref();
        if cert.is_empty() || key.is_empty() {
            let message = "each entry needs a cert and a key".to_string();
            return Err(bad("tls.sni", pair.span(), message));
        }
        sni.push(Pair {
            cert: cert.into(),
            key: key.into(),
        });
    }
    if listeners.any() && default.is_none() {
        let message = "TLS listeners need tls.cert and tls.key (the default certificate)";
        return Err(bad("tls.cert", raw.cert.span(), message.to_string()));
    }
    let client_auth = match raw.client_auth.get_ref().as_str() {
        "required" => ClientAuth::Required,
        "optional" => ClientAuth::Optional,
        other => {
            let message = format!("{other:?} is not required or optional");
            return Err(bad("tls.client_auth", raw.client_auth.span(), message));
        }
    };
    let tls13_only = match raw.min_version.get_ref().as_str() {
        "1.2" => false,
        "1.3" => true,
        other => {
            let message =
                format!("{other:?} is not \"1.2\" or \"1.3\" (older versions are not served)");
            return Err(bad("tls.min_version", raw.min_version.span(), message));
        }
    };
    Ok(Tls {
        listeners,
        default,
        sni,
        client_ca: path(&raw.client_ca),
        client_auth,
        tls13_only,
        watch: seconds("tls.watch_seconds", &raw.watch_seconds, true)?,
    })
}

/// Checks the upstream's TLS keys.
pub(super) fn validate_upstream(
    raw: RawUpstreamTls<'_>,
    bad: Bad<'_>,
) -> Result<UpstreamTls, ConfigError> {
    let client = pair(
        ("upstream.tls_cert", raw.cert),
        ("upstream.tls_key", raw.key),
        bad,
    )?;
    let name = raw.server_name.get_ref();
    if !name.is_empty() && rustls_pki_types::ServerName::try_from(name.as_str()).is_err() {
        let message = format!("{name:?} is not a DNS name or an IP address");
        return Err(bad(
            "upstream.tls_server_name",
            raw.server_name.span(),
            message,
        ));
    }
    Ok(UpstreamTls {
        ca: path(raw.ca),
        client,
        server_name: (!name.is_empty()).then(|| name.clone()),
    })
}
