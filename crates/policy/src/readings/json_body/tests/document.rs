//! A document's strings read when they are checked: the same fields as the tokens of one
//! reading, at the document's name and index; and keys given twice found as serde_json reads
//! each object's members, under keys whose pointers are cut.

use std::collections::HashSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use unicode_normalization::UnicodeNormalization;

use crate::location::{Location, Part};
use crate::readings::json_body::tests::*;

/// Whether some object of a document has a key twice, as serde_json reads it (compared in
/// NFC, as a sanitized key is), or a key Go reads as ASCII: a map visitor sees every member,
/// repeats included.
struct Repeats(bool);

impl<'de> Deserialize<'de> for Repeats {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Members)
    }
}

/// The visitor of [`Repeats`].
struct Members;

impl<'de> Visitor<'de> for Members {
    type Value = Repeats;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_str<E>(self, _: &str) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_unit<E>(self) -> Result<Repeats, E> {
        Ok(Repeats(false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Repeats, A::Error> {
        let mut repeats = false;
        while let Some(Repeats(inner)) = items.next_element()? {
            repeats |= inner;
        }
        Ok(Repeats(repeats))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Repeats, A::Error> {
        let (mut seen, mut repeats) = (HashSet::new(), false);
        while let Some(key) = members.next_key::<String>()? {
            // Keys compare in NFC; U+017F and U+212A are ASCII letters to Go.
            repeats |= key.contains(['\u{17f}', '\u{212a}']);
            repeats |= !seen.insert(key.nfc().collect::<String>());
            let Repeats(inner) = members.next_value()?;
            repeats |= inner;
        }
        Ok(Repeats(repeats))
    }
}

/// `doc` serialized, inside a member whose key is `long` bytes long when `long > 0`.
fn body_of(doc: &Doc, style: Style, seed: u64, long: usize) -> Vec<u8> {
    let mut seed = seed;
    let mut body = Vec::new();
    if long > 0 {
        body = [b"{\"".as_slice(), &vec![b'k'; long], b"\":"].concat();
    }
    serialize(doc, style, &mut seed, &mut body);
    if long > 0 {
        body.push(b'}');
    }
    body
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `ambiguous_json_key` is reported exactly when serde_json sees an object with a key
    /// twice (keys compared decoded and in NFC: `"a"` and `"\u0061"` are one key, and so are
    /// `"á"` and `"a\u0301"`) or a key Go reads as ASCII, with the proof or without, also below
    /// a key so long that every pointer under it is cut.
    #[test]
    fn a_key_given_twice_is_found_as_serde_json_reads_it(
        doc in arb_doc(),
        style in prop_oneof![Just(Style::Plain), Just(Style::Unicode)],
        seed in any::<u64>(),
        long in prop_oneof![Just(0usize), Just(1100), Just(5000)],
    ) {
        let body = body_of(&doc, style, seed, long);
        let Ok(Repeats(expected)) = serde_json::from_slice::<Repeats>(&body) else {
            return Err(TestCaseError::fail(String::from_utf8_lossy(&body).into_owned()));
        };
        let request = Request::new("POST", b"/api")
            .header("Content-Type", b"application/json")
            .body(&body);
        for proof in [true, false] {
            let verdict = evaluation(&Profile::strict(), &request, proof).verdict;
            let found = verdict.counts.contains_key("ambiguous_json_key");
            prop_assert_eq!(found, expected, "{}", String::from_utf8_lossy(&body));
        }
    }

    /// The fields of a document read when checked are its tokens (`json::scan`), in order:
    /// each key's and string's decoded bytes at its pointer; in a form value, at the value's
    /// name and index.
    #[test]
    fn a_document_reads_as_its_tokens(
        doc in arb_doc(),
        style in prop_oneof![Just(Style::Plain), Just(Style::Unicode), Just(Style::Odd)],
        seed in any::<u64>(),
        long in prop_oneof![Just(0usize), Just(1100)],
    ) {
        let body = body_of(&doc, style, seed, long);
        let Ok(tokens) = crate::readings::json_body::json::scan(&body, crate::readings::json_body::limits(&Profile::strict())) else {
            return Ok(());
        };
        let expected = |at: &Location| -> Vec<(Location, Vec<u8>)> {
            let tokens = tokens.iter().map(|t| {
                let part = if t.is_key { Part::JsonKey } else { Part::JsonString };
                let mut location = Location::part(part).with_pointer(&t.pointer);
                location.name.clone_from(&at.name);
                location.index = at.index;
                (location, t.value.to_vec())
            });
            tokens.collect()
        };
        let json_fields = |request: &Request| -> Vec<(Location, Vec<u8>)> {
            WITHOUT_PROOF.set(true);
            let fields = crate::read_fields(&Profile::strict(), request);
            WITHOUT_PROOF.set(false);
            let json = |l: &Location| matches!(l.part, Part::JsonKey | Part::JsonString);
            fields.into_iter().filter(|(l, _)| json(l)).collect()
        };
        let request = Request::new("POST", b"/api")
            .header("Content-Type", b"application/json")
            .body(&body);
        prop_assert_eq!(json_fields(&request), expected(&Location::part(Part::Body)));
        let form: Vec<u8> = body.iter().flat_map(|&b| format!("%{b:02X}").into_bytes()).collect();
        let form = [b"x=1&v=".as_slice(), &form].concat();
        let request = Request::new("POST", b"/api")
            .header("Content-Type", b"application/x-www-form-urlencoded")
            .body(&form);
        if matches!(body.first(), Some(b'{' | b'[')) {
            let at = Location::part(Part::FormValue).with_name(b"v").with_index(1);
            prop_assert_eq!(json_fields(&request), expected(&at));
        }
    }
}
