//! Parser differential: generated YAML documents (and hand cases) read by utf8gate and by
//! PyYAML (pure Python and libyaml) and ruamel.yaml from the pinned virtualenv
//! (`tests/python/setup-venv.sh`, `tests/python/yaml_readers.py`). For every document the
//! default profile does not refuse, every string a parser hands the application must be the
//! text of one of utf8gate's YAML fields; a document a parser refuses is no bypass.
//!
//! Without Python and PyPI the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`
//! (CI) makes that a failure.

mod support;

use std::collections::HashSet;

use serde_json::json;
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, Part, Profile, Request, evaluate, read_fields};

/// One of `items`, by value.
fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len())]
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "hello", "Καλημέρα", "こんにちは", "مرحبا", "🎉", "a b", "x:y", "a#b", "-", "~", "null",
    "yes", "0x1F", "1e3", "é", "tab\there", "a'b", "a\"b", "%", "@", "a\\b", "Ω", "key", "name", "値",
    "2001-12-14", "\u{a0}", "..", "--- x", "? q", "a,b", "[x]", "{y}", "|", ">", "", "true",
];
/// Words that make a document refused, or read differently by some parsers.
#[rustfmt::skip]
const TRICKY: &[&str] = &[
    "e\u{301}", "<<", "!x", "&a", "*a", "`", "a: b", "\u{2028}", "\u{85}", "\u{7}", "ﬀ", "k",
];
#[rustfmt::skip]
const ESCAPES: &[&str] = &[
    "\\x41", "\\u00e9", "\\U0001F600", "\\N", "\\_", "\\L", "\\P", "\\t", "\\\\",
    "\\\"", "\\/", "\\e", "\\\n  ", "\\ ", "\\\t",
];
#[rustfmt::skip]
const BAD_ESCAPES: &[&str] = &["\\0", "\\ud800", "\\x00", "\\a", "\\q", "\\uDFFF"];

/// Whether `word` reads as one plain scalar in flow and block context.
fn plain_safe(word: &str) -> bool {
    let starts = word.starts_with(|c| "-?:,[]{}#&*!|>'\"%@`~ ".contains(c));
    let inside =
        word.contains(": ") || word.contains(" #") || word.contains(|c| ",[]{}\t".contains(c));
    !word.is_empty() && !starts && !inside && !word.ends_with(':')
}

fn word(rng: &mut Rng) -> &'static str {
    if rng.chance(4) {
        pick(rng, TRICKY)
    } else {
        pick(rng, WORDS)
    }
}

fn escape(rng: &mut Rng) -> &'static str {
    if rng.chance(3) {
        pick(rng, BAD_ESCAPES)
    } else {
        pick(rng, ESCAPES)
    }
}

/// A scalar in flow context (usable as a key).
fn flow_scalar(rng: &mut Rng) -> String {
    let chosen = word(rng);
    match rng.below(10) {
        0..=4 if plain_safe(chosen) || rng.chance(10) => chosen.to_string(),
        0..=4 => format!("'{}'", chosen.replace('\'', "''")),
        5..=6 => format!("'{}'", chosen.replace('\'', "''")),
        _ => {
            let mut s = String::from("\"");
            for _ in 0..1 + rng.below(3) {
                if rng.chance(50) {
                    s.push_str(escape(rng));
                } else {
                    s.push_str(&word(rng).replace(['"', '\\'], ""));
                }
            }
            s.push('"');
            s
        }
    }
}

/// Decorations of a node: an anchor, an alias instead of it, a tag.
fn decorated(rng: &mut Rng, node: String) -> String {
    match rng.below(120) {
        0 => format!("&a {node}"),
        1 => "*a".to_string(),
        2 => format!("!!str {node}"),
        3 => format!("!!binary {node}"),
        4 => format!("!x {node}"),
        _ => node,
    }
}

