//! The listener's body limit: a declared `Content-Length` over it is refused (413) before a
//! byte of the body is read; any other body is wrapped in `http_body_util::Limited`, so that
//! reading past the limit fails (and [`read_whole`] makes that failure a 413 too). A request's
//! route (chosen by `layers::snapshot`) may set its own limit. [`read_whole`] charges what it
//! buffers to the memory budget (`crate::budget`).

use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::budget::{Budget, Buffer, Charge};
use crate::listen::carried::Carried;
use crate::listen::layers::on_response::Answer;
use crate::problem::Problem;
use crate::routes::Choice;

/// Limits request bodies to a number of bytes.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimitLayer(pub u64);

impl<S> tower::Layer<S> for BodyLimitLayer {
    type Service = BodyLimit<S>;
    fn layer(&self, inner: S) -> BodyLimit<S> {
        BodyLimit {
            inner,
            limit: self.0,
        }
    }
}

/// The service of [`BodyLimitLayer`].
#[derive(Clone, Debug)]
pub struct BodyLimit<S> {
    inner: S,
    limit: u64,
}

impl<S, B> tower::Service<Request<B>> for BodyLimit<S>
where
    S: tower::Service<Request<Limited<B>>, Response = Response>,
    B: hyper::body::Body,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // A route's own limit replaces the listener's.
        let limit = match Carried::choice(request.extensions()) {
            Some(Choice::Route(route)) => route.max_body_bytes,
            _ => self.limit,
        };
        // The declared length, as the HTTP parser read it from `Content-Length`.
        let declared = request.body().size_hint().lower();
        if declared > limit {
            return Answer::now(Problem::too_large(limit).into_response());
        }
        // Bodies over usize::MAX cannot be buffered anyway.
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        Answer::later(self.inner.call(request.map(|b| Limited::new(b, limit))))
    }
}

/// Reads a whole body, up to `limit` bytes, into one buffer (the only copy: frames are
/// appended as they arrive), charged to `budget` before it is allocated (a declared length up
/// front). A body that arrives in one frame (most bodies the connection has read whole) is
/// kept as that frame, without a copy. Over the limit (its own, or that of a [`Limited`] body) it is
/// [`Problem::too_large`]; a body that fails otherwise is [`Problem::bad_body`]; one the budget
/// cannot hold is [`Problem::busy`]. Hold the returned [`Charge`] as long as the bytes.
pub async fn read_whole<B>(
    body: B,
    limit: usize,
    budget: &Budget,
) -> Result<(Bytes, Charge), Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    read_whole_after(Arrived::Nothing, body, limit, budget).await
}

/// What of a body had arrived when it was first looked at ([`arrived`]).
pub enum Arrived {
    /// All of it: its last frame was read (an empty body too).
    Whole(Bytes),
    /// Its first data; more is to come.
    Part(Bytes),
    /// Nothing yet.
    Nothing,
}

/// What of `body` has arrived, read without waiting: one poll with a waker that does nothing
/// (the next poll that waits registers its own). A body over `limit` or that fails is its
/// problem, as [`read_whole`] reports it.
pub fn arrived<B>(body: &mut B, limit: usize) -> Result<Arrived, Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if body.is_end_stream() {
        return Ok(Arrived::Whole(Bytes::new()));
    }
    let mut cx = Context::from_waker(std::task::Waker::noop());
    match std::pin::Pin::new(&mut *body).poll_frame(&mut cx) {
        Poll::Pending => Ok(Arrived::Nothing),
        Poll::Ready(None) => Ok(Arrived::Whole(Bytes::new())),
        Poll::Ready(Some(Err(e))) => Err(problem_of(e.into(), limit)),
        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
            Ok(data) if body.is_end_stream() => Ok(Arrived::Whole(data)),
            Ok(data) => Ok(Arrived::Part(data)),
            // Trailers first: no data; the rest is read as `read_whole` reads it.
            Err(_) => Ok(Arrived::Nothing),
        },
    }
}

