//! One `ext_proc` stream as the conversation reads it: the next message with something in
//! it, an answer sent (none in `observability_mode`), what follows the decision of a
//! full-duplex stream (every body chunk sent on as it came), and how a buffered body was asked
//! for ([`Buffering`]).

use super::answers::Answers;
use super::reply;
use envoy_types::pb::envoy::service::ext_proc::v3::{
    ProcessingRequest, ProcessingResponse, processing_request::Request as Message,
};

/// One stream: the messages Envoy sends and the answers to them.
pub(super) struct Talk {
    pub(super) incoming: tonic::Streaming<ProcessingRequest>,
    pub(super) out: Answers,
    /// `observability_mode`: Envoy expects no answer.
    pub(super) observing: bool,
    /// The request's decision was answered (a full-duplex stream read to its end): Envoy
    /// resetting the stream once the request is done is no failure.
    pub(super) decided: bool,
}

impl Talk {
    /// The next message with something in it; `None` when the stream ended or failed. A
    /// failed stream is answered with an error status, never a clean end: Envoy goes on
    /// without the processor after a clean end, with an error it fails closed.
    pub(super) async fn next(&mut self) -> Option<(ProcessingRequest, Message)> {
        loop {
            let mut message = match self.incoming.message().await {
                Ok(message) => message?,
                Err(_) if self.decided => return None,
                Err(status) => {
                    tracing::warn!(error = %status, "an ext_proc stream failed");
                    self.out.put(Err(status)).await;
                    return None;
                }
            };
            self.observing |= message.observability_mode;
            if let Some(m) = message.request.take() {
                return Some((message, m));
            }
        }
    }

    /// Sends `answer` (`true`: a conversation whose stream is gone is dropped, never resumed).
    pub(super) async fn send(&self, answer: ProcessingResponse) -> bool {
        if !self.observing {
            self.out.put(Ok(answer)).await;
        }
        true
    }
}

/// Sends every body chunk left on as it came (a full-duplex stream whose verdict is settled),
/// then answers the rest "go on".
pub(super) async fn echo(talk: &mut Talk) {
    talk.decided = true;
    while let Some((_, message)) = talk.next().await {
        let answer = match message {
            Message::RequestBody(b) => reply::streamed_on(b.body, b.end_of_stream),
            other => reply::go_on(&other),
        };
        if !talk.send(answer).await {
            return;
        }
    }
}

/// How a buffered body was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Buffering {
    /// The filter's mode is `BUFFERED`: the body comes whole, in one message.
    Configured,
    /// `BUFFERED_PARTIAL`: a message without `end_of_stream` is cut.
    Partial,
    /// The filter streams, and utf8gate asked for `BUFFERED` (`mode_override`): a message
    /// without `end_of_stream` says the filter did not switch.
    Asked,
}
