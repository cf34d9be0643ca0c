//! Signature-less binary serializations (a leaf): whether a body labelled protobuf, CBOR,
//! MessagePack, BSON, DER, Thrift, Avro or gRPC has that format's shape ([`Shape::fits`]).
//!
//! A label alone would let any text through unread: it is trusted only when the whole body
//! parses as the format (protobuf, CBOR, MessagePack, DER, gRPC frames) or starts with its
//! framing (BSON, Thrift, Avro). Readers are iterative with fixed stacks and nesting bounds,
//! check each length or count against the bytes left first, and are linear in the body.

use super::grpc_frames::{grpc_frames, skip, take};

/// A serialization format whose bodies carry no signature, known by its declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Protocol Buffers wire format: fields to the end, groups balanced.
    Protobuf,
    /// Exactly one well-formed CBOR data item (RFC 8949 §3).
    Cbor,
    /// A CBOR sequence (RFC 8742): zero or more well-formed items.
    CborSeq,
    /// Exactly one well-formed MessagePack object.
    MessagePack,
    /// A BSON document: 5 bytes at least, the first 4 its length (LE), the last a NUL.
    Bson,
    /// One DER (or BER) value covering the body, constructed contents read as nested TLVs.
    Der,
    /// A Thrift message header (binary, strict or not, or compact protocol).
    Thrift,
    /// Framed Avro: a container file (`Obj\x01`), single-object encoding (`C3 01`, an 8-byte
    /// fingerprint), Confluent's (`00`, a 4-byte schema id). A raw datum has none: no fit.
    Avro,
    /// gRPC (or gRPC-Web) length-prefixed messages covering the body ([`grpc_frames`]).
    GrpcFrames,
}

impl Shape {
    /// The shape a declared media type essence (lowercase, no parameters) names, if any:
    /// `avro/binary`, or an `application/` type below, `vnd.apache.avro*`, `grpc[-web]` with
    /// any `+subtype` (not the base64 `grpc-web-text`), or a `+cbor`, `+cbor-seq` or `+der`.
    pub(crate) fn of_type(essence: &str) -> Option<Shape> {
        let Some(sub) = essence.strip_prefix("application/") else {
            return (essence == "avro/binary").then_some(Shape::Avro);
        };
        Some(match sub {
            "protobuf" | "x-protobuf" | "x-protobuffer" | "x-google-protobuf" => Shape::Protobuf,
            "vnd.google.protobuf" => Shape::Protobuf,
            "cbor" => Shape::Cbor,
            "cbor-seq" => Shape::CborSeq,
            "msgpack" | "x-msgpack" | "vnd.msgpack" => Shape::MessagePack,
            "bson" | "x-bson" => Shape::Bson,
            "pkix-cert" | "pkix-crl" | "pkcs10" | "pkcs7-mime" | "pkcs7-signature" => Shape::Der,
            "pkcs8" | "pkcs12" | "x-pkcs12" | "x-x509-ca-cert" | "x-x509-user-cert" => Shape::Der,
            "timestamp-query" | "timestamp-reply" | "ocsp-request" | "ocsp-response" => Shape::Der,
            "x-thrift" | "vnd.apache.thrift.binary" | "vnd.apache.thrift.compact" => Shape::Thrift,
            "avro" | "x-avro" | "avro-binary" => Shape::Avro,
            _ if sub.starts_with("vnd.apache.avro") => Shape::Avro,
            "grpc" | "grpc-web" => Shape::GrpcFrames,
            _ if sub.starts_with("grpc+") || sub.starts_with("grpc-web+") => Shape::GrpcFrames,
            _ if sub.ends_with("+cbor-seq") => Shape::CborSeq,
            _ if sub.ends_with("+cbor") => Shape::Cbor,
            _ if sub.ends_with("+der") => Shape::Der,
            _ => return None,
        })
    }

