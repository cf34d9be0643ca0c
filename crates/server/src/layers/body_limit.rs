//! The listener's body limit: a declared `Content-Length` over it is refused (413) before a
//! byte of the body is read; any other body is wrapped in `http_body_util::Limited`, so that
//! reading past the limit fails (and [`read_whole`] makes that failure a 413 too). A request's
//! route (`layers::route`) may set its own limit.

use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::layers::on_response::Answer;
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
        let limit = match request.extensions().get::<Choice>() {
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
/// appended as they arrive). Over the limit (its own, or that of a [`Limited`] body) it is
/// [`Problem::too_large`]; a body that fails otherwise is [`Problem::bad_body`].
pub async fn read_whole<B>(mut body: B, limit: usize) -> Result<Vec<u8>, Problem>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let declared = body.size_hint().lower();
    if declared > limit as u64 {
        return Err(Problem::too_large(limit as u64));
    }
    let mut out = Vec::with_capacity(declared as usize);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            if over_limit(&*e.into()) {
                Problem::too_large(limit as u64)
            } else {
                Problem::bad_body()
            }
        })?;
        if let Ok(data) = frame.into_data() {
            if data.len() > limit - out.len() {
                return Err(Problem::too_large(limit as u64));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
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
