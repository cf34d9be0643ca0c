//! gRPC's length-prefixed messages (a leaf): a flag byte, a 4-byte big-endian length, the
//! payload; and the two byte readers the shapes of `super::shape` share with them.

use core::ops::Range;

/// One gRPC length-prefixed message of a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GrpcFrame {
    /// Flag bit 0: the payload is compressed (by the `grpc-encoding` the headers name).
    pub(crate) compressed: bool,
    /// Flag bit 7: a gRPC-Web trailers frame (its payload is HTTP/1 header lines).
    pub(crate) trailers: bool,
    /// Where the payload lies in the body.
    pub(crate) payload: Range<usize>,
}

/// The gRPC length-prefixed messages (a flag byte, a 4-byte big-endian length, the payload)
/// covering `body` exactly, in order (an empty body: none); `None` when frames do not cover
/// it or a flag has a bit other than 0 (compressed) or 7 (gRPC-Web trailers). Checked in one
/// pass, then read one at a time: nothing is kept per message.
pub(crate) fn grpc_frames(body: &[u8]) -> Option<GrpcFrames<'_>> {
    let frames = GrpcFrames { body, pos: 0 };
    frames.clone().try_fold((), |(), f| f.map(|_| ()))?;
    Some(frames)
}

/// The messages of a body, one at a time; `None` in place of a message that is not one.
#[derive(Clone)]
pub(crate) struct GrpcFrames<'a> {
    body: &'a [u8],
    pos: usize,
}

impl Iterator for GrpcFrames<'_> {
    type Item = Option<GrpcFrame>;

    fn next(&mut self) -> Option<Option<GrpcFrame>> {
        let body = self.body;
        let &flag = body.get(self.pos)?;
        let mut at = self.pos + 1;
        let end = (flag & !0x81 == 0)
            .then(|| take(body, &mut at, 4).and_then(|len| skip(body, at, len)))
            .flatten();
        // A message that is not one ends the reading.
        self.pos = end.unwrap_or(body.len());
        Some(end.map(|end| GrpcFrame {
            compressed: flag & 0x01 != 0,
            trailers: flag & 0x80 != 0,
            payload: at..end,
        }))
    }
}

/// The big-endian number in the `n` (at most 8) bytes at `*pos`; `*pos` moves past them.
pub(super) fn take(body: &[u8], pos: &mut usize, n: usize) -> Option<u64> {
    let bytes = body.get(*pos..pos.checked_add(n)?)?;
    *pos += n;
    Some(bytes.iter().fold(0, |v, &b| v << 8 | u64::from(b)))
}

/// The offset `len` bytes after `pos`, if the body holds them.
pub(super) fn skip(body: &[u8], pos: usize, len: u64) -> Option<usize> {
    let end = pos.checked_add(usize::try_from(len).ok()?)?;
    (end <= body.len()).then_some(end)
}
