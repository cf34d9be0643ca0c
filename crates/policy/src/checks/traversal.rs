//! Traversal: a dot-segment or separator that only a lax reading of the field contains.
//!
//! The strict reading is the field as valid UTF-8 (malformed bytes as U+FFFD). The lax reading
//! decodes each malformed sequence as a lax decoder would (`C0 AE` → `.`), then percent-decodes
//! a second time (`%2e`, `%u002e`) and decodes leniently again. If it holds more dot-segments or
//! separators than the strict reading, something downstream can be tricked into `/../`. The
//! same comparison on the lookalike-folded reading catches `．．／` (in paths, separators too).

use std::borrow::Cow;

use utf8gate_codec::Malformation;

use super::bytes::{Piece, pieces};

use super::lookalike;
use crate::decide::found::Found;
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::Part;
use crate::percent_lax;

/// Separators and dot-segments in a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Shape {
    separators: usize,
    dot_segments: usize,
}

fn is_separator(b: u8) -> bool {
    b == b'/' || b == b'\\'
}

/// The offsets of the dot-segments of `text` (segments between separators that are exactly
/// `.` or `..`), found from its dots only: ordinary prose has many dots and few separators, so
/// this never splits the text.
fn dot_segments(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    let mut from = 0;
    core::iter::from_fn(move || {
        while let Some(p) = b.get(from..)?.iter().position(|&x| x == b'.') {
            let at = from + p;
            let run = b[at..].iter().take(3).take_while(|&&x| x == b'.').count();
            from = at + run;
            let starts = at == 0 || is_separator(b[at - 1]);
            let ends = b.get(at + run).is_none_or(|&x| is_separator(x));
            if starts && ends && run <= 2 {
                return Some(at);
            }
        }
        None
    })
}

fn shape(text: &str) -> Shape {
    let separators = memchr::memchr2_iter(b'/', b'\\', text.as_bytes()).count();
    // Without a separator the only segment is the whole text.
    let dot_segments = if separators == 0 {
        usize::from(text == "." || text == "..")
    } else {
        dot_segments(text).count()
    };
    Shape {
        separators,
        dot_segments,
    }
}

/// What stands for a malformed sequence in a reading: one byte that is no separator, dot, `%`
/// or hex digit, so that the shapes are those of a reading with U+FFFD (three bytes) there, at
/// a third of the size for a field that is all malformations. Shown as U+FFFD in messages.
const PLACEHOLDER: char = '\u{1A}';

/// The strict reading of `bytes` (malformed sequences as [`PLACEHOLDER`]) and its lax reading
/// (malformations as their lax character where it is one), in one walk.
fn readings(bytes: &[u8]) -> (String, String) {
    let mut strict = String::with_capacity(bytes.len());
    let mut lax = String::with_capacity(bytes.len());
    for piece in pieces(bytes) {
        match piece {
            Piece::Run(_, text) => {
                strict.push_str(text);
                lax.push_str(text);
            }
            Piece::Malformed(m) => {
                strict.push(PLACEHOLDER);
                lax.push(m.lax_char().unwrap_or(PLACEHOLDER));
            }
        }
    }
    (strict, lax)
}

/// The lax decoding of `bytes`: malformations become their lax character where it is one.
fn lax_text(bytes: &[u8]) -> Cow<'_, str> {
    match utf8gate_codec::validate(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(readings(bytes).1),
    }
}

pub(crate) fn applies_to(part: Part) -> bool {
    !matches!(
        part,
        Part::Body | Part::MultipartContent | Part::MultipartHeader
    )
}

/// Reports traversal and plain dot-segments in one field.
#[cfg(test)]
pub(crate) fn scan(part: Part, bytes: &[u8], table: lookalike::Table, out: &mut Found) {
    let strict = readings(bytes).0;
    let mut malformed = Malformed::default();
    for m in utf8gate_codec::diagnose(bytes) {
        malformed.note(&m);
    }
    let known = Known {
        path_lookalike: lookalike::first_path_syntax(table, &strict),
        text: utf8gate_codec::validate(bytes).ok(),
        malformed,
    };
    scan_with(part, bytes, table, known, out);
}

/// What the traversal check needs to know of a field's malformations, noted one at a time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Malformed {
    /// The field has a malformation.
    any: bool,
    /// The first malformation a lax decoder reads as path syntax.
    path_syntax: Option<core::ops::Range<usize>>,
}

