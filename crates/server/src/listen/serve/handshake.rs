//! How a connection opens: on a cleartext listener, its first bytes tell h2c's preface from
//! HTTP/1.1 ([`first_bytes`]); on a TLS listener, [`accept`] runs the handshake.
//!
//! The TLS handshake of a connection to a TLS listener (`[tls] listeners`): within the head's
//! time, with the configuration in force when it starts (`crate::tls::LiveTls`), ALPN telling
//! HTTP/2 from HTTP/1.1, the client certificate's identity read for the audit line. A failure
//! is counted by reason (`utf8gate_tls_handshake_failures_total`); a plain HTTP request is
//! answered, as nginx does, with 400 "plain HTTP request was sent to HTTPS port", not left
//! to hang or see a TLS alert it cannot read.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::tls::LiveTls;

/// A connection after its handshake.
pub(super) struct Accepted {
    /// The decrypted stream.
    pub(super) stream: TlsStream<TcpStream>,
    /// ALPN chose `h2`.
    pub(super) h2: bool,
    /// The client certificate's identity (mutual TLS), if one was presented.
    pub(super) client: Option<Arc<str>>,
}

/// The first byte of every TLS connection: a handshake record (RFC 8446 §5.1).
const HANDSHAKE_RECORD: u8 = 0x16;

/// What a plain HTTP request to a TLS port gets.
const PLAINTEXT_ANSWER: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n\
Content-Length: 42\r\nConnection: close\r\n\r\nplain HTTP request was sent to HTTPS port\n";

/// Runs the handshake of `stream` on listener `name` within `timeout`; `h2`: the listener
/// serves HTTP/2. `None`: the connection is over (counted, and answered if it spoke HTTP).
pub(super) async fn accept(
    name: &'static str,
    stream: TcpStream,
    live: &LiveTls,
    h2: bool,
    timeout: Duration,
) -> Option<Accepted> {
    let handshake = async {
        let mut first = [0u8; 1];
        match stream.peek(&mut first).await {
            Ok(1) if first[0] != HANDSHAKE_RECORD => return Err(("plaintext", Some(stream))),
            Ok(1) => {}
            // Closed before a byte (a TCP health check, a port scan): no handshake to count.
            Ok(_) => return Err(("", None)),
            Err(_) => return Err(("other", None)),
        }
        let acceptor = tokio_rustls::TlsAcceptor::from(live.config(h2));
        acceptor
            .accept(stream)
            .await
            .map_err(|e| (reason(&e), None))
    };
    let failed = match tokio::time::timeout(timeout, handshake).await {
        Ok(Ok(stream)) => {
            let (_, connection) = stream.get_ref();
            let h2 = connection.alpn_protocol() == Some(b"h2");
            let client = (connection.peer_certificates())
                .and_then(|chain| chain.first())
                .and_then(|leaf| crate::tls::der::read(leaf))
                .and_then(|facts| facts.identity().map(Arc::from));
            return Some(Accepted { stream, h2, client });
        }
        Ok(Err(failed)) => failed,
        Err(_) => ("timeout", None),
    };
    let (reason, plaintext) = failed;
    if reason.is_empty() {
        return None;
    }
    live.handshake_failed(name, reason);
    tracing::debug!(listener = name, reason, "TLS handshake failed");
    if let Some(stream) = plaintext {
        answer_plaintext(stream, timeout).await;
    }
    None
}

/// Reads what the client sent (a request head, at most 16 KiB, within `timeout`), answers 400
/// and closes, reading a little more so that the close does not reset the answer away.
async fn answer_plaintext(mut stream: TcpStream, timeout: Duration) {
    let mut buf = vec![0u8; 16 * 1024];
    let _ = tokio::time::timeout(timeout, stream.read(&mut buf)).await;
    if stream.write_all(PLAINTEXT_ANSWER).await.is_ok() {
        let _ = stream.shutdown().await;
        let drain = async {
            let mut left = 64 * 1024usize;
            while let Ok(n @ 1..) = stream.read(&mut buf).await {
                left = left.saturating_sub(n);
                if left == 0 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), drain).await;
    }
}

/// The `reason` label of a failed handshake.
fn reason(e: &std::io::Error) -> &'static str {
    use rustls::{Error, PeerIncompatible};
    let Some(e) = e.get_ref().and_then(|e| e.downcast_ref::<Error>()) else {
        return "other";
    };
    match e {
        Error::NoCertificatesPresented => "no_certificate",
        Error::InvalidCertificate(_) => "bad_certificate",
        Error::PeerIncompatible(
            PeerIncompatible::SupportedVersionsExtensionRequired
            | PeerIncompatible::Tls12NotOffered
            | PeerIncompatible::Tls12NotOfferedOrEnabled
            | PeerIncompatible::Tls13RequiredForQuic,
        ) => "protocol_version",
        Error::PeerIncompatible(_) => "no_shared_cipher",
        _ => "other",
    }
}

/// The HTTP/2 connection preface (RFC 9113 §3.4): how an h2c client with prior knowledge opens.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Waits, for at most `timeout`, until `stream` holds enough bytes to tell h2c (the whole
/// preface: `Some(true)`) from HTTP/1 (bytes that differ from it: `Some(false)`). `None`: the
/// peer sent too little in time, or closed the connection.
pub(super) async fn first_bytes(stream: &TcpStream, timeout: Duration) -> Option<bool> {
    let mut buf = [0u8; PREFACE.len()];
    let enough = async {
        loop {
            match stream.peek(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) if buf[..n] != PREFACE[..n] => return Some(false),
                Ok(n) if n == PREFACE.len() => return Some(true),
                // Part of the preface: more bytes to come (rare; a bounded wait).
                Ok(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
    };
    tokio::time::timeout(timeout, enough).await.ok().flatten()
}
