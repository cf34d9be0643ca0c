//! The `ProcessingResponse`s of an `ext_proc` stream: "go on" for a message the stream only
//! passes, the mutations a sanitize decision makes (the target as `:path`, the headers it
//! rewrote, the body with a true `Content-Length`) with `utf8gate-decision`, the switch to a
//! buffered body, and the immediate response of a refusal (the problem the proxy answers).

use envoy_types::pb::envoy::config::core::v3::{
    HeaderValue, HeaderValueOption, header_value_option::HeaderAppendAction,
};
use envoy_types::pb::envoy::extensions::filters::http::ext_proc::v3::{
    ProcessingMode, processing_mode::BodySendMode,
};
use envoy_types::pb::envoy::service::ext_proc::v3::{
    BodyMutation, BodyResponse, CommonResponse, HeaderMutation, HeadersResponse, ImmediateResponse,
    ProcessingResponse, StreamedBodyResponse, TrailersResponse, body_mutation::Mutation,
    processing_request::Request as Message, processing_response::Response,
};
use envoy_types::pb::envoy::r#type::v3::HttpStatus;
use utf8gate_policy::Request;

use crate::api::grpc::answer::Rendered;
use crate::names::DECISION;

/// Where a decision is answered: at the request's headers (no body, or a body checked apart),
/// at its body, or at its trailers (where mutations cannot go: only a refusal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// The answer to `request_headers`.
    Headers,
    /// The answer to `request_body`.
    Body,
    /// The answer to `request_trailers`.
    Trailers,
}

impl Phase {
    /// `common` as this phase's answer.
    pub(super) fn answer(self, common: CommonResponse) -> ProcessingResponse {
        let response = match self {
            Phase::Headers => Response::RequestHeaders(HeadersResponse {
                response: Some(common),
            }),
            Phase::Body => Response::RequestBody(BodyResponse {
                response: Some(common),
            }),
            Phase::Trailers => Response::RequestTrailers(TrailersResponse::default()),
        };
        ProcessingResponse {
            response: Some(response),
            ..Default::default()
        }
    }
}

/// "Go on, unchanged" for `message`, of whatever kind (request or response phase).
pub(super) fn go_on(message: &Message) -> ProcessingResponse {
    let common = || Some(CommonResponse::default());
    let response = match message {
        Message::RequestHeaders(_) => {
            Response::RequestHeaders(HeadersResponse { response: common() })
        }
        Message::ResponseHeaders(_) => {
            Response::ResponseHeaders(HeadersResponse { response: common() })
        }
        Message::RequestBody(_) => Response::RequestBody(BodyResponse { response: common() }),
        Message::ResponseBody(_) => Response::ResponseBody(BodyResponse { response: common() }),
        Message::RequestTrailers(_) => Response::RequestTrailers(TrailersResponse::default()),
        Message::ResponseTrailers(_) => Response::ResponseTrailers(TrailersResponse::default()),
    };
    ProcessingResponse {
        response: Some(response),
        ..Default::default()
    }
}

/// The answer to `request_headers` of a body that must be read whole: go on, and send the
/// body buffered (honoured where the filter has `allow_mode_override: true`).
pub(super) fn buffer_the_body() -> ProcessingResponse {
    let mut response = Phase::Headers.answer(CommonResponse::default());
    response.mode_override = Some(ProcessingMode {
        request_body_mode: BodySendMode::Buffered as i32,
        ..Default::default()
    });
    response
}

/// In a full-duplex stream, `bytes` of the body passed on (the server sends the body on).
pub(super) fn streamed_on(bytes: Vec<u8>, end_of_stream: bool) -> ProcessingResponse {
    Phase::Body.answer(CommonResponse {
        body_mutation: Some(BodyMutation {
            mutation: Some(Mutation::StreamedResponse(StreamedBodyResponse {
                body: bytes,
                end_of_stream,
                ..Default::default()
            })),
        }),
        ..Default::default()
    })
}

/// The request goes on as received, with `utf8gate-decision`.
pub(super) fn unchanged(decision: &str) -> CommonResponse {
    CommonResponse {
        header_mutation: Some(HeaderMutation {
            set_headers: vec![set(DECISION.as_str(), decision.as_bytes())],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The request goes on as the sanitizer rewrote it: `:path` when the target changed, each
/// header it changed, and (at the body phase) the body when it changed, with `Content-Length`
/// set to its new length when the request declared one.
pub(super) fn rewritten(
    received: &Request,
    mut sanitized: Request,
    decision: &str,
    phase: Phase,
) -> CommonResponse {
    let mut common = unchanged(decision);
    let Some(mutation) = common.header_mutation.as_mut() else {
        return common;
    };
    let target = |r: &Request| {
        let mut t = r.path.clone();
        if let Some(q) = &r.query {
            t.push(b'?');
            t.extend_from_slice(q);
        }
        t
    };
    let after = target(&sanitized);
    if target(received) != after {
        mutation.set_headers.push(set(":path", &after));
    }
    for ((name, before), (_, now)) in received.headers.iter().zip(&sanitized.headers) {
        if before != now {
            mutation.set_headers.push(set(name, now));
        }
    }
    if phase == Phase::Body && received.body != sanitized.body {
        if received.header_value("content-length").is_some() {
            let length = sanitized.body.len().to_string();
            mutation
                .set_headers
                .push(set("content-length", length.as_bytes()));
        }
        common.body_mutation = Some(BodyMutation {
            mutation: Some(Mutation::Body(Vec::from(std::mem::take(
                &mut sanitized.body,
            )))),
        });
    }
    common
}

/// The immediate response of a refusal: the problem's status, headers and body.
pub(super) fn refused(rendered: Rendered, details: &str) -> ProcessingResponse {
    let headers = (rendered.headers.iter())
        .map(|(k, v)| set(k, v.as_bytes()))
        .collect();
    ProcessingResponse {
        response: Some(Response::ImmediateResponse(ImmediateResponse {
            status: Some(HttpStatus {
                code: i32::from(rendered.status),
            }),
            headers: Some(HeaderMutation {
                set_headers: headers,
                ..Default::default()
            }),
            body: rendered.body,
            details: details.to_string(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

/// A header set to `value`, overwriting the received one.
fn set(key: &str, value: &[u8]) -> HeaderValueOption {
    HeaderValueOption {
        header: Some(HeaderValue {
            key: key.to_string(),
            raw_value: value.to_vec(),
            ..Default::default()
        }),
        append_action: HeaderAppendAction::OverwriteIfExistsOrAdd as i32,
        ..Default::default()
    }
}

/// Whether `answer` is an immediate response (the request was refused).
pub(super) fn is_refusal(answer: &ProcessingResponse) -> bool {
    matches!(answer.response, Some(Response::ImmediateResponse(_)))
}
