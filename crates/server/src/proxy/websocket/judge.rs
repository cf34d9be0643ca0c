//! A client's text message under the route's profile: evaluated as a `text/plain` body (its
//! findings are at the `body` location), allowed, refused (a rejecting verdict, enforced) or,
//! in monitor mode, sent on and logged. A message is never rewritten: one the profile would
//! only rewrite (text not in NFC, a leading BOM) is sent on as it is and logged, as a second
//! reading's rewrites are (a chat client typing NFD is not an attack).

use std::sync::Arc;

use utf8gate_policy::{Decision, Request, Verdict};

use crate::gate::Evaluations;
use crate::routes::Route;

/// Messages longer than this are evaluated off the serving thread, in one of the places of
/// the gate's large bodies (`limits.max_concurrent_evaluations`).
const BLOCKING_BYTES: usize = 64 * 1024;

/// What the profile made of a message.
pub(super) enum Judged {
    /// Send it on (the message, back).
    Allowed(Vec<u8>),
    /// Close with 1008.
    Refused,
    /// The evaluation failed (close with 1011).
    Failed,
}

/// Evaluates `message` under `route`'s profile (a long one in a place of `evaluations`); the
/// log lines of a refusal and of a monitored finding carry `request_id`, the handshake's.
pub(super) async fn judge(
    route: &Arc<Route>,
    evaluations: &Evaluations,
    request_id: &str,
    message: Vec<u8>,
) -> Judged {
    let long = message.len() > BLOCKING_BYTES;
    let profile_of = route.clone();
    let check = move || {
        let mut request =
            Request::new("POST", b"/").header("content-type", b"text/plain; charset=utf-8");
        request.body = message.into();
        let verdict = utf8gate_policy::evaluate_upload(&profile_of.profile, &request).verdict;
        (Vec::from(std::mem::take(&mut request.body)), verdict)
    };
    let judged = match long {
        // Only long messages pay for the hop to a blocking thread.
        true => evaluations.try_run(check).await,
        false => Some(check()),
    };
    let Some((message, verdict)) = judged else {
        return Judged::Failed;
    };
    if verdict.decision == Decision::Allow {
        return Judged::Allowed(message);
    }
    log(route, request_id, &verdict);
    match verdict.enforced && verdict.decision == Decision::Reject {
        true => Judged::Refused,
        false => Judged::Allowed(message),
    }
}

/// The log line of a message the profile does not allow.
fn log(route: &Route, request_id: &str, verdict: &Verdict) {
    let kinds = verdict.kinds().join(",");
    let decision = verdict.decision.as_str();
    let route = route.name.as_str();
    match verdict.enforced && verdict.decision == Decision::Reject {
        true => {
            tracing::warn!(target: "utf8gate::websocket", request_id, route, kinds, decision, "client text message refused by the profile");
        }
        false if verdict.enforced => {
            tracing::info!(target: "utf8gate::websocket", request_id, route, kinds, decision, "client text message sent on as it is (a message is never rewritten)");
        }
        false => {
            tracing::info!(target: "utf8gate::websocket", request_id, route, kinds, decision, "client text message not allowed by the profile (monitor: sent on)");
        }
    }
}
