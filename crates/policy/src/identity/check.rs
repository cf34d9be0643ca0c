//! The identity check: one field's value against its PRECIS profile, case collisions and the
//! UTS #39 restriction level; the comparison form and skeleton for the verdict.

use std::borrow::Cow;

use precis_profiles::precis_core::Error as PrecisError;
use precis_profiles::precis_core::profile::PrecisFastInvocation;
use precis_profiles::{Nickname, OpaqueString, UsernameCaseMapped, UsernameCasePreserved};
use unicode_normalization::UnicodeNormalization;
use unicode_script::{Script, UnicodeScript};
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::{GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

use super::{Identity, IdentityKind, IdentityReport, Restriction};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::Location;

/// The findings of one identity field and its report; `None` for bytes that are not UTF-8
/// (the UTF-8 check reports them; after a rewrite the field is checked again).
pub(crate) fn check(
    identity: &Identity,
    location: &Location,
    bytes: &[u8],
) -> Option<(Vec<RawFinding>, IdentityReport)> {
    let text = core::str::from_utf8(bytes).ok()?;
    let kind = identity.kind;
    let secret = kind == IdentityKind::Opaque;
    let mut report = IdentityReport {
        location: location.clone(),
        kind,
        enforced: None,
        skeleton: None,
        scripts: Vec::new(),
        restriction: None,
    };
    let mut findings = Vec::new();
    if text.len() > identity.max_bytes {
        let message = format!(
            "{} bytes: longer than this identity's max_bytes ({})",
            text.len(),
            identity.max_bytes
        );
        findings.push(whole(
            FindingKind::IdentityDisallowed,
            text,
            secret,
            message,
        ));
        return Some((findings, report));
    }
    let (profile, enforced) = match kind {
        IdentityKind::Username => (
            "UsernameCasePreserved",
            UsernameCasePreserved::enforce(text),
        ),
        IdentityKind::Nickname => ("Nickname", Nickname::enforce(text)),
        IdentityKind::Opaque => ("OpaqueString", OpaqueString::enforce(text)),
    };
    // Enforcement must be idempotent (RFC 8264 §7): the PRECIS crate checks code points before
    // NFC, so U+0387 enforces to U+00B7, whose context rule the enforced form then fails. Such
    // a value has no enforced form that its own profile accepts.
    let again = |e: &str| match kind {
        IdentityKind::Username => UsernameCasePreserved::enforce(e).map(|a| a == e),
        IdentityKind::Nickname => Nickname::enforce(e).map(|a| a == e),
        IdentityKind::Opaque => OpaqueString::enforce(e).map(|a| a == e),
    };
    let enforced = enforced.and_then(|e| match e.as_ref() != text {
        true => again(&e).and_then(|stable| {
            stable
                .then_some(e)
                .ok_or(precis_profiles::precis_core::Error::Invalid)
        }),
        false => Ok(e),
    });
    let enforced = match enforced {
        Ok(e) => e,
        Err(error) => {
            findings.push(disallowed(profile, text, secret, &error));
            return Some((findings, report));
        }
    };
    if enforced != text {
        let message = match secret {
            true => format!("{profile} would change this value (width, spaces or NFC)"),
            false => format!("{profile} enforces this value as {enforced:?}"),
        };
        let mut finding = whole(FindingKind::IdentityNotEnforced, text, secret, message);
        finding.fix = Fix::Enforce(enforced.clone().into_owned());
        findings.push(finding);
    }
    if secret {
        return Some((findings, report));
    }
    let key = comparison_form(kind, &enforced);
    if let Some(key) = &key
        && let Some(finding) = case_collision(text, key)
    {
        findings.push(finding);
    }
    let level = restriction_level(&enforced);
    report.scripts = scripts(&enforced);
    report.restriction = Some(level);
    if level > identity.restriction {
        let message = format!(
            "scripts {}: {}, above {} (UTS #39 §5.2)",
            report.scripts.join(", "),
            level.as_str(),
            identity.restriction.as_str()
        );
        let at = second_script(text);
        let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
        findings.push(RawFinding::new(
            FindingKind::MixedScript,
            at,
            &text.as_bytes()[at..end],
            Fix::None,
            None,
            message,
        ));
    }
    report.skeleton = key
        .as_deref()
        .map(|k| unicode_security::skeleton(k).collect());
    report.enforced = key;
    Some((findings, report))
}

/// The form an application compares: `UsernameCaseMapped` for usernames (RFC 8265 §3.3),
/// the enforced nickname lower-cased in NFKC for nicknames (RFC 8266 §2.4).
fn comparison_form(kind: IdentityKind, enforced: &str) -> Option<String> {
    match kind {
        IdentityKind::Username => UsernameCaseMapped::enforce(enforced)
            .ok()
            .map(Cow::into_owned),
        IdentityKind::Nickname => Some(enforced.to_lowercase().nfkc().collect()),
        IdentityKind::Opaque => None,
    }
}

/// A finding if `key` (a comparison form, lower case) upper-cased then lower-cased is another
/// string: `ı` → `I` → `i`, `ß` → `SS` → `ss`. Whole strings are compared, so that a final
/// sigma (`ς` → `Σ` → `ς` at the end of a word) is no collision.
fn case_collision(text: &str, key: &str) -> Option<RawFinding> {
    let round: String = key.to_uppercase().to_lowercase().nfc().collect();
    if round == key {
        return None;
    }
    let (at, c) = text
        .char_indices()
        .find(|&(_, c)| {
            c != 'ς' && {
                let lower: String = c.to_lowercase().collect();
                lower.to_uppercase().to_lowercase() != lower
            }
        })
        .unwrap_or((0, text.chars().next().unwrap_or(' ')));
    let upper: String = c.to_uppercase().collect();
    let message = format!(
        "{c:?} (U+{:04X}) upper-cases to {upper:?}: a case-insensitive comparison reads {key:?} as {round:?}",
        c as u32
    );
    let end = (at + c.len_utf8()).min(text.len());
    Some(RawFinding::new(
        FindingKind::IdentityCaseCollision,
        at,
        &text.as_bytes()[at..end],
        Fix::None,
        Some(round),
        message,
    ))
}

/// The UTS #39 restriction level of `text`, its characters outside identifiers (spaces, `@`,
/// `.`) that belong to no script (Common, Inherited) left out: PRECIS has judged them already.
fn restriction_level(text: &str) -> Restriction {
    let letters: String = text
        .chars()
        .filter(|&c| c.identifier_allowed() || !AugmentedScriptSet::for_char(c).is_all())
        .collect();
    match letters.as_str().detect_restriction_level() {
        RestrictionLevel::ASCIIOnly => Restriction::AsciiOnly,
        RestrictionLevel::SingleScript => Restriction::SingleScript,
        RestrictionLevel::HighlyRestrictive => Restriction::HighlyRestrictive,
        RestrictionLevel::ModeratelyRestrictive => Restriction::ModeratelyRestrictive,
        RestrictionLevel::MinimallyRestrictive => Restriction::MinimallyRestrictive,
        RestrictionLevel::Unrestricted => Restriction::Unrestricted,
    }
}

/// The scripts of `text`'s characters, Common, Inherited and Unknown left out, each once, in
/// order of appearance.
fn scripts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in text.chars() {
        let script = c.script();
        if matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        if !out.iter().any(|s| s == script.full_name()) {
            out.push(script.full_name().to_string());
        }
    }
    out
}

