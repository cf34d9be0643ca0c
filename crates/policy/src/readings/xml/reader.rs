//! One XML document's walk: its state, where its fields go (into the request's fields while
//! they cost less than the document's bytes, nowhere when the document is read through, or one
//! at a time to the checks), and how each field is made. The walk itself is `super`'s.

use core::ops::ControlFlow;

use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::readings::xml::path::Path;
use crate::readings::xml::{text, text_field};

/// Where a walk's fields go.
pub(super) enum Sink<'a, 'o> {
    /// Into the request's fields, while they are at most `budget` more than the `first` it
    /// had; past that, they are dropped and the walk goes on as [`Sink::Through`].
    Kept {
        /// The request's fields and room for detailed findings.
        out: &'o mut Decomposed<'a>,
        /// How many fields it had before the document's.
        first: usize,
        /// How many fields the document may keep.
        budget: usize,
    },
    /// Nowhere: the document is read through.
    Through,
    /// One at a time to a function.
    Each(Emit<'o>),
}

/// Where a reading's fields go, when it keeps them: handed to `f` at the name, index and
/// `check_only` of the document's `field`, with `room` for detailed findings.
pub(super) struct Emit<'o> {
    /// The document's field: its name, index and `check_only` are each field's.
    pub(super) field: &'o Field<'o>,
    /// Room left for detailed findings.
    pub(super) room: usize,
    /// What each field is handed to.
    pub(super) f: &'o mut dyn FnMut(&Field) -> ControlFlow<()>,
}

/// Why a document is refused: offset in the document, kind, message.
pub(super) type Refusal = (usize, FindingKind, String);

/// One document's walk.
pub(super) struct Reader<'a, 'o, 'p> {
    /// The document: the body after its signature.
    pub(super) doc: &'a str,
    /// Where `doc` starts in the body.
    pub(super) start: usize,
    /// The limits and readings it is walked under.
    pub(super) profile: &'p Profile,
    /// Where in the document the walk is.
    pub(super) path: Path,
    /// Fields read so far, against the limit.
    pub(super) fields: usize,
    /// Root elements read so far.
    pub(super) roots: usize,
    /// Where its fields go.
    pub(super) sink: Sink<'a, 'o>,
    /// Whether the fields outgrew [`Sink::Kept`]'s budget.
    pub(super) overflowed: bool,
    /// Whether [`Sink::Each`]'s function ended the walk (its error then is no refusal).
    pub(super) stopped: bool,
}

pub(super) fn malformed(offset: usize, message: impl Into<String>) -> Refusal {
    (
        offset,
        FindingKind::MalformedBody,
        format!("not XML: {}", message.into()),
    )
}

impl<'a, 'o, 'p> Reader<'a, 'o, 'p> {
    pub(super) fn new(
        doc: &'a str,
        start: usize,
        profile: &'p Profile,
        sink: Sink<'a, 'o>,
    ) -> Self {
        Reader {
            doc,
            start,
            profile,
            path: Path::default(),
            fields: 0,
            roots: 0,
            sink,
            overflowed: false,
            stopped: false,
        }
    }

    /// Room for detailed findings of the fields' layers, if fields are made at all.
    pub(super) fn room(&self) -> Option<usize> {
        match &self.sink {
            Sink::Kept { out, .. } => Some(out.layer_room),
            Sink::Through => None,
            Sink::Each(emit) => Some(emit.room),
        }
    }

    /// Hands `field` to the sink.
    pub(super) fn emit(&mut self, mut field: Field<'a>) -> Result<(), Refusal> {
        let listed = field
            .layer_findings
            .as_ref()
            .map_or(0, |f| f.detailed.len());
        match &mut self.sink {
            Sink::Through => Ok(()),
            Sink::Kept { out, first, budget } => {
                out.layer_room -= listed.min(out.layer_room);
                out.fields.push(field);
                if out.fields.len() - *first > *budget {
                    out.fields.truncate(*first);
                    self.overflowed = true;
                    self.sink = Sink::Through;
                }
                Ok(())
            }
            Sink::Each(emit) => {
                field.location.name.clone_from(&emit.field.location.name);
                field.location.index = emit.field.location.index;
                field.check_only = emit.field.check_only;
                emit.room -= listed.min(emit.room);
                if (emit.f)(&field).is_continue() {
                    return Ok(());
                }
                self.stopped = true;
                Err(malformed(0, "the walk was stopped"))
            }
        }
    }

    /// The document's text at `span`, or a refusal where `quick-xml`'s positions do not fall
    /// on characters of it (never a panic).
    pub(super) fn piece(&self, span: core::ops::Range<usize>) -> Result<&'a str, Refusal> {
        let doc: &'a str = self.doc;
        doc.get(span.clone())
            .ok_or_else(|| malformed(span.start, "markup where no parser finds it"))
    }

    /// Where `piece` (a slice of the document) starts in it.
    pub(super) fn offset_of(&self, piece: &str) -> usize {
        (piece.as_ptr() as usize).wrapping_sub(self.doc.as_ptr() as usize)
    }

    /// Counts a field against the profile's limit.
    pub(super) fn count(&mut self, at: usize) -> Result<(), Refusal> {
        self.fields += 1;
        let limit = self.profile.limits.max_json_strings;
        if self.fields > limit {
            let message = format!("more than {limit} XML names and texts");
            return Err((at, FindingKind::LimitExceeded, message));
        }
        Ok(())
    }

    /// A name at `span` of the document; `step` below the current element (an attribute, a
    /// processing instruction), or the element itself.
    pub(super) fn name_field(
        &mut self,
        span: core::ops::Range<usize>,
        step: Option<&str>,
    ) -> Result<(), Refusal> {
        self.count(span.start)?;
        let bytes = self.piece(span.clone())?.as_bytes();
        if self.room().is_none() {
            return Ok(());
        }
        let location = Location::part(Part::XmlName).with_pointer(&self.path.pointer(step));
        let at = self.start + span.start;
        self.emit(Field::raw(
            location,
            bytes,
            Container::Body,
            at..at + bytes.len(),
        ))
    }

    /// Text at `span` of the document, its references decoded when `references` says whether
    /// it is an attribute value; CDATA, comments and processing-instruction data (`None`) are
    /// their bytes.
    pub(super) fn text_field(
        &mut self,
        span: core::ops::Range<usize>,
        step: &str,
        references: Option<bool>,
    ) -> Result<(), Refusal> {
        self.count(span.start)?;
        let raw = self.piece(span.clone())?;
        let decoded = match references {
            Some(attribute) => Some(
                text::decode(raw, attribute).map_err(|(i, why)| malformed(span.start + i, why))?,
            ),
            None => None,
        };
        let Some(room) = self.room() else {
            return Ok(());
        };
        let location = Location::part(Part::XmlText).with_pointer(&self.path.pointer(Some(step)));
        let body_span = self.start + span.start..self.start + span.end;
        self.emit(match (decoded, references) {
            (Some(decoded), Some(attribute)) => {
                text_field::decoded(location, raw, decoded, attribute, body_span, room)
            }
            _ => Field::raw(location, raw.as_bytes(), Container::Body, body_span),
        })
    }
}