    /// A short name for messages ("protobuf", "CBOR", ...).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Protobuf => "protobuf",
            Shape::Cbor => "CBOR",
            Shape::CborSeq => "CBOR sequence",
            Shape::MessagePack => "MessagePack",
            Shape::Bson => "BSON",
            Shape::Der => "DER",
            Shape::Thrift => "Thrift",
            Shape::Avro => "Avro",
            Shape::GrpcFrames => "gRPC frames",
        }
    }

    /// Whether the whole `body` has this format's shape (an empty one: all but BSON and DER).
    pub(crate) fn fits(self, body: &[u8]) -> bool {
        let one = |end: Option<usize>| body.is_empty() || end == Some(body.len());
        match self {
            Shape::Protobuf => protobuf(body).is_some(),
            Shape::Cbor => one(cbor(body, false)),
            Shape::CborSeq => one(cbor(body, true)),
            Shape::MessagePack => one(msgpack(body)),
            Shape::Bson => match i32::try_from(body.len()) {
                Ok(len @ 5..) => body.starts_with(&len.to_le_bytes()) && body.last() == Some(&0),
                _ => false,
            },
            Shape::Der => der(body).is_some(),
            Shape::Thrift => body.is_empty() || thrift(body),
            Shape::Avro => {
                body.is_empty()
                    || body.starts_with(b"Obj\x01")
                    || (body.starts_with(&[0xc3, 0x01]) && body.len() >= 10)
                    || (body.first() == Some(&0) && body.len() >= 5)
            }
            Shape::GrpcFrames => grpc_frames(body).is_some(),
        }
    }
}

/// Whether `items` items, each a byte at least, can follow `pos`: a count fails fast.
fn room(body: &[u8], pos: usize, items: u64) -> Option<()> {
    let left = u64::try_from(body.len().saturating_sub(pos)).ok()?;
    (items <= left).then_some(())
}

/// The protobuf varint (at most 10 bytes) at `pos`, and the offset after it.
fn varint(body: &[u8], pos: usize) -> Option<(u64, usize)> {
    let bytes = body.get(pos..)?;
    let len = bytes.iter().take(10).position(|&b| b < 0x80)? + 1;
    let mut value = 0;
    for &b in bytes.iter().take(len).rev() {
        value = value << 7 | u64::from(b & 0x7f);
    }
    Some((value, pos + len))
}

/// How deep protobuf groups may nest.
const GROUP_DEPTH: usize = 100;

/// `Some` when `body` is protobuf fields to its end (numbers 1 to 2^29 - 1, wire types 0 to
/// 5), groups balanced (at most [`GROUP_DEPTH`] deep, closed by their field numbers).
/// Length-delimited payloads (strings, bytes or messages) are not read.
fn protobuf(body: &[u8]) -> Option<()> {
    let mut groups = [0u64; GROUP_DEPTH];
    let (mut depth, mut pos) = (0, 0);
    while pos < body.len() {
        let (tag, at) = varint(body, pos)?;
        let field = tag >> 3;
        (1..1 << 29).contains(&field).then_some(())?;
        pos = match tag & 7 {
            0 => varint(body, at)?.1,
            1 => skip(body, at, 8)?,
            2 => varint(body, at).and_then(|(len, at)| skip(body, at, len))?,
            3 => {
                *groups.get_mut(depth)? = field;
                depth += 1;
                at
            }
            4 => {
                depth = depth.checked_sub(1)?;
                (groups.get(depth) == Some(&field)).then_some(at)?
            }
            5 => skip(body, at, 4)?,
            _ => return None,
        };
    }
    (depth == 0).then_some(())
}

/// How deep CBOR, MessagePack and DER containers (and CBOR tags) may nest.
const NEST_DEPTH: usize = 512;

/// An open CBOR or MessagePack container: what it needs before it is complete.
#[derive(Clone, Copy)]
enum Open {
    /// A definite-length array, map or tag: this many more items (never 0).
    Items(u64),
    /// An indefinite-length CBOR array: items until a break.
    Array,
    /// An indefinite-length CBOR map: items until a break, not while a key (`true`) waits.
    Map(bool),
    /// An indefinite-length CBOR string of this major type: its chunks until a break.
    Chunks(u8),
}

