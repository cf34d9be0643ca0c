//! The peer of a connection.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use axum::http::HeaderValue;

/// The client at the other end of a connection, with its address as the forwarding headers
/// carry it (formatted once per connection, not per request). The accept loop puts it in the
/// extensions of each request of the connection (a clone is one reference count).
#[derive(Clone, Debug)]
pub struct Peer(Arc<Rendered>);

/// A peer's address and its renderings.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub(crate) ip: IpAddr,
    /// `X-Forwarded-For` of a request from this peer with none before it: the bare address.
    pub(crate) forwarded_for: HeaderValue,
    /// The `Forwarded` element this hop appends: `for=192.0.2.1`, `for="[2001:db8::1]"`.
    pub(crate) node: String,
    /// `Forwarded` of a request from this peer when it is not trusted and has no `Host`.
    pub(crate) forwarded: HeaderValue,
    /// The `Host` of the connection's first request with one, and the `Forwarded` value built
    /// for it: the requests of a keep-alive connection usually share their `Host`.
    pub(crate) with_host: OnceLock<(HeaderValue, HeaderValue)>,
    /// `X-Forwarded-Proto` of a request from this peer: `http`, or `https` over TLS.
    pub(crate) proto: HeaderValue,
    /// The identity of the client certificate the peer presented (mutual TLS), if any.
    pub(crate) client: Option<Arc<str>>,
}

impl Peer {
    /// The peer at `addr` (an IPv4-mapped IPv6 address is written as the IPv4 address), on a
    /// cleartext connection.
    pub fn new(addr: SocketAddr) -> Peer {
        Peer::over(addr, false, None)
    }

    /// The peer at `addr` on a TLS connection (`tls`) or not, with the identity of its client
    /// certificate if it presented one.
    pub fn over(addr: SocketAddr, tls: bool, client: Option<Arc<str>>) -> Peer {
        let proto = if tls { "https" } else { "http" };
        let ip = addr.ip().to_canonical();
        let text = ip.to_string();
        let node = match ip {
            IpAddr::V4(_) => format!("for={text}"),
            IpAddr::V6(_) => format!("for=\"[{text}]\""),
        };
        let value = |text: &str| {
            HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("unknown"))
        };
        Peer(Arc::new(Rendered {
            ip,
            forwarded_for: value(&text),
            forwarded: value(&format!("{node};proto={proto}")),
            node,
            with_host: OnceLock::new(),
            proto: HeaderValue::from_static(proto),
            client,
        }))
    }

    /// The peer's address.
    pub fn ip(&self) -> IpAddr {
        self.0.ip
    }

    /// The identity of the client certificate the peer presented (mutual TLS), if any.
    pub fn client(&self) -> Option<&Arc<str>> {
        self.0.client.as_ref()
    }

    /// The address and its renderings.
    pub(crate) fn rendered(&self) -> &Rendered {
        &self.0
    }
}
