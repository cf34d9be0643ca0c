//! The XML reading: `application/xml`, `text/xml` and `+xml` bodies (SOAP, Atom, SVG), and
//! bodies of no type or `text/plain` that start with an XML declaration (a second reading).
//!
//! A document is read as an XML 1.0 parser reads it, or refused: `quick-xml` finds the
//! markup, [`text`] reads names, references and attribute lists strictly. Element and
//! attribute names and processing-instruction targets are `xml_name` fields; text, CDATA,
//! attribute values, comments and processing-instruction data are `xml_text` fields, their
//! references decoded (`&#0;` is a NUL to the checks), at an XPath-like path. A document that
//! is not well-formed (a second root, text after the root, an undeclared entity, a bare `&`)
//! is `malformed_body`; a DOCTYPE that declares entities or names a DTD to load is
//! `xml_doctype`. The declared encoding is the body's charset (`layers::body`).

mod path;
#[cfg(test)]
mod tests;
mod text;
mod text_field;

use quick_xml::events::Event;

use super::super::decomposed::{Decomposed, text_from, whole_body};
use super::super::reading::BodyReading;
use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::location::{Location, Part};
use crate::profile::{Profile, XmlDoctypeReading};
use crate::request::ContentType;
use path::Path;
pub(crate) use text::escape as xml_escape;

/// The XML reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "xml",
    claims: ContentType::is_xml,
    sniffed: Some(sniffed),
    read,
};

/// A body of no type that starts with an XML declaration (as XML parsers sniff it) and is a
/// well-formed document: its fields.
fn sniffed<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, out: &mut Decomposed<'a>) {
    let doc = body.strip_prefix(&utf8gate_codec::UTF8_BOM).unwrap_or(body);
    if !doc.starts_with(b"<?xml") {
        return;
    }
    let mut second = out.second();
    read(body, &ContentType::parse(b""), profile, false, &mut second);
    if second.structural.is_empty() {
        out.fields.append(&mut second.fields);
        out.layer_room = second.layer_room;
    }
}

/// An XML body: its fields, or `malformed_body` where it stops being XML 1.0. A body that is
/// not UTF-8 is one text field: the codec's findings say where. A leading signature is kept.
fn read<'a>(body: &'a [u8], _: &ContentType, profile: &Profile, _: bool, out: &mut Decomposed<'a>) {
    // A UTF-8 signature is part of an XML document (§4.3.3, Appendix F): every parser reads it,
    // so it is neither a finding nor stripped.
    let start = if body.starts_with(&utf8gate_codec::UTF8_BOM) {
        3
    } else {
        0
    };
    let Ok(doc) = core::str::from_utf8(&body[start..]) else {
        whole_body(body, out);
        return;
    };
    let first = out.fields.len();
    let mut reader = Reader {
        doc,
        start,
        profile,
        path: Path::default(),
        fields: 0,
        roots: 0,
        out,
    };
    if let Err((offset, kind, message)) = reader.run() {
        out.structural(Part::Body, kind, start + offset, message);
        // The application may still read it as text: its bytes are checked as one field (and
        // the fields read so far are dropped, so memory stays within the limit's).
        out.fields.truncate(first);
        text_from(body, start, out);
    }
}

/// Why a document is refused: offset in the document, kind, message.
type Refusal = (usize, FindingKind, String);

/// One document's walk.
struct Reader<'a, 'o, 'p> {
    /// The document: the body after its signature.
    doc: &'a str,
    /// Where `doc` starts in the body.
    start: usize,
    profile: &'p Profile,
    path: Path,
    fields: usize,
    roots: usize,
    out: &'o mut Decomposed<'a>,
}

fn malformed(offset: usize, message: impl Into<String>) -> Refusal {
    (
        offset,
        FindingKind::MalformedBody,
        format!("not XML: {}", message.into()),
    )
}

