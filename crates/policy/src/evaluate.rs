//! The pipeline: decompose, check every field, choose actions, rewrite, re-check, decide.

use core::ops::ControlFlow;

use crate::checks::{self, CheckOptions};
use crate::decide::collect::Collector;
use crate::decide::found::{Found, KindSet};
use crate::decide::verdict::{Decision, Verdict};
use crate::field::Field;
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::identity::check as identity;
use crate::layers;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::Request;
use crate::rewrite;

/// A verdict and, when the decision is to sanitize (and the profile enforces), the rewritten
/// request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    /// The verdict.
    pub verdict: Verdict,
    /// The sanitized request, for `Decision::Sanitize` outside monitor mode.
    pub sanitized: Option<Request>,
}

/// Fields at least this long may stop being read once the request is settled.
const STOP_EARLY_BYTES: usize = 64 * 1024;

/// How many times a rewritten field is re-checked and rewritten again at most.
const MAX_REWRITE_ROUNDS: usize = 3;

/// Evaluates `request` under `profile`: its path, query, headers and body. Never fails and
/// never panics: every problem of the input is a finding.
pub fn evaluate(profile: &Profile, request: &Request) -> Evaluation {
    evaluate_with(profile, request, layers::decompose_into)
}

/// Evaluates `upload` under `profile` as an upload (a file submitted for scanning): only its
/// body is the input, read as its `Content-Type` says, its codings (`Content-Encoding`,
/// `Transfer-Encoding`) undone. What is text is decided as for every way in (a declared binary
/// type, or no type and binary content, is not read unless the profile's `scan_binary` is
/// set: the verdict's `not_text` says why). Its method, path, query and other headers are the submitting call's, not the
/// application's: they are not checked, except that the head's singleton headers and media-type
/// parameters must read one way (as in [`evaluate`], without `Host`). A sanitized upload
/// differs from `upload` in its body only. [`BodyScan::for_body_of`](crate::BodyScan::for_body_of)
/// is the streamed scan of the same body. [`Request::mode`] is not read.
pub fn evaluate_upload(profile: &Profile, upload: &Request) -> Evaluation {
    evaluate_with(profile, upload, layers::decompose_upload)
}

/// The pipeline, with the decomposition of `request` into fields that `decompose` makes.
fn evaluate_with(
    profile: &Profile,
    request: &Request,
    decompose: for<'r> fn(&'r Request, &Profile, &mut layers::Decomposed<'r>),
) -> Evaluation {
    let options = CheckOptions::of(profile);
    // A coded body is read as the backend reads it: decoded.
    let (decoded, coding_finding) = layers::decoded(request, profile);
    let request = decoded.as_ref().unwrap_or(request);
    let mut decomposed = layers::Decomposed::new(profile);
    decompose(request, profile, &mut decomposed);
    let mut verdict = Collector::new(profile, &request.path);
    verdict.not_text.clone_from(&decomposed.not_text);
    for (location, raw) in coding_finding.into_iter().chain(decomposed.structural) {
        verdict.add(&location, raw, "");
    }
    if request.string_fields_only {
        verdict.add(&Location::part(Part::Header), blind(), "");
    }
    let mut edits = Vec::new();
    for field in &decomposed.fields {
        // A document's fields are read as they are checked (`layers::each_field`); any other
        // field is checked as it is, with no call through a closure.
        let flow = match field.document {
            None => check_one(&options, field, &mut verdict, &mut edits),
            Some(_) => {
                let room = verdict.room();
                let mut check = |f: &Field| check_one(&options, f, &mut verdict, &mut edits);
                layers::each_field(field, profile, room, &mut check)
            }
        };
        if flow.is_break() {
            break;
        }
    }
    // Only a request with rewritten fields is copied.
    let sanitized = (!edits.is_empty())
        .then(|| rewrite::write_back(request, edits))
        .filter(|s| s != request);
    let verdict = verdict.finish(sanitized.is_some());
    Evaluation {
        sanitized: sanitized.filter(|_| verdict.decision == Decision::Sanitize && verdict.enforced),
        verdict,
    }
}

