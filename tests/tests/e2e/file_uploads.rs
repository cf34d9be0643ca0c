//! Everyday files as people send them: made by the programs that make them (python-docx,
//! openpyxl, python-pptx, odfpy, EbookLib, Pillow, fpdf2, py7zr, zipfile, sqlite3, fonttools:
//! `tests/python/make_benign_files.py`), each with the media type Chromium sends for its
//! extension. Each is allowed as a form upload and as a PUT through the proxy (and reaches
//! the upstream byte for byte), by `/v1/scan`, by `/v1/sanitize` (given back byte for byte)
//! and by the CLI. Binary API bodies made by real encoders (`make_api_bodies.py`) pass byte
//! for byte over HTTP/1.1 and h2c.

use utf8gate_e2e::{
    Gateway, ScratchDir, Upstream, curl_h2, curl_tool, exchange, pinned_python, python_json,
    request,
};

/// A form upload of one file, as a browser sends it.
fn form_upload(filename: &str, content_type: &str, body: &[u8]) -> Vec<u8> {
    let head = format!(
        "------WebKitFormBoundaryu8g8\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\
         Résumé 2026\r\n------WebKitFormBoundaryu8g8\r\nContent-Disposition: form-data; \
         name=\"file\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n"
    );
    [
        head.as_bytes(),
        body,
        b"\r\n------WebKitFormBoundaryu8g8--\r\n",
    ]
    .concat()
}

/// Sends `sent` to the proxy; asserts it was allowed and reached the upstream as `expected`.
async fn assert_forwarded(
    gw: &Gateway,
    upstream: &Upstream,
    what: &str,
    sent: &[u8],
    expected: &[u8],
) {
    let before = upstream.count();
    let answer = exchange(gw.proxy, sent).await;
    assert_eq!(answer.status, 200, "{what}: {}", answer.text());
    let records = upstream.records();
    assert_eq!(records.len(), before + 1, "{what}");
    let got = &records[before].body;
    assert!(
        got == expected,
        "{what}: the upstream got {} bytes, not the {} sent",
        got.len(),
        expected.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everyday_files_pass_every_way_in_byte_for_byte() {
    let Some(python) = pinned_python() else {
        return;
    };
    let dir = ScratchDir::new("everyday-files");
    let path = dir.path().to_string_lossy().to_string();
    let manifest = python_json(&python, "make_benign_files.py", &[&path]);
    let files = manifest["files"].as_array().expect("a list of files");
    assert!(files.len() >= 30, "{manifest}");
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    for file in files {
        let name = file["name"].as_str().expect("a name");
        let ct = match file["type"].as_str().expect("a type") {
            "" => "application/octet-stream",
            t => t,
        };
        let bytes = std::fs::read(dir.path().join(name)).expect("the file");
        let what = format!("{name} ({ct}, {})", file["producer"]);
        let boundary = "multipart/form-data; boundary=----WebKitFormBoundaryu8g8";
        let form = form_upload(name, ct, &bytes);
        let sent = request(
            "POST",
            "/upload",
            &[("Content-Type", boundary.as_bytes())],
            &form,
        );
        assert_forwarded(&gw, &upstream, &format!("form {what}"), &sent, &form).await;
        let target = format!("/files/{}", name.replace(' ', "%20"));
        let sent = request("PUT", &target, &[("Content-Type", ct.as_bytes())], &bytes);
        assert_forwarded(&gw, &upstream, &format!("PUT {what}"), &sent, &bytes).await;
        let sent = request(
            "POST",
            "/v1/scan",
            &[("Content-Type", ct.as_bytes())],
            &bytes,
        );
        let scanned = exchange(gw.api, &sent).await;
        assert_eq!(scanned.status, 200, "{what}");
        assert_eq!(
            scanned.json()["decision"],
            "allow",
            "/v1/scan {what}: {}",
            scanned.text()
        );
        let sent = request(
            "POST",
            "/v1/sanitize",
            &[("Content-Type", ct.as_bytes())],
            &bytes,
        );
        let sanitized = exchange(gw.api, &sent).await;
        assert_eq!(
            sanitized.status,
            200,
            "/v1/sanitize {what}: {}",
            sanitized.text()
        );
        assert!(
            sanitized.body == bytes,
            "/v1/sanitize {what}: not given back byte for byte"
        );
        let (cli, line) = crate::uploads::cli_decision(name, ct, &bytes);
        assert_eq!(cli, "allow", "CLI {what}: {line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_api_bodies_pass_byte_for_byte_over_http1_and_h2c() {
    let Some(python) = pinned_python() else {
        return;
    };
    let bodies = python_json(&python, "make_api_bodies.py", &[]);
    let bodies = bodies["bodies"].as_array().expect("a list of bodies");
    assert!(bodies.len() >= 10, "{bodies:?}");
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;
    let curl = curl_tool();
    let dir = ScratchDir::new("api-bodies");
    for body in bodies {
        let (name, ct) = (
            body["name"].as_str().unwrap(),
            body["type"].as_str().unwrap(),
        );
        let hex = body["hex"].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
        let what = format!("{name} ({ct})");
        let sent = request(
            "POST",
            "/svc/Method",
            &[("Content-Type", ct.as_bytes())],
            &bytes,
        );
        assert_forwarded(&gw, &upstream, &format!("HTTP/1.1 {what}"), &sent, &bytes).await;
        let Some(curl) = curl.as_ref() else {
            continue;
        };
        let file = dir.write(name, &bytes);
        let data = format!("@{}", file.display());
        let header = format!("Content-Type: {ct}");
        let before = upstream.count();
        let args = ["-X", "POST", "-H", &header, "--data-binary", &data];
        let answer = curl_h2(curl, gw.proxy, "/svc/Method", &args).await;
        assert_eq!(
            answer.status,
            200,
            "h2c {what}: {}",
            String::from_utf8_lossy(&answer.body)
        );
        assert_eq!(answer.version, "2", "h2c {what}");
        let records = upstream.records();
        assert_eq!(records.len(), before + 1, "h2c {what}");
        assert!(
            records[before].body == bytes,
            "h2c {what}: not byte for byte"
        );
    }
}
