//! TLS on the listeners and to the upstream (`[tls]`, `upstream.tls_*`), with certificates the
//! tests make ([`utf8gate_e2e::Pki`]): real clients (curl, Python's `ssl`, `openssl s_client`)
//! over HTTP/1.1 and h2, server names, plain HTTP to a TLS port, mutual TLS and the audit
//! line's `client`, certificates rotated under load as a Kubernetes secret update does, and
//! an `https://` upstream.

use std::path::Path;
use std::time::Duration;

use utf8gate_e2e::{Gateway, Leaf, Metrics, Pki};

mod clients;
mod mutual;
mod rotation;
mod upstream;

/// A configuration with TLS on the proxy and API listeners (the admin one stays cleartext, so
/// that the tests read `/metrics` as usual), serving `leaf`, the files looked at every 0.2 s,
/// and `more` appended (keys of `[tls]` first, then any other section).
fn tls_toml(leaf: &Leaf, more: &str) -> String {
    tls_toml_files(&leaf.cert, &leaf.key, more)
}

/// [`tls_toml`] with the certificate and key files named.
fn tls_toml_files(cert: &Path, key: &Path, more: &str) -> String {
    format!(
        "[limits]\nheader_read_timeout_seconds = 2.0\n\n[admin]\nreload = true\n\n\
         [tls]\nlisteners = [\"proxy\", \"api\"]\ncert = {:?}\nkey = {:?}\nwatch_seconds = 0.2\n{more}",
        cert.display().to_string(),
        key.display().to_string(),
    )
}

/// The handshake failures of `listener` counted for `reason`.
fn failures(m: &Metrics, listener: &str, reason: &str) -> f64 {
    m.value(&format!(
        "utf8gate_tls_handshake_failures_total{{listener=\"{listener}\",reason=\"{reason}\"}}"
    ))
}

/// Polls `/metrics` (at most 10 s) until `check` holds; returns the last scrape.
async fn wait_metrics(gw: &Gateway, check: impl Fn(&Metrics) -> bool) -> Metrics {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let m = Box::pin(gw.metrics()).await;
        if check(&m) || tokio::time::Instant::now() > deadline {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A CA with a server certificate for `localhost` (and 127.0.0.1).
fn server_pki(label: &str) -> (Pki, Leaf) {
    let pki = Pki::new(label);
    let leaf = pki.issue("server", &["localhost"], &[], 30, false);
    (pki, leaf)
}
