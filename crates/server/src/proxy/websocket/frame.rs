//! RFC 6455 §5 frames: read from a buffer with every rule of the base protocol checked, and
//! written. A leaf: it knows bytes, not sockets.
//!
//! Reading never trusts a length before checking it against the largest frame, so a peer
//! cannot make the reader reserve more than `max_frame` bytes (plus a 14-byte head). No
//! extension is ever negotiated (the proxy removes `Sec-WebSocket-Extensions` from the offer),
//! so a reserved bit is always a protocol error.

use bytes::{Buf, BytesMut};

/// Continuation frame.
pub(super) const CONTINUATION: u8 = 0x0;
/// Text frame.
pub(super) const TEXT: u8 = 0x1;
/// Binary frame.
pub(super) const BINARY: u8 = 0x2;
/// Close frame.
pub(super) const CLOSE: u8 = 0x8;
/// Ping frame.
pub(super) const PING: u8 = 0x9;
/// Pong frame.
pub(super) const PONG: u8 = 0xA;

/// Close codes (RFC 6455 §7.4.1) utf8gate sends.
pub(super) mod code {
    /// Going away (idle timeout).
    pub(crate) const GOING_AWAY: u16 = 1001;
    /// Protocol error: a frame breaks a rule of RFC 6455.
    pub(crate) const PROTOCOL: u16 = 1002;
    /// A text message (or close reason) that is not UTF-8.
    pub(crate) const INVALID_DATA: u16 = 1007;
    /// A message the policy refuses.
    pub(crate) const POLICY: u16 = 1008;
    /// A frame or message over the configured limits.
    pub(crate) const TOO_BIG: u16 = 1009;
    /// utf8gate could not check a message.
    pub(crate) const INTERNAL: u16 = 1011;
}

/// The longest payload of a control frame (§5.5).
const MAX_CONTROL: usize = 125;

/// Who sent a frame: client frames must be masked, server frames must not be (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// The WebSocket client (the proxy's downstream).
    Client,
    /// The upstream application.
    Server,
}

/// Why a connection must fail: the close code and a short reason (sent in the Close frame, so
/// ASCII and at most 123 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fail {
    /// The close code.
    pub code: u16,
    /// The reason.
    pub why: &'static str,
}

impl Fail {
    /// A protocol error (1002).
    pub(super) const fn protocol(why: &'static str) -> Fail {
        Fail {
            code: code::PROTOCOL,
            why,
        }
    }
}

/// One frame, its payload unmasked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Frame {
    /// The FIN bit: the last frame of its message.
    pub fin: bool,
    /// The opcode.
    pub opcode: u8,
    /// The masking key it came with (client frames).
    pub mask: Option<[u8; 4]>,
    /// The payload, unmasked.
    pub payload: Vec<u8>,
}

impl Frame {
    /// Whether it is a control frame (Close, Ping, Pong).
    pub(super) fn is_control(&self) -> bool {
        self.opcode >= CLOSE
    }
}

