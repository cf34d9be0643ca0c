//! YAML bodies (issue 25) over raw sockets: escapes that decode to NUL or a lone surrogate,
//! malformed UTF-8, and the shapes with a second reading (a `!!binary` tag, an alias) are
//! refused with nothing upstream; clean multilingual documents are forwarded byte for byte,
//! and a leading BOM is stripped as from any body.

use utf8gate_e2e::{exchange, request};

use super::{assert_forwarded, assert_refused, start};

const CLEAN: &str = "title: Καλημέρα κόσμε\nja: こんにちは世界\nzh: [中文, 漢字]\nar: مرحبا بالعالم\nemoji: \"🎉 ok\"\nnote: |\n  ελληνικά\n  日本語\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yaml_bodies_with_hidden_text_or_a_second_reading_are_refused() {
    let (upstream, gw) = start("").await;
    for (what, body, kind) in [
        ("\\0", &b"a: \"\\0\"\n"[..], "nul"),
        ("\\x00", b"user: {name: \"ad\\x00min\"}\n", "nul"),
        ("\\ud800", b"- \"\\ud800\"\n", "escaped_surrogate"),
        ("raw C0 AE", b"path: \"..\xC0\xAE/etc\"\n", "overlong"),
        ("!!binary", b"file: !!binary AAEC\n", "ambiguous_yaml"),
        ("alias", b"a: &x admin\nb: *x\n", "ambiguous_yaml"),
    ] {
        for ct in [
            &b"application/yaml"[..],
            b"application/x-yaml",
            b"text/yaml",
        ] {
            let sent = request("POST", "/y", &[("Content-Type", ct)], body);
            assert_refused(&gw, &upstream, what, &sent, 400, kind).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_multilingual_yaml_is_forwarded_byte_for_byte() {
    let (upstream, gw) = start("").await;
    for ct in [
        &b"application/yaml"[..],
        b"application/vnd.k8s+yaml",
        b"text/x-yaml",
    ] {
        let sent = request("POST", "/y", &[("Content-Type", ct)], CLEAN.as_bytes());
        let what = String::from_utf8_lossy(ct);
        let expected = ("/y", CLEAN.as_bytes());
        assert_forwarded(
            &gw,
            &upstream,
            &what,
            &sent,
            expected,
            &[("content-type", ct)],
        )
        .await;
    }
    // A BOM is a signature: stripped, as from any body; the document itself is unchanged.
    let with_bom = [&b"\xEF\xBB\xBF"[..], CLEAN.as_bytes()].concat();
    let ct = ("Content-Type", &b"application/yaml"[..]);
    let before = upstream.count();
    let response = exchange(gw.proxy, &request("POST", "/y", &[ct], &with_bom)).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let records = upstream.records();
    assert_eq!(records.len(), before + 1);
    assert_eq!(records[before].body, CLEAN.as_bytes());
}
