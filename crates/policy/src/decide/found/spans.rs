//! The character spans a rewrite needs, packed: a few bytes per span, not a struct.
//!
//! Checks report characters in field order, so each span is written as the distance from the
//! previous span's start and its length (LEB128 varints) and its kind (one byte): a NUL every
//! other byte costs three bytes of spans per two bytes of field. Adjacent spans of one kind are
//! one span. A span reported out of order (never by the checks as they are) is kept apart and
//! sorted in when the spans are read.

use crate::finding::FindingKind;

/// A stretch of a field a rewrite may change: adjacent characters of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// First byte, in the field.
    pub(crate) start: usize,
    /// One past the last byte.
    pub(crate) end: usize,
    /// The characters' kind (their action is the kind's in the field).
    pub(crate) kind: FindingKind,
}

/// Spans in field order, packed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Spans {
    packed: Vec<u8>,
    /// Start of the last packed span.
    packed_start: usize,
    /// The last span, still growing.
    open: Option<Span>,
    /// Spans that came out of order.
    unsorted: Vec<Span>,
}

impl Spans {
    /// Adds a span.
    pub(crate) fn push(&mut self, span: Span) {
        if let Some(open) = &mut self.open {
            if open.kind == span.kind && open.end == span.start {
                open.end = span.end;
                return;
            }
            if span.start < open.start {
                self.unsorted.push(span);
                return;
            }
        }
        if let Some(open) = self.open.replace(span) {
            self.pack(open);
        }
    }

    fn pack(&mut self, span: Span) {
        write_varint(&mut self.packed, span.start - self.packed_start);
        write_varint(&mut self.packed, span.end - span.start);
        self.packed.push(span.kind.index() as u8);
        self.packed_start = span.start;
    }

    /// Adds every span of `other`.
    pub(crate) fn extend(&mut self, other: &Spans) {
        for span in other.iter() {
            self.push(span);
        }
    }

    /// Whether some span's kind satisfies `f`.
    pub(crate) fn any_kind(&self, mut f: impl FnMut(FindingKind) -> bool) -> bool {
        self.in_order().any(|s| f(s.kind))
    }

    /// The spans in the order they were reported (out-of-order ones last).
    fn in_order(&self) -> impl Iterator<Item = Span> + '_ {
        let mut at = 0;
        let mut start = 0;
        let packed = core::iter::from_fn(move || {
            if at >= self.packed.len() {
                return None;
            }
            start += read_varint(&self.packed, &mut at);
            let len = read_varint(&self.packed, &mut at);
            let kind = FindingKind::ALL[usize::from(self.packed[at])];
            at += 1;
            Some(Span {
                start,
                end: start + len,
                kind,
            })
        });
        packed.chain(self.open).chain(self.unsorted.iter().copied())
    }

    /// The spans by start (of two at one start, the longer first, then the first reported).
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = Span> + '_> {
        if self.unsorted.is_empty() {
            return Box::new(self.in_order());
        }
        let mut all: Vec<Span> = self.in_order().collect();
        all.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        Box::new(all.into_iter())
    }

    /// Bytes held (for tests of the bound).
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.packed.len() + self.unsorted.len() * core::mem::size_of::<Span>()
    }
}

fn write_varint(out: &mut Vec<u8>, mut v: usize) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> usize {
    let mut v = 0;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= usize::from(b & 0x7F) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Packed spans read back as pushed, adjacent ones of a kind merged, in start order.
        #[test]
        fn spans_read_back_in_order(
            steps in proptest::collection::vec((0usize..300, 1usize..5, 0usize..3), 0..200),
        ) {
            let kinds = [FindingKind::Nul, FindingKind::BidiControl, FindingKind::Lookalike];
            let mut spans = Spans::default();
            let mut expected: Vec<Span> = Vec::new();
            let mut start = 0;
            for (gap, len, kind) in steps {
                start += gap;
                let span = Span { start, end: start + len, kind: kinds[kind] };
                match expected.last_mut() {
                    Some(last) if last.kind == span.kind && last.end == span.start => {
                        last.end = span.end
                    }
                    _ => expected.push(span),
                }
                spans.push(span);
                start += len;
            }
            let got: Vec<Span> = spans.iter().collect();
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_span_every_other_byte_costs_three_bytes() {
        let mut spans = Spans::default();
        for i in 0..10_000 {
            let start = 2 * i;
            spans.push(Span {
                start,
                end: start + 1,
                kind: FindingKind::Nul,
            });
        }
        assert_eq!(spans.held_bytes(), 3 * 9_999);
        // Out of order: kept apart, sorted in when read.
        spans.push(Span {
            start: 1,
            end: 2,
            kind: FindingKind::Control,
        });
        let starts: Vec<usize> = spans.iter().map(|s| s.start).take(3).collect();
        assert_eq!(starts, [0, 1, 2]);
    }
}
