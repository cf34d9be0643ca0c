//! Envoy `ext_proc` driven by a tonic client against the real binary's gRPC listener, message
//! by message, where Envoy would pick the sizes and order: the verdict of a buffered request is
//! the proxy's for the same request (what the proxy forwards, the mutations write; what it
//! refuses, the immediate response refuses with the same status), and a streamed body's
//! verdict does not depend on where its chunks are cut, `end_of_stream` or trailers.

use std::time::Duration;

use envoy_types::pb::envoy::config::core::v3::{HeaderMap, HeaderValue};
use envoy_types::pb::envoy::extensions::filters::http::ext_proc::v3::processing_mode::BodySendMode;
use envoy_types::pb::envoy::service::ext_proc::v3::external_processor_client::ExternalProcessorClient;
use envoy_types::pb::envoy::service::ext_proc::v3::{
    HttpBody, HttpHeaders, HttpTrailers, ProcessingRequest, ProcessingResponse,
    ProtocolConfiguration, body_mutation::Mutation, processing_request::Request as Phase,
    processing_response::Response,
};
use tokio::sync::mpsc;
use tonic::codegen::tokio_stream::wrappers::ReceiverStream;
use utf8gate_e2e::{Gateway, Upstream, exchange, request};

const GRPC: &str = "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n";

/// How a conversation ended.
#[derive(Debug, Default, PartialEq, Eq)]
struct Ended {
    /// The immediate response's status, when the request was refused.
    refused: Option<i32>,
    /// `:path` as rewritten.
    target: Option<Vec<u8>>,
    /// The body as rewritten (buffered only).
    body: Option<Vec<u8>>,
}

fn raw(key: &str, value: &[u8]) -> HeaderValue {
    HeaderValue {
        key: key.into(),
        raw_value: value.to_vec(),
        ..Default::default()
    }
}

/// One request through `ext_proc` in `mode`: its headers, then each chunk (the last with
/// `end_of_stream`, or followed by trailers when `trailers`), each answered before the next.
async fn converse(
    addr: std::net::SocketAddr,
    mode: BodySendMode,
    target: &[u8],
    content_type: &[u8],
    chunks: &[&[u8]],
    trailers: bool,
) -> Ended {
    let mut client = ExternalProcessorClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    let (send, messages) = mpsc::channel(4);
    let length = chunks.iter().map(|c| c.len()).sum::<usize>().to_string();
    let mut headers = vec![
        raw(":method", b"POST"),
        raw(":path", target),
        raw(":authority", b"app.example"),
        raw("content-type", content_type),
    ];
    if !chunks.is_empty() {
        headers.push(raw("content-length", length.as_bytes()));
    }
    let first = ProcessingRequest {
        protocol_config: Some(ProtocolConfiguration {
            request_body_mode: mode as i32,
            ..Default::default()
        }),
        request: Some(Phase::RequestHeaders(HttpHeaders {
            headers: Some(HeaderMap { headers }),
            end_of_stream: chunks.is_empty(),
            ..Default::default()
        })),
        ..Default::default()
    };
    send.send(first).await.expect("send");
    let mut answers = client
        .process(ReceiverStream::new(messages))
        .await
        .expect("a stream")
        .into_inner();
    let mut ended = Ended::default();
    let mut next = async |ended: &mut Ended| -> bool {
        let answer: ProcessingResponse = match answers.message().await {
            Ok(Some(a)) => a,
            other => panic!("no answer: {other:?}"),
        };
        let common = match answer.response {
            Some(Response::ImmediateResponse(i)) => {
                ended.refused = i.status.map(|s| s.code);
                return false;
            }
            Some(Response::RequestHeaders(h)) => h.response,
            Some(Response::RequestBody(b)) => b.response,
            Some(Response::RequestTrailers(_)) => None,
            other => panic!("unexpected {other:?}"),
        };
        let common = common.unwrap_or_default();
        for set in common.header_mutation.iter().flat_map(|m| &m.set_headers) {
            let h = set.header.as_ref().expect("a header");
            if h.key == ":path" {
                ended.target = Some(h.raw_value.clone());
            }
        }
        if let Some(Mutation::Body(body)) = common.body_mutation.and_then(|m| m.mutation) {
            ended.body = Some(body);
        }
        true
    };
    if !next(&mut ended).await {
        return ended;
    }
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let body = Phase::RequestBody(HttpBody {
            body: chunk.to_vec(),
            end_of_stream: last && !trailers,
            ..Default::default()
        });
        let message = ProcessingRequest {
            request: Some(body),
            ..Default::default()
        };
        send.send(message).await.expect("send");
        if !next(&mut ended).await {
            return ended;
        }
    }
    if trailers && !chunks.is_empty() {
        let message = ProcessingRequest {
            request: Some(Phase::RequestTrailers(HttpTrailers::default())),
            ..Default::default()
        };
        send.send(message).await.expect("send");
        next(&mut ended).await;
    }
    ended
}

