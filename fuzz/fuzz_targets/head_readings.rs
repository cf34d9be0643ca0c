//! Issue 24's head readings: a fuzzed `Content-Type` value and header names, evaluated under
//! `strict`. Never a panic; and what utf8gate lets through has one reading, checked against a
//! small independent oracle written here from RFC 9110's grammar:
//!
//! * an accepted `Content-Type` is `token "/" token *( OWS ";" OWS [ token "=" ( token /
//!   quoted-string ) ] )`, has no `,` outside quoted strings, and `charset=` (any case) appears
//!   only as the name of a `charset` parameter;
//! * accepted header names are tokens, and no two of them are one name once `-` and `_` are
//!   the same, and none is the underscore spelling of `Host`, `Content-Type`,
//!   `Content-Length` or `Transfer-Encoding`.
//!
//! Byte 0 is the length of the `Content-Type` value; the rest is header names, one per line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{FindingKind, Profile, Request, evaluate};

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let (ct, names) = rest.split_at((n as usize).min(rest.len()));
    let names: Vec<String> = names
        .split(|&b| b == b'\n')
        .take(8)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    let mut request = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Type", ct);
    for name in &names {
        request = request.header(name, b"1");
    }
    let request = request.body(b"a=1");
    let verdict = evaluate(&Profile::strict(), &request).verdict;
    let refused = |kinds: &[FindingKind]| verdict.findings.iter().any(|f| kinds.contains(&f.kind));
    use FindingKind::*;
    if !refused(&[AmbiguousMediaType, AmbiguousParameter, RepeatedParameter]) {
        assert!(one_reading(ct), "accepted {:?}", String::from_utf8_lossy(ct));
    }
    if !refused(&[AmbiguousHeaderName]) {
        let mut all = vec!["host".to_string(), "content-type".to_string()];
        all.extend(names.iter().cloned());
        assert!(names_one_reading(&all), "accepted {names:?}");
    }
});

fn tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn token(s: &[u8]) -> usize {
    s.iter().take_while(|&&b| tchar(b)).count()
}

fn ows(s: &[u8]) -> usize {
    s.iter().take_while(|&&b| b == b' ' || b == b'\t').count()
}

/// RFC 9110 §8.3.1 media-type, a whole value, without a hidden `charset=`.
fn one_reading(value: &[u8]) -> bool {
    if value.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    let mut i = ows(value);
    let t = token(&value[i..]);
    if t == 0 || value.get(i + t) != Some(&b'/') {
        return false;
    }
    i += t + 1;
    let t = token(&value[i..]);
    if t == 0 {
        return false;
    }
    i += t;
    let (mut charset_params, mut charset_names) = (0, 0);
    loop {
        i += ows(&value[i..]);
        if i == value.len() {
            break;
        }
        if value[i] != b';' {
            return false;
        }
        i += 1;
        i += ows(&value[i..]);
        let t = token(&value[i..]);
        if t == 0 {
            continue;
        }
        if value[i..i + t].eq_ignore_ascii_case(b"charset") {
            charset_params += 1;
        }
        i += t;
        if value.get(i) != Some(&b'=') {
            return false;
        }
        i += 1;
        if value.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match value.get(i) {
                    None => return false,
                    Some(b'"') => break,
                    Some(b'\\') => i += 2,
                    Some(_) => i += 1,
                }
            }
            i += 1;
        } else {
            let t = token(&value[i..]);
            if t == 0 {
                return false;
            }
            i += t;
        }
    }
    let lower = value.to_ascii_lowercase();
    for at in 0..lower.len() {
        if lower[at..].starts_with(b"charset") {
            let rest = &lower[at + 7..];
            if rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'=') {
                charset_names += 1;
            }
        }
    }
    charset_names <= charset_params
}

/// Header names with one reading to CGI and WSGI backends.
fn names_one_reading(names: &[String]) -> bool {
    let cgi = |n: &str| n.to_ascii_lowercase().replace('_', "-");
    for (i, a) in names.iter().enumerate() {
        if a.is_empty() || !a.bytes().all(tchar) {
            return false;
        }
        let singleton = ["host", "content-type", "content-length", "transfer-encoding"];
        if a.contains('_') && singleton.contains(&cgi(a).as_str()) {
            return false;
        }
        for b in &names[i + 1..] {
            if cgi(a) == cgi(b) && !a.eq_ignore_ascii_case(b) {
                return false;
            }
        }
    }
    true
}
