//! A document whose fields are kept and one read again field by field as it is checked get
//! the same evaluation: generated documents of names, attributes, text, references, CDATA,
//! comments and processing instructions, whose text hits each check, as a typed body, an
//! untyped one (a second reading) and a multipart part, under the strict and lossy profiles.

use proptest::prelude::*;

use super::KEEP_NONE;
use crate::profile::Profile;
use crate::request::Request;
use crate::{Evaluation, evaluate};

/// Text pieces: clean text of several scripts, references, and what each check reports.
const TEXT: &[&str] = &[
    "abc", "déjà", "我能", "e\u{301}", "\u{202e}", "&#0;", "&#xD800;", "&amp;", "&#x41;", "&lt;",
    "\u{ff0e}", "..", "%2e", "\u{feff}", "\u{85}", " ",
];

/// Element and attribute names (some not in NFC).
const NAMES: &[&str] = &["a", "b", "cafe\u{301}", "x-y", "日本"];

/// One piece of content: text, an element with attributes and content, CDATA, a comment or a
/// processing instruction.
fn arb_content() -> impl Strategy<Value = String> {
    let text = prop::collection::vec(prop::sample::select(TEXT), 1..4).prop_map(|t| t.concat());
    let leaf = prop_oneof![
        4 => text.clone(),
        1 => text.clone().prop_map(|t| format!("<![CDATA[{}]]>", t.replace('&', "+"))),
        1 => text.clone().prop_map(|t| format!("<!--{}-->", t.replace('&', "+"))),
        1 => text.prop_map(|t| format!("<?pi {}?>", t.replace('&', "+"))),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        let attribute = (prop::sample::select(NAMES), prop::sample::select(TEXT));
        (
            prop::sample::select(NAMES),
            prop::collection::vec(attribute, 0..3),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(name, attributes, content)| {
                let mut seen = std::collections::HashSet::new();
                let attributes: String = attributes
                    .into_iter()
                    .filter(|(n, _)| seen.insert(*n))
                    .map(|(n, v)| format!(" {n}='{v}'"))
                    .collect();
                format!("<{name}{attributes}>{}</{name}>", content.concat())
            })
    })
}

/// `evaluate`, with every document's fields kept as their budget allows, or none kept.
fn evaluation(profile: &Profile, request: &Request, keep: bool) -> Evaluation {
    KEEP_NONE.set(!keep);
    let e = evaluate(profile, request);
    KEEP_NONE.set(false);
    e
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn a_document_read_again_evaluates_as_one_kept(
        content in prop::collection::vec(arb_content(), 0..4),
        way in 0..3u8,
    ) {
        let doc = format!("<?xml version='1.0'?><r>{}</r>", content.concat());
        let (content_type, body) = match way {
            0 => ("application/xml".to_string(), doc.into_bytes()),
            1 => ("text/plain".to_string(), doc.into_bytes()),
            _ => (
                "multipart/form-data; boundary=b".to_string(),
                format!(
                    "--b\r\nContent-Disposition: form-data; name=\"x\"\r\nContent-Type: \
                     application/xml\r\n\r\n{doc}\r\n--b--\r\n"
                )
                .into_bytes(),
            ),
        };
        let request = Request::new("POST", b"/soap")
            .header("Content-Type", content_type.as_bytes())
            .body(&body);
        for profile in [Profile::strict(), Profile::lossy()] {
            let kept = evaluation(&profile, &request, true);
            let read_again = evaluation(&profile, &request, false);
            prop_assert_eq!(&kept, &read_again, "{}", String::from_utf8_lossy(&body));
        }
    }
}
