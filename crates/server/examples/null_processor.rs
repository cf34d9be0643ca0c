//! The floor of the out-of-process checks in `bench/envoy.sh`: an Envoy `ext_authz` (gRPC) and
//! `ext_proc` server that reads nothing and allows everything, on the same pieces as utf8gate's
//! gRPC listener (tonic, `envoy-types`, tokio's multi-threaded runtime, `TCP_NODELAY`).
//!
//! A check is answered OK. An `ext_proc` stream has each message answered `CONTINUE` as it
//! arrives, and ends cleanly after the one that ends the request (headers or body with
//! `end_of_stream`), as utf8gate ends a stream once the request is decided. What Envoy and
//! gRPC cost around a check, with no check at all: no out-of-process way can be faster than
//! this on the same machine. Not part of the product.
//!
//! Usage: `null_processor LISTEN_ADDR`, e.g. `null_processor 127.0.0.1:18405`.

use std::pin::Pin;
use std::task::{Context, Poll};

use envoy_types::ext_authz::v3::pb::{
    Authorization, AuthorizationServer, CheckRequest, CheckResponse,
};
use envoy_types::pb::envoy::service::ext_proc::v3::external_processor_server::{
    ExternalProcessor, ExternalProcessorServer,
};
use envoy_types::pb::envoy::service::ext_proc::v3::processing_request::Request as Message;
use envoy_types::pb::envoy::service::ext_proc::v3::processing_response::Response as Answer;
use envoy_types::pb::envoy::service::ext_proc::v3::{
    BodyResponse, HeadersResponse, ProcessingRequest, ProcessingResponse, TrailersResponse,
};
use envoy_types::pb::google::rpc::Status;
use tonic::codegen::tokio_stream::Stream;

/// Allows every check and continues every message, unread.
#[derive(Clone, Copy)]
struct Null;

#[tonic::async_trait]
impl Authorization for Null {
    async fn check(
        &self,
        _: tonic::Request<CheckRequest>,
    ) -> Result<tonic::Response<CheckResponse>, tonic::Status> {
        Ok(tonic::Response::new(CheckResponse {
            status: Some(Status::default()),
            ..CheckResponse::default()
        }))
    }
}

/// The answers of one stream: one per message, none after the request's end.
struct Continue {
    messages: tonic::Streaming<ProcessingRequest>,
    ended: bool,
}

impl Stream for Continue {
    type Item = Result<ProcessingResponse, tonic::Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let message = match Pin::new(&mut self.messages).poll_next(cx) {
            Poll::Ready(Some(Ok(message))) => message,
            Poll::Ready(Some(Err(status))) => return Poll::Ready(Some(Err(status))),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => return Poll::Pending,
        };
        let (answer, ends) = match message.request {
            Some(Message::RequestHeaders(h)) => (
                Answer::RequestHeaders(HeadersResponse::default()),
                h.end_of_stream,
            ),
            Some(Message::RequestBody(b)) => (
                Answer::RequestBody(BodyResponse::default()),
                b.end_of_stream,
            ),
            Some(Message::RequestTrailers(_)) => {
                (Answer::RequestTrailers(TrailersResponse::default()), true)
            }
            Some(Message::ResponseHeaders(_)) => {
                (Answer::ResponseHeaders(HeadersResponse::default()), false)
            }
            Some(Message::ResponseBody(_)) => {
                (Answer::ResponseBody(BodyResponse::default()), false)
            }
            Some(Message::ResponseTrailers(_)) => {
                (Answer::ResponseTrailers(TrailersResponse::default()), false)
            }
            None => return Poll::Ready(Some(Err(tonic::Status::invalid_argument("empty")))),
        };
        self.ended = ends;
        Poll::Ready(Some(Ok(ProcessingResponse {
            response: Some(answer),
            ..ProcessingResponse::default()
        })))
    }
}

#[tonic::async_trait]
impl ExternalProcessor for Null {
    type ProcessStream = Continue;

    async fn process(
        &self,
        request: tonic::Request<tonic::Streaming<ProcessingRequest>>,
    ) -> Result<tonic::Response<Continue>, tonic::Status> {
        Ok(tonic::Response::new(Continue {
            messages: request.into_inner(),
            ended: false,
        }))
    }
}

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .expect("usage: null_processor LISTEN_ADDR");
    let socket = tokio::net::TcpListener::bind(&addr)
        .await
        .expect("a free address to listen on");
    let incoming = tonic::transport::server::TcpIncoming::from(socket).with_nodelay(Some(true));
    let unlimited = 64 << 20;
    tonic::transport::Server::builder()
        .add_service(AuthorizationServer::new(Null).max_decoding_message_size(unlimited))
        .add_service(ExternalProcessorServer::new(Null).max_decoding_message_size(unlimited))
        .serve_with_incoming(incoming)
        .await
        .expect("the server runs until it is stopped");
}
