//! Uploads as pipelines send them: the same bytes and media type get the same decision from
//! `POST /v1/scan`, `utf8gate scan --content-type` and a multipart file part through the
//! proxy; binary is not text (a PNG, a PDF are allowed with `not_text`), archives are read for
//! their entry names (a clean ZIP is allowed, a zip-slip ZIP refused).

use std::process::Command;

use utf8gate_e2e::{Gateway, Upstream, binary, exchange, request};

// =============================================================================================
// Uploads: one decision through every way in
// =============================================================================================

/// A PNG's first bytes: its signature (CR, LF, SUB, a NUL) and a header chunk.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\xC0\xAE";
/// A PDF's first bytes: the header, its binary comment line, an object with binary content.
const PDF: &[u8] = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<< /Length 4 >>\nstream\n\xFF\x00\xC0\xAE\nendstream\nendobj\n";

/// The upload cases: media type, bytes, and the decision every way in gives.
pub(crate) fn cases() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    vec![
        ("image/png", PNG.to_vec(), "allow"),
        ("application/pdf", PDF.to_vec(), "allow"),
        // No signature: a label never hides text, nor does a NUL.
        (
            "application/octet-stream",
            b"\xFF\xD8\x00\xC0\xAE".to_vec(),
            "reject",
        ),
        ("text/plain", b"a\xC0\xAEb".to_vec(), "reject"),
        ("text/plain", "Grüße\n".as_bytes().to_vec(), "allow"),
        (
            "application/json",
            b"{\"a\":\"\\u0000\"}".to_vec(),
            "reject",
        ),
        ("image/svg+xml", b"<svg>\xC0\xAE</svg>".to_vec(), "reject"),
    ]
}

