//! What the layers make of a request: its fields, and findings about its structure.

use crate::field::{Container, Encoding, Field, FieldBytes};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::{Location, Part};

/// How many fields a request has before its list of fields is allocated: a GET with a few
/// parameters and a browser's headers fits.
pub(crate) const INLINE_FIELDS: usize = 16;

/// A list of fields, the first [`INLINE_FIELDS`] inline.
pub(crate) type Fields<'a> = smallvec::SmallVec<[Field<'a>; INLINE_FIELDS]>;

/// Fields of a request, plus findings about the request's structure.
#[derive(Debug)]
pub(crate) struct Decomposed<'a> {
    /// The fields, borrowing from the request where they can.
    pub(crate) fields: Fields<'a>,
    /// Structural findings (charset, malformed body, limits), with their locations.
    pub(crate) structural: Vec<(Location, RawFinding)>,
    /// Detailed layer findings (escapes) the fields may still carry: the verdict lists no more
    /// than `max_findings`, so no more are built; the rest are counted (`crate::decide::found`).
    pub(crate) layer_room: usize,
    /// Multipart parts that declare a media type some body reading claims (JSON, a form):
    /// read so as well, check-only, once the multipart reading is done.
    pub(crate) typed_parts: Vec<TypedPart>,
    /// Why the body was not read as text (`crate::textual`), when it was not.
    pub(crate) not_text: Option<String>,
}

/// A multipart part whose declared type a body reading may claim.
#[derive(Debug)]
pub(crate) struct TypedPart {
    /// The content's span in the body.
    pub(crate) span: core::ops::Range<usize>,
    /// The part's `Content-Type` value; empty for a form field of no type.
    pub(crate) content_type: Vec<u8>,
    /// The part's location (name and index); its fields keep them.
    pub(crate) location: Location,
    /// The index in `Decomposed::fields` of the part's content read as text, when it is one.
    pub(crate) raw: Option<usize>,
}

impl Default for Decomposed<'_> {
    fn default() -> Self {
        Decomposed {
            fields: Fields::new(),
            structural: Vec::new(),
            layer_room: crate::profile::Limits::default().max_findings,
            typed_parts: Vec::new(),
            not_text: None,
        }
    }
}

impl<'a> Decomposed<'a> {
    /// A check-only reading of header `header` (a cookie, a URL's path, a decoded parameter),
    /// with the findings of the layer that decoded it.
    pub(crate) fn header_reading(
        &mut self,
        location: Location,
        bytes: FieldBytes<'a>,
        header: usize,
        findings: crate::decide::found::Found,
    ) {
        self.fields.push(Field {
            location,
            bytes,
            container: Container::Header(header),
            span: 0..0,
            encoding: Encoding::Raw,
            at_body_start: false,
            layer_findings: findings.boxed(),
            check_only: true,
            proven_clean: 0,
            document: None,
        });
    }

    /// Nothing yet, with room for `profile`'s number of detailed findings.
    pub(crate) fn new(profile: &crate::profile::Profile) -> Self {
        Decomposed {
            layer_room: profile.limits.max_findings,
            ..Decomposed::default()
        }
    }

    pub(crate) fn structural(
        &mut self,
        part: Part,
        kind: FindingKind,
        offset: usize,
        message: String,
    ) {
        self.structural_at(Location::part(part), kind, offset, message);
    }

    pub(crate) fn structural_named(
        &mut self,
        part: Part,
        name: &str,
        kind: FindingKind,
        offset: usize,
        message: String,
    ) {
        let location = Location::part(part).with_name(name.as_bytes());
        self.structural_at(location, kind, offset, message);
    }

    pub(crate) fn structural_at(
        &mut self,
        location: Location,
        kind: FindingKind,
        offset: usize,
        message: String,
    ) {
        self.structural.push((
            location,
            RawFinding::new(kind, offset, &[], Fix::None, None, message),
        ));
    }

    /// An empty second reading of bytes `self` also reads, sharing its room for detailed
    /// findings.
    pub(crate) fn second<'b>(&self) -> Decomposed<'b> {
        Decomposed {
            layer_room: self.layer_room,
            ..Decomposed::default()
        }
    }

    /// Puts every field and structural finding at `at`'s name and index (a second reading of
    /// one value or part: its own locations say where inside it), and a field of the whole
    /// document at `at`'s part.
    pub(crate) fn relocate(&mut self, at: &Location) {
        let locations = self.fields.iter_mut().map(|f| &mut f.location);
        for location in locations.chain(self.structural.iter_mut().map(|(l, _)| l)) {
            location.name.clone_from(&at.name);
            location.index = at.index;
        }
        // A document read as one text field (not well-formed) is the value or part itself.
        for field in self
            .fields
            .iter_mut()
            .filter(|f| f.location.part == Part::Body)
        {
            field.location.part = at.part;
        }
    }

    /// Takes over the fields and findings of the reading of a part of the body that starts
    /// at `offset`: they are the part's first reading, rewritten where they need it.
    pub(crate) fn absorb_at(&mut self, other: Decomposed<'a>, offset: usize) {
        self.layer_room = self.layer_room.min(other.layer_room);
        self.structural
            .extend(other.structural.into_iter().map(|(l, mut f)| {
                f.offset += offset;
                (l, f)
            }));
        self.fields.extend(other.fields.into_iter().map(|mut f| {
            if f.container == Container::Body {
                f.span = f.span.start + offset..f.span.end + offset;
            }
            f
        }));
    }

    /// Takes over the findings of a second reading, its fields checked but never rewritten.
    /// Its fields are copied when they borrow bytes that `self` may outlive.
    pub(crate) fn absorb_check_only(&mut self, other: Decomposed<'_>) {
        self.layer_room = self.layer_room.min(other.layer_room);
        // Most second readings read nothing (a text body that is no JSON, form or archive).
        if other.fields.is_empty() && other.structural.is_empty() {
            return;
        }
        self.structural.extend(other.structural);
        self.fields.extend(other.fields.into_iter().map(|f| {
            let mut f = f.into_owned();
            f.check_only = true;
            f
        }));
    }
}

/// Pushes a leading UTF-8 signature of `body` as a field of its own (so that it can be stripped
/// alone); returns where the document after it starts (0 or 3).
pub(crate) fn signature_field<'a>(body: &'a [u8], out: &mut Decomposed<'a>) -> usize {
    if !body.starts_with(&utf8gate_codec::UTF8_BOM) {
        return 0;
    }
    let mut bom = Field::raw(
        Location::part(Part::Body),
        &body[..3],
        Container::Body,
        0..3,
    );
    bom.at_body_start = true;
    out.fields.push(bom);
    3
}

/// Pushes `body` from `start` as one text field: a document a reading could not read, which
/// the application may still read as text.
pub(crate) fn text_from<'a>(body: &'a [u8], start: usize, out: &mut Decomposed<'a>) {
    let mut field = Field::raw(
        Location::part(Part::Body),
        &body[start..],
        Container::Body,
        start..body.len(),
    );
    field.at_body_start = start == 0;
    out.fields.push(field);
}

/// Pushes a body read as one field.
pub(crate) fn whole_body<'a>(body: &'a [u8], out: &mut Decomposed<'a>) {
    let mut field = Field::raw(
        Location::part(Part::Body),
        body,
        Container::Body,
        0..body.len(),
    );
    field.at_body_start = true;
    out.fields.push(field);
}
