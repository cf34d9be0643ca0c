//! Headless Chromium over HTTPS: the proxy listener speaks TLS with a certificate a test CA
//! issued (Chromium trusts it by its public key, `--ignore-certificate-errors-spki-list`), the
//! page comes over HTTP/2 (ALPN), and the texts it posts in many scripts, one of them
//! decomposed, reach the upstream in NFC with `X-Forwarded-Proto: https`. A WebSocket runs
//! over `wss:` to the TLS listener, and through a cleartext front whose upstream is that TLS
//! listener (the front's tunnel dials TLS itself).

use std::process::Command;

use serde_json::json;
use utf8gate_e2e::{
    Gateway, OP_TEXT, Pki, ScratchDir, Upstream, WsAnswer, WsUpstream, chromium_tool,
    headless_chromium, page_results,
};

/// The texts the page posts as JSON; the last is decomposed (NFD `é`).
const TEXTS: [&str; 5] = [
    "Crème brûlée à Ærøskøbing",
    "Привет, мир! Щука и ёж",
    "東京都渋谷区 履歴書 한국어",
    "مرحبا بالعالم",
    "cafe\u{301}",
];

/// The page: posts the texts, then writes the answer's status and the protocol of its own
/// load into `#results`.
const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>HTTPS through utf8gate</title></head>
<body><pre id="results">pending</pre>
<script>
const texts = /*TEXTS*/;
fetch("/submit", { method: "POST", headers: { "Content-Type": "application/json" },
                   body: JSON.stringify({ texts }) })
  .then((r) => {
    const nav = performance.getEntriesByType("navigation")[0];
    document.getElementById("results").textContent = JSON.stringify({
      status: r.status, protocol: nav.nextHopProtocol, secure: window.isSecureContext });
  })
  .catch((e) => { document.getElementById("results").textContent = JSON.stringify({ error: String(e) }); });
</script></body></html>
"#;

/// `base64(sha256(SubjectPublicKeyInfo))` of the certificate at `cert`, as Chromium's
/// `--ignore-certificate-errors-spki-list` takes it.
fn spki_hash(cert: &std::path::Path) -> String {
    let script = format!(
        "openssl x509 -in '{}' -pubkey -noout | openssl pkey -pubin -outform der | \
         openssl dgst -sha256 -binary | base64",
        cert.display()
    );
    let out = Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("openssl");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_loads_a_page_over_https_and_h2_and_its_posted_texts_arrive_in_nfc() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let pki = Pki::new("chromium");
    let leaf = pki.issue("server", &["localhost"], &[], 30, false);
    let page = PAGE.replace("/*TEXTS*/", &json!(TEXTS).to_string());
    let upstream = Upstream::start_with_page("/page", page).await;
    let toml = format!(
        "[tls]\nlisteners = [\"proxy\"]\ncert = {:?}\nkey = {:?}\n",
        leaf.cert.display().to_string(),
        leaf.key.display().to_string()
    );
    let gw = Box::pin(Gateway::start(&toml, Some(&upstream.url()))).await;

    let dir = ScratchDir::new("chromium-https");
    let trust = format!(
        "--ignore-certificate-errors-spki-list={}",
        spki_hash(&leaf.cert)
    );
    let args = ["--dump-dom", "--virtual-time-budget=30000", trust.as_str()];
    let url = format!("https://localhost:{}/page", gw.proxy.port());
    let dom = headless_chromium(&bin, &dir, "https", &url, &args).await;

    let results = page_results(&dom).unwrap_or_else(|| panic!("no results in the DOM:\n{dom}"));
    assert_eq!(results["status"], 200, "{results}");
    assert_eq!(results["protocol"], "h2", "{results}");
    assert_eq!(results["secure"], true, "{results}");
    let posted = (upstream.records().into_iter())
        .find(|r| r.target == "/submit")
        .unwrap_or_else(|| panic!("no POST reached the upstream: {:?}", upstream.records()));
    let body: serde_json::Value = serde_json::from_slice(&posted.body).expect("JSON");
    let mut want: Vec<String> = TEXTS.iter().map(|t| t.to_string()).collect();
    want[4] = "caf\u{e9}".to_string();
    assert_eq!(
        body["texts"],
        json!(want),
        "NFD normalized, the rest unchanged"
    );
    assert_eq!(posted.header("x-forwarded-proto"), Some(&b"https"[..]));
    assert_eq!(posted.header("utf8gate-decision"), Some(&b"sanitize"[..]));
}

