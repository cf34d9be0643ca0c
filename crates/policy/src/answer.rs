//! What a verdict answers, for every embedding that forwards or refuses a request itself: the
//! server's listeners, the proxy-wasm filter and the tower layer. A refusal is an RFC 9457
//! `application/problem+json` document ([`ProblemDocument`]) with the status
//! [`reject_status`] chooses; a request that goes on carries its decision in
//! [`DECISION_HEADER`]. No transport types: statuses are numbers, headers names and bytes.

use serde::Serialize;

use crate::decide::verdict::{Decision, Verdict};
use crate::evaluate::evaluate;
use crate::finding::{Action, FindingKind};
use crate::profile::Profile;
use crate::request::Request;

/// The media type of problem details (RFC 9457 §3).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// `utf8gate-decision`: allow, sanitize or reject, on a request sent on after its check.
pub const DECISION_HEADER: &str = "utf8gate-decision";

/// The prefix of every problem type: `urn:utf8gate:problem:{slug}`.
pub const PROBLEM_TYPE_PREFIX: &str = "urn:utf8gate:problem:";

/// A problem's type slug and title (the rows of the server's problem table that every
/// embedding answers too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProblemType {
    /// The slug of its type URI.
    pub slug: &'static str,
    /// Its title.
    pub title: &'static str,
}

/// The policy rejected the request.
pub const REJECTED: ProblemType = ProblemType {
    slug: "rejected",
    title: "Request rejected by utf8gate",
};

/// The body is over the limit (413).
pub const BODY_TOO_LARGE: ProblemType = ProblemType {
    slug: "body-too-large",
    title: "Body too large",
};

/// The JSON body of a problem: RFC 9457 members, then utf8gate's. `detail` and `verdict` are
/// left out when the errors' detail is minimal.
#[derive(Debug, Serialize)]
pub struct ProblemDocument<'a> {
    /// `urn:utf8gate:problem:{slug}`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The type's title.
    pub title: &'static str,
    /// The HTTP status.
    pub status: u16,
    /// What happened, in a sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<&'a str>,
    /// The request's id (`x-request-id`), empty when it has none.
    pub request_id: &'a str,
    /// The verdict of a rejection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<&'a Verdict>,
}

impl ProblemDocument<'_> {
    /// The document's JSON bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec())
    }
}

/// The detail of a rejection: the kinds that rejected it.
pub fn rejected_detail(verdict: &Verdict) -> String {
    format!("rejected: {}", verdict.kinds().join(", "))
}

/// The detail of a body over `limit` bytes.
pub fn too_large_detail(limit: u64) -> String {
    format!("the body exceeds {limit} bytes")
}

/// The status of a rejected request: `configured` (the configured reject status), except 415
/// Unsupported Media Type (RFC 9110 §15.5.16) when every finding that rejects it is
/// `unsupported_coding`: the request is refused for a coding utf8gate does not read, not for
/// what it contains. When findings were left off the verdict, every kind counted must be
/// `unsupported_coding` too (an unlisted finding could reject for another reason).
pub fn reject_status(verdict: &Verdict, configured: u16) -> u16 {
    let mut rejecting = verdict
        .findings
        .iter()
        .filter(|f| f.action == Action::Reject)
        .peekable();
    let coding = FindingKind::UnsupportedCoding.as_str();
    let only_coding = rejecting.peek().is_some()
        && rejecting.all(|f| f.kind == FindingKind::UnsupportedCoding)
        && (!verdict.findings_truncated || verdict.counts.keys().all(|k| k == coding));
    match only_coding {
        true => 415,
        false => configured,
    }
}

/// How an embedding answers a refusal: the status of a rejection and how much a problem says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answering {
    /// The status of a rejected request (`policy.reject_status`; 415 for codings only).
    pub reject_status: u16,
    /// Problems carry their detail and a rejection its verdict (`errors.detail = "full"`).
    pub full_detail: bool,
}

impl Default for Answering {
    /// The server's defaults: 400, full detail.
    fn default() -> Answering {
        Answering {
            reject_status: 400,
            full_detail: true,
        }
    }
}