/// [`read_whole`] of a body of which `arrived` was already taken ([`arrived`]).
pub async fn read_whole_after<B>(
    arrived: Arrived,
    mut body: B,
    limit: usize,
    budget: &Budget,
) -> Result<(Bytes, Charge), Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut out = Buffer::new(budget, limit);
    let rest = body.size_hint().lower();
    match arrived {
        Arrived::Whole(data) => return out.whole(data).await,
        Arrived::Part(data) => {
            out.declare(rest.saturating_add(data.len() as u64)).await?;
            out.extend(&data).await?;
        }
        Arrived::Nothing => out.declare(rest).await?,
    }
    // A `loop`, not `while let`: the frame's error (which may not be `Send`) must not live
    // across the await of the budget.
    loop {
        let frame = match body.frame().await {
            None => break,
            Some(Ok(frame)) => frame,
            Some(Err(e)) => return Err(problem_of(e.into(), limit)),
        };
        if let Ok(data) = frame.into_data() {
            if out.is_empty() && body.is_end_stream() {
                return out.whole(data).await;
            }
            out.extend(&data).await?;
        }
    }
    Ok(out.into_parts())
}

/// The problem of a body that failed to read: over the limit, or not readable.
fn problem_of(error: Box<dyn std::error::Error + Send + Sync>, limit: usize) -> Problem {
    match over_limit(&*error) {
        true => Problem::too_large(limit as u64),
        false => Problem::bad_body(),
    }
}

/// Whether a body's error is (or wraps) [`Limited`]'s: the body went past the limit.
pub fn over_limit(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut error = Some(error);
    while let Some(e) = error {
        if e.is::<LengthLimitError>() {
            return true;
        }
        error = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    use bytes::Bytes;
    use hyper::body::Frame;
    use prometheus::{IntCounter, IntGauge};

    use super::read_whole;
    use crate::budget::{Budget, EVALUATION_FACTOR};

    fn budget() -> Budget {
        let charged = IntGauge::new("charged", "charged").expect("a gauge");
        let refusals = IntCounter::new("refusals", "refusals").expect("a counter");
        Budget::new(1 << 20, Duration::ZERO, charged, refusals)
    }

    /// A body sent as these frames, its length not declared.
    struct Frames(VecDeque<Bytes>);

    impl hyper::body::Body for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.pop_front().map(|b| Ok(Frame::data(b))))
        }

        fn is_end_stream(&self) -> bool {
            self.0.is_empty()
        }
    }

    #[tokio::test]
    async fn a_body_of_one_frame_is_kept_as_received_and_charged() {
        let sent = Bytes::from(vec![b'a'; 5000]);
        let budget = budget();
        let one = Frames(VecDeque::from([sent.clone()]));
        let (read, charge) = read_whole(one, 5000, &budget).await.expect("read");
        assert_eq!(read.as_ptr(), sent.as_ptr(), "the frame itself, not a copy");
        assert_eq!(read, sent);
        assert!(charge.bytes() >= 5000 * EVALUATION_FACTOR);
        // Over the limit, it is refused as a body of many frames is.
        let over = read_whole(Frames(VecDeque::from([sent])), 4999, &budget).await;
        assert_eq!(over.err().map(|p| p.status.as_u16()), Some(413));
    }

    #[tokio::test]
    async fn a_body_of_many_frames_is_read_into_one_buffer() {
        let (a, b) = (Bytes::from(vec![b'a'; 3000]), Bytes::from(vec![b'b'; 2000]));
        let two = Frames(VecDeque::from([a.clone(), b.clone()]));
        let (read, charge) = read_whole(two, 5000, &budget()).await.expect("read");
        assert_eq!(read, [a, b].concat());
        assert!(charge.bytes() >= 5000 * EVALUATION_FACTOR);
        let over = Frames(VecDeque::from([
            Bytes::from(vec![0; 3000]),
            Bytes::from(vec![0; 3000]),
        ]));
        let over = read_whole(over, 5000, &budget()).await;
        assert_eq!(over.err().map(|p| p.status.as_u16()), Some(413));
    }
}
