//! PayloadsAllTheThings: directory traversal encodings in the request path (overlong and
//! malformed UTF-8, `%u`, double encoding, `..;`, `..././`): refused, or at least no traversal
//! reaches the upstream however it decodes the path; and the NFKC lookalike table: where a
//! payload's NFKC image adds ASCII syntax, in the path or the query, the `windows-backend` profile
//! refuses it and `strict` logs a lookalike (and forwards it unchanged, unless another check of
//! its own refuses it, as the traversal check does for `‥/`).

use utf8gate_e2e::Recorded;

use super::*;

/// What a single-character encoding of the table stands for, by its published form.
fn role(encoded: &str) -> char {
    match encoded {
        "%u002e" | "%c0%2e" | "%e0%40%ae" | "%c0ae" | "%252e" => '.',
        "%u2215" | "%c0%af" | "%e0%80%af" | "%c0%2f" | "%252f" => '/',
        "%u2216" | "%c0%5c" | "%c0%80%5c" | "%255c" => '\\',
        other => panic!("a new single-character encoding: {other}"),
    }
}

/// A path that climbs two levels with the table's payload.
fn traversal_path(group: &str, payload: &str) -> String {
    // "16bit" rows read `. = %u002e`.
    let encoded = payload.rsplit(" = ").next().unwrap_or(payload);
    match group {
        "16bit" | "utf8" | "double" => match role(encoded) {
            '.' => format!("/static/{e}{e}/{e}{e}/etc/passwd", e = encoded),
            sep => {
                let _ = sep;
                format!("/static/..{e}..{e}etc/passwd", e = encoded)
            }
        },
        _ => format!("/static/{payload}{payload}etc/passwd"),
    }
}

/// The target as a lenient backend might finally read it: percent escapes (`%XX`, `%uXXXX`)
/// decoded until nothing changes, overlong and malformed two- and three-byte sequences read by
/// their low bits (as IIS and lax decoders do), fullwidth and division dot and slashes folded.
fn lenient(target: &str) -> String {
    let mut bytes = target.as_bytes().to_vec();
    for _ in 0..4 {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let hex = |s: &[u8]| u32::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok();
            let rest = &bytes[i..];
            if rest.len() >= 6
                && rest[0] == b'%'
                && (rest[1] | 0x20) == b'u'
                && let Some(c) = hex(&rest[2..6]).and_then(char::from_u32)
            {
                out.extend_from_slice(c.to_string().as_bytes());
                i += 6;
            } else if rest.len() >= 3
                && rest[0] == b'%'
                && let Some(b) = hex(&rest[1..3])
            {
                out.push(b as u8);
                i += 3;
            } else {
                out.push(rest[0]);
                i += 1;
            }
        }
        bytes = out;
    }
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let low = |k: usize| u32::from(bytes.get(i + k).copied().unwrap_or(0) & 0x3F);
        let (c, n) = match b {
            0xC0 | 0xC1 => (((u32::from(b) & 0x1F) << 6) | low(1), 2),
            0xE0 => ((low(1) << 6) | low(2), 3),
            _ if b < 0x80 => (u32::from(b), 1),
            _ => (u32::from('\u{FFFD}'), 1),
        };
        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
        i += n;
    }
    out.replace(['\u{FF0E}', '\u{2024}'], ".")
        .replace(['\u{2215}', '\u{FF0F}'], "/")
        .replace(['\u{2216}', '\u{FF3C}'], "\\")
}

