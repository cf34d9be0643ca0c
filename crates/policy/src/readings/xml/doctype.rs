//! Document type declarations (XML 1.0 §2.8, §4.2.2), read strictly: their external DTD and
//! internal subset, and why parsers that load or expand them would read the document another
//! way.

use crate::readings::xml::text::{is_name, is_space};

/// A DOCTYPE read: its external DTD's system literal, if it names one, and its internal
/// subset (between `[` and `]`), if it has one.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Doctype<'a> {
    pub(super) system: Option<&'a str>,
    pub(super) subset: Option<&'a str>,
}

/// Reads what follows `<!DOCTYPE` up to its `>` (§2.8, §4.2.2): `S Name (S ExternalID)? S?
/// ('[' subset ']' S?)?`, nothing else.
pub(super) fn doctype(inner: &str) -> Result<Doctype<'_>, String> {
    let rest = after_space(inner);
    if rest.len() == inner.len() {
        return Err("no white space after DOCTYPE".to_string());
    }
    let name_end = rest
        .find(|c: char| (c.is_ascii() && is_space(c as u8)) || c == '[')
        .unwrap_or(rest.len());
    if !is_name(&rest[..name_end]) {
        return Err("a DOCTYPE name that is not an XML name".to_string());
    }
    let mut rest = after_space(&rest[name_end..]);
    let mut system = None;
    for (keyword, public) in [("SYSTEM", false), ("PUBLIC", true)] {
        let Some(after) = rest.strip_prefix(keyword) else {
            continue;
        };
        let mut t = after_space(after);
        if public {
            let (id, used) = literal(t)?;
            let pubid =
                |b: u8| b.is_ascii_alphanumeric() || b" \r\n-'()+,./:=?;!*#@$_%".contains(&b);
            if !id.bytes().all(pubid) {
                return Err("a public identifier with characters it may not have".to_string());
            }
            t = after_space(&t[used..]);
        }
        let (id, used) = literal(t)?;
        system = Some(id);
        rest = after_space(&t[used..]);
        break;
    }
    let subset = match rest.strip_prefix('[') {
        Some(inside) => {
            let end = inside
                .rfind(']')
                .ok_or("an internal subset without its ']'")?;
            if !after_space(&inside[end + 1..]).is_empty() {
                return Err("text after the internal subset".to_string());
            }
            Some(&inside[..end])
        }
        None if rest.is_empty() => None,
        None => return Err("text in the DOCTYPE that is no external identifier".to_string()),
    };
    Ok(Doctype { system, subset })
}

/// `text` after its leading XML white space.
fn after_space(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

/// A quoted literal at the start of `text`: its inside and the bytes it takes, quotes included.
fn literal(text: &str) -> Result<(&str, usize), String> {
    let quote = text.chars().next().filter(|q| *q == '"' || *q == '\'');
    let quote = quote.ok_or("a DOCTYPE literal without quotes")?;
    let end = text[1..]
        .find(quote)
        .ok_or("a DOCTYPE literal without its closing quote")?;
    Ok((&text[1..1 + end], end + 2))
}

/// Why a document type declaration would be read differently by parsers that load or expand
/// it, if it would: it declares entities or attribute defaults (or uses parameter entities),
/// or names an external DTD outside the W3C's (which a parser may fetch, and which may declare
/// entities of its own).
pub(super) fn doctype_risk(inner: &str, doctype: &Doctype) -> Option<&'static str> {
    let subset = doctype.subset.unwrap_or("");
    if inner.contains("<!ENTITY") || subset.contains('%') {
        return Some("declares entities, which assemble text no field shows");
    }
    if subset.contains("<!ATTLIST") {
        return Some("declares attribute defaults, which add attributes no field shows");
    }
    let w3c = ["http://www.w3.org/", "https://www.w3.org/"];
    match doctype.system {
        Some(url) if !w3c.iter().any(|w| url.starts_with(w)) => Some(
            "names an external DTD, which a parser may load (XXE) and which may declare entities",
        ),
        _ => None,
    }
}
