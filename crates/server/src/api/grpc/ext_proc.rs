//! Envoy `ext_proc` (`envoy.service.ext_proc.v3.ExternalProcessor/Process`) on the gRPC
//! listener: one bidirectional stream per request, through which utf8gate sees the request's
//! head and body and answers with mutations (sanitize) or an immediate response (reject),
//! where `ext_authz` can only allow or deny.
//!
//! The request body's send mode (`protocol_config`, sent with the first message) says how:
//! - **no body** (`end_of_stream` on the headers): the request is judged at its headers;
//! - **`BUFFERED`, `BUFFERED_PARTIAL`**: the headers go on, and the request is judged whole
//!   at its body, as the proxy judges it (a partial body is `Cut`);
//! - **`STREAMED`, `FULL_DUPLEX_STREAMED`**, for a body the streamed scan reads in full
//!   ([`utf8gate_policy::streamable`]): the head is judged at its headers, the body checked
//!   chunk by chunk by a [`BodyScan`] in bounded memory and refused by an immediate response
//!   as soon as the verdict is settled, at the latest before its last chunk goes on. A body
//!   that needs reading whole (JSON, a form, ...) is asked for `BUFFERED` (`mode_override`),
//!   and refused when the filter does not allow the override;
//! - **`NONE`** (or no `protocol_config`): the head is judged with the body `Withheld`
//!   (`body_not_inspected` when it has one), as behind `ext_authz` without a body.
//!
//! Once the request is decided the stream ends cleanly, and Envoy goes on without the
//! processor: trailers and response phases are not read (the shipped files skip them). A
//! full-duplex stream is kept to its end, since utf8gate sends its body on.

use std::sync::Arc;
use std::time::Instant;

use envoy_types::pb::envoy::extensions::filters::http::ext_proc::v3::processing_mode::BodySendMode;
use envoy_types::pb::envoy::service::ext_proc::v3::{
    ProcessingRequest, ProcessingResponse, external_processor_server::ExternalProcessor,
    processing_request::Request as Message,
};
use utf8gate_policy::{BodyScan, BodyState, Mode, Request};

use crate::api::authz::{Judged, judge};
use crate::budget::{Charge, EVALUATION_FACTOR};
use crate::gate::{Outcome, Passed, Use};
use crate::listen::layers::request_id::RequestIds;
use crate::problem::{Problem, ProblemKind};
use crate::routes::Route;
use crate::state::{AppState, Snapshot};

use super::answer::{count_refused, format_of, render};

mod answers;
mod head;
mod reply;
mod talk;

use answers::Answers;
pub use answers::Conversation;
use head::Head;
use reply::Phase;
use talk::{Buffering, Talk, echo};

/// The `ExternalProcessor` service of a state.
#[derive(Clone)]
pub struct ExtProc {
    state: AppState,
    ids: Arc<RequestIds>,
}

impl ExtProc {
    /// The service judging streams with `state`'s gate.
    pub fn new(state: AppState) -> ExtProc {
        ExtProc {
            state,
            ids: Arc::new(RequestIds::new()),
        }
    }
}

#[tonic::async_trait]
impl ExternalProcessor for ExtProc {
    type ProcessStream = Conversation;

    async fn process(
        &self,
        request: tonic::Request<tonic::Streaming<ProcessingRequest>>,
    ) -> Result<tonic::Response<Self::ProcessStream>, tonic::Status> {
        let answers = Answers::default();
        let talk = Talk {
            incoming: request.into_inner(),
            out: answers.clone(),
            observing: false,
            decided: false,
        };
        let conversation = Box::pin(self.clone().converse(talk));
        Ok(tonic::Response::new(Conversation::new(
            conversation,
            answers,
        )))
    }
}

/// What a request's stream knows once its headers arrived.
struct Started {
    snapshot: Arc<Snapshot>,
    id: String,
    accept: Vec<Vec<u8>>,
    at: Instant,
}

impl ExtProc {
    /// A request's start: the configuration in force now, its id (from `id_headers`), the
    /// client's `Accept` values.
    fn start(&self, id_headers: &axum::http::HeaderMap, accept: Vec<Vec<u8>>) -> Started {
        Started {
            snapshot: self.state.snapshot(),
            id: self.ids.of(id_headers).as_str().to_string(),
            accept,
            at: Instant::now(),
        }
    }

