//! Content and transfer codings (RFC 9110 §8.4, RFC 9112 §7): the codings a body was sent
//! with, read from its headers, and the decoders that undo them within limits.
//!
//! A backend that inflates a `Content-Encoding: deflate` body reads bytes utf8gate would not
//! see if it checked the coded body. So a coded body is decoded (gzip, x-gzip, deflate as zlib
//! or raw, br) and the decoded body is what the checks read; a coding utf8gate cannot decode is
//! refused. Decoding is push-based (the decoders of `flate2` and `brotli-decompressor` behind
//! `Write`), so the same code serves a buffered body and a streamed scan.

use std::io::Write;

use crate::profile::{CodingReading, Limits};
use crate::request::{Request, trim};

/// A coding utf8gate decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// `gzip` and `x-gzip` (RFC 1952), every member.
    Gzip,
    /// `deflate`: zlib (RFC 1950) as specified, or raw deflate (RFC 1951) as some clients send.
    Deflate,
    /// `br` (RFC 7932).
    Brotli,
}

/// Why a body's codings cannot be read, or its decoding failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodingError {
    /// A coding that is not decoded, a malformed list, too many codings, or codings refused
    /// by the profile.
    Unsupported(String),
    /// The stream does not decode (corrupt, truncated, bytes after its end).
    Corrupt(String),
    /// The decoded body is larger than allowed, or expands more than allowed.
    TooLarge(String),
}

impl core::fmt::Display for CodingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CodingError::Unsupported(m) | CodingError::Corrupt(m) | CodingError::TooLarge(m) => {
                f.write_str(m)
            }
        }
    }
}

/// The codings applied to `request`'s body, in the order they were applied: `Content-Encoding`
/// (every line, as one list) and then the transfer codings other than a final `chunked`.
/// `identity` is no coding. An empty list element, a parameter, a coding utf8gate does not
/// decode, `chunked` anywhere but last, or more than `max_codings`: refused.
pub fn request_codings(
    request: &Request,
    reading: CodingReading,
    limits: &Limits,
) -> Result<Vec<Coding>, CodingError> {
    let mut codings = Vec::new();
    for (name, value) in &request.headers {
        if name.eq_ignore_ascii_case("content-encoding") {
            list(value, false, &mut codings)?;
        }
    }
    for (name, value) in &request.headers {
        if name.eq_ignore_ascii_case("transfer-encoding") {
            list(value, true, &mut codings)?;
        }
    }
    // `chunked` was pushed as `None`: only the very last element may be it.
    if let Some(at) = codings.iter().position(Option::is_none) {
        if at + 1 != codings.len() {
            return Err(CodingError::Unsupported(
                "`chunked` is not the final transfer coding".into(),
            ));
        }
        codings.pop();
    }
    let codings: Vec<Coding> = codings.into_iter().flatten().collect();
    if !codings.is_empty() && reading == CodingReading::Refuse {
        return Err(CodingError::Unsupported(
            "the profile refuses coded bodies".into(),
        ));
    }
    if codings.len() > limits.max_codings {
        return Err(CodingError::Unsupported(format!(
            "{} codings stacked (at most {})",
            codings.len(),
            limits.max_codings
        )));
    }
    Ok(codings)
}

/// `true` if `request`'s body is declared coded (a content or transfer coding but `chunked`).
pub fn is_coded(request: &Request) -> bool {
    request.headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-encoding")
            || (name.eq_ignore_ascii_case("transfer-encoding")
                && !value.eq_ignore_ascii_case(b"chunked"))
    })
}

/// Appends the codings of one header line (`None` for `chunked`).
fn list(value: &[u8], transfer: bool, out: &mut Vec<Option<Coding>>) -> Result<(), CodingError> {
    for element in value.split(|&b| b == b',') {
        let token = trim(element).to_ascii_lowercase();
        let coding = match token.as_slice() {
            b"gzip" | b"x-gzip" => Some(Coding::Gzip),
            b"deflate" => Some(Coding::Deflate),
            b"br" => Some(Coding::Brotli),
            b"identity" => continue,
            b"chunked" if transfer => None,
            b"" => {
                return Err(CodingError::Unsupported(
                    "empty element in a coding list".into(),
                ));
            }
            other => {
                return Err(CodingError::Unsupported(format!(
                    "coding {:?} is not decoded",
                    String::from_utf8_lossy(&other[..other.len().min(32)])
                )));
            }
        };
        if coding.is_none() && out.contains(&None) {
            return Err(CodingError::Unsupported("`chunked` applied twice".into()));
        }
        out.push(coding);
    }
    Ok(())
}

