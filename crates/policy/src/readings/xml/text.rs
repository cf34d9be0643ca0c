//! The lexical pieces of XML 1.0 that utf8gate reads itself, strictly (a leaf): names,
//! references, attribute lists, and the escaping a rewritten text is written back with
//! (document type declarations: [`crate::readings::xml::doctype`]).
//! `quick-xml` finds the markup; what it is lenient about (names, references, attribute
//! syntax) is settled here, so that a document utf8gate reads is one every XML 1.0 parser
//! reads the same way.

/// Text with its references decoded, and the offsets (in the decoded bytes) of character
/// references to surrogates, which no parser can decode to a character.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Decoded {
    /// The text as parsers give it to the application (references decoded; line ends and
    /// attribute white space are not normalized: the checks see the bytes as sent).
    pub(super) bytes: Vec<u8>,
    /// `(offset in bytes, code unit)` of each reference to a surrogate, written as U+FFFD.
    pub(super) surrogates: Vec<(usize, u16)>,
}

/// Decodes the references of character data or an attribute value (XML 1.0 §4.1, §4.6):
/// the five predefined entities and character references. Anything else after `&` (an entity
/// a DTD would declare, a bare `&`), a `<`, or `]]>` in text, is not well-formed: the error
/// says why, with its offset in `raw`.
pub(super) fn decode(raw: &str, attribute: bool) -> Result<Decoded, (usize, String)> {
    let mut out = Decoded::default();
    if !raw.contains(['&', '<', ']']) {
        out.bytes.extend_from_slice(raw.as_bytes());
        return Ok(out);
    }
    let bytes = raw.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let Some(next) = memchr::memchr3(b'&', b'<', b']', &bytes[at..]) else {
            out.bytes.extend_from_slice(&bytes[at..]);
            break;
        };
        let i = at + next;
        out.bytes.extend_from_slice(&bytes[at..i]);
        match bytes[i] {
            b'<' => return Err((i, "a '<' in character data".to_string())),
            b']' => {
                if !attribute && bytes[i..].starts_with(b"]]>") {
                    return Err((i, "']]>' in character data".to_string()));
                }
                out.bytes.push(b']');
                at = i + 1;
            }
            _ => {
                let end = memchr::memchr(b';', &bytes[i..])
                    .map(|e| i + e)
                    .ok_or((i, "a '&' that starts no reference".to_string()))?;
                reference(&raw[i + 1..end], &mut out).map_err(|why| (i, why))?;
                at = end + 1;
            }
        }
    }
    Ok(out)
}

/// One reference's name (between `&` and `;`), decoded onto `out`.
fn reference(name: &str, out: &mut Decoded) -> Result<(), String> {
    let predefined = match name {
        "lt" => Some(b'<'),
        "gt" => Some(b'>'),
        "amp" => Some(b'&'),
        "apos" => Some(b'\''),
        "quot" => Some(b'"'),
        _ => None,
    };
    if let Some(byte) = predefined {
        out.bytes.push(byte);
        return Ok(());
    }
    let digits = name
        .strip_prefix('#')
        .ok_or_else(|| format!("the entity &{name}; is not predefined (a DTD would declare it)"))?;
    let (digits, radix) = match digits.strip_prefix('x') {
        Some(hex) => (hex, 16),
        None => (digits, 10),
    };
    let valid_digits = !digits.is_empty() && digits.bytes().all(|b| (b as char).is_digit(radix));
    let value = valid_digits
        .then(|| u32::from_str_radix(digits, radix).ok())
        .flatten()
        .filter(|&v| v <= 0x10_FFFF)
        .ok_or_else(|| format!("&{name}; is not a character reference"))?;
    match char::from_u32(value) {
        // U+0000 and other characters XML 1.0 forbids are decoded as a lenient parser
        // (.NET's XmlTextReader, fast-xml-parser) decodes them: the checks see a NUL.
        Some(c) => out
            .bytes
            .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        None => {
            let unit = u16::try_from(value).unwrap_or(0xD800);
            out.surrogates.push((out.bytes.len(), unit));
            out.bytes.extend_from_slice("\u{FFFD}".as_bytes());
        }
    }
    Ok(())
}

