use axum::http::StatusCode;
use proptest::prelude::*;

use super::*;
use crate::problem::kind::ProblemKind;

const HOSTILE: &str = "<script>alert(\"x\")</script>&amp;'\u{202e}\u{fffd}\u{200b}\u{0}";

/// The text of `html` with the character references [`escape_into`] writes read back.
fn unescape(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn hostile_text_is_inert_and_visible() {
    let mut out = String::new();
    escape_into(&mut out, HOSTILE);
    assert_eq!(
        out,
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;&#39;U+202E\u{fffd}U+200BU+0000"
    );
    assert_eq!(
        unescape(&out),
        "<script>alert(\"x\")</script>&amp;'U+202E\u{fffd}U+200BU+0000"
    );
}

#[test]
fn the_page_has_only_its_own_markup() {
    let mut problem = Problem::new(ProblemKind::UnknownProfile, HOSTILE);
    problem.status = StatusCode::BAD_REQUEST;
    for detail in [Detail::Full, Detail::Minimal] {
        let html = page(&problem, "Unknown profile", HOSTILE, detail);
        // Every tag is one of the page's own.
        let tags: Vec<&str> = html
            .split('<')
            .skip(1)
            .map(|t| t.split(['>', ' ']).next().unwrap_or(""))
            .collect();
        let own = [
            "!DOCTYPE", "html", "head", "meta", "title", "/title", "style", "/style", "/head",
            "body", "main", "h1", "/h1", "p", "/p", "ul", "/ul", "li", "/li", "code", "/code",
            "/main", "/body", "/html",
        ];
        for tag in &tags {
            assert!(own.contains(tag), "{tag} in {html}");
        }
        assert!(!html.contains('\u{202e}'));
        assert!(html.contains("<html lang=\"en\">") && html.contains("<meta charset=\"utf-8\">"));
        assert!(html.contains("<title>400 Unknown profile</title>"));
        let id = "<code id=\"request-id\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;";
        assert!(html.contains(id), "{html}");
        assert_eq!(html.contains("id=\"detail\""), detail == Detail::Full);
        assert!(html.contains("alert(&quot;x&quot;)&lt;/script&gt;&amp;amp;&#39;U+202E"));
    }
}

#[test]
fn details_read_as_sentences() {
    assert_eq!(
        as_sentence("the body exceeds 10 bytes"),
        "The body exceeds 10 bytes."
    );
    assert_eq!(as_sentence("done."), "Done.");
    assert_eq!(as_sentence(""), "No detail.");
}

proptest! {
    #[test]
    fn escaped_text_has_no_markup_and_reads_back(text in any::<String>()) {
        let mut out = String::new();
        escape_into(&mut out, &text);
        prop_assert!(!out.contains(['<', '>', '"', '\'']));
        prop_assert!(!out.chars().any(shown_as_code_point));
        // Reading the references back gives the text, with hidden characters as code points.
        let mut visible = String::new();
        for c in text.chars() {
            if shown_as_code_point(c) {
                visible.push_str(&format!("U+{:04X}", u32::from(c)));
            } else {
                visible.push(c);
            }
        }
        prop_assert_eq!(unescape(&out), visible);
    }
}
