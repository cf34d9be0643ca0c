//! Requests that carry a second charset (`charset=ibm037`, two `charset` parameters,
//! `x-up-devcap-post-charset`, a multipart `_charset_` field, BOM-less UTF-16 JSON, XML declaring
//! UTF-16 or UTF-7): each is read one way by utf8gate and another by some backend, so each is
//! refused, here with its marker replaced by a UTF-8 attack that appears after the backend's
//! decoding (the two XML requests are sent as published: XML is a later issue).

use super::pybytes::literals;
use super::*;

/// `<script>` in code pages 037 and 500 (the same bytes for these characters), percent-encoded.
const EBCDIC_SCRIPT: &[u8] = b"L%A2%83%99%89%97%A3n";
/// A percent-encoded overlong `..` and a slash, for a form value.
const FORM_ATTACK: &[u8] = b"%C0%AE%C0%AE%2F";

/// UTF-16LE of `text`.
fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// The marker of each named request and what replaces it; `None`: sent as published.
fn substitution(name: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    let pair = |m: &[u8], w: &[u8]| Some((m.to_vec(), w.to_vec()));
    match name {
        "ibm037-urlencoded" | "x-up-devcap-post-charset" => pair(EBCDIC_SCRIPT, FORM_ATTACK),
        // UTF-7 for `'or'1'--`.
        "json-duplicate-charset-utf7" => pair(b"+ACcAbwByACcAMQAnAC0ALQ", br"\u0000"),
        "multipart-_charset_-field" => pair(b"<script>", b"\xC0\xAE\xC0\xAE/"),
        "json-utf16le-no-bom-no-charset" => Some((utf16le("' or 1=1--"), utf16le(r"\u0000"))),
        "xml-utf16-bom-declared" | "xml-utf7-declared" => None,
        other => panic!("a new charset channel: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_with_a_second_charset_are_refused() {
    let Some(dir) = corpus("charset-channels") else {
        return;
    };
    let text = read(&dir, "requests.raw");
    // Each request follows a comment line `# name | sources`.
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .map(|l| l.split(" | ").next().unwrap_or_default().trim())
        .collect();
    let requests = literals(&text);
    assert_eq!(names.len(), 7, "the corpus changed");
    assert_eq!(requests.len(), names.len());
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new("charset channels");
    for (name, original) in names.iter().zip(&requests) {
        let sent = match substitution(name) {
            Some((marker, with)) => substitute(original, &marker, &with),
            None => original.clone(),
        };
        let got = replay(&gw, &upstream, &sent, false, Wait::First).await;
        let (head, body) = split(&sent);
        let head = head.escape_ascii().to_string().replace("\\r\\n", " | ");
        let shape = format!("{head}; body {}", body.escape_ascii());
        tally.check(name, &shape, "refused", got.refused(), &got);
    }
    tally.finish();
}