/// Opens `opened` over the `depth` open containers of `stack` (`None` beyond its bound), or
/// counts a complete item in the innermost, closing those it completes: `true` if none is left.
fn step(stack: &mut [Open; NEST_DEPTH], depth: &mut usize, opened: Option<Open>) -> Option<bool> {
    if let Some(open) = opened {
        *stack.get_mut(*depth)? = open;
        *depth += 1;
        return Some(false);
    }
    while let Some(d) = depth.checked_sub(1) {
        match stack.get_mut(d) {
            Some(Open::Items(n)) if *n > 1 => *n -= 1,
            Some(Open::Map(key)) => *key = !*key,
            Some(Open::Array | Open::Chunks(_)) => {}
            Some(Open::Items(_)) | None => {
                *depth = d;
                continue;
            }
        }
        return Some(false);
    }
    Some(true)
}

/// The end of the well-formed CBOR data item at the start of `body` (RFC 8949 §3, appendix
/// C) or, for a sequence (`seq`, RFC 8742), of the items up to the body's end.
fn cbor(body: &[u8], seq: bool) -> Option<usize> {
    let mut stack = [Open::Array; NEST_DEPTH];
    let (mut depth, mut pos) = (0usize, 0);
    loop {
        let ib = *body.get(pos)?;
        pos += 1;
        let (major, ai) = (ib >> 5, ib & 0x1f);
        let top = depth.checked_sub(1).and_then(|d| stack.get(d)).copied();
        // The bytes after the head, and the container it opens.
        let (payload, opened) = if ib == 0xff {
            let closes = matches!(top?, Open::Array | Open::Map(false) | Open::Chunks(_));
            depth = depth.checked_sub(1).filter(|_| closes)?;
            (0, None)
        } else {
            if let Some(Open::Chunks(m)) = top {
                (major == m && ai != 31).then_some(())?;
            }
            let arg = match ai {
                0..=23 => Some(u64::from(ai)),
                24..=27 => Some(take(body, &mut pos, 1 << (ai - 24))?),
                31 => None,
                _ => return None,
            };
            match (major, arg) {
                (0 | 1, Some(_)) => (0, None),
                (2 | 3, Some(len)) => (len, None),
                (2 | 3, None) => (0, Some(Open::Chunks(major))),
                (4, None) => (0, Some(Open::Array)),
                (5, None) => (0, Some(Open::Map(false))),
                (4 | 5, Some(n)) => {
                    let items = n.checked_mul(u64::from(major - 3))?;
                    room(body, pos, items)?;
                    (0, (items > 0).then_some(Open::Items(items)))
                }
                (6, Some(_)) => (0, Some(Open::Items(1))),
                (7, Some(v)) if ai != 24 || v >= 32 => (0, None),
                _ => return None,
            }
        };
        pos = skip(body, pos, payload)?;
        if step(&mut stack, &mut depth, opened)? && (!seq || pos == body.len()) {
            return Some(pos);
        }
    }
}

/// The end of the one well-formed MessagePack object at the start of `body`.
fn msgpack(body: &[u8]) -> Option<usize> {
    let mut stack = [Open::Array; NEST_DEPTH];
    let (mut depth, mut pos) = (0usize, 0);
    loop {
        let b = *body.get(pos)?;
        pos += 1;
        // The bytes after the head, and the items of an array or map.
        let (payload, count): (u64, u64) = match b {
            0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => (0, 0),
            0x80..=0x8f => (0, 2 * u64::from(b & 0x0f)),
            0x90..=0x9f => (0, u64::from(b & 0x0f)),
            0xa0..=0xbf => (u64::from(b & 0x1f), 0),
            0xc1 => return None,
            0xc4..=0xc6 => (take(body, &mut pos, 1 << (b - 0xc4))?, 0),
            0xc7..=0xc9 => (take(body, &mut pos, 1 << (b - 0xc7))? + 1, 0),
            0xca | 0xcb => (4 << (b - 0xca), 0),
            0xcc..=0xd3 => (1 << ((b - 0xcc) & 3), 0),
            0xd4..=0xd8 => (1 + (1 << (b - 0xd4)), 0),
            0xd9..=0xdb => (take(body, &mut pos, 1 << (b - 0xd9))?, 0),
            0xdc | 0xdd => (0, take(body, &mut pos, 2 << (b - 0xdc))?),
            0xde | 0xdf => (0, 2 * take(body, &mut pos, 2 << (b - 0xde))?),
        };
        pos = skip(body, pos, payload)?;
        room(body, pos, count)?;
        let opened = (count > 0).then_some(Open::Items(count));
        if step(&mut stack, &mut depth, opened)? {
            return Some(pos);
        }
    }
}