/// Reads one frame from the front of `buf`: `Ok(None)` while it holds less than a whole frame
/// (then `buf` has room reserved for the rest of it), `Err` for a frame that breaks a rule.
pub(super) fn parse(
    buf: &mut BytesMut,
    from: Side,
    max_frame: usize,
) -> Result<Option<Frame>, Fail> {
    let [b0, b1, ..] = buf[..] else {
        return Ok(None);
    };
    let fin = b0 & 0x80 != 0;
    if b0 & 0x70 != 0 {
        return Err(Fail::protocol("reserved bit set, no extension negotiated"));
    }
    let opcode = b0 & 0x0F;
    if !matches!(opcode, CONTINUATION | TEXT | BINARY | CLOSE | PING | PONG) {
        return Err(Fail::protocol("reserved opcode"));
    }
    let masked = b1 & 0x80 != 0;
    match (from, masked) {
        (Side::Client, false) => return Err(Fail::protocol("unmasked client frame")),
        (Side::Server, true) => return Err(Fail::protocol("masked server frame")),
        _ => {}
    }
    let (len, mut at) = match b1 & 0x7F {
        126 if buf.len() < 4 => return Ok(None),
        126 => (u64::from(u16::from_be_bytes([buf[2], buf[3]])), 4),
        127 if buf.len() < 10 => return Ok(None),
        127 => {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(&buf[2..10]);
            (u64::from_be_bytes(eight), 10)
        }
        n => (u64::from(n), 2),
    };
    if opcode >= CLOSE && (!fin || len > MAX_CONTROL as u64) {
        return Err(Fail::protocol("control frame fragmented or over 125 bytes"));
    }
    if len > max_frame as u64 {
        return Err(Fail {
            code: code::TOO_BIG,
            why: "frame over the size limit",
        });
    }
    let len = len as usize;
    let mask_at = at;
    if masked {
        at += 4;
    }
    let total = at + len;
    if buf.len() < total {
        buf.reserve(total - buf.len());
        return Ok(None);
    }
    let mask = masked.then(|| [0, 1, 2, 3].map(|i| buf[mask_at + i]));
    buf.advance(at);
    let mut payload = buf.split_to(len).to_vec();
    if let Some(key) = mask {
        apply_mask(&mut payload, key);
    }
    Ok(Some(Frame {
        fin,
        opcode,
        mask,
        payload,
    }))
}

/// Masks (or unmasks) `data` with `key` (§5.3).
pub(super) fn apply_mask(data: &mut [u8], key: [u8; 4]) {
    for (i, byte) in data.iter_mut().enumerate() {
        *byte ^= key[i & 3];
    }
}

