//! The `utf8gate` binary: the policy in front of applications.
//!
//! Three listeners share one [`AppState`]: the *proxy* (every request evaluated, then forwarded
//! or rejected), the *api* (scan, sanitize, Envoy and nginx/Traefik authorization checks) and
//! the *admin* (`/metrics`, `/healthz`, `/readyz`); a fourth, off by default, serves Envoy's
//! gRPC check ([`grpc`]). Each is one tower stack ([`stack`]) around
//! thin adaptors of one [`gate`]. The same binary scans files from the command line. `main.rs`
//! only parses arguments; everything else is here so that tests can build the stacks and
//! drive them without sockets.
// Unsafe code is denied; `budget::arenas` allows it for its one FFI call (glibc `mallopt`).
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod budget;
pub mod cli;
pub mod convert;
pub mod gate;
pub mod listen;
pub mod names;
pub mod ops;
pub mod problem;
pub mod proxy;
pub mod routes;
pub mod state;
pub mod tls;

use std::process::ExitCode;

use api::grpc;
use cli::demo;
use listen::{serve, stack};
use ops::{config, logging, reload};

pub use ops::config::Config;
pub use state::AppState;

pub use api::OPENAPI;

/// The stacks of the three listeners for a state: the proxy's (made per serving thread), and
/// the API's and the admin's as routers.
pub fn routers(state: &AppState) -> (serve::Serves, axum::Router, axum::Router) {
    (stack::proxy(state), stack::api(state), stack::admin(state))
}

/// `utf8gate serve` and `utf8gate demo`.
pub async fn serve_command(args: cli::ServeArgs, demo: bool) -> ExitCode {
    let overrides = config::Overrides {
        upstream: args.upstream.clone(),
        proxy_addr: args.listen.proxy_addr.clone(),
        api_addr: args.listen.api_addr.clone(),
        admin_addr: args.listen.admin_addr.clone(),
        profile: args.listen.profile.clone(),
    };
    let mut source = config::Source {
        file: args.listen.config.clone(),
        overrides: overrides.clone(),
        demo_upstream: None,
    };
    let mut config = match cli::load_config(args.listen.config.as_ref(), &overrides) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Held until the end of this function: dropping it writes out the queued log lines.
    let _log = logging::init(
        config.log_format,
        &config.log_level,
        config.log_buffer_lines,
    );
    let mut listeners = Vec::new();
    if demo {
        let echo = match serve::Listener::bind(
            "demo-upstream",
            "127.0.0.1:0".parse().expect("address"),
            stack::serving(demo::echo_router()),
        )
        .await
        {
            Ok(l) => l,
            Err(e) => return bind_failed("demo upstream", e),
        };
        let addr = echo.local_addr().map(|a| a.to_string()).unwrap_or_default();
        // Set again over every reloaded configuration.
        source.demo_upstream = Some(format!("http://{addr}"));
        source.pin(&mut config);
        listeners.push(echo);
    }
    // The policy's tables are built before the listeners open, not by the first request.
    utf8gate_policy::prepare();
    // The TLS files are read (and refused) before anything listens.
    let https = match tls::client::upstream_loads(&config) {
        Ok(https) => https,
        Err(why) => {
            let url = config.upstream.as_deref().unwrap_or_default();
            eprintln!("utf8gate: the https upstream {url}: {why}");
            return ExitCode::from(cli::EXIT_USAGE);
        }
    };
    let state = AppState::new(config).reloadable(source);
    let live_tls = match tls::LiveTls::start(&state.snapshot().config.tls, state.metrics.tls()) {
        Ok(live) => live,
        Err(why) => {
            eprintln!("utf8gate: TLS: {why}");
            return ExitCode::from(cli::EXIT_USAGE);
        }
    };
    if let Some(live) = &live_tls {
        tokio::spawn(tls::live::watch(live.clone()));
    }
    if live_tls.is_some() || https {
        tls::server::warm();
    }
    let state = state.with_tls(live_tls.clone());
    let tls_of = |name: &str| {
        let on = state.snapshot().config.tls.listeners.has(name);
        live_tls.clone().filter(|_| on)
    };
    // SIGHUP reloads the configuration, from before the listeners say they listen.
    #[cfg(unix)]
    if let Some(hangups) = serve::hangups() {
        tokio::spawn(reload::on_hangups(state.clone(), hangups));
    }
    let (proxy, api, admin) = routers(&state);
    // What the listeners bind comes from the start-up configuration (restart-only keys).
    let snapshot = state.snapshot();
    let c = &snapshot.config;
    if c.upstream.is_some() {
        match serve::Listener::bind("proxy", c.proxy_addr, proxy).await {
            Ok(l) => listeners.push(
                l.on_threads(c.proxy_threads)
                    .with_http2(true)
                    .with_tls(tls_of("proxy")),
            ),
            Err(e) => return bind_failed("proxy", e),
        }
    }
    // h2c on the proxy and API listeners (as listen.http2 allows); the admin one is HTTP/1.1.
    let listed = [
        ("api", c.api_addr, api, true),
        ("admin", c.admin_addr, admin, false),
    ];
    for (name, addr, router, http2) in listed {
        match serve::Listener::bind(name, addr, stack::serving(router)).await {
            Ok(l) => listeners.push(l.with_http2(http2).with_tls(tls_of(name))),
            Err(e) => return bind_failed(name, e),
        }
    }
    for l in &listeners {
        let scheme = if l.tls.is_some() { "https" } else { "http" };
        tracing::info!(listener = l.name, addr = %l.local_addr().map(|a| a.to_string()).unwrap_or_default(), scheme, profile = c.profile.as_str(), "listening");
    }
    // The gRPC check has a listener of its own (HTTP/2, tonic), stopped with the others.
    let (stop_grpc, stopped) = tokio::sync::watch::channel(false);
    let grpc = match c.grpc_authz_addr {
        None => None,
        Some(addr) => match tokio::net::TcpListener::bind(addr).await {
            Ok(socket) => {
                let addr = socket
                    .local_addr()
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                tracing::info!(listener = "grpc_authz", addr = %addr, profile = c.profile.as_str(), "listening");
                let serving = grpc::serve(state.clone(), socket, stopped, c.shutdown_grace);
                Some(tokio::spawn(serving))
            }
            Err(e) => return bind_failed("grpc_authz", e),
        },
    };
    if demo {
        eprintln!(
            "{}",
            demo::banner(
                &c.proxy_addr.to_string(),
                &c.api_addr.to_string(),
                &c.admin_addr.to_string()
            )
        );
    }
    serve::run(
        listeners,
        serve::Limits {
            max_header_bytes: c.max_header_bytes,
            header_timeout: c.header_read_timeout,
            http2: c.http2,
        },
        c.shutdown_grace,
        async move {
            serve::signal().await;
            let _ = stop_grpc.send(true);
        },
    )
    .await;
    if let Some(grpc) = grpc {
        let _ = grpc.await;
    }
    ExitCode::SUCCESS
}

fn bind_failed(name: &str, e: std::io::Error) -> ExitCode {
    eprintln!("utf8gate: cannot bind the {name} listener: {e}");
    ExitCode::from(cli::EXIT_UNAVAILABLE)
}
