//! Differential fuzzing of the codec against std: validation, diagnosis, streaming and lossy.
//!
//! `cargo fuzz run codec_differential -s none` (stable toolchain).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_codec::{StreamValidator, diagnose, to_lossy, validate};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a chunk size for the streaming check; the rest is the input.
    let Some((&chunk, input)) = data.split_first() else { return };
    match (core::str::from_utf8(input), validate(input)) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(s), Err(o)) => {
            assert_eq!(s.valid_up_to(), o.valid_up_to());
            assert_eq!(s.error_len(), o.error_len());
            assert_eq!(o.malformation().offset(), s.valid_up_to());
        }
        (s, o) => panic!("std {s:?} vs utf8gate {o:?}"),
    }
    assert_eq!(to_lossy(input), String::from_utf8_lossy(input));

    let one_shot: Vec<_> = diagnose(input).collect();
    let mut at = 0;
    for m in &one_shot {
        assert!(core::str::from_utf8(&input[at..m.offset()]).is_ok());
        assert!(core::str::from_utf8(m.bytes()).is_err());
        at = m.range().end;
    }
    assert!(core::str::from_utf8(&input[at..]).is_ok());

    let mut v = StreamValidator::new();
    let mut streamed = Vec::new();
    for piece in input.chunks(usize::from(chunk).max(1)) {
        v.feed(piece, |m| streamed.push(m));
    }
    v.finish(|m| streamed.push(m));
    assert_eq!(streamed, one_shot);
});