impl Malformed {
    /// Notes one malformation (in offset order).
    pub(crate) fn note(&mut self, m: &Malformation) {
        self.any = true;
        if self.path_syntax.is_none() && matches!(m.lax_char(), Some('.' | '/' | '\\')) {
            self.path_syntax = Some(m.range());
        }
    }
}

/// What the other checks of a field already found out, so that [`scan_with`] need not read
/// the field again for it.
#[derive(Debug, Clone)]
pub(crate) struct Known<'a> {
    /// The field as text, when it is valid UTF-8.
    pub(crate) text: Option<&'a str>,
    /// The first lookalike whose image holds path syntax, with its offset in the field (as the
    /// lookalike check reports it; used only when the field is valid UTF-8).
    pub(crate) path_lookalike: Option<(usize, char)>,
    /// Its malformations.
    pub(crate) malformed: Malformed,
}

/// `scan` with what the other checks found out.
pub(crate) fn scan_with(
    part: Part,
    bytes: &[u8],
    table: lookalike::Table,
    known: Known<'_>,
    out: &mut Found,
) {
    let malformations_none = !known.malformed.any;
    if !applies_to(part) {
        return;
    }
    let (strict, first_lax) = match known.text {
        Some(text) => (Cow::Borrowed(text), Cow::Borrowed(text)),
        None => {
            let (strict, lax) = readings(bytes);
            (Cow::Owned(strict), Cow::Owned(lax))
        }
    };
    let has_escape = memchr::memchr(b'%', bytes).is_some();
    if malformations_none && !has_escape && known.path_lookalike.is_none() {
        // Only the plain dot-segments are left to report (most fields that reach here).
        dot_segment(&strict, bytes, true, out);
        return;
    }
    let strict_shape = shape(&strict);
    if !malformations_none || has_escape {
        let decoded = percent_lax::decode_lax(first_lax.as_bytes());
        let lax = lax_text(&decoded);
        let lax_shape = shape(&lax);
        if lax_shape.dot_segments > strict_shape.dot_segments
            || lax_shape.separators > strict_shape.separators
        {
            let trigger = known
                .malformed
                .path_syntax
                .clone()
                .or_else(|| {
                    bytes
                        .iter()
                        .position(|&b| b == b'%')
                        .map(|p| p..(p + 3).min(bytes.len()))
                })
                .unwrap_or(0..bytes.len().min(16));
            let why = format!("a lax reading of this field contains {:?}", excerpt(&lax));
            report(
                out,
                FindingKind::Traversal,
                bytes,
                trigger.start,
                trigger.len(),
                why,
            );
        }
    }
    // Only a lookalike of '.', '/' or '\\' can change the shape; the text is folded only when it
    // holds one (ordinary text never folds).
    // The lookalike check saw every character of the valid stretches; the replacement
    // characters of the lossy text are no lookalikes, so it found one exactly when `strict`
    // holds one.
    if let Some((first, c)) = known.path_lookalike {
        let folded = lookalike::fold(table, &strict);
        let folded_shape = shape(&folded);
        if folded_shape.dot_segments > strict_shape.dot_segments
            || (part.is_path_like() && folded_shape.separators > strict_shape.separators)
        {
            // `strict` equals `bytes` here unless malformations were replaced; keep offsets
            // in field bytes by reporting only when they agree.
            let (at, len) = if malformations_none {
                (first, c.len_utf8())
            } else {
                (0, 0)
            };
            let why = format!("lookalikes fold this field into {:?}", excerpt(&folded));
            report(out, FindingKind::Traversal, bytes, at, len, why);
        }
    }
    if strict_shape.dot_segments > 0 {
        dot_segment(&strict, bytes, malformations_none, out);
    }
}

/// Reports the first dot-segment of the strict reading `strict` of `bytes`, if it has one (at
/// its offset when `offsets_agree`, the field having no malformation; else at 0).
fn dot_segment(strict: &str, bytes: &[u8], offsets_agree: bool, out: &mut Found) {
    // Without a separator the only segment is the whole text (prose has many dots, few `/`).
    let first = match memchr::memchr2(b'/', b'\\', strict.as_bytes()) {
        None => (strict == "." || strict == "..").then_some(0),
        Some(_) => dot_segments(strict).next(),
    };
    let Some(first) = first else {
        return;
    };
    let at = if offsets_agree { first } else { 0 };
    let len = if strict[at..].starts_with("..") { 2 } else { 1 };
    let why = "dot-segment ('.' or '..') after decoding".to_string();
    report(out, FindingKind::DotSegment, bytes, at, len, why);
}

