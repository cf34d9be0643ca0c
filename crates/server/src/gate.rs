//! The gate: every front end (proxy, `/v1/scan`, `/v1/sanitize`, `/authz/envoy`,
//! `/authz/forward`) hands it a request already read within the limits, the profile and how the
//! request is used, and gets back one [`Outcome`] and the audit record of its response.
//!
//! The rule lives here once: a rejection is refused only when enforced (monitor mode forwards
//! it), with the status of its use; the verdict's metrics are recorded; large or coded bodies
//! are evaluated off the async threads, a bounded number at once ([`Evaluations`]), holding the
//! request's memory [`Charge`] until they are done (the request's future may be dropped first,
//! by the timeout).

use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use utf8gate_policy::{Action, Decision, Mode, Profile, Request, Verdict};

use crate::budget::{Charge, EVALUATION_FACTOR};
use crate::names::DECISION;
use crate::ops::audit::AuditRecord;
use crate::ops::config::Config;
use crate::ops::metrics::Metrics;
use crate::problem::{Problem, ProblemKind, reject_status};
use crate::routes::Route;

mod blocking;

pub use blocking::Evaluations;

/// How the request under evaluation is used, which sets its mode and how a rejection is
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A request to forward: rejections are `policy.reject_status` (415 for codings only).
    Proxy,
    /// An authorization check: rejections are `policy.authz_deny_status`.
    Authz,
    /// A request streamed by Envoy's `ext_proc` filter, forwarded by Envoy: rejections are the
    /// proxy's (`policy.reject_status`, 415 for codings only).
    ExtProc,
    /// An upload to report on: never refused, the verdict is the answer.
    Scan,
    /// An upload to rewrite: rejections are 422.
    Sanitize,
}

impl Use {
    /// The mode requests of this use are counted and logged under.
    pub fn mode(self) -> Mode {
        match self {
            Use::Proxy => Mode::Proxy,
            Use::Authz => Mode::Authz,
            Use::ExtProc => Mode::ExtProc,
            Use::Scan | Use::Sanitize => Mode::Scan,
        }
    }
}

/// What to do with the request.
#[derive(Debug)]
pub enum Outcome {
    /// Go on with the request as received (allowed, or rejected in monitor mode).
    Forward,
    /// Go on with the sanitized request.
    Rewritten(Request),
    /// Answer with the verdict (scans).
    Report(Verdict),
    /// Refuse it with this problem.
    Refuse(Problem),
}

/// The gate's answer about one request.
#[derive(Debug)]
pub struct Passed {
    /// What to do.
    pub outcome: Outcome,
    /// The request as evaluated, handed back (its body can be forwarded without a copy).
    pub request: Request,
    /// The decision (before enforcement).
    pub decision: Decision,
    record: AuditRecord,
}

impl Passed {
    /// `response` with the audit record the listener's audit layer writes.
    pub fn audited(self, mut response: Response) -> Response {
        response.extensions_mut().insert(self.record);
        response
    }

    /// What to do and the audit record, for a listener that writes the audit line itself
    /// (the gRPC check, which has no HTTP response to carry it).
    pub fn into_parts(self) -> (Outcome, AuditRecord) {
        (self.outcome, self.record)
    }

    /// [`audited`](Self::audited), with `utf8gate-decision` set (API and authz answers).
    pub fn answered(self, mut response: Response) -> Response {
        let decision = HeaderValue::from_static(self.decision.as_str());
        response.headers_mut().insert(DECISION, decision);
        self.audited(response)
    }
}

/// The gate of a configuration.
#[derive(Clone)]
pub struct Gate {
    config: Arc<Config>,
    metrics: Metrics,
    /// The instance's default profile, looked up once.
    default: Option<Arc<Profile>>,
    /// The places of the evaluations run off the async threads (the process's).
    evaluations: Evaluations,
}

impl Gate {
    /// The gate of `config`, recording into `metrics`, evaluating large and coded bodies in
    /// the places of `evaluations`.
    pub fn new(config: Arc<Config>, metrics: Metrics, evaluations: Evaluations) -> Gate {
        let default = config.profiles.get(&config.profile).cloned().map(Arc::new);
        Gate {
            config,
            metrics,
            default,
            evaluations,
        }
    }

    /// The profile named `name`, or the instance's default one.
    pub fn profile(&self, name: Option<&str>) -> Result<&Profile, Problem> {
        match name {
            None => (self.default.as_deref())
                .ok_or_else(|| Problem::new(ProblemKind::Internal, "no default profile")),
            Some(name) => self.config.profiles.get(name).ok_or_else(|| {
                let detail = format!("no profile named {name:?}");
                Problem::new(ProblemKind::UnknownProfile, detail)
            }),
        }
    }

    /// Evaluates `request` for `usage` under `profile`, the profile of its `route` if it has
    /// one (proxied requests and checks); `charge` is what its body holds of the memory budget.
    /// A coded body is charged first as the most it may decode to: [`Problem::busy`] when the
    /// budget cannot hold that.
    pub async fn pass(
        &self,
        profile: &Profile,
        route: Option<&Arc<Route>>,
        usage: Use,
        request: Request,
        charge: &Charge,
    ) -> Result<Passed, Problem> {
        let (evaluation, request) = self.evaluate(profile, usage, request, charge).await?;
        let verdict = evaluation.verdict;
        let decision = verdict.decision;
        let refused = decision == Decision::Reject && verdict.enforced;
        let record = self.record(usage.mode(), &verdict, route.cloned());
        let outcome = match usage {
            Use::Scan => Outcome::Report(verdict),
            _ if refused => Outcome::Refuse(self.refusal(usage, verdict)),
            _ => (evaluation.sanitized).map_or(Outcome::Forward, Outcome::Rewritten),
        };
        Ok(Passed {
            outcome,
            request,
            decision,
            record,
        })
    }

