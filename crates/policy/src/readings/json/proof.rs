//! A whole JSON document proven clean at once: its strings checked in one call, not as one
//! field each.
//!
//! As fields, a document of many short strings costs per string: a location with its pointer,
//! a decoded copy, the checks' set-up, the verdict's bookkeeping (about 3 900 instructions a
//! string, `docs/BENCHMARKS.md`). Most documents hold nothing any check reports. [`prove`]
//! shows that with one validation and one run of the character and NFC checks over the whole
//! document, then one scan of its structure that builds no pointer and copies no string; only
//! what that cannot settle is read string by string. When the proof fails, the reading takes
//! the document apart into fields as before, and they find what there is: the proof only ever
//! says "nothing to report", and says it only where the fields would report nothing (the tests
//! compare whole verdicts with and without it on generated documents).
//!
//! Why the document's raw text stands for its strings:
//! * Outside its strings a valid document holds ASCII punctuation, digits, the letters of
//!   literals, spaces, TAB, LF and CR, all clean in text content (a JSON string is text
//!   content): nothing the checks report.
//! * A string without escapes is its raw bytes, between two `"`: a starter that composes with
//!   nothing, so the NFC and stream-safe checks read its edges as in a field of its own.
//! * `\"`, `\\` and `\/` decode to the ASCII character they end with, and `\n`, `\r`, `\t` (in
//!   values; a key is not text content) to a control that is clean there. None composes with
//!   a neighbour, so the characters around them are checked as in the value.
//! * A `\u` escape decodes to a character the raw text does not show. It must be clean
//!   (`checks::clean`), or *isolated* (`nfc::is_isolated`: NFC-inert, no leading non-starter
//!   in the stream-safe count) with nothing the checks report in it alone; and the raw
//!   character after the escape must be clean or isolated too (an ASCII letter from an escape
//!   composes with a combining mark after it). Then no character composes with a neighbour
//!   across the escape, nor makes a run of non-starters with one, in the raw text or in the
//!   value. A lone surrogate or a character the checks report fails the proof.
//! * The traversal check reads a field whole. In valid text without lookalikes it reports only
//!   a `%` or a dot-segment, whose last dot is followed in the raw text by `/`, `\` or the
//!   closing quote. The reading of a string's special bytes notes those *triggers* on its way
//!   (`words::blocks::triggers`); a string with one whose raw text may give a dot-segment or
//!   a `%` (`traversal_may_report`) is decoded and checked alone.
//! * A key given twice in one object: the keys of each open object, by a cheap hash of the
//!   decoded key (`keys::ObjectKeys`: an object of many keys is checked at its end). A repeat,
//!   or two keys of one hash, fails the proof;
//!   the fields report a repeat with its pointer. A proven document's strings are in NFC, so
//!   the bytes are the keys' comparison form (`crate::readings::json::fold`); a key with a character Go folds
//!   into ASCII (U+017F, U+212A) fails the proof too.

use crate::checks::{self, CheckOptions, clean, nfc, traversal};
use crate::decide::found::{Found, KindSet};
use crate::location::Part;
use crate::readings::json::error::JsonError;
use crate::readings::json::fold;
use crate::readings::json::keys::ObjectKeys;
use crate::readings::json::scanner::{JsonLimits, Sink, scan_into};
use crate::readings::json::string::{Unicode, decode_literal, unicode_escape};
use crate::readings::json::words::Window;

/// What a proof found: how much the document's strings hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Proven {
    /// Decoded bytes of every key and string value: what their fields would count as
    /// inspected.
    pub(crate) bytes: u64,
    /// Keys and string values.
    pub(crate) strings: usize,
}

/// Why a proof failed: no more than that (the fields then say what there is).
#[derive(Debug)]
pub(super) struct Unproven;

impl From<JsonError> for Unproven {
    fn from(_: JsonError) -> Self {
        Unproven
    }
}

