//! The edits that take a received request to the one the sanitizer wrote.

use utf8gate_policy::answer::DECISION_HEADER;
use utf8gate_policy::{Decision, Request};

use super::{Edits, Exchange};

impl Exchange {
    /// What changed from the request received to `sanitized`: `:path`, each header name whose
    /// values changed (`Host` as `:authority` when it came as that), the body with a true
    /// `Content-Length` when the request has one, and `utf8gate-decision: sanitize`.
    pub(super) fn edits(&self, sanitized: Request) -> Edits {
        let received = &self.request;
        let mut edits = Edits::default();
        let target = |r: &Request| match &r.query {
            Some(q) => [&r.path[..], b"?", q].concat(),
            None => r.path.clone(),
        };
        let after = target(&sanitized);
        if target(received) != after {
            edits.headers.push((":path".to_string(), vec![after]));
        }
        let mut names: Vec<&str> = sanitized.headers.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        for name in names {
            let values = |r: &Request| -> Vec<Vec<u8>> {
                let of = r.headers.iter().filter(|(k, _)| k == name);
                of.map(|(_, v)| v.clone()).collect()
            };
            let now = values(&sanitized);
            if values(received) != now {
                let name = match (name, self.host_from_authority) {
                    ("host", true) => ":authority",
                    (name, _) => name,
                };
                edits.headers.push((name.to_string(), now));
            }
        }
        if received.body != sanitized.body {
            if received.header_value("content-length").is_some() {
                let length = sanitized.body.len().to_string().into_bytes();
                edits.headers.retain(|(k, _)| k != "content-length");
                edits
                    .headers
                    .push(("content-length".to_string(), vec![length]));
            }
            edits.body = Some(Vec::from(sanitized.body));
        }
        let decision = Decision::Sanitize.as_str().as_bytes().to_vec();
        edits
            .headers
            .push((DECISION_HEADER.to_string(), vec![decision]));
        edits
    }
}
