//! A document whose fields are kept and one read again field by field as it is checked get
//! the same evaluation: generated documents of names, attributes, text, references, CDATA,
//! comments and processing instructions, whose text hits each check, as a typed body, an
//! untyped one (a second reading) and a multipart part, under the strict and lossy profiles.

use proptest::prelude::*;

use crate::test_support::kept_and_read_again_agree;

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn a_document_read_again_evaluates_as_one_kept(
        content in prop::collection::vec(arb_content(), 0..4),
    ) {
        let doc = format!("<?xml version='1.0'?><r>{}</r>", content.concat());
        kept_and_read_again_agree(&doc, &["application/xml", "text/plain"], "application/xml")?;
    }
}
