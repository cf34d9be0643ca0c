//! The explain page (`GET /explain`, its script and style sheet, served from the binary when
//! `[explain] enabled`) and the `explain` option of `/v1/scan`: the verdict of a text scanned
//! in a chosen location class ([`wrap`]), with the text, where each finding sits in it, a hex
//! window around each, and the text as `/v1/sanitize` would answer it.
//!
//! The page never writes untrusted text as markup: its script builds nodes with
//! `textContent`, and the page is served with a Content-Security-Policy that allows only its
//! own script, style sheet and requests to its own origin.

use axum::Router;
use axum::extract::{FromRequestParts, Query};
use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::{Deserialize, Serialize};
use utf8gate_policy::{Decision, Profile, Verdict};

use crate::gate::Outcome;
use crate::listen::layers::body_limit::read_whole;
use crate::problem::{Problem, ProblemKind};
use crate::state::{AppState, Snapshot};
pub use wrap::Class;

pub mod wrap;

/// The page's Content-Security-Policy: its own script, style sheet and requests only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'none'";

const PAGE: &str = include_str!("explain/page.html");
const SCRIPT: &str = include_str!("explain/page.js");
const STYLE: &str = include_str!("explain/page.css");

/// The page's routes: `/explain`, `/explain/page.js`, `/explain/page.css`.
pub fn routes<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    let serve = |media_type: &'static str, text: &'static str| {
        get(move || async move { served(media_type, text) })
    };
    router
        .route("/explain", serve("text/html; charset=utf-8", PAGE))
        .route(
            "/explain/page.js",
            serve("text/javascript; charset=utf-8", SCRIPT),
        )
        .route("/explain/page.css", serve("text/css; charset=utf-8", STYLE))
}

fn served(media_type: &'static str, text: &'static str) -> Response {
    let mut response = text.into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, media_type),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-cache"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// `?explain=true&location=body|form|json` of `/v1/scan`.
#[derive(Debug, Default, Deserialize)]
pub struct ExplainParam {
    #[serde(default)]
    explain: bool,
    /// Read only with `explain=true`.
    #[serde(default)]
    location: Class,
}

impl ExplainParam {
    /// The location class to explain the body in, if `explain=true`.
    pub fn class(&self) -> Option<Class> {
        self.explain.then_some(self.location)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ExplainParam {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        match Query::<ExplainParam>::from_request_parts(parts, state).await {
            Ok(Query(p)) => Ok(p),
            Err(e) => Err(Problem::new(ProblemKind::BadQuery, e.body_text())),
        }
    }
}

/// What `explain=true` adds to the verdict (`explain` in the answer).
#[derive(Debug, Serialize)]
pub struct Explain {
    /// The class the text was scanned in.
    pub location: Class,
    /// The text (the request body, as sent), base64.
    pub text_base64: String,
    /// Where each listed finding of the text's field sits in it.
    pub marks: Vec<wrap::Mark>,
    /// The text as `/v1/sanitize` answers it (rewritten when sanitized, as sent when
    /// allowed or in monitor mode), base64; `null` when the rejection is enforced (422).
    pub sanitized_base64: Option<String>,
}

#[derive(Serialize)]
struct Explained<'a> {
    #[serde(flatten)]
    verdict: &'a Verdict,
    explain: Explain,
}

/// `POST /v1/scan?explain=true`: the body is the text itself (at most
/// `explain.max_text_bytes`; its content type is not read, a content coding is refused),
/// scanned in `class`.
pub async fn scan(
    state: &AppState,
    snapshot: &Snapshot,
    profile: &Profile,
    class: Class,
    request: axum::extract::Request,
) -> Result<Response, Problem> {
    let (parts, body) = request.into_parts();
    if parts.headers.contains_key(header::CONTENT_ENCODING) {
        let detail = "explain reads the body as the text itself: send it without Content-Encoding";
        return Err(Problem::new(ProblemKind::BadBody, detail));
    }
    let limit = snapshot.config.explain_max_text_bytes;
    let (text, charge) = read_whole(body, limit, &state.budget).await?;
    let upload = wrap::upload(class, &text);
    let (passed, sanitized) = snapshot.gate.explain(profile, upload, &charge).await?;
    let Outcome::Report(verdict) = &passed.outcome else {
        return Ok(StatusCode::INTERNAL_SERVER_ERROR.into_response());
    };
    let refused = verdict.decision == Decision::Reject && verdict.enforced;
    let sanitized = match sanitized {
        _ if refused => None,
        Some(upload) => wrap::text_of(class, &upload.body),
        None => Some(text.to_vec()),
    };
    let explained = Explained {
        verdict,
        explain: Explain {
            location: class,
            marks: wrap::marks(class, &text, &verdict.findings),
            text_base64: wrap::base64(&text),
            sanitized_base64: sanitized.map(|s| wrap::base64(&s)),
        },
    };
    let response = (StatusCode::OK, axum::Json(explained)).into_response();
    Ok(passed.answered(response))
}
