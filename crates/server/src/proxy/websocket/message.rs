//! The messages of one direction of a tunnel, put together from its frames (RFC 6455 §5.4):
//! fragmentation rules, the message size limit, and the UTF-8 of text messages validated as
//! their fragments arrive, with the carry of a character split between two frames.
//!
//! A text message is kept until its last frame and handed over whole, so that nothing of a
//! message that fails reaches the other side; the tunnel sends it on as one frame (an
//! intermediary may change the fragmentation of a message without extensions, §5.4). Binary
//! messages are not read: their frames go on as they come, only their size counted.

use utf8gate_codec::{MalformedKind, StreamValidator};

use super::frame::{self, BINARY, CONTINUATION, Fail, Frame, TEXT, code};

/// How the text messages of one direction are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextCheck {
    /// Not read: text frames go on as they come, as binary ones do.
    Off,
    /// Validated; an invalid message is reported and sent on.
    Log,
    /// Validated; an invalid message fails the connection (1007).
    Enforce,
}

/// What became of a frame.
#[derive(Debug)]
pub(super) enum Step {
    /// Send this frame on as it is: a control frame, a binary frame, or a text frame not read.
    Forward(Frame),
    /// A whole text message: send it on as one frame (masked with `mask` toward a server).
    Text {
        /// The message.
        payload: Vec<u8>,
        /// The masking key of its first frame.
        mask: Option<[u8; 4]>,
        /// The first malformation of a message that is not UTF-8 (with [`TextCheck::Log`]).
        invalid: Option<MalformedKind>,
    },
    /// A fragment kept until its message ends.
    Kept,
}

/// The message open in one direction.
enum Open {
    None,
    /// A binary (or unread text) message: its bytes so far.
    Unread(usize),
    /// A text message being read.
    Text(Text),
}

struct Text {
    bytes: Vec<u8>,
    validator: StreamValidator,
    mask: Option<[u8; 4]>,
    invalid: Option<MalformedKind>,
}

/// The messages of one direction.
pub(super) struct Assembly {
    max_message: usize,
    check: TextCheck,
    open: Open,
}

fn too_big() -> Fail {
    Fail {
        code: code::TOO_BIG,
        why: "message over the size limit",
    }
}

fn not_utf8() -> Fail {
    Fail {
        code: code::INVALID_DATA,
        why: "text message is not UTF-8",
    }
}

impl Assembly {
    /// No message open; messages of at most `max_message` bytes.
    pub(super) fn new(max_message: usize, check: TextCheck) -> Assembly {
        Assembly {
            max_message,
            check,
            open: Open::None,
        }
    }

    /// Takes the next data or control frame of this direction.
    pub(super) fn accept(&mut self, frame: Frame) -> Result<Step, Fail> {
        if frame.is_control() {
            return Ok(Step::Forward(frame));
        }
        let starts = frame.opcode != CONTINUATION;
        match (&mut self.open, starts) {
            (Open::None, false) => Err(Fail::protocol("continuation frame outside a message")),
            (Open::Unread(_) | Open::Text(_), true) => {
                Err(Fail::protocol("new message inside a fragmented one"))
            }
            (Open::None, true) if frame.opcode == BINARY || self.check == TextCheck::Off => {
                self.unread(0, frame)
            }
            (Open::Unread(so_far), false) => {
                let so_far = *so_far;
                self.unread(so_far, frame)
            }
            (Open::None, true) => {
                debug_assert_eq!(frame.opcode, TEXT);
                let text = Text {
                    bytes: Vec::new(),
                    validator: StreamValidator::new(),
                    mask: frame.mask,
                    invalid: None,
                };
                self.text(text, frame)
            }
            (Open::Text(_), false) => match std::mem::replace(&mut self.open, Open::None) {
                Open::Text(text) => self.text(text, frame),
                _ => Err(Fail::protocol("continuation frame outside a message")),
            },
        }
    }

    /// A frame of a message not read: counted, sent on.
    fn unread(&mut self, so_far: usize, frame: Frame) -> Result<Step, Fail> {
        let total = so_far.saturating_add(frame.payload.len());
        if total > self.max_message {
            return Err(too_big());
        }
        self.open = if frame.fin {
            Open::None
        } else {
            Open::Unread(total)
        };
        Ok(Step::Forward(frame))
    }