impl<'a> Reader<'a, '_, '_> {
    fn run(&mut self) -> Result<(), Refusal> {
        // `quick-xml` skips a signature of its own: a second one is text before the root.
        if self.doc.starts_with('\u{FEFF}') {
            return Err(malformed(
                0,
                "a second signature, text before the root element",
            ));
        }
        let mut xml = quick_xml::Reader::from_str(self.doc);
        let config = xml.config_mut();
        config.check_comments = true;
        config.check_end_names = true;
        config.allow_unmatched_ends = false;
        config.allow_dangling_amp = false;
        let mut text: Option<usize> = None;
        loop {
            let at = to_usize(xml.buffer_position());
            let event = xml
                .read_event()
                .map_err(|e| malformed(to_usize(xml.error_position()), e.to_string()))?;
            if matches!(event, Event::Text(_) | Event::GeneralRef(_)) {
                text.get_or_insert(at);
                continue;
            }
            if let Some(from) = text.take() {
                self.text_run(from, at)?;
            }
            match event {
                Event::Start(tag) => self.start_tag(&tag, at)?,
                Event::Empty(tag) => {
                    self.start_tag(&tag, at)?;
                    self.path.close();
                }
                Event::End(_) => self.path.close(),
                Event::CData(cdata) => {
                    let span = self.offset_of(&cdata)..self.offset_of(&cdata) + cdata.len();
                    self.inside_root(at, "CDATA")?;
                    self.text_field(span, "text()", None)?;
                }
                Event::Comment(comment) => {
                    let from = self.offset_of(&comment);
                    self.text_field(from..from + comment.len(), "comment()", None)?;
                }
                Event::PI(pi) => self.processing_instruction(&pi, at)?,
                Event::Decl(decl) => self.declaration(&decl, at)?,
                Event::DocType(doctype) => self.doctype(&doctype, at)?,
                Event::Eof => break,
                Event::Text(_) | Event::GeneralRef(_) => unreachable!("read above"),
            }
        }
        if self.path.depth() > 0 {
            return Err(malformed(
                self.doc.len(),
                "the document ends inside an element",
            ));
        }
        if self.roots == 0 {
            return Err(malformed(self.doc.len(), "no root element"));
        }
        Ok(())
    }

