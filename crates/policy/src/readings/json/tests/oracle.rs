//! The oracle and generators of the JSON scanner's tests: serde_json's reading of a document,
//! generated documents, serializations with random escapes and whitespace, and edits.

use crate::readings::json::string::REPLACEMENT;
use crate::readings::json::*;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// serde_json's own recursion limit is 128; generated documents stay far below it.
pub(super) const LIMITS: JsonLimits = JsonLimits {
    max_depth: 128,
    max_strings: usize::MAX,
};

/// One expected token: pointer, is_key, decoded bytes.
pub(super) type Triple = (String, bool, Vec<u8>);

/// The (pointer, is_key, value) of every token the scanner returned.
pub(super) fn triples(tokens: &[JsonString]) -> Vec<Triple> {
    tokens
        .iter()
        .map(|t| (t.pointer.to_string(), t.is_key, t.value.to_vec()))
        .collect()
}

/// Oracle: the tokens of a parsed `Value`, in serialization order.
pub(super) fn walk(v: &Value, pointer: &str, out: &mut Vec<Triple>) {
    match v {
        Value::String(s) => out.push((pointer.to_owned(), false, s.as_bytes().to_vec())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(members) => {
            for (k, item) in members {
                let p = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push((p.clone(), true, k.as_bytes().to_vec()));
                walk(item, &p, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The tokens of a `Value`.
pub(super) fn expected_tokens(v: &Value) -> Vec<Triple> {
    let mut out = Vec::new();
    walk(v, "", &mut out);
    out
}

/// Characters that stress string encoding.
pub(super) fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        2 => proptest::char::range('\0', '\u{1f}'),
        3 => proptest::sample::select(vec![
            '"', '\\', '/', '~', '\u{7f}', 'é', '😀', '\u{ffff}', '\u{fffd}', '\u{10ffff}',
            '\u{10000}', '\u{feff}', '\u{d7ff}', '\u{e000}', '\u{2028}',
        ]),
        3 => proptest::char::range('a', 'e'),
    ]
}

/// Strings made of [`arb_char`].
pub(super) fn arb_string() -> impl Strategy<Value = String> {
    proptest::collection::vec(arb_char(), 0..8).prop_map(|v| v.into_iter().collect())
}

/// Documents nested up to about 6 levels.
pub(super) fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| {
            serde_json::Number::from_f64(f).map(Value::Number)
        }),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((arb_string(), inner), 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A deterministic xorshift generator, so a proptest seed drives the serializer's choices.
pub(super) struct Rng(u64);

impl Rng {
    /// A number below `n`.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A serializer that picks, per character, raw, a short escape or `\uXXXX` (surrogate pairs
/// for supplementary characters, hex digits of either case), and random whitespace.
pub(super) struct Writer {
    /// Choices.
    rng: Rng,
    /// Output.
    out: Vec<u8>,
}

impl Writer {
    /// Zero to two whitespace bytes.
    pub(super) fn ws(&mut self) {
        for _ in 0..self.rng.below(3) {
            let i = usize::try_from(self.rng.below(4)).unwrap();
            self.out.push(b" \t\n\r"[i]);
        }
    }

    /// A `\uXXXX` escape.
    pub(super) fn unit(&mut self, unit: u16) {
        let s = if self.rng.below(2) == 0 {
            format!("\\u{unit:04x}")
        } else {
            format!("\\u{unit:04X}")
        };
        self.out.extend_from_slice(s.as_bytes());
    }

    /// A string literal.
    pub(super) fn string(&mut self, s: &str) {
        self.out.push(b'"');
        for c in s.chars() {
            let forced = c == '"' || c == '\\' || c < ' ';
            let short = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '/' => Some("\\/"),
                '\u{8}' => Some("\\b"),
                '\u{c}' => Some("\\f"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                _ => None,
            };
            let choice = self.rng.below(4);
            match short {
                _ if !forced && choice < 2 => {
                    let mut buf = [0u8; 4];
                    self.out
                        .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(short) if choice != 3 => self.out.extend_from_slice(short.as_bytes()),
                _ => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf).iter().copied() {
                        self.unit(unit);
                    }
                }
            }
        }
        self.out.push(b'"');
    }

    /// Any value.
    pub(super) fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.out.extend_from_slice(b"null"),
            Value::Bool(b) => self.out.extend_from_slice(b.to_string().as_bytes()),
            Value::Number(n) => self.out.extend_from_slice(n.to_string().as_bytes()),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                self.out.push(b'[');
                self.ws();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                        self.ws();
                    }
                    self.value(item);
                    self.ws();
                }
                self.out.push(b']');
            }
            Value::Object(members) => {
                self.out.push(b'{');
                self.ws();
                for (i, (k, item)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                        self.ws();
                    }
                    self.string(k);
                    self.ws();
                    self.out.push(b':');
                    self.ws();
                    self.value(item);
                    self.ws();
                }
                self.out.push(b'}');
            }
        }
    }
}

/// `v` serialized with random escapes and whitespace chosen by `seed`.
pub(super) fn write_random(v: &Value, seed: u64) -> Vec<u8> {
    let mut w = Writer {
        rng: Rng(seed | 1),
        out: Vec::new(),
    };
    w.ws();
    w.value(v);
    w.ws();
    w.out
}