/// The byte offset of the first character whose script differs from the first script seen
/// (where a mixed-script value turns), else 0.
fn second_script(text: &str) -> usize {
    let mut first = None;
    for (at, c) in text.char_indices() {
        let script = c.script();
        if matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        match first {
            None => first = Some(script),
            Some(f) if f != script => return at,
            Some(_) => {}
        }
    }
    0
}

/// A finding about the whole value; for secrets, without its bytes.
fn whole(kind: FindingKind, text: &str, secret: bool, message: String) -> RawFinding {
    let mut finding = RawFinding::new(kind, 0, text.as_bytes(), Fix::None, None, message);
    if secret {
        finding.bytes.clear();
    }
    finding
}

/// The finding of a value its profile refuses, at the refused code point when the profile
/// names one.
fn disallowed(profile: &str, text: &str, secret: bool, error: &PrecisError) -> RawFinding {
    let PrecisError::BadCodepoint(info) = error else {
        let why = match error {
            PrecisError::Invalid => "empty, or refused by the bidi rule (RFC 5893)".to_string(),
            other => other.to_string(),
        };
        let message = format!("{profile} refuses this value: {why}");
        return whole(FindingKind::IdentityDisallowed, text, secret, message);
    };
    // `position` counts characters of the mapped string: find the code point itself first.
    let at = (text.char_indices().find(|&(_, c)| c as u32 == info.cp))
        .or_else(|| text.char_indices().nth(info.position))
        .map_or(0, |(at, _)| at);
    let message = format!(
        "{profile} refuses U+{:04X}: {} (RFC 8264 §8, §9)",
        info.cp,
        info.property.to_string().trim_end()
    );
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    let mut finding = RawFinding::new(
        FindingKind::IdentityDisallowed,
        at,
        &text.as_bytes()[at..end],
        Fix::None,
        None,
        message,
    );
    if secret {
        finding.bytes.clear();
        finding.message = format!("{profile} refuses a code point of this value");
    }
    finding
}
