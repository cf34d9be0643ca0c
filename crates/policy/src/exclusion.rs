//! Exclusions: a finding kind (or every kind) exempted at one named place of a request, the
//! precise tuning that ModSecurity calls `ctl:ruleRemoveTargetById`.
//!
//! An excluded finding is still reported, with the action [`Action::Excluded`]: it neither
//! rejects nor rewrites, and the audit line and metrics count it. The kinds that mean "utf8gate
//! could not read (the rest of) this request" cannot be exempted: the reading kinds (two
//! readings of one request), `limit_exceeded` and `malformed_body`. A request whose readings
//! disagree is refused whatever the exclusions say.

use serde::{Deserialize, Serialize};

use crate::finding::{Action, FindingKind};
use crate::location::{Location, Part};

/// One exemption: which kinds, where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exclusion {
    /// The kinds exempted; empty means every kind that can be exempted.
    pub kinds: Vec<FindingKind>,
    /// Where.
    pub target: Target,
}

/// The place an exclusion applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// A query parameter, by decoded name: its name and its values.
    Query(String),
    /// An `application/x-www-form-urlencoded` field, by decoded name.
    Form(String),
    /// A header, by name (any case): its value, its RFC 8187 parameters, a URL header's path.
    Header(String),
    /// A cookie, by decoded name: its name and its value. (The checks of the whole `Cookie`
    /// line, such as its lax reading for traversal, are the header's: `header = "cookie"`.)
    Cookie(String),
    /// JSON keys and strings at a JSON pointer (RFC 6901); a `*` segment matches any one
    /// segment (an array index or a member name).
    Json(String),
    /// XML names and text at an XPath-like path (`/feed/entry[2]/title`); a `*` segment
    /// matches any one step.
    Xml(String),
    /// YAML keys and scalars at a path written as a JSON pointer; `*` as for `json`.
    Yaml(String),
    /// A multipart part, by its `name`: name, filename, part headers and content.
    Multipart(String),
    /// The request path, when it starts with this prefix (raw bytes, as received).
    Path(String),
    /// Archive entries whose name (lossily decoded) starts with this prefix.
    Archive(String),
}

impl Target {
    /// The selector's key in configuration files (`query`, `header`, ...).
    pub fn key(&self) -> &'static str {
        match self {
            Target::Query(_) => "query",
            Target::Form(_) => "form",
            Target::Header(_) => "header",
            Target::Cookie(_) => "cookie",
            Target::Json(_) => "json",
            Target::Xml(_) => "xml",
            Target::Yaml(_) => "yaml",
            Target::Multipart(_) => "multipart",
            Target::Path(_) => "path",
            Target::Archive(_) => "archive",
        }
    }

    /// The selector's value.
    pub fn value(&self) -> &str {
        match self {
            Target::Query(v)
            | Target::Form(v)
            | Target::Header(v)
            | Target::Cookie(v)
            | Target::Json(v)
            | Target::Xml(v)
            | Target::Yaml(v)
            | Target::Multipart(v)
            | Target::Path(v)
            | Target::Archive(v) => v,
        }
    }

    /// A target from its configuration key and value; `None` for an unknown key.
    pub fn from_key(key: &str, value: String) -> Option<Target> {
        Some(match key {
            "query" => Target::Query(value),
            "form" => Target::Form(value),
            "header" => Target::Header(value),
            "cookie" => Target::Cookie(value),
            "json" => Target::Json(value),
            "xml" => Target::Xml(value),
            "yaml" => Target::Yaml(value),
            "multipart" => Target::Multipart(value),
            "path" => Target::Path(value),
            "archive" => Target::Archive(value),
            _ => return None,
        })
    }

    /// The configuration keys, in documentation order.
    pub const KEYS: [&'static str; 10] = [
        "query",
        "form",
        "header",
        "cookie",
        "json",
        "xml",
        "yaml",
        "multipart",
        "path",
        "archive",
    ];

    /// The one target among `selectors` (configuration key, value if set), or why there is not
    /// one: none set, or several. `what` names the table in the message ("an exclusion").
    pub fn one_of<const N: usize>(
        selectors: [(&str, Option<String>); N],
        what: &str,
    ) -> Result<Target, String> {
        let mut targets = selectors
            .into_iter()
            .filter_map(|(key, value)| value.and_then(|v| Target::from_key(key, v)));
        match (targets.next(), targets.next()) {
            (Some(t), None) => Ok(t),
            (None, _) => Err(format!(
                "{what} needs one selector: {}",
                Target::KEYS.join(", ")
            )),
            (Some(a), Some(b)) => Err(format!(
                "{what} has one selector, not {} and {}",
                a.key(),
                b.key()
            )),
        }
    }

    /// `true` if a finding at `location` of a request with path `path` is at this target.
    pub fn matches(&self, location: &Location, path: &[u8]) -> bool {
        let name = location.name.as_deref();
        match self {
            Target::Query(n) => {
                matches!(location.part, Part::QueryKey | Part::QueryValue) && name == Some(n)
            }
            Target::Form(n) => {
                matches!(location.part, Part::FormKey | Part::FormValue) && name == Some(n)
            }
            Target::Cookie(n) => {
                matches!(location.part, Part::CookieName | Part::CookieValue) && name == Some(n)
            }
            Target::Header(n) => {
                matches!(
                    location.part,
                    Part::Header | Part::HeaderParameter | Part::UrlPath
                ) && name.is_some_and(|name| name.eq_ignore_ascii_case(n))
            }
            Target::Multipart(n) => {
                location.part.class() == crate::LocationClass::Multipart && name == Some(n)
            }
            Target::Json(pattern) | Target::Xml(pattern) | Target::Yaml(pattern) => {
                let class = match self {
                    Target::Json(_) => crate::LocationClass::Json,
                    Target::Xml(_) => crate::LocationClass::Xml,
                    _ => crate::LocationClass::Yaml,
                };
                location.part.class() == class
                    && location
                        .pointer
                        .as_deref()
                        .is_some_and(|p| pointer_matches(pattern, p))
            }
            Target::Path(prefix) => {
                location.part == Part::Path && path.starts_with(prefix.as_bytes())
            }
            Target::Archive(prefix) => {
                location.part == Part::ArchiveEntry && name.is_some_and(|n| n.starts_with(prefix))
            }
        }
    }

    /// Why this target can never match, if it cannot (a lint for `check-config`).
    pub fn never_matches(&self) -> Option<String> {
        match self {
            _ if self.value().is_empty() => Some(format!("an empty {} selector", self.key())),
            Target::Json(p) | Target::Xml(p) | Target::Yaml(p) if !p.starts_with('/') => {
                Some(format!("{} path {p:?} does not start with '/'", self.key()))
            }
            Target::Path(p) if !p.starts_with('/') => {
                Some(format!("path prefix {p:?} does not start with '/'"))
            }
            Target::Header(h) if !h.bytes().all(is_tchar) => {
                Some(format!("{h:?} is not a header name (RFC 9110 §5.1)"))
            }
            _ => None,
        }
    }
}