    /// The conversation of one request.
    async fn converse(self, mut talk: Talk) {
        // The request's headers come first. A request body or trailers before them (a filter
        // with `request_header_mode: SKIP`) would go on unjudged: refused. Response phases
        // before them go on.
        let (mode, headers) = loop {
            let Some((first, message)) = talk.next().await else {
                return;
            };
            match message {
                Message::RequestHeaders(headers) => {
                    let mode = first.protocol_config.map(|c| c.request_body_mode);
                    break (mode.and_then(|m| BodySendMode::try_from(m).ok()), headers);
                }
                Message::RequestBody(_) | Message::RequestTrailers(_) => {
                    let started = self.start(&Default::default(), Vec::new());
                    let detail = "the ext_proc stream sent no request headers \
                                  (request_header_mode must be SEND): the request is not judged";
                    let problem = Problem::new(ProblemKind::BadCheck, detail);
                    talk.send(self.refused(&started, problem, None).await).await;
                    return;
                }
                other => {
                    if !talk.send(reply::go_on(&other)).await {
                        return;
                    }
                }
            }
        };
        let Head {
            mut request,
            id_headers,
            ends,
            accept,
        } = head::request(headers);
        let started = self.start(&id_headers, accept);
        let streamable = utf8gate_policy::streamable(request.header_value("content-type"));
        let answer = match (ends, mode) {
            (true, _) => Some(self.decide(&started, request, None, Phase::Headers).await.0),
            (false, Some(BodySendMode::Buffered | BodySendMode::BufferedPartial)) => {
                let buffering = match mode == Some(BodySendMode::BufferedPartial) {
                    true => Buffering::Partial,
                    false => Buffering::Configured,
                };
                talk.send(Phase::Headers.answer(Default::default())).await;
                self.buffered(&mut talk, &started, request, buffering).await
            }
            (false, Some(BodySendMode::Streamed | BodySendMode::FullDuplexStreamed))
                if streamable =>
            {
                let duplex = mode == Some(BodySendMode::FullDuplexStreamed);
                self.streamed(&mut talk, &started, request, duplex).await
            }
            (false, Some(BodySendMode::Streamed | BodySendMode::FullDuplexStreamed)) => {
                talk.send(reply::buffer_the_body()).await;
                self.buffered(&mut talk, &started, request, Buffering::Asked)
                    .await
            }
            (false, _) => {
                request.body_state = BodyState::Withheld;
                Some(self.decide(&started, request, None, Phase::Headers).await.0)
            }
        };
        // The request is decided: the stream ends cleanly here, and Envoy goes on without
        // the processor (what it would still send, trailers and response phases, is not read).
        // Waiting for Envoy to end it instead cost each request a reset stream.
        if let Some(answer) = answer {
            talk.send(answer).await;
        }
    }

    /// The body of a request whose headers went on, sent whole (`partial`: perhaps cut),
    /// judged with its head. `None` when the stream ended first.
    async fn buffered(
        &self,
        talk: &mut Talk,
        started: &Started,
        mut request: Request,
        buffering: Buffering,
    ) -> Option<ProcessingResponse> {
        let (ends, body, phase) = loop {
            match talk.next().await? {
                (_, Message::RequestBody(b)) => break (b.end_of_stream, b.body, Phase::Body),
                (_, Message::RequestTrailers(_)) => break (true, Vec::new(), Phase::Trailers),
                (_, other) => {
                    talk.send(reply::go_on(&other)).await;
                }
            }
        };
        // A buffered body comes in one message, without `end_of_stream` when trailers follow.
        request.body_state = match (ends, buffering) {
            (true, _) | (false, Buffering::Configured) => BodyState::Whole,
            (false, Buffering::Partial) => BodyState::Cut,
            (false, Buffering::Asked) => {
                // A chunk where a buffered body was asked for: the filter did not switch modes.
                let detail = "this body is read whole (its type is read as fields), and the \
                              ext_proc filter streamed it: set allow_mode_override: true";
                let problem = Problem::new(ProblemKind::BadBody, detail);
                return Some(self.refused(started, problem, None).await);
            }
        };
        request.body = body.into();
        let charge = self.state.budget.empty();
        let cost = (request.body.len() as u64).saturating_mul(EVALUATION_FACTOR);
        if let Err(problem) = charge.cover(cost).await {
            return Some(self.refused(started, problem, None).await);
        }
        let (answer, _) = self.decide(started, request, Some(&charge), phase).await;
        Some(answer)
    }

