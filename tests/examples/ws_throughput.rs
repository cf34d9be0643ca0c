//! Round trips per second of text messages through a WebSocket tunnel of utf8gate, beside the
//! same exchange straight with the echoing upstream (the baseline, in the same run): one
//! client sends a message and waits for its echo, 1 KiB and 64 KiB messages of mixed scripts.
//! Every message is validated and evaluated by the `strict` profile on its way in, and the
//! echo validated on its way back (`server_text = "log"`).
//!
//! ```sh
//! cargo test --release -p utf8gate-e2e --no-run   # builds the binary under test beside it
//! cargo run --release -p utf8gate-e2e --example ws_throughput
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use utf8gate_e2e::{Gateway, OP_TEXT, WsAnswer, WsClient, WsUpstream};

/// A valid NFC text of `size` bytes (cut at a character boundary), several scripts.
fn text(size: usize) -> String {
    let piece = "Grüße aus Köln, 日本語のテキスト, Ελληνικά, русский текст, עברית, हिन्दी ";
    let mut out = String::with_capacity(size + piece.len());
    while out.len() < size {
        out.push_str(piece);
    }
    let mut end = size;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// Round trips per second of `count` messages of `message` to `addr`.
async fn round_trips(addr: SocketAddr, message: &[u8], count: usize) -> f64 {
    let (mut client, head) = WsClient::open(addr, &WsClient::handshake(addr, ""))
        .await
        .expect("handshake");
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    let started = Instant::now();
    for _ in 0..count {
        client.send(true, OP_TEXT, message).await.expect("send");
        let echo = client.recv(Duration::from_secs(10)).await.expect("echo");
        assert_eq!(echo.payload.len(), message.len());
    }
    count as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let upstream = WsUpstream::start(WsAnswer::Echo).await;
    let toml = "[websocket]\nmax_frame_bytes = \"1MiB\"\n";
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    println!(
        "| message | direct (round trips/s) | through utf8gate | utf8gate / direct | MB/s through utf8gate (both ways) |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (size, count) in [(1024, 5000), (64 * 1024, 1000)] {
        let message = text(size);
        // Warm-up, then alternate: direct, utf8gate, direct, utf8gate.
        round_trips(gw.proxy, message.as_bytes(), count / 10).await;
        let mut direct = Vec::new();
        let mut through = Vec::new();
        for _ in 0..2 {
            direct.push(round_trips(upstream.addr, message.as_bytes(), count).await);
            through.push(round_trips(gw.proxy, message.as_bytes(), count).await);
        }
        let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let (d, t) = (best(&direct), best(&through));
        let mb = t * 2.0 * message.len() as f64 / 1e6;
        println!(
            "| {} KiB | {d:.0} | {t:.0} | {:.2} | {mb:.1} |",
            size / 1024,
            t / d
        );
    }
}
