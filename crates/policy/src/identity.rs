//! Identity fields: values an application compares rather than reads (usernames, nicknames,
//! opaque strings such as passwords), named by a selector (`[[identity]]` in profiles,
//! `[[route.identity]]` in routes) and checked against their PRECIS profile (RFC 8264, 8265,
//! 8266) and, for usernames and nicknames, a UTS #39 restriction level. The check itself is
//! [`check`]; its findings take the identity's action, never a profile rule's.

use serde::{Deserialize, Serialize};

use crate::exclusion::Target;
use crate::finding::{Action, FindingKind};
use crate::location::{Location, Part};

pub(crate) mod check;

/// Which PRECIS profile an identity field is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityKind {
    /// RFC 8265 §3: `UsernameCasePreserved` enforced (width, NFC, bidi rule, the
    /// IdentifierClass), `UsernameCaseMapped` as the comparison form; no case collisions;
    /// the restriction level.
    Username,
    /// RFC 8266: `Nickname` enforced (spaces, NFKC, FreeformClass), lower-cased NFKC as the
    /// comparison form; no case collisions; the restriction level.
    Nickname,
    /// RFC 8265 §4: `OpaqueString` (passwords, secrets): enforced only; nothing of the value is
    /// written into the verdict.
    Opaque,
}

impl IdentityKind {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            IdentityKind::Username => "username",
            IdentityKind::Nickname => "nickname",
            IdentityKind::Opaque => "opaque",
        }
    }

    /// The action when the table sets none: `reject` for usernames and nicknames (both are
    /// compared for uniqueness, RFC 8265 §3.1, RFC 8266 §2.4), `log` for opaque strings (a
    /// gateway that refuses or rewrites a password can lock out an account whose stored hash
    /// was made from the unenforced form).
    pub const fn default_action(self) -> IdentityAction {
        match self {
            IdentityKind::Username | IdentityKind::Nickname => IdentityAction::Reject,
            IdentityKind::Opaque => IdentityAction::Log,
        }
    }
}

/// What happens to an identity field with findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityAction {
    /// Refuse the request.
    Reject,
    /// Rewrite the field to its enforced form; what no rewrite can fix (a disallowed code point,
    /// a case collision, mixed scripts) is refused.
    Rewrite,
    /// Report only.
    Log,
}

/// UTS #39 §5.2 restriction levels, least restrictive last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Restriction {
    /// ASCII only.
    AsciiOnly,
    /// One script (plus Common and Inherited).
    SingleScript,
    /// One script, or Latin with Han and Hiragana/Katakana, Han and Bopomofo, or Han and Hangul.
    HighlyRestrictive,
    /// Highly restrictive, or Latin with one other Recommended script but Cyrillic and Greek.
    ModeratelyRestrictive,
    /// Any Recommended scripts.
    MinimallyRestrictive,
    /// Anything.
    Unrestricted,
}

impl Restriction {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Restriction::AsciiOnly => "ascii_only",
            Restriction::SingleScript => "single_script",
            Restriction::HighlyRestrictive => "highly_restrictive",
            Restriction::ModeratelyRestrictive => "moderately_restrictive",
            Restriction::MinimallyRestrictive => "minimally_restrictive",
            Restriction::Unrestricted => "unrestricted",
        }
    }
}

/// One identity field: where, which profile, what to do, which restriction level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// Where: the values of this selector (never names, filenames or the path).
    pub target: Target,
    /// Which PRECIS profile.
    pub kind: IdentityKind,
    /// What happens to a field with findings.
    pub action: IdentityAction,
    /// The least restrictive UTS #39 level allowed (usernames and nicknames).
    pub restriction: Restriction,
    /// Longest value checked, in bytes; a longer one is `identity_disallowed`.
    pub max_bytes: usize,
}

