//! The TLS series: handshakes that failed, by listener and reason (a closed set); reloads of
//! the certificate files, by result, and whether the files in place fail to load now; and each
//! served certificate's expiry.

use prometheus::{IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry};

fn must<T>(r: prometheus::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

/// Why a TLS handshake failed: the `reason` label's values.
pub const HANDSHAKE_FAILURES: [&str; 7] = [
    "plaintext",
    "timeout",
    "no_certificate",
    "bad_certificate",
    "protocol_version",
    "no_shared_cipher",
    "other",
];

/// The TLS series. Cheap to clone.
#[derive(Clone)]
pub struct TlsMetrics {
    failures: IntCounterVec,
    reloads: IntCounterVec,
    expiry: IntGaugeVec,
    failing: IntGauge,
}

impl TlsMetrics {
    /// Registers the series in `registry`.
    pub(super) fn register(registry: &Registry) -> TlsMetrics {
        let failures = must(IntCounterVec::new(
            Opts::new(
                "tls_handshake_failures_total",
                "TLS handshakes that failed, by listener and reason: plaintext (an HTTP request \
                 to a TLS port), timeout, no_certificate and bad_certificate (mutual TLS), \
                 protocol_version, no_shared_cipher, other.",
            ),
            &["listener", "reason"],
        ));
        let reloads = must(IntCounterVec::new(
            Opts::new(
                "tls_reloads_total",
                "Loads of the TLS certificate files after start-up (a file changed, SIGHUP, \
                 POST /admin/reload), by result: ok, or error (the certificates in use kept).",
            ),
            &["result"],
        ));
        for result in ["ok", "error"] {
            reloads.with_label_values(&[result]);
        }
        let expiry = must(IntGaugeVec::new(
            Opts::new(
                "tls_certificate_expiry_seconds",
                "When each certificate served expires (its notAfter), in seconds since the \
                 Unix epoch, by certificate file and the leaf's first name.",
            ),
            &["file", "name"],
        ));
        let failing = must(IntGauge::new(
            "tls_certificate_files_failing",
            "1 while the TLS certificate files in place do not load (the last load failed: \
             the certificates loaded before still serve), 0 once they load.",
        ));
        must(registry.register(Box::new(failing.clone())));
        for metric in [&failures, &reloads] {
            must(registry.register(Box::new(metric.clone())));
        }
        must(registry.register(Box::new(expiry.clone())));
        TlsMetrics {
            failures,
            reloads,
            expiry,
            failing,
        }
    }

    /// Counts a failed handshake on `listener` for `reason` (one of [`HANDSHAKE_FAILURES`]).
    pub fn handshake_failed(&self, listener: &str, reason: &str) {
        self.failures.with_label_values(&[listener, reason]).inc();
    }

    /// Counts a reload of the certificate files, `ok` or not.
    /// The gauge follows: 0 after a load that succeeded, 1 after one that failed.
    pub fn reloaded(&self, ok: bool) {
        let result = if ok { "ok" } else { "error" };
        self.reloads.with_label_values(&[result]).inc();
        self.failing.set(i64::from(!ok));
    }

    /// Sets the expiries of the certificates now served (file, name, Unix time), dropping
    /// the series of those no longer served.
    pub fn served(&self, certificates: &[(String, String, i64)]) {
        self.expiry.reset();
        for (file, name, not_after) in certificates {
            self.expiry.with_label_values(&[file, name]).set(*not_after);
        }
    }
}
