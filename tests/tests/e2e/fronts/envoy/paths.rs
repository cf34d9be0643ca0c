//! The target utf8gate judges is the one the application receives: the shipped files turn
//! Envoy's path normalisation off (`normalize_path`, `merge_slashes`,
//! `path_with_escaped_slashes_action`), so dot segments, double slashes and encoded slashes
//! reach both as sent, or the request is denied. And header lines Envoy merges.

use utf8gate_e2e::request;

use super::{Front, Mode};
use crate::support::*;

const TARGETS: &[&str] = &[
    "//x",
    "/a//b/",
    "/a%2Fb",
    "/a%2fb?x=%2F",
    "/a%5Cb",
    "/x/;/y",
    "/a/%2e%2e/b",
    "/a/./b",
    "/a/../b",
    "/%2e%2e/etc/passwd",
    "/a/%2E/b",
    "/a/..%2Fb",
];

async fn the_target_judged_is_the_target_received(mode: Mode) {
    let Some(front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    let (mut allowed, mut denied) = (Vec::new(), Vec::new());
    for target in TARGETS {
        let before = front.received().len();
        let sent = request("GET", target, &[("Connection", b"close")], b"");
        let response = front.send(&sent).await;
        let asked = front.asked();
        let judged = asked.last().expect("utf8gate was asked");
        assert_eq!(
            String::from_utf8_lossy(&judged.target),
            *target,
            "{mode:?}: Envoy asked about another target"
        );
        match response.status {
            200 => {
                let received = front.received();
                assert_eq!(received.len(), before + 1);
                assert_eq!(received[before].target, *target, "{mode:?}");
                allowed.push(*target);
            }
            _ => {
                let verdict = assert_rejected(&response, 403);
                assert!(!kinds(&verdict).is_empty());
                assert_eq!(front.received().len(), before, "{mode:?}: {target}");
                denied.push(*target);
            }
        }
    }
    // What Envoy 1.40 in front showed: dot segments in any spelling are denied, the rest
    // goes through as sent.
    assert_eq!(
        denied,
        [
            "/a/%2e%2e/b",
            "/a/./b",
            "/a/../b",
            "/%2e%2e/etc/passwd",
            "/a/%2E/b",
            "/a/..%2Fb"
        ],
        "{mode:?}; allowed: {allowed:?}"
    );
}

/// Two `Content-Type` lines: Envoy's codec joins them into one comma list before the check
/// (and before the application); utf8gate refuses a list as a media type.
async fn two_content_type_lines_are_refused(mode: Mode) {
    let Some(front) = Box::pin(Front::start(mode)).await else {
        return;
    };
    let sent = request(
        "POST",
        "/ct",
        &[
            ("Content-Type", b"text/plain"),
            ("Content-Type", b"application/json"),
        ],
        b"{\"a\":\"b\"}",
    );
    let response = front.send(&sent).await;
    let verdict = assert_rejected(&response, 403);
    assert_eq!(kinds(&verdict), ["ambiguous_media_type"], "{mode:?}");
    assert!(front.received().is_empty());
    if mode == Mode::Http {
        // What Envoy wrote: one line, the values joined with a comma.
        let stream = front.relay.sent().concat();
        let text = String::from_utf8_lossy(&stream).to_ascii_lowercase();
        assert!(
            text.contains("content-type: text/plain,application/json\r\n"),
            "{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_asks_about_the_target_the_application_receives() {
    the_target_judged_is_the_target_received(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_asks_about_the_target_the_application_receives() {
    the_target_judged_is_the_target_received(Mode::Grpc).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_http_merged_content_type_lines_are_refused() {
    two_content_type_lines_are_refused(Mode::Http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envoy_grpc_merged_content_type_lines_are_refused() {
    two_content_type_lines_are_refused(Mode::Grpc).await;
}
