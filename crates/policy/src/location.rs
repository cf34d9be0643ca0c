//! Where in a request a field (and so a finding) is.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

/// The part of a request a field comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The request path, percent-decoded once.
    Path,
    /// A query parameter's name.
    QueryKey,
    /// A query parameter's value.
    QueryValue,
    /// A header value (raw bytes).
    Header,
    /// A `application/x-www-form-urlencoded` field name.
    FormKey,
    /// A `application/x-www-form-urlencoded` field value.
    FormValue,
    /// A JSON object key (escapes decoded).
    JsonKey,
    /// A JSON string value (escapes decoded).
    JsonString,
    /// A multipart part's `name` parameter.
    MultipartName,
    /// A multipart part's `filename` (or decoded `filename*`) parameter.
    MultipartFilename,
    /// A header of a multipart part.
    MultipartHeader,
    /// A multipart part's content.
    MultipartContent,
    /// A whole text body (`text/*` and unknown types), or the start of any body.
    Body,
    /// A cookie's name in `Cookie`, percent-decoded (as PHP and Express read it).
    CookieName,
    /// A cookie's value in `Cookie`, percent-decoded.
    CookieValue,
    /// The path of a URL-valued header (`Referer`, `Origin`) or of a path-override header
    /// (`X-Original-URL`), percent-decoded once.
    UrlPath,
    /// A query name or value of a URL-valued or path-override header, percent-decoded.
    UrlQuery,
    /// An RFC 8187 extended parameter of a header (`title*=UTF-8''...`), decoded.
    HeaderParameter,
    /// An XML element, attribute or processing-instruction target name; `pointer` is its
    /// XPath-like path (`/feed/entry[2]/@href`).
    XmlName,
    /// XML character data (text, CDATA, attribute values, comments, processing-instruction
    /// data), character and entity references decoded; `pointer` is its XPath-like path.
    XmlText,
    /// A YAML mapping key (a scalar of any style, escapes decoded); `pointer` is its path as
    /// an RFC 6901 pointer, prefixed by the document's index in a stream of several.
    YamlKey,
    /// A YAML scalar value of any style, escapes decoded; `pointer` as for keys.
    YamlString,
    /// An archive entry's name (ZIP, tar), or its link target (`pointer` `/link`): `index` is
    /// the entry's index (from 0), `name` the name lossily decoded.
    ArchiveEntry,
}

impl Part {
    /// The coarse class a profile configures actions for.
    pub fn class(self) -> LocationClass {
        match self {
            Part::Path => LocationClass::Path,
            Part::QueryKey | Part::QueryValue => LocationClass::Query,
            Part::Header => LocationClass::Header,
            Part::FormKey | Part::FormValue => LocationClass::Form,
            Part::JsonKey | Part::JsonString => LocationClass::Json,
            Part::XmlName | Part::XmlText => LocationClass::Xml,
            Part::YamlKey | Part::YamlString => LocationClass::Yaml,
            Part::ArchiveEntry => LocationClass::Archive,
            Part::MultipartName
            | Part::MultipartFilename
            | Part::MultipartHeader
            | Part::MultipartContent => LocationClass::Multipart,
            Part::Body => LocationClass::Body,
            // Decoded like a query pair, configured like one.
            Part::CookieName | Part::CookieValue | Part::UrlQuery | Part::HeaderParameter => {
                LocationClass::Query
            }
            Part::UrlPath => LocationClass::Path,
        }
    }

    /// `true` for fields that carry free text, where TAB, CR and LF are ordinary.
    pub fn is_text_content(self) -> bool {
        matches!(
            self,
            Part::FormValue
                | Part::JsonString
                | Part::XmlText
                | Part::YamlString
                | Part::MultipartContent
                | Part::Body
        )
    }

