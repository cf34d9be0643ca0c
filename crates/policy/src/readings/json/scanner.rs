//! The scanner itself (RFC 8259 syntax, the depth and string limits), generic over what it
//! does with what it reads ([`Sink`]): the tokens of `crate::readings::json::tokens`, or the proof of
//! `crate::readings::json::proof`. It never recurses (open containers live on an explicit stack whose depth is
//! checked before each push) and never panics.

use crate::readings::json::error::{JsonError, syntax};
use crate::readings::json::stack::Stack;

/// Limits for one scan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonLimits {
    /// Most containers open at once: `[[1]]` needs 2, a top-level scalar needs 0.
    pub(crate) max_depth: usize,
    /// Most string tokens (keys and string values together) in the document.
    pub(crate) max_strings: usize,
}

/// What a scan does with the containers and strings it reads: collect them with their pointers
/// (`crate::readings::json::scan`), or prove them clean without collecting anything (`proof`). The scanner owns
/// the syntax, the depth and the string count; the sink owns what a string is worth.
pub(crate) trait Sink<'a> {
    /// What ends a scan early: a syntax error or a limit, or a reason of the sink's own.
    type Error: From<JsonError>;
    /// A container opens with the bracket at `at`: returns its mark, which [`Sink::index`],
    /// [`Sink::string`] (for its keys) and [`Sink::close`] are given back.
    fn open(&mut self, at: usize) -> usize;
    /// The array marked `mark` reads its element `index`.
    fn index(&mut self, mark: usize, index: usize);
    /// The container marked `mark` is closed.
    fn close(&mut self, mark: usize);
    /// Reads the string literal whose opening quote is at `at`: a key of the object marked
    /// `key_of`, or a value (`None`). Returns the offset just past its closing quote.
    fn string(
        &mut self,
        body: &'a [u8],
        at: usize,
        key_of: Option<usize>,
    ) -> Result<usize, Self::Error>;
}

/// Scans a whole JSON document (as [`scan`]) into `sink`.
pub(crate) fn scan_into<'a, S: Sink<'a>>(
    body: &'a [u8],
    limits: JsonLimits,
    sink: &mut S,
) -> Result<(), S::Error> {
    // Built in place and read by reference: moving it would copy its inline stack.
    let mut scanner = Scanner {
        body,
        pos: 0,
        limits,
        top: None,
        stack: Stack::default(),
        depth: 0,
        strings: 0,
        sink,
    };
    scanner.run()
}

/// An open container on the scanner's explicit stack.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// An object, with its sink's mark.
    Object {
        /// What [`Sink::open`] returned for it.
        mark: usize,
    },
    /// An array, with the index of the element being read.
    Array {
        /// What [`Sink::open`] returned for it.
        mark: usize,
        /// Index of the current element.
        index: usize,
    },
}

/// The state of one scan.
struct Scanner<'a, 's, S> {
    /// The whole document.
    body: &'a [u8],
    /// Offset of the next byte to read.
    pos: usize,
    /// Limits in force.
    limits: JsonLimits,
    /// Open containers around the innermost one, innermost last (the first 16 inline).
    stack: Stack<Frame, 16>,
    /// The innermost open container (kept apart from `stack`, which holds the ones around it:
    /// it is read after every value).
    top: Option<Frame>,
    /// Open containers.
    depth: usize,
    /// String tokens read so far.
    strings: usize,
    /// Where the strings go.
    sink: &'s mut S,
}

impl Default for Frame {
    /// An empty slot of the stack's array.
    fn default() -> Self {
        Frame::Object { mark: 0 }
    }
}

