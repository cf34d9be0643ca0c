use proptest::prelude::*;

use super::*;

fn one(accept: &str) -> Format {
    negotiate([accept.as_bytes()])
}

const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const CHROME: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                      image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

#[test]
fn browsers_get_html_and_programs_get_problem_json() {
    assert_eq!(one(FIREFOX), Format::Html);
    assert_eq!(one(CHROME), Format::Html);
    // curl, fetch() and XMLHttpRequest send */*; API clients name JSON.
    for program in [
        "*/*",
        "application/json",
        "application/problem+json",
        "application/*",
    ] {
        assert_eq!(one(program), Format::Json, "{program}");
    }
    // No Accept at all: any media type.
    assert_eq!(negotiate(std::iter::empty()), Format::Json);
    assert_eq!(one(""), Format::Json);
}

#[test]
fn html_only_when_strictly_preferred() {
    let cases = [
        ("text/html", Format::Html),
        ("text/*", Format::Html),
        ("TEXT/HTML", Format::Html),
        ("text/html;charset=UTF-8", Format::Html),
        ("text/html; charset=\"utf-8\"", Format::Html),
        // A tie goes to problem+json.
        ("text/html, application/problem+json", Format::Json),
        ("text/html, application/json", Format::Json),
        ("text/html;q=0.5, */*;q=0.5", Format::Json),
        // Weights.
        ("application/json;q=0.9, text/html", Format::Html),
        ("application/json;q=0, text/html;q=0.001", Format::Html),
        ("text/html;q=0.5, application/json;q=0.4", Format::Html),
        // problem+json through */*.
        (
            "text/html;q=0.5, application/json;q=0.4, */*;q=1",
            Format::Json,
        ),
        ("text/html;q=0.5, */*", Format::Json),
        // q=0: not acceptable, whatever a wider range says.
        ("text/html;q=0", Format::Json),
        ("text/html;q=0, */*", Format::Json),
        ("*/*;q=0.1, text/html;q=0", Format::Json),
        ("text/html;q=0.000", Format::Json),
        // The most specific range counts, not the order.
        (
            "*/*;q=0.1, text/*;q=0.2, text/html;q=0.9, application/*;q=0.5",
            Format::Html,
        ),
        (
            "text/html;q=0.3, text/*;q=1, application/json;q=0.4",
            Format::Json,
        ),
        // Of equally specific ranges, the first.
        (
            "text/html;q=0.9, text/html;q=0.1, application/json;q=0.5",
            Format::Html,
        ),
        // A representation we do not have (a parameter other than charset=utf-8).
        ("text/html;level=1", Format::Json),
        ("text/html;charset=latin1", Format::Json),
        ("text/html;q=1;level=1", Format::Html),
        // Malformed ranges are skipped.
        ("text/html;q=1.5", Format::Json),
        ("text/html;q=0.1234", Format::Json),
        ("text/html;q=", Format::Json),
        ("text/html;q=.5", Format::Json),
        ("text/html;foo", Format::Json),
        ("*/html", Format::Json),
        ("text/", Format::Json),
        ("html", Format::Json),
        ("text /html", Format::Json),
        ("text/html;q=1.", Format::Html),
        ("text/html;q=1.000", Format::Html),
        ("text/html ;q=0.7 , application/json ; q=0.6", Format::Html),
        ("\ttext/html\t", Format::Html),
        // Commas inside a quoted parameter do not split the range.
        (
            "text/html;a=\"x,*/*\", application/json;q=0.1",
            Format::Json,
        ),
        (
            "application/json;q=0.1, text/html;a=\"x\\\",text/html\"",
            Format::Json,
        ),
        ("text/plain;a=\"x,text/html\"", Format::Json),
        (",,text/html,,", Format::Html),
    ];
    for (accept, expected) in cases {
        assert_eq!(one(accept), expected, "{accept:?}");
    }
}

#[test]
fn weights_read_as_rfc_9110_qvalues() {
    let cases: [(&str, Option<u16>); 12] = [
        ("0", Some(0)),
        ("0.", Some(0)),
        ("0.5", Some(500)),
        ("0.05", Some(50)),
        ("0.005", Some(5)),
        ("0.999", Some(999)),
        ("1", Some(1000)),
        ("1.0", Some(1000)),
        ("1.001", None),
        ("2", None),
        ("0.5x", None),
        ("-0", None),
    ];
    for (text, expected) in cases {
        assert_eq!(weight(text.as_bytes()), expected, "{text}");
    }
}

#[test]
fn several_fields_read_as_one_list() {
    assert_eq!(
        negotiate([&b"application/json"[..], b"text/html"]),
        Format::Json
    );
    assert_eq!(negotiate([&b"*/*;q=0.5"[..], b"text/html"]), Format::Html);
}

#[test]
fn ranges_after_the_cap_are_not_read() {
    let junk = |n: usize| vec!["image/png"; n].join(",");
    assert_eq!(
        one(&format!("{},text/html", junk(MAX_ACCEPT_RANGES - 1))),
        Format::Html
    );
    assert_eq!(
        one(&format!("{},text/html", junk(MAX_ACCEPT_RANGES))),
        Format::Json
    );
    // The cap counts over every field.
    let first = junk(MAX_ACCEPT_RANGES);
    assert_eq!(negotiate([first.as_bytes(), b"text/html"]), Format::Json);
}

/// Accept values built from the pieces that matter, and any bytes.
fn accept_value() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        "text/html",
        "text/*",
        "*/*",
        "application/json",
        "application/problem+json",
        ";q=0",
        ";q=0.5",
        ";q=1",
        ";q=1.5",
        ";level=1",
        ";charset=utf-8",
        ",",
        ", ",
        "\"",
        "\\",
        "/",
        ";",
        "=",
        " ",
        "\t",
        "x",
    ]);
    prop_oneof![
        prop::collection::vec(piece, 0..24).prop_map(|p| p.concat().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..96),
    ]
}

proptest! {
    #[test]
    fn any_bytes_are_read_without_panicking(value in accept_value()) {
        let format = negotiate([value.as_slice()]);
        // HTML needs a text/html or text/* range.
        let lowered = value.to_ascii_lowercase();
        if format == Format::Html {
            prop_assert!(lowered.windows(5).any(|w| w == b"text/"), "{:?}", String::from_utf8_lossy(&value));
        }
    }

    #[test]
    fn two_fields_read_as_their_values_joined(a in accept_value(), b in accept_value()) {
        // Joining is the same list unless a quote left open in `a` swallows the comma.
        prop_assume!(!a.contains(&b'"'));
        let joined = [a.as_slice(), b",", b.as_slice()].concat();
        prop_assert_eq!(negotiate([a.as_slice(), b.as_slice()]), negotiate([joined.as_slice()]));
    }
}
