//! Which readings of a request a profile takes: content codings, transfer-encoded multipart
//! parts, foreign charsets and the path semantics of the backend. A layer utf8gate does not
//! read is refused, never passed on unread.

use serde::Deserialize;

/// Content and transfer codings of a body (`gzip`, `deflate`, `br`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CodingReading {
    /// Decode (within the limits) and check the decoded body (default).
    #[default]
    Inspect,
    /// Refuse every coded body (`unsupported_coding`).
    Refuse,
}

/// Multipart parts with `Content-Transfer-Encoding: base64` or `quoted-printable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartEncodingReading {
    /// Refuse them (`transfer_encoded_part`; RFC 7578 §4.7 forbids senders to use it) (default).
    #[default]
    Refuse,
    /// Decode the part and check the decoded content too (backends such as Python's `email`
    /// decode it).
    Decode,
}

/// Bodies and parts whose charset is not UTF-8 or US-ASCII, and the `_charset_` form field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CharsetReading {
    /// Report `foreign_charset` (rejected by the built-in profiles) (default).
    #[default]
    Refuse,
    /// Transcode to UTF-8 (WHATWG encodings) and check the transcoded text as well; an unknown
    /// label is still `foreign_charset`.
    Transcode,
}

/// XML document type declarations (`<!DOCTYPE`), whose entities parsers expand (or load).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XmlDoctypeReading {
    /// Refuse (`xml_doctype`) one that declares entities or attribute defaults, or names an
    /// external DTD other than the W3C's (SVG, XHTML); allow the rest (default).
    #[default]
    WithoutEntities,
    /// Refuse every DOCTYPE.
    Refuse,
}

/// How the backend reads path segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathBackend {
    /// The union of the others: whatever any of them reads as a dot-segment or a separator
    /// counts (default).
    #[default]
    Generic,
    /// Servlet containers and Spring: `;` path parameters are removed from each segment before
    /// dot-segments are resolved (`..;x` is `..`); `\` is a separator.
    Servlet,
    /// IIS and ASP.NET: `\` is a separator; `;` is ordinary.
    Iis,
    /// RFC 3986 only: `/` is the one separator, `;` and `\` are ordinary.
    Rfc3986,
}

/// YAML aliases (`*a`), which hand the application an anchored value a second time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum YamlAliasReading {
    /// Refuse them (`ambiguous_yaml`) (default).
    #[default]
    Refuse,
    /// Let them through: the anchored value is checked where it is written, and an alias is
    /// never expanded.
    Check,
}

/// The contents of an archive's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveContentsReading {
    /// Read the entry names only (default): an extractor's files are not request text, and
    /// reading them costs their uncompressed size, not the upload's.
    #[default]
    Names,
    /// Also check each entry that is text (not binary as an untyped upload is sniffed) as a
    /// text body, at its entry, check-only; within `max_decoded_bytes`, shared
    /// with nested archives: past it `limit_exceeded` at the entry.
    Text,
}

/// How the keys of one JSON object are told apart (`readings::json::fold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonKeyReading {
    /// Keys compared in NFC (default): a key given twice once its escapes are decoded and it
    /// is normalized, and a key with a character Go's case folding maps into ASCII (U+017F,
    /// U+212A), are `ambiguous_json_key`.
    #[default]
    Exact,
    /// As `exact`, and keys also compared by Unicode simple case folding, as Go's
    /// `encoding/json` binds them to struct fields: `action` beside `ACTION` is
    /// `ambiguous_json_key`. For routes whose backend is written in Go.
    Go,
}

impl PathBackend {
    /// `true` if `;` starts a path parameter that the backend removes from its segment.
    pub fn strips_path_parameters(self) -> bool {
        matches!(self, PathBackend::Generic | PathBackend::Servlet)
    }

    /// `true` if `\` separates segments.
    pub fn backslash_separates(self) -> bool {
        !matches!(self, PathBackend::Rfc3986)
    }
}

/// The readings a profile takes (`[readings]` in a profile's TOML).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Readings {
    /// Content and transfer codings.
    pub content_codings: CodingReading,
    /// Transfer-encoded multipart parts.
    pub multipart_transfer_encoding: PartEncodingReading,
    /// Foreign charsets.
    pub charsets: CharsetReading,
    /// XML document type declarations.
    pub xml_doctype: XmlDoctypeReading,
    /// Path semantics.
    pub path_backend: PathBackend,
    /// Headers whose value is a URL, read as one: path and query checked with the path and
    /// query rules (lowercase names; default `referer`, `origin`).
    pub url_headers: Vec<String>,
    /// Headers some frameworks take as the request path (`x-original-url`, `x-rewrite-url`,
    /// `x-forwarded-prefix` by default): checked with the path rules. The proxy listener also
    /// removes (or refuses) them from peers that are not trusted proxies.
    pub path_override_headers: Vec<String>,
    /// YAML aliases.
    pub yaml_aliases: YamlAliasReading,
    /// The contents of archive entries.
    pub archive_contents: ArchiveContentsReading,
    /// How the keys of one JSON object are told apart.
    pub json_keys: JsonKeyReading,
    /// Query and form parameters whose value may be a URL to redirect or call back to
    /// (lowercase names; default `next`, `url`, `redirect`, `redirect_uri`, `return_to`,
    /// `continue`, `callback`): the host of an absolute or scheme-relative URL there is read as
    /// IDNA reads it.
    pub url_parameters: Vec<String>,
    /// Media types (lowercase essences) whose bodies this deployment takes as binary without a
    /// signature or shape to show it (`model/stl`, a vendor's format): not read as text. Empty
    /// by default: a label never hides text (`crate::textual`).
    pub binary_types: Vec<String>,
    /// Media types (lowercase essences) this deployment's backends read as text, added to the
    /// text types (`crate::textual`): read as their type says, whatever their bytes (a
    /// signature in them does not make them binary). Empty by default.
    pub text_types: Vec<String>,
}

impl Readings {
    /// The types this profile adds to the rule of what is text.
    pub(crate) fn added_types(&self) -> crate::textual::Added<'_> {
        crate::textual::Added {
            text: &self.text_types,
            binary: &self.binary_types,
        }
    }
}

impl Default for Readings {
    fn default() -> Readings {
        Readings {
            content_codings: CodingReading::default(),
            multipart_transfer_encoding: PartEncodingReading::default(),
            charsets: CharsetReading::default(),
            xml_doctype: XmlDoctypeReading::default(),
            path_backend: PathBackend::default(),
            url_headers: vec!["referer".into(), "origin".into()],
            path_override_headers: vec![
                "x-original-url".into(),
                "x-rewrite-url".into(),
                "x-forwarded-prefix".into(),
            ],
            yaml_aliases: YamlAliasReading::default(),
            archive_contents: ArchiveContentsReading::default(),
            json_keys: JsonKeyReading::default(),
            url_parameters: [
                "next",
                "url",
                "redirect",
                "redirect_uri",
                "return_to",
                "continue",
                "callback",
            ]
            .map(String::from)
            .to_vec(),
            binary_types: Vec::new(),
            text_types: Vec::new(),
        }
    }
}
