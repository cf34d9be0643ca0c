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
/// front). Over the limit (its own, or that of a [`Limited`] body) it is
/// [`Problem::too_large`]; a body that fails otherwise is [`Problem::bad_body`]; one the budget
/// cannot hold is [`Problem::busy`]. Hold the returned [`Charge`] as long as the bytes.
pub async fn read_whole<B>(
    mut body: B,
    limit: usize,
    budget: &Budget,
) -> Result<(Vec<u8>, Charge), Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut out = Buffer::new(budget, limit);
    out.declare(body.size_hint().lower()).await?;
    // A `loop`, not `while let`: the frame's error (which may not be `Send`) must not live
    // across the await of the budget.
    loop {
        let frame = match body.frame().await {
            None => break,
            Some(Ok(frame)) => frame,
            Some(Err(e)) => return Err(problem_of(e.into(), limit)),
        };
        if let Ok(data) = frame.into_data() {
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