fn traversal_reached(received: &[Recorded]) -> bool {
    received.iter().any(|r| lenient(&r.target).contains(".."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn traversal_encodings_in_the_path_never_reach_the_upstream() {
    let Some(dir) = corpus("payloadsallthethings") else {
        return;
    };
    let text = read(&dir, "traversal_encodings.tsv");
    let rows: Vec<(&str, &str)> = (text.lines().skip(1))
        .filter_map(|l| l.split_once('\t'))
        .collect();
    assert_eq!(rows.len(), 25, "the corpus changed");
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new("payloadsallthethings traversal");
    for (group, payload) in rows {
        let path = traversal_path(group, payload);
        let sent = format!("GET {path} HTTP/1.1\r\nHost: e2e.test\r\nConnection: close\r\n\r\n");
        let got = replay(&gw, &upstream, sent.as_bytes(), false, Wait::First).await;
        let ok = got.refused() || !traversal_reached(&got.received);
        let id = format!("{group} {payload}");
        let expected = "refused, or no traversal in what the upstream got";
        tally.check(&id, &format!("GET {path}"), expected, ok, &got);
    }
    tally.finish();
}

/// Percent-encodes everything but unreserved characters and `/`.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// ASCII punctuation that `image` has more of than `payload`: the syntax NFKC adds.
fn added_syntax(payload: &str, image: &str) -> String {
    let count = |s: &str, c: char| s.chars().filter(|&x| x == c).count();
    let mut added: Vec<char> = image
        .chars()
        .filter(|c| c.is_ascii_punctuation() && count(image, *c) > count(payload, *c))
        .collect();
    added.dedup();
    added.into_iter().collect()
}

/// The 14 rows of the table: `nfkc_here` (Python's `unicodedata`) is the expectation; the
/// published column is wrong in two rows (U+3002 is not folded by NFKC, only by IDNA; `＜img
/// src=a＞` becomes `<img src=a>`). Ten rows add syntax. The other four fold to letters or not
/// at all; of those, U+3002 is tried where it does act, in `Host` (IDNA's label dot): refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nfkc_lookalikes_of_syntax_are_refused_by_windows_backend_and_logged_by_strict() {
    let Some(dir) = corpus("payloadsallthethings") else {
        return;
    };
    let text = read(&dir, "nfkc_table.tsv");
    let rows: Vec<Vec<&str>> = (text.lines().skip(1))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 14, "the corpus changed");
    let wrong: Vec<&str> = (rows.iter())
        .filter(|r| r[2] != r[3])
        .map(|r| r[0])
        .collect();
    assert_eq!(
        wrong,
        ["U+3002", "U+FF1C"],
        "the published column's known errors"
    );
    let (strict_up, strict) = start("").await;
    let (windows_up, windows) = start("[policy]\nprofile = \"windows-backend\"\n").await;
    let mut tally = Tally::new("payloadsallthethings nfkc");
    let mut without_syntax = 0;
    let mut n = 0;
    for row in &rows {
        let (code, payload, image) = (row[0], row[1], row[3]);
        let added = added_syntax(payload, image);
        if added.is_empty() {
            without_syntax += 1;
            continue;
        }
        for target in [
            format!("/files/{}", encode(payload)),
            format!("/search?q={}", encode(payload)),
        ] {
            n += 1;
            let sent = format!(
                "GET {target} HTTP/1.1\r\nHost: e2e.test\r\nX-Request-ID: nfkc-{n}\r\n\
                 Connection: close\r\n\r\n"
            );
            let id = format!("{code} {payload:?} (NFKC adds {added})");
            let shape = format!("GET {target}");
            let got = replay(&windows, &windows_up, sent.as_bytes(), false, Wait::First).await;
            tally.check(
                &id,
                &format!("{shape}, windows-backend"),
                "refused",
                got.refused(),
                &got,
            );

            let got = replay(&strict, &strict_up, sent.as_bytes(), false, Wait::First).await;
            let forwarded = got.received.len() == 1 && got.received[0].target == target;
            let mut kinds = String::new();
            if forwarded || got.refused() && !got.responses.is_empty() {
                let line = strict.audit_line(&format!("nfkc-{n}")).await;
                kinds = line["kinds"].as_str().unwrap_or_default().to_string();
            }
            let logged = kinds.split(',').any(|k| k == "lookalike");
            tally.check_with(
                &id,
                &format!("{shape}, strict"),
                "forwarded unchanged (or refused) with a lookalike in the audit line",
                (forwarded || got.refused()) && logged,
                &format!("{}; audit kinds {kinds:?}", got.describe()),
            );
        }
    }
    assert_eq!(without_syntax, 4, "rows whose NFKC image adds no syntax");
    let sent = "GET / HTTP/1.1\r\nHost: domain\u{3002}com\r\nConnection: close\r\n\r\n";
    let got = replay(&strict, &strict_up, sent.as_bytes(), false, Wait::First).await;
    tally.check(
        "U+3002 in Host",
        "Host: domain。com (raw UTF-8)",
        "refused",
        got.refused(),
        &got,
    );
    tally.finish();
}
