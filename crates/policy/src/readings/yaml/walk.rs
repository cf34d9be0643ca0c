//! The events of a YAML stream (`saphyr-parser`) turned into fields: every scalar a field at
//! its path, the shapes with a second reading reported, within the profile's limits. The
//! parser is pulled one event at a time, so a limit stops it; aliases are never expanded.
//! The parser reads through [`Capped`]: see there why.

use core::cell::Cell;
use core::hash::BuildHasher;
use std::borrow::Cow;
use std::collections::HashSet;
use std::rc::Rc;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

use crate::readings::yaml::capped::{Capped, LastEvent, Offsets};
use crate::readings::yaml::scalars::{Scalar, Scalars};

use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::location::{Location, Part};

/// Why a stream was not read to its end: its text is then checked as one field.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// Not YAML: the parser's message, at this offset of the text.
    Malformed(usize, String),
    /// Nested deeper than the limit, at this offset.
    TooDeep(usize, usize),
    /// More scalars than the limit.
    TooManyScalars(usize),
    /// The parser's input was cut ([`crate::readings::yaml::capped`]) after the event ending at this offset.
    TooFarAhead(usize),
    /// The function the scalars went to asked to stop ([`Scalars::Each`]).
    Stopped,
}

/// What a walk read: whether its scalars outgrew their budget ([`Scalars::Kept`]), and how
/// many documents the stream has.
pub(super) struct Walked {
    pub(super) overflowed: bool,
    pub(super) documents: usize,
}

/// The limits of one walk.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Most collections open at once.
    pub(super) max_depth: usize,
    /// Most scalars (keys and values) in the stream.
    pub(super) max_scalars: usize,
    /// Whether aliases are let through (`readings.yaml_aliases = "check"`).
    pub(super) aliases: bool,
}

/// The core schema's tags (YAML 1.2.2 §10.3): they name the type a plain scalar resolves to
/// anyway, and construct nothing else.
const CORE_TAGS: [&str; 7] = ["str", "int", "float", "bool", "null", "seq", "map"];

/// An open collection.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// A sequence: its pointer's length, the next entry's index, whether it is inside a key.
    Seq {
        prefix: usize,
        next: usize,
        key: bool,
    },
    /// A mapping: its pointer's length, its number (for repeated keys), whether a key comes
    /// next, whether it is inside a key.
    Map {
        prefix: usize,
        id: u64,
        want_key: bool,
        key: bool,
    },
}

/// The state of one walk over the stream in `text`, whose first byte is at `base` of the body.
struct Walk<'t, 'o, 's> {
    offsets: Offsets<'t>,
    base: usize,
    limits: Limits,
    out: &'o mut Decomposed<'t>,
    /// The pointer of the node being read; frames remember their prefix in it.
    pointer: String,
    stack: Vec<Frame>,
    /// The length of the document's own pointer (`/N` in a stream of several, or nothing).
    doc_prefix: usize,
    documents: usize,
    /// Where the scalars read go: kept, made fields once the stream is read whole (a stream
    /// past a limit costs only these), or handed on.
    sink: Scalars<'t, 's>,
    /// Whether the stream has several documents, known before its first ends (a walk again).
    multi: bool,
    /// Where this walk's findings start in `out` (to prefix them with `/0`).
    first_structural: usize,
    scalars: usize,
    maps: u64,
    keys: HashSet<u64>,
    hasher: std::collections::hash_map::RandomState,
    /// The shapes already reported (tag, merge key, alias, repeated key, a YAML 1.1 line
    /// break, a document after a root block scalar): one finding each.
    reported: [bool; 6],
    /// Whether the document's root node is a block scalar.
    root_block: bool,
}

