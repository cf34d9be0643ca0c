//! The JSON reading with and without its proof (`json::prove`): whole evaluations compared on
//! generated documents whose strings hit every rule of the proof (escapes of each kind,
//! characters each check reports, dots and percents, keys given twice, bytes that are not
//! UTF-8), under the profiles that change what the checks see.

use std::cell::Cell;
use std::fmt::Write as _;

use proptest::prelude::*;

use crate::checks::lookalike::Table;
use crate::profile::Profile;
use crate::request::Request;

mod document;

thread_local! {
    /// Set by the tests that take the fields' path, to compare it with the proof's.
    pub(crate) static WITHOUT_PROOF: Cell<bool> = const { Cell::new(false) };
}

/// Pieces of strings: clean text of many scripts, what the traversal check reads, and what
/// each character and NFC check reports.
const PIECES: &[&str] = &[
    "abc",
    "déjà",
    "Ξεσκεπάζω",
    "我能吞下",
    "いろは",
    "ガ",
    "أنا",
    "나는",
    "👍🎉",
    " ",
    "Straße",
    "Привет",
    "a.b",
    ".",
    "..",
    "/",
    "\\",
    "%2e",
    "%",
    "%2F",
    "../",
    "e",
    "<",
    "=",
    "\u{301}",
    "\u{325}\u{301}",
    "\u{338}",
    "\u{202e}",
    "\u{feff}",
    "\u{ff0e}",
    "\u{2024}",
    "\u{2215}",
    "\u{0}",
    "\u{1b}",
    "\u{7f}",
    "\u{85}",
    "\u{fdd0}",
    "\u{212b}",
    "\u{37e}",
    "\u{1100}\u{1161}",
    "\u{ac00}\u{11a8}",
    "\n",
    "\t",
    "\r",
    "\u{8}",
    "\u{c}",
    "\"",
    "~",
    "\u{300}\u{301}\u{302}\u{303}\u{304}",
    "\u{2460}",
    "\u{ff41}",
    "\u{e0041}",
    "\u{1f100}",
];

/// A string made of pieces.
fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..6).prop_map(|p| p.concat())
}

/// A key, from a few (so that some repeat).
fn arb_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["a", "b", "á", "a\u{301}", "k.k", "/", "~1", ".", "iſ", "\u{212a}"])
            .prop_map(str::to_string),
        1 => arb_text(),
    ]
}

/// A document: strings, numbers and literals in arrays and objects.
#[derive(Debug, Clone)]
enum Doc {
    Text(String),
    Raw(&'static str),
    Array(Vec<Doc>),
    Object(Vec<(String, Doc)>),
}

fn arb_doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        4 => arb_text().prop_map(Doc::Text),
        1 => prop::sample::select(vec!["1.5", "-0", "true", "null", "2e3"]).prop_map(Doc::Raw),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Doc::Array),
            prop::collection::vec((arb_key(), inner), 0..5).prop_map(Doc::Object),
        ]
    })
}

/// How each character of a string is written.
#[derive(Debug, Clone, Copy)]
enum Style {
    /// Raw where JSON allows, short escapes for the rest.
    Plain,
    /// Every character the seed picks as a `\u` escape (a pair for astral ones).
    Unicode,
    /// `/` as `\/`, and a lone surrogate or an invalid byte where the seed says.
    Odd,
}

/// `text` as a JSON string literal, each character written as `style` and `seed` pick.
fn literal(text: &str, style: Style, seed: &mut u64, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in text.chars() {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (*seed >> 33).is_multiple_of(4);
        let mut s = String::new();
        match (c, style) {
            ('"', _) => s.push_str("\\\""),
            ('\\', _) => s.push_str("\\\\"),
            ('\n', _) => s.push_str("\\n"),
            ('\r', _) => s.push_str("\\r"),
            ('\t', _) => s.push_str("\\t"),
            ('\u{8}', _) => s.push_str("\\b"),
            ('\u{c}', _) => s.push_str("\\f"),
            ('/', Style::Odd) if pick => s.push_str("\\/"),
            (c, _) if (c as u32) < 0x20 || (pick && matches!(style, Style::Unicode)) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(s, "\\u{u:04x}");
                }
            }
            (c, _) => s.push(c),
        }
        out.extend_from_slice(s.as_bytes());
        if pick && matches!(style, Style::Odd) && (*seed >> 40).is_multiple_of(8) {
            let odd: &[u8] = if (*seed >> 45).is_multiple_of(2) {
                b"\\ud800"
            } else {
                b"\xc0\xae"
            };
            out.extend_from_slice(odd);
        }
    }
    out.push(b'"');
}

/// `doc` serialized, strings written as `style` and `seed` pick.
fn serialize(doc: &Doc, style: Style, seed: &mut u64, out: &mut Vec<u8>) {
    match doc {
        Doc::Text(t) => literal(t, style, seed, out),
        Doc::Raw(r) => out.extend_from_slice(r.as_bytes()),
        Doc::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                serialize(item, style, seed, out);
            }
            out.push(b']');
        }
        Doc::Object(members) => {
            out.extend_from_slice(b"{\n");
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                literal(k, style, seed, out);
                out.push(b':');
                serialize(v, style, seed, out);
            }
            out.push(b'}');
        }
    }
}

/// The profiles compared: strict, strict with the best-fit lookalikes, lossy.
fn profiles() -> Vec<Profile> {
    let mut best_fit = Profile::strict();
    best_fit.lookalikes = Table::BestFit;
    vec![Profile::strict(), best_fit, Profile::lossy()]
}

