//! OWASP CRS regression cases (go-ftw) of the encoding rules: 920250 (UTF-8 encoding abuse),
//! 920260 (`%u` full/half width), 920270 (NUL), 920271 (non-printable characters), and for
//! information 920120 (multipart file names) and 920100 (request lines). Each raw request is
//! replayed. The scored rules are judged by utf8gate's rule: malformed UTF-8, overlongs, `%u`
//! escapes, NUL and controls in the URL and headers are refused; the rest is forwarded unchanged,
//! also where CRS calls a malformed byte benign (920270 #7 `%FD`, 920271 #6 `%FF`: refused). The
//! informational cases are either refused or forwarded unchanged (or answered by the gateway
//! itself, `OPTIONS *`), never rewritten on the way, and a malformed request line is refused.

use super::*;

/// What utf8gate must do with a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Refused,
    /// The upstream gets the method, target (less a `#fragment`; the path of an absolute
    /// target) and body as sent.
    Forwarded,
    /// Refused, forwarded unchanged, or answered by the gateway with a 2xx.
    NotRewritten,
}

fn expect(rule: &str, test: u64, crs_expected: &str) -> Expect {
    match (rule, test) {
        // Malformed UTF-8 that CRS lets through: %FD in a query name, %FF in the path.
        ("920270", 7) | ("920271", 6) => Expect::Refused,
        // Leading space or tab before the method, a backslash target, `HTTP\1.0`, spaces and
        // quotes in the target. (`|GET`, #14, is a token: an unknown method, not malformed.)
        ("920100", 2 | 11 | 12 | 13 | 15) => Expect::Refused,
        ("920100" | "920120", _) => Expect::NotRewritten,
        _ if crs_expected == "ATTACK" => Expect::Refused,
        _ => Expect::Forwarded,
    }
}

fn base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).expect("base64") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The target as the upstream should get it: no `#fragment`, and the path of an absolute form.
fn forwarded_target(target: &str) -> String {
    let target = target.split('#').next().unwrap_or_default();
    match target.strip_prefix("http://") {
        Some(rest) => match rest.find('/') {
            Some(at) => rest[at..].to_string(),
            None => "/".to_string(),
        },
        None => target.to_string(),
    }
}

fn forwarded_unchanged(sent: &[u8], got: &Outcome) -> bool {
    let (method, target) = request_line(sent);
    let (_, body) = split(sent);
    got.received.len() == 1
        && got.received[0].method == method
        && got.received[0].target == forwarded_target(&target)
        && got.received[0].body == body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crs_encoding_cases_follow_utf8gates_rule() {
    let Some(dir) = corpus("crs") else { return };
    let file: serde_json::Value =
        serde_json::from_str(&read(&dir, "crs_cases.json")).expect("crs_cases.json");
    let cases = file["cases"].as_array().expect("cases");
    let scored = cases.iter().filter(|c| c["scored"] == true).count();
    assert_eq!((cases.len(), scored), (78, 21), "the corpus changed");
    let (upstream, gw) = start("").await;
    let mut tally = Tally::new("crs");
    for case in cases {
        let rule = case["rule"].as_str().unwrap_or_default();
        let test = case["test_id"].as_u64().unwrap_or_default();
        let crs_expected = case["expected"].as_str().unwrap_or_default();
        let sent = base64(case["raw_b64"].as_str().expect("raw_b64"));
        let got = replay(&gw, &upstream, &sent, false, Wait::First).await;
        let want = expect(rule, test, crs_expected);
        let ok = match want {
            Expect::Refused => got.refused(),
            Expect::Forwarded => forwarded_unchanged(&sent, &got),
            Expect::NotRewritten => {
                got.refused()
                    || forwarded_unchanged(&sent, &got)
                    || (got.received.is_empty()
                        && got.responses.iter().all(|&(s, up)| !up && s < 300))
            }
        };
        let (head, _) = split(&sent);
        let mut lines = head.split(|&b| b == b'\n');
        let mut shape = format!("{}", lines.next().unwrap_or_default().escape_ascii());
        // Header lines with escapes are where some cases put their bytes.
        for l in lines.filter(|l| l.contains(&b'%')) {
            shape = format!("{shape} | {}", l.trim_ascii().escape_ascii());
        }
        if let Some(desc) = case["desc"].as_str().filter(|d| !d.is_empty()) {
            shape = format!("{shape} ({desc})");
        }
        let expected = format!("{want:?} (CRS: {crs_expected})");
        tally.check(&format!("{rule} #{test}"), &shape, &expected, ok, &got);
    }
    tally.finish();
}