/// Reads the stream in `text` into `out`: its scalars to `sink` (kept ones as fields), its
/// second readings as `ambiguous_yaml`. Stops at the first error or limit. `multi` when the
/// stream is known to have several documents.
pub(super) fn walk<'t, 's>(
    text: &'t str,
    base: usize,
    limits: Limits,
    out: &mut Decomposed<'t>,
    (sink, multi): (Scalars<'t, 's>, bool),
) -> Result<Walked, Stop> {
    let first_structural = out.structural.len();
    let mut walk = Walk {
        offsets: Offsets::new(text),
        base,
        limits,
        out,
        pointer: String::new(),
        stack: Vec::new(),
        doc_prefix: 0,
        documents: 0,
        sink,
        multi,
        first_structural,
        scalars: 0,
        maps: 0,
        keys: HashSet::new(),
        hasher: std::collections::hash_map::RandomState::new(),
        reported: [false; 6],
        root_block: false,
    };
    // NEL, LS and PS are line breaks to YAML 1.1 (PyYAML, libyaml) and text to YAML 1.2: a
    // comment that ends at one for the first is a comment to the end of the line for the other.
    let breaks = ["\u{85}", "\u{2028}", "\u{2029}"]
        .map(|b| memchr::memmem::find(text.as_bytes(), b.as_bytes()));
    if let Some(at) = breaks.into_iter().flatten().min() {
        let message = "a NEL, LS or PS character: a line break to YAML 1.1, text to YAML 1.2";
        walk.report(4, base + at, message);
    }
    let event: LastEvent = Rc::new(Cell::new(None));
    let cut = Rc::new(Cell::new(false));
    let input = Capped::new(text, Rc::clone(&event), Rc::clone(&cut));
    let mut last = 0;
    for parsed in Parser::new_from_iter(input) {
        let (parsed, span) = parsed.map_err(|e| {
            let at = walk.offset(e.marker().index());
            if cut.get() {
                Stop::TooFarAhead(at)
            } else if e.info() == "recursion limit exceeded" {
                Stop::TooDeep(at, walk.limits.max_depth)
            } else {
                Stop::Malformed(at, e.info().to_string())
            }
        })?;
        last = span.end.index();
        event.set(Some(last));
        if walk.event(parsed, span)? {
            break;
        }
    }
    // A cut input that still parsed (it ended where a document may end) was not read whole.
    if cut.get() {
        return Err(Stop::TooFarAhead(walk.offset(last)));
    }
    let documents = walk.documents;
    let overflowed = walk.sink.finish(&mut walk.out.fields);
    Ok(Walked {
        overflowed,
        documents,
    })
}

impl<'t> Walk<'t, '_, '_> {
    /// Takes one event; `true` at the end of the stream.
    fn event(&mut self, event: Event<'t>, span: Span) -> Result<bool, Stop> {
        match event {
            Event::StreamEnd => return Ok(true),
            Event::DocumentStart(_) => {
                if std::mem::take(&mut self.root_block) {
                    let message =
                        "a document after a root block scalar, which some parsers read as its text";
                    self.ambiguous(5, span, message);
                }
                self.document();
            }
            Event::Scalar(text, style, _, tag) => {
                self.root_block = self.stack.is_empty()
                    && matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                let key = self.enter();
                self.tag(tag.as_deref(), span);
                self.scalar(text, style, key, span)?;
                self.leave();
            }
            Event::Alias(_) => {
                self.enter();
                let message = "an alias: the application reads its anchored value twice";
                if !self.limits.aliases {
                    self.ambiguous(2, span, message);
                }
                self.leave();
            }
            Event::SequenceStart(_, tag) => self.open(true, tag.as_deref(), span)?,
            Event::MappingStart(_, tag) => self.open(false, tag.as_deref(), span)?,
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(Frame::Seq { prefix, .. } | Frame::Map { prefix, .. }) =
                    self.stack.pop()
                {
                    self.pointer.truncate(prefix);
                }
                self.leave();
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
        }
        Ok(false)
    }

    /// A sequence or mapping starts.
    fn open(&mut self, sequence: bool, tag: Option<&Tag>, span: Span) -> Result<(), Stop> {
        let key = self.enter();
        self.tag(tag, span);
        if self.stack.len() >= self.limits.max_depth {
            let at = self.offset(span.start.index());
            return Err(Stop::TooDeep(at, self.limits.max_depth));
        }
        let prefix = self.pointer.len();
        self.stack.push(if sequence {
            Frame::Seq {
                prefix,
                next: 0,
                key,
            }
        } else {
            self.maps += 1;
            let id = self.maps;
            Frame::Map {
                prefix,
                id,
                want_key: true,
                key,
            }
        });
        Ok(())
    }

    /// A document starts: its pointer is `/N` in a stream of several (the first document's
    /// fields, read before the second one showed, get their `/0` now).
    fn document(&mut self) {
        self.stack.clear();
        self.documents += 1;
        if self.documents == 2 {
            for scalar in self.sink.kept() {
                scalar.pointer.insert_str(0, "/0");
            }
            for (location, _) in &mut self.out.structural[self.first_structural..] {
                let pointer = format!("/0{}", location.pointer.as_deref().unwrap_or(""));
                *location = Location::part(location.part).with_pointer(&pointer);
            }
        }
        self.pointer.clear();
        if self.documents >= 2 || self.multi {
            self.pointer = format!("/{}", self.documents - 1);
        }
        self.doc_prefix = self.pointer.len();
    }

