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

/// nginx `auth_request` sends no body (the shipped configuration passes the original's
/// length as `X-Original-Content-Length`): the check says so (`body_not_inspected`, logged, in
/// the audit line and the metrics); a route with `require_body` denies it. A GET with no body
/// says nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_without_the_body_says_so_and_require_body_denies_it() {
    let toml = "[[route]]\nname = \"strict-body\"\npaths = [\"/upload/\"]\nrequire_body = true\n";
    let gw = Gateway::start(toml, None).await;
    let forward = |uri: &'static [u8], length: &'static [u8]| {
        request(
            "GET",
            "/authz/forward",
            &[
                ("X-Original-URI", uri),
                ("X-Original-Method", b"POST"),
                ("X-Original-Content-Length", length),
                ("X-Request-Id", b"withheld-1"),
            ],
            b"",
        )
    };
    let allowed = exchange(gw.api, &forward(b"/form", b"42")).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    let line = gw.audit_line("withheld-1").await;
    assert!(
        line["kinds"]
            .as_str()
            .unwrap_or_default()
            .contains("body_not_inspected"),
        "{line}"
    );
    let metrics = gw.metrics().await;
    let counted =
        metrics.value(r#"utf8gate_findings_total{kind="body_not_inspected",location="body"}"#);
    assert!(counted >= 1.0, "not counted");

    let denied = exchange(gw.api, &forward(b"/upload/a", b"42")).await;
    let verdict = assert_rejected(&denied, 403);
    assert_eq!(kinds(&verdict), ["body_not_inspected"]);

    let empty = exchange(gw.api, &forward(b"/upload/a", b"0")).await;
    assert_eq!(empty.status, 200, "{}", empty.text());
}

/// A body Envoy cut at its buffer (`x-envoy-auth-partial-body: true`): plain text is checked as
/// far as it goes and said to be cut; a JSON, form or multipart body cannot be read in part and
/// is denied, so a `\u0000` or `%c0%ae` in its first bytes is never let through unread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_body_is_read_as_far_as_it_goes_or_refused() {
    let gw = Gateway::start("", None).await;
    let cut = |ct: &'static [u8], body: &[u8]| {
        request(
            "POST",
            "/authz/envoy/submit",
            &[("Content-Type", ct), ("x-envoy-auth-partial-body", b"true")],
            body,
        )
    };
    for (ct, body) in [
        (
            &b"application/json"[..],
            &b"{\"a\":\"\\u0000\", \"b\": \"x"[..],
        ),
        (
            b"application/x-www-form-urlencoded",
            b"a=%c0%ae%c0%ae/&b=xy",
        ),
        (
            b"multipart/form-data; boundary=B",
            b"--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx",
        ),
        (b"application/xml", b"<a>&#0;</a><b"),
    ] {
        let denied = exchange(gw.api, &cut(ct, body)).await;
        let verdict = assert_rejected(&denied, 403);
        assert!(
            kinds(&verdict).contains(&"limit_exceeded"),
            "{:?}",
            kinds(&verdict)
        );
    }
    // Text, cut inside a character: checked up to the cut, said to be cut, allowed.
    let text = "Grüße aus Köln, 日本語".as_bytes();
    let allowed = exchange(
        gw.api,
        &cut(b"text/plain; charset=utf-8", &text[..text.len() - 1]),
    )
    .await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    // And what the cut text holds is still found.
    let denied = exchange(gw.api, &cut(b"text/plain", b"a\xC0\xAE\xC0\xAE/b\xE6")).await;
    let verdict = assert_rejected(&denied, 403);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );
}

/// Envoy asks about the path `/` as `/authz/envoy/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authz_envoy_answers_for_the_root_path() {
    let gw = Gateway::start("", None).await;
    for target in ["/authz/envoy/", "/authz/envoy"] {
        let allowed = exchange(gw.api, &get(target)).await;
        assert_eq!(allowed.status, 200, "{target}: {}", allowed.text());
    }
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