    /// `false` for fields that cannot be written back alone: an XML element or attribute
    /// name (an end tag repeats it), a YAML key or scalar (its bytes depend on its style and
    /// indentation), an archive entry name (a ZIP names it twice, with a CRC beside). An action
    /// that would rewrite one rejects instead.
    pub fn is_rewritable(self) -> bool {
        !matches!(
            self,
            Part::XmlName | Part::YamlKey | Part::YamlString | Part::ArchiveEntry
        )
    }

    /// `true` for fields whose bytes name a file system path or route.
    pub fn is_path_like(self) -> bool {
        matches!(
            self,
            Part::Path | Part::MultipartFilename | Part::UrlPath | Part::ArchiveEntry
        )
    }
}

/// The classes of locations a profile sets actions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationClass {
    /// The path.
    Path,
    /// Query names and values.
    Query,
    /// Header values.
    Header,
    /// Form field names and values.
    Form,
    /// JSON keys and strings.
    Json,
    /// XML names and character data.
    Xml,
    /// YAML keys and scalars.
    Yaml,
    /// Multipart names, filenames, part headers and contents.
    Multipart,
    /// Whole text bodies.
    Body,
    /// Archive entry names and link targets.
    Archive,
}

impl LocationClass {
    /// Every class.
    pub const ALL: [LocationClass; 10] = [
        LocationClass::Path,
        LocationClass::Query,
        LocationClass::Header,
        LocationClass::Form,
        LocationClass::Json,
        LocationClass::Xml,
        LocationClass::Yaml,
        LocationClass::Multipart,
        LocationClass::Body,
        LocationClass::Archive,
    ];

    /// The snake_case name used in profiles.
    pub fn as_str(self) -> &'static str {
        match self {
            LocationClass::Path => "path",
            LocationClass::Query => "query",
            LocationClass::Header => "header",
            LocationClass::Form => "form",
            LocationClass::Json => "json",
            LocationClass::Xml => "xml",
            LocationClass::Yaml => "yaml",
            LocationClass::Multipart => "multipart",
            LocationClass::Body => "body",
            LocationClass::Archive => "archive",
        }
    }
}

/// Where a field is: its part and, as applicable, its name, JSON pointer or part index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    /// The part of the request.
    pub part: Part,
    /// Parameter, header or multipart field name (lossily decoded, at most 128 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<CompactString>,
    /// JSON pointer (RFC 6901) of a JSON key or string, the path of a YAML key or scalar, or
    /// the XPath-like path of an XML name or text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<CompactString>,
    /// Multipart part index (from 0), or the index of a repeated query/form parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
}

/// Longest name kept in a location.
const MAX_NAME_CHARS: usize = 128;

impl Location {
    /// A location with only a part.
    pub fn part(part: Part) -> Location {
        Location {
            part,
            name: None,
            pointer: None,
            index: None,
        }
    }

    /// Adds a name (lossily decoded and capped).
    pub fn with_name(mut self, name: &[u8]) -> Location {
        self.name = Some(capped(&utf8gate_codec::to_lossy(name), MAX_NAME_CHARS));
        self
    }

    /// Adds a name that is text already (a header's): capped, not decoded again.
    pub fn with_text_name(mut self, name: &str) -> Location {
        self.name = Some(capped(name, MAX_NAME_CHARS));
        self
    }

    /// Adds a JSON pointer (capped like names).
    pub fn with_pointer(mut self, pointer: &str) -> Location {
        self.pointer = Some(capped(pointer, 4 * MAX_NAME_CHARS));
        self
    }

    /// Adds a pointer the caller no longer needs (capped like names): no copy when it is
    /// within the cap.
    pub fn with_owned_pointer(mut self, pointer: impl Into<CompactString>) -> Location {
        let pointer: CompactString = pointer.into();
        self.pointer = Some(if pointer.len() > 4 * MAX_NAME_CHARS {
            capped(&pointer, 4 * MAX_NAME_CHARS)
        } else {
            pointer
        });
        self
    }