/// Checks one field unless the request is settled (then it breaks: nothing later can change
/// the decision or the list, and the rest is not read); a rewritten field's bytes are
/// encoded into `edits`.
fn check_one(
    options: &CheckOptions,
    field: &Field,
    verdict: &mut Collector,
    edits: &mut Vec<(crate::field::Container, core::ops::Range<usize>, Vec<u8>)>,
) -> ControlFlow<()> {
    if verdict.settled() {
        verdict.stopped_early = true;
        return ControlFlow::Break(());
    }
    let class = field.location.part.class();
    verdict.inspected(class, field.bytes.len() as u64 + field.proven_clean);
    // A field proven clean stands for fields proven clean together: nothing to check.
    if field.proven_clean == 0
        && let Some(new_bytes) = check_and_rewrite(options, field, verdict)
    {
        let encoded = rewrite::encode(field.encoding, new_bytes);
        edits.push((field.container, field.span.clone(), encoded));
    }
    ControlFlow::Continue(())
}

/// The finding of a request known only through string fields.
fn blind() -> RawFinding {
    let message = "the proxy sent string fields only (no raw bytes): invalid UTF-8 may have been \
                   replaced before it could be checked";
    RawFinding::new(
        FindingKind::StringFieldsOnly,
        0,
        b"",
        Fix::None,
        None,
        message.to_string(),
    )
}

/// Checks one field and records its findings; returns the rewritten bytes if any action
/// rewrote it.
fn check_and_rewrite(
    options: &CheckOptions,
    field: &Field,
    verdict: &mut Collector,
) -> Option<Vec<u8>> {
    let part = field.location.part;
    let location = &field.location;
    let identity = verdict.identity(location);
    // Fixes are kept only where a rewrite can be forwarded: not for a second reading, and not
    // once a finding has rejected the request.
    let rewritable = if field.check_only || verdict.rejects() {
        KindSet::default()
    } else {
        verdict.may_rewrite(part)
    };
    let mut found = Found::new(verdict.room(), rewritable);
    // A large field may stop being read once the request is settled (`Found::settled`); the
    // kinds that reject there are worked out for it alone (a small field costs more to ask
    // about than to read).
    if field.bytes.len() >= STOP_EARLY_BYTES {
        found = found.stop_early(verdict.rejecting(location), verdict.rejects());
    }
    if let Some(layer) = &field.layer_findings {
        found.absorb(layer);
    }
    checks::check_field(part, &field.bytes, field.at_body_start, options, &mut found);
    if let Some((more, report)) = identity.and_then(|i| identity::check(i, location, &field.bytes))
    {
        more.into_iter().for_each(|raw| found.push(raw));
        verdict.identity_report(report);
    }
    let actions = verdict.add_found(location, &mut found, field.check_only, "");
    verdict.stopped_early |= found.stopped;
    if field.check_only || verdict.rejects() || !actions.rewrite_any(&found) {
        return None;
    }
    // A rewrite that would outgrow the memory budget's share of the field is refused, never
    // written (`rewrite::MAX_GROWTH`).
    let (replaced, grown) = rewrite::growth(&field.bytes, &found, &actions);
    if grown > field.bytes.len() / rewrite::MAX_GROWTH {
        let len = field.bytes.len();
        let message = format!(
            "sanitizing would grow this field from {len} to {} bytes (by more than a quarter: \
             U+FFFD for lone bytes, NFC that triples characters); refused, not rewritten",
            len + grown
        );
        let raw = RawFinding::new(FindingKind::LimitExceeded, 0, b"", Fix::None, None, message);
        verdict.add(location, raw, "");
        return None;
    }
    let capacity = field.bytes.len() + replaced;
    let (mut bytes, mut normalized) = rewrite::apply(&field.bytes, &found, &actions, capacity);
    drop(found);
    // Every check runs again on the rewritten bytes: normalization must not create what the
    // checks forbid (NFC maps U+037E to ';'), and a second pass must find nothing to rewrite.
    for round in 0..MAX_REWRITE_ROUNDS {
        let mut again = Found::new(verdict.room(), rewritable);
        checks::check_field(part, &bytes, field.at_body_start, options, &mut again);
        if let Some((more, _)) = identity.and_then(|i| identity::check(i, location, &bytes)) {
            more.into_iter().for_each(|raw| again.push(raw));
        }
        let prefix = "after rewriting: ";
        let again_actions = verdict.add_new_rejects(location, &mut again, &actions, prefix);
        if !again_actions.rewrite_any(&again) || round + 1 == MAX_REWRITE_ROUNDS {
            break;
        }
        let (next, n) = rewrite::apply(&bytes, &again, &again_actions, bytes.len());
        if next == bytes {
            break;
        }
        bytes = next;
        normalized |= n;
    }
    verdict.normalized |= normalized;
    Some(bytes)
}