/// RFC 9110 §5.6.2 token characters.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// `true` if JSON pointer `pointer` matches `pattern`, segment by segment, `*` matching any
/// one segment.
fn pointer_matches(pattern: &str, pointer: &str) -> bool {
    let mut want = pattern.split('/');
    let mut have = pointer.split('/');
    loop {
        match (want.next(), have.next()) {
            (None, None) => return true,
            (Some(w), Some(h)) if w == "*" || w == h => {}
            _ => return false,
        }
    }
}

impl Exclusion {
    /// `true` for the kinds no exclusion may exempt.
    pub fn is_exemptable(kind: FindingKind) -> bool {
        !(kind.is_reading()
            || matches!(
                kind,
                FindingKind::LimitExceeded
                    | FindingKind::MalformedBody
                    | FindingKind::StringFieldsOnly
            ))
    }

    /// `true` if this exclusion exempts `kind` at `location`.
    pub fn exempts(&self, kind: FindingKind, location: &Location, path: &[u8]) -> bool {
        Exclusion::is_exemptable(kind)
            && (self.kinds.is_empty() || self.kinds.contains(&kind))
            && self.target.matches(location, path)
    }
}

/// `action`, or [`Action::Excluded`] if one of `exclusions` exempts `kind` at `location`.
pub(crate) fn apply(
    exclusions: &[Exclusion],
    kind: FindingKind,
    location: &Location,
    path: &[u8],
    action: Action,
) -> Action {
    if exclusions.iter().any(|e| e.exempts(kind, location, path)) {
        Action::Excluded
    } else {
        action
    }
}

/// An exclusion as written in a profile file (`[[exclusion]]`) or a route of the server's
/// configuration (`[[route.exclusion]]`): `kinds` (names, or `["*"]` for every kind that can be
/// exempted: never implied) and exactly one selector key.
///
/// ```toml
/// [[exclusion]]
/// kinds = ["not_nfc", "lookalike"]
/// json = "/comments/*/body"
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExclusionSpec {
    /// Finding kind names, or `"*"`.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// A query parameter name.
    pub query: Option<String>,
    /// A form field name.
    pub form: Option<String>,
    /// A header name.
    pub header: Option<String>,
    /// A cookie name.
    pub cookie: Option<String>,
    /// A JSON pointer, `*` for any one segment.
    pub json: Option<String>,
    /// An XML path (`/feed/entry[2]/title`), `*` for any one step.
    pub xml: Option<String>,
    /// A YAML path as a JSON pointer, `*` for any one segment.
    pub yaml: Option<String>,
    /// A multipart field name.
    pub multipart: Option<String>,
    /// A path prefix.
    pub path: Option<String>,
    /// An archive entry name prefix.
    pub archive: Option<String>,
}

impl ExclusionSpec {
    /// The exclusion, or why it is not one: an unknown kind, a kind that cannot be exempted,
    /// no selector or several, a selector that can never match.
    pub fn build(self) -> Result<Exclusion, String> {
        if self.kinds.is_empty() {
            return Err(
                "an exclusion lists its kinds, or [\"*\"] for every kind that can be exempted"
                    .to_string(),
            );
        }
        let selectors = [
            ("query", self.query),
            ("form", self.form),
            ("header", self.header),
            ("cookie", self.cookie),
            ("json", self.json),
            ("xml", self.xml),
            ("yaml", self.yaml),
            ("multipart", self.multipart),
            ("path", self.path),
            ("archive", self.archive),
        ];
        let target = Target::one_of(selectors, "an exclusion")?;
        if let Some(why) = target.never_matches() {
            return Err(format!("this exclusion can never match: {why}"));
        }
        let mut kinds = Vec::new();
        for name in &self.kinds {
            if name == "*" {
                continue;
            }
            let kind = FindingKind::from_name(name)
                .ok_or_else(|| format!("unknown finding kind {name:?}"))?;
            if !Exclusion::is_exemptable(kind) {
                return Err(format!(
                    "{name} cannot be excluded: it means the request could not be read one way"
                ));
            }
            kinds.push(kind);
        }
        if self.kinds.iter().any(|k| k == "*") && !kinds.is_empty() {
            return Err("\"*\" already names every kind; list it alone".to_string());
        }
        Ok(Exclusion { kinds, target })
    }
}

#[cfg(test)]
mod tests;
