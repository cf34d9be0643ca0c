//! A stream whose scalars are kept and one read again scalar by scalar as it is checked get the
//! same evaluation: generated streams of one or several documents, block and flow
//! collections, plain, quoted and escaped scalars whose text hits each check, as a body and as
//! a multipart part, under the strict and lossy profiles.

use proptest::prelude::*;

use crate::test_support::kept_and_read_again_agree;

/// Scalars, each valid in every place it is put: plain, quoted, escaped; clean text of several
/// scripts and what each check reports.
const SCALARS: &[&str] = &[
    "abc",
    "déjà vu",
    "我能",
    "\"e\\u0301\"",
    "\"\\u202e\"",
    "'..'",
    "\"\\x00\"",
    "\"%2e%2e\"",
    "\u{ff0e}",
    "\"\\ud800\"",
    "'caf\u{e9}'",
    "\"a\\nb\"",
];

/// Keys (a repeat is `ambiguous_yaml`).
const KEYS: &[&str] = &["a", "b", "clé", "\"e\\u0301\""];

/// A node in block style at `indent`, or in flow style.
fn arb_node() -> impl Strategy<Value = String> {
    let scalar = prop::sample::select(SCALARS).prop_map(str::to_string);
    scalar.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..3).prop_map(|m| {
                let members: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    })
}

/// A document: a block mapping of flow nodes.
fn arb_document() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(KEYS), arb_node()), 1..4).prop_map(|m| {
        m.iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect::<String>()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn a_stream_read_again_evaluates_as_one_kept(
        documents in prop::collection::vec(arb_document(), 1..4),
    ) {
        let stream = documents.join("---\n");
        kept_and_read_again_agree(&stream, &["application/yaml"], "application/yaml")?;
    }
}
