//! The window against a reading byte by byte, from the starts the proof gives it.

use proptest::prelude::*;

use crate::readings::json::words::window::{Span, Window};

/// Where a reading byte by byte from `pos` stops, and the simple escapes it passes (all, and
/// whether `\n`, `\r` or `\t` is among them).
fn naive_stop(bytes: &[u8], mut pos: usize) -> (usize, usize, bool) {
    let (mut escapes, mut controls) = (0, false);
    while let Some(&b) = bytes.get(pos) {
        match (b, bytes.get(pos + 1)) {
            (b'\\', Some(b'"' | b'\\' | b'/')) => escapes += 1,
            (b'\\', Some(b'n' | b'r' | b't')) => (escapes, controls) = (escapes + 1, true),
            (b'"' | b'\\' | 0..0x20, _) => return (pos, escapes, controls),
            _ => {
                pos += 1;
                continue;
            }
        }
        pos += 2;
    }
    (bytes.len(), escapes, controls)
}

proptest! {
    /// The window stops where a reading byte by byte does, from any sequence of starts as the
    /// proof makes them (a string's start after a quote; the byte after a `\u` escape, whose
    /// hex digits hold no backslash), counts the simple escapes between, and notes the
    /// triggers.
    #[test]
    fn the_window_stops_where_bytes_stop(
        bytes in prop::collection::vec(
            prop_oneof![
                8 => Just(b'a'),
                3 => prop::sample::select(b"\"\\\\nt/ux".to_vec()),
                1 => prop::sample::select(b"\x00\x1f\x20\x7f\x80\xff.%".to_vec()),
            ],
            0..600,
        ),
        steps in prop::collection::vec(0usize..90, 1..20),
    ) {
        let mut window = Window::new();
        let (mut pos, mut start) = (0, 0);
        let mut expected = Span::default();
        // The bytes read since the string's start (not those of the escapes skipped).
        let mut read: Vec<usize> = Vec::new();
        // The simple escapes read, in all strings.
        let mut total = 0;
        window.begin(0);
        for step in steps {
            let found = window.next(&bytes, pos);
            let (stop, escapes, controls) = naive_stop(&bytes, pos);
            prop_assert_eq!(found, stop);
            expected.escapes |= escapes > 0;
            total += escapes;
            expected.control_escapes |= controls;
            read.extend(pos..found);
            let span = window.span(found);
            // The shortcut says what the span says, when it answers.
            if window.plain_in_block(found, false) {
                prop_assert!(!span.triggered);
            }
            if window.plain_in_block(found, true) {
                prop_assert!(!span.triggered && !span.escapes);
            }
            prop_assert_eq!(span.escapes, expected.escapes);
            prop_assert_eq!(span.control_escapes, expected.control_escapes);
            // A trigger is sound (every `%`, every `.` before a `/`, `\\` or `"`, wherever
            // that byte is, or at the end) and only ever a `.` or `%`.
            let passed = &bytes[start..found];
            let ender = |i: usize| bytes.get(i).is_none_or(|b| b"/\\\"".contains(b));
            let must = read.iter().any(|&i| bytes[i] == b'%' || (bytes[i] == b'.' && ender(i + 1)));
            prop_assert!(span.triggered || !must);
            prop_assert!(!span.triggered || passed.iter().any(|&b| b == b'.' || b == b'%'));
            if found == bytes.len() {
                // Every block read, and no backslash in the bytes skipped: the window counted
                // the escapes of every string.
                prop_assert_eq!(window.escapes(), total);
                break;
            }
            // The next start: past a `\u` escape in the same string, or a later string's.
            let escape = bytes[found] == b'\\';
            let skip = if escape { 2 + step % 5 } else { 1 + step };
            let from = found + if escape { 2 } else { 1 };
            let backslash = bytes[from.min(bytes.len())..].iter().position(|&b| b == b'\\');
            pos = (found + skip).min(backslash.map_or(bytes.len(), |i| from + i)).min(bytes.len());
            if !escape {
                (start, expected) = (pos, Span::default());
                read.clear();
                window.begin(pos);
            }
        }
    }
}
