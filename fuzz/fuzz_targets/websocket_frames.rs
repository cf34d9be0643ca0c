//! Issue 26's frame reader and message assembly (`crates/server/src/proxy/websocket/frame.rs`
//! and `message.rs`, compiled here as they are): arbitrary bytes from a client or a server,
//! cut at arbitrary points. Never a panic; the frames and the outcome are the same however the
//! bytes are cut; no frame is longer than the frame limit, no message than the message limit;
//! and a text message handed over whole under `Enforce` is valid UTF-8 (`core::str`).
//!
//! Byte 0: bit 0 the side (client or server), bits 1..3 the cut pattern; bytes 1..2 the frame
//! limit (little-endian, at least 1); the rest is the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, unreachable_pub)]
#[path = "../../crates/server/src/proxy/websocket/frame.rs"]
mod frame;
#[allow(dead_code, unreachable_pub)]
#[path = "../../crates/server/src/proxy/websocket/message.rs"]
mod message;

mod websocket {
    use super::{frame, message};
    use bytes::BytesMut;
    use frame::{Fail, Side};
    use message::{Assembly, Step, TextCheck};

    /// What one reading of the stream gave: each step's summary, and how it ended.
    #[derive(Debug, PartialEq, Eq)]
    pub struct Outcome {
        pub steps: Vec<(u8, bool, Vec<u8>)>,
        pub failed: Option<u16>,
    }

    /// Reads `stream` fed in the pieces `cuts` makes, as the tunnel does.
    pub fn read(stream: &[u8], cuts: &[usize], client: bool, max_frame: usize) -> Outcome {
        let side = if client { Side::Client } else { Side::Server };
        let max_message = max_frame * 4;
        let mut assembly = Assembly::new(max_message, TextCheck::Enforce);
        let mut buf = BytesMut::new();
        let mut out = Outcome { steps: Vec::new(), failed: None };
        let mut at = 0;
        for end in cuts.iter().copied().chain([stream.len()]) {
            let end = end.clamp(at, stream.len());
            buf.extend_from_slice(&stream[at..end]);
            at = end;
            loop {
                match frame::parse(&mut buf, side, max_frame) {
                    Ok(None) => break,
                    Err(Fail { code, .. }) => {
                        out.failed = Some(code);
                        return out;
                    }
                    Ok(Some(f)) => {
                        assert!(f.payload.len() <= max_frame, "a frame over the limit");
                        match assembly.accept(f) {
                            Err(Fail { code, .. }) => {
                                out.failed = Some(code);
                                return out;
                            }
                            Ok(Step::Forward(f)) => out.steps.push((f.opcode, f.fin, f.payload)),
                            Ok(Step::Text { payload, invalid, .. }) => {
                                assert!(invalid.is_none(), "Enforce hands over no invalid text");
                                assert!(core::str::from_utf8(&payload).is_ok(), "text not UTF-8");
                                assert!(payload.len() <= max_message, "a message over the limit");
                                out.steps.push((1, true, payload));
                            }
                            Ok(Step::Kept) => {}
                        }
                    }
                }
            }
        }
        out
    }
}

fuzz_target!(|data: &[u8]| {
    let [flags, lo, hi, stream @ ..] = data else {
        return;
    };
    let client = flags & 1 == 1;
    let max_frame = usize::from(u16::from_le_bytes([*lo, *hi])).max(1);
    let whole = websocket::read(stream, &[], client, max_frame);
    // Cut every `step` bytes, `step` from the flags: 1 (byte by byte) to 8.
    let step = usize::from((flags >> 1) & 7) + 1;
    let cuts: Vec<usize> = (1..stream.len()).step_by(step).collect();
    let cut = websocket::read(stream, &cuts, client, max_frame);
    assert_eq!(whole, cut, "the reading depends on how the bytes were cut");
});
