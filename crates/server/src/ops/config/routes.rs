//! `[[route]]` tables into [`Routes`]: each route's profile built once (its base profile with
//! the route's mode, exclusions and identity fields), names checked for use as metric labels, and routes that
//! can never match refused.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;
use utf8gate_policy::{ExclusionSpec, IdentitySpec, Profile};

use super::error::ConfigError;
use super::layers::Sources;
use super::size::RawSize;
use crate::problem::{Detail, ErrorStyle};
use crate::routes::{Matches, Route, Routes};

/// A `[[route]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRoute {
    name: Spanned<String>,
    #[serde(default)]
    hosts: Vec<Spanned<String>>,
    #[serde(default)]
    paths: Vec<Spanned<String>>,
    #[serde(default)]
    methods: Vec<Spanned<String>>,
    profile: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    max_body_bytes: Option<Spanned<RawSize>>,
    /// Deny a check that did not bring the request's body whole (`body_not_inspected`).
    #[serde(default)]
    require_body: bool,
    #[serde(default)]
    exclusion: Vec<Spanned<ExclusionSpec>>,
    #[serde(default)]
    identity: Vec<Spanned<IdentitySpec>>,
    errors: Option<RawRouteErrors>,
}

/// A `[route.errors]` table: what it sets replaces `[errors]` for the route.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRouteErrors {
    detail: Option<Spanned<String>>,
    html: Option<bool>,
}

/// What routes inherit from the instance.
pub(super) struct Defaults<'a> {
    /// Every profile by name.
    pub(super) profiles: &'a BTreeMap<String, Profile>,
    /// The instance's profile.
    pub(super) profile: &'a str,
    /// `limits.max_body_bytes`.
    pub(super) max_body_bytes: u64,
    /// `[errors]`.
    pub(super) errors: ErrorStyle,
}

/// The routes of `raw`, then the default route.
pub(super) fn build(
    raw: &[RawRoute],
    defaults: &Defaults<'_>,
    sources: &Sources<'_>,
) -> Result<Routes, ConfigError> {
    let bad = |span: std::ops::Range<usize>, message: String| sources.about("route", span, message);
    let mut names = BTreeSet::from(["default".to_string()]);
    let mut list: Vec<Route> = Vec::new();
    for r in raw {
        let name = r.name.get_ref();
        if !label_like(name) {
            let message = format!("route name {name:?} is not 1 to 64 of a-z, 0-9, _ and -");
            return Err(bad(r.name.span(), message));
        }
        if !names.insert(name.clone()) {
            let message = format!("route name {name:?} is taken (\"default\" is reserved)");
            return Err(bad(r.name.span(), message));
        }
        if let Some(before) = list.iter().find(|b| b.matches.is_catch_all()) {
            let message = format!(
                "route {name:?} never matches: route {:?} before it matches every request",
                before.name
            );
            return Err(bad(r.name.span(), message));
        }
        list.push(route(r, defaults, sources)?);
    }
    let default = Route {
        name: "default".to_string(),
        matches: Matches::default(),
        profile: defaults.profiles[defaults.profile].clone(),
        max_body_bytes: defaults.max_body_bytes,
        errors: defaults.errors,
    };
    Ok(Routes::new(list, default))
}

