//! Authorization checks: the Envoy ext_authz and forward-auth contracts.

use utf8gate_e2e::{Gateway, exchange, get, request};

use crate::support::*;

// =============================================================================================
// Authorization checks
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_envoy_denies_an_overlong_traversal_and_allows_a_clean_path() {
    let gw = Gateway::start("", None).await;

    let denied = exchange(gw.api, &get("/authz/envoy/a/%c0%ae%c0%ae/b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );

    let allowed = exchange(gw.api, &get("/authz/envoy/ok?q=1")).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(allowed.header_str("utf8gate-decision"), "allow");
    assert!(!allowed.header_str("utf8gate-request-id").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_forward_trusts_x_original_uri_from_trusted_peers_only() {
    let gw = Gateway::start("", None).await;
    let forward = |uri: &'static [u8]| {
        request(
            "GET",
            "/authz/forward",
            &[("X-Original-URI", uri), ("X-Original-Method", b"GET")],
            b"",
        )
    };

    // 127.0.0.1 is trusted by default: the described request is evaluated.
    let denied = exchange(gw.api, &forward(b"/a/%c0%ae%c0%ae/b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );
    let allowed = exchange(gw.api, &forward(b"/a/b?q=caf%C3%A9")).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(allowed.header_str("utf8gate-decision"), "allow");

    // A plain dot-segment: rejected in a path, only logged in a header.
    let denied = exchange(gw.api, &forward(b"/a/../b")).await;
    let verdict = assert_rejected(&denied, 403);
    assert_eq!(kinds(&verdict), ["dot_segment"]);

    // Nobody is trusted: X-Original-URI is evaluated as a header only, where that same value
    // is clean, so the check allows it.
    let untrusted = Gateway::start("[authz]\ntrusted_peers = []\n", None).await;
    let response = exchange(untrusted.api, &forward(b"/a/../b")).await;
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header_str("utf8gate-decision"), "allow");
}

// New authz tests go here.

/// Envoy joins two `Content-Type` lines into one comma list before its ext_authz check, so
/// the duplicate the proxy listener refuses arrives here as a list: refused as well, with
/// the header-name and framing readings of the head.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_envoy_refuses_a_joined_content_type_and_underscore_names() {
    let gw = Gateway::start("", None).await;
    for (headers, kind) in [
        (
            &[(
                "Content-Type",
                &b"application/x-www-form-urlencoded, text/plain"[..],
            )][..],
            "ambiguous_media_type",
        ),
        (
            &[("Content_Type", &b"application/x-www-form-urlencoded"[..])][..],
            "ambiguous_header_name",
        ),
    ] {
        let sent = request("POST", "/authz/envoy/submit", headers, b"q=%C0%AE%C0%AE%2F");
        let denied = exchange(gw.api, &sent).await;
        let verdict = assert_rejected(&denied, 403);
        assert!(kinds(&verdict).contains(&kind), "{:?}", kinds(&verdict));
    }
}
