//! Pointers of JSON tokens (a leaf): their cap, and array indexes written into them.

use compact_str::CompactString;

/// Longest pointer kept in a token: a body of huge keys and many values would otherwise
/// produce output quadratic in its size.
pub(crate) const MAX_POINTER_BYTES: usize = 1024;

/// `pointer` cut to [`MAX_POINTER_BYTES`] at a character boundary.
pub(super) fn capped(pointer: &str) -> CompactString {
    CompactString::new(cut(pointer))
}

/// The first [`MAX_POINTER_BYTES`] of `pointer`, or fewer, to a character boundary (also the
/// cut of a YAML scalar's path).
pub(crate) fn cut(pointer: &str) -> &str {
    let mut end = pointer.len().min(MAX_POINTER_BYTES);
    while !pointer.is_char_boundary(end) {
        end -= 1;
    }
    &pointer[..end]
}

/// Appends `/` and `index` in decimal to `pointer`, in one append (by hand: `write!` costs
/// hundreds of instructions per array element).
pub(super) fn push_index(pointer: &mut CompactString, index: usize) {
    let mut digits = [0u8; 21];
    let mut n = index;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    at -= 1;
    digits[at] = b'/';
    // Only ASCII was written.
    pointer.push_str(core::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// Appends `/` and `key` escaped as RFC 6901 writes a reference token (`~` as `~0`, `/` as
/// `~1`), a run at a time.
pub(super) fn push_key(pointer: &mut CompactString, key: &str) {
    pointer.push('/');
    let mut rest = key;
    while let Some(at) = rest.find(['~', '/']) {
        pointer.push_str(&rest[..at]);
        pointer.push_str(if rest.as_bytes()[at] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[at + 1..];
    }
    pointer.push_str(rest);
}

#[cfg(test)]
mod tests {
    /// Every width of index reads back as itself.
    #[test]
    fn decimals_read_back() {
        for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            let mut s = compact_str::CompactString::from("/a");
            super::push_index(&mut s, n);
            assert_eq!(s, format!("/a/{n}"));
        }
    }

    /// Keys are escaped as RFC 6901 says, whatever mix of `~`, `/` and other text they hold.
    #[test]
    fn keys_are_escaped_character_by_character() {
        for key in ["", "a", "~", "/", "a/b~c", "~~//", "日本/語~", "~0~1"] {
            let mut s = compact_str::CompactString::default();
            super::push_key(&mut s, key);
            let expected: String = key
                .chars()
                .map(|c| match c {
                    '~' => "~0".to_string(),
                    '/' => "~1".to_string(),
                    c => c.to_string(),
                })
                .collect();
            assert_eq!(s, format!("/{expected}"));
        }
    }
}
