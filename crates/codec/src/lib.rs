//! Strict RFC 3629 UTF-8 for utf8gate: validation at SIMD speed, and a precise diagnosis of every
//! malformed sequence.
//!
//! RFC 3629 §3 says a decoder MUST NOT accept invalid sequences, and §10 says why: a check that
//! forbids `2F 2E 2E 2F` (`/../`) is bypassed by `2F C0 AE 2E 2F` if something downstream decodes
//! the overlong `C0 AE` as `.`. This crate answers the two questions the rest of utf8gate asks:
//!
//! * **Is it UTF-8?** [`validate`] returns `&str` or a [`Utf8Error`] whose `valid_up_to()` and
//!   `error_len()` equal `core::str::from_utf8`'s for every input, plus a [`MalformedKind`].
//! * **What exactly is wrong, and what would a careless decoder read?** [`diagnose`] yields every
//!   [`Malformation`]: offset, bytes, kind, and the value a lax (RFC 2279 / CESU-8 tolerant)
//!   decoder produces (`C0 AE` → U+002E). [`StreamValidator`] reports the same over chunks of any
//!   size, in bounded memory.
//!
//! It also replaces malformed input exactly as `String::from_utf8_lossy` does ([`to_lossy`]),
//! detects signatures ([`detect_signature`], [`feff_positions`]), encodes one scalar safely
//! ([`encode_scalar`]) and repairs CESU-8 pairs on request ([`repair_cesu8`]).
//!
//! The crate does no I/O, has no async code and never panics on any input. Its two `unsafe`
//! blocks turn bytes already proven UTF-8 into `&str` without a second pass: in lossy
//! decoding, a prefix `simdutf8::compat` just reported valid; in [`ascii_text`], bytes the
//! ASCII test passed (both measured in `docs/BENCHMARKS.md`, tested against the checked path).
//!
//! ```
//! use utf8gate_codec::{diagnose, validate, MalformedKind};
//!
//! let input = b"/\xC0\xAE./etc/passwd";
//! let err = validate(input).unwrap_err();
//! assert_eq!((err.valid_up_to(), err.error_len()), (1, Some(1)));
//! assert_eq!(err.kind(), MalformedKind::Overlong);
//!
//! let m = diagnose(input).next().unwrap();
//! assert_eq!((m.offset(), m.bytes(), m.lax_char()), (1, &[0xC0, 0xAE][..], Some('.')));
//! ```
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod diagnose;
mod encode;
mod kind;
mod lax;
mod lossy;
mod scalar;
mod signature;
mod stream;
mod validate;

pub use diagnose::{Diagnose, Malformation, diagnose};
pub use encode::{EncodeError, encode_scalar, repair_cesu8};
pub use kind::MalformedKind;
pub use lossy::{REPLACEMENT, lossy_len, maximal_subpart_len, push_lossy, to_lossy};
pub use scalar::format_scalar;
pub use signature::{FeffPositions, Signature, UTF8_BOM, detect_signature, feff_positions};
pub use stream::{StreamSummary, StreamValidator};
pub use validate::{Utf8Error, ascii_text, is_valid, validate};
