//! The parser's input, capped. `saphyr-parser`'s scanner holds every token of a flow
//! collection opened in block context until the collection closes (its `[` might still turn
//! out to be a key: it never lets such a key go stale inside a flow), a few hundred bytes a
//! token. [`Capped`] ends the input, as if the text did, when the parser has read far past
//! its last event, many flow indicators with it, and what follows that event is not a block
//! scalar: memory stays a fixed amount, and such a document is `limit_exceeded`. A block
//! scalar (`|`, `>`: one token, never a key, so never held) reads on whatever it holds: a
//! literal block of JSON text. A quoted or plain scalar that long and that full of commas is
//! cut too (one may be a key held with a flow collection after it on its line).

use core::cell::Cell;
use std::rc::Rc;

/// Characters the parser may read past its last event before the cap is considered.
pub(super) const LOOKAHEAD: usize = 32 * 1024;

/// Flow entry and collection starts (`,`, `[`, `{`), and the starts of the other tokens a flow
/// holds (an alias `*`, an anchor `&`, a tag `!`, a key `?`, a value `:`), the parser may read
/// past its last event before the cap is considered: every held token follows one, so this
/// bounds them (`[*a *a *a ...]` holds an alias token every three bytes and no comma).
pub(super) const MAX_INDICATORS: usize = 16 * 1024;

/// What the walk tells the input: the character index where its last event ended.
pub(super) type LastEvent = Rc<Cell<Option<usize>>>;

/// The characters of a text, capped (see the module doc).
pub(super) struct Capped<'t> {
    text: &'t str,
    /// Byte offset of the next character, and characters read.
    pos: usize,
    read: usize,
    /// Counts since the last event.
    ahead: usize,
    indicators: usize,
    /// Where the last event ended (characters), and where the look for what follows it is.
    last: usize,
    look: Look,
    event: LastEvent,
    cut: Rc<Cell<bool>>,
}

/// What follows the last event, as far as it was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// Not looked at yet.
    Unknown,
    /// Only white space, comments, indicators and node properties up to this byte offset.
    Blank {
        from: usize,
        comment: bool,
        property: bool,
    },
    /// A flow collection, or a scalar that may be a key held with one: cut.
    Held,
    /// A block scalar: one token, never held.
    Block,
}

impl<'t> Capped<'t> {
    /// `text`'s characters; the walk sets `event` at each event, `cut` says the input was cut.
    pub(super) fn new(text: &'t str, event: LastEvent, cut: Rc<Cell<bool>>) -> Self {
        let look = Look::Unknown;
        let (pos, read, ahead, indicators, last) = (0, 0, 0, 0, 0);
        Capped {
            text,
            pos,
            read,
            ahead,
            indicators,
            last,
            look,
            event,
            cut,
        }
    }

    /// Looks at what follows the last event, from where the last look stopped to `pos`.
    fn look(&mut self) -> Look {
        let (mut at, mut comment, mut property) = match self.look {
            Look::Unknown => (self.byte_of(self.last), false, false),
            Look::Blank {
                from,
                comment,
                property,
            } => (from, comment, property),
            decided => return decided,
        };
        for c in self.text[at..self.pos].chars() {
            match c {
                '\n' | '\r' => (comment, property) = (false, false),
                _ if comment => {}
                ' ' | '\t' => property = false,
                _ if property => {}
                '#' => comment = true,
                '&' | '!' => property = true,
                ':' | '-' | '?' | ',' | '.' | '\u{feff}' => {}
                '|' | '>' => return Look::Block,
                _ => return Look::Held,
            }
            at += c.len_utf8();
        }
        Look::Blank {
            from: at,
            comment,
            property,
        }
    }

    /// The byte offset of character `index` (at most `read`), walking back from `pos`.
    fn byte_of(&self, index: usize) -> usize {
        let back = self.read.saturating_sub(index);
        match back.checked_sub(1) {
            None => self.pos,
            Some(n) => {
                let mut rev = self.text[..self.pos].char_indices().rev();
                rev.nth(n).map_or(0, |(i, _)| i)
            }
        }
    }
}

impl Iterator for Capped<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        if let Some(end) = self.event.take() {
            (self.ahead, self.indicators) = (0, 0);
            (self.last, self.look) = (end.min(self.read), Look::Unknown);
        }
        if self.cut.get() {
            return None;
        }
        if self.ahead >= LOOKAHEAD && self.indicators >= MAX_INDICATORS {
            self.look = self.look();
            match self.look {
                Look::Held => {
                    self.cut.set(true);
                    return None;
                }
                // Looked at again after as much reading again: linear, the look resumes.
                _ => (self.ahead, self.indicators) = (0, 0),
            }
        }
        let c = self.text[self.pos..].chars().next()?;
        self.pos += c.len_utf8();
        self.read += 1;
        self.ahead += 1;
        self.indicators += usize::from(matches!(c, ',' | '[' | '{' | '*' | '&' | '!' | ':' | '?'));
        Some(c)
    }
}

/// Byte offsets of character indexes (the parser's markers count characters): every 64th
/// character's offset, found by a walk of at most 63 characters from it.
pub(super) struct Offsets<'t> {
    text: &'t str,
    ascii: bool,
    marks: Vec<usize>,
}

impl<'t> Offsets<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        let ascii = text.is_ascii();
        let marks = if ascii {
            Vec::new()
        } else {
            text.char_indices().step_by(64).map(|(i, _)| i).collect()
        };
        Offsets { text, ascii, marks }
    }

    pub(super) fn byte(&self, index: usize) -> usize {
        if self.ascii {
            return index.min(self.text.len());
        }
        let Some(&from) = self.marks.get(index / 64) else {
            return self.text.len();
        };
        let rest = &self.text[from..];
        let skip = rest.char_indices().nth(index % 64);
        skip.map_or(self.text.len(), |(i, _)| from + i)
    }
}
