//! One request's conversation with the host, as values: the head read from the host's header
//! list, the body awaited while the host buffers it, and the [`Decided`] outcome the host
//! carries out (go on, go on with [`Edits`], or a local reply). No host call is made here.
//!
//! A proxy-wasm host lets a filter change a request's head only before the head goes on, and
//! gives it the body only after (Envoy: a filter that holds the head is not given the body).
//! So a request with a body is decided twice: its head alone when it arrives (refused there,
//! or its head edits made there), then the whole request at the body's end, whose verdict
//! stands; a head edit that only the whole request asks for cannot be made then, and such a
//! request is refused, as is a sanitized body of another length under `body_rewrite =
//! "refuse"` (see [`settings`](crate::settings)).

use utf8gate_policy::answer::{Answer, DECISION_HEADER, PROBLEM_JSON, REJECTED};
use utf8gate_policy::{BodyState, Decision, ListedHead, Request, Verdict};

use crate::settings::{BodyRewrite, OverLimit, Settings};

mod edits;

/// What the host does with the request.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Go on as received.
    Continue,
    /// Go on with these changes.
    Rewrite(Edits),
    /// Answer the client with this (`application/problem+json`), and send nothing upstream.
    Reply {
        /// The HTTP status.
        status: u16,
        /// The reply's headers.
        headers: Vec<(&'static str, String)>,
        /// The problem document.
        body: Vec<u8>,
    },
}

/// The changes a sanitize decision makes to the request.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Edits {
    /// Each header (or `:path`, `:authority`) to set, every value of its name replaced by
    /// these, in order; no values: removed.
    pub headers: Vec<(String, Vec<Vec<u8>>)>,
    /// The new body, when it changed (`Content-Length`, if the request has one, is in
    /// `headers`).
    pub body: Option<Vec<u8>>,
}

/// An outcome and what the host counts of it.
#[derive(Debug)]
pub struct Decided {
    /// What to do.
    pub outcome: Outcome,
    /// What the host counts: `allow`, `sanitize` or `reject` as the outcome does it (a
    /// sanitize that cannot be made is a reject), `too_large` for a body over the limit.
    pub decision: &'static str,
    /// The verdict, none for a body over the limit.
    pub verdict: Option<Verdict>,
}

/// What the head of a request with a body comes to.
#[derive(Debug)]
pub enum HeadStep {
    /// Decided at its head: a request without a body, or a head refused.
    Decided(Box<Decided>),
    /// Make these edits now and let the head go on; the body decides.
    Body(Box<Exchange>, Edits),
}

/// What to do with a piece of the body.
#[derive(Debug)]
pub enum BodyStep {
    /// Hold it: the host buffers the body until its end.
    Wait,
    /// Fetch the first `len` bytes of the buffered body and [`finish`](Exchange::finish):
    /// all of it, or (`cut`) the part a body over the limit is checked by.
    Read {
        /// How many bytes.
        len: usize,
        /// The body goes on beyond them.
        cut: bool,
    },
    /// Decided without reading it.
    Decided(Box<Decided>),
}

/// A request whose head has gone on and whose body is awaited.
#[derive(Debug)]
pub struct Exchange {
    request: Request,
    request_id: String,
    /// `Host` came from `:authority` (the list had no `Host`).
    host_from_authority: bool,
    /// The head edits made when it went on.
    made: Vec<(String, Vec<Vec<u8>>)>,
}

impl Exchange {
    /// Reads the head from the host's header list. With `end_of_stream` (no body) the request
    /// is decided now; otherwise its head alone is.
    pub fn head(
        settings: &Settings,
        list: Vec<(String, Vec<u8>)>,
        end_of_stream: bool,
    ) -> HeadStep {
        let head = ListedHead::read(list);
        let host_from_authority = !head.fields.iter().any(|(k, _)| k == "host");
        let request = head.into_request();
        let request_id = request.header_value("x-request-id").unwrap_or_default();
        let mut exchange = Exchange {
            request_id: String::from_utf8_lossy(request_id).into_owned(),
            host_from_authority,
            request,
            made: Vec::new(),
        };
        if end_of_stream {
            return HeadStep::Decided(Box::new(exchange.decide(settings)));
        }
        let mut alone = exchange.request.clone();
        alone.body_state = BodyState::Streamed;
        let answer = (settings.answering).answer(&settings.profile, &alone, &exchange.request_id);
        let mut edits = match answer {
            Answer::Refuse {
                verdict,
                status,
                document,
            } => return HeadStep::Decided(Box::new(refused(status, document, verdict))),
            Answer::Forward { sanitized, .. } => match sanitized {
                Some(sanitized) => exchange.edits(sanitized),
                None => Edits::default(),
            },
        };
        let framed = exchange.request.header_value("content-length").is_some();
        if settings.body_rewrite == BodyRewrite::Reframe && framed {
            edits
                .headers
                .push(("content-length".to_string(), Vec::new()));
        }
        exchange.made = edits.headers.clone();
        HeadStep::Body(Box::new(exchange), edits)
    }

