//! NUL, C0/C1 controls, bidi embeddings/overrides/isolates and noncharacters.
//!
//! Legitimate text is left alone: TAB, CR and LF in text content (TAB in headers), ZWJ, ZWNJ,
//! LRM, RLM and ALM are not findings.

use crate::decide::found::Report;
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::Part;

/// The kind a character is reported as in `part`, if any.
pub(crate) fn classify(part: Part, c: char) -> Option<(FindingKind, &'static str)> {
    let v = u32::from(c);
    match c {
        '\0' => Some((FindingKind::Nul, "NUL character")),
        '\t' if part == Part::Header || part.is_text_content() => None,
        '\r' | '\n' if part.is_text_content() => None,
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' => {
            Some((FindingKind::Control, "control character"))
        }
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => Some((
            FindingKind::BidiControl,
            "bidi embedding, override or isolate (Trojan Source)",
        )),
        '\u{FDD0}'..='\u{FDEF}' => Some((FindingKind::Noncharacter, "noncharacter")),
        _ if v & 0xFFFE == 0xFFFE => Some((FindingKind::Noncharacter, "noncharacter")),
        _ => None,
    }
}

/// `true` if the byte may start a character [`classify`] reports in a part where TAB, CR and
/// LF are (`text`) or are not ordinary: ASCII controls, DEL, and the lead bytes of C1 controls,
/// bidi controls and noncharacters. None of these bytes is a continuation byte, so every
/// flagged byte starts a character.
#[inline]
fn may_start_finding(b: u8, text: bool) -> bool {
    let ordinary = text & ((b == b'\t') | (b == b'\n') | (b == b'\r'));
    ((b < 0x20) & !ordinary) | (b == 0x7F) | (b == 0xC2) | (b == 0xE2) | (b == 0xEF)
}

/// Whether [`visit`] looks at a byte of a part where TAB, CR and LF are (`text`) or are not
/// ordinary: the bytes [`may_start_finding`] flags, and `BF` bytes, for the noncharacters above
/// the BMP (U+nFFFE, U+nFFFF are `F0..F4 x?F BF BE..BF`), found from their third byte so that
/// 4-byte text (emoji) is not decoded character by character.
#[inline(always)]
pub(crate) fn flags(b: u8, text: bool) -> bool {
    may_start_finding(b, text) | (b == 0xBF)
}

/// Reports the character that byte `at` of a valid run (at field offset `offset`) starts, or
/// for a `BF` byte the noncharacter it ends, if [`classify`] flags it. `at` must be a byte that
/// [`flags`] accepts. Visiting the flagged bytes in order reports in offset order: a
/// noncharacter's lead is never flagged itself.
#[inline(always)]
pub(crate) fn visit(part: Part, offset: usize, text: &str, at: usize, out: &mut impl Report) {
    let bytes = text.as_bytes();
    let start = if bytes[at] != 0xBF {
        at
    } else if at >= 2
        && (0xF0..=0xF4).contains(&bytes[at - 2])
        && bytes[at - 1] & 0x0F == 0x0F
        && matches!(bytes.get(at + 1), Some(0xBE | 0xBF))
    {
        at - 2
    } else {
        return;
    };
    let Some(c) = super::bytes::char_at(text, start) else {
        return;
    };
    report(part, c, offset + start, out);
}

/// Reports the characters of a valid run (at field offset `offset`) that [`classify`] flags,
/// in one pass over the bytes [`flags`] accepts (the field checks do this together with the
/// other character checks, see `super::run`).
#[cfg(test)]
pub(crate) fn scan(part: Part, offset: usize, text: &str, out: &mut impl Report) {
    let text_content = part.is_text_content();
    super::bytes::for_each_flagged(
        text.as_bytes(),
        |b| flags(b, text_content),
        |at| visit(part, offset, text, at, out),
    );
}

/// Reports character `c` at field offset `offset` in `part`, if [`classify`] flags it (also
/// used by the streamed scan for NUL bytes); its details are made only when they are kept.
#[inline]
pub(crate) fn report(part: Part, c: char, offset: usize, out: &mut impl Report) {
    let Some((kind, _)) = classify(part, c) else {
        return;
    };
    let len = c.len_utf8();
    out.report(kind, offset, len, Fix::Char(offset..offset + len), || {
        finding(part, c, offset).expect("classified above")
    });
}

/// The finding for character `c` at field offset `offset` in `part`, if [`classify`] flags it.
pub(crate) fn finding(part: Part, c: char, offset: usize) -> Option<RawFinding> {
    let (kind, what) = classify(part, c)?;
    let mut buf = [0; 4];
    let bytes = c.encode_utf8(&mut buf).as_bytes();
    let scalar = utf8gate_codec::format_scalar(u32::from(c));
    Some(RawFinding::new(
        kind,
        offset,
        bytes,
        Fix::Char(offset..offset + bytes.len()),
        Some(scalar.clone()),
        format!("{what} {scalar}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(part: Part, text: &str) -> Vec<(FindingKind, usize)> {
        let mut out = Vec::new();
        scan(part, 0, text, &mut out);
        out.iter().map(|f| (f.kind, f.offset)).collect()
    }

    #[test]
    fn flags_controls_and_spares_ordinary_text() {
        assert_eq!(found(Part::Body, "a\tb\r\nc"), []);
        assert_eq!(
            found(Part::QueryValue, "a\r\nb"),
            [(FindingKind::Control, 1), (FindingKind::Control, 2)]
        );
        assert_eq!(found(Part::Header, "a\tb"), []);
        assert_eq!(
            found(Part::Body, "x\0y\u{85}"),
            [(FindingKind::Nul, 1), (FindingKind::Control, 3)]
        );
        assert_eq!(
            found(Part::Body, "if \u{202E}x\u{2066}"),
            [(FindingKind::BidiControl, 3), (FindingKind::BidiControl, 7)]
        );
        assert_eq!(
            found(Part::Body, "\u{FDD0}\u{FFFE}\u{1FFFF}"),
            [
                (FindingKind::Noncharacter, 0),
                (FindingKind::Noncharacter, 3),
                (FindingKind::Noncharacter, 6)
            ]
        );
        // ZWJ emoji, ZWNJ in Persian, RLM in Hebrew, ALM in Arabic.
        assert_eq!(
            found(
                Part::Body,
                "👩\u{200D}💻 می\u{200C}خواهم \u{200F}שלום \u{061C}"
            ),
            []
        );
    }

    #[test]
    fn block_skipping_finds_the_same_as_a_plain_loop() {
        let text = "абвгдеёжзийклмнопрстуф\u{202E}хцчшщ 0123456789abcdef\u{7}\u{FFFF}";
        let plain: Vec<_> = text
            .char_indices()
            .filter(|(_, c)| classify(Part::Body, *c).is_some())
            .map(|(i, c)| {
                (
                    classify(Part::Body, c)
                        .map(|k| k.0)
                        .unwrap_or(FindingKind::Nul),
                    i,
                )
            })
            .collect();
        assert_eq!(found(Part::Body, text), plain);
        assert_eq!(plain.len(), 3);
    }
}
