//! Headless Chromium opens a WebSocket through utf8gate's proxy listener to the test upstream
//! and exchanges text messages in several scripts: a real browser's handshake (with its
//! `permessage-deflate` offer, which the proxy removes) and its masked frames, read and checked
//! by the tunnel. The page writes what it got back into the DOM, which `--dump-dom` prints;
//! a frame the upstream answers only once the socket is closed holds the page's load event
//! (and the dump) until then, since virtual time does not wait for WebSocket messages.

use serde_json::json;
use utf8gate_e2e::{
    Gateway, OP_TEXT, ScratchDir, WsAnswer, WsUpstream, chromium_tool, headless_chromium,
    page_results,
};

const TEXTS: [&str; 7] = [
    "Crème brûlée à Ærøskøbing, Łódź",
    "Привет, мир! Щука и ёж",
    "Καλημέρα κόσμε, ψυχή",
    "東京都渋谷区 履歴書 한국어 ひらがな",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "👍🏽 🎉 family 👨‍👩‍👧 flag 🇫🇷",
];

/// The page: opens `ws://<host>/chat`, sends every text, writes the echoes into `#results`.
const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>WebSocket through utf8gate</title></head>
<body><pre id="results">pending</pre>
<script>
const texts = /*TEXTS*/;
const got = [];
const out = document.getElementById("results");
const ws = new WebSocket("ws://" + location.host + "/chat");
ws.onopen = () => texts.forEach((t) => ws.send(t));
ws.onmessage = (e) => {
  got.push(e.data);
  if (got.length === texts.length) {
    out.textContent = JSON.stringify({ got, extensions: ws.extensions });
    ws.close(1000, "done");
  }
};
ws.onerror = () => { out.textContent = JSON.stringify({ error: true, got }); };
</script>
<!-- The upstream answers this frame once the socket is closed: the load event waits. -->
<iframe src="/wait"></iframe>
</body></html>
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_exchanges_websocket_messages_in_many_scripts_through_the_proxy() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let page = PAGE.replace("/*TEXTS*/", &json!(TEXTS).to_string());
    let upstream = WsUpstream::start_with_page(WsAnswer::Echo, page).await;
    let gw = Box::pin(Gateway::start("", Some(&upstream.url()))).await;

    let dir = ScratchDir::new("chromium-websocket");
    let args = ["--dump-dom", "--virtual-time-budget=30000"];
    let url = format!("http://{}/page", gw.proxy);
    let dom = headless_chromium(&bin, &dir, "websocket", &url, &args).await;

    let results = page_results(&dom).unwrap_or_else(|| panic!("no results in the DOM:\n{dom}"));
    assert_eq!(results["got"], json!(TEXTS), "{results}");
    assert_eq!(
        results["extensions"], "",
        "no extension negotiated: {results}"
    );
    let heads = upstream.heads();
    let handshake = (heads.iter())
        .find(|h| h.contains("upgrade: websocket"))
        .unwrap_or_else(|| panic!("no handshake upstream: {heads:?}"));
    assert!(
        !handshake.contains("sec-websocket-extensions"),
        "{handshake}"
    );
    let texts: Vec<String> = (upstream.frames().into_iter())
        .filter(|f| f.opcode == OP_TEXT)
        .map(|f| String::from_utf8(f.payload).expect("UTF-8"))
        .collect();
    // Headless Chromium may load the page more than once: each load sends the texts again.
    for text in TEXTS {
        assert!(
            texts.iter().any(|t| t == text),
            "{text} never reached the upstream"
        );
    }
    for text in &texts {
        assert!(
            TEXTS.contains(&text.as_str()),
            "not a whole message: {text:?}"
        );
    }
}