/// Checks an XML declaration, given what is between `<?xml` and `?>`: exactly
/// `S version="1.0" (S encoding="EncName")? (S standalone="yes|no")? S?` (§2.8, §4.3.3), in
/// either quotes. Version 1.1 is refused: it allows the C0 controls 1.0 forbids.
pub(super) fn declaration(inside: &str) -> Result<(), String> {
    let mut rest = inside;
    let mut names = ["version", "encoding", "standalone"].into_iter();
    let mut first = true;
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8));
        let spaced = trimmed.len() < rest.len();
        if trimmed.is_empty() {
            return if first {
                Err("no version".to_string())
            } else {
                Ok(())
            };
        }
        if !spaced {
            return Err("no white space before a pseudo-attribute".to_string());
        }
        let name = names
            .by_ref()
            .find(|n| trimmed.starts_with(n))
            .ok_or_else(|| format!("unexpected {:?}", trimmed.chars().next().unwrap_or(' ')))?;
        if first && name != "version" {
            return Err("the version is not first".to_string());
        }
        first = false;
        let list = attributes(&format!(" {trimmed}")).map_err(|(_, why)| why)?;
        let Some(attribute) = list.first() else {
            return Err("a pseudo-attribute without a value".to_string());
        };
        if attribute.name.len() != name.len() {
            return Err(format!("{name} spelled otherwise"));
        }
        let value = &trimmed[attribute.value.start - 1..attribute.value.end - 1];
        let valid = match name {
            "version" => value == "1.0",
            "encoding" => {
                value.starts_with(|c: char| c.is_ascii_alphabetic())
                    && value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            }
            _ => value == "yes" || value == "no",
        };
        if !valid {
            return Err(format!("{name}=\"{value}\" is not allowed"));
        }
        rest = &trimmed[attribute.value.end..];
    }
}

/// `true` if `name` is an XML 1.0 (fifth edition) `Name` (§2.3).
pub(super) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
        | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
        | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// XML 1.0 white space (§2.3 `S`).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// One attribute of a start tag: name and value ranges in the attribute list.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RawAttribute {
    pub(super) name: core::ops::Range<usize>,
    /// The value between the quotes.
    pub(super) value: core::ops::Range<usize>,
}

/// The attributes of a start tag, from what follows its name (`attributes_raw`, the closing
/// `/` of an empty element removed): `(S Name S? '=' S? quoted value)* S?` (§3.1), nothing
/// else. An error says why, with its offset.
pub(super) fn attributes(list: &str) -> Result<Vec<RawAttribute>, (usize, String)> {
    Attributes {
        list,
        at: 0,
        done: false,
    }
    .collect()
}

/// The attributes of a start tag one at a time (see [`attributes`]); after an error, none.
pub(super) struct Attributes<'a> {
    list: &'a str,
    at: usize,
    done: bool,
}

impl<'a> Attributes<'a> {
    /// The attributes of `list`.
    pub(super) fn new(list: &'a str) -> Attributes<'a> {
        Attributes {
            list,
            at: 0,
            done: false,
        }
    }

    fn next_attribute(&mut self) -> Option<Result<RawAttribute, (usize, String)>> {
        let (list, b) = (self.list, self.list.as_bytes());
        let mut at = self.at;
        let spaced = b.get(at).is_some_and(|&c| is_space(c));
        while b.get(at).is_some_and(|&c| is_space(c)) {
            at += 1;
        }
        if at == b.len() {
            return None;
        }
        if !spaced {
            return Some(Err((at, "no white space before an attribute".to_string())));
        }
        let start = at;
        at = name_end(b, at);
        let name = start..at;
        if !is_name(&list[name.clone()]) {
            let why = "an attribute name that is not an XML name";
            return Some(Err((start, why.to_string())));
        }
        while b.get(at).is_some_and(|&c| is_space(c)) {
            at += 1;
        }
        if b.get(at) != Some(&b'=') {
            return Some(Err((
                at,
                "an attribute without '=' and a value".to_string(),
            )));
        }
        at += 1;
        while b.get(at).is_some_and(|&c| is_space(c)) {
            at += 1;
        }
        let quote = match b.get(at) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => return Some(Err((at, "an attribute value without quotes".to_string()))),
        };
        let Some(close) = memchr::memchr(quote, &b[at + 1..]) else {
            let why = "an attribute value without its closing quote";
            return Some(Err((at, why.to_string())));
        };
        self.at = at + close + 2;
        Some(Ok(RawAttribute {
            name,
            value: at + 1..at + 1 + close,
        }))
    }
}

