//! Parser differential: generated `multipart/form-data` bodies read by utf8gate and by the
//! parsers real backends use (Python's `email`, python-multipart for Starlette/FastAPI,
//! Werkzeug for Flask, multipart for Bottle), run from a pinned virtualenv
//! (`tests/python/setup-venv.sh`). Every body that the default profile allows must be read by
//! each of them exactly as utf8gate reads it (names, filenames, contents); a body a parser
//! refuses outright is no bypass and is only counted.
//!
//! Without Python and PyPI the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`
//! (CI) makes that a failure.

mod support;

use serde_json::{Value, json};
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, FormPart, Profile, Request, evaluate, read_multipart};

const NAMES: &[&[u8]] = &[
    b"email",
    b"message",
    b"upload",
    b"\xD0\xB8\xD0\xBC\xD1\x8F",
    b"user[name]",
    b"title",
    b"comment",
    b"file",
    b"a b",
    b"\xE5\xB1\xB1\xE7\x94\xB0",
    b"caf\xC3\xA9",
    b"x;y",
    b"q\\\"t",
    b"n%22m",
    b"_charset_",
    b"",
    b"a\xC0\xAEb",
];
const FILENAMES: &[&[u8]] = &[
    b"photo.jpg",
    b"\xD0\xBE\xD1\x82\xD1\x87\xD1\x91\xD1\x82.pdf",
    b"report.txt",
    b"\xE3\x83\xAC\xE3\x83\x9D.txt",
    b"C:\\dir\\x.txt",
    b"../../etc/passwd",
    b"a%0D%0Ab.txt",
    b"sp ace.txt",
    b"",
    b"..\xC0\xAF..\xC0\xAFx",
];
const CONTENTS: &[&[u8]] = &[
    b"hello",
    b"Gr\xC3\xBC\xC3\x9Fe",
    b"line1\r\nline2",
    b"",
    b"--not-the-boundary",
    b"\r\n",
    b"a\nb",
    b"wK7ArlwvZXRj",
    b"=C0=AE",
    b"\x00\x01\x02",
    b"utf-8",
    b"shift_jis",
];

/// One generated part, with a mutation or two of its shape.
fn part(rng: &mut Rng, boundary: &[u8]) -> Vec<u8> {
    let name = *rng.pick(NAMES);
    let quoted = |v: &[u8]| [&b"\""[..], v, b"\""].concat();
    let mut disposition = b"form-data".to_vec();
    let mut params: Vec<Vec<u8>> = Vec::new();
    if !rng.chance(5) {
        params.push(
            [
                &b"name="[..],
                &if rng.chance(85) {
                    quoted(name)
                } else {
                    name.to_vec()
                },
            ]
            .concat(),
        );
    }
    let file = rng.chance(40);
    if file {
        let f = *rng.pick(FILENAMES);
        params.push([&b"filename="[..], &quoted(f)].concat());
    }
    match rng.below(30) {
        0 => params.push(b"name=\"other\"".to_vec()),
        1 => params.push(b"filename=\"second.txt\"".to_vec()),
        2 => params.push(b"filename*=UTF-8''%2e%2e%2fx".to_vec()),
        3 => params.push(b"filename*0*=UTF-8''a; filename*1*=b".to_vec()),
        4 => params.push(b"name*=UTF-8''n".to_vec()),
        5 if file => params.push(b"filename*=utf-8''report.txt".to_vec()),
        _ => {}
    }
    if rng.chance(5) {
        disposition = b"attachment".to_vec();
    }
    for p in &params {
        disposition.extend_from_slice(b"; ");
        disposition.extend_from_slice(p);
    }
    let mut headers: Vec<Vec<u8>> = vec![[&b"Content-Disposition: "[..], &disposition].concat()];
    match rng.below(30) {
        0 => headers.push(b"Content-Disposition: form-data; name=\"evil\"".to_vec()),
        1 => headers.push(b"Content-Type: text/plain".to_vec()),
        2 => headers.push(b"Content-Type: application/octet-stream".to_vec()),
        3 => headers.push(b"Content-Type: text/plain; charset=iso-8859-1".to_vec()),
        4 => headers.push(b"Content-Transfer-Encoding: base64".to_vec()),
        5 => headers.push(b"Content-Transfer-Encoding: quoted-printable".to_vec()),
        6 => headers.push(b"Content-Type: text/plain\r\nContent-Type: image/png".to_vec()),
        7 => headers.insert(0, b"Content-Disposition : form-data; name=\"sp\"".to_vec()),
        8 => headers.push(b"X-Folded: a\r\n b".to_vec()),
        9 => headers.push(b"Content-Transfer-Encoding: 8bit".to_vec()),
        _ => {}
    }
    let mut content = rng.pick(CONTENTS).to_vec();
    if rng.chance(2) {
        // The boundary behind a bare LF inside a part: a part of its own to some parsers.
        content.extend_from_slice(b"\n--");
        content.extend_from_slice(boundary);
        content.extend_from_slice(b"\nContent-Disposition: form-data; name=\"hidden\"\n\nx");
    }
    let newline: &[u8] = if rng.chance(2) { b"\n" } else { b"\r\n" };
    let mut out = headers.join(newline);
    out.extend_from_slice(newline);
    out.extend_from_slice(newline);
    out.extend_from_slice(&content);
    out
}