/// Decodes a whole body coded with `codings` (in the order they were applied).
pub fn decode(body: &[u8], codings: &[Coding], limits: &Limits) -> Result<Vec<u8>, CodingError> {
    let mut decoder = Decoder::new(codings, limits);
    let mut out = Vec::new();
    decoder.feed(body, &mut out)?;
    decoder.finish(&mut out)?;
    Ok(out)
}

/// Undoes a chain of codings chunk by chunk, in bounded memory: at most one chunk's expansion
/// is held at a time, and the total decoded size and expansion ratio are capped.
pub struct Decoder {
    /// Outermost (last applied) first.
    stages: Vec<Stage>,
    coded_in: u64,
    decoded_out: u64,
    max_out: u64,
    max_ratio: u64,
}

/// Below this many decoded bytes the expansion ratio is not checked (small bodies cannot be
/// bombs, and short texts compress unusually well).
const RATIO_FLOOR: u64 = 64 * 1024;

/// Input is handed to a stage in pieces of at most this size, so one piece's expansion stays
/// small (deflate expands at most about 1 032 times).
pub(crate) const PIECE: usize = 4 * 1024;

impl Decoder {
    /// A decoder for a body coded with `codings` (in the order they were applied).
    pub fn new(codings: &[Coding], limits: &Limits) -> Decoder {
        Decoder {
            stages: codings.iter().rev().map(|&c| Stage::new(c)).collect(),
            coded_in: 0,
            decoded_out: 0,
            max_out: limits.max_decoded_bytes as u64,
            max_ratio: limits.max_expansion_ratio as u64,
        }
    }

    /// Decodes the next coded chunk, appending decoded bytes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<(), CodingError> {
        self.coded_in += chunk.len() as u64;
        for piece in chunk.chunks(PIECE) {
            self.run(piece, false, out)?;
        }
        Ok(())
    }

    /// Ends the stream: a truncated stream is an error.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CodingError> {
        self.run(&[], true, out)
    }

    /// Bytes decoded so far.
    pub fn decoded_len(&self) -> u64 {
        self.decoded_out
    }

    fn run(&mut self, input: &[u8], end: bool, out: &mut Vec<u8>) -> Result<(), CodingError> {
        let room =
            usize::try_from(self.max_out.saturating_sub(self.decoded_out)).unwrap_or(usize::MAX);
        let mut data = input.to_vec();
        for stage in &mut self.stages {
            let mut next = Vec::new();
            if !data.is_empty() {
                stage.write(&data, room, &mut next)?;
            }
            if end {
                stage.finish(room, &mut next)?;
            }
            data = next;
        }
        self.decoded_out += data.len() as u64;
        if self.decoded_out > self.max_out {
            return Err(CodingError::TooLarge(format!(
                "the body decodes to more than {} bytes",
                self.max_out
            )));
        }
        // The ratio is a judgement of the whole body, taken at its end so that it does not
        // depend on how the body was cut into chunks; meanwhile memory and work are bounded by
        // `max_out`, enforced inside the decoders.
        if end
            && self.decoded_out > RATIO_FLOOR
            && self.decoded_out > self.coded_in.saturating_mul(self.max_ratio)
        {
            return Err(CodingError::TooLarge(format!(
                "the body expands more than {} times",
                self.max_ratio
            )));
        }
        out.extend_from_slice(&data);
        Ok(())
    }
}

/// A decoder's output buffer: drained after every write, and refusing to grow past `room`
/// (so a bomb fails inside the decoder, before it allocates).
#[derive(Default)]
struct Capped {
    data: Vec<u8>,
    room: usize,
    over: bool,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.room.saturating_sub(self.data.len()) {
            self.over = true;
            return Err(std::io::Error::other("decoded size limit"));
        }
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One coding's decoder.
enum Stage {
    Gzip(flate2::write::MultiGzDecoder<Capped>),
    /// `deflate` before its first two bytes tell zlib from raw.
    DeflateUndecided(Vec<u8>),
    Zlib(flate2::write::ZlibDecoder<Capped>),
    RawDeflate(flate2::write::DeflateDecoder<Capped>),
    Brotli(Box<brotli_decompressor::DecompressorWriter<Capped>>),
    /// A stage that failed: every later call fails too.
    Failed,
}

fn corrupt(name: &str, e: &std::io::Error) -> CodingError {
    CodingError::Corrupt(format!("the {name} stream does not decode: {e}"))
}

impl Stage {
    fn new(coding: Coding) -> Stage {
        match coding {
            Coding::Gzip => Stage::Gzip(flate2::write::MultiGzDecoder::new(Capped::default())),
            Coding::Deflate => Stage::DeflateUndecided(Vec::new()),
            Coding::Brotli => Stage::Brotli(Box::new(
                brotli_decompressor::DecompressorWriter::new(Capped::default(), 4096),
            )),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Stage::Gzip(_) => "gzip",
            Stage::DeflateUndecided(_) | Stage::Zlib(_) | Stage::RawDeflate(_) => "deflate",
            Stage::Brotli(_) => "br",
            Stage::Failed => "coded",
        }
    }

