//! Sizes of `_bytes` keys: an integer (`1048576`) or a string with a binary unit (`"64KiB"`,
//! `"10MiB"`, `"1GiB"`, `"1TiB"`, `"512B"`). Decimal and bare units (`kB`, `MB`, `M`, `G`) are
//! refused: tools disagree on whether `MB` is 10⁶ or 2²⁰ bytes, and a limit off by 5% is a
//! limit nobody chose. A leaf of `config`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A size as written: validation reads it with [`RawSize::bytes`], so that its errors carry
/// the value's span (file and line, or the variable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RawSize {
    /// An integer.
    Bytes(u64),
    /// A string, unit and all.
    Text(String),
}

/// The binary units, 1024-based, in lowercase.
const UNITS: [(&str, u64); 5] = [
    ("b", 1),
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("tib", 1 << 40),
];

/// Units that read two ways (decimal or binary).
const AMBIGUOUS: [&str; 8] = ["k", "kb", "m", "mb", "g", "gb", "t", "tb"];

impl RawSize {
    /// The number of bytes, or why the text is not a size.
    pub(super) fn bytes(&self) -> Result<u64, String> {
        let text = match self {
            RawSize::Bytes(n) => return Ok(*n),
            RawSize::Text(text) => text.trim(),
        };
        let split = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (digits, unit) = (&text[..split], text[split..].trim_start());
        let unit_lower = unit.to_ascii_lowercase();
        let hint = "like 1048576, \"64KiB\", \"10MiB\" or \"1GiB\"";
        if digits.is_empty() || unit.starts_with(['.', ',']) {
            return Err(format!(
                "{text:?} is not a size: a whole number, optionally with a unit ({hint})"
            ));
        }
        let multiplier = if unit.is_empty() {
            1
        } else if let Some((_, m)) = UNITS.iter().find(|(u, _)| *u == unit_lower) {
            *m
        } else if AMBIGUOUS.contains(&unit_lower.as_str()) {
            let binary = format!("{}iB", unit[..1].to_ascii_uppercase());
            return Err(format!(
                "{text:?}: {unit:?} is ambiguous (1000- or 1024-based); write {digits}{binary} \
                 for 1024-based units, or the number of bytes"
            ));
        } else {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (B, KiB, MiB, GiB or TiB; {hint})"
            ));
        };
        digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(multiplier))
            .ok_or_else(|| format!("{text:?} is too large"))
    }
}

impl<'de> Deserialize<'de> for RawSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawSize, D::Error> {
        struct SizeVisitor;

        impl Visitor<'_> for SizeVisitor {
            type Value = RawSize;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of bytes, or a string like \"10MiB\"")
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<RawSize, E> {
                Ok(RawSize::Bytes(n))
            }

            fn visit_i64<E: de::Error>(self, n: i64) -> Result<RawSize, E> {
                u64::try_from(n)
                    .map(RawSize::Bytes)
                    .map_err(|_| E::custom(format!("{n} is negative: a size is >= 0")))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<RawSize, E> {
                Ok(RawSize::Text(text.to_string()))
            }
        }

        deserializer.deserialize_any(SizeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::RawSize;

    fn size(text: &str) -> Result<u64, String> {
        RawSize::Text(text.to_string()).bytes()
    }

    #[test]
    fn binary_units_and_plain_numbers() {
        for (text, bytes) in [
            ("1048576", 1 << 20),
            ("64KiB", 64 << 10),
            ("10MiB", 10 << 20),
            ("10 MiB", 10 << 20),
            ("10mib", 10 << 20),
            ("1GiB", 1 << 30),
            ("2TiB", 2 << 40),
            ("512B", 512),
            (" 7 ", 7),
        ] {
            assert_eq!(size(text), Ok(bytes), "{text}");
        }
        assert_eq!(RawSize::Bytes(5).bytes(), Ok(5));
    }

    #[test]
    fn ambiguous_fractional_unknown_and_huge_sizes_are_refused_with_a_reason() {
        let e = size("10MB").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("10MiB"), "{e}");
        let e = size("64k").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("64KiB"), "{e}");
        for (text, says) in [
            ("1.5MiB", "whole number"),
            ("MiB", "whole number"),
            ("", "whole number"),
            ("-1", "whole number"),
            ("10 furlongs", "unknown unit"),
            ("99999999TiB", "too large"),
            ("99999999999999999999", "too large"),
        ] {
            let e = size(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
