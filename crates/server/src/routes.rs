//! Routes: an ordered list of (host, path, method) matches, each with its own profile, mode,
//! exclusions and limits. The first match wins; a request no route matches takes the default
//! route (the instance's profile).
//!
//! A route is chosen on the request as its backend reads it, not as it is spelled: the path is
//! percent-decoded once, its `;` parameters removed (Tomcat), repeated `/` collapsed and dot
//! segments resolved (RFC 3986 §5.2.4), so `/public/..%2Fadmin` is not under `/public/`. Some
//! backends also read `\` as `/` and compare paths without case (IIS); a request for which that
//! reading, or its `Host` against its absolute-form authority, chooses another route has two
//! readings, and is refused ([`Choice::Ambiguous`]).

use std::sync::Arc;

use utf8gate_policy::Profile;

use crate::problem::ErrorStyle;

/// Where a route applies; an empty list matches everything.
#[derive(Debug, Clone, Default)]
pub struct Matches {
    /// Host names: exact (ASCII case-insensitive) or `*.suffix` (any name under the suffix).
    pub hosts: Vec<String>,
    /// Path patterns: a prefix, or with `*` (within one segment) or `**` (anything) a glob
    /// over the whole path.
    pub paths: Vec<String>,
    /// Methods, exactly as sent (`GET`, `POST`).
    pub methods: Vec<String>,
}

/// One route.
#[derive(Debug)]
pub struct Route {
    /// Its name: the `route` label of metrics and audit lines.
    pub name: String,
    /// Where it applies.
    pub matches: Matches,
    /// The profile its requests are evaluated under (mode and exclusions applied).
    pub profile: Profile,
    /// Largest body of its requests.
    pub max_body_bytes: u64,
    /// How its errors are answered (`[route.errors]` over `[errors]`).
    pub errors: ErrorStyle,
}

/// The routes of an instance, in order, and its default route.
#[derive(Debug, Clone)]
pub struct Routes {
    list: Vec<Arc<Route>>,
    default: Arc<Route>,
}

/// The route a request takes.
#[derive(Debug, Clone)]
pub enum Choice {
    /// This one.
    Route(Arc<Route>),
    /// Its readings choose different routes (named here).
    Ambiguous(String, String),
}

/// What a request says about where it goes.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The `Host` header, if any.
    pub host: Option<&'a [u8]>,
    /// The authority of an absolute-form target, if any.
    pub authority: Option<&'a [u8]>,
    /// The path, as received.
    pub path: &'a [u8],
    /// The method.
    pub method: &'a str,
}

impl Routes {
    /// `list` in order, then `default`.
    pub fn new(list: Vec<Route>, default: Route) -> Routes {
        Routes {
            list: list.into_iter().map(Arc::new).collect(),
            default: Arc::new(default),
        }
    }

    /// The routes in order (without the default one).
    pub fn list(&self) -> &[Arc<Route>] {
        &self.list
    }

    /// The default route.
    pub fn default_route(&self) -> &Arc<Route> {
        &self.default
    }

    /// The route `target` takes, by every reading of its host and path.
    pub fn choose(&self, target: Target<'_>) -> Choice {
        if self.list.is_empty() {
            return Choice::Route(self.default.clone());
        }
        let strict = canonical(target.path, false);
        let windows = canonical(target.path, true);
        let hosts = [target.host, target.authority].map(|h| h.map(host_name));
        let first = self.first(
            hosts[0].as_deref().or(hosts[1].as_deref()),
            &strict,
            target.method,
            false,
        );
        let mut readings = vec![self.first(hosts[0].as_deref(), &windows, target.method, true)];
        if let (Some(a), Some(b)) = (&hosts[0], &hosts[1])
            && a != b
        {
            readings.push(self.first(Some(b), &strict, target.method, false));
        }
        for other in readings {
            if !Arc::ptr_eq(&first, &other) {
                return Choice::Ambiguous(first.name.clone(), other.name.clone());
            }
        }
        Choice::Route(first)
    }

    fn first(&self, host: Option<&str>, path: &[u8], method: &str, fold: bool) -> Arc<Route> {
        let found = self
            .list
            .iter()
            .find(|r| r.matches.accept(host, path, method, fold));
        found.unwrap_or(&self.default).clone()
    }
}