impl<'a, S: Sink<'a>> Scanner<'a, '_, S> {
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
    fn run(&mut self) -> Result<(), S::Error> {
        loop {
            // A value is expected here.
            self.skip_ws();
            match self.peek() {
                Some(b'{') => {
                    let mark = self.open()?;
                    self.push(Frame::Object { mark });
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
                    let mark = self.open()?;
                    self.push(Frame::Array { mark, index: 0 });
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        self.close();
                    } else {
                        self.sink.index(mark, 0);
                        continue;
                    }
                }
                Some(b'"') => self.string(None)?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(syntax(self.pos, "expected value").into()),
            }
            if self.after_value()? {
                return Ok(());
            }
        }
    }

    /// After a complete value: reads separators and closing brackets until another value is
    /// expected (returns false) or the document is complete (returns true).
    fn after_value(&mut self) -> Result<bool, S::Error> {
        loop {
            self.skip_ws();
            let Some(frame) = self.top else {
                return if self.pos == self.body.len() {
                    Ok(true)
                } else {
                    Err(syntax(self.pos, "trailing data").into())
                };
            };
            match (frame, self.peek()) {
                (Frame::Array { mark, index }, Some(b',')) => {
                    self.pos += 1;
                    let index = index + 1;
                    self.top = Some(Frame::Array { mark, index });
                    self.sink.index(mark, index);
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
                (Frame::Array { .. }, _) => {
                    return Err(syntax(self.pos, "expected ',' or ']'").into());
                }
                (Frame::Object { .. }, _) => {
                    return Err(syntax(self.pos, "expected ',' or '}'").into());
                }
            }
        }
    }

    /// Opens a container at the current `[` or `{`, if the depth limit allows: its mark.
    fn open(&mut self) -> Result<usize, S::Error> {
        if self.depth >= self.limits.max_depth {
            return Err(JsonError::TooDeep {
                offset: self.pos,
                limit: self.limits.max_depth,
            }
            .into());
        }
        let mark = self.sink.open(self.pos);
        self.pos += 1;
        Ok(mark)
    }

    /// Makes `frame` the innermost open container.
    fn push(&mut self, frame: Frame) {
        if let Some(outer) = self.top.replace(frame) {
            self.stack.push(outer);
        }
        self.depth += 1;
    }

    /// Closes the innermost container (its closing bracket already consumed).
    fn close(&mut self) {
        if let Some(Frame::Object { mark } | Frame::Array { mark, .. }) = self.top {
            self.top = self.stack.pop();
            self.depth -= 1;
            self.sink.close(mark);
        }
    }

    /// Reads an object member's key (whitespace before it already skipped) and the `:` after
    /// it. Inlined into both callers: a key is a third of an API document's tokens.
    #[inline(always)]
    fn member_key(&mut self) -> Result<(), S::Error> {
        if self.peek() != Some(b'"') {
            return Err(syntax(self.pos, "expected string key").into());
        }
        let parent = match self.top {
            Some(Frame::Object { mark }) => mark,
            _ => 0,
        };
        self.string(Some(parent))?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(syntax(self.pos, "expected ':'").into());
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads the string literal whose opening quote is at the current offset, if the limit on
    /// strings allows: a key of the object marked `key_of`, or a value. Inlined into both
    /// callers: strings are most of a document's tokens.
    #[inline(always)]
    fn string(&mut self, key_of: Option<usize>) -> Result<(), S::Error> {
        if self.strings >= self.limits.max_strings {
            return Err(JsonError::TooManyStrings {
                limit: self.limits.max_strings,
            }
            .into());
        }
        self.strings += 1;
        self.pos = self.sink.string(self.body, self.pos, key_of)?;
        Ok(())
    }

    /// Reads `true`, `false` or `null`.
    fn literal(&mut self, word: &[u8]) -> Result<(), S::Error> {
        if self
            .body
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            self.pos += word.len();
            Ok(())
        } else {
            Err(syntax(self.pos, "invalid literal").into())
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
    fn number(&mut self) -> Result<(), S::Error> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(syntax(self.pos, "leading zero in number").into());
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(syntax(self.pos, "invalid number").into()),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(syntax(self.pos, "invalid number").into());
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(syntax(self.pos, "invalid number").into());
            }
        }
        Ok(())
    }
}
