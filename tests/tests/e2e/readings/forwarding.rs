//! Forwarding headers: replaced from an untrusted peer, kept and extended from a trusted proxy.

use utf8gate_e2e::{exchange, request};

use super::{all, start};

const SPOOFED: [(&str, &[u8]); 4] = [
    ("X-Forwarded-For", b"1.2.3.4"),
    ("X-Forwarded-Proto", b"https"),
    ("X-Forwarded-Host", b"evil.test"),
    ("Forwarded", b"for=1.2.3.4;proto=https"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_peer_s_forwarding_headers_are_replaced() {
    let (upstream, gw) = start("").await;
    let response = exchange(gw.proxy, &request("GET", "/who", &SPOOFED, b"")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let got = &upstream.records()[0].headers;
    assert_eq!(all(got, "x-forwarded-for"), [b"127.0.0.1".to_vec()]);
    assert_eq!(all(got, "x-forwarded-proto"), [b"http".to_vec()]);
    assert_eq!(all(got, "x-forwarded-host"), [b"e2e.test".to_vec()]);
    assert_eq!(
        all(got, "forwarded"),
        [b"for=127.0.0.1;proto=http;host=e2e.test".to_vec()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_s_forwarding_headers_are_kept_and_extended() {
    let (upstream, gw) = start("[listen]\ntrusted_proxies = [\"127.0.0.0/8\"]\n").await;
    let sent = request(
        "GET",
        "/who",
        &[
            ("X-Forwarded-For", b"1.1.1.1"),
            ("X-Forwarded-For", b"2.2.2.2"),
            ("X-Forwarded-Proto", b"https"),
            ("Forwarded", b"for=1.1.1.1;proto=https;host=app.test"),
        ],
        b"",
    );
    let response = exchange(gw.proxy, &sent).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let plain = exchange(gw.proxy, &request("GET", "/plain", &[], b"")).await;
    assert_eq!(plain.status, 200, "{}", plain.text());
    let records = upstream.records();
    let got = &records[0].headers;
    assert_eq!(
        all(got, "x-forwarded-for"),
        [b"1.1.1.1, 2.2.2.2, 127.0.0.1".to_vec()]
    );
    assert_eq!(all(got, "x-forwarded-proto"), [b"https".to_vec()]);
    assert_eq!(all(got, "x-forwarded-host"), [b"e2e.test".to_vec()]);
    assert_eq!(
        all(got, "forwarded"),
        [b"for=1.1.1.1;proto=https;host=app.test, for=127.0.0.1".to_vec()]
    );
    // Nothing received, nothing kept: the defaults, and no Forwarded to mask them.
    let plain = &records[1].headers;
    assert_eq!(all(plain, "x-forwarded-for"), [b"127.0.0.1".to_vec()]);
    assert_eq!(all(plain, "x-forwarded-proto"), [b"http".to_vec()]);
    assert!(all(plain, "forwarded").is_empty());
}
