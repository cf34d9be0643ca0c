//! `ascii_text` (an unchecked conversion after the ASCII test) against the checked conversion,
//! and `validate`'s short-ASCII path against `core::str::from_utf8`.

use proptest::prelude::*;
use utf8gate_codec::{ascii_text, validate};

/// What `ascii_text` must return: the checked conversion of all-ASCII bytes, else nothing.
fn checked(bytes: &[u8]) -> Option<&str> {
    core::str::from_utf8(bytes).ok().filter(|t| t.is_ascii())
}

/// Every string of one and two bytes, and every byte at every offset of a longer one.
#[test]
fn every_short_string_converts_as_checked() {
    for w in 0..=u16::MAX {
        let pair = w.to_le_bytes();
        for bytes in [&pair[..1], &pair[..]] {
            assert_eq!(ascii_text(bytes), checked(bytes), "{bytes:02X?}");
            assert_eq!(
                validate(bytes).ok(),
                core::str::from_utf8(bytes).ok(),
                "{bytes:02X?}"
            );
        }
    }
    for len in [7, 8, 9, 15, 16, 17, 63, 64, 65, 200] {
        for at in 0..len {
            for b in [0x00, 0x7F, 0x80, 0xC3, 0xFF] {
                let mut bytes = vec![b'a'; len];
                bytes[at] = b;
                assert_eq!(ascii_text(&bytes), checked(&bytes), "{len} {at} {b:02X}");
                assert_eq!(validate(&bytes).ok(), core::str::from_utf8(&bytes).ok());
            }
        }
    }
}

proptest! {
    #[test]
    fn any_bytes_convert_as_checked(bytes in prop::collection::vec(prop_oneof![0u8..0x80, any::<u8>()], 0..300)) {
        prop_assert_eq!(ascii_text(&bytes), checked(&bytes));
        prop_assert_eq!(validate(&bytes).ok(), core::str::from_utf8(&bytes).ok());
    }
}