/// Appends a frame with `payload`, masked with `mask` when given (frames to the upstream).
pub(super) fn write(
    out: &mut Vec<u8>,
    fin: bool,
    opcode: u8,
    payload: &[u8],
    mask: Option<[u8; 4]>,
) {
    out.push(if fin { 0x80 } else { 0 } | opcode);
    let mask_bit = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n @ 0..=125 => out.push(mask_bit | n as u8),
        n @ 126..=0xFFFF => {
            out.push(mask_bit | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(mask_bit | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let start = out.len();
    if let Some(key) = mask {
        out.extend_from_slice(&key);
    }
    let start = start + if mask.is_some() { 4 } else { 0 };
    out.extend_from_slice(payload);
    if let Some(key) = mask {
        apply_mask(&mut out[start..], key);
    }
}

/// Whether a Close frame's payload is well formed (§5.5.1, §7.4): empty, or a code a peer may
/// send followed by a UTF-8 reason. `Err` says which close code the violation takes.
pub(super) fn check_close(payload: &[u8]) -> Result<(), Fail> {
    match payload {
        [] => Ok(()),
        [_] => Err(Fail::protocol("close frame of one byte")),
        [a, b, reason @ ..] => {
            let sent = u16::from_be_bytes([*a, *b]);
            let allowed = matches!(sent, 1000..=1003 | 1007..=1014 | 3000..=4999);
            if !allowed {
                return Err(Fail::protocol("close code that may not be sent"));
            }
            match utf8gate_codec::is_valid(reason) {
                true => Ok(()),
                false => Err(Fail {
                    code: code::INVALID_DATA,
                    why: "close reason is not UTF-8",
                }),
            }
        }
    }
}

/// The payload of a Close frame with `code` and `reason`.
pub(super) fn close_payload(code: u16, reason: &str) -> Vec<u8> {
    let mut payload = code.to_be_bytes().to_vec();
    payload.extend_from_slice(&reason.as_bytes()[..reason.len().min(MAX_CONTROL - 2)]);
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], from: Side) -> Result<Option<Frame>, Fail> {
        parse(&mut BytesMut::from(bytes), from, 1 << 20)
    }

    #[test]
    fn written_frames_read_back_at_every_length_class() {
        for len in [0, 1, 125, 126, 65535, 65536] {
            let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut out = Vec::new();
            write(&mut out, true, BINARY, &payload, Some([1, 2, 3, 4]));
            let mut buf = BytesMut::from(&out[..]);
            let frame = parse(&mut buf, Side::Client, 1 << 20).unwrap().unwrap();
            assert_eq!(frame.payload, payload, "{len}");
            assert!(buf.is_empty());
            let mut out = Vec::new();
            write(&mut out, false, TEXT, &payload, None);
            let frame = read(&out, Side::Server).unwrap().unwrap();
            assert_eq!(
                (frame.fin, frame.opcode, frame.payload),
                (false, TEXT, payload)
            );
        }
    }

    #[test]
    fn every_prefix_of_a_frame_asks_for_more() {
        let mut out = Vec::new();
        write(&mut out, true, TEXT, &[b'a'; 300], Some([9, 8, 7, 6]));
        for cut in 0..out.len() {
            assert_eq!(read(&out[..cut], Side::Client), Ok(None), "{cut}");
        }
    }

    #[test]
    fn the_rules_of_the_base_protocol() {
        let code = |bytes: &[u8], from| read(bytes, from).unwrap_err().code;
        assert_eq!(
            code(&[0x81, 0x00], Side::Client),
            code::PROTOCOL,
            "unmasked"
        );
        assert_eq!(
            code(&[0x81, 0x80, 0, 0, 0, 0], Side::Server),
            code::PROTOCOL
        );
        assert_eq!(code(&[0xC1, 0x00], Side::Server), code::PROTOCOL, "RSV1");
        assert_eq!(
            code(&[0x83, 0x00], Side::Server),
            code::PROTOCOL,
            "opcode 3"
        );
        assert_eq!(
            code(&[0x09, 0x00], Side::Server),
            code::PROTOCOL,
            "fragmented ping"
        );
        assert_eq!(code(&[0x89, 126, 0, 126], Side::Server), code::PROTOCOL);
        let huge = [0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(code(&huge, Side::Server), code::TOO_BIG);
        let over = parse(
            &mut BytesMut::from(&[0x82, 126, 0, 11][..]),
            Side::Server,
            10,
        );
        assert_eq!(over.unwrap_err().code, code::TOO_BIG);
    }

    /// Every frame of `bytes` fed in pieces cut at `cuts`, then the failure if one came.
    fn read_all(bytes: &[u8], cuts: &[usize], from: Side) -> (Vec<Frame>, Option<Fail>) {
        let (mut buf, mut frames, mut at) = (BytesMut::new(), Vec::new(), 0);
        let mut ends: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        ends.push(bytes.len());
        ends.sort_unstable();
        for end in ends {
            buf.extend_from_slice(&bytes[at..end.max(at)]);
            at = end.max(at);
            loop {
                match parse(&mut buf, from, 300) {
                    Ok(Some(frame)) => frames.push(frame),
                    Ok(None) => break,
                    Err(fail) => return (frames, Some(fail)),
                }
            }
            assert!(buf.capacity() <= 64 * 1024, "bounded by the frame limit");
        }
        (frames, None)
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_cut_anywhere_read_as_when_whole(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
            cuts in proptest::collection::vec(0usize..700, 0..8),
            client in proptest::prelude::any::<bool>(),
        ) {
            let from = if client { Side::Client } else { Side::Server };
            proptest::prop_assert_eq!(read_all(&bytes, &cuts, from), read_all(&bytes, &[], from));
        }
    }

    #[test]
    fn close_payloads() {
        assert!(check_close(b"").is_ok());
        assert!(check_close(&close_payload(1000, "bye")).is_ok());
        assert_eq!(check_close(b"\x03").unwrap_err().code, code::PROTOCOL);
        assert_eq!(
            check_close(&close_payload(1005, "")).unwrap_err().code,
            code::PROTOCOL
        );
        let bad_reason = [0x03, 0xE8, 0xC0, 0xAE];
        assert_eq!(
            check_close(&bad_reason).unwrap_err().code,
            code::INVALID_DATA
        );
    }
}