    /// The answer about an upload too large to be evaluated whole, from the verdict of the
    /// streaming checks.
    pub fn scanned(&self, verdict: Verdict) -> Passed {
        Passed {
            record: self.record(Mode::Scan, &verdict, None),
            decision: verdict.decision,
            outcome: Outcome::Report(verdict),
            request: Request::new("POST", b"/"),
        }
    }

    /// The refusal of a body checked as it streamed past (Envoy `ext_proc`'s streamed modes),
    /// from the streaming checks' verdict under `route`, when it rejects and is enforced:
    /// counted and recorded as `ext_proc`, refused as a proxied request is. `None` otherwise:
    /// the request was counted at its head, and its body goes on as received (a streamed body
    /// is never rewritten).
    pub fn streamed(&self, verdict: Verdict, route: &Arc<Route>) -> Option<Passed> {
        if verdict.decision != Decision::Reject || !verdict.enforced {
            return None;
        }
        let record = self.record(Mode::ExtProc, &verdict, Some(route.clone()));
        Some(Passed {
            record,
            decision: verdict.decision,
            outcome: Outcome::Refuse(self.refusal(Use::ExtProc, verdict)),
            request: Request::new("POST", b"/"),
        })
    }

    /// A scan of `upload` that keeps the sanitized upload too (`/v1/scan?explain=true`):
    /// counted and recorded as a scan, its outcome the verdict; the sanitized upload is the
    /// one `/v1/sanitize` would answer with (`None`: nothing was rewritten).
    pub async fn explain(
        &self,
        profile: &Profile,
        upload: Request,
        charge: &Charge,
    ) -> Result<(Passed, Option<Request>), Problem> {
        let (evaluation, request) = self.evaluate(profile, Use::Scan, upload, charge).await?;
        let verdict = evaluation.verdict;
        let passed = Passed {
            record: self.record(Mode::Scan, &verdict, None),
            decision: verdict.decision,
            outcome: Outcome::Report(verdict),
            request,
        };
        Ok((passed, evaluation.sanitized))
    }

    /// Records the verdict's metrics; its audit record, naming `profile`.
    fn record(&self, mode: Mode, verdict: &Verdict, route: Option<Arc<Route>>) -> AuditRecord {
        let route_name = route.as_ref().map_or("", |r| r.name.as_str());
        self.metrics.record_verdict(mode, verdict, route_name);
        let mut excluded: Vec<&str> = (verdict.findings.iter())
            .filter(|f| f.action == Action::Excluded)
            .map(|f| f.kind.as_str())
            .collect();
        excluded.dedup();
        AuditRecord {
            route,
            excluded: excluded.join(","),
            mode,
            decision: verdict.decision,
            enforced: verdict.enforced,
            profile: verdict.profile.clone(),
            kinds: verdict.kinds().join(","),
            findings: verdict.counts.values().sum(),
            client: None,
        }
    }

    fn refusal(&self, usage: Use, verdict: Verdict) -> Problem {
        let status = |code: u16, default: StatusCode| StatusCode::from_u16(code).unwrap_or(default);
        let status = match usage {
            Use::Proxy | Use::ExtProc => reject_status(
                &verdict,
                status(self.config.reject_status, StatusCode::BAD_REQUEST),
            ),
            Use::Authz => status(self.config.authz_deny_status, StatusCode::FORBIDDEN),
            Use::Scan | Use::Sanitize => StatusCode::UNPROCESSABLE_ENTITY,
        };
        Problem::rejected(status, verdict)
    }

    /// Evaluates, off the async threads when the body is large or coded (a coded body may
    /// decode to far more than it is), in one of the gate's places ([`Evaluations`]), handing
    /// the request back. A coded body is charged as if it were as large as the profile lets
    /// it decode (`max_decoded_bytes`, at most `max_body_bytes`): a small gzip body can decode
    /// to megabytes. The blocking evaluation holds a clone of `charge` until it ends.
    async fn evaluate(
        &self,
        profile: &Profile,
        usage: Use,
        request: Request,
        charge: &Charge,
    ) -> Result<(utf8gate_policy::Evaluation, Request), Problem> {
        let run = move |profile: &Profile, request: Request| {
            let evaluation = match usage {
                Use::Scan | Use::Sanitize => utf8gate_policy::evaluate_upload(profile, &request),
                Use::Proxy | Use::Authz | Use::ExtProc => {
                    utf8gate_policy::evaluate(profile, &request)
                }
            };
            (evaluation, request)
        };
        let coded = utf8gate_policy::coding::is_coded(&request);
        // The expansion ratio is checked only at the end: a body may decode up to the limit
        // first.
        if coded && !request.body.is_empty() {
            let decoded = request.body.len().max(profile.limits.max_decoded_bytes) as u64;
            charge
                .cover(decoded.saturating_mul(EVALUATION_FACTOR))
                .await?;
        }
        if request.body.len() < 64 * 1024 && !coded {
            return Ok(run(profile, request));
        }
        let profile = profile.clone();
        let held = charge.clone();
        let blocking = move || {
            let evaluated = run(&profile, request);
            drop(held);
            evaluated
        };
        Ok(self.evaluations.run(blocking).await)
    }
}
