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
//! `xml_doctype`. The declared encoding is the body's charset (`readings::body`).

mod doctype;
mod path;
mod reader;
#[cfg(test)]
mod tests;
mod text;
mod text_field;

use core::ops::ControlFlow;

use quick_xml::events::Event;

use crate::field::{Document, Field};
use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, text_from, whole_body};
use crate::location::Part;
use crate::profile::{Profile, XmlDoctypeReading};
use crate::readings::reading::BodyReading;
use crate::request::ContentType;
use reader::{Emit, Reader, Refusal, Sink, malformed};
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
    // Its fields are kept while they cost less than its bytes; past that, it is read through
    // and one field stands for its names and texts, read again as they are checked
    // ([`each_field`]).
    let first = out.fields.len();
    let budget = crate::field::fields_kept(doc.len());
    let sink = Sink::Kept { out, first, budget };
    let (read, overflowed) = {
        let mut reader = Reader::new(doc, start, profile, sink);
        (reader.run(), reader.overflowed)
    };
    match read {
        Ok(()) if overflowed => out.fields.push(Field::standing_for(
            Part::XmlText,
            doc.as_bytes(),
            start..body.len(),
            Document::Xml,
        )),
        Ok(()) => {}
        Err((offset, kind, message)) => {
            out.structural(Part::Body, kind, start + offset, message);
            // The application may still read it as text: its bytes are checked as one field
            // (and the fields read so far are dropped).
            out.fields.truncate(first);
            text_from(body, start, out);
        }
    }
}

/// The fields of the XML document `field` stands for (`crate::readings::read`), each handed to `f` as it is
/// read: at the document's name, index and `check_only`. Detailed findings of surrogate
/// references are built while `room` allows. `f` breaking ends the reading.
pub(crate) fn each_field(
    field: &Field,
    profile: &Profile,
    room: usize,
    f: &mut dyn FnMut(&Field) -> ControlFlow<()>,
) -> ControlFlow<()> {
    // Read through as UTF-8 once already: never otherwise.
    let Ok(doc) = core::str::from_utf8(&field.bytes) else {
        return ControlFlow::Continue(());
    };
    let emit = Sink::Each(Emit { field, room, f });
    let mut reader = Reader::new(doc, field.span.start, profile, emit);
    let _ = reader.run();
    match reader.stopped {
        true => ControlFlow::Break(()),
        false => ControlFlow::Continue(()),
    }
}

impl<'a, 'o, 'p> Reader<'a, 'o, 'p> {
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
        // Refused before any field is made (a syntax error, a name given twice), then read
        // again: the attributes are never held together (`text::first_refusal`).
        if let Some((i, why)) = text::first_refusal(list) {
            return Err(malformed(list_at + i, why));
        }
        for attribute in text::Attributes::new(list).flatten() {
            let name = &list[attribute.name.clone()];
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
        let read = doctype::doctype(inner).map_err(|why| malformed(at, why))?;
        let risk = match self.profile.readings.xml_doctype {
            XmlDoctypeReading::Refuse => Some("is refused by this profile"),
            XmlDoctypeReading::WithoutEntities => doctype::doctype_risk(inner, &read),
        };
        match risk {
            Some(why) => Err((at, FindingKind::XmlDoctype, format!("a DOCTYPE that {why}"))),
            None => Ok(()),
        }
    }
}

fn to_usize(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX)
}
