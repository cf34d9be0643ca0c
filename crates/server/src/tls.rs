//! TLS, with rustls and aws-lc-rs: the listeners' ([`server`]: versions, ALPN, certificates chosen
//! by server name, client certificates), their certificates in force and reloaded without a
//! restart ([`live`]), the `https://` upstream's client configuration ([`client`]), the PEM
//! files ([`files`]) and the few fields read from a certificate ([`der`]). Accepting a TLS
//! connection is the listeners' business (`crate::listen::serve`).

pub mod client;
pub mod der;
pub mod files;
pub mod live;
pub mod server;

pub use live::LiveTls;