/// What to do with a request after its evaluation.
#[derive(Debug)]
pub enum Answer {
    /// Send it on: as received (`sanitized` empty: allowed, or not enforced), or rewritten.
    Forward {
        /// The verdict.
        verdict: Verdict,
        /// The rewritten request of an enforced sanitize decision.
        sanitized: Option<Request>,
    },
    /// Refuse it with `status` and the problem `document` (`application/problem+json`).
    Refuse {
        /// The verdict.
        verdict: Verdict,
        /// The HTTP status.
        status: u16,
        /// The problem+json body.
        document: Vec<u8>,
    },
}

impl Answering {
    /// Evaluates `request` under `profile` and answers its verdict; `request_id` goes into a
    /// refusal's problem.
    pub fn answer(&self, profile: &Profile, request: &Request, request_id: &str) -> Answer {
        let evaluation = evaluate(profile, request);
        let verdict = evaluation.verdict;
        if verdict.decision != Decision::Reject || !verdict.enforced {
            return Answer::Forward {
                verdict,
                sanitized: evaluation.sanitized,
            };
        }
        let status = reject_status(&verdict, self.reject_status);
        let detail = rejected_detail(&verdict);
        let document = self.document(REJECTED, status, &detail, request_id, Some(&verdict));
        Answer::Refuse {
            verdict,
            status,
            document,
        }
    }

    /// The 413 problem of a body over `limit` bytes.
    pub fn too_large(&self, limit: u64, request_id: &str) -> Vec<u8> {
        let detail = too_large_detail(limit);
        self.document(BODY_TOO_LARGE, 413, &detail, request_id, None)
    }

    /// A problem document of `kind`, with its detail and verdict when full.
    pub fn document(
        &self,
        kind: ProblemType,
        status: u16,
        detail: &str,
        request_id: &str,
        verdict: Option<&Verdict>,
    ) -> Vec<u8> {
        ProblemDocument {
            kind: format!("{PROBLEM_TYPE_PREFIX}{}", kind.slug),
            title: kind.title,
            status,
            detail: self.full_detail.then_some(detail),
            request_id,
            verdict: verdict.filter(|_| self.full_detail),
        }
        .to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict() -> Profile {
        Profile::strict()
    }

    #[test]
    fn a_rejection_is_the_problem_of_its_verdict() {
        let request = Request::new("GET", b"/a/%c0%ae%c0%ae/b");
        let Answer::Refuse {
            verdict,
            status,
            document,
        } = Answering::default().answer(&strict(), &request, "r1")
        else {
            panic!("an overlong traversal goes on");
        };
        assert_eq!(status, 400);
        let json: serde_json::Value = serde_json::from_slice(&document).unwrap();
        assert_eq!(json["type"], "urn:utf8gate:problem:rejected");
        assert_eq!(json["status"], 400);
        assert_eq!(json["request_id"], "r1");
        assert_eq!(json["detail"], rejected_detail(&verdict));
        assert_eq!(json["verdict"]["decision"], "reject");
        let minimal = Answering {
            reject_status: 403,
            full_detail: false,
        };
        let Answer::Refuse { document, .. } = minimal.answer(&strict(), &request, "") else {
            panic!("an overlong traversal goes on");
        };
        let json: serde_json::Value = serde_json::from_slice(&document).unwrap();
        assert_eq!(json["status"], 403);
        assert!(json.get("verdict").is_none() && json.get("detail").is_none());
    }

    #[test]
    fn a_sanitized_request_goes_on_rewritten_and_a_clean_one_as_it_came() {
        let nfd = "/s?q=caf\u{65}\u{301}".as_bytes();
        let answer = Answering::default().answer(&strict(), &Request::new("GET", nfd), "");
        let Answer::Forward {
            verdict,
            sanitized: Some(sanitized),
        } = answer
        else {
            panic!("an NFD query is not sanitized");
        };
        assert_eq!(verdict.decision, Decision::Sanitize);
        assert_eq!(sanitized.query.as_deref(), Some(&b"q=caf%C3%A9"[..]));
        let clean = Answering::default().answer(&strict(), &Request::new("GET", b"/ok"), "");
        assert!(
            matches!(clean, Answer::Forward { sanitized: None, verdict } if verdict.decision == Decision::Allow)
        );
    }
}
