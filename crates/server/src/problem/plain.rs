//! What was wrong with a request, in plain English: one sentence per finding kind of a verdict
//! (where, what, the bytes, and what a lax reader makes of them), for the HTML page. A leaf of
//! `problem`; the sentences are text, escaped where they are written.

use std::collections::BTreeSet;

use utf8gate_policy::{Finding, FindingKind, Location, Part, Verdict};

/// One sentence per finding kind of `verdict`, in the order the kinds were first found; kinds
/// counted but not listed (past the profile's `max_findings`) last, without a location.
pub(super) fn sentences(verdict: &Verdict) -> Vec<String> {
    let mut said = BTreeSet::new();
    let mut out = Vec::new();
    for finding in &verdict.findings {
        if said.insert(finding.kind.as_str()) {
            let times = verdict.counts.get(finding.kind.as_str()).copied();
            out.push(sentence(finding, times.unwrap_or(1)));
        }
    }
    for (kind, times) in &verdict.counts {
        if !said.contains(kind.as_str()) {
            let what = FindingKind::ALL
                .iter()
                .find(|k| k.as_str() == kind)
                .map_or("a finding of kind", |&k| k.sentence());
            out.push(format!("The request {what} ({kind}, {times} times)."));
        }
    }
    out
}

/// "The path contains an overlong UTF-8 sequence (bytes C0 AE), which some servers read as '.'."
fn sentence(finding: &Finding, times: u64) -> String {
    let mut text = format!("{} {}", subject(&finding.location), finding.kind.sentence());
    if !finding.bytes.is_empty() && finding.kind.shows_bytes() {
        text.push_str(&format!(" (bytes {})", finding.bytes));
    }
    if let Some(lax) = finding
        .lax_scalar
        .as_ref()
        .filter(|_| finding.kind.reads_otherwise())
    {
        text.push_str(&format!(", which some servers read as {}", read_as(lax)));
    }
    text.push('.');
    if times > 1 {
        text.push_str(&format!(" This occurs {times} times."));
    }
    text
}

/// A lax reading: `U+002E` as `'.'` when it is printable ASCII, the code point otherwise;
/// ASCII text (a lookalike's image) quoted.
fn read_as(lax: &str) -> String {
    let scalar = lax
        .strip_prefix("U+")
        .and_then(|hex| u32::from_str_radix(hex, 16).ok());
    match scalar {
        Some(n) => match char::from_u32(n).filter(|c| c.is_ascii_graphic()) {
            Some(c) => format!("'{c}'"),
            None => lax.to_string(),
        },
        None => format!("'{lax}'"),
    }
}

/// Where a finding is, as the start of a sentence.
fn subject(location: &Location) -> String {
    let name = location.name.as_deref().map(|n| format!(" \"{n}\""));
    let name = name.as_deref().unwrap_or("");
    let part = location.index.map(|i| format!(" of multipart part {i}"));
    let part = part.as_deref().unwrap_or("");
    let at = location.pointer.as_deref().map(|p| format!(" at \"{p}\""));
    let at = at.as_deref().unwrap_or("");
    match location.part {
        Part::Path => "The path".to_string(),
        Part::QueryKey => format!("The query parameter name{name}"),
        Part::QueryValue => format!("The query parameter{name}"),
        Part::Header => format!("The header{name}"),
        Part::FormKey => format!("The form field name{name}"),
        Part::FormValue => format!("The form field{name}"),
        Part::JsonKey => format!("The JSON key{at}"),
        Part::JsonString => format!("The JSON string{at}"),
        Part::XmlName => format!("The XML name{at}"),
        Part::XmlText => format!("The XML text{at}"),
        Part::YamlKey => format!("The YAML key{at}"),
        Part::YamlString => format!("The YAML value{at}"),
        Part::MultipartName => format!("The name{part}"),
        Part::MultipartFilename => format!("The file name{part}"),
        Part::MultipartHeader => format!("The header{name}{part}"),
        Part::MultipartContent => format!("The content{part}"),
        Part::Body => "The body".to_string(),
        Part::CookieName => format!("The cookie name{name}"),
        Part::CookieValue => format!("The cookie{name}"),
        Part::UrlPath => format!("The path in the header{name}"),
        Part::UrlQuery => format!("The query in the header{name}"),
        Part::HeaderParameter => format!("A parameter of the header{name}"),
        Part::ArchiveEntry => match location.index {
            Some(i) => format!("The name of archive entry {i}{name}"),
            None => "The archive".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use utf8gate_policy::{Profile, Request, evaluate};

    use super::*;

    fn rejected(target: &[u8]) -> Verdict {
        evaluate(&Profile::strict(), &Request::new("GET", target)).verdict
    }

    #[test]
    fn an_overlong_dot_says_where_its_bytes_and_what_servers_read() {
        let said = sentences(&rejected(b"/a/%c0%ae%c0%ae/b"));
        assert!(
            said.contains(
                &"The path contains an overlong UTF-8 sequence (bytes C0 AE), which \
                            some servers read as '.'. This occurs 2 times."
                    .to_string()
            ),
            "{said:?}"
        );
        assert!(
            said.iter()
                .any(|s| s.starts_with("The path contains a '.' or '..' segment or"))
        );
    }

    #[test]
    fn one_sentence_per_kind_and_the_unlisted_kinds_too() {
        let mut verdict = rejected(b"/x?%3Cb%3E%E2%80%AE=1&k=%ff");
        let said = sentences(&verdict);
        assert_eq!(said.len(), verdict.kinds().len(), "{said:?}");
        assert!(
            said.iter()
                .any(|s| s.starts_with("The query parameter name \"<b>\u{202e}\"")),
            "{said:?}"
        );
        verdict.findings.clear();
        let unlisted = sentences(&verdict);
        assert_eq!(unlisted.len(), verdict.kinds().len());
        assert!(
            unlisted.iter().all(|s| s.starts_with("The request ")),
            "{unlisted:?}"
        );
        let bidi = said.iter().find(|s| s.contains("bidirectional"));
        assert!(
            bidi.is_some_and(|s| s.ends_with("(bytes E2 80 AE).")),
            "{said:?}"
        );
        assert_eq!(read_as("U+002E"), "'.'");
        assert_eq!(read_as("U+202E"), "U+202E");
        assert_eq!(read_as(".."), "'..'");
    }

    #[test]
    fn every_kind_has_its_own_words() {
        let mut seen = BTreeSet::new();
        for &kind in FindingKind::ALL {
            assert!(
                seen.insert(kind.sentence()),
                "{kind:?} says what another says"
            );
        }
    }
}
