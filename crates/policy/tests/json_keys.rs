//! JSON keys as Go's `encoding/json` binds them: by Unicode simple case folding (the C and S
//! lines of `tests/data/CaseFolding.txt`, the oracle here, read by this test and by nothing of
//! the product's). Generated objects of keys in many scripts, case variants, the two
//! characters that fold into ASCII (U+017F, U+212A), and NFC/NFD spellings:
//! `ambiguous_json_key` is found exactly when the oracle says some reader of the keys (Go, or
//! the sanitized body) binds two of them to one name, and the keys of a sanitized body never
//! collide under folding.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use unicode_normalization::UnicodeNormalization;
use utf8gate_policy::{Decision, JsonKeyReading, Profile, Request, evaluate};

/// The simple case folding of CaseFolding.txt (statuses C and S).
fn simple_folding() -> HashMap<char, char> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/CaseFolding.txt"
    );
    let text = std::fs::read_to_string(path).expect("tests/data/CaseFolding.txt");
    let mut map = HashMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split(';').map(str::trim).collect();
        if matches!(fields[1], "C" | "S") {
            let code = |hex: &str| char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap();
            map.insert(code(fields[0]), code(fields[2]));
        }
    }
    assert!(map.len() > 1400, "{} simple foldings", map.len());
    map
}

fn fold(map: &HashMap<char, char>, key: &str) -> String {
    key.chars().map(|c| *map.get(&c).unwrap_or(&c)).collect()
}

fn profile(go: bool) -> Profile {
    let mut profile = Profile::strict();
    if go {
        profile.readings.json_keys = JsonKeyReading::Go;
    }
    profile
}

fn verdict_of(profile: &Profile, body: &[u8]) -> utf8gate_policy::Evaluation {
    let request = Request::new("POST", b"/api")
        .header("Content-Type", b"application/json")
        .body(body);
    evaluate(profile, &request)
}

/// Keys: ASCII case variants, the two characters Go folds into ASCII, letters whose simple
/// folds are not ASCII (Greek sigmas, German sharp s, Turkish dotted and dotless i, Cyrillic,
/// the Angstrom sign), and a decomposed spelling.
const KEY_PIECES: &[&str] = &[
    "a",
    "A",
    "is_admin",
    "IS_ADMIN",
    "Is_Admin",
    "iſ_admin",
    "kind",
    "Kind",
    "\u{212a}ind",
    "s",
    "ſ",
    "σ",
    "Σ",
    "ς",
    "straße",
    "STRAẞE",
    "İ",
    "ı",
    "i",
    "Ж",
    "ж",
    "Å",
    "å",
    "\u{212b}",
    "a\u{301}",
    "á",
    "Á",
    "ǅ",
    "ǆ",
    "Ǆ",
    "名前",
    "ｋ",
    "K",
];

fn arb_object() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::collection::vec(prop::sample::select(KEY_PIECES), 1..3).prop_map(|p| p.concat()),
        1..5,
    )
}

fn body_of(keys: &[String]) -> Vec<u8> {
    let members: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| format!("{}:{i}", serde_json::to_string(k).unwrap()))
        .collect();
    format!("{{\"outer\":{{{}}}}}", members.join(",")).into_bytes()
}

/// Whether a reader binds two keys of `keys` to one name, or reads one as an ASCII key it is
/// not: keys compared in NFC (what a sanitized body holds) and, for Go, folded.
fn ambiguous(map: &HashMap<char, char>, keys: &[String], go: bool) -> bool {
    let folds_into_ascii = |k: &String| {
        k.chars()
            .any(|c| !c.is_ascii() && fold(map, &c.to_string()).is_ascii())
    };
    let mut seen = HashSet::new();
    let mut found = keys.iter().any(folds_into_ascii);
    for key in keys {
        let nfc: String = key.nfc().collect();
        let form = if go { fold(map, &nfc) } else { nfc };
        found |= !seen.insert(form);
    }
    found
}