/// The decision `utf8gate scan --content-type TYPE` gives `body`, and its JSON line.
pub(crate) fn cli_decision(
    test: &str,
    content_type: &str,
    body: &[u8],
) -> (String, serde_json::Value) {
    let dir = std::env::temp_dir().join(format!("utf8gate-e2e-up-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("input"), body).expect("write");
    let out = Command::new(binary())
        .args([
            "scan",
            "--format",
            "json",
            "--content-type",
            content_type,
            "input",
        ])
        .current_dir(&dir)
        .output()
        .expect("the binary runs");
    let line: serde_json::Value =
        serde_json::from_slice(out.stdout.trim_ascii()).expect("one JSON line");
    let decision = line["decision"].as_str().unwrap_or_default().to_string();
    let status = match decision.as_str() {
        "allow" => 0,
        "sanitize" => 1,
        _ => 2,
    };
    assert_eq!(out.status.code(), Some(status), "{content_type}");
    (decision, line)
}

/// A multipart body with one file part of `content_type` holding `body`.
fn multipart(content_type: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload\"\r\n\
         Content-Type: {content_type}\r\n\r\n"
    );
    [head.as_bytes(), body, b"\r\n--b--\r\n"].concat()
}

/// Asserts that `/v1/scan`, the CLI and a proxied multipart file part decide each case alike.
pub(crate) async fn assert_one_decision(cases: &[(&str, Vec<u8>, &str)]) {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    for (i, (content_type, body, expected)) in cases.iter().enumerate() {
        let what = format!("{content_type} {body:02X?}");
        let sent = request(
            "POST",
            "/v1/scan",
            &[("Content-Type", content_type.as_bytes())],
            body,
        );
        let scanned = exchange(gw.api, &sent).await;
        assert_eq!(scanned.status, 200, "{what}");
        let verdict = scanned.json();
        assert_eq!(verdict["decision"], *expected, "/v1/scan {what}: {verdict}");
        let binary = std::str::from_utf8(body).is_err() && *expected == "allow";
        let (cli, line) = cli_decision(&format!("{i}"), content_type, body);
        assert_eq!(cli, *expected, "CLI {what}: {line}");
        let sent = request(
            "POST",
            "/upload",
            &[("Content-Type", b"multipart/form-data; boundary=b")],
            &multipart(content_type, body),
        );
        let proxied = exchange(gw.proxy, &sent).await;
        let decision = if proxied.status == 200 {
            "allow"
        } else {
            "reject"
        };
        assert_eq!(decision, *expected, "proxy {what}: {}", proxied.text());
        // Archives (read for their names, whatever their label) are text's kin, not binary.
        let zip_end = body.windows(4).any(|w| w == b"PK\x05\x06");
        let archive = zip_end || content_type.contains("tar");
        if binary && !archive {
            assert!(verdict["not_text"].is_string(), "{what}: {verdict}");
        }
        assert_eq!(verdict["not_text"], line["not_text"], "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_is_not_text_through_every_way_in() {
    assert_one_decision(&cases()).await;
}

/// A label is only a claim: text labelled as an image, a PDF or an octet stream is read; a ZIP
/// labelled as an image, or behind one (a GIF that is also a JAR), is read for its names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lying_labels_are_read_as_what_the_bytes_are() {
    let php = b"<?php include '/\xC0\xAE\xC0\xAE/etc/passwd'; ?>".to_vec();
    let slip = zip(&[(b"../\xC0\xAE./shell.jsp", b"", b"x")]);
    let clean = zip(&[(b"META-INF/MANIFEST.MF", b"", b"Manifest-Version: 1.0\r\n")]);
    let gif =
        b"GIF89a\x01\0\x01\0\x80\0\0\xFF\xFF\xFF\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;";
    let cases = [
        ("image/png", php.clone(), "reject"),
        ("application/pdf", php.clone(), "reject"),
        ("application/octet-stream", php, "reject"),
        ("image/jpeg", slip.clone(), "reject"),
        ("image/jpeg", clean.clone(), "allow"),
        ("image/gif", [&gif[..], &slip].concat(), "reject"),
        ("image/gif", [&gif[..], &clean].concat(), "allow"),
        ("image/png", "Grüße aus 東京\n".as_bytes().to_vec(), "allow"),
    ];
    assert_one_decision(&cases).await;
}

// =============================================================================================
// Archives: read for their names
// =============================================================================================

fn crc(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// A stored ZIP of `(name, extra field, content)` entries, names flagged UTF-8.
fn zip(entries: &[(&[u8], &[u8], &[u8])]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, extra, content) in entries {
        let offset = out.len() as u32;
        let mut common = vec![20, 0, 0, 8, 0, 0, 0, 0, 0, 0];
        common.extend_from_slice(&crc(content).to_le_bytes());
        common.extend_from_slice(&(content.len() as u32).to_le_bytes());
        common.extend_from_slice(&(content.len() as u32).to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name);
        out.extend_from_slice(extra);
        out.extend_from_slice(content);
        central.extend_from_slice(b"PK\x01\x02\x14\x03");
        central.extend_from_slice(&common);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
        central.extend_from_slice(extra);
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    let n = entries.len() as u8;
    out.extend_from_slice(&[b'P', b'K', 5, 6, 0, 0, 0, 0, n, 0, n, 0]);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// An Info-ZIP Unicode Path extra field (0x7075) naming `path` for the header name `name`.
fn unicode_path(name: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = vec![0x75, 0x70, (path.len() + 5) as u8, 0, 1];
    out.extend_from_slice(&crc(name).to_le_bytes());
    out.extend_from_slice(path);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_zip_is_allowed_and_a_zip_slip_refused_through_every_way_in() {
    let text: &[u8] = b"hello\n";
    let clean = zip(&[
        (b"docs/", b"", b""),
        ("docs/café.txt".as_bytes(), b"", text),
        ("日本語/ファイル.txt".as_bytes(), b"", PNG),
    ]);
    let slip = zip(&[(b"ok.txt", b"", text), (b"../../etc/cron.d/x", b"", text)]);
    let overlong = zip(&[(b"a/\xC0\xAE\xC0\xAE/b", b"", text)]);
    let disagrees = zip(&[(b"a.txt", &unicode_path(b"a.txt", b"../a.txt"), text)]);
    let cases = [
        ("application/zip", clean, "allow"),
        ("application/zip", slip, "reject"),
        ("application/zip", overlong, "reject"),
        ("application/zip", disagrees, "reject"),
        ("application/zip", PDF.to_vec(), "reject"),
        // An archive sent as an octet stream (curl -F's type for a .zip) is read as one.
        (
            "application/octet-stream",
            zip(&[(b"../x", b"", text)]),
            "reject",
        ),
        (
            "application/octet-stream",
            zip(&[(b"a/x", b"", text)]),
            "allow",
        ),
    ];
    assert_one_decision(&cases).await;
}

/// `utf8gate scan upload.zip` names each finding's entry: `upload.zip!name: ...`, and an
/// archive's inside it `upload.zip!inner.zip!name: ...`.
#[test]
fn the_cli_lists_findings_per_archive_entry() {
    let dir = std::env::temp_dir().join(format!("utf8gate-e2e-up-{}-cli-zip", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let inner = zip(&[(b"dir/../../y.sh", b"", b"y")]);
    let slip = zip(&[
        (b"ok.txt", b"", b"x"),
        (b"dir/../../x.sh", b"", b"x"),
        (b"inner.zip", b"", &inner),
    ]);
    std::fs::write(dir.join("upload.zip"), slip).expect("write");
    std::fs::write(dir.join("photo.png"), PNG).expect("write");
    let out = Command::new(binary())
        .args(["scan", "--format", "human", "upload.zip", "photo.png"])
        .current_dir(&dir)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("upload.zip!dir/../../x.sh: +4: dot_segment: "),
        "{text}"
    );
    assert!(
        text.contains("upload.zip!inner.zip!dir/../../y.sh: +4: dot_segment: "),
        "{text}"
    );
    assert!(text.contains("upload.zip: reject"), "{text}");
    assert!(
        text.contains("photo.png: allow (not text: Portable Network Graphics (image/png)"),
        "{text}"
    );
}

/// A ZIP past 4 KiB: a stored entry of binary padding, then `name`.
fn large_zip(name: &[u8]) -> Vec<u8> {
    zip(&[(b"pad.bin", b"", &[0xA5; 12_000]), (name, b"", b"x")])
}

/// `utf8gate scan --format json FILE` in `dir` with `env`: its exit status and JSON line.
fn cli_json(dir: &std::path::Path, env: &[(&str, &str)], file: &str) -> (i32, serde_json::Value) {
    let out = Command::new(binary())
        .args(["scan", "--format", "json", file])
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    let line = serde_json::from_slice(out.stdout.trim_ascii()).unwrap_or_else(|_| {
        panic!("{file}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code().unwrap_or(-1), line)
}

/// Issue 27's gap: an archive past `max_body_bytes` was streamed as binary and allowed unread
/// by the CLI. It is read whole up to `max_archive_bytes` (by its name or its bytes), and
/// refused past it (`limit_exceeded`).
#[test]
fn the_cli_reads_an_archive_larger_than_max_body_or_refuses_it() {
    let dir = std::env::temp_dir().join(format!("utf8gate-e2e-up-{}-big", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("slip.zip"), large_zip(b"../../etc/cron.d/x")).expect("write");
    std::fs::write(dir.join("slip"), large_zip(b"../../etc/cron.d/x")).expect("write");
    std::fs::write(dir.join("clean.zip"), large_zip(b"docs/a.txt")).expect("write");
    let small = [("UTF8GATE_LIMITS_MAX_BODY_BYTES", "4096")];
    for (file, status, kind) in [("slip.zip", 2, "dot_segment"), ("slip", 2, "dot_segment")] {
        let (code, line) = cli_json(&dir, &small, file);
        assert_eq!(code, status, "{file}: {line}");
        assert_eq!(line["findings"][0]["kind"], kind, "{file}: {line}");
        assert_eq!(line["findings"][0]["location"]["part"], "archive_entry");
    }
    let (code, line) = cli_json(&dir, &small, "clean.zip");
    assert_eq!((code, &line["decision"]), (0, &"allow".into()), "{line}");
    assert_eq!(
        line["bytes_by_location"]["archive"], 17,
        "both names were read: {line}"
    );
    // Past max_archive_bytes: refused, clean or not, never allowed unread.
    let tiny = [small[0], ("UTF8GATE_LIMITS_MAX_ARCHIVE_BYTES", "8192")];
    for file in ["slip.zip", "slip", "clean.zip"] {
        let (code, line) = cli_json(&dir, &tiny, file);
        assert_eq!(code, 2, "{file}: {line}");
        assert_eq!(
            line["counts"],
            serde_json::json!({"limit_exceeded": 1}),
            "{line}"
        );
    }
}

/// A `/v1/scan` of an archive past `max_body_bytes`: 413 when typed as one (not streamed), and
/// refused (`limit_exceeded`) when it streams in untyped or as an octet stream; a proxied
/// multipart upload holding it is 413. Other binary still streams as not text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_archive_is_never_allowed_unread_by_the_server() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("[limits]\nmax_body_bytes = 4096\n", Some(&upstream.url())).await;
    let slip = large_zip(b"../../etc/cron.d/x");
    let clean = large_zip(b"docs/a.txt");
    let png = [PNG, &[0xA5; 12_000]].concat();
    for (content_type, body, status, expected) in [
        (Some("application/zip"), &slip, 413, None),
        (Some("application/octet-stream"), &slip, 200, Some("reject")),
        (
            Some("application/octet-stream"),
            &clean,
            200,
            Some("reject"),
        ),
        (None, &slip, 200, Some("reject")),
        (Some("application/octet-stream"), &png, 200, Some("allow")),
    ] {
        let headers: Vec<(&str, &[u8])> = content_type
            .map(|t| ("Content-Type", t.as_bytes()))
            .into_iter()
            .collect();
        let scanned = exchange(gw.api, &request("POST", "/v1/scan", &headers, body)).await;
        assert_eq!(
            scanned.status,
            status,
            "{content_type:?}: {}",
            scanned.text()
        );
        if let Some(expected) = expected {
            let verdict = scanned.json();
            assert_eq!(verdict["decision"], expected, "{content_type:?}: {verdict}");
            let refused = expected == "reject";
            assert_eq!(
                verdict["counts"]["limit_exceeded"] == 1,
                refused,
                "{verdict}"
            );
        }
    }
    let form = multipart("application/octet-stream", &slip);
    let sent = request(
        "POST",
        "/upload",
        &[("Content-Type", b"multipart/form-data; boundary=b")],
        &form,
    );
    assert_eq!(exchange(gw.proxy, &sent).await.status, 413);
}

// New upload tests go here.