impl Matches {
    /// `true` if a request for `host`, `path` (canonical) and `method` is under these.
    /// `fold`: compare paths without ASCII case.
    fn accept(&self, host: Option<&str>, path: &[u8], method: &str, fold: bool) -> bool {
        let host_ok = self.hosts.is_empty()
            || host.is_some_and(|h| self.hosts.iter().any(|p| host_matches(p, h)));
        let method_ok = self.methods.is_empty() || self.methods.iter().any(|m| m == method);
        let path_ok = self.paths.is_empty()
            || self.paths.iter().any(|p| match fold {
                false => path_matches(p.as_bytes(), path),
                true => path_matches(
                    &p.to_ascii_lowercase().into_bytes(),
                    &path.to_ascii_lowercase(),
                ),
            });
        host_ok && method_ok && path_ok
    }

    /// `true` if these match every request.
    pub fn is_catch_all(&self) -> bool {
        self.hosts.is_empty() && self.paths.is_empty() && self.methods.is_empty()
    }
}

/// A host header's name: lowercased, without its port, an IP literal's brackets kept.
fn host_name(host: &[u8]) -> String {
    let text = String::from_utf8_lossy(host).to_ascii_lowercase();
    let end = match text.rfind(':') {
        Some(colon) if !text[colon..].contains(']') => colon,
        _ => text.len(),
    };
    text[..end].trim_end_matches('.').to_string()
}

/// `true` if host name `host` matches `pattern` (`example.com` or `*.example.com`).
fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => host
            .strip_suffix(suffix)
            .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        None => pattern.eq_ignore_ascii_case(host),
    }
}

/// `true` if `path` matches `pattern`: a prefix without `*`; a glob over the whole path with.
fn path_matches(pattern: &[u8], path: &[u8]) -> bool {
    if !pattern.contains(&b'*') {
        return path.starts_with(pattern);
    }
    glob(pattern, path)
}

/// Glob matching: `**` any bytes, `*` any bytes but `/`. Iterative, with one backtrack point
/// per star kind (a `*` that cannot take a `/` falls back to the last `**`): O(pattern × path),
/// never recursive.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    // The last `**` and the last `*` since: the pattern after it, where in the text it took.
    let mut deep: Option<(usize, usize)> = None;
    let mut single: Option<(usize, usize)> = None;
    while t < text.len() {
        if pattern[p..].starts_with(b"**") {
            deep = Some((p + 2, t));
            single = None;
            p += 2;
        } else if pattern.get(p) == Some(&b'*') {
            single = Some((p + 1, t));
            p += 1;
        } else if pattern.get(p) == Some(&text[t]) {
            p += 1;
            t += 1;
        } else if let Some((after, taken)) = single.filter(|&(_, s)| text[s] != b'/') {
            single = Some((after, taken + 1));
            (p, t) = (after, taken + 1);
        } else if let Some((after, taken)) = deep {
            deep = Some((after, taken + 1));
            single = None;
            (p, t) = (after, taken + 1);
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&b| b == b'*')
}

/// The path as a backend reads it: percent-decoded once, `;` parameters removed from each
/// segment, empty segments collapsed, dot segments resolved; with `windows`, `\` is `/` too.
pub fn canonical(path: &[u8], windows: bool) -> Vec<u8> {
    let decoded = utf8gate_policy::percent_decode_once(path);
    let mut segments: Vec<&[u8]> = Vec::new();
    let separator = |b: &u8| *b == b'/' || (windows && *b == b'\\');
    for segment in decoded.split(separator) {
        let segment = match segment.iter().position(|&b| b == b';') {
            Some(at) => &segment[..at],
            None => segment,
        };
        match segment {
            b"" | b"." => {}
            b".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = Vec::with_capacity(decoded.len() + 1);
    for s in &segments {
        out.push(b'/');
        out.extend_from_slice(s);
    }
    let trailing = decoded.last().is_some_and(separator) || decoded.ends_with(b"/.");
    if out.is_empty() || (trailing && !segments.is_empty()) {
        out.push(b'/');
    }
    out
}

#[cfg(test)]
mod tests;
