//! A small byte-exact JSON scanner: every object key and string value of a body, decoded the way
//! the application will receive it, with its JSON pointer and the byte span of its literal, so
//! that findings can point at it and a single string can be rewritten while every other byte of
//! the body (formatting included) stays as it was.
//!
//! serde_json cannot report byte spans, hence this scanner. It validates full RFC 8259 syntax,
//! never recurses (open containers live on an explicit stack whose depth is checked before each
//! push), never panics, and does work linear in the body plus the size of what it returns.
//!
//! It differs from serde_json on purpose in two ways, both because the caller diagnoses them
//! instead of refusing them blindly: a lone surrogate escape (`"\uD800"`) decodes to U+FFFD and
//! is reported in [`JsonString::lone_surrogates`], and raw bytes >= 0x80 inside a string are
//! copied as they are, valid UTF-8 or not (the caller runs the UTF-8 validator on
//! [`JsonString::value`]). It also accepts numbers of any magnitude (serde_json refuses a number
//! that overflows `f64`, such as `1e400`, when it builds a `Value`): RFC 8259 sets no range.

use core::ops::Range;

use compact_str::CompactString;
use smallvec::SmallVec;

use crate::field::FieldBytes;

pub(crate) use error::JsonError;
use error::syntax;
pub(crate) use pointer::MAX_POINTER_BYTES;
use pointer::capped;
pub(crate) use string::encode_string;
use string::{Decoded, literal_len, plain_run};

mod error;
mod pointer;
mod string;
mod words;

/// One JSON string token (an object key or a string value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonString<'a> {
    /// RFC 6901 JSON pointer of the value (for a key: the pointer of the member it names), cut
    /// to [`MAX_POINTER_BYTES`] so that memory stays linear in the body.
    /// Built from the decoded key bytes (lossily converted with `String::from_utf8_lossy`),
    /// escaping `~` as `~0` and `/` as `~1`; array indexes are decimal. The document itself is
    /// `""`.
    pub(crate) pointer: CompactString,
    /// true for an object key, false for a string value.
    pub(crate) is_key: bool,
    /// Byte range of the whole token in the body, quotes included. Replacing
    /// `body[raw]` with [`encode_string`] of a new value rewrites this string alone.
    pub(crate) raw: Range<usize>,
    /// The string's bytes with escapes decoded: what the application receives. Raw bytes between
    /// the quotes that are not escapes are copied as they are (even if they are not valid UTF-8).
    /// `\uXXXX` escapes decode to the UTF-8 of the scalar, a valid surrogate pair to the 4-byte
    /// UTF-8 of its supplementary scalar, and a lone surrogate to U+FFFD (EF BF BD).
    /// Borrowed from the body when the literal has no escape (most strings): no copy.
    pub(crate) value: FieldBytes<'a>,
    /// Byte offsets in `value` where a lone-surrogate escape was replaced by U+FFFD (3 bytes
    /// each), with the surrogate's value (e.g. 0xD800).
    pub(crate) lone_surrogates: Vec<(usize, u16)>,
    /// Byte offsets in `value` of NUL characters that came from a `\u0000` escape (a raw NUL is
    /// a syntax error).
    pub(crate) escaped_nuls: Vec<usize>,
}

/// The string tokens of a document, the first 8 inline (none allocated for a small one).
pub(crate) type Tokens<'a> = SmallVec<[JsonString<'a>; 8]>;

/// Limits for one scan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonLimits {
    /// Most containers open at once: `[[1]]` needs 2, a top-level scalar needs 0.
    pub(crate) max_depth: usize,
    /// Most string tokens (keys and string values together) in the document.
    pub(crate) max_strings: usize,
}

