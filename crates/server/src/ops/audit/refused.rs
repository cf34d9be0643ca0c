//! The audit line of a request refused before any verdict (a body over a limit, an unknown
//! route of the API listener, a malformed or unreadable check, shed load): the same keys as an
//! evaluated request's, `decision` `refused`, no profile, kinds or findings, and the problem's
//! type slug in `problem`. Such lines are rare, so they are serialized by serde_json (or
//! `tracing` outside the JSON format), not by the hand-written writer of `crate::ops::audit`.

use std::time::SystemTime;

use serde::Serialize;
use utf8gate_policy::Mode;

/// One refused request's audit line.
#[derive(Serialize)]
struct Line<'a> {
    timestamp: String,
    level: &'static str,
    message: &'static str,
    request_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<&'a str>,
    mode: &'static str,
    decision: &'static str,
    enforced: bool,
    profile: &'static str,
    route: &'a str,
    kinds: &'static str,
    excluded: &'static str,
    findings: u64,
    problem: &'a str,
    status: u16,
    duration_ms: f64,
    target: &'static str,
}

/// What a refusal's audit line says: where, which route (`-` when none was chosen), which
/// problem (its type slug), with which status.
#[derive(Clone, Copy, Debug)]
pub struct Refusal<'a> {
    /// The listener's mode (proxy, scan, authz).
    pub mode: Mode,
    /// The route's name, `-` without one.
    pub route: &'a str,
    /// The problem's type slug (`not-found`, `body-too-large`, `bad-check`, ...), `-` when
    /// the answer carried none.
    pub problem: &'a str,
    /// The status answered.
    pub status: u16,
    /// The identity of the connection's client certificate (mutual TLS), if any.
    pub client: Option<&'a str>,
}

/// Writes the audit line of `refusal`, for request `request_id`, answered after `seconds`.
pub fn write_refused(refusal: Refusal<'_>, request_id: &str, seconds: f64) {
    if !tracing::enabled!(target: "utf8gate::audit", tracing::Level::INFO) {
        return;
    }
    let duration_ms = super::clock::milliseconds(seconds);
    let Some(writer) = crate::ops::logging::direct_writer() else {
        tracing::info!(
            target: "utf8gate::audit",
            request_id,
            client = refusal.client,
            mode = refusal.mode.as_str(),
            decision = "refused",
            enforced = true,
            profile = "",
            route = refusal.route,
            kinds = "",
            excluded = "",
            findings = 0u64,
            problem = refusal.problem,
            status = refusal.status,
            duration_ms,
            "request"
        );
        return;
    };
    let line = json_line(refusal, request_id, duration_ms, SystemTime::now());
    let _ = std::io::Write::write_all(&mut writer.clone(), &line);
}

/// The JSON line with its newline.
fn json_line(refusal: Refusal<'_>, request_id: &str, duration_ms: f64, now: SystemTime) -> Vec<u8> {
    let line = Line {
        timestamp: super::clock::Timestamp(now).to_string(),
        level: "INFO",
        message: "request",
        request_id,
        client: refusal.client,
        mode: refusal.mode.as_str(),
        decision: "refused",
        enforced: true,
        profile: "",
        route: refusal.route,
        kinds: "",
        excluded: "",
        findings: 0,
        problem: refusal.problem,
        status: refusal.status,
        duration_ms,
        target: "utf8gate::audit",
    };
    let mut out = serde_json::to_vec(&line).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_one_json_line_with_the_keys_of_an_evaluated_request_and_its_problem() {
        let refusal = Refusal {
            mode: Mode::Authz,
            route: "-",
            problem: "not-found",
            status: 404,
            client: None,
        };
        let line = json_line(refusal, "id \"1\"", 1.5, SystemTime::UNIX_EPOCH);
        assert_eq!(line.last(), Some(&b'\n'));
        let value: serde_json::Value = serde_json::from_slice(&line).expect("JSON");
        assert_eq!(value["timestamp"], "1970-01-01T00:00:00.000000Z");
        assert_eq!(value["message"], "request");
        assert_eq!(value["request_id"], "id \"1\"");
        assert_eq!(value["mode"], "authz");
        assert_eq!(value["decision"], "refused");
        assert_eq!(value["problem"], "not-found");
        assert_eq!(value["status"], 404);
        assert_eq!(value["findings"], 0);
        assert_eq!(value["duration_ms"], 1.5);
        assert_eq!(value["target"], "utf8gate::audit");
    }
}