/// A generated body and its `Content-Type` value.
fn case(rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    const BOUNDARIES: [&[u8]; 4] = [
        b"----WebKitFormBoundary7MA4YWxkTrZu0gW",
        b"BB",
        b"a'b(c)",
        b"x",
    ];
    let boundary = *rng.pick(&BOUNDARIES);
    let mut ct = b"multipart/form-data; boundary=".to_vec();
    ct.extend_from_slice(&if rng.chance(20) {
        [&b"\""[..], boundary, b"\""].concat()
    } else {
        boundary.to_vec()
    });
    match rng.below(25) {
        0 => ct.extend_from_slice(b"; boundary=other"),
        1 => ct.extend_from_slice(b"; charset=iso-8859-1"),
        2 => ct.extend_from_slice(b"; charset=utf-8"),
        _ => {}
    }
    let mut body = Vec::new();
    if rng.chance(5) {
        body.extend_from_slice(b"preamble\r\n");
    }
    for _ in 0..1 + rng.below(3) {
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary);
        if rng.chance(2) {
            body.extend_from_slice(b"  ");
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(&part(rng, boundary));
        body.extend_from_slice(b"\r\n");
    }
    if !rng.chance(2) {
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary);
        body.extend_from_slice(b"--\r\n");
        if rng.chance(5) {
            body.extend_from_slice(b"epilogue");
        }
    }
    (ct, body)
}

/// A parser's part as utf8gate's `FormPart`, for comparison.
fn parsed(p: &Value) -> FormPart {
    let bytes = |k: &str| p[k].as_str().map(unb64);
    FormPart {
        name: bytes("name"),
        filename: bytes("filename"),
        // Parsers report the type in different shapes (raw header, essence): compared apart.
        content_type: None,
        content: bytes("content").unwrap_or_default(),
    }
}

#[test]
fn allowed_bodies_are_read_alike_by_every_backend_parser() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let mut rng = Rng(0x0005_EED0_F0BE_4EAD);
    let cases: Vec<(Vec<u8>, Vec<u8>)> = (0..4000).map(|_| case(&mut rng)).collect();
    let input = json!({"cases": cases.iter().map(|(ct, body)| json!({
        "content_type": ct.iter().map(|&b| char::from(b)).collect::<String>(),
        "body": b64(body),
    })).collect::<Vec<_>>()});
    let readings = run_readers(&py, "multipart_readers.py", &input);
    let parsers: Vec<String> = serde_json::from_value(readings["parsers"].clone()).unwrap();
    assert!(parsers.len() >= 3, "{parsers:?}");

    let strict = Profile::strict();
    let (mut allowed, mut compared, mut differing, mut refused_by_parser) = (0, 0, 0, 0);
    let mut bypasses = Vec::new();
    for ((ct, body), result) in cases.iter().zip(readings["results"].as_array().unwrap()) {
        let ours = read_multipart(ct, body, 100).ok();
        let request = Request::new("POST", b"/upload")
            .header("Content-Type", ct)
            .body(body);
        let decision = evaluate(&strict, &request).verdict.decision;
        let mut differs = false;
        for parser in &parsers {
            let reading = &result[parser];
            if reading.get("error").is_some() {
                refused_by_parser += 1;
                continue;
            }
            let theirs: Vec<FormPart> = reading["parts"]
                .as_array()
                .unwrap()
                .iter()
                .map(parsed)
                .collect();
            let ours_cmp: Option<Vec<FormPart>> = ours.as_ref().map(|parts| {
                parts
                    .iter()
                    .cloned()
                    .map(|mut p| {
                        p.content_type = None;
                        p
                    })
                    .collect()
            });
            if ours_cmp.as_ref() != Some(&theirs) {
                differs = true;
                if decision != Decision::Reject {
                    bypasses.push(format!(
                        "{parser} reads {theirs:?}\n  utf8gate reads {ours_cmp:?}\n  content-type {:?}\n  body {:?}",
                        String::from_utf8_lossy(ct),
                        String::from_utf8_lossy(body)
                    ));
                }
            } else if decision != Decision::Reject {
                compared += 1;
            }
        }
        differing += usize::from(differs);
        allowed += usize::from(decision != Decision::Reject);
    }
    eprintln!(
        "{} bodies: {allowed} allowed, {compared} allowed readings equal to a parser's, {differing} read differently by some parser (all must be refused), {refused_by_parser} parser refusals",
        cases.len()
    );
    assert!(
        bypasses.is_empty(),
        "{} allowed bodies read differently:\n{}",
        bypasses.len(),
        bypasses
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The generator must reach both sides: many bodies allowed and read alike, many refused.
    assert!(allowed > cases.len() / 20, "only {allowed} allowed");
    assert!(differing > cases.len() / 10, "only {differing} differing");
}