/// The three serializations of a document the tests use.
pub(super) fn bodies(v: &Value, seed: u64) -> Vec<Vec<u8>> {
    vec![
        serde_json::to_vec(v).unwrap(),
        serde_json::to_vec_pretty(v).unwrap(),
        write_random(v, seed),
    ]
}

/// serde_json's pure syntax check: `IgnoredAny` walks the document without building
/// strings (so it neither pairs surrogates nor checks UTF-8) or numbers (no range check),
/// and has no recursion limit.
pub(super) fn serde_syntax_ok(body: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok()
}

/// A JSON string read by serde_json as bytes: escapes decoded, raw bytes copied, lone
/// surrogates as their 3-byte generalized UTF-8 (ED A0..BF xx).
pub(super) struct WtfBytes(pub(super) Vec<u8>);

impl<'de> serde::Deserialize<'de> for WtfBytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Accepts bytes only.
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = WtfBytes;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a JSON string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<WtfBytes, E> {
                Ok(WtfBytes(v.to_vec()))
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

/// Turns serde_json's generalized UTF-8 into what `scan` promises: each encoded surrogate
/// becomes U+FFFD, recorded with its value. Only valid when the raw bytes of the literal
/// contain no 0xED (the generators below never put one there).
pub(super) fn wtf8_to_scan(b: &[u8]) -> (Vec<u8>, Vec<(usize, u16)>) {
    let mut out = Vec::new();
    let mut lone = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if let [0xED, b1 @ 0xA0..=0xBF, b2, ..] = b[i..] {
            lone.push((
                out.len(),
                0xD000 | (u16::from(b1 & 0x3F) << 6) | u16::from(b2 & 0x3F),
            ));
            out.extend_from_slice(&REPLACEMENT);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    (out, lone)
}

/// One edit of a document.
#[derive(Debug, Clone)]
pub(super) enum Mutation {
    /// Delete the byte at the index.
    Delete(proptest::sample::Index),
    /// Insert a byte before the index.
    Insert(proptest::sample::Index, u8),
    /// Replace the byte at the index.
    Replace(proptest::sample::Index, u8),
}

/// Bytes likely to change the meaning of a JSON document.
pub(super) fn arb_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => proptest::sample::select(b"{}[]:,\"\\/utfnlrbe0123456789-+.E \t\n\rDd".to_vec()),
        1 => proptest::sample::select(vec![0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF0, 0xFF]),
        1 => any::<u8>(),
    ]
}

/// A random edit.
pub(super) fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<proptest::sample::Index>().prop_map(Mutation::Delete),
        (any::<proptest::sample::Index>(), arb_byte()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<proptest::sample::Index>(), arb_byte()).prop_map(|(i, b)| Mutation::Replace(i, b)),
    ]
}

/// Applies an edit.
pub(super) fn mutate(body: &mut Vec<u8>, m: &Mutation) {
    match m {
        Mutation::Delete(i) if !body.is_empty() => {
            body.remove(i.index(body.len()));
        }
        Mutation::Insert(i, b) => {
            let at = i.index(body.len() + 1);
            body.insert(at, *b);
        }
        Mutation::Replace(i, b) if !body.is_empty() => {
            let at = i.index(body.len());
            body[at] = *b;
        }
        Mutation::Delete(_) | Mutation::Replace(..) => {}
    }
}

/// A piece of a string literal for the lone-surrogate test.
pub(super) fn arb_fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => (0xD800u16..=0xDBFF).prop_map(|u| format!("\\u{u:04X}").into_bytes()),
        3 => (0xDC00u16..=0xDFFF).prop_map(|u| format!("\\u{u:04x}").into_bytes()),
        2 => any::<u16>().prop_map(|u| format!("\\u{u:04x}").into_bytes()),
        2 => proptest::sample::select(vec![
            0x80u8, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        ])
        .prop_map(|b| vec![b]),
        2 => proptest::sample::select(vec![
            "\\n", "\\\"", "\\\\", "\\/", "a", "~", "/", "é", "😀", "\\u0000",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
    ]
}

/// A string literal made of fragments.
pub(super) fn arb_literal() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(arb_fragment(), 0..8).prop_map(|parts| {
        let mut lit = vec![b'"'];
        lit.extend(parts.concat());
        lit.push(b'"');
        lit
    })
}

/// Replaces `tokens`' spans in `body` with new literals (spans are increasing and disjoint).
pub(super) fn rewrite(
    body: &[u8],
    tokens: &[JsonString],
    new: impl Fn(&JsonString) -> String,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut copied = 0;
    for t in tokens {
        out.extend_from_slice(&body[copied..t.raw.start]);
        out.extend_from_slice(new(t).as_bytes());
        copied = t.raw.end;
    }
    out.extend_from_slice(&body[copied..]);
    out
}

/// The rewrite of the rewrite test: keys get a `k` prefix, string values are reversed.
pub(super) fn transform(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(s.chars().rev().collect()),
        Value::Array(items) => Value::Array(items.iter().map(transform).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, item)| (format!("k{k}"), transform(item)))
                .collect(),
        ),
        other => other.clone(),
    }
}