/// Scans a whole JSON document (RFC 8259: any value at top level, surrounding whitespace
/// allowed; not a leading BOM: the caller strips it before calling). Returns every key and string
/// value in document order (a key comes right before its value), so the `raw` spans are
/// increasing and disjoint.
pub(crate) fn scan(body: &[u8], limits: JsonLimits) -> Result<Tokens<'_>, JsonError> {
    Scanner {
        body,
        pos: 0,
        limits,
        stack: SmallVec::new(),
        pointer: CompactString::default(),
        out: Tokens::new(),
    }
    .run()
}

/// An open container on the scanner's explicit stack.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// An object; `prefix_len` is the length of the container's own pointer.
    Object {
        /// Length of the container's own pointer in `Scanner::pointer`.
        prefix_len: usize,
    },
    /// An array, with the index of the element being read.
    Array {
        /// Length of the container's own pointer in `Scanner::pointer`.
        prefix_len: usize,
        /// Index of the current element.
        index: usize,
    },
}

/// The state of one scan.
struct Scanner<'a> {
    /// The whole document.
    body: &'a [u8],
    /// Offset of the next byte to read.
    pos: usize,
    /// Limits in force.
    limits: JsonLimits,
    /// Open containers, innermost last (the first 16 inline).
    stack: SmallVec<[Frame; 16]>,
    /// Pointer of the value being read; containers remember their prefix length in it
    /// (inline while it is at most 24 bytes long).
    pointer: CompactString,
    /// Tokens found so far.
    out: Tokens<'a>,
}

impl<'a> Scanner<'a> {
    /// The byte at the current offset.
    fn peek(&self) -> Option<u8> {
        self.body.get(self.pos).copied()
    }