fn flow_node(rng: &mut Rng, depth: usize) -> String {
    match rng.below(if depth > 2 { 1 } else { 4 }) {
        0 | 1 if depth > 2 || rng.chance(60) => {
            let scalar = flow_scalar(rng);
            decorated(rng, scalar)
        }
        0 | 1 => {
            let items: Vec<String> = (0..rng.below(4))
                .map(|_| flow_node(rng, depth + 1))
                .collect();
            format!("[{}]", items.join(", "))
        }
        _ => {
            let items: Vec<String> = (0..rng.below(4))
                .map(|_| format!("{}: {}", flow_scalar(rng), flow_node(rng, depth + 1)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A node after `key:` or `- ` at `indent`: inline text, or a newline and a block below.
fn block_value(rng: &mut Rng, indent: usize, depth: usize, out: &mut String) {
    let pad = " ".repeat(indent + 2);
    match rng.below(if depth > 3 { 3 } else { 6 }) {
        0 | 1 => out.push_str(&format!(" {}\n", flow_node(rng, depth))),
        2 => {
            let header = pick(rng, &["|", ">", "|-", ">+", "|2"]);
            out.push_str(&format!(" {header}\n"));
            for _ in 0..1 + rng.below(3) {
                let word = word(rng).replace(['\n', '\u{85}', '\u{2028}'], "");
                out.push_str(&format!("{pad}{word}\n"));
            }
        }
        3 => {
            out.push('\n');
            block_node(rng, indent + 2, depth + 1, out, false);
        }
        _ => {
            out.push('\n');
            block_node(rng, indent + 2, depth + 1, out, true);
        }
    }
    if rng.chance(5) {
        out.push_str(&format!("{pad}# {}\n", word(rng)));
    }
}

fn block_node(rng: &mut Rng, indent: usize, depth: usize, out: &mut String, map: bool) {
    let pad = " ".repeat(indent);
    for _ in 0..1 + rng.below(4) {
        if map {
            out.push_str(&format!("{pad}{}:", flow_scalar(rng)));
        } else {
            out.push_str(&format!("{pad}-"));
        }
        block_value(rng, indent, depth, out);
    }
}

fn document(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for n in 0..1 + rng.below(3) {
        if n > 0 || rng.chance(20) {
            out.push_str("---\n");
        }
        match rng.below(5) {
            0 => out.push_str(&format!("{}\n", flow_node(rng, 0))),
            1 => block_node(rng, 0, 0, &mut out, false),
            _ => block_node(rng, 0, 0, &mut out, true),
        }
        if rng.chance(10) {
            out.push_str("...\n");
        }
    }
    let mut bytes = out.into_bytes();
    if rng.chance(5) {
        bytes.splice(0..0, utf8gate_codec::UTF8_BOM);
    }
    bytes
}

/// Hand cases: every scalar style, escapes, streams, flow and block, anchors.
const HAND: &[&str] = &[
    "plain: one two\n'single': 'it''s'\n\"double\": \"a\\tb\\x41\\u00e9\\N\\_\\L\\P\"\n",
    "lit: |\n  x\n  y\nfold: >\n  p\n  q\n\n  r\nkeep: |+\n  k\n\nstrip: >-\n  s\n",
    "--- a\n--- [b, {c: d}]\n...\n--- \"e\\\n  f\"\n",
    "a: &x v\nb: *x\n",
    "a: &x {b: c}\nd: {<<: *x, e: f}\n",
    "a: \"\\0\"\nb: \"\\x00\"\nc: \"\\ud800\"\n",
    "a: !!binary aGk=\nb: !!python/str x\n",
    "? [complex, key]\n: value\n",
    "a:\n  - b\n  -   - c\n      - d\n  - e: f\n    g: h\n",
    "\u{feff}k: Καλημέρα κόσμε\nj: こんにちは世界\nar: مرحبا بالعالم\ne: \"🎉\"\n",
    "a: 1\na: 2\n",
    "{a: 1, \"a\": 2}",
    "a: b\t# tab before a comment\nc: 'multi\n  line'\n",
    "x: \"\\ud83d\\ude00\"\n",
    "k: \"a\\/b\"\n",
];

/// The texts of utf8gate's YAML fields of `body`.
fn our_strings(body: &[u8]) -> HashSet<Vec<u8>> {
    let request = Request::new("POST", b"/")
        .header("Content-Type", b"application/yaml")
        .body(body);
    read_fields(&Profile::strict(), &request)
        .into_iter()
        .filter(|(l, _)| matches!(l.part, Part::YamlKey | Part::YamlString))
        .map(|(_, bytes)| bytes)
        .collect()
}

#[test]
fn what_the_default_profile_allows_every_python_parser_reads_as_utf8gate_does() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let mut rng = Rng(0x0059_A41E_D0C5_7EA3);
    let mut cases: Vec<Vec<u8>> = HAND.iter().map(|s| s.as_bytes().to_vec()).collect();
    cases.extend((0..4000).map(|_| document(&mut rng)));
    let input = json!({"cases": cases.iter().map(|b| json!({"body": b64(b)})).collect::<Vec<_>>()});
    let readings = run_readers(&py, "yaml_readers.py", &input);
    let parsers: Vec<String> = serde_json::from_value(readings["parsers"].clone()).unwrap();
    assert!(parsers.len() >= 2, "{parsers:?}");
    let (mut allowed, mut compared, mut refused_by_python) = (0, 0, 0);
    let mut differences = Vec::new();
    for (body, result) in cases.iter().zip(readings["results"].as_array().unwrap()) {
        let request = Request::new("POST", b"/")
            .header("Content-Type", b"application/yaml")
            .body(body);
        let verdict = evaluate(&Profile::strict(), &request).verdict;
        if verdict.decision == Decision::Reject {
            continue;
        }
        allowed += 1;
        let ours = our_strings(body);
        for parser in &parsers {
            let Some(strings) = result[parser]["strings"].as_array() else {
                refused_by_python += 1;
                continue;
            };
            compared += 1;
            for s in strings {
                let theirs = unb64(s.as_str().unwrap());
                if !ours.contains(&theirs) {
                    let text = String::from_utf8_lossy(body).into_owned();
                    differences.push((
                        parser.clone(),
                        text,
                        String::from_utf8_lossy(&theirs).into_owned(),
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} documents, {allowed} allowed, {compared} readings compared, {refused_by_python} refused by a parser",
        cases.len()
    );
    assert!(
        allowed > 800 && compared > 2000,
        "too few documents compared"
    );
    let shown: Vec<_> = differences.iter().take(10).collect();
    assert!(
        differences.is_empty(),
        "{} strings no field holds: {shown:#?}",
        differences.len()
    );
}
