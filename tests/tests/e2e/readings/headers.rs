//! Headers as backends read them (cookies, hosts, URL-valued and path-override headers), and the
//! request lines the proxy answers itself (CONNECT, TRACE, `OPTIONS *`, absolute form).

use std::time::Duration;

use utf8gate_e2e::{exchange, request};

use super::{all, assert_forwarded, assert_refused, start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decoded_header_payloads_are_refused_and_benign_headers_forwarded() {
    let (upstream, gw) = start("").await;
    for (name, value, kind) in [
        ("Cookie", &b"sid=abc; q=%00"[..], "nul"),
        ("Cookie", b"q=%1b%5b31m", "control"),
        ("Cookie", b"q=%ed%a0%bd%ed%b8%80", "cesu8_pair"),
        ("Cookie", b"q=\"%e2%80%ae\"", "bidi_control"),
        (
            "Referer",
            b"https://shop.example/a/..%c0%af../etc",
            "overlong",
        ),
        ("Referer", b"https://shop.example/a?next=%00", "nul"),
        ("Origin", b"https://shop.example/%c0%ae%c0%ae/", "overlong"),
        (
            "Link",
            b"</a>; rel=next; title*=UTF-8''%e2%80%ae",
            "bidi_control",
        ),
        // As Werkzeug unquotes them: the octal escapes are the overlong bytes.
        ("Cookie", b"sid=\"\\300\\256\\300\\256\"", "overlong"),
        // Werkzeug reads one cookie across the `;`, Django two.
        (
            "Cookie",
            b"a=\"x; __Host-sid=evil; b=y\"",
            "ambiguous_cookie",
        ),
        // U+2000 before the name: Django reads a second `__Host-sid`.
        (
            "Cookie",
            b"__Host-sid=1; \xE2\x80\x80__Host-sid=evil",
            "ambiguous_cookie",
        ),
        ("Cookie", b"$Version=1; sid=\"a\\\\b\"", "ambiguous_cookie"),
        (
            "X-Forwarded-Host",
            b"evil\xE3\x80\x82example",
            "confusable_host",
        ),
        (
            "X-Forwarded-Host",
            b"exa\xE2\x80\x8Bmple.com",
            "confusable_host",
        ),
        (
            "Forwarded",
            b"for=192.0.2.1;host=\"p\xD0\xB0ypal.com\"",
            "confusable_host",
        ),
        ("Origin", b"https://xn--zz.example", "confusable_host"),
    ] {
        let what = format!("{name}: {}", String::from_utf8_lossy(value));
        let sent = request("GET", "/", &[(name, value)], b"");
        assert_refused(&gw, &upstream, &what, &sent, 400, kind).await;
    }
    // With a Django messages cookie (its commas and quotes as octal and backslash escapes).
    let cookie: &[u8] = b"session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln+/=; prefs={\"theme\":\"dark\"}; name=%E5%B1%B1%E7%94%B0; messages=\"[[\\\"__json_message\\\"\\0540\\05425\\054\\\"Hi\\\"]]:1tJ:abc\"";
    let referer: &[u8] =
        b"https://xn--bcher-kva.example/wiki/%D0%9C%D0%B0%D1%80%D0%B8%D1%8F?q=%C3%A9t%C3%A9&p=2";
    let sent = request(
        "GET",
        "/account",
        &[("Cookie", cookie), ("Referer", referer)],
        b"",
    );
    let same = [("cookie", cookie), ("referer", referer)];
    assert_forwarded(&gw, &upstream, "benign", &sent, ("/account", b""), &same).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_overrides_are_removed_from_untrusted_peers_and_checked_from_trusted_ones() {
    let (upstream, gw) = start("").await;
    let sent = request(
        "GET",
        "/public",
        &[("X-Original-URL", b"/admin"), ("X-Rewrite-URL", b"/admin")],
        b"",
    );
    let before = upstream.count();
    assert_eq!(exchange(gw.proxy, &sent).await.status, 200);
    let got = &upstream.records()[before];
    assert!(
        all(&got.headers, "x-original-url").is_empty(),
        "{:?}",
        got.headers
    );
    assert!(all(&got.headers, "x-rewrite-url").is_empty());

    let (upstream, gw) = start("[listen]\nrefuse_untrusted_path_overrides = true\n").await;
    let before = upstream.count();
    let response = exchange(gw.proxy, &sent).await;
    assert_eq!(response.status, 400, "{}", response.text());
    assert_eq!(upstream.count(), before);

    let (upstream, gw) = start("[listen]\ntrusted_proxies = [\"127.0.0.0/8\"]\n").await;
    let bad = request(
        "GET",
        "/public",
        &[("X-Original-URL", b"/a/..;/admin")],
        b"",
    );
    assert_refused(&gw, &upstream, "trusted override", &bad, 400, "dot_segment").await;
    let good = request(
        "GET",
        "/public",
        &[("X-Original-URL", b"/docs/a.html")],
        b"",
    );
    let same = [("x-original-url", &b"/docs/a.html"[..])];
    assert_forwarded(
        &gw,
        &upstream,
        "trusted override",
        &good,
        ("/public", b""),
        &same,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_trace_asterisk_and_absolute_targets() {
    let (upstream, gw) = start("").await;
    let before = upstream.count();
    for raw in [
        &b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"[..],
        b"TRACE / HTTP/1.1\r\nHost: e2e.test\r\n\r\n",
    ] {
        let response = tokio::time::timeout(Duration::from_secs(5), exchange(gw.proxy, raw))
            .await
            .expect("an answer, not a hang");
        assert_eq!(response.status, 405, "{}", response.text());
        assert!(response.is_problem());
        assert!(response.header_str("allow").contains("GET"));
    }
    let response = exchange(gw.proxy, b"OPTIONS * HTTP/1.1\r\nHost: e2e.test\r\n\r\n").await;
    assert_eq!(response.status, 204);
    assert!(response.header_str("allow").contains("OPTIONS"));
    let response = exchange(
        gw.proxy,
        b"GET http://other.example/x HTTP/1.1\r\nHost: e2e.test\r\n\r\n",
    )
    .await;
    assert_eq!(response.status, 400, "{}", response.text());
    assert_eq!(
        upstream.count(),
        before,
        "nothing of these reaches the upstream"
    );
    let sent = b"GET http://e2e.test/x?y=1 HTTP/1.1\r\nHost: e2e.test\r\n\r\n";
    assert_forwarded(&gw, &upstream, "absolute form", sent, ("/x?y=1", b""), &[]).await;

    let (upstream, gw) = start("[listen]\nallow_trace = true\n").await;
    let sent = b"TRACE / HTTP/1.1\r\nHost: e2e.test\r\n\r\n";
    assert_forwarded(&gw, &upstream, "allowed trace", sent, ("/", b""), &[]).await;
}