    /// Adds an index.
    pub fn with_index(mut self, index: usize) -> Location {
        self.index = Some(index);
        self
    }
}

/// The first `chars` characters of `text`: inline up to 24 bytes, else in one allocation of
/// the right size.
fn capped(text: &str, chars: usize) -> CompactString {
    // No more bytes than the cap: no more characters either.
    if text.len() <= chars {
        return CompactString::new(text);
    }
    // Where character `chars` starts: the first byte that is not a continuation byte after
    // `chars` of them. Counted 32 bytes at a time (a count LLVM vectorizes), not with
    // `char_indices`: a pointer under a long key is cut for every string of its document.
    let starts = |bytes: &[u8]| {
        bytes
            .iter()
            .map(|&b| u8::from((b as i8) >= -0x40))
            .sum::<u8>()
    };
    let (mut seen, mut at) = (0, 0);
    for chunk in text.as_bytes().chunks_exact(32) {
        let here = usize::from(starts(chunk));
        if seen + here > chars {
            break;
        }
        (seen, at) = (seen + here, at + chunk.len());
    }
    for &byte in &text.as_bytes()[at..] {
        if (byte as i8) >= -0x40 {
            if seen == chars {
                return CompactString::new(&text[..at]);
            }
            seen += 1;
        }
        at += 1;
    }
    CompactString::new(text)
}

#[cfg(test)]
mod tests {
    use super::capped;

    /// A cut falls where `char_indices` says the first character past the cap starts, on
    /// text of 1- to 4-byte characters.
    #[test]
    fn a_cut_falls_after_as_many_characters() {
        let pieces = ["a", "é", "日", "😀", "\u{301}", "/"];
        let mut seed = 7u64;
        for _ in 0..400 {
            let mut text = String::new();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            for _ in 0..(seed >> 56) * 3 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                text.push_str(pieces[(seed >> 60) as usize % pieces.len()]);
            }
            for cap in [0, 1, 2, 5, 128, 512] {
                let end = text
                    .char_indices()
                    .nth(cap)
                    .map_or(text.len(), |(at, _)| at);
                assert_eq!(capped(&text, cap), &text[..end], "{text:?} at {cap}");
            }
        }
    }

    /// A pointer handed over is cut as one copied is.
    #[test]
    fn owned_pointers_are_capped_as_borrowed_ones() {
        use super::{Location, Part};
        for pointer in [
            "",
            "/a",
            &"/é".repeat(300),
            &"/ab".repeat(200),
            &"日".repeat(513),
        ] {
            assert_eq!(
                Location::part(Part::JsonString).with_owned_pointer(pointer.to_string()),
                Location::part(Part::JsonString).with_pointer(pointer),
            );
        }
    }

    /// A name that is text is kept as its bytes would be.
    #[test]
    fn text_names_are_capped_as_byte_names() {
        use super::{Location, Part};
        let long = ["é".repeat(200), "ab".repeat(100), "日".repeat(129)];
        for name in ["", "host", "x-a-name-of-twenty-five-b"]
            .into_iter()
            .chain(long.iter().map(String::as_str))
        {
            assert_eq!(
                Location::part(Part::Header).with_text_name(name),
                Location::part(Part::Header).with_name(name.as_bytes()),
            );
            let kept: String = name.chars().take(super::MAX_NAME_CHARS).collect();
            let named = Location::part(Part::Header).with_text_name(name).name;
            assert_eq!(named.as_deref(), Some(kept.as_str()));
        }
    }

    /// Names are cut to a number of characters, never inside one.
    #[test]
    fn capped_counts_characters() {
        assert_eq!(capped("abc", 3), "abc");
        assert_eq!(capped("abcd", 3), "abc");
        assert_eq!(capped("ééé", 3), "ééé", "6 bytes, 3 characters");
        assert_eq!(capped("éééé", 3), "ééé");
        assert_eq!(capped("日本語です", 2), "日本");
        assert_eq!(capped("", 0), "");
    }
}