impl Iterator for Attributes<'_> {
    type Item = Result<RawAttribute, (usize, String)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_attribute();
        self.done = !matches!(next, Some(Ok(_)));
        next
    }
}

/// Where an attribute name that starts at `at` ends.
fn name_end(b: &[u8], mut at: usize) -> usize {
    while b
        .get(at)
        .is_some_and(|&c| !is_space(c) && c != b'=' && c != b'"' && c != b'\'')
    {
        at += 1;
    }
    at
}

/// The first refusal of a start tag's attribute list, in document order: where the syntax
/// fails, or where an attribute is given a second time. Read once without keeping the
/// attributes: each costs 8 bytes (a keyed 32-bit hash of its name and its offset, sorted),
/// so one tag of a million attributes costs 8 MiB, not a set of its names.
pub(super) fn first_refusal(list: &str) -> Option<(usize, String)> {
    use std::hash::BuildHasher;
    let b = list.as_bytes();
    let hasher = std::collections::hash_map::RandomState::new();
    let mut keys = Vec::new();
    let mut syntax = None;
    for attribute in Attributes::new(list) {
        match attribute {
            Ok(a) => match u32::try_from(a.name.start) {
                Ok(start) => {
                    let hash = hasher.hash_one(&b[a.name.clone()]) as u32;
                    keys.push((u64::from(hash) << 32) | u64::from(start));
                }
                Err(_) => return Some((a.name.start, "an attribute list over 4 GiB".into())),
            },
            Err(e) => {
                syntax = Some(e);
                break;
            }
        }
    }
    keys.sort_unstable();
    let name = |key: &u64| {
        let start = (key & 0xFFFF_FFFF) as usize;
        (&b[start..name_end(b, start)], start)
    };
    // Within a run of one hash (its offsets ascending): the names sorted, equal ones adjacent.
    let mut twice: Option<usize> = None;
    for run in keys
        .chunk_by(|x, y| x >> 32 == y >> 32)
        .filter(|r| r.len() > 1)
    {
        let mut named: Vec<(&[u8], usize)> = run.iter().map(name).collect();
        named.sort_unstable();
        for pair in named.windows(2).filter(|p| p[0].0 == p[1].0) {
            twice = Some(twice.map_or(pair[1].1, |t| t.min(pair[1].1)));
        }
    }
    let twice = twice.map(|at| (at, "an attribute given twice".to_string()));
    match (twice, syntax) {
        (Some(t), Some(s)) => Some(if t.0 < s.0 { t } else { s }),
        (t, s) => t.or(s),
    }
}

/// `text` written back as XML character data (`attribute`: as an attribute value): the markup
/// characters and the C0 controls XML 1.0 forbids as references, and the white space a parser
/// would normalize (CR in text, §2.11; TAB, LF and CR in an attribute value, §3.3.3), so that
/// the application reads back exactly `text`.
pub(crate) fn escape(text: &[u8], attribute: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 8);
    for &b in text {
        match b {
            b'<' => out.extend_from_slice(b"&lt;"),
            b'>' => out.extend_from_slice(b"&gt;"),
            b'&' => out.extend_from_slice(b"&amp;"),
            b'"' => out.extend_from_slice(b"&quot;"),
            b'\'' => out.extend_from_slice(b"&apos;"),
            b'\t' | b'\n' if !attribute => out.push(b),
            0..=0x1F => out.extend_from_slice(format!("&#{b};").as_bytes()),
            _ => out.push(b),
        }
    }
    out
}