    /// `body_size` bytes of the body are buffered; `end_of_stream` when it is all there (or
    /// trailers follow it).
    pub fn body(&self, settings: &Settings, body_size: usize, end_of_stream: bool) -> BodyStep {
        let limit = usize::try_from(settings.max_body_bytes).unwrap_or(usize::MAX);
        if body_size > limit {
            return match settings.over_limit {
                OverLimit::Pass => BodyStep::Read {
                    len: limit,
                    cut: true,
                },
                OverLimit::Refuse => BodyStep::Decided(Box::new(self.too_large(settings))),
            };
        }
        match end_of_stream {
            true => BodyStep::Read {
                len: body_size,
                cut: false,
            },
            false => BodyStep::Wait,
        }
    }

    /// Decides the request with `body` (its first bytes when `cut`): the body's edits only, the
    /// head's having been made.
    pub fn finish(mut self, settings: &Settings, body: Vec<u8>, cut: bool) -> Decided {
        self.request.body = body.into();
        if cut {
            self.request.body_state = BodyState::Cut;
        }
        let mut decided = self.decide(settings);
        let Outcome::Rewrite(edits) = &mut decided.outcome else {
            return decided;
        };
        let unframed = self
            .made
            .iter()
            .any(|(k, v)| k == "content-length" && v.is_empty());
        let framed = !unframed && self.request.header_value("content-length").is_some();
        // Its decision and Content-Length went on with the head; the length is judged below.
        edits
            .headers
            .retain(|(k, _)| k != DECISION_HEADER && k != "content-length");
        let late = edits.headers.iter().find(|e| !self.made.contains(e));
        let length_changed = edits.body.as_ref().map(Vec::len) != Some(self.request.body.len());
        let why = match (late, &edits.body) {
            (Some((name, _)), _) => format!("the whole request rewrites {name}, after its head went on"),
            (None, Some(_)) if cut => "the body was read only in part and cannot be rewritten".to_string(),
            (None, Some(_)) if length_changed && framed => "the sanitized body is of another length, and the Content-Length went on with the head (body_rewrite = \"refuse\")".to_string(),
            _ => {
                edits.headers.clear();
                return decided;
            }
        };
        let Some(verdict) = decided.verdict else {
            return decided;
        };
        let (answering, id) = (&settings.answering, &self.request_id);
        let status = answering.reject_status;
        let document = answering.document(REJECTED, status, &why, id, Some(&verdict));
        refused(status, document, verdict)
    }

    /// Decides the whole request.
    fn decide(&self, settings: &Settings) -> Decided {
        let answer =
            (settings.answering).answer(&settings.profile, &self.request, &self.request_id);
        match answer {
            Answer::Refuse {
                verdict,
                status,
                document,
            } => refused(status, document, verdict),
            Answer::Forward { verdict, sanitized } => {
                let outcome = match sanitized {
                    None => Outcome::Continue,
                    Some(sanitized) => Outcome::Rewrite(self.edits(sanitized)),
                };
                Decided {
                    outcome,
                    decision: verdict.decision.as_str(),
                    verdict: Some(verdict),
                }
            }
        }
    }

    fn too_large(&self, settings: &Settings) -> Decided {
        let document = (settings.answering).too_large(settings.max_body_bytes, &self.request_id);
        Decided {
            outcome: reply(413, document, "reject"),
            decision: "too_large",
            verdict: None,
        }
    }
}

fn refused(status: u16, document: Vec<u8>, verdict: Verdict) -> Decided {
    Decided {
        outcome: reply(status, document, "reject"),
        decision: Decision::Reject.as_str(),
        verdict: Some(verdict),
    }
}

fn reply(status: u16, body: Vec<u8>, decision: &str) -> Outcome {
    Outcome::Reply {
        status,
        headers: vec![
            ("content-type", PROBLEM_JSON.to_string()),
            (DECISION_HEADER, decision.to_string()),
        ],
        body,
    }
}

#[cfg(test)]
mod tests;