    /// A node starts: points `pointer` at it; `true` if it is (inside) a mapping key.
    fn enter(&mut self) -> bool {
        match self.stack.last_mut() {
            None => {
                self.pointer.truncate(self.doc_prefix);
                false
            }
            Some(Frame::Seq { prefix, next, key }) => {
                self.pointer.truncate(*prefix);
                self.pointer.push('/');
                self.pointer.push_str(&next.to_string());
                *next += 1;
                *key
            }
            Some(Frame::Map {
                prefix, want_key, ..
            }) if *want_key => {
                self.pointer.truncate(*prefix);
                true
            }
            Some(Frame::Map { key, .. }) => *key,
        }
    }

    /// A node ended: a mapping's next node is a value after a key, a key after a value.
    fn leave(&mut self) {
        if let Some(Frame::Map { want_key, .. }) = self.stack.last_mut() {
            *want_key = !*want_key;
        }
    }

    /// A scalar: a field (an empty plain scalar is a null, no text); a key also points
    /// `pointer` at its value, and is compared with its mapping's other keys.
    fn scalar(
        &mut self,
        text: Cow<'t, str>,
        style: ScalarStyle,
        key: bool,
        span: Span,
    ) -> Result<(), Stop> {
        self.scalars += 1;
        if self.scalars > self.limits.max_scalars {
            return Err(Stop::TooManyScalars(self.limits.max_scalars));
        }
        let map_key = match self.stack.last() {
            Some(Frame::Map { want_key, id, .. }) if *want_key => Some(*id),
            _ => None,
        };
        if let Some(id) = map_key {
            if style == ScalarStyle::Plain && text == "<<" {
                self.ambiguous(
                    1,
                    span,
                    "a merge key '<<': its mapping's values appear here too",
                );
            }
            if !self.keys.insert(self.hasher.hash_one((id, &*text))) {
                let message =
                    "a key given twice in one mapping: parsers keep the first or the last";
                self.ambiguous(3, span, message);
            }
            self.pointer.push('/');
            for c in text.chars() {
                match c {
                    '~' => self.pointer.push_str("~0"),
                    '/' => self.pointer.push_str("~1"),
                    _ => self.pointer.push(c),
                }
            }
        }
        if style == ScalarStyle::Plain && text.is_empty() {
            return Ok(());
        }
        let part = if key { Part::YamlKey } else { Part::YamlString };
        let bytes = match text {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        };
        let start = self.offset(span.start.index());
        let end = self.offset(span.end.index()).max(start);
        let scalar = Scalar::new(part, &self.pointer, bytes, start..end);
        match self.sink.take(scalar) {
            core::ops::ControlFlow::Continue(()) => Ok(()),
            core::ops::ControlFlow::Break(()) => Err(Stop::Stopped),
        }
    }

    /// A tag outside the core schema is a second reading.
    fn tag(&mut self, tag: Option<&Tag>, span: Span) {
        let Some(tag) = tag else { return };
        if tag.is_yaml_core_schema() && CORE_TAGS.contains(&tag.suffix.as_str()) {
            return;
        }
        let message = format!(
            "the tag {}{} constructs what no field shows",
            tag.handle, tag.suffix
        );
        self.ambiguous(0, span, &message);
    }

    /// Reports shape `shape` once per walk, at the current pointer.
    fn ambiguous(&mut self, shape: usize, span: Span, message: &str) {
        let at = self.offset(span.start.index());
        self.report(shape, at, message);
    }

    /// Reports shape `shape` once per walk, at the current pointer and body offset `at`.
    fn report(&mut self, shape: usize, at: usize, message: &str) {
        if std::mem::replace(&mut self.reported[shape], true) {
            return;
        }
        let location = Location::part(Part::YamlString).with_pointer(&self.pointer);
        let message = message.to_string();
        (self.out).structural_at(location, FindingKind::AmbiguousYaml, at, message);
    }

    /// The body offset of character `index` of the text.
    fn offset(&self, index: usize) -> usize {
        self.base + self.offsets.byte(index)
    }
}
