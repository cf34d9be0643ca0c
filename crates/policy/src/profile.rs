//! Profiles: which action each finding kind gets in each location class, and the limits.
//!
//! Four are built in (`strict`, the default; `windows-backend`; `lossy`; `monitor`) and any
//! number can be loaded from TOML. Loading is the only thing in the policy crate that can fail,
//! and its errors carry the source name, line and column.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::checks::lookalike::Table;
use crate::exclusion::{Exclusion, ExclusionSpec};
use crate::finding::{Action, FindingKind};
use crate::identity::{Identity, IdentitySpec};
use crate::location::{LocationClass, Part};

mod error;
mod limits;
mod raw_rule;
mod readings;
mod table;
pub use error::ProfileError;
use error::{line_of, nth_line_of};
pub use limits::Limits;
use raw_rule::RawRule;
pub use readings::{
    ArchiveContentsReading, CharsetReading, CodingReading, JsonKeyReading, PartEncodingReading,
    PathBackend, Readings, XmlDoctypeReading, YamlAliasReading,
};
use table::ActionTable;

/// The action for one kind: a default and per-class overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Used where no class override applies.
    pub default: Action,
    /// Overrides by location class.
    pub classes: BTreeMap<LocationClass, Action>,
}

impl Rule {
    /// `action` in every location class.
    pub fn everywhere(action: Action) -> Rule {
        Rule {
            default: action,
            classes: BTreeMap::new(),
        }
    }

    fn with(mut self, classes: &[LocationClass], action: Action) -> Rule {
        for &c in classes {
            self.classes.insert(c, action);
        }
        self
    }
}

/// A complete policy: actions per kind and class, lookalike table, limits, enforcement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name, reported in every verdict (shared with them, not copied).
    pub name: std::sync::Arc<str>,
    /// Report decisions without enforcing them.
    pub monitor: bool,
    /// Which lookalikes are reported.
    pub lookalikes: Table,
    /// Inspect multipart parts and bodies whose content type is not text.
    pub scan_binary: bool,
    /// Work bounds.
    pub limits: Limits,
    /// Which decoding layers are read (and how) beyond the default ones.
    pub readings: Readings,
    /// Findings exempted at named places, reported as `excluded`.
    pub exclusions: Vec<Exclusion>,
    /// Identity fields: values held to a PRECIS profile and a UTS #39 restriction level.
    pub identities: Vec<Identity>,
    rules: BTreeMap<FindingKind, Rule>,
    /// Every kind's action in every location class, worked out from `rules` whenever they
    /// change: [`Profile::action`] is asked per kind and field.
    table: ActionTable,
}

use Action::*;
use LocationClass as C;

/// URLs, headers, and archive entry names (file names an extractor writes to disk).
const URL_AND_HEADERS: &[LocationClass] = &[C::Path, C::Query, C::Header, C::Archive];

