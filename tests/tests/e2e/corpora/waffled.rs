//! WAFFLED (Akhavani et al., ACSAC 2025): JSON and multipart requests that cloud WAFs missed
//! while Flask, FastAPI, Spring, Express, Gin or Laravel parsed them, each replayed with its XSS or
//! SQL marker replaced by a UTF-8 attack that only appears after the backend's decoding (refused);
//! and the valid multipart requests of the authors' normalizer, forwarded byte for byte.

use super::pybytes::literals;
use super::*;

/// The two attack markers of the WAFFLED bypass database.
const MARKERS: [&[u8]; 2] = [b"<script>alert(document.cookie)</script>", b"' and 1=1 --"];

/// In a JSON string: the escape a JSON parser turns into NUL.
const JSON_ATTACK: &[u8] = br"\u0000";
/// In a multipart field: an overlong `..` and a slash, raw.
const MULTIPART_ATTACK: &[u8] = b"\xC0\xAE\xC0\xAE/";

/// The one marker of `request`'s body.
fn marker_of(request: &[u8]) -> &'static [u8] {
    let (_, body) = split(request);
    let found: Vec<_> = MARKERS
        .into_iter()
        .filter(|m| find(body, m).is_some())
        .collect();
    assert_eq!(found.len(), 1, "{}", String::from_utf8_lossy(request));
    found[0]
}

/// How a request differs from a plain one, for the failure list: its request line and the head
/// lines that are not the usual ones, escaped.
fn shape(request: &[u8]) -> String {
    let (head, _) = split(request);
    let usual = [
        "host:",
        "connection:",
        "user-agent:",
        "x-request-id:",
        "content-length:",
        "x-format-output:",
        "x-crs-",
        "x-backend:",
    ];
    let lines: Vec<String> = head
        .split(|&b| b == b'\n')
        .map(|l| l.escape_ascii().to_string().replace("\\r", ""))
        .filter(|l| !usual.iter().any(|u| l.to_ascii_lowercase().starts_with(u)))
        .collect();
    lines.join(" | ")
}

async fn bypasses(file: &str, corpus_name: &str, attack: &[u8], count: usize) {
    let Some(dir) = corpus("waffled") else { return };
    let requests = literals(&read(&dir, file));
    assert_eq!(requests.len(), count, "{file}: the corpus changed");
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new(corpus_name);
    for (i, original) in requests.iter().enumerate() {
        let sent = substitute(original, marker_of(original), attack);
        let got = replay(&gw, &upstream, &sent, false, Wait::First).await;
        let (_, body) = split(&sent);
        let shape = format!("{}; body {}", shape(&sent), body.escape_ascii());
        tally.check(
            &format!("#{}", i + 1),
            &shape,
            "refused",
            got.refused(),
            &got,
        );
    }
    tally.finish();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waffled_json_bypasses_carrying_an_escaped_nul_are_refused() {
    bypasses("json_requests.raw", "waffled json", JSON_ATTACK, 9).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waffled_multipart_bypasses_carrying_an_overlong_are_refused() {
    bypasses(
        "multipart_requests.raw",
        "waffled multipart",
        MULTIPART_ATTACK,
        11,
    )
    .await;
}

/// WAFFLED's seven XML bypasses (entities, comments, junk after the root, the type in the
/// body), each marker replaced by a raw overlong `..`: refused, whatever reads the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waffled_xml_bypasses_carrying_an_overlong_are_refused() {
    bypasses("xml_requests.raw", "waffled xml", MULTIPART_ATTACK, 7).await;
}

/// The request (1-based) whose `Content-Type` line is inside its body: it has no type, and its
/// body is not XML from its first byte, so no XML parser reads the reference in it.
const TYPE_IN_BODY: usize = 4;

/// The same bypasses carrying `&#0;`, which an XML parser decodes into a NUL: refused wherever
/// the body is read as XML (every one but [`TYPE_IN_BODY`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waffled_xml_bypasses_carrying_a_nul_reference_are_refused() {
    let Some(dir) = corpus("waffled") else { return };
    let requests = literals(&read(&dir, "xml_requests.raw"));
    assert_eq!(requests.len(), 7, "the corpus changed");
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new("waffled xml references");
    for (i, original) in requests.iter().enumerate() {
        let sent = substitute(original, marker_of(original), b"&#0;");
        let got = replay(&gw, &upstream, &sent, false, Wait::First).await;
        if i + 1 == TYPE_IN_BODY {
            assert!(!got.refused(), "#{TYPE_IN_BODY} is no XML: {got:?}");
            continue;
        }
        let (_, body) = split(&sent);
        let shape = format!("{}; body {}", shape(&sent), body.escape_ascii());
        tally.check(
            &format!("#{}", i + 1),
            &shape,
            "refused",
            got.refused(),
            &got,
        );
    }
    tally.finish();
}

/// The 12th request (1-based) is cut short in the source: 142 of its 186 declared body bytes
/// (pillarjs/multiparty's "issue 36" body without its last 44 bytes).
const CUT_SHORT: usize = 12;
/// The 16th carries a part header line `:` (an empty field name), which no strict reader takes.
const EMPTY_PART_HEADER_NAME: usize = 16;

/// The valid multipart requests (Tornado, MDN, RStudio, Stack Overflow, W3C, multiparty; 16 in
/// the source, whose README says 17) go through unchanged: the upstream gets exactly the method,
/// target, `Content-Type` and body bytes (de-chunked when sent chunked). Two are malformed and
/// refused: the one cut short (sent whole, then the write side is shut: a strict reader sees the
/// body end early), and the one with an empty part header name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waffled_valid_multipart_requests_are_forwarded_byte_for_byte() {
    let Some(dir) = corpus("waffled") else { return };
    let requests = literals(&read(&dir, "valid_form_data.benign.txt"));
    assert_eq!(requests.len(), 16, "the corpus changed");
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new("waffled valid multipart");
    for (i, sent) in requests.iter().enumerate() {
        let n = i + 1;
        let id = format!("#{n}");
        let (head, body) = split(sent);
        let head_text = String::from_utf8_lossy(head).to_ascii_lowercase();
        let chunked = head_text.contains("transfer-encoding: chunked");
        let shape = format!(
            "{} {}-byte body{}",
            shape(sent),
            body.len(),
            if chunked { ", chunked" } else { "" }
        );
        if n == CUT_SHORT || n == EMPTY_PART_HEADER_NAME {
            let got = replay(&gw, &upstream, sent, n == CUT_SHORT, Wait::First).await;
            tally.check(&id, &shape, "refused", got.refused(), &got);
            continue;
        }
        let got = replay(&gw, &upstream, sent, false, Wait::First).await;
        let (method, target) = request_line(sent);
        let want_body = if chunked {
            dechunk(body)
        } else {
            body.to_vec()
        };
        let content_type = head
            .split(|&b| b == b'\n')
            .find(|l| l.to_ascii_lowercase().starts_with(b"content-type:"))
            .map(|l| l[13..].trim_ascii().to_vec());
        let ok = got.responses.first() == Some(&(200, true))
            && got.received.len() == 1
            && got.received[0].method == method
            && got.received[0].target == target
            && got.received[0].body == want_body
            && got.received[0].header("content-type").map(<[u8]>::to_vec) == content_type;
        tally.check(&id, &shape, "forwarded byte for byte", ok, &got);
    }
    tally.finish();
}
