//! An XML text field whose references were decoded (a leaf): its bytes borrowed when no
//! reference changed them, its lone-surrogate references reported as layer findings.

use std::borrow::Cow;
use std::ops::Range;

use crate::decide::found::{Found, KindSet, Report};
use crate::field::{Container, Encoding, Field};
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::location::Location;
use crate::readings::xml::text::Decoded;

/// The field of `raw` (an attribute value when `attribute`, else character data) decoded to
/// `decoded`, at `span` of the body, with room for `room` detailed findings.
pub(super) fn decoded<'a>(
    location: Location,
    raw: &'a str,
    decoded: Decoded,
    attribute: bool,
    span: Range<usize>,
    room: usize,
) -> Field<'a> {
    let mut layer_findings = Found::new(room, KindSet::default());
    for &(at, unit) in &decoded.surrogates {
        let kind = FindingKind::EscapedSurrogate;
        layer_findings.report(kind, at, 3, Fix::None, || {
            RawFinding::new(
                kind,
                at,
                &decoded.bytes[at..at + 3],
                Fix::None,
                Some(utf8gate_codec::format_scalar(u32::from(unit))),
                format!("a character reference to the surrogate U+{unit:04X} (decoded as U+FFFD)"),
            )
        });
    }
    let bytes = if decoded.bytes == raw.as_bytes() {
        Cow::Borrowed(raw.as_bytes())
    } else {
        Cow::Owned(decoded.bytes)
    };
    Field {
        location,
        bytes: bytes.into(),
        container: Container::Body,
        span,
        encoding: if attribute {
            Encoding::XmlAttribute
        } else {
            Encoding::XmlText
        },
        at_body_start: false,
        layer_findings: layer_findings.boxed(),
        check_only: false,
        proven_clean: 0,
        document: None,
    }
}
