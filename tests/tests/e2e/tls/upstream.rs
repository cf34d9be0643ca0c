//! An `https://` upstream: utf8gate in front of another utf8gate whose proxy listener speaks
//! TLS and requires a client certificate; h2 chosen by ALPN, the server name set, the proxy's
//! certificate presented; a wrong CA answered 502; TLS files that do not load stop start-up.

use std::process::Stdio;

use std::time::Duration;

use utf8gate_e2e::{Gateway, Pki, Upstream, binary, exchange, get, poll_until, request};

use super::{server_pki, tls_toml, tls_toml_files};

const IDENTITY: &str = "spiffe://utf8gate.test/ns/edge/sa/gateway";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_upstream_is_reached_over_h2_with_the_proxys_client_certificate() {
    let (pki, leaf) = server_pki("upstream");
    let gateway_cert = pki.issue("gateway", &[], &[IDENTITY], 30, true);
    let app = Upstream::start().await;
    let mtls = format!("client_ca = {:?}\n", pki.ca.display().to_string());
    let backend = Gateway::start(&tls_toml(&leaf, &mtls), Some(&app.url())).await;

    // The front reaches it by address, with the certificate's name set as the server name.
    let front_toml = format!(
        "[upstream]\ntls_ca = {:?}\ntls_cert = {:?}\ntls_key = {:?}\ntls_server_name = \"localhost\"\n",
        pki.ca.display().to_string(),
        gateway_cert.cert.display().to_string(),
        gateway_cert.key.display().to_string(),
    );
    let url = format!("https://127.0.0.1:{}", backend.proxy.port());
    let front = Gateway::start(&front_toml, Some(&url)).await;
    let sent = request(
        "GET",
        "/q?name=cafe%CC%81",
        &[("X-Request-Id", b"up-1")],
        b"",
    );
    let response = exchange(front.proxy, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let records = app.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].target, "/q?name=caf%C3%A9");
    // The backend saw HTTP/2 (ALPN) from the front's certificate.
    let m = backend.metrics().await;
    assert_eq!(
        m.value("utf8gate_protocol_requests_total{protocol=\"http2\"}"),
        1.0,
        "{}",
        m.text
    );
    assert_eq!(backend.audit_line("up-1").await["client"], IDENTITY);
    // A body too, several requests on the one h2 connection.
    for n in 0..3 {
        let body = format!("{{\"n\":{n}}}");
        let post = request(
            "POST",
            "/p",
            &[("Content-Type", b"application/json")],
            body.as_bytes(),
        );
        assert_eq!(exchange(front.proxy, &post).await.status, 200);
    }
    assert_eq!(
        app.records().last().map(|r| r.body.clone()),
        Some(b"{\"n\":2}".to_vec())
    );

    // A front that trusts another CA: the upstream is not trusted, 502, the reason logged.
    let other = Pki::new("other-roots");
    let wrong = format!(
        "[upstream]\ntls_ca = {:?}\n",
        other.ca.display().to_string()
    );
    let misled = Gateway::start(&wrong, Some(&url)).await;
    let response = exchange(misled.proxy, &get("/")).await;
    assert_eq!(response.status, 502, "{}", response.text());
    // The log is written by a thread of its own: waited for.
    let logged = || String::from_utf8_lossy(&misled.logs().concat()).into_owned();
    let said = poll_until(Duration::from_secs(5), || logged().contains("certificate")).await;
    assert!(said, "{}", logged());
    assert_eq!(app.records().len(), 4);
}

/// `utf8gate serve` with `toml` as its file: its exit status and stderr, or `None` if it was
/// still running after 20 s (then killed).
async fn start_fails(toml: &str, upstream: Option<&str>) -> (Option<i32>, String) {
    let dir = utf8gate_e2e::ScratchDir::new("tls-start");
    let file = dir.write("gate.toml", toml.as_bytes());
    let mut command = tokio::process::Command::new(binary());
    command.arg("serve").arg("--config").arg(&file);
    for flag in ["--proxy-addr", "--api-addr", "--admin-addr"] {
        command.args([flag, "127.0.0.1:0"]);
    }
    if let Some(url) = upstream {
        command.args(["--upstream", url]);
    }
    // UTF8GATE_* variables are configuration overrides: none leak in from the test run.
    let ours = |name: &std::ffi::OsStr| name.to_string_lossy().starts_with("UTF8GATE_");
    for (name, _) in std::env::vars_os().filter(|(n, _)| ours(n)) {
        command.env_remove(name);
    }
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let out = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("exits")
        .expect("output");
    // `check-config` says the same of the file (an upstream flag aside, which it has none of).
    if upstream.is_none() {
        let checked = std::process::Command::new(binary())
            .env_clear()
            .envs(std::env::vars_os().filter(|(n, _)| !ours(n)))
            .arg("check-config")
            .arg(&file)
            .output()
            .expect("check-config");
        let said = String::from_utf8_lossy(&checked.stderr);
        assert_eq!(checked.status.code(), Some(64), "{said}");
        assert!(said.contains(": TLS: "), "{said}");
    }
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn tls_files_that_do_not_load_stop_start_up_naming_the_file() {
    let (pki, leaf) = server_pki("broken");
    let stranger = pki.issue("stranger", &["localhost"], &[], 30, false);
    // A key that is not the certificate's.
    let mismatched = tls_toml_files(&leaf.cert, &stranger.key, "");
    let (code, err) = start_fails(&mismatched, None).await;
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("the key is not the certificate's"), "{err}");
    // A certificate file that is not PEM.
    let garbage = pki.dir().join("garbage.pem");
    std::fs::write(&garbage, b"not a certificate").unwrap();
    let bad = tls_toml_files(&garbage, &leaf.key, "");
    let (code, err) = start_fails(&bad, None).await;
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains(&garbage.display().to_string()), "{err}");
    // An https upstream whose CA file is missing.
    let (code, err) = start_fails(
        "[upstream]\ntls_ca = \"/nonexistent/ca.pem\"\n",
        Some("https://127.0.0.1:9"),
    )
    .await;
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("/nonexistent/ca.pem"), "{err}");
}
