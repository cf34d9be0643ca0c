//! Real clients against the TLS listeners: curl over HTTP/1.1 and h2, Python's `ssl`, `openssl
//! s_client`; server names; plain HTTP and silence on a TLS port; old protocol versions.

use std::process::Command;

use utf8gate_e2e::{Gateway, TlsConn, Upstream, curl_tool, exchange, front_tool, get};

use super::{failures, server_pki, tls_toml, wait_metrics};

/// The `openssl` command, or `None` (skip) unless `REQUIRE_OPENSSL` is set.
pub(super) fn openssl_tool() -> Option<std::path::PathBuf> {
    front_tool("openssl", "OPENSSL_BIN", &[], "REQUIRE_OPENSSL")
}

/// Runs `program` with `args` (for at most 20 s), returning (success, stdout, stderr).
pub(super) fn run(program: &str, args: &[&str]) -> (bool, String, String) {
    let out = Command::new("timeout")
        .arg("20")
        .arg(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_python_and_openssl_speak_tls_and_the_gate_still_decides() {
    let (Some(curl), Some(openssl)) = (curl_tool(), openssl_tool()) else {
        return;
    };
    let (curl, openssl) = (curl.display().to_string(), openssl.display().to_string());
    let (pki, leaf) = server_pki("clients");
    let other = pki.issue("other", &["other.test"], &[], 30, false);
    let wild = pki.issue("wild", &["*.wild.test"], &[], 30, false);
    let sni = format!(
        "sni = [{{ cert = {:?}, key = {:?} }}, {{ cert = {:?}, key = {:?} }}]\n",
        other.cert.display().to_string(),
        other.key.display().to_string(),
        wild.cert.display().to_string(),
        wild.key.display().to_string()
    );
    let upstream = Upstream::start().await;
    let gw = Gateway::start(&tls_toml(&leaf, &sni), Some(&upstream.url())).await;
    let port = gw.proxy.port();
    let ca = pki.ca.display().to_string();
    let resolve = format!("localhost:{port}:127.0.0.1");
    let url = format!("https://localhost:{port}/caf%C3%A9?q=cafe%CC%81");

    // curl, HTTP/1.1 and h2 (ALPN): answered, and the NFD query forwarded in NFC.
    for (flag, version) in [("--http1.1", "1.1"), ("--http2", "2")] {
        let args = [
            "-sS",
            flag,
            "--cacert",
            &ca,
            "--resolve",
            &resolve,
            "-o",
            "/dev/null",
        ];
        let (ok, out, err) = run(
            &curl,
            &[&args[..], &["-w", "%{http_code} %{http_version}", &url]].concat(),
        );
        assert!(ok, "curl {flag}: {err}");
        assert_eq!(out, format!("200 {version}"), "curl {flag}");
    }
    let records = upstream.records();
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(r.target, "/caf%C3%A9?q=caf%C3%A9", "sanitized over TLS too");
        assert_eq!(r.header("x-forwarded-proto"), Some(&b"https"[..]));
        let forwarded = String::from_utf8_lossy(r.header("forwarded").unwrap_or_default());
        assert!(forwarded.contains(";proto=https"), "{forwarded}");
    }
    // A rejection over TLS is the same problem document as over cleartext.
    let config = pki.client(&["http/1.1"], None);
    let mut conn = TlsConn::connect(gw.proxy, config.clone(), "localhost")
        .await
        .unwrap();
    let refused = conn.exchange(&get("/a/%C0%AE%C0%AE/b")).await.unwrap();
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(refused.is_problem());

    // Python's ssl (OpenSSL): TLS 1.3 with h2 chosen; TLS 1.2 at most with http/1.1 serves a GET.
    let script = r#"
import json, socket, ssl, sys
port, ca, top = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
ctx.minimum_version = ssl.TLSVersion.TLSv1_2
if top == "1.2":
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_alpn_protocols(["http/1.1"])
else:
    ctx.set_alpn_protocols(["h2", "http/1.1"])
with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
    with ctx.wrap_socket(raw, server_hostname="localhost") as s:
        out = {"version": s.version(), "alpn": s.selected_alpn_protocol(), "cipher": s.cipher()[0]}
        if top == "1.2":
            s.sendall(b"GET /py HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
            out["status"] = data.split(b" ", 2)[1].decode()
print(json.dumps(out))
"#;
    for (top, version, alpn) in [("1.3", "TLSv1.3", "h2"), ("1.2", "TLSv1.2", "http/1.1")] {
        let (ok, out, err) = run("python3", &["-c", script, &port.to_string(), &ca, top]);
        assert!(ok, "python {top}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["version"], version, "{v}");
        assert_eq!(v["alpn"], alpn, "{v}");
        if top == "1.2" {
            assert_eq!(v["status"], "200", "{v}");
            let cipher = v["cipher"].as_str().unwrap_or_default();
            assert!(
                cipher.contains("GCM") || cipher.contains("CHACHA20"),
                "AEAD only: {v}"
            );
        }
    }

    // openssl s_client: TLS 1.3, ALPN h2, the chain verified against the test CA.
    let connect = format!("127.0.0.1:{port}");
    let base = [
        "s_client",
        "-connect",
        &connect,
        "-servername",
        "localhost",
        "-CAfile",
        &ca,
    ];
    let (_, out, err) = run(
        "openssl",
        &[&base[..], &["-alpn", "h2", "-tls1_3"]].concat(),
    );
    assert!(out.contains("ALPN protocol: h2"), "{out}{err}");
    assert!(out.contains("TLSv1.3"), "{out}");
    assert!(out.contains("Verify return code: 0 (ok)"), "{out}");
    // TLS 1.1 and 1.0 are never served.
    let old = ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"];
    let (_, out, err) = run(&openssl, &[&base[..], &old[..]].concat());
    assert!(out.contains("Cipher is (NONE)"), "{out}{err}");

    // Server names: the sni certificates by their names (a wildcard for one label), the
    // default one otherwise (s_client shows what it was given, verified or not).
    for (name, want) in [
        ("localhost", "server"),
        ("other.test", "other"),
        ("OTHER.test", "other"),
        ("a.wild.test", "wild"),
        ("a.b.wild.test", "server"),
        ("wild.test", "server"),
        ("unknown.test", "server"),
    ] {
        let args = [
            "s_client",
            "-connect",
            &connect,
            "-servername",
            name,
            "-CAfile",
            &ca,
        ];
        let (_, out, _) = run(&openssl, &args);
        assert!(
            out.contains(&format!("subject=CN = {want}\n")),
            "{name}: {out}"
        );
    }
    let trusting = pki.client(&["http/1.1"], None);
    let conn = TlsConn::connect(gw.proxy, trusting, "other.test")
        .await
        .unwrap();
    assert_eq!(conn.presented, other.der);

    // Plain HTTP to the TLS port: a 400 that says so, counted.
    let plain = exchange(gw.proxy, &get("/")).await;
    assert_eq!(plain.status, 400);
    assert_eq!(plain.text(), "plain HTTP request was sent to HTTPS port\n");
    // A client that connects and says nothing is dropped after the head's time (2 s), counted.
    let silent = tokio::net::TcpStream::connect(gw.proxy).await.unwrap();
    let m = wait_metrics(&gw, |m| failures(m, "proxy", "timeout") >= 1.0).await;
    drop(silent);
    assert_eq!(failures(&m, "proxy", "plaintext"), 1.0, "{}", m.text);
    assert_eq!(failures(&m, "proxy", "timeout"), 1.0, "{}", m.text);
    // TLS 1.1 offers no AEAD suite: refused for its ciphers before its version.
    let old_client =
        failures(&m, "proxy", "protocol_version") + failures(&m, "proxy", "no_shared_cipher");
    assert_eq!(old_client, 1.0, "{}", m.text);
    // The expiry of each certificate served, as its notAfter.
    let expiry = |file: &std::path::Path, name: &str| {
        m.value(&format!(
            "utf8gate_tls_certificate_expiry_seconds{{file=\"{}\",name=\"{name}\"}}",
            file.display()
        ))
    };
    assert_eq!(
        expiry(&leaf.cert, "localhost"),
        leaf.not_after as f64,
        "{}",
        m.text
    );
    assert_eq!(expiry(&other.cert, "other.test"), other.not_after as f64);
    assert_eq!(expiry(&wild.cert, "*.wild.test"), wild.not_after as f64);
    // The API listener speaks TLS too.
    let trusting = pki.client(&["h2", "http/1.1"], None);
    let conn = TlsConn::connect(gw.api, trusting, "localhost")
        .await
        .unwrap();
    assert_eq!(conn.alpn.as_deref(), Some(&b"h2"[..]));
    assert_eq!(conn.version, "TLSv1_3");
}
