//! Pointers of JSON tokens (a leaf): their cap, and array indexes written into them.

/// Longest pointer kept in a token: a body of huge keys and many values would otherwise
/// produce output quadratic in its size.
pub(crate) const MAX_POINTER_BYTES: usize = 1024;

/// `pointer` cut to [`MAX_POINTER_BYTES`] at a character boundary.
pub(super) fn capped(pointer: &str) -> String {
    let mut end = pointer.len().min(MAX_POINTER_BYTES);
    while !pointer.is_char_boundary(end) {
        end -= 1;
    }
    pointer[..end].to_string()
}

/// Appends `index` in decimal to `pointer` (by hand: `write!` costs hundreds of instructions
/// per array element).
pub(super) fn push_decimal(pointer: &mut String, index: usize) {
    let mut digits = [0u8; 20];
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
    (digits[at..].iter()).for_each(|&d| pointer.push(char::from(d)));
}

#[cfg(test)]
mod tests {
    /// Every width of index reads back as itself.
    #[test]
    fn decimals_read_back() {
        for n in [0, 1, 9, 10, 99, 100, 12345, usize::MAX] {
            let mut s = String::from("/a/");
            super::push_decimal(&mut s, n);
            assert_eq!(s, format!("/a/{n}"));
        }
    }
}