/// `evaluate` of `request` under `profile`, with or without the proof.
fn evaluation(profile: &Profile, request: &Request, proof: bool) -> crate::Evaluation {
    WITHOUT_PROOF.set(!proof);
    let e = crate::evaluate(profile, request);
    WITHOUT_PROOF.set(false);
    e
}

/// Whether the proof holds for `doc`.
fn proven(doc: &[u8], profile: &Profile) -> bool {
    let options = crate::checks::CheckOptions::of(profile);
    crate::readings::json_body::json::prove(
        doc,
        crate::readings::json_body::limits(profile),
        &options,
    )
    .is_some()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// With the proof or without it, a JSON body (and a `text/plain` one, read as JSON a
    /// second time) gets the same evaluation: verdict, bytes inspected, rewrites.
    #[test]
    fn the_proof_changes_no_evaluation(
        doc in arb_doc(),
        style in prop_oneof![Just(Style::Plain), Just(Style::Unicode), Just(Style::Odd)],
        seed in any::<u64>(),
        plain in any::<bool>(),
    ) {
        let mut seed = seed;
        let mut body = Vec::new();
        serialize(&doc, style, &mut seed, &mut body);
        let content_type: &[u8] = if plain { b"text/plain" } else { b"application/json" };
        let request = Request::new("POST", b"/api")
            .header("Content-Type", content_type)
            .body(&body);
        for profile in profiles() {
            let with = evaluation(&profile, &request, true);
            let without = evaluation(&profile, &request, false);
            prop_assert_eq!(&with, &without, "{}", String::from_utf8_lossy(&body));
        }
    }

    /// Documents of clean text in many scripts, with the escapes the proof takes (`\"`, `\\`,
    /// `\/`, `\n`, `\u` of a clean character) and dots that are no dot-segment, are proven: the
    /// proof is not a path that never runs.
    #[test]
    fn clean_documents_are_proven(
        words in prop::collection::vec(
            prop::sample::select(vec![
                "déjà", "Ξεσκεπάζω", "我能吞下", "いろは", "أنا", "나는", "👍🎉", "Привет",
                "\\\"", "\\\\", "\\/", "\\n", "\\u00e9", "\\ud83d\\ude00", "a.b", "x ", "end.",
            ]),
            1..20,
        ),
        keys in prop::collection::vec("[a-z]{1,3}", 1..8),
    ) {
        let mut body = String::from("{");
        let mut seen = std::collections::HashSet::new();
        for (i, key) in keys.iter().filter(|k| seen.insert(*k)).enumerate() {
            if i > 0 {
                body.push(',');
            }
            let _ = write!(body, "\"{key}\":[\"{}\",{i}]", words.concat());
        }
        body.push('}');
        prop_assert!(proven(body.as_bytes(), &Profile::strict()), "{}", body);
        let request = Request::new("POST", b"/api")
            .header("Content-Type", b"application/json")
            .body(body.as_bytes());
        let profile = Profile::strict();
        prop_assert_eq!(evaluation(&profile, &request, true), evaluation(&profile, &request, false));
    }
}

/// Each rule of the proof, on one document that breaks it alone: not proven.
#[test]
fn each_rule_fails_the_proof_alone() {
    let profile = Profile::strict();
    assert!(proven(br#"{"a":["x","y.z"],"b":"\u00e9\""}"#, &profile));
    for doc in [
        r#"{"a":1,"a":2}"#,        // a key twice
        r#"{"a\u0301":"x"}"#,      // a combining mark from an escape
        r#"["e\u0301"]"#,          // the same, raw
        r#"["\u0065́"]"#,           // an ASCII letter from an escape before a raw mark
        r#"["\ud800"]"#,           // a lone surrogate
        r#"["\u0000"]"#,           // a NUL
        r#"["\b"]"#,               // a control
        r#"{"a\n":1}"#,            // a line feed in a key
        r#"["../x"]"#,             // a dot-segment
        r#"["\u002e\u002e/x"]"#,   // a dot-segment from escapes
        r#"["%2e%2e/x"]"#,         // a lax reading's
        r#"["."]"#,                // a dot-segment alone
        r#"["x\u202e"]"#,          // a bidi control
        "[\"\u{ff0e}\u{ff0e}/\"]", // lookalikes
        "[\"\u{feff}\"]",          // a BOM
        r#"["x" "y"]"#,            // not JSON
    ] {
        assert!(!proven(doc.as_bytes(), &profile), "{doc}");
    }
    assert!(!proven(b"[\"\xc0\xae\"]", &profile), "not UTF-8");
}

/// Escapes of characters checked alone (`\u05d1` and `\u0922` share a slot of the proof's
/// memory): a few are proven, past the proof's limit the fields read the document, and the
/// evaluations agree either way.
#[test]
fn escapes_checked_alone_are_bounded() {
    let profile = Profile::strict();
    for (count, expected) in [(100, true), (3_000, false)] {
        let body = format!("[\"{}\"]", "\\u05d1\\u0922".repeat(count));
        assert_eq!(proven(body.as_bytes(), &profile), expected, "{count}");
        let request = Request::new("POST", b"/api")
            .header("Content-Type", b"application/json")
            .body(body.as_bytes());
        assert_eq!(
            evaluation(&profile, &request, true),
            evaluation(&profile, &request, false)
        );
    }
}
