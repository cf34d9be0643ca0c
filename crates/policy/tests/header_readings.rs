//! Headers as backends read them: the same payload gets the same decision in a query value and
//! in every header reading that a backend percent-decodes (cookies, the query of a URL-valued or
//! path-override header, RFC 8187 parameters), and in the request path and the path of those
//! headers.

use utf8gate_policy::{Decision, Part, Profile, Request, evaluate};

/// Percent-encoded payloads: NUL, C0 and C1 controls, an overlong slash, a CESU-8 pair, a lone
/// surrogate, a bidi override, a fullwidth solidus, traversal, double and IIS encoding, and
/// clean text.
const PAYLOADS: &[&str] = &[
    "%00",
    "a%01b",
    "%1b%5b31m",
    "%c2%85",
    "..%c0%af..%c0%afetc",
    "%ed%a0%bd%ed%b8%80",
    "%ed%a0%80",
    "%e2%80%aeexe.txt",
    "1%ef%bc%8f2",
    "%252e%252e%252f",
    "%u002e%u002e",
    "Gr%C3%BC%C3%9Fe%20%E5%B1%B1%E7%94%B0",
];

fn decision(request: &Request) -> Decision {
    evaluate(&Profile::strict(), request).verdict.decision
}

fn with_header(name: &str, value: String) -> Request {
    Request::new("GET", b"/").header(name, value.as_bytes())
}

#[test]
fn query_readings_of_headers_decide_like_a_query_value() {
    for p in PAYLOADS {
        let expected = decision(&Request::new("GET", format!("/?q={p}").as_bytes()));
        let families = [
            (
                "cookie value",
                with_header("Cookie", format!("sid=abc; q={p}")),
            ),
            (
                "quoted cookie value",
                with_header("Cookie", format!("q=\"{p}\"")),
            ),
            ("cookie name", with_header("Cookie", format!("{p}=1"))),
            (
                "referer query",
                with_header("Referer", format!("https://shop.example/a?q={p}")),
            ),
            (
                "origin-less query",
                with_header("X-Original-URL", format!("/a?q={p}")),
            ),
            (
                "rewrite query",
                with_header("X-Rewrite-URL", format!("/a?x=1&q={p}")),
            ),
            (
                "extended parameter",
                with_header("Link", format!("</a>; rel=next; title*=UTF-8''{p}")),
            ),
        ];
        for (family, request) in families {
            assert_eq!(decision(&request), expected, "{family}: {p}");
        }
    }
}

#[test]
fn path_readings_of_headers_decide_like_the_path() {
    for p in PAYLOADS {
        let expected = decision(&Request::new("GET", format!("/a/{p}/b").as_bytes()));
        for (family, request) in [
            (
                "referer path",
                with_header("Referer", format!("https://shop.example/a/{p}/b")),
            ),
            (
                "x-original-url",
                with_header("X-Original-URL", format!("/a/{p}/b")),
            ),
            (
                "x-forwarded-prefix",
                with_header("X-Forwarded-Prefix", format!("/a/{p}/b")),
            ),
        ] {
            assert_eq!(decision(&request), expected, "{family}: {p}");
        }
    }
    // The authority of a URL-valued header is a host like `Host`.
    for origin in ["http://x%00", "https://ex%61mple.com", "http://a b"] {
        assert_eq!(
            decision(&with_header("Origin", origin.into())),
            Decision::Reject,
            "{origin}"
        );
    }
    assert_eq!(
        decision(&with_header(
            "Origin",
            "https://xn--bcher-kva.example:8443".into()
        )),
        Decision::Allow
    );
    // A servlet path parameter hides a dot-segment in a path-override header too.
    assert_eq!(
        decision(&with_header("X-Original-URL", "/a/..;/admin".into())),
        Decision::Reject
    );
}

#[test]
fn findings_name_the_header_reading() {
    let e = evaluate(&Profile::strict(), &with_header("Cookie", "q=%00".into()));
    let f = e
        .verdict
        .findings
        .iter()
        .find(|f| f.kind.as_str() == "nul")
        .unwrap();
    assert_eq!(f.location.part, Part::CookieValue);
    assert_eq!(f.location.name.as_deref(), Some("q"));
    let e = evaluate(
        &Profile::strict(),
        &with_header("Referer", "https://a.example/%c0%af".into()),
    );
    assert!(
        e.verdict
            .findings
            .iter()
            .any(|f| f.location.part == Part::UrlPath)
    );
}

#[test]
fn realistic_headers_pass_untouched() {
    let texts = [
        "Grüße",
        "山田太郎",
        "Мария",
        "Αλέξανδρος",
        "Đặng",
        "مرحبا",
        "שלום",
        "नमस्ते",
        "ภาษาไทย",
        "한국어",
        "Zoë",
        "👍🏽",
    ];
    for text in texts {
        let pct: String = text.bytes().map(|b| format!("%{b:02X}")).collect();
        let request = Request::new("GET", b"/")
            .header("Host", b"shop.example")
            .header("Cookie", format!("session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig+/=; prefs={{\"theme\":\"dark\"}}; name={pct}; _ga=GA1.2.3.4").as_bytes())
            .header("Referer", format!("https://shop.example/wiki/{pct}?q={pct}&page=2#top").as_bytes())
            .header("Origin", b"https://shop.example")
            .header("Content-Disposition", format!("attachment; filename=\"a.txt\"; filename*=UTF-8''{pct}.txt").as_bytes());
        let e = evaluate(&Profile::strict(), &request);
        assert_eq!(
            e.verdict.decision,
            Decision::Allow,
            "{text}: {:?}",
            e.verdict.findings
        );
        assert!(
            e.verdict.findings.is_empty(),
            "{text}: {:?}",
            e.verdict.findings
        );
    }
}

/// The cookies of every `Cookie` line are one list (HTTP/2 splits it into crumbs): at most
/// `max_parameters` of them in all are read, past that one `limit_exceeded`, however the lines
/// share them; a cookie past the limit is not read.
#[test]
fn cookies_are_limited_across_their_lines() {
    let max = Profile::strict().limits.max_parameters;
    let line = |n: usize, last: &str| {
        let mut pairs: Vec<String> = (0..n).map(|i| format!("c{i}=v")).collect();
        pairs.push(last.to_string());
        pairs.join("; ")
    };
    for lines in [1, 2, 3, 7] {
        for total in [max - 10, max, max + 1, 3 * max] {
            let mut request = Request::new("GET", b"/");
            let per_line = total.div_ceil(lines);
            let mut left = total;
            while left > 0 {
                let n = per_line.min(left);
                left -= n;
                // Each line's last cookie holds a NUL unless the limit cut it off.
                request = request.header("Cookie", line(n - 1, "z=%00").as_bytes());
            }
            let v = evaluate(&Profile::strict(), &request).verdict;
            let limits = v.counts.get("limit_exceeded").copied().unwrap_or(0);
            assert_eq!(
                limits,
                u64::from(total > max),
                "{lines} lines, {total} cookies"
            );
            let nuls = v.counts.get("nul").copied().unwrap_or(0);
            // Where each line's cookies end, counted over the request.
            let ends = (1..=total.div_ceil(per_line)).map(|k| (k * per_line).min(total));
            let expected = ends.filter(|&end| end <= max).count() as u64;
            assert_eq!(nuls, expected, "{lines} lines, {total} cookies");
        }
    }
}
