//! HTTP/2 cookie crumbs (RFC 9113 §8.2.3): several `cookie` fields of one request are joined
//! with "; " before the request is evaluated and forwarded over HTTP/1.1.

use std::time::Duration;

use utf8gate_e2e::{Gateway, H2Raw, Upstream};

/// HPACK static-table indices of the response's first field, as [`H2Raw`] reads it.
const STATUS_200: u8 = 0x88;
const STATUS_400: u8 = 0x8c;

/// A GET of `/c` on stream 1 with one `cookie` field per crumb.
async fn with_crumbs(gw: &Gateway, crumbs: &[&[u8]]) -> utf8gate_e2e::H2Read {
    let authority = gw.proxy.to_string();
    let mut headers: Vec<(&str, &[u8])> = vec![
        (":method", b"GET"),
        (":scheme", b"http"),
        (":path", b"/c"),
        (":authority", authority.as_bytes()),
    ];
    headers.extend(crumbs.iter().map(|c| ("cookie", *c)));
    let mut h2 = H2Raw::connect(gw.proxy).await;
    h2.request(1, &headers, b"").await;
    h2.read(Duration::from_secs(10)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_cookie_crumbs_reach_the_upstream_as_one_cookie_line() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let read = with_crumbs(&gw, &[b"a=1", b"b=2", b"lang=d\xC3\xA9"]).await;

    assert_eq!(read.status_byte, Some(STATUS_200), "{read:?}");
    let records = upstream.records();
    assert_eq!(records.len(), 1);
    let cookies: Vec<&[u8]> = (records[0].headers.iter())
        .filter(|(n, _)| n == "cookie")
        .map(|(_, v)| v.as_slice())
        .collect();
    assert_eq!(cookies, [&b"a=1; b=2; lang=d\xC3\xA9"[..]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2_a_bad_crumb_among_good_ones_is_refused_and_nothing_reaches_the_upstream() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start("", Some(&upstream.url())).await;

    let read = with_crumbs(&gw, &[b"a=1", b"b=\xC0\xAE", b"c=3"]).await;

    assert_eq!(read.status_byte, Some(STATUS_400), "{read:?}");
    let body = String::from_utf8_lossy(&read.body);
    assert!(body.contains("overlong"), "{body}");
    assert_eq!(upstream.count(), 0);
}

// New HTTP/2 cookie tests go here.