impl Identity {
    /// `true` if this identity names the field at `location` of a request with path `path`:
    /// the selector matches and the field is a value (query, form or cookie value, header
    /// value, JSON string, multipart content).
    pub fn matches(&self, location: &Location, path: &[u8]) -> bool {
        matches!(
            location.part,
            Part::QueryValue
                | Part::FormValue
                | Part::CookieValue
                | Part::Header
                | Part::JsonString
                | Part::XmlText
                | Part::YamlString
                | Part::MultipartContent
        ) && self.target.matches(location, path)
    }

    /// The action of an identity finding of `kind` under this identity.
    pub fn action_for(&self, kind: FindingKind) -> Action {
        match self.action {
            IdentityAction::Reject => Action::Reject,
            IdentityAction::Log => Action::Log,
            IdentityAction::Rewrite if kind == FindingKind::IdentityNotEnforced => Action::Rewrite,
            IdentityAction::Rewrite => Action::Reject,
        }
    }
}

/// An identity field as written in a profile file (`[[identity]]`) or a route
/// (`[[route.identity]]`): one selector key (as exclusions, but `path`), `kind`, and optionally
/// `action`, `restriction` and `max_bytes`.
///
/// ```toml
/// [[identity]]
/// form = "username"
/// kind = "username"                      # username | nickname | opaque
/// action = "reject"                      # reject | rewrite | log
/// restriction = "moderately_restrictive" # UTS #39 level
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentitySpec {
    /// Which PRECIS profile.
    pub kind: IdentityKind,
    /// What to do; the kind's default when unset.
    pub action: Option<IdentityAction>,
    /// The least restrictive level allowed (default `moderately_restrictive`).
    pub restriction: Option<Restriction>,
    /// Longest value checked (default 256 bytes).
    pub max_bytes: Option<usize>,
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
    /// An XML path, `*` for any one step.
    pub xml: Option<String>,
    /// A YAML path as a JSON pointer, `*` for any one segment.
    pub yaml: Option<String>,
    /// A multipart field name.
    pub multipart: Option<String>,
}

impl IdentitySpec {
    /// Default of `max_bytes`.
    pub const DEFAULT_MAX_BYTES: usize = 256;

    /// The identity, or why it is not one: no selector or several, a selector that can never
    /// match, `max_bytes` outside 1..=65536.
    pub fn build(self) -> Result<Identity, String> {
        let selectors = [
            ("query", self.query),
            ("form", self.form),
            ("header", self.header),
            ("cookie", self.cookie),
            ("json", self.json),
            ("xml", self.xml),
            ("yaml", self.yaml),
            ("multipart", self.multipart),
        ];
        let target = Target::one_of(selectors, "an identity")?;
        if let Some(why) = target.never_matches() {
            return Err(format!("this identity can never match: {why}"));
        }
        let max_bytes = self.max_bytes.unwrap_or(Self::DEFAULT_MAX_BYTES);
        if !(1..=65_536).contains(&max_bytes) {
            return Err(format!("max_bytes {max_bytes} is outside 1..=65536"));
        }
        Ok(Identity {
            target,
            kind: self.kind,
            action: self.action.unwrap_or(self.kind.default_action()),
            restriction: self
                .restriction
                .unwrap_or(Restriction::ModeratelyRestrictive),
            max_bytes,
        })
    }
}

/// What the verdict says about one identity field: its comparison form and skeleton, for the
/// application to compare with the ones it stores. Listed for every identity field, with
/// findings or without.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityReport {
    /// Which field.
    pub location: Location,
    /// Its PRECIS profile.
    pub kind: IdentityKind,
    /// The comparison form (`UsernameCaseMapped` for usernames, lower-cased NFKC of the
    /// enforced `Nickname` for nicknames); `null` when refused, and always for `opaque`.
    pub enforced: Option<String>,
    /// The UTS #39 §4 confusable skeleton of the comparison form; `null` as `enforced` is.
    pub skeleton: Option<String>,
    /// The scripts of its letters (Unicode names, Common and Inherited left out), in order.
    pub scripts: Vec<String>,
    /// Its UTS #39 restriction level (`null` for `opaque`).
    pub restriction: Option<Restriction>,
}

#[cfg(test)]
mod tests;
