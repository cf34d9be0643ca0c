//! The request head as backends read it (issue 24), over raw sockets: media types with a
//! second reading, charsets named outside the media type, header names that are one after
//! CGI's `-`/`_` translation or are not tokens (in the head and in multipart parts), a missing
//! `Host` and `chunked` named twice. Each attack carries a payload that only appears after the
//! backend's reading (a percent-encoded overlong in a form value); nothing reaches the
//! upstream. Benign shapes are forwarded byte for byte.

use utf8gate_e2e::{exchange, request};

use super::{assert_forwarded, assert_refused, start};

/// A form body whose value is `../` once a form reader percent-decodes it leniently.
const FORM: &[u8] = b"q=%C0%AE%C0%AE%2Fetc%2Fpasswd";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_types_with_a_second_reading_are_refused() {
    let (upstream, gw) = start("").await;
    for ct in [
        &b"application/x-www-form-urlencoded, text/plain"[..],
        b"text/plain, application/x-www-form-urlencoded",
        b"application/x-www-form-urlencoded-v2",
        b"multipart/form-data-x; boundary=a",
        b"text/plain; x=\"charset=ibm037\"",
        b"text/plain; charset=utf-8, charset=ibm037",
        b"application/json garbage",
        b"text/plain; charset = utf-8",
    ] {
        let sent = request("POST", "/f", &[("Content-Type", ct)], FORM);
        let what = String::from_utf8_lossy(ct);
        assert_refused(&gw, &upstream, &what, &sent, 400, "ambiguous_media_type").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charsets_named_outside_the_media_type_are_refused() {
    let (upstream, gw) = start("").await;
    let form = ("Content-Type", &b"application/x-www-form-urlencoded"[..]);
    let devcap = request(
        "POST",
        "/f",
        &[form, ("X-Up-Devcap-Post-Charset", b"ibm037")],
        b"q=%4C%4F",
    );
    assert_refused(&gw, &upstream, "devcap", &devcap, 400, "foreign_charset").await;
    let sling = request("POST", "/f", &[form], b"_charset_=ibm037&q=%4C%4F");
    assert_refused(&gw, &upstream, "_charset_", &sling, 400, "foreign_charset").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn header_names_with_two_readings_are_refused() {
    let (upstream, gw) = start("").await;
    for (what, headers) in [
        (
            "X-Forwarded-For and X_Forwarded_For",
            &[
                ("X-Forwarded-For", &b"203.0.113.9"[..]),
                ("X_Forwarded_For", b"127.0.0.1"),
            ][..],
        ),
        (
            "Content_Type alone",
            &[("Content_Type", &b"application/x-www-form-urlencoded"[..])][..],
        ),
        (
            "Transfer_Encoding alone",
            &[("Transfer_Encoding", &b"chunked"[..])][..],
        ),
    ] {
        let sent = request("POST", "/f", headers, FORM);
        assert_refused(&gw, &upstream, what, &sent, 400, "ambiguous_header_name").await;
    }
}

/// WAFFLED's Flask bypasses: a NUL in a part header name or in the disposition type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn part_heads_with_non_token_bytes_are_refused() {
    let (upstream, gw) = start("").await;
    for (what, head, kind) in [
        (
            "NUL in a part header name",
            &b"Content-Disposition: form-data; name=\"q\"\r\nconten\0-extra: x"[..],
            "ambiguous_header_name",
        ),
        (
            "NUL in Content-Disposition's name",
            b"Content-Disposi\0tion: form-data; name=\"q\"",
            "ambiguous_header_name",
        ),
        (
            "NUL in the disposition type",
            b"Content-Disposition: form-da\0a; name=\"q\"",
            "ambiguous_parameter",
        ),
    ] {
        let mut body = b"--b\r\n".to_vec();
        body.extend_from_slice(head);
        body.extend_from_slice(b"\r\n\r\n../etc/passwd\r\n--b--\r\n");
        let ct = ("Content-Type", &b"multipart/form-data; boundary=b"[..]);
        let sent = request("POST", "/f", &[ct], &body);
        assert_refused(&gw, &upstream, what, &sent, 400, kind).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_host_and_chunked_twice_are_refused() {
    let (upstream, gw) = start("").await;
    let hostless = b"GET /a HTTP/1.1\r\nAccept: */*\r\n\r\n";
    assert_refused(&gw, &upstream, "no Host", hostless, 400, "malformed_host").await;
    let hostless_body = b"POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
    assert_refused(
        &gw,
        &upstream,
        "no Host",
        hostless_body,
        400,
        "malformed_host",
    )
    .await;
    // `chunked` named twice is two framings (400), body or not.
    for sent in [
        &b"POST /f HTTP/1.1\r\nHost: e2e.test\r\nTransfer-Encoding: chunked, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"[..],
        b"POST /f HTTP/1.1\r\nHost: e2e.test\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ] {
        assert_refused(&gw, &upstream, "chunked twice", sent, 400, "ambiguous_framing").await;
    }
    // HTTP/1.0 has no Host requirement (RFC 9112 §3.2 is HTTP/1.1's).
    let before = upstream.count();
    let old = exchange(gw.proxy, b"GET /a HTTP/1.0\r\n\r\n").await;
    assert_eq!(old.status, 200, "{}", old.text());
    assert_eq!(upstream.count(), before + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn benign_heads_are_forwarded_byte_for_byte() {
    let (upstream, gw) = start("").await;
    let body = b"q=caf%C3%A9&_charset_=UTF-8";
    for ct in [
        &b"application/x-www-form-urlencoded"[..],
        b"application/x-www-form-urlencoded;charset=UTF-8",
        b"application/x-www-form-urlencoded; charset=\"utf-8\"",
    ] {
        let sent = request("POST", "/f", &[("Content-Type", ct)], body);
        let what = String::from_utf8_lossy(ct);
        assert_forwarded(
            &gw,
            &upstream,
            &what,
            &sent,
            ("/f", body),
            &[("content-type", ct)],
        )
        .await;
    }
    let ids = [
        ("X_Request_Id", &b"42"[..]),
        ("Accept-Language", b"fr-CH, fr;q=0.9"),
    ];
    let sent = request("GET", "/g", &ids, b"");
    assert_forwarded(
        &gw,
        &upstream,
        "X_Request_Id",
        &sent,
        ("/g", b""),
        &[("x_request_id", b"42")],
    )
    .await;
}