/// The DER/BER identifier's first byte and the length (`None`: indefinite) at `*pos`,
/// which moves past them: a high tag number in 1 to 4 bytes, the first not 0x80; a long
/// form length in 1 to 4 bytes.
fn der_head(body: &[u8], pos: &mut usize) -> Option<(u8, Option<usize>)> {
    let id = *body.get(*pos)?;
    *pos += 1;
    if id & 0x1f == 0x1f {
        let rest = body.get(*pos..)?;
        (rest.first() != Some(&0x80)).then_some(())?;
        *pos += rest.iter().take(4).position(|&b| b < 0x80)? + 1;
    }
    let lb = *body.get(*pos)?;
    *pos += 1;
    let len = match lb {
        0x00..=0x7f => Some(usize::from(lb)),
        0x80 => None,
        0x81..=0x84 => Some(usize::try_from(take(body, pos, usize::from(lb & 0x7f))?).ok()?),
        _ => return None,
    };
    Some((id, len))
}

/// `Some` when `body` is one DER/BER value: a constructed SEQUENCE, SET or context tag whose
/// contents, and those of each constructed value inside (at most [`NEST_DEPTH`] deep), are
/// whole TLVs; primitive contents are not read. BER's indefinite length (CMS and PKCS#12
/// streamers write it) is taken for constructed values, closed by `00 00`.
fn der(body: &[u8]) -> Option<()> {
    // Each open constructed value: where it ends (indefinite: where its parent does).
    let mut stack = [(0usize, false); NEST_DEPTH];
    let (mut depth, mut pos) = (0usize, 0);
    loop {
        let top = depth.checked_sub(1).and_then(|d| stack.get(d)).copied();
        // Whether the innermost value ends here, and the length of its end-of-contents.
        let (closed, eoc) = match top {
            None if pos > 0 => return (pos == body.len()).then_some(()),
            None => (false, 0),
            Some((end, false)) => (pos == end, 0),
            Some((end, true)) => (body.get(pos..end)?.starts_with(&[0, 0]), 2),
        };
        if closed {
            pos += eoc;
            depth -= 1;
            continue;
        }
        let limit = top.map_or(body.len(), |(end, _)| end);
        let (id, len) = der_head(body, &mut pos)?;
        let root = matches!(id, 0x30 | 0x31) || id & 0xe0 == 0xa0;
        (id != 0 && (depth > 0 || root)).then_some(())?;
        let constructed = id & 0x20 != 0;
        let end = match len {
            Some(n) => pos.checked_add(n).filter(|&end| end <= limit)?,
            None => constructed.then_some(limit)?,
        };
        if constructed {
            *stack.get_mut(depth)? = (end, len.is_none());
            depth += 1;
        } else {
            pos = end;
        }
    }
}

/// Whether `body` starts as a Thrift message: strict binary (`80 01`, a type 1 to 4 at
/// offset 3, a name that fits), compact (`82`, version 1 and a type 1 to 4), or non-strict
/// binary (a name of 1 byte or more that fits, then a type 1 to 4). The struct is not read.
fn thrift(body: &[u8]) -> bool {
    let kind = |t: Option<&u8>| t.is_some_and(|t| (1..=4).contains(t));
    // Where the name whose 4-byte length is at `at` ends, if it fits.
    let name = |mut at: usize| {
        let n = take(body, &mut at, 4).filter(|&n| n < 1 << 31)?;
        skip(body, at, n)
    };
    match body {
        [0x80, 0x01, _, t, ..] => kind(Some(t)) && name(4).is_some(),
        [0x82, vt, ..] => vt & 0x1f == 1 && kind(Some(&(vt >> 5))),
        _ => name(0).is_some_and(|end| end > 4 && kind(body.get(end))),
    }
}

#[cfg(test)]
#[path = "shape_tests.rs"]
mod tests;
