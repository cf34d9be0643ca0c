//! The answers of one `ext_proc` stream, produced by its conversation as the response stream
//! is polled: no task of its own and no channel. The conversation (an `async fn`) runs inside
//! [`Conversation::poll_next`]; an answer it sends is put in a slot, and the conversation
//! pauses once ([`Answers::put`]) so that the answer goes out before it reads on. Measured
//! against a spawned task and a channel: each answer crossed from one task to another, and the
//! kernel's task switches doubled under load (docs/BENCHMARKS.md, "Envoy ext_proc").

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use envoy_types::pb::envoy::service::ext_proc::v3::ProcessingResponse;
use tonic::codegen::tokio_stream::Stream;

/// An answer, or the error status that ends the stream.
type Answer = Result<ProcessingResponse, tonic::Status>;

/// Where the conversation puts its answers for the response stream to take.
#[derive(Clone, Default)]
pub(super) struct Answers(Arc<Mutex<VecDeque<Answer>>>);

impl Answers {
    /// Puts `answer` out, then pauses the conversation once, so that the response stream
    /// hands it on before the conversation goes on.
    pub(super) async fn put(&self, answer: Answer) {
        self.lock().push_back(answer);
        Pause(false).await;
    }

    fn take(&self) -> Option<Answer> {
        self.lock().pop_front()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Answer>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Pending once, ready after: the response stream, which polls the conversation, sees the
/// answer put and returns it; its next poll resumes the conversation.
struct Pause(bool);

impl Future for Pause {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        Poll::Pending
    }
}

/// The response stream: the answers of a conversation, polled in place.
pub struct Conversation {
    talk: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    answers: Answers,
}

impl Conversation {
    /// The stream of the answers `talk` puts into `answers`.
    pub(super) fn new(talk: Pin<Box<dyn Future<Output = ()> + Send>>, answers: Answers) -> Self {
        Conversation {
            talk: Some(talk),
            answers,
        }
    }
}

impl Stream for Conversation {
    type Item = Answer;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Answer>> {
        loop {
            if let Some(answer) = self.answers.take() {
                return Poll::Ready(Some(answer));
            }
            let Some(talk) = self.talk.as_mut() else {
                return Poll::Ready(None);
            };
            match talk.as_mut().poll(cx) {
                // Ended: whatever it put last is taken above, then the stream ends.
                Poll::Ready(()) => self.talk = None,
                // Paused with an answer put (taken above), or waiting for Envoy.
                Poll::Pending if self.answers.lock().is_empty() => return Poll::Pending,
                Poll::Pending => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers come out in order, each before the conversation goes on, and the stream ends
    /// when the conversation does.
    #[tokio::test]
    async fn answers_come_out_in_order_between_the_conversation_s_steps() {
        use tonic::codegen::tokio_stream::StreamExt;
        let answers = Answers::default();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (put, seen) = (answers.clone(), Arc::clone(&log));
        let talk = async move {
            for i in 0..3 {
                seen.lock().unwrap().push(format!("put {i}"));
                let answer = ProcessingResponse {
                    request_drain: i % 2 == 0,
                    ..Default::default()
                };
                put.put(Ok(answer)).await;
            }
            put.put(Err(tonic::Status::aborted("end"))).await;
        };
        let mut stream = Conversation::new(Box::pin(talk), answers);
        let mut got = Vec::new();
        while let Some(answer) = stream.next().await {
            log.lock().unwrap().push("taken".to_string());
            got.push(answer.map(|a| a.request_drain).map_err(|s| s.code()));
        }
        let ok = |b| Ok::<bool, tonic::Code>(b);
        assert_eq!(
            got,
            [ok(true), ok(false), ok(true), Err(tonic::Code::Aborted)]
        );
        let log = log.lock().unwrap().clone();
        assert_eq!(
            log,
            [
                "put 0", "taken", "put 1", "taken", "put 2", "taken", "taken"
            ]
        );
    }
}