fn route(
    r: &RawRoute,
    defaults: &Defaults<'_>,
    sources: &Sources<'_>,
) -> Result<Route, ConfigError> {
    let key = |k: &str| format!("route {:?}: {k}", r.name.get_ref());
    let bad = |k: &str, span: std::ops::Range<usize>, message: String| {
        sources.about(&key(k), span, message)
    };
    let texts = |k: &str, list: &[Spanned<String>], ok: fn(&str) -> Result<(), String>| {
        list.iter()
            .map(|v| {
                ok(v.get_ref())
                    .map(|()| v.get_ref().clone())
                    .map_err(|m| bad(k, v.span(), m))
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let matches = Matches {
        hosts: texts("hosts", &r.hosts, host_pattern)?,
        paths: texts("paths", &r.paths, path_pattern)?,
        methods: texts("methods", &r.methods, method)?,
    };
    let profile_name = r.profile.as_ref().map_or(defaults.profile, |p| p.get_ref());
    let Some(base) = defaults.profiles.get(profile_name) else {
        let known: Vec<_> = defaults.profiles.keys().cloned().collect();
        let message = format!(
            "unknown profile {profile_name:?} (known: {})",
            known.join(", ")
        );
        let span = r.profile.as_ref().map_or(r.name.span(), |p| p.span());
        return Err(bad("profile", span, message));
    };
    let mut profile = base.clone();
    if let Some(mode) = &r.mode {
        profile.monitor = match mode.get_ref().as_str() {
            "enforce" => false,
            "monitor" => true,
            other => {
                let message = format!("{other:?} is not enforce or monitor");
                return Err(bad("mode", mode.span(), message));
            }
        };
    }
    if r.require_body {
        // A body the check did not bring cannot be judged: on this route, it is refused.
        let refuse = utf8gate_policy::Rule::everywhere(utf8gate_policy::Action::Reject);
        profile.set(utf8gate_policy::FindingKind::BodyNotInspected, refuse);
    }
    for spec in &r.exclusion {
        let exclusion =
            (spec.get_ref().clone().build()).map_err(|m| bad("exclusion", spec.span(), m))?;
        profile.exclusions.push(exclusion);
    }
    for spec in &r.identity {
        let identity =
            (spec.get_ref().clone().build()).map_err(|m| bad("identity", spec.span(), m))?;
        profile.identities.push(identity);
    }
    let max_body_bytes = match &r.max_body_bytes {
        None => defaults.max_body_bytes,
        Some(v) => match v.get_ref().bytes() {
            Ok(n) if (1..=1 << 32).contains(&n) => n,
            Ok(n) => {
                let message = format!("{n} is outside 1..={}", 1u64 << 32);
                return Err(bad("max_body_bytes", v.span(), message));
            }
            Err(message) => return Err(bad("max_body_bytes", v.span(), message)),
        },
    };
    let mut errors = defaults.errors;
    if let Some(e) = &r.errors {
        if let Some(detail) = &e.detail {
            errors.detail = Detail::parse(detail.get_ref()).ok_or_else(|| {
                let message = format!(
                    "{:?} is not {}",
                    detail.get_ref(),
                    Detail::NAMES.join(" or ")
                );
                bad("errors.detail", detail.span(), message)
            })?;
        }
        errors.html = e.html.unwrap_or(errors.html);
    }
    Ok(Route {
        errors,
        name: r.name.get_ref().clone(),
        matches,
        profile,
        max_body_bytes,
    })
}

/// A name usable as a metric label value from a closed set.
fn label_like(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

fn host_pattern(host: &str) -> Result<(), String> {
    let name = host.strip_prefix("*.").unwrap_or(host);
    let ok = !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    match ok {
        true => Ok(()),
        false => Err(format!(
            "{host:?} is not a host name or *.suffix (ASCII; IDNs as A-labels)"
        )),
    }
}

fn path_pattern(path: &str) -> Result<(), String> {
    if !path.starts_with('/') {
        return Err(format!("{path:?} does not start with '/'"));
    }
    let canonical = crate::routes::canonical(path.replace('*', "x").as_bytes(), false);
    match canonical == path.replace('*', "x").as_bytes() {
        true => Ok(()),
        false => Err(format!(
            "{path:?} never matches: routes match the decoded, resolved path ({:?})",
            String::from_utf8_lossy(&canonical)
        )),
    }
}

fn method(method: &str) -> Result<(), String> {
    let token = !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase());
    match token {
        true => Ok(()),
        false => Err(format!(
            "{method:?} is not a method in upper case (GET, POST)"
        )),
    }
}

#[cfg(test)]
mod tests;