/// Proves that no check reports anything in the strings of the JSON document `body` (as
/// [`crate::readings::json::scan`] reads it, within `limits`), nor a key given twice in one object; `None`
/// when it cannot (the fields decide then).
pub(crate) fn prove(body: &[u8], limits: JsonLimits, options: &CheckOptions) -> Option<Proven> {
    // The structure first: a body that only starts like JSON (JSON lines sent as text, which
    // the sniffed reading tries) is given up at its first line's end.
    let mut proof = Proof::new(options);
    scan_into(body, limits, &mut proof).ok()?;
    // A key twice in an object of many keys, found at the object's end.
    if proof.keys.repeated() {
        return None;
    }
    // Each simple escape is two raw bytes for one decoded (counted once, for the document).
    proof.proven.bytes = proof
        .proven
        .bytes
        .saturating_sub(proof.window.escapes() as u64);
    let text = match clean::two_byte_text(body) {
        Some(text) => text,
        None => utf8gate_codec::validate(body).ok()?,
    };
    let mut found = Found::new(0, KindSet::default());
    let path_lookalike = checks::check_text(Part::JsonString, text, options, &mut found);
    (path_lookalike.is_none() && found.is_empty()).then_some(proof.proven)
}

/// The state of one proof.
struct Proof<'o> {
    /// The checks' options.
    options: &'o CheckOptions,
    /// The keys of the open objects.
    keys: ObjectKeys,
    /// What the strings so far hold.
    proven: Proven,
    /// Non-ASCII characters of `\u` escapes found clean alone, by a hash of their code
    /// point (`u32::MAX`: none).
    alone: [u32; 64],
    /// Characters of escapes checked alone so far.
    alone_checks: usize,
    /// The stops, escapes and triggers of the block being read.
    window: Window,
}

/// Characters of escapes a proof checks alone before it gives up (a few hundred instructions
/// each: a document of many is read as fields, at a few per byte).
const MAX_ALONE_CHECKS: usize = 4096;

impl<'o> Proof<'o> {
    /// A proof that has read nothing yet.
    fn new(options: &'o CheckOptions) -> Self {
        Proof {
            options,
            keys: ObjectKeys::default(),
            proven: Proven::default(),
            alone: [u32::MAX; 64],
            alone_checks: 0,
            window: Window::new(),
        }
    }

    /// The classifier's context for a key or a value.
    fn context(&self, key: bool) -> clean::Context {
        clean::Context::of(Self::part(key), self.options.lookalikes)
    }

    /// The part of a key or a value.
    fn part(key: bool) -> Part {
        if key { Part::JsonKey } else { Part::JsonString }
    }
}

impl<'a> Sink<'a> for Proof<'_> {
    type Error = Unproven;

    fn open(&mut self, _: usize) -> usize {
        self.keys.open()
    }

    fn index(&mut self, _: usize, _: usize) {}

    fn close(&mut self, _: usize) {
        self.keys.close();
    }

    #[inline(always)]
    fn string(
        &mut self,
        body: &'a [u8],
        at: usize,
        key_of: Option<usize>,
    ) -> Result<usize, Unproven> {
        // Most strings: the first stop is the closing quote (simple escapes do not stop the
        // reading), and no trigger, so nothing to decode or to check alone; a key without
        // escapes is only hashed.
        self.window.begin(at + 1);
        let end = self.window.next(body, at + 1);
        if body.get(end) == Some(&b'"') {
            let plain = self.window.plain_in_block(end, key_of.is_some()) || {
                let span = self.window.span(end);
                !span.triggered && (key_of.is_none() || !span.escapes)
            };
            if plain {
                let inner = &body[at + 1..end];
                if key_of.is_some()
                    && (!self.keys.insert(inner) || fold::folds_to_ascii(inner).is_some())
                {
                    return Err(Unproven);
                }
                self.proven.bytes += inner.len() as u64;
                self.proven.strings += 1;
                return Ok(end + 1);
            }
        }
        self.string_read(body, at, key_of, end)
    }
}

