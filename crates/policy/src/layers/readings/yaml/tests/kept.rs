//! A stream whose scalars are kept and one read again scalar by scalar as it is checked get the
//! same evaluation: generated streams of one or several documents, block and flow
//! collections, plain, quoted and escaped scalars whose text hits each check, as a body and as
//! a multipart part, under the strict and lossy profiles.

use proptest::prelude::*;

use super::KEEP_NONE;
use crate::profile::Profile;
use crate::request::Request;
use crate::{Evaluation, evaluate};

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

/// `evaluate`, with every stream's scalars kept as their budget allows, or none kept.
fn evaluation(profile: &Profile, request: &Request, keep: bool) -> Evaluation {
    KEEP_NONE.set(!keep);
    let e = evaluate(profile, request);
    KEEP_NONE.set(false);
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn a_stream_read_again_evaluates_as_one_kept(
        documents in prop::collection::vec(arb_document(), 1..4),
        part in any::<bool>(),
    ) {
        let stream = documents.join("---\n");
        let (content_type, body) = match part {
            false => ("application/yaml".to_string(), stream.into_bytes()),
            true => (
                "multipart/form-data; boundary=b".to_string(),
                format!(
                    "--b\r\nContent-Disposition: form-data; name=\"x\"\r\nContent-Type: \
                     application/yaml\r\n\r\n{stream}\r\n--b--\r\n"
                )
                .into_bytes(),
            ),
        };
        let request = Request::new("POST", b"/api")
            .header("Content-Type", content_type.as_bytes())
            .body(&body);
        for profile in [Profile::strict(), Profile::lossy()] {
            let kept = evaluation(&profile, &request, true);
            let read_again = evaluation(&profile, &request, false);
            prop_assert_eq!(&kept, &read_again, "{}", String::from_utf8_lossy(&body));
        }
    }
}