#[test]
fn only_long_s_and_kelvin_fold_into_ascii() {
    let map = simple_folding();
    let into_ascii: Vec<char> = map
        .iter()
        .filter(|(c, f)| !c.is_ascii() && f.is_ascii())
        .map(|(c, _)| *c)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(into_ascii, ['\u{17f}', '\u{212a}']);
    for c in into_ascii {
        let body = format!("{{\"x{c}\":1}}");
        let verdict = verdict_of(&Profile::strict(), body.as_bytes()).verdict;
        assert_eq!(verdict.decision, Decision::Reject, "{body}");
        assert!(verdict.counts.contains_key("ambiguous_json_key"), "{body}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// `ambiguous_json_key` exactly when the oracle says so, under both key readings.
    #[test]
    fn ambiguous_keys_are_found_as_go_and_the_sanitized_body_read_them(keys in arb_object()) {
        let map = simple_folding();
        let body = body_of(&keys);
        for go in [false, true] {
            let verdict = verdict_of(&profile(go), &body).verdict;
            let found = verdict.counts.contains_key("ambiguous_json_key");
            prop_assert_eq!(found, ambiguous(&map, &keys, go), "go={} {:?}", go, keys);
        }
    }

    /// A sanitized body's keys never collide under Go's folding.
    #[test]
    fn a_sanitized_body_has_no_keys_that_go_reads_as_one(keys in arb_object()) {
        let map = simple_folding();
        let evaluation = verdict_of(&profile(true), &body_of(&keys));
        if let Some(sanitized) = evaluation.sanitized {
            let value: serde_json::Value = serde_json::from_slice(&sanitized.body).unwrap();
            let outer = value["outer"].as_object().unwrap();
            let forms: HashSet<String> = outer.keys().map(|k| fold(&map, k)).collect();
            prop_assert_eq!(forms.len(), keys.len(), "{:?} -> {:?}", keys, outer.keys().collect::<Vec<_>>());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Objects of up to 150 keys (past the few an object's keys are searched among as they
    /// come), one inside another: a key given twice is `ambiguous_json_key` wherever its two
    /// places are, first keys or last, inner object or outer, and distinct keys never are.
    #[test]
    fn a_key_twice_in_an_object_of_many_keys_is_found(
        outer in 1usize..150,
        inner in 1usize..150,
        twice in prop::option::of((any::<bool>(), any::<prop::sample::Index>(), any::<prop::sample::Index>())),
    ) {
        let name = |i: usize| format!("{}{i}", ["k", "ключ", "鍵", "κλειδί"][i % 4]);
        let mut outer_keys: Vec<String> = (0..outer).map(name).collect();
        let mut inner_keys: Vec<String> = (0..inner).map(|i| name(i + 1000)).collect();
        if let Some((in_inner, at, of)) = twice {
            let keys = if in_inner { &mut inner_keys } else { &mut outer_keys };
            let copy = keys[of.index(keys.len())].clone();
            keys.insert(at.index(keys.len() + 1), copy);
        }
        let members = |keys: &[String]| -> Vec<String> {
            keys.iter().enumerate().map(|(i, k)| format!("{}:{i}", serde_json::to_string(k).unwrap())).collect()
        };
        let mut outer_members = members(&outer_keys);
        let at = outer_members.len() / 2;
        outer_members.insert(at, format!("\"nested\":{{{}}}", members(&inner_keys).join(",")));
        let body = format!("{{{}}}", outer_members.join(","));
        let verdict = verdict_of(&Profile::strict(), body.as_bytes()).verdict;
        let found = verdict.counts.contains_key("ambiguous_json_key");
        prop_assert_eq!(found, twice.is_some(), "{:?}", verdict.counts);
        prop_assert_eq!(verdict.decision == Decision::Allow, twice.is_none());
    }
}

/// Keys in many scripts, keys differing by accents only and every case variant that is not
/// Go's: passed byte for byte by the default reading.
#[test]
fn benign_keys_pass_unchanged() {
    let bodies: &[&str] = &[
        r#"{"名前":"山田","名字":"x","नाम":"y","имя":"z","Имя":"w","όνομα":"v"}"#,
        r#"{"resume":1,"résumé":2,"resumé":3,"Resume":4}"#,
        r#"{"action":1,"ACTION":2,"straße":3,"STRASSE":4}"#,
        r#"{"xn--bcher-kva":1,"note":"ſ in a value, not a key"}"#,
    ];
    for body in bodies {
        let evaluation = verdict_of(&Profile::strict(), body.as_bytes());
        assert_eq!(
            evaluation.verdict.decision,
            Decision::Allow,
            "{body}: {:?}",
            evaluation.verdict.counts
        );
    }
    let go = verdict_of(&profile(true), bodies[2].as_bytes()).verdict;
    assert_eq!(go.decision, Decision::Reject, "action/ACTION under go");
}