impl Proof<'_> {
    /// [`Sink::string`] for a string the fast path did not settle (a `\u` escape, a key with
    /// escapes, or a trigger), from its first stop at `first`; out of line, so that the fast
    /// path stays small.
    #[inline(never)]
    fn string_read(
        &mut self,
        body: &[u8],
        at: usize,
        key_of: Option<usize>,
        first: usize,
    ) -> Result<usize, Unproven> {
        let key = key_of.is_some();
        let mut pos = first;
        // Raw bytes of `\u` escapes beyond what they decode to.
        let (mut unicode_extra, mut unicode, mut escaped_trigger) = (0, false, false);
        loop {
            match body.get(pos) {
                Some(b'"') => break,
                // The window stops at no simple escape: this is a `\u` escape or none the
                // proof takes.
                Some(b'\\') => {
                    let (next, c) = self.unicode(body, pos, key)?;
                    unicode_extra += next - pos - c.len_utf8();
                    unicode = true;
                    escaped_trigger |= matches!(c, '.' | '%');
                    pos = next;
                }
                _ => return Err(Unproven),
            }
            pos = self.window.next(body, pos);
        }
        let span = self.window.span(pos);
        // `\n`, `\r` and `\t` decode to controls, which a key (not text content) reports.
        if key && span.control_escapes {
            return Err(Unproven);
        }
        let inner = at + 1..pos;
        let len = inner.len() - unicode_extra;
        // Only a `.` or `%` lets the traversal check report anything; most dots (prose,
        // numbers, names) are read as no dot-segment from the raw text alone.
        let trigger = escaped_trigger || (span.triggered && traversal_may_report(&body[inner]));
        if trigger || key {
            let escaped = unicode || span.escapes;
            self.decoded_checks(body, at, key_of, pos, escaped, trigger)?;
        }
        self.proven.bytes += len as u64;
        self.proven.strings += 1;
        Ok(pos + 1)
    }

    /// The checks of [`Proof::string_read`] that read the string's value (between `at` and the
    /// closing quote at `end`, `escaped` when it has escapes): the traversal check for a
    /// `trigger`, the keys of the object for a key. Out of line, so that the reading of the
    /// escapes keeps a small frame.
    #[inline(never)]
    fn decoded_checks(
        &mut self,
        body: &[u8],
        at: usize,
        key_of: Option<usize>,
        end: usize,
        escaped: bool,
        trigger: bool,
    ) -> Result<(), Unproven> {
        let decoded;
        let value: &[u8] = if escaped {
            decoded = decode_literal(body, at)?;
            &decoded.value
        } else {
            &body[at + 1..end]
        };
        if trigger {
            let part = Self::part(key_of.is_some());
            let known = traversal::Known {
                text: utf8gate_codec::validate(value).ok(),
                path_lookalike: None,
                malformed: traversal::Malformed::default(),
            };
            let mut found = Found::new(0, KindSet::default());
            traversal::scan_with(part, value, self.options.lookalikes, known, &mut found);
            if !found.is_empty() {
                return Err(Unproven);
            }
        }
        if key_of.is_some() && (!self.keys.insert(value) || fold::folds_to_ascii(value).is_some()) {
            return Err(Unproven);
        }
        Ok(())
    }
}