impl Profile {
    /// The names of the built-in profiles.
    pub const BUILT_IN: [&'static str; 4] = ["strict", "windows-backend", "lossy", "monitor"];

    /// A built-in profile by name.
    pub fn built_in(name: &str) -> Option<Profile> {
        match name {
            "strict" => Some(Profile::strict()),
            "windows-backend" => Some(Profile::windows_backend()),
            "lossy" => Some(Profile::lossy()),
            "monitor" => Some(Profile {
                name: "monitor".into(),
                monitor: true,
                ..Profile::strict()
            }),
            _ => None,
        }
    }

    /// The default profile: malformed UTF-8 anywhere, traversal, NUL and bidi controls in
    /// URLs and headers are rejected; a body's signature is stripped; text is normalized to
    /// NFC in bodies, queries and form and JSON strings, and logged in paths and headers.
    pub fn strict() -> Profile {
        let mut rules = BTreeMap::new();
        for &kind in FindingKind::ALL {
            let rule = match kind {
                k if k.is_malformed_utf8() => Rule::everywhere(Reject),
                FindingKind::MalformedEscape => Rule::everywhere(Log).with(&[C::Path], Reject),
                FindingKind::IisUnicodeEscape | FindingKind::DoubleEncoding => {
                    Rule::everywhere(Log).with(&[C::Path, C::Query, C::Form], Reject)
                }
                FindingKind::EncodedSeparator => Rule::everywhere(Log),
                FindingKind::Traversal => Rule::everywhere(Reject),
                FindingKind::DotSegment => {
                    Rule::everywhere(Log).with(&[C::Path, C::Multipart, C::Archive], Reject)
                }
                FindingKind::Bom => Rule::everywhere(Strip),
                FindingKind::MisplacedBom => Rule::everywhere(Log).with(URL_AND_HEADERS, Reject),
                // An archive name not in NFC reads two ways: libarchive (bsdtar) writes its NFC
                // form, Info-ZIP and Python the bytes as they are.
                FindingKind::NotNfc => Rule::everywhere(Normalize)
                    .with(&[C::Path, C::Header], Log)
                    .with(&[C::Archive], Reject),
                FindingKind::ExcessiveCombining => Rule::everywhere(Reject),
                FindingKind::Lookalike => Rule::everywhere(Log),
                FindingKind::Nul => Rule::everywhere(Reject),
                // XML 1.0 forbids the C0 controls but TAB, LF, CR, even as references (§2.2).
                FindingKind::Control => {
                    let classes = [C::Path, C::Query, C::Header, C::Xml, C::Archive];
                    Rule::everywhere(Log).with(&classes, Reject)
                }
                FindingKind::BidiControl => Rule::everywhere(Log).with(URL_AND_HEADERS, Reject),
                FindingKind::Noncharacter => Rule::everywhere(Log),
                FindingKind::EscapedSurrogate => Rule::everywhere(Reject),
                FindingKind::ForeignCharset => Rule::everywhere(Reject),
                FindingKind::MalformedBody => Rule::everywhere(Reject),
                // What a front did not send cannot be judged: said, not refused (a route's
                // `require_body` refuses it).
                FindingKind::BodyNotInspected => Rule::everywhere(Log),
                _ => Rule::everywhere(Reject),
            };
            rules.insert(kind, rule);
        }
        let mut profile = Profile {
            name: "strict".into(),
            monitor: false,
            lookalikes: Table::Default,
            scan_binary: false,
            limits: Limits::default(),
            readings: Readings::default(),
            exclusions: Vec::new(),
            identities: Vec::new(),
            rules,
            table: ActionTable::default(),
        };
        profile.tabulate();
        profile
    }

    /// `strict` plus every best-fit lookalike of ASCII syntax rejected in path, query and
    /// headers (WorstFit; CVE-2024-4577).
    pub fn windows_backend() -> Profile {
        let mut p = Profile::strict();
        p.name = "windows-backend".into();
        p.lookalikes = Table::BestFit;
        p.set(
            FindingKind::Lookalike,
            Rule::everywhere(Log).with(URL_AND_HEADERS, Reject),
        );
        p
    }

    /// Every malformed sequence replaced by U+FFFD per maximal subpart, nothing else changed:
    /// a sanitized text body is byte-identical to `String::from_utf8_lossy` (a field of 64 KiB or
    /// more whose repair would grow it by more than a quarter is refused, `limit_exceeded`).
    pub fn lossy() -> Profile {
        let mut p = Profile::strict();
        p.name = "lossy".into();
        for &kind in FindingKind::ALL {
            let action = match kind {
                k if k.is_malformed_utf8() => Replace,
                FindingKind::LimitExceeded | FindingKind::StringFieldsOnly => Reject,
                // Two readings of one request are not text to repair.
                k if k.is_reading() => Reject,
                _ => Log,
            };
            p.set(kind, Rule::everywhere(action));
        }
        p
    }

    /// Replaces the rule of one kind.
    pub fn set(&mut self, kind: FindingKind, rule: Rule) {
        self.rules.insert(kind, rule);
        self.tabulate();
    }

    /// Works out the table from `rules`.
    fn tabulate(&mut self) {
        let rules = &self.rules;
        self.table = ActionTable::of(|kind, class| match rules.get(&kind) {
            Some(rule) => rule.classes.get(&class).copied().unwrap_or(rule.default),
            None => Reject,
        });
    }

    /// The kinds (bit `kind.index()`) a field of class `class` may have rewritten: those whose
    /// action there rewrites, and the identity kinds when the profile has identity fields.
    pub(crate) fn rewriting(&self, class: LocationClass) -> u64 {
        self.table.rewriting(class, !self.identities.is_empty())
    }

    /// The rule of one kind.
    pub fn rule(&self, kind: FindingKind) -> Option<&Rule> {
        self.rules.get(&kind)
    }

    /// The action for `kind` found in `part`.
    pub fn action(&self, kind: FindingKind, part: Part) -> Action {
        self.table.action(kind, part.class())
    }

    /// Loads a profile from TOML. `source` names the text in errors (a file path, say).
    ///
    /// ```toml
    /// name = "custom"
    /// base = "strict"            # built-in profile to start from
    /// monitor = false
    /// lookalikes = "default"     # or "best_fit"
    /// scan_binary = false
    /// [limits]
    /// max_json_depth = 32
    /// [actions.not_nfc]
    /// default = "log"
    /// query = "normalize"
    /// ```
    pub fn from_toml(text: &str, source: &str) -> Result<Profile, ProfileError> {
        let raw: RawProfile =
            toml::from_str(text).map_err(|e| ProfileError::from_toml(&e, text, source))?;
        let base = raw.base.as_deref().unwrap_or("strict");
        let mut profile = Profile::built_in(base).ok_or_else(|| ProfileError {
            source: source.to_string(),
            line: line_of(text, "base"),
            column: 1,
            message: format!(
                "unknown base profile {base:?} (built in: {})",
                Profile::BUILT_IN.join(", ")
            ),
        })?;
        profile.name = raw.name.into();
        if let Some(m) = raw.monitor {
            profile.monitor = m;
        }
        if let Some(t) = raw.lookalikes {
            profile.lookalikes = t;
        }
        if let Some(s) = raw.scan_binary {
            profile.scan_binary = s;
        }
        if let Some(limits) = raw.limits {
            profile.limits = limits;
        }
        if let Some(readings) = raw.readings {
            profile.readings = readings;
        }
        for (name, raw_rule) in raw.actions {
            let err = |message: String| ProfileError {
                source: source.to_string(),
                line: line_of(text, &format!("actions.{name}")),
                column: 1,
                message,
            };
            let kind = FindingKind::from_name(&name)
                .ok_or_else(|| err(format!("unknown finding kind {name:?}")))?;
            if kind.is_identity() {
                return Err(err(format!(
                    "{name}: an [[identity]] table sets its action"
                )));
            }
            let mut rule = profile
                .rules
                .get(&kind)
                .cloned()
                .unwrap_or_else(|| Rule::everywhere(Reject));
            if let Some(d) = raw_rule.default {
                rule.default = d;
                rule.classes.clear();
            }
            for (class, action) in raw_rule.classes() {
                rule.classes.insert(class, action);
            }
            for action in std::iter::once(rule.default).chain(rule.classes.values().copied()) {
                if !kind.allowed_actions().contains(&action) {
                    return Err(err(format!(
                        "action {:?} does not apply to {name}",
                        action.as_str()
                    )));
                }
            }
            profile.rules.insert(kind, rule);
        }
        profile.tabulate();
        for (n, spec) in raw.exclusion.into_iter().enumerate() {
            let exclusion = spec.build().map_err(|message| ProfileError {
                source: source.to_string(),
                line: nth_line_of(text, "[[exclusion]]", n),
                column: 1,
                message,
            })?;
            profile.exclusions.push(exclusion);
        }
        for (n, spec) in raw.identity.into_iter().enumerate() {
            let identity = spec.build().map_err(|message| ProfileError {
                source: source.to_string(),
                line: nth_line_of(text, "[[identity]]", n),
                column: 1,
                message,
            })?;
            profile.identities.push(identity);
        }
        let l = &profile.limits;
        let archive = [
            l.max_archive_entries,
            l.max_archive_name_bytes,
            l.max_archive_depth,
        ];
        if l.max_findings == 0
            || l.max_json_depth == 0
            || l.max_multipart_depth == 0
            || l.max_expansion_ratio == 0
            || archive.contains(&0)
            || l.max_archive_unpacked_bytes == 0
        {
            return Err(ProfileError {
                source: source.to_string(),
                line: line_of(text, "[limits]"),
                column: 1,
                message: "limits must be at least 1".to_string(),
            });
        }
        Ok(profile)
    }
}

impl Default for Profile {
    fn default() -> Profile {
        Profile::strict()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: String,
    base: Option<String>,
    monitor: Option<bool>,
    lookalikes: Option<Table>,
    scan_binary: Option<bool>,
    limits: Option<Limits>,
    readings: Option<Readings>,
    #[serde(default)]
    actions: BTreeMap<String, RawRule>,
    #[serde(default)]
    exclusion: Vec<ExclusionSpec>,
    #[serde(default)]
    identity: Vec<IdentitySpec>,
}

#[cfg(test)]
mod tests;