    /// Skips RFC 8259 whitespace.
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Reads the whole document.
    fn run(mut self) -> Result<Tokens<'a>, JsonError> {
        loop {
            // A value is expected here.
            self.skip_ws();
            match self.peek() {
                Some(b'{') => {
                    self.open(Frame::Object {
                        prefix_len: self.pointer.len(),
                    })?;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        self.close();
                    } else {
                        self.member_key()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    let prefix_len = self.pointer.len();
                    self.open(Frame::Array {
                        prefix_len,
                        index: 0,
                    })?;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.close();
                    } else {
                        self.set_index(prefix_len, 0);
                        continue;
                    }
                }
                Some(b'"') => {
                    let decoded = self.string()?;
                    let pointer = capped(&self.pointer);
                    self.push(decoded, pointer, false);
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(syntax(self.pos, "expected value")),
            }
            if self.after_value()? {
                return Ok(self.out);
            }
        }
    }

    /// After a complete value: reads separators and closing brackets until another value is
    /// expected (returns false) or the document is complete (returns true).
    fn after_value(&mut self) -> Result<bool, JsonError> {
        loop {
            self.skip_ws();
            let Some(&frame) = self.stack.last() else {
                return if self.pos == self.body.len() {
                    Ok(true)
                } else {
                    Err(syntax(self.pos, "trailing data"))
                };
            };
            match (frame, self.peek()) {
                (Frame::Array { prefix_len, index }, Some(b',')) => {
                    self.pos += 1;
                    let index = index + 1;
                    if let Some(last) = self.stack.last_mut() {
                        *last = Frame::Array { prefix_len, index };
                    }
                    self.set_index(prefix_len, index);
                    return Ok(false);
                }
                (Frame::Object { .. }, Some(b',')) => {
                    self.pos += 1;
                    self.skip_ws();
                    self.member_key()?;
                    return Ok(false);
                }
                (Frame::Array { .. }, Some(b']')) | (Frame::Object { .. }, Some(b'}')) => {
                    self.pos += 1;
                    self.close();
                }
                (Frame::Array { .. }, _) => return Err(syntax(self.pos, "expected ',' or ']'")),
                (Frame::Object { .. }, _) => return Err(syntax(self.pos, "expected ',' or '}'")),
            }
        }
    }

    /// Opens a container at the current `[` or `{`, if the depth limit allows.
    fn open(&mut self, frame: Frame) -> Result<(), JsonError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(JsonError::TooDeep {
                offset: self.pos,
                limit: self.limits.max_depth,
            });
        }
        self.stack.push(frame);
        self.pos += 1;
        Ok(())
    }

    /// Closes the innermost container (its closing bracket already consumed).
    fn close(&mut self) {
        if let Some(Frame::Object { prefix_len } | Frame::Array { prefix_len, .. }) =
            self.stack.pop()
        {
            self.pointer.truncate(prefix_len);
        }
    }

    /// Points `pointer` at element `index` of the array whose own pointer has `prefix_len` bytes.
    fn set_index(&mut self, prefix_len: usize, index: usize) {
        self.pointer.truncate(prefix_len);
        pointer::push_index(&mut self.pointer, index);
    }

    /// Reads an object member's key (whitespace before it already skipped) and the `:` after
    /// it, and points `pointer` at the member.
    fn member_key(&mut self) -> Result<(), JsonError> {
        if self.peek() != Some(b'"') {
            return Err(syntax(self.pos, "expected string key"));
        }
        let decoded = self.string()?;
        if let Some(Frame::Object { prefix_len }) = self.stack.last() {
            self.pointer.truncate(*prefix_len);
        }
        pointer::push_key(&mut self.pointer, &String::from_utf8_lossy(&decoded.value));
        let pointer = capped(&self.pointer);
        self.push(decoded, pointer, true);
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(syntax(self.pos, "expected ':'"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Records a token.
    fn push(&mut self, decoded: Decoded<'a>, pointer: CompactString, is_key: bool) {
        self.out.push(JsonString {
            pointer,
            is_key,
            raw: decoded.raw,
            value: decoded.value,
            lone_surrogates: decoded.lone_surrogates,
            escaped_nuls: decoded.escaped_nuls,
        });
    }

    /// Reads the string literal whose opening quote is at the current offset.
    fn string(&mut self) -> Result<Decoded<'a>, JsonError> {
        if self.out.len() >= self.limits.max_strings {
            return Err(JsonError::TooManyStrings {
                limit: self.limits.max_strings,
            });
        }
        let body: &'a [u8] = self.body;
        let start = self.pos;
        let mut pos = start + 1;
        let rest = body.get(pos..).unwrap_or_default();
        let run = plain_run(rest);
        let mut decoded = Decoded {
            raw: start..start,
            value: FieldBytes::Borrowed(rest.get(..run).unwrap_or_default()),
            lone_surrogates: Vec::new(),
            escaped_nuls: Vec::new(),
        };
        pos += run;
        if body.get(pos) == Some(&b'\\') {
            // An escape: the value is decoded into a buffer, as long as the literal's rest
            // (decoding never lengthens a string), so that it never grows.
            let mut value =
                FieldBytes::with_capacity(run + literal_len(body.get(pos..).unwrap_or_default()));
            value.extend_from_slice(&decoded.value);
            decoded.value = value;
        }
        loop {
            match body.get(pos) {
                None => return Err(syntax(pos, "unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => pos = decoded.escape(body, pos)?,
                Some(_) => return Err(syntax(pos, "control character in string")),
            }
            let rest = body.get(pos..).unwrap_or_default();
            let run = plain_run(rest);
            (decoded.value).extend_from_slice(rest.get(..run).unwrap_or_default());
            pos += run;
        }
        self.pos = pos + 1;
        decoded.raw = start..self.pos;
        Ok(decoded)
    }

    /// Reads `true`, `false` or `null`.
    fn literal(&mut self, word: &[u8]) -> Result<(), JsonError> {
        if self
            .body
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            self.pos += word.len();
            Ok(())
        } else {
            Err(syntax(self.pos, "invalid literal"))
        }
    }

    /// Skips ASCII digits; returns how many.
    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// Reads a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Result<(), JsonError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(syntax(self.pos, "leading zero in number"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(syntax(self.pos, "invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(syntax(self.pos, "invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(syntax(self.pos, "invalid number"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
