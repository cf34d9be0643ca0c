//! Headless Chromium over HTTPS: the proxy listener speaks TLS with a certificate a test CA
//! issued (Chromium trusts it by its public key, `--ignore-certificate-errors-spki-list`), the
//! page comes over HTTP/2 (ALPN), and the texts it posts in many scripts, one of them
//! decomposed, reach the upstream in NFC with `X-Forwarded-Proto: https`.

use std::process::Command;

use serde_json::json;
use utf8gate_e2e::{
    Gateway, Pki, ScratchDir, Upstream, chromium_tool, headless_chromium, page_results,
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