    /// A frame of a text message: kept, validated with the carry of the frames before it.
    fn text(&mut self, mut text: Text, frame: Frame) -> Result<Step, Fail> {
        if text.bytes.len().saturating_add(frame.payload.len()) > self.max_message {
            return Err(too_big());
        }
        let mut first = None;
        text.validator.feed(&frame.payload, |m| {
            first.get_or_insert(m.kind());
        });
        text.bytes.extend_from_slice(&frame.payload);
        if !frame.fin {
            self.settle(&mut text, first)?;
            self.open = Open::Text(text);
            return Ok(Step::Kept);
        }
        let mut last = None;
        let Text {
            bytes,
            validator,
            mask,
            invalid,
        } = text;
        validator.finish(|m| {
            last.get_or_insert(m.kind());
        });
        let mut text = Text {
            bytes,
            validator: StreamValidator::new(),
            mask,
            invalid,
        };
        self.settle(&mut text, first.or(last))?;
        Ok(Step::Text {
            payload: text.bytes,
            mask: text.mask,
            invalid: text.invalid,
        })
    }

    /// A malformation found: the end of the connection when enforcing, a note otherwise.
    fn settle(&self, text: &mut Text, found: Option<MalformedKind>) -> Result<(), Fail> {
        match (found, self.check) {
            (None, _) => Ok(()),
            (Some(_), TextCheck::Enforce) => Err(not_utf8()),
            (Some(kind), _) => {
                text.invalid.get_or_insert(kind);
                Ok(())
            }
        }
    }
}

/// The frame that sends `step`'s whole text message on.
pub(super) fn text_frame(out: &mut Vec<u8>, payload: &[u8], mask: Option<[u8; 4]>) {
    frame::write(out, true, TEXT, payload, mask);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Frame {
        Frame {
            fin,
            opcode,
            mask: None,
            payload: payload.to_vec(),
        }
    }

    /// The steps of a text message cut into `pieces`, or the first failure.
    fn text_in(pieces: &[&[u8]], check: TextCheck) -> Result<Step, Fail> {
        let mut a = Assembly::new(1 << 20, check);
        let last = pieces.len() - 1;
        let mut step = Ok(Step::Kept);
        for (i, p) in pieces.iter().enumerate() {
            let opcode = if i == 0 { TEXT } else { CONTINUATION };
            step = a.accept(frame(i == last, opcode, p));
            step.as_ref().map_err(|f| *f)?;
        }
        step
    }

    #[test]
    fn a_character_split_between_frames_is_valid() {
        let euro = "€ Grüße 日本語 🦀".as_bytes();
        for cut in 0..=euro.len() {
            let step = text_in(&[&euro[..cut], &euro[cut..]], TextCheck::Enforce);
            match step {
                Ok(Step::Text { payload, .. }) => assert_eq!(payload, euro, "{cut}"),
                other => panic!("{cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn invalid_text_fails_with_1007_at_once_or_at_the_end() {
        let cases: [&[&[u8]]; 4] = [
            &[b"a\xC0", b"\xAEb"],
            &[b"\xED\xA0\x80", b"ok"],
            &[b"x", b"\xED\xB0\x80"],
            &[b"ok \xE2", b"\x82"],
        ];
        for pieces in cases {
            let failed = text_in(pieces, TextCheck::Enforce).unwrap_err();
            assert_eq!(failed.code, code::INVALID_DATA, "{pieces:?}");
        }
        let truncated = text_in(&[b"ok", b" \xF0\x9F\xA6"], TextCheck::Enforce);
        assert_eq!(truncated.unwrap_err().code, code::INVALID_DATA);
        match text_in(&[b"ok \xE2\x82"], TextCheck::Log) {
            Ok(Step::Text { invalid, .. }) => assert_eq!(invalid, Some(MalformedKind::Truncated)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fragmentation_rules_and_limits() {
        let mut a = Assembly::new(8, TextCheck::Enforce);
        let code_of = |r: Result<Step, Fail>| r.unwrap_err().code;
        assert_eq!(
            code_of(a.accept(frame(true, CONTINUATION, b"x"))),
            code::PROTOCOL
        );
        assert!(matches!(
            a.accept(frame(false, TEXT, b"abc")),
            Ok(Step::Kept)
        ));
        assert!(matches!(
            a.accept(frame(true, frame::PING, b"")),
            Ok(Step::Forward(_))
        ));
        assert_eq!(code_of(a.accept(frame(true, TEXT, b"x"))), code::PROTOCOL);
        let mut a = Assembly::new(8, TextCheck::Enforce);
        assert!(matches!(
            a.accept(frame(false, BINARY, b"\xFF\xFE")),
            Ok(Step::Forward(_))
        ));
        assert_eq!(
            code_of(a.accept(frame(true, CONTINUATION, b"1234567"))),
            code::TOO_BIG
        );
        let mut a = Assembly::new(8, TextCheck::Enforce);
        assert_eq!(
            code_of(a.accept(frame(true, TEXT, b"123456789"))),
            code::TOO_BIG
        );
    }
}
