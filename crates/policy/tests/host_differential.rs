//! Host differential: generated host names, sent as `X-Forwarded-Host`, `Forwarded: host=` and
//! the host of a `next=` URL, read by utf8gate and by the resolvers and URL parsers an
//! application hands them to: Python's `idna` (UTS #46, as a resolver maps a name) and Node's
//! WHATWG `URL` (`tests/python/host_readers.py`). For every request the default profile does
//! not refuse, the host each of them reaches must be the one utf8gate checked: the name as
//! sent (ASCII case aside) or the Unicode form it checked as text. A parser that refuses the
//! host is no bypass.
//!
//! Without Python and PyPI the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`
//! (CI) makes that a failure.

mod support;

use std::collections::HashSet;

use serde_json::json;
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, Part, Profile, Request, evaluate, read_fields};

#[rustfmt::skip]
const LABELS: &[&str] = &[
    "example", "com", "shop", "a-b", "x1", "bücher", "münchen", "例え", "テスト", "пример",
    "παράδειγμα", "xn--bcher-kva", "xn--mnchen-3ya", "xn--r8jz45g", "xn--zckzah",
    "xn--e1afmkfd", "xn--hxajbheg2az3al", "XN--BCHER-KVA", "Example", "straße", "faß",
];
/// Labels and characters IDNA maps, drops or refuses.
#[rustfmt::skip]
const TRICKY: &[&str] = &[
    "ｅｘａｍｐｌｅ", "exa\u{200b}mple", "exa\u{ad}mple", "ex\u{2060}ample", "e\u{34f}x",
    "ex\u{fe0f}", "Ⓔx", "ſhop", "\u{212a}ey", "ﬀ", "İx", "BÜCHER", "p\u{430}ypal", "xn--zz",
    "xn--a", "xn--pypal-4ve", "e\u{301}x", "ａ", "x\u{3002}y", "x\u{ff0e}y", "x\u{ff61}y",
];

fn host(rng: &mut Rng) -> String {
    let mut labels = Vec::new();
    for _ in 0..2 + rng.below(2) {
        let pool = if rng.chance(15) { TRICKY } else { LABELS };
        labels.push(*rng.pick::<&str>(pool));
    }
    labels.join(".")
}

/// Published tricks: each refused in every host field.
const REFUSED: &[&str] = &[
    "evil\u{3002}example",
    "exa\u{200b}mple.com",
    "ｅｘａｍｐｌｅ.com",
    "xn--zz.com",
    "p\u{430}ypal.com",
    "\u{212a}ey.example",
];

/// Benign twins: passed unchanged.
const BENIGN: &[&str] = &[
    "shop.example.com",
    "Shop.Example.COM",
    "xn--bcher-kva.de",
    "xn--r8jz45g.xn--zckzah",
    "bücher.de",
    "пример.испытание",
];

fn requests(host: &str) -> [Request; 3] {
    [
        Request::new("GET", b"/")
            .header("Host", b"gate.example")
            .header("X-Forwarded-Host", format!("{host}:8443").as_bytes()),
        Request::new("GET", b"/")
            .header("Host", b"gate.example")
            .header(
                "Forwarded",
                format!("for=192.0.2.1;host=\"{host}\";proto=https").as_bytes(),
            ),
        Request::new("GET", format!("/login?next=https://{host}/home").as_bytes())
            .header("Host", b"gate.example"),
    ]
}

/// The Unicode forms utf8gate checked for `request`, and the name as sent, lowercased.
fn ours(request: &Request, host: &str) -> HashSet<String> {
    let mut texts: HashSet<String> = read_fields(&Profile::strict(), request)
        .into_iter()
        .filter(|(l, _)| matches!(l.part, Part::Header | Part::QueryValue))
        .filter_map(|(_, bytes)| String::from_utf8(bytes).ok())
        .collect();
    texts.insert(host.to_ascii_lowercase());
    texts
}

#[test]
fn published_tricks_are_refused_and_benign_hosts_pass() {
    for host in REFUSED {
        for request in requests(host) {
            let verdict = evaluate(&Profile::strict(), &request).verdict;
            assert_eq!(verdict.decision, Decision::Reject, "{host}: {request:?}");
        }
    }
    for host in BENIGN {
        for request in requests(host) {
            let verdict = evaluate(&Profile::strict(), &request).verdict;
            assert_eq!(
                verdict.decision,
                Decision::Allow,
                "{host}: {:?}",
                verdict.counts
            );
        }
    }
}

#[test]
fn what_the_default_profile_allows_every_host_reader_reaches_as_utf8gate_checked_it() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let mut rng = Rng(0x0000_1D4A_4057_2026);
    let mut hosts: Vec<String> = REFUSED
        .iter()
        .chain(BENIGN)
        .map(|h| h.to_string())
        .collect();
    hosts.extend((0..3000).map(|_| host(&mut rng)));
    let input = json!({"cases": hosts.iter().map(|h| json!({"host": b64(h.as_bytes())})).collect::<Vec<_>>()});
    let readings = run_readers(&py, "host_readers.py", &input);
    let (mut allowed, mut compared) = (0, 0);
    let mut differences = Vec::new();
    for (host, result) in hosts.iter().zip(readings["results"].as_array().unwrap()) {
        let reached: Vec<String> = [
            &result["idna_uts46"]["host"],
            &result["whatwg_url"]["unicode"],
        ]
        .into_iter()
        .filter_map(|v| v.as_str())
        .map(|s| String::from_utf8(unb64(s)).unwrap())
        .filter(|s| !s.is_empty())
        .collect();
        for request in requests(host) {
            if evaluate(&Profile::strict(), &request).verdict.decision == Decision::Reject {
                continue;
            }
            allowed += 1;
            let ours = ours(&request, host);
            for theirs in &reached {
                compared += 1;
                if !ours.contains(theirs) {
                    differences.push((host.clone(), theirs.clone()));
                }
            }
        }
    }
    eprintln!(
        "{} hosts, {allowed} requests allowed, {compared} readings compared",
        hosts.len()
    );
    assert!(allowed > 3000 && compared > 5000, "too few hosts compared");
    let shown: Vec<_> = differences.iter().take(12).collect();
    assert!(
        differences.is_empty(),
        "{} hosts reached that utf8gate did not check: {shown:#?}",
        differences.len()
    );
}