/// Reports `kind` at the `len` bytes of `bytes` from `at` (cut at the field's end): the
/// traversal check's findings have no fix.
fn report(out: &mut Found, kind: FindingKind, bytes: &[u8], at: usize, len: usize, why: String) {
    let shown = &bytes[at.min(bytes.len())..(at + len).min(bytes.len())];
    out.push(RawFinding::new(kind, at, shown, Fix::None, None, why));
}

fn excerpt(text: &str) -> String {
    let shown = |c| if c == PLACEHOLDER { '\u{FFFD}' } else { c };
    text.chars().take(64).map(shown).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(part: Part, bytes: &[u8]) -> Vec<(FindingKind, usize)> {
        let mut out = Found::unbounded();
        scan(part, bytes, lookalike::Table::Default, &mut out);
        out.detailed.iter().map(|f| (f.kind, f.offset)).collect()
    }

    #[test]
    fn overlong_dots_and_slashes_are_traversal() {
        assert_eq!(
            kinds(Part::Path, b"a/\xC0\xAE./b"),
            [(FindingKind::Traversal, 2)]
        );
        assert_eq!(
            kinds(Part::Path, b"a/..\xC0\xAF..\xC0\xAFb"),
            [(FindingKind::Traversal, 4)]
        );
        assert_eq!(
            kinds(Part::QueryValue, b"..\xC1\x9C..\xC1\x9Cb"),
            [(FindingKind::Traversal, 2)]
        );
        assert_eq!(
            kinds(Part::Path, b"a/\xE0\x80\xAE\xE0\x80\xAE/b"),
            [(FindingKind::Traversal, 2)]
        );
    }

    #[test]
    fn second_pass_escapes_are_traversal() {
        assert_eq!(
            kinds(Part::Path, b"a/%c0%ae%c0%ae/b"),
            [(FindingKind::Traversal, 2)]
        );
        assert_eq!(
            kinds(Part::Path, b"a/%u002e%u002e/b"),
            [(FindingKind::Traversal, 2)]
        );
        assert_eq!(
            kinds(Part::Path, b"a/%2e%2e/b"),
            [(FindingKind::Traversal, 2)]
        );
    }

    /// The definition: split on separators, count the segments that are `.` or `..`.
    fn split_shape(text: &str) -> Shape {
        Shape {
            separators: text.bytes().filter(|&b| b == b'/' || b == b'\\').count(),
            dot_segments: text
                .split(['/', '\\'])
                .filter(|s| *s == "." || *s == "..")
                .count(),
        }
    }

    proptest::proptest! {
        #[test]
        fn shape_counts_what_splitting_counts(
            text in "[./\\\\a\u{FF0E}]{0,24}"
        ) {
            proptest::prop_assert_eq!(shape(&text), split_shape(&text));
            let first = text
                .split(['/', '\\'])
                .scan(0, |at, s| { let here = *at; *at += s.len() + 1; Some((here, s)) })
                .find(|(_, s)| *s == "." || *s == "..")
                .map(|(at, _)| at);
            proptest::prop_assert_eq!(dot_segments(&text).next(), first);
        }

        /// Valid text without `%` or lookalikes (the check's shortcut) reports its first
        /// dot-segment, as splitting finds it, and nothing else.
        #[test]
        fn plain_text_reports_its_first_dot_segment(
            text in "[./\\ab]{0,24}",
            part in proptest::prop_oneof![proptest::strategy::Just(Part::Path), proptest::strategy::Just(Part::Header)],
        ) {
            let first = text
                .split(['/', '\\'])
                .scan(0, |at, s| { let here = *at; *at += s.len() + 1; Some((here, s)) })
                .find(|(_, s)| *s == "." || *s == "..")
                .map(|(at, _)| (FindingKind::DotSegment, at));
            proptest::prop_assert_eq!(kinds(part, text.as_bytes()), Vec::from_iter(first));
        }
    }

    #[test]
    fn lookalikes_and_plain_segments() {
        assert_eq!(
            kinds(Part::Path, "a/\u{FF0E}\u{FF0E}\u{FF0F}b".as_bytes()),
            [(FindingKind::Traversal, 2)]
        );
        assert_eq!(kinds(Part::QueryValue, "1\u{FF0F}2".as_bytes()), []);
        assert_eq!(
            kinds(Part::Path, b"a/../../b"),
            [(FindingKind::DotSegment, 2)]
        );
        assert_eq!(kinds(Part::Body, b"see ../README"), []);
        assert_eq!(kinds(Part::Path, b"/v1.2/file.txt"), []);
    }
}