/// Requests of every kind the proxy reads: what it forwards (as received or rewritten) and what
/// it refuses must be what `ext_proc` answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buffered_request_is_judged_as_the_proxy_judges_it() {
    let upstream = Upstream::start().await;
    let gw = Box::pin(Gateway::start(GRPC, Some(&upstream.url()))).await;
    let addr = gw.grpc_authz.expect("the gRPC listener");
    let cases: &[(&str, &str, &[u8])] = &[
        ("/a?q=caf%C3%A9", "text/plain", "clean café 日本".as_bytes()),
        ("/a?q=cafe%CC%81", "text/plain", "cafe\u{301}".as_bytes()),
        ("/a", "text/plain", b"a/\xC0\xAE\xC0\xAE/b"),
        ("/a", "text/plain", b"\xEF\xBB\xBFhello"),
        ("/a", "application/json", "{\"n\":\"e\u{301}\"}".as_bytes()),
        ("/a", "application/json", b"{\"n\":\"\\ud800\"}"),
        ("/a", "application/json", b"{\"n\":1,\"n\":2}"),
        ("/a", "application/x-www-form-urlencoded", b"a=%C0%AE&b=1"),
        ("/a", "application/x-www-form-urlencoded", b"a=e%CC%81"),
        ("/%c0%ae%c0%ae/etc", "text/plain", b"x"),
        ("/a", "text/plain", b"nul\x00byte"),
    ];
    let (mut refused, mut rewritten_targets, mut rewritten_bodies) = (0, 0, 0);
    for (target, content_type, body) in cases {
        let headers: &[(&str, &[u8])] = &[("Content-Type", content_type.as_bytes())];
        let before = upstream.records().len();
        let proxied = exchange(gw.proxy, &request("POST", target, headers, body)).await;
        let what = format!(
            "{target} {content_type} {:?}",
            String::from_utf8_lossy(body)
        );
        let ended = converse(
            addr,
            BodySendMode::Buffered,
            target.as_bytes(),
            content_type.as_bytes(),
            &[body],
            false,
        )
        .await;
        if proxied.status != 200 {
            assert_eq!(ended.refused, Some(i32::from(proxied.status)), "{what}");
            refused += 1;
            continue;
        }
        rewritten_targets += usize::from(ended.target.is_some());
        rewritten_bodies += usize::from(ended.body.is_some());
        assert_eq!(ended.refused, None, "{what}");
        let records = upstream.records();
        assert_eq!(records.len(), before + 1, "{what}");
        let forwarded = &records[before];
        let target_now = ended.target.unwrap_or_else(|| target.as_bytes().to_vec());
        assert_eq!(target_now, forwarded.target.as_bytes(), "{what}");
        let body_now = ended.body.unwrap_or_else(|| body.to_vec());
        assert_eq!(body_now, forwarded.body, "{what}");
    }
    // Each answer was given: refusals, a rewritten target, rewritten bodies.
    assert_eq!((refused, rewritten_targets, rewritten_bodies), (6, 1, 4));
}

