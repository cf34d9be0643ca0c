//! hyper-util's pooled clients of the upstream, for the transports that use one: h2c
//! (`upstream.http2`) and TLS (an `https://` upstream, hyper-rustls, ALPN `h2` and
//! `http/1.1`). Both reach the configured upstream whatever authority a request carries
//! ([`ToUpstream`]): a forwarded request keeps its `Host`, and over HTTP/2 its `:authority` must
//! be that same name (RFC 9113 §8.3.1), not the upstream's address.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::Uri;
use axum::http::uri::Authority;
use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::{FixedServerNameResolver, HttpsConnector};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls_pki_types::ServerName;

use crate::ops::config::Config;

/// A connector that dials the upstream for every request, whatever its URI names. The client
/// pools connections by the request's scheme and authority, so requests for different `Host`s
/// do not share a connection (as HTTP/2 requires of a connection whose certificate names one
/// server only).
#[derive(Clone)]
pub(super) struct ToUpstream<C> {
    inner: C,
    upstream: Uri,
}

impl<C: tower::Service<Uri>> tower::Service<Uri> for ToUpstream<C> {
    type Response = C::Response;
    type Error = C::Error;
    type Future = C::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), C::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, _: Uri) -> C::Future {
        self.inner.call(self.upstream.clone())
    }
}

/// The h2c client.
pub(super) type H2cClient = Client<ToUpstream<HttpConnector>, Full<Bytes>>;
/// The TLS client.
pub(super) type HttpsClient = Client<ToUpstream<HttpsConnector<HttpConnector>>, Full<Bytes>>;

/// What a connection of its own to an `https://` upstream (a WebSocket tunnel) needs: the
/// client configuration with ALPN `http/1.1` only, and the server name.
pub(super) struct Secured {
    /// The configuration.
    pub(super) config: Arc<rustls::ClientConfig>,
    /// The name sent and verified.
    pub(super) name: ServerName<'static>,
}

/// The TCP connector with `config`'s connect timeout.
fn tcp(config: &Config) -> HttpConnector {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(Some(config.connect_timeout));
    http.set_nodelay(true);
    http
}

/// The upstream's URI with `scheme`.
fn upstream(scheme: &str, authority: &Authority) -> Uri {
    Uri::try_from(format!("{scheme}://{authority}/")).unwrap_or_default()
}

/// The h2c client of the upstream at `authority`.
pub(super) fn h2c(config: &Config, authority: &Authority) -> H2cClient {
    let mut client = Client::builder(TokioExecutor::new());
    client.http2_only(true);
    client.pool_idle_timeout(config.upstream_idle_timeout);
    client.build(ToUpstream {
        inner: tcp(config),
        upstream: upstream("http", authority),
    })
}

/// The TLS client of the upstream at `authority` (its host the server name, unless
/// `upstream.tls_server_name` sets one), and what a WebSocket tunnel's own connection needs;
/// or why the TLS settings do not load.
pub(super) fn https(
    config: &Config,
    authority: &Authority,
) -> Result<(HttpsClient, Secured), String> {
    let tls = crate::tls::client::config(&config.upstream_tls)?;
    let name = (config.upstream_tls.server_name.as_deref()).unwrap_or(authority.host());
    let name = name.trim_start_matches('[').trim_end_matches(']');
    let name = ServerName::try_from(name.to_string())
        .map_err(|e| format!("{name:?} is not a server name: {e}"))?;
    let mut tunnels = tls.clone();
    tunnels.alpn_protocols = vec![b"http/1.1".to_vec()];
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_only()
        .with_server_name_resolver(FixedServerNameResolver::new(name.clone()))
        .enable_all_versions()
        .wrap_connector(tcp(config));
    let mut client = Client::builder(TokioExecutor::new());
    client.pool_idle_timeout(config.upstream_idle_timeout);
    client.pool_max_idle_per_host(config.upstream_max_idle);
    let client = client.build(ToUpstream {
        inner: connector,
        upstream: upstream("https", authority),
    });
    let secured = Secured {
        config: Arc::new(tunnels),
        name,
    };
    Ok((client, secured))
}