    /// A body checked as it streams past (`duplex`: utf8gate sends the body on itself), after
    /// its head was judged alone. `None` when the stream ended first or Envoy left.
    async fn streamed(
        &self,
        talk: &mut Talk,
        started: &Started,
        mut request: Request,
        duplex: bool,
    ) -> Option<ProcessingResponse> {
        request.body_state = BodyState::Streamed;
        let head = Request {
            headers: request.headers.clone(),
            ..Request::new(&request.method, b"/")
        };
        let declared = request.header_value("content-length").and_then(|v| {
            let v = std::str::from_utf8(v).ok()?;
            v.trim().parse::<u64>().ok()
        });
        let (answer, route) = self.decide(started, request, None, Phase::Headers).await;
        let route = match route {
            Some(route) if !reply::is_refusal(&answer) => route,
            _ => return Some(answer),
        };
        if !talk.send(answer).await {
            return None;
        }
        let max_scan = started.snapshot.config.max_scan_bytes;
        let mut scan = BodyScan::for_body_of(&route.profile, &head, max_scan);
        if let Some(length) = declared {
            scan.expect_len(length);
        }
        let mut total = 0u64;
        let mut held: Vec<u8> = Vec::new();
        loop {
            let (ends, chunk, phase) = match talk.next().await? {
                (_, Message::RequestBody(b)) => (b.end_of_stream, b.body, Phase::Body),
                (_, Message::RequestTrailers(_)) => (true, Vec::new(), Phase::Trailers),
                (_, other) => {
                    talk.send(reply::go_on(&other)).await;
                    continue;
                }
            };
            total += chunk.len() as u64;
            if total > max_scan {
                let problem = Problem::too_large(max_scan);
                return Some(self.refused(started, problem, Some(&route)).await);
            }
            // A chunk is held twice while it is read (tonic's buffer and the message): charged
            // so, until the next one arrives.
            let cost = (chunk.len() as u64).saturating_mul(2);
            let _held = match self.state.budget.charge(cost).await {
                Ok(charge) => charge,
                Err(problem) => return Some(self.refused(started, problem, Some(&route)).await),
            };
            scan.feed(&chunk);
            if ends || scan.settled() {
                // Counted and logged again, as the body's own verdict, when it refuses.
                let passed = started.snapshot.gate.streamed(scan.finish(), &route);
                if let Some(passed) = passed {
                    return Some(self.answered(started, passed, phase).await);
                }
                held.extend_from_slice(&chunk);
                let answer = match (duplex, phase) {
                    (true, Phase::Body) => reply::streamed_on(held, ends),
                    _ => phase.answer(Default::default()),
                };
                if !ends && duplex {
                    if talk.send(answer).await {
                        echo(talk).await;
                    }
                    return None;
                }
                return Some(answer);
            }
            let answer = match duplex {
                false => Phase::Body.answer(Default::default()),
                true => {
                    held.extend_from_slice(&chunk);
                    let rest = held.split_off(head::complete_prefix(&held));
                    reply::streamed_on(std::mem::replace(&mut held, rest), false)
                }
            };
            if !talk.send(answer).await {
                return None;
            }
        }
    }

    /// Judges `request` (its body in it, charged as `charge`) under its route, and answers at
    /// `phase`: the mutations of a sanitize, `utf8gate-decision`, or an immediate refusal. The
    /// route is handed back unless the request was refused before a verdict.
    async fn decide(
        &self,
        started: &Started,
        request: Request,
        charge: Option<&Charge>,
        phase: Phase,
    ) -> (ProcessingResponse, Option<Arc<Route>>) {
        let empty;
        let charge = match charge {
            Some(c) => c,
            None => {
                empty = self.state.budget.empty();
                &empty
            }
        };
        match judge(&started.snapshot, request, charge, Use::ExtProc).await {
            Judged::Refused(problem, route) => {
                let answer = self.refused(started, problem, route.as_deref()).await;
                (answer, route)
            }
            Judged::Passed(passed, route) => {
                let answer = self.answered(started, *passed, phase).await;
                (answer, Some(route))
            }
        }
    }

    /// The answer of the gate's `passed`, its metrics recorded and its audit line written.
    async fn answered(
        &self,
        started: &Started,
        mut passed: Passed,
        phase: Phase,
    ) -> ProcessingResponse {
        let received = std::mem::take(&mut passed.request);
        let decision = passed.decision.as_str();
        let (outcome, record) = passed.into_parts();
        let style = record
            .route
            .as_ref()
            .map_or(started.snapshot.config.errors, |r| r.errors);
        let (answer, status) = match outcome {
            Outcome::Refuse(problem) => {
                let status = problem.status.as_u16();
                let format = format_of(style, &started.accept);
                let rendered = render(problem, &started.id, style, format).await;
                (reply::refused(rendered, "utf8gate_rejected"), status)
            }
            Outcome::Rewritten(sanitized) => {
                let common = reply::rewritten(&received, sanitized, decision, phase);
                (phase.answer(common), 200)
            }
            Outcome::Forward | Outcome::Report(_) => {
                (phase.answer(reply::unchanged(decision)), 200)
            }
        };
        let seconds = started.at.elapsed().as_secs_f64();
        self.state.metrics.observe(record.mode, seconds);
        crate::ops::audit::write(&record, &started.id, status, seconds);
        answer
    }

    /// The immediate response of a request refused before a verdict (under `route` when one
    /// was chosen), counted `refused` and written to the audit log.
    async fn refused(
        &self,
        started: &Started,
        problem: Problem,
        route: Option<&Route>,
    ) -> ProcessingResponse {
        let style = route.map_or(started.snapshot.config.errors, |r| r.errors);
        let seconds = started.at.elapsed().as_secs_f64();
        let name = route.map(|r| r.name.as_str());
        let (metrics, id) = (&self.state.metrics, started.id.as_str());
        count_refused(metrics, Mode::ExtProc, name, &problem, id, seconds);
        let format = format_of(style, &started.accept);
        let rendered = render(problem, &started.id, style, format).await;
        reply::refused(rendered, "utf8gate_refused")
    }
}
