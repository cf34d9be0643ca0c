//! The app `bench/tower-callgrind.sh` measures: axum answering `ok` to every request after
//! reading its body, with utf8gate's layer in front, or without it (`--bare`), so that the
//! layer's own instructions per request are the difference.
//!
//! usage: `bench_app ADDR [--bare]`; stops on SIGINT.

use axum::Router;
use bytes::Bytes;
use utf8gate_policy::Profile;
use utf8gate_tower::Utf8GateLayer;

async fn ok(body: Bytes) -> &'static str {
    std::hint::black_box(body);
    "ok"
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:3000".to_string());
    let bare = args.next().as_deref() == Some("--bare");
    // The layer's limit (8 MiB) is the one that applies, not axum's default 2 MB extractor limit.
    let mut app = Router::new()
        .fallback(ok)
        .layer(axum::extract::DefaultBodyLimit::disable());
    if !bare {
        app = app.layer(Utf8GateLayer::new(Profile::strict()));
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let stop = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    axum::serve(listener, app)
        .with_graceful_shutdown(stop)
        .await
}