    /// The document's text at `span`, or a refusal where `quick-xml`'s positions do not fall
    /// on characters of it (never a panic).
    fn piece(&self, span: core::ops::Range<usize>) -> Result<&'a str, Refusal> {
        let doc: &'a str = self.doc;
        doc.get(span.clone())
            .ok_or_else(|| malformed(span.start, "markup where no parser finds it"))
    }

    /// Where `piece` (a slice of the document) starts in it.
    fn offset_of(&self, piece: &str) -> usize {
        (piece.as_ptr() as usize).wrapping_sub(self.doc.as_ptr() as usize)
    }

    /// Content before the first or after the last element (Misc, §2.8) must be white space,
    /// comments or processing instructions.
    fn inside_root(&self, at: usize, what: &str) -> Result<(), Refusal> {
        if self.path.depth() == 0 {
            return Err(malformed(at, format!("{what} outside the root element")));
        }
        Ok(())
    }

    /// Character data and references from `from` to `to`: one text field.
    fn text_run(&mut self, from: usize, to: usize) -> Result<(), Refusal> {
        let raw = self.piece(from..to)?;
        if self.path.depth() == 0 {
            if raw.bytes().all(text::is_space) {
                return Ok(());
            }
            return Err(malformed(from, "text outside the root element"));
        }
        self.text_field(from..to, "text()", Some(false))
    }

    fn start_tag(&mut self, tag: &quick_xml::events::BytesStart, at: usize) -> Result<(), Refusal> {
        if self.path.depth() == 0 {
            self.roots += 1;
            if self.roots > 1 {
                return Err(malformed(at, "a second root element"));
            }
        }
        if self.path.depth() >= self.profile.limits.max_json_depth {
            let limit = self.profile.limits.max_json_depth;
            let message = format!("XML nested deeper than {limit}");
            return Err((at, FindingKind::LimitExceeded, message));
        }
        let qname = tag.name();
        let name: &str = qname.as_ref();
        let name_at = at + 1;
        if !text::is_name(name) {
            return Err(malformed(
                name_at,
                "an element name that is not an XML name",
            ));
        }
        self.path.open(name);
        self.name_field(name_at..name_at + name.len(), None)?;
        let list = tag.attributes_raw();
        let list_at = self.offset_of(list);
        let attributes = text::attributes(list).map_err(|(i, why)| malformed(list_at + i, why))?;
        let mut seen = std::collections::HashSet::with_capacity(attributes.len());
        for attribute in attributes {
            let name = &list[attribute.name.clone()];
            if !seen.insert(name) {
                return Err(malformed(
                    list_at + attribute.name.start,
                    "an attribute given twice",
                ));
            }
            let step = format!("@{name}");
            let name_span = list_at + attribute.name.start..list_at + attribute.name.end;
            self.name_field(name_span, Some(&step))?;
            let value = list_at + attribute.value.start..list_at + attribute.value.end;
            self.text_field(value, &step, Some(true))?;
        }
        Ok(())
    }

    fn processing_instruction(
        &mut self,
        pi: &quick_xml::events::BytesPI,
        at: usize,
    ) -> Result<(), Refusal> {
        let target = pi.target();
        if !text::is_name(target) || target.eq_ignore_ascii_case("xml") {
            return Err(malformed(
                at + 2,
                "a processing instruction target that is not a name, or a declaration not at the start",
            ));
        }
        let step = format!("processing-instruction({target})");
        let from = self.offset_of(target);
        self.name_field(from..from + target.len(), Some(&step))?;
        let content = pi.content();
        let from = self.offset_of(content);
        self.text_field(from..from + content.len(), &step, None)
    }

    /// The XML declaration: only first, only version 1.0 (1.1 allows the C0 controls 1.0
    /// forbids). Its encoding is the body's charset, judged with the media type's.
    fn declaration(
        &mut self,
        decl: &quick_xml::events::BytesDecl,
        at: usize,
    ) -> Result<(), Refusal> {
        if at != 0 {
            return Err(malformed(at, "an XML declaration not at the start"));
        }
        let inside = decl.strip_prefix("xml").unwrap_or(decl);
        let checked = text::declaration(inside);
        checked.map_err(|why| malformed(at, format!("the XML declaration: {why}")))
    }

    fn doctype(
        &mut self,
        doctype: &quick_xml::events::BytesText,
        at: usize,
    ) -> Result<(), Refusal> {
        if self.roots > 0 {
            return Err(malformed(at, "a DOCTYPE after the root element"));
        }
        if !self
            .doc
            .get(at..)
            .unwrap_or_default()
            .starts_with("<!DOCTYPE")
        {
            return Err(malformed(at, "a DOCTYPE not spelled in capitals"));
        }
        // What follows `<!DOCTYPE`, up to the `>` that `quick-xml` found (it skips those in
        // literals and the internal subset).
        let end = self.offset_of(doctype) + doctype.len();
        let inner = self.doc.get(at + 9..end).unwrap_or_default();
        let read = text::doctype(inner).map_err(|why| malformed(at, why))?;
        let risk = match self.profile.readings.xml_doctype {
            XmlDoctypeReading::Refuse => Some("is refused by this profile"),
            XmlDoctypeReading::WithoutEntities => text::doctype_risk(inner, &read),
        };
        match risk {
            Some(why) => Err((at, FindingKind::XmlDoctype, format!("a DOCTYPE that {why}"))),
            None => Ok(()),
        }
    }

    /// Counts a field against the profile's limit.
    fn count(&mut self, at: usize) -> Result<(), Refusal> {
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
    fn name_field(
        &mut self,
        span: core::ops::Range<usize>,
        step: Option<&str>,
    ) -> Result<(), Refusal> {
        self.count(span.start)?;
        let location = Location::part(Part::XmlName).with_pointer(&self.path.pointer(step));
        let at = self.start + span.start;
        let bytes = self.piece(span.clone())?.as_bytes();
        self.out.fields.push(Field::raw(
            location,
            bytes,
            Container::Body,
            at..at + bytes.len(),
        ));
        Ok(())
    }

    /// Text at `span` of the document, its references decoded when `references` says whether
    /// it is an attribute value; CDATA, comments and processing-instruction data (`None`) are
    /// their bytes.
    fn text_field(
        &mut self,
        span: core::ops::Range<usize>,
        step: &str,
        references: Option<bool>,
    ) -> Result<(), Refusal> {
        self.count(span.start)?;
        let location = Location::part(Part::XmlText).with_pointer(&self.path.pointer(Some(step)));
        let body_span = self.start + span.start..self.start + span.end;
        let raw = self.piece(span.clone())?;
        let Some(attribute) = references else {
            let field = Field::raw(location, raw.as_bytes(), Container::Body, body_span);
            self.out.fields.push(field);
            return Ok(());
        };
        let decoded =
            text::decode(raw, attribute).map_err(|(i, why)| malformed(span.start + i, why))?;
        let (field, listed) = text_field::decoded(
            location,
            raw,
            decoded,
            attribute,
            body_span,
            self.out.layer_room,
        );
        self.out.layer_room -= listed;
        self.out.fields.push(field);
        Ok(())
    }
}

fn to_usize(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX)
}
