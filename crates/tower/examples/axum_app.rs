//! An axum app behind utf8gate's layer: `cargo run --release -p utf8gate-tower --example
//! axum_app`, then
//!
//! ```text
//! curl -s 'http://127.0.0.1:3000/search?q=cafe%CC%81'          # NFD: the handler sees NFC
//! curl -s 'http://127.0.0.1:3000/files/%c0%ae%c0%ae/etc/passwd' # overlong: 400 problem+json
//! curl -s -H 'content-type: application/json' -d '{"name":"Cafe\u0301"}' \
//!      http://127.0.0.1:3000/notes                               # the body in NFC
//! ```

use axum::extract::{Extension, RawQuery};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use utf8gate_policy::{Profile, Verdict};
use utf8gate_tower::Utf8GateLayer;

/// The query as the handler received it, and the decision utf8gate made.
async fn search(RawQuery(query): RawQuery, Extension(verdict): Extension<Verdict>) -> Json<Value> {
    Json(json!({ "query": query, "decision": verdict.decision.as_str() }))
}

/// The JSON body as the handler received it.
async fn notes(Extension(verdict): Extension<Verdict>, Json(note): Json<Value>) -> Json<Value> {
    Json(json!({ "note": note, "decision": verdict.decision.as_str() }))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let app = Router::new()
        .route("/search", get(search))
        .route("/notes", post(notes))
        .layer(Utf8GateLayer::new(Profile::strict()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    println!("listening on http://127.0.0.1:3000");
    axum::serve(listener, app).await
}