    fn write(&mut self, input: &[u8], room: usize, out: &mut Vec<u8>) -> Result<(), CodingError> {
        if let Stage::DeflateUndecided(held) = self {
            held.extend_from_slice(input);
            if held.len() < 2 {
                return Ok(());
            }
            let held = std::mem::take(held);
            // RFC 1950 §2.2: CM = 8, and the header's 16 bits are a multiple of 31.
            let zlib =
                held[0] & 0x0F == 8 && (u16::from(held[0]) << 8 | u16::from(held[1])) % 31 == 0;
            *self = if zlib {
                Stage::Zlib(flate2::write::ZlibDecoder::new(Capped::default()))
            } else {
                Stage::RawDeflate(flate2::write::DeflateDecoder::new(Capped::default()))
            };
            return self.write(&held, room, out);
        }
        let name = self.name();
        let result = self.with_output(room, |w| w.write_all(input).and_then(|()| w.flush()));
        self.settle(name, result, out, |e| {
            if e.kind() == std::io::ErrorKind::WriteZero {
                CodingError::Corrupt(format!("bytes after the end of the {name} stream"))
            } else {
                corrupt(name, e)
            }
        })
    }

    /// Runs `f` on the decoder with `room` bytes of output allowed.
    fn with_output(
        &mut self,
        room: usize,
        f: impl FnOnce(&mut dyn Finishing) -> std::io::Result<()>,
    ) -> Option<(std::io::Result<()>, Capped)> {
        let d: &mut dyn Finishing = match self {
            Stage::Gzip(d) => d,
            Stage::Zlib(d) => d,
            Stage::RawDeflate(d) => d,
            Stage::Brotli(d) => d.as_mut(),
            Stage::DeflateUndecided(_) | Stage::Failed => return None,
        };
        d.output().room = room;
        let result = f(d);
        Some((result, std::mem::take(d.output())))
    }

    /// Moves the output on, or turns a failure into its error (and the stage into `Failed`).
    fn settle(
        &mut self,
        name: &str,
        result: Option<(std::io::Result<()>, Capped)>,
        out: &mut Vec<u8>,
        error: impl FnOnce(&std::io::Error) -> CodingError,
    ) -> Result<(), CodingError> {
        match result {
            None => Err(CodingError::Corrupt(format!(
                "the {name} stream ends before it starts, or failed before"
            ))),
            Some((Ok(()), output)) => {
                out.extend_from_slice(&output.data);
                Ok(())
            }
            Some((Err(e), output)) => {
                *self = Stage::Failed;
                Err(if output.over {
                    CodingError::TooLarge(
                        "the body decodes to more than max_decoded_bytes allows".to_string(),
                    )
                } else {
                    error(&e)
                })
            }
        }
    }

    fn finish(&mut self, room: usize, out: &mut Vec<u8>) -> Result<(), CodingError> {
        let name = self.name();
        let result = self.with_output(room, |w| w.end());
        self.settle(name, result, out, |e| corrupt(name, e))
    }
}

/// A decoder behind `Write` that can be told the stream has ended.
trait Finishing: Write {
    fn output(&mut self) -> &mut Capped;
    fn end(&mut self) -> std::io::Result<()>;
}

/// `Finishing` for the flate2 decoders, which all end with `try_finish`.
macro_rules! flate2_finishing {
    ($($decoder:ident),+) => {$(
        impl Finishing for flate2::write::$decoder<Capped> {
            fn output(&mut self) -> &mut Capped {
                self.get_mut()
            }
            fn end(&mut self) -> std::io::Result<()> {
                self.try_finish()
            }
        }
    )+};
}

flate2_finishing!(MultiGzDecoder, ZlibDecoder, DeflateDecoder);

impl Finishing for brotli_decompressor::DecompressorWriter<Capped> {
    fn output(&mut self) -> &mut Capped {
        self.get_mut()
    }
    fn end(&mut self) -> std::io::Result<()> {
        self.close()
    }
}