/// The WebSocket page: opens `wss:` or `ws:` as the page was loaded, sends the texts, writes
/// the echoes into `#results`. The upstream answers `/wait` once the socket is closed, which
/// holds the load event (and the dump) until then.
const WS_PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>WebSocket over TLS</title></head>
<body><pre id="results">pending</pre>
<script>
const texts = /*TEXTS*/;
const got = [];
const scheme = location.protocol === "https:" ? "wss://" : "ws://";
const ws = new WebSocket(scheme + location.host + "/chat");
ws.onopen = () => texts.forEach((t) => ws.send(t));
ws.onmessage = (e) => {
  got.push(e.data);
  if (got.length === texts.length) {
    document.getElementById("results").textContent = JSON.stringify({ got });
    ws.close(1000, "done");
  }
};
ws.onerror = () => { document.getElementById("results").textContent = JSON.stringify({ error: true, got }); };
</script>
<iframe src="/wait"></iframe>
</body></html>
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_websockets_run_over_wss_and_through_a_front_to_an_https_upstream() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let texts = &TEXTS[..4];
    let pki = Pki::new("chromium-wss");
    let leaf = pki.issue("server", &["localhost"], &[], 30, false);
    let page = WS_PAGE.replace("/*TEXTS*/", &json!(texts).to_string());
    let upstream = WsUpstream::start_with_page(WsAnswer::Echo, page).await;
    let toml = format!(
        "[tls]\nlisteners = [\"proxy\"]\ncert = {:?}\nkey = {:?}\n",
        leaf.cert.display().to_string(),
        leaf.key.display().to_string()
    );
    let backend = Box::pin(Gateway::start(&toml, Some(&upstream.url()))).await;
    // A cleartext front whose upstream is the TLS backend: its tunnels dial TLS themselves.
    let front_toml = format!(
        "[upstream]\ntls_ca = {:?}\ntls_server_name = \"localhost\"\n",
        pki.ca.display().to_string()
    );
    let backend_url = format!("https://127.0.0.1:{}", backend.proxy.port());
    let front = Box::pin(Gateway::start(&front_toml, Some(&backend_url))).await;

    let dir = ScratchDir::new("chromium-wss");
    let trust = format!(
        "--ignore-certificate-errors-spki-list={}",
        spki_hash(&leaf.cert)
    );
    let args = ["--dump-dom", "--virtual-time-budget=30000", trust.as_str()];
    let pages = [
        (
            "wss",
            format!("https://localhost:{}/page", backend.proxy.port()),
        ),
        ("front", format!("http://{}/page", front.proxy)),
    ];
    for (name, url) in pages {
        let dom = headless_chromium(&bin, &dir, name, &url, &args).await;
        let results = page_results(&dom).unwrap_or_else(|| panic!("{name}: no results:\n{dom}"));
        assert_eq!(results["got"], json!(texts), "{name}: {results}");
    }
    let echoed: Vec<String> = (upstream.frames().into_iter())
        .filter(|f| f.opcode == OP_TEXT)
        .map(|f| String::from_utf8(f.payload).expect("UTF-8"))
        .collect();
    for text in texts {
        let times = echoed.iter().filter(|t| t == text).count();
        assert!(
            times >= 2,
            "{text} reached the upstream {times} times, not once per page"
        );
    }
}
