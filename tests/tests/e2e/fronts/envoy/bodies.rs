//! Bodies through Envoy's `with_request_body`: up to the shipped `max_request_bytes` (8 MiB)
//! the whole body is checked (Envoy's default 1 MiB connection buffer would answer 413 from
//! 1 MiB on: the shipped files raise `per_connection_buffer_limit_bytes` to the same 8 MiB);
//! past it the shipped files (`allow_partial_message: false`) have Envoy answer 413, so no
//! malformed byte after the limit reaches the application. With the opt-in
//! `allow_partial_message: true`, Envoy cuts the copy it sends (`x-envoy-auth-partial-body:
//! true`) and forwards the whole body: plain text is checked up to the cut and allowed with
//! `body_not_inspected`, a type read as fields or a coded body is refused.

use std::io::Write;

use utf8gate_e2e::{RawResponse, Recorded, request};

use super::{Front, Mode, shipped_number};
use crate::support::*;

const LIMIT: &str = "limit_exceeded";
const FORM: &str = "application/x-www-form-urlencoded";

fn post(content_type: &str, extra: &[(&str, &[u8])], body: &[u8]) -> Vec<u8> {
    let mut headers = vec![("Content-Type", content_type.as_bytes())];
    headers.extend_from_slice(extra);
    request("POST", "/upload", &headers, body)
}

/// The finding kinds of the audit line of the request the application received.
async fn audited_kinds(front: &Front, received: &Recorded) -> String {
    let id = received
        .header("x-request-id")
        .expect("Envoy's x-request-id");
    let id = String::from_utf8_lossy(id).into_owned();
    let line = front.gw.audit_line(&id).await;
    line["kinds"].as_str().unwrap_or_default().to_string()
}

fn allowed(response: &RawResponse, what: &str) {
    assert_eq!(response.status, 200, "{what}: {}", response.text());
}

async fn bodies_up_to_max_request_bytes_are_checked_whole_and_larger_ones_refused(mode: Mode) {
    let Some(front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    let max = shipped_number(mode, "max_request_bytes");
    assert_eq!(
        shipped_number(mode, "per_connection_buffer_limit_bytes"),
        max,
        "Envoy buffers a checked body within the connection's buffer limit"
    );

    // A trick in the last bytes of a body of exactly max_request_bytes: checked, denied.
    let mut body = vec![b'a'; max - 2];
    body.extend(b"\xC0\xAE");
    let response = front.send(&post("text/plain", &[], &body)).await;
    let verdict = assert_rejected(&response, 403);
    assert_eq!(kinds(&verdict), ["overlong"], "{mode:?}");
    assert!(front.received().is_empty());

    // Clean at the limit: checked whole, forwarded whole.
    let at = vec![b'a'; max];
    allowed(
        &front.send(&post("text/plain", &[], &at)).await,
        "at the limit",
    );
    let received = front.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].body.len(), max);
    assert_eq!(audited_kinds(&front, &received[0]).await, "", "{mode:?}");

    // One byte over, a malformed byte after the limit: Envoy refuses it, as shipped.
    let mut over = vec![b'a'; max];
    over.extend(b"\xC0");
    let response = front.send(&post("text/plain", &[], &over)).await;
    assert_eq!(response.status, 413, "{mode:?}: {}", response.text());
    assert_eq!(
        front.received().len(),
        1,
        "{mode:?}: nothing more went upstream"
    );
}

/// With the opt-in `allow_partial_message: true`: cut copies, read as far as they go.
async fn cut_bodies_are_checked_up_to_the_cut_or_refused(mode: Mode) {
    let opt_in = [(
        "allow_partial_message: false",
        "allow_partial_message: true",
    )];
    let Some(front) = Box::pin(Front::start_edited(mode, &opt_in)).await else {
        return;
    };
    let max = shipped_number(mode, "max_request_bytes");
    // One byte over: Envoy cuts what it sends at max_request_bytes, marks it, and forwards
    // the whole body; plain text is checked up to the cut.
    let over = vec![b'a'; max + 1];
    allowed(&front.send(&post("text/plain", &[], &over)).await, "over");
    let received = front.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].body, over,
        "the whole body reaches the application"
    );
    assert_eq!(
        audited_kinds(&front, &received[0]).await,
        "body_not_inspected",
        "{mode:?}"
    );
    if mode == Mode::Grpc {
        let asked = front.asked();
        let cut = asked.last().and_then(|a| a.body.as_ref()).map(Vec::len);
        assert_eq!(cut, Some(max), "raw_body is cut at max_request_bytes");
    }

    // A cut body whose type is read as fields, or coded, is refused, never read as text.
    let filler = "a".repeat(max);
    let json = format!("{{\"v\":\"{filler}\"}}");
    let form = format!("v={filler}&w=1");
    let xml = format!("<a>{filler}</a>");
    let multipart =
        format!("--b0\r\nContent-Disposition: form-data; name=\"v\"\r\n\r\n{filler}\r\n--b0--\r\n");
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    gzip.write_all(filler.as_bytes()).expect("gzip");
    let gzip = gzip.finish().expect("gzip");
    assert!(gzip.len() > max);
    // Fields that may end past the cut: limit_exceeded; a coded body cut short: corrupt_coding
    // (docs/verdict.md, body_not_inspected).
    let multipart_type = "multipart/form-data; boundary=b0";
    let gzipped: &[(&str, &[u8])] = &[("Content-Encoding", b"gzip")];
    let cut: [(&str, Vec<u8>, &str); 5] = [
        (
            "JSON",
            post("application/json", &[], json.as_bytes()),
            LIMIT,
        ),
        ("form", post(FORM, &[], form.as_bytes()), LIMIT),
        ("XML", post("application/xml", &[], xml.as_bytes()), LIMIT),
        (
            "multipart",
            post(multipart_type, &[], multipart.as_bytes()),
            LIMIT,
        ),
        (
            "gzip text",
            post("text/plain", gzipped, &gzip),
            "corrupt_coding",
        ),
    ];
    for (what, bytes, kind) in &cut {
        let response = front.send(bytes).await;
        let verdict = assert_rejected(&response, 403);
        assert_eq!(
            kinds(&verdict),
            ["body_not_inspected", *kind],
            "{mode:?}, cut {what}"
        );
        assert_eq!(
            front.received().len(),
            1,
            "{mode:?}, cut {what} reached the application"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_checks_bodies_up_to_max_request_bytes() {
    bodies_up_to_max_request_bytes_are_checked_whole_and_larger_ones_refused(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_checks_bodies_up_to_max_request_bytes() {
    bodies_up_to_max_request_bytes_are_checked_whole_and_larger_ones_refused(Mode::Grpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_opted_in_cut_bodies_are_read_to_the_cut() {
    cut_bodies_are_checked_up_to_the_cut_or_refused(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_opted_in_cut_bodies_are_read_to_the_cut() {
    cut_bodies_are_checked_up_to_the_cut_or_refused(Mode::Grpc).await;
}
