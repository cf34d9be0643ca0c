//! The gRPC reading: `application/grpc`, `application/grpc+proto`, `application/grpc+json`
//! and the gRPC-Web types (`application/grpc-web`, `+proto`, `+json`) carry length-prefixed
//! messages (gRPC over HTTP/2, "Length-Prefixed-Message": a flag byte, a 4-byte big-endian
//! length, the message). Messages of a `+json` type are read as JSON, each at its index;
//! protobuf messages are binary (`not_text`). A body that is not a sequence of messages is
//! not what its label says and is read as text. At most `max_multipart_parts` messages are
//! read (each a document of its own; past it, `limit_exceeded`), and reading stops at the
//! first message refused: findings and fields never add up per message. A compressed JSON message cannot be read
//! (its `grpc-encoding` is the head's): `unsupported_coding`. A gRPC-Web trailers message
//! (flag 0x80: HTTP/1 header lines) is text, checked whatever the suffix.
//! `application/grpc-web-text` (base64) is text and is not claimed here.

use crate::layers::decomposed::{Decomposed, whole_body};
use crate::readings::reading::BodyReading;
use core::ops::Range;

use crate::field::{Container, Field};
use crate::finding::FindingKind;
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::ContentType;
use crate::textual::grpc_frames;

/// The gRPC reading.
pub(crate) const READING: BodyReading = BodyReading {
    name: "grpc",
    claims: ContentType::is_grpc,
    sniffed: None,
    read,
};

/// A gRPC body: its JSON messages' strings, or why it is not read.
fn read<'a>(
    body: &'a [u8],
    ct: &ContentType,
    profile: &Profile,
    scan_binary: bool,
    out: &mut Decomposed<'a>,
) {
    let Some(frames) = grpc_frames(body) else {
        // Not length-prefixed messages: a label never hides text.
        whole_body(body, out);
        return;
    };
    if !ct.essence.ends_with("+json") {
        if scan_binary {
            whole_body(body, out);
        } else {
            let message = format!(
                "{}: gRPC messages of protobuf, not read as text",
                ct.essence
            );
            out.not_text = Some(message);
        }
        let trailers = frames.flatten().enumerate().filter(|(_, f)| f.trailers);
        for (index, frame) in trailers.take(profile.limits.max_multipart_parts) {
            trailer_lines(body, frame.payload, index, out);
        }
        return;
    }
    let json = ContentType::parse(b"application/json");
    for (index, frame) in frames.flatten().enumerate() {
        let at = Location::part(Part::Body).with_index(index);
        if index == profile.limits.max_multipart_parts {
            // Each message is a document of its own: their count is bounded as parts are.
            let message = format!("more than {index} gRPC messages (max_multipart_parts)");
            out.structural_at(at, FindingKind::LimitExceeded, frame.payload.start, message);
            return;
        }
        if frame.trailers {
            trailer_lines(body, frame.payload, index, out);
            continue;
        }
        if frame.compressed {
            let message = "a compressed gRPC message: its JSON is not read".to_string();
            out.structural_at(
                at,
                FindingKind::UnsupportedCoding,
                frame.payload.start,
                message,
            );
            return;
        }
        let mut second = out.second();
        let payload = &body[frame.payload.clone()];
        (crate::readings::json_body::READING.read)(
            payload,
            &json,
            profile,
            scan_binary,
            &mut second,
        );
        for (_, finding) in &mut second.structural {
            finding.offset += frame.payload.start;
        }
        // A message that is not JSON (or past a limit) refuses the body: the rest is not read.
        let refused = !second.structural.is_empty();
        second.relocate(&at);
        out.absorb_check_only(second);
        if refused {
            return;
        }
    }
}

/// A gRPC-Web trailers message's payload (HTTP/1 header lines, text a backend reads): one
/// text field at its index, checked and never rewritten (its length is in the frame).
fn trailer_lines<'a>(
    body: &'a [u8],
    payload: Range<usize>,
    index: usize,
    out: &mut Decomposed<'a>,
) {
    let at = Location::part(Part::Body).with_index(index);
    let mut field = Field::raw(at, &body[payload.clone()], Container::Body, payload);
    field.check_only = true;
    out.fields.push(field);
}
