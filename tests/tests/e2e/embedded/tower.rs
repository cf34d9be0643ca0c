//! The tower layer in an axum app (the recording application, wrapped): every case of the
//! table comes to what it comes to through the proxy listener, and a handler behind the layer
//! reads the verdict from the request's extensions.

use axum::Router;
use axum::extract::Extension;
use axum::routing::get;
use utf8gate_e2e::{Upstream, exchange, get as get_request};
use utf8gate_policy::{Profile, Verdict};
use utf8gate_tower::Utf8GateLayer;

use super::{assert_same, cases, observe, through_the_proxy};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_layer_in_an_axum_app_decides_every_case_as_the_proxy_does() {
    let proxy = through_the_proxy().await;
    let app =
        Upstream::start_wrapped(|router| router.layer(Utf8GateLayer::new(Profile::strict()))).await;
    let addr = app
        .url()
        .trim_start_matches("http://")
        .parse()
        .expect("addr");
    let mut through = Vec::new();
    for case in cases() {
        through.push(observe(addr, &app, &case).await);
    }
    assert_same("the tower layer in axum", &proxy, &through);
}

async fn decision(Extension(verdict): Extension<Verdict>) -> String {
    format!("{} {:?}", verdict.decision.as_str(), verdict.kinds())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_reads_the_verdict() {
    let router = Router::new()
        .route("/v", get(decision))
        .layer(Utf8GateLayer::new(Profile::strict()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let nfd = Box::pin(exchange(addr, &get_request("/v?q=cafe%CC%81"))).await;
    assert_eq!(nfd.text(), "sanitize [\"not_nfc\"]");
    let clean = Box::pin(exchange(addr, &get_request("/v?q=caf%C3%A9"))).await;
    assert_eq!(clean.text(), "allow []");
    server.abort();
}