/// A deterministic generator (xorshift), so that a failure names its seed.
struct Cuts(u64);

impl Cuts {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below.max(1) as u64) as usize
    }

    /// `body` cut at random places (some chunks empty).
    fn split<'a>(&mut self, body: &'a [u8]) -> Vec<&'a [u8]> {
        let mut cuts: Vec<usize> = (0..self.next(6))
            .map(|_| self.next(body.len() + 1))
            .collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut at = 0;
        for cut in cuts.into_iter().chain([body.len()]) {
            chunks.push(&body[at..cut]);
            at = cut;
        }
        chunks
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_verdict_does_not_depend_on_where_the_chunks_are_cut() {
    let gw = Box::pin(Gateway::start(GRPC, None)).await;
    let addr = gw.grpc_authz.expect("the gRPC listener");
    let bodies: [&[u8]; 6] = [
        "naïve café — 日本語 😀 ok".as_bytes(),
        b"split \xF0\x9F\x98\x80 emoji and \xE2\x80\x94 dash",
        b"overlong \xC0\xAE here",
        b"lone \xED\xA0\x80 surrogate",
        b"truncated at the end \xE6\x97",
        b"nul \x00 in the middle",
    ];
    for (i, body) in bodies.iter().enumerate() {
        let one = [*body];
        let whole = converse(
            addr,
            BodySendMode::Streamed,
            b"/up",
            b"text/plain",
            &one,
            false,
        );
        let whole = whole.await;
        let mut cuts = Cuts(0x9E37_79B9_7F4A_7C15 ^ i as u64);
        for round in 0..24 {
            let chunks = cuts.split(body);
            let trailers = round % 4 == 3;
            for mode in [BodySendMode::Streamed, BodySendMode::FullDuplexStreamed] {
                let ended = Box::pin(converse(
                    addr,
                    mode,
                    b"/up",
                    b"text/plain",
                    &chunks,
                    trailers,
                ));
                let ended = tokio::time::timeout(Duration::from_secs(10), ended)
                    .await
                    .unwrap_or_else(|_| panic!("{mode:?} {chunks:?}: no end"));
                assert_eq!(
                    ended.refused, whole.refused,
                    "{mode:?} body {i} cut as {chunks:?} (trailers: {trailers})"
                );
            }
        }
        let clean = std::str::from_utf8(body).is_ok() && !body.contains(&0);
        assert_eq!(whole.refused.is_none(), clean, "body {i}");
    }
}

/// A filter that skips the request headers (`request_header_mode: SKIP`) would have its body go
/// on unjudged: the stream is refused at its first body message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_before_any_headers_is_refused() {
    let gw = Box::pin(Gateway::start(GRPC, None)).await;
    let addr = gw.grpc_authz.expect("the gRPC listener");
    let mut client = ExternalProcessorClient::connect(format!("http://{addr}"))
        .await
        .expect("connect");
    let (send, messages) = mpsc::channel(4);
    let body = ProcessingRequest {
        request: Some(Phase::RequestBody(HttpBody {
            body: b"a/\xC0\xAE".to_vec(),
            end_of_stream: true,
            ..Default::default()
        })),
        ..Default::default()
    };
    send.send(body).await.expect("send");
    let mut answers = client
        .process(ReceiverStream::new(messages))
        .await
        .expect("a stream")
        .into_inner();
    let answer = answers.message().await.expect("an answer").expect("one");
    match answer.response {
        Some(Response::ImmediateResponse(i)) => {
            assert_eq!(i.status.map(|s| s.code), Some(400));
            assert!(String::from_utf8_lossy(&i.body).contains("bad-check"));
        }
        other => panic!("not refused: {other:?}"),
    }
}
