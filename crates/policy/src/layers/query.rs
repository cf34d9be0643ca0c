//! Query strings and `application/x-www-form-urlencoded` bodies: `&`-separated `name=value`
//! pairs, each side percent-decoded once with `+` as a space.

use core::ops::Range;

use crate::field::{Container, Encoding, Field};
use crate::layers::decomposed::Fields;
use crate::layers::percent;
use crate::location::{Location, Part};

/// Splits `raw` (which sits at `base` in `container`) into key and value fields, pushed on
/// `out`. Returns whether the parameter limit cut the list.
pub(crate) fn fields<'r>(
    raw: &'r [u8],
    container: Container,
    base: usize,
    form: bool,
    max_parameters: usize,
    room: &mut usize,
    out: &mut Fields<'r>,
) -> bool {
    let (key_part, value_part) = if form {
        (Part::FormKey, Part::FormValue)
    } else {
        (Part::QueryKey, Part::QueryValue)
    };
    let mut start = 0;
    let mut count = 0;
    for piece in raw.split(|&b| b == b'&') {
        let range = start..start + piece.len();
        start = range.end + 1;
        if piece.is_empty() {
            continue;
        }
        count += 1;
        if count > max_parameters {
            return true;
        }
        let (key_range, value_range): (Range<usize>, Option<Range<usize>>) =
            match piece.iter().position(|&b| b == b'=') {
                Some(eq) => (
                    range.start..range.start + eq,
                    Some(range.start + eq + 1..range.end),
                ),
                None => (range.clone(), None),
            };
        // A body's component written with raw UTF-8 is written back so (`FormRawUtf8`).
        let encoding = |raw: &[u8]| match container == Container::Body && raw_utf8(raw) {
            true => Encoding::FormRawUtf8,
            false => Encoding::FormPercent,
        };
        let (key, key_findings) = percent::decode(&raw[key_range.clone()], true, room);
        let index = count - 1;
        out.push(Field {
            location: Location::part(key_part).with_name(&key).with_index(index),
            bytes: key.clone(),
            container,
            span: base + key_range.start..base + key_range.end,
            encoding: encoding(&raw[key_range.clone()]),
            at_body_start: false,
            layer_findings: key_findings.boxed(),
            check_only: false,
            proven_clean: 0,
            document: None,
        });
        if let Some(value_range) = value_range {
            let (value, findings) = percent::decode(&raw[value_range.clone()], true, room);
            out.push(Field {
                location: Location::part(value_part).with_name(&key).with_index(index),
                bytes: value,
                container,
                span: base + value_range.start..base + value_range.end,
                encoding: encoding(&raw[value_range.clone()]),
                at_body_start: false,
                layer_findings: findings.boxed(),
                check_only: false,
                proven_clean: 0,
                document: None,
            });
        }
    }
    false
}

/// Whether `raw` holds raw bytes above 0x7F and no escape of one.
fn raw_utf8(raw: &[u8]) -> bool {
    let escaped_high = memchr::memchr_iter(b'%', raw).any(|at| {
        matches!(
            raw.get(at + 1),
            Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
        )
    });
    !escaped_high && raw.iter().any(|&b| b >= 0x80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_decodes() {
        let mut fields = Fields::new();
        let raw = b"a=1&b%20c=x+y&&flag&e=";
        let cut = super::fields(raw, Container::Query, 0, false, 10, &mut 100, &mut fields);
        assert!(!cut);
        let got: Vec<_> = fields
            .iter()
            .map(|f| {
                (
                    f.location.part,
                    f.location.name.clone().unwrap(),
                    f.bytes.to_vec(),
                    f.span.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (Part::QueryKey, "a".into(), b"a".to_vec(), 0..1),
                (Part::QueryValue, "a".into(), b"1".to_vec(), 2..3),
                (Part::QueryKey, "b c".into(), b"b c".to_vec(), 4..9),
                (Part::QueryValue, "b c".into(), b"x y".to_vec(), 10..13),
                (Part::QueryKey, "flag".into(), b"flag".to_vec(), 15..19),
                (Part::QueryKey, "e".into(), b"e".to_vec(), 20..21),
                (Part::QueryValue, "e".into(), b"".to_vec(), 22..22),
            ]
        );
        let mut three = Fields::new();
        assert!(super::fields(
            b"a&b&c",
            Container::Query,
            0,
            false,
            2,
            &mut 100,
            &mut three
        ));
    }
}
