//! The notation of code points in messages (a leaf).

/// Formats a code point value as `U+XXXX` (at least four hex digits), the notation of the
/// Unicode Standard; values above U+10FFFF keep the same notation (`U+110000`).
pub fn format_scalar(value: u32) -> String {
    format!("U+{value:04X}")
}