/// Whether the traversal check may report something in the value of the JSON string whose raw
/// text (between its quotes, no `\u` escape making a `.` or `%`) is `raw`, from the raw text
/// alone. In valid text without lookalikes (which the whole-text checks would have reported) it
/// reports only a `%` (a lax second decoding) or a dot-segment: a run of one or two dots with,
/// on each side, the value's edge or a separator. A raw `/` is one; a raw `\` ends a `\\` or
/// starts an escape, and a hex digit may end a `\u002f`: each may make one. `false` proves
/// there is nothing to report; `true` sends the value to the check itself.
fn traversal_may_report(raw: &[u8]) -> bool {
    if memchr::memchr(b'%', raw).is_some() {
        return true;
    }
    // Without a `/` or a `\\` (so without escapes), the only segment is the whole value.
    if memchr::memchr2(b'/', b'\\', raw).is_none() {
        return raw == b"." || raw == b"..";
    }
    let separator = |b: u8| matches!(b, b'/' | b'\\');
    let mut from = 0;
    while let Some(p) = memchr::memchr(b'.', &raw[from..]) {
        let at = from + p;
        let run = raw[at..].iter().take_while(|&&b| b == b'.').count();
        from = at + run;
        let before = at == 0 || separator(raw[at - 1]) || raw[at - 1].is_ascii_hexdigit();
        let after = raw.get(from).is_none_or(|&b| separator(b));
        if run <= 2 && before && after {
            return true;
        }
    }
    false
}

impl Proof<'_> {
    /// The `\u` escape whose backslash is at `at` in a key or a value, when the proof can take
    /// it: the offset past it and the character it decodes to (the other escapes are read by
    /// the caller; any else fails the proof). Out of line: most escapes are of one byte.
    #[inline(never)]
    fn unicode(&mut self, body: &[u8], at: usize, key: bool) -> Result<(usize, char), Unproven> {
        if body.get(at + 1) != Some(&b'u') {
            return Err(Unproven);
        }
        let (Unicode::Scalar(scalar), next) = unicode_escape(body, at)? else {
            return Err(Unproven);
        };
        let c = char::from_u32(scalar).ok_or(Unproven)?;
        match self.alone_clean(c, key) && self.isolated_at(body, next, key) {
            true => Ok((next, c)),
            false => Err(Unproven),
        }
    }

    /// Whether `c` (from an escape) is clean as a key's or a value's character beside any
    /// other: clean for the classifier, or isolated (`nfc::is_isolated`) with nothing the
    /// checks report in it alone.
    fn alone_clean(&mut self, c: char, key: bool) -> bool {
        let mut utf8 = [0u8; 4];
        let text = c.encode_utf8(&mut utf8);
        let b = text.as_bytes();
        let byte = |i: usize| b.get(i).copied().unwrap_or(0);
        if !clean::is_candidate(byte(0), byte(1), byte(2), self.context(key)) {
            return true;
        }
        // Non-ASCII characters read the same in keys and values: remembered once found clean
        // (a document of escapes of a few such characters checks each once).
        let slot = &mut self.alone[(u32::from(c) as usize ^ (u32::from(c) as usize >> 6)) % 64];
        if !c.is_ascii() && *slot == u32::from(c) {
            return true;
        }
        // Past a few thousand, the fields' reading is cheaper than checks of one character.
        self.alone_checks += 1;
        if self.alone_checks > MAX_ALONE_CHECKS {
            return false;
        }
        let part = Self::part(key);
        let mut found = Found::new(0, KindSet::default());
        let clean = nfc::is_isolated(c)
            && checks::check_text(part, text, self.options, &mut found).is_none()
            && found.is_empty();
        if clean && !c.is_ascii() {
            *slot = u32::from(c);
        }
        clean
    }

    /// Whether the raw character at `at` (after an escape, which it reads as its neighbour)
    /// is clean or isolated: then it says the same beside the escape's character as beside
    /// the escape's last byte.
    fn isolated_at(&self, body: &[u8], at: usize, key: bool) -> bool {
        let byte = |i: usize| body.get(at + i).copied().unwrap_or(0);
        if !clean::is_candidate(byte(0), byte(1), byte(2), self.context(key)) {
            return true;
        }
        let width = match byte(0) {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0.. => 4,
            _ => 1,
        };
        let text = body
            .get(at..at + width)
            .and_then(|b| core::str::from_utf8(b).ok());
        text.and_then(|t| t.chars().next())
            .is_some_and(nfc::is_isolated)
    }
}

#[cfg(test)]
mod tests;
