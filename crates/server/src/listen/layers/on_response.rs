//! The response futures the layers share: the inner service's future, then a [`Hook`] run on
//! its response (or dropped with the future when the client goes away first); and [`Answer`],
//! the inner service's future or a response given at once.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::response::Response;

/// What a layer does with a response once it is ready.
pub trait Hook {
    /// Runs on the response.
    fn on_response(self, response: &mut Response);
}

pin_project_lite::pin_project! {
    /// The inner future, then the hook.
    pub struct OnResponse<F, H> {
        #[pin]
        inner: F,
        hook: Option<H>,
    }
}

impl<F, H> OnResponse<F, H> {
    /// `inner`, then `hook` on its response.
    pub fn new(inner: F, hook: H) -> OnResponse<F, H> {
        OnResponse {
            inner,
            hook: Some(hook),
        }
    }
}

impl<F, H, E> Future for OnResponse<F, H>
where
    F: Future<Output = Result<Response, E>>,
    H: Hook,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = std::task::ready!(this.inner.poll(cx))?;
        if let Some(hook) = this.hook.take() {
            hook.on_response(&mut response);
        }
        Poll::Ready(Ok(response))
    }
}

pin_project_lite::pin_project! {
    /// A response given at once, or the inner service's future.
    pub struct Answer<F> {
        #[pin]
        inner: Option<F>,
        now: Option<Response>,
    }
}

impl<F> Answer<F> {
    /// The inner service's future.
    pub fn later(inner: F) -> Answer<F> {
        Answer {
            inner: Some(inner),
            now: None,
        }
    }

    /// `response`, without calling the inner service.
    pub fn now(response: Response) -> Answer<F> {
        Answer {
            inner: None,
            now: Some(response),
        }
    }
}

impl<F, E> Future for Answer<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Some(response) = this.now.take() {
            return Poll::Ready(Ok(response));
        }
        match this.inner.as_pin_mut() {
            Some(inner) => inner.poll(cx),
            None => Poll::Pending,
        }
    }
}
