//! The structured cases of `hostile.rs`: JSON, forms, multipart bodies, YAML and heads.

use super::{
    BOUNDARY, HEAD_BYTES, Input, JSON_STRINGS, PARTS, clean_framed, clean_text, framed, twins,
};

/// A JSON case and its twin: the same document shape with clean strings.
pub(super) fn json(name: &str, size: usize) -> (Input, Input) {
    let one = |unit: &[u8]| {
        twins(
            framed(b"{\"a\":\"", unit, b"a", b"\"}", size),
            clean_framed(b"{\"a\":\"", b"\"}", size),
        )
    };
    match name {
        "json-nul-escapes" => one(b"\\u0000"),
        "json-surrogate-escapes" => one(b"\\ud800"),
        "json-control-escapes" => one(b"\\b"),
        "json-escaped-quotes" => one(b"\\\""),
        "json-newline-escapes" => one(b"\\n"),
        "json-continuation" => one(b"\x80"),
        "json-many-strings" => twins(
            strings(b"[", b"\\u0000", b"]", JSON_STRINGS, size),
            strings(b"[", b"abcdef", b"]", JSON_STRINGS, size),
        ),
        "json-long-pointer" => {
            let mut key = b"{\"".to_vec();
            key.resize(1002, b'k');
            key.extend_from_slice(b"\":[");
            twins(
                strings(&key, b"abcdef", b"]}", JSON_STRINGS, size),
                strings(b"{\"k\":[", b"abcdef", b"]}", JSON_STRINGS, size),
            )
        }
        "json-identities" => {
            let object = |u: &str| format!("{{\"u\":\"{u}\"}}").into_bytes();
            twins(
                array(
                    &object(&"\u{FF4D}\u{FF49}\u{FF4B}\u{FF45}".repeat(16)),
                    size,
                ),
                array(&object(&"mike".repeat(48)), size),
            )
        }
        "json-duplicate-keys" => twins(members(true, size), members(false, size)),
        // U+05D1 (Hebrew) and U+0922 (Devanagari) share a slot of the proof's memory of clean
        // escapes: each is checked alone every time.
        "json-escaped-isolated" => twins(
            framed(b"{\"a\":\"", b"\\u05d1\\u0922", b"a", b"\"}", size),
            framed(
                b"{\"a\":\"",
                "\u{5d1}\u{922}".as_bytes(),
                b"a",
                b"\"}",
                size,
            ),
        ),
        "json-dotted-strings" => twins(
            strings(b"[", b"a.b\\/", b"]", JSON_STRINGS, size),
            strings(b"[", b"abcdef", b"]", JSON_STRINGS, size),
        ),
        "json-dot-slash-strings" => twins(
            strings(b"[", b"a./b", b"]", JSON_STRINGS, size),
            strings(b"[", b"abcd", b"]", JSON_STRINGS, size),
        ),
        "json-proof-fails-last" => {
            let mut hostile = strings(b"[", b"abcdef", b"", JSON_STRINGS - 1, size - 16);
            hostile.truncate(hostile.iter().rposition(|&b| b == b'"').unwrap_or(0) + 1);
            hostile.extend_from_slice(b",\"\\u0000\"]");
            hostile.resize(size, b' ');
            twins(hostile, strings(b"[", b"abcdef", b"]", JSON_STRINGS, size))
        }
        "json-pointers-proof-fails" => {
            // Every string under a 1 000-byte key, the last one not clean: no proof, and each
            // string's pointer is a kilobyte.
            let mut key = b"{\"".to_vec();
            key.resize(1002, b'k');
            key.extend_from_slice(b"\":[");
            let mut hostile = strings(&key, b"abcdef", b"", JSON_STRINGS - 1, size - 16);
            hostile.truncate(hostile.iter().rposition(|&b| b == b'"').unwrap_or(0) + 1);
            hostile.extend_from_slice(b",\"\\u0000\"]}");
            hostile.resize(size, b' ');
            twins(hostile, strings(&key, b"abcdef", b"]}", JSON_STRINGS, size))
        }
        _ => twins(
            // json-over-string-cap: `"a",` as often as fits, far past `max_json_strings`.
            strings(b"[", b"a", b"]", size / 4, size),
            clean_framed(b"[\"", b"\"]", size),
        ),
    }
}

/// One object of `JSON_STRINGS / 2` members whose values fill `size` bytes: every key `"k"`
/// when `duplicate`, else `"k0"`, `"k1"`, ... (spaces make the lengths equal).
fn members(duplicate: bool, size: usize) -> Vec<u8> {
    let count = JSON_STRINGS / 2;
    let each = size.saturating_sub(2) / count;
    let mut out = Vec::with_capacity(size);
    out.push(b'{');
    for i in 0..count {
        let key = if duplicate {
            "k".to_string()
        } else {
            format!("k{i}")
        };
        let head = format!(
            "{}\"{key}\"{:>pad$}:\"",
            if i > 0 { "," } else { "" },
            "",
            pad = 6 - key.len().min(6)
        );
        out.extend_from_slice(head.as_bytes());
        let value = each.saturating_sub(head.len() + 1);
        out.extend(std::iter::repeat_n(b'a', value));
        out.push(b'"');
    }
    out.push(b'}');
    out.resize(size.max(out.len()), b' ');
    out
}

/// A JSON array of `item` as often as fits, then spaces: exactly `size` bytes.
fn array(item: &[u8], size: usize) -> Vec<u8> {
    let mut out = b"[".to_vec();
    out.extend_from_slice(item);
    while out.len() + item.len() + 2 <= size {
        out.push(b',');
        out.extend_from_slice(item);
    }
    out.push(b']');
    out.resize(size.max(out.len()), b' ');
    out
}

/// `open`, `count` strings (fewer if they do not fit) filled with `unit`, `close`, then
/// spaces: exactly `size` bytes (unless `open` and `close` alone are longer).
fn strings(open: &[u8], unit: &[u8], close: &[u8], count: usize, size: usize) -> Vec<u8> {
    let room = size.saturating_sub(open.len() + close.len());
    // Each string: its quotes, a comma and at least one unit.
    let count = count.min(room / (unit.len() + 3)).max(1);
    let each = (room / count).saturating_sub(3);
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(open);
    for i in 0..count {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        out.extend_from_slice(&framed(b"", unit, b"a", b"", each));
        out.push(b'"');
    }
    out.extend_from_slice(close);
    out.resize(size.max(out.len()), b' ');
    out
}

/// A form case and its twin: one field `a` of clean letters.
pub(super) fn form(name: &str, size: usize) -> (Input, Input) {
    if name == "form-json-values" {
        // 1 000 values (the default `max_parameters`), each a JSON object, or as many plain.
        let each = size / 1_000;
        let value = |json: bool| {
            let (open, close): (&[u8], &[u8]) = if json {
                (b"v=%7B%22a%22%3A%22", b"%22%7D&")
            } else {
                (b"v=", b"&")
            };
            framed(open, b"b", b"b", close, each)
        };
        return twins(value(true).repeat(1_000), value(false).repeat(1_000));
    }
    let unit: &[u8] = match name {
        "form-nul" => b"%00",
        "form-c0ae" => b"%c0%ae",
        "form-bare-percent" => b"%",
        "form-double-encoding" => b"%2525",
        "form-iis" => b"%u002e",
        _ => b"a=%00&",
    };
    let prefix: &[u8] = if name == "form-tiny-fields" {
        b""
    } else {
        b"a="
    };
    twins(
        framed(prefix, unit, b"a", b"", size),
        clean_framed(b"a=", b"", size),
    )
}

/// A multipart case and its twin: the same parts (or one part) with clean text content.
pub(super) fn multipart(name: &str, size: usize) -> (Input, Input) {
    let one_part = |headers: &[u8]| {
        let mut head = delimiter();
        head.extend_from_slice(b"Content-Disposition: form-data; name=\"f\"\r\n");
        let mut clean = head.clone();
        head.extend_from_slice(headers);
        for p in [&mut head, &mut clean] {
            p.extend_from_slice(b"\r\n");
        }
        let tail = [b"\r\n--", BOUNDARY, b"--\r\n"].concat();
        let text = clean_text(size.saturating_sub(clean.len() + tail.len()));
        (
            framed(&head, b"x", b"x", &tail, size),
            framed(&clean, &text, b" ", &tail, size),
        )
    };
    let (hostile, clean) = match name {
        "multipart-nul-parts" => (parts(b"\0", size), parts(b"", size)),
        "multipart-json-parts" => (
            typed_parts(b"application/json", size),
            typed_parts(b"text/plain", size),
        ),
        "multipart-header-lines" => one_part(&framed(b"", b"a:\r\n", b"", b"", size / 2)),
        _ => {
            // Singleton header lines after many others: each is compared with every line
            // before it.
            let mut headers = framed(b"", b"a:\r\n", b"", b"", size / 2);
            headers.extend_from_slice(&framed(
                b"",
                b"content-type:\r\n",
                b"",
                b"",
                (size / 2).saturating_sub(256),
            ));
            one_part(&headers)
        }
    };
    twins(hostile, clean)
}

fn delimiter() -> Vec<u8> {
    [b"--", BOUNDARY, b"\r\n"].concat()
}

/// `PARTS` parts whose content is `unit` repeated (clean text when `unit` is empty), exactly
/// `size` bytes.
fn parts(unit: &[u8], size: usize) -> Vec<u8> {
    let close = [b"--", BOUNDARY, b"--\r\n"].concat();
    let each = size.saturating_sub(close.len()) / PARTS;
    let mut out = Vec::with_capacity(size);
    for i in 0..PARTS {
        let mut head = delimiter();
        head.extend_from_slice(
            format!("Content-Disposition: form-data; name=\"f{i:02}\"\r\n\r\n").as_bytes(),
        );
        let content = each.saturating_sub(head.len() + 2);
        out.extend_from_slice(&head);
        if unit.is_empty() {
            out.extend_from_slice(&clean_text(content));
        } else {
            out.extend_from_slice(&framed(b"", unit, b"", b"", content));
        }
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(&close);
    // The first part takes the rest, so that the body is exactly `size` bytes.
    let missing = size.saturating_sub(out.len());
    let at = delimiter().len() + "Content-Disposition: form-data; name=\"f00\"\r\n\r\n".len();
    let filler = if unit.is_empty() {
        b" ".repeat(missing)
    } else {
        unit.repeat(missing)[..missing].to_vec()
    };
    out.splice(at..at, filler);
    out
}

/// `PARTS` parts typed `content_type`, each a JSON object of one long string: exactly `size`
/// bytes but for the rounding of `size / PARTS`, the same for every type.
fn typed_parts(content_type: &[u8], size: usize) -> Vec<u8> {
    let close = [b"--", BOUNDARY, b"--\r\n"].concat();
    let each = size.saturating_sub(close.len()) / PARTS;
    let mut out = Vec::with_capacity(size);
    for i in 0..PARTS {
        let mut head = delimiter();
        head.extend_from_slice(
            format!("Content-Disposition: form-data; name=\"f{i:02}\"\r\nContent-Type: ")
                .as_bytes(),
        );
        head.extend_from_slice(content_type);
        head.extend_from_slice(b"\r\n\r\n");
        let content = each.saturating_sub(head.len() + 2);
        out.extend_from_slice(&head);
        out.extend_from_slice(&framed(b"{\"a\":\"", b"b", b"b", b"\"}", content));
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(&close);
    out
}

/// Headers the head cases send (besides `Host`), `HEAD_BYTES` in all.
const HEAD_LINES: usize = 50;

/// A head case and its twin: an empty body; the target or headers of the same length, clean.
pub(super) fn head(name: &str) -> (Input, Input) {
    let input = |target: Vec<u8>, headers: Vec<(String, Vec<u8>)>| Input {
        target,
        headers,
        body: Vec::new(),
    };
    let lines = |name: &dyn Fn(usize) -> String, first: &[u8], unit: &[u8]| {
        (0..HEAD_LINES)
            .map(|i| {
                let n = name(i);
                let len = HEAD_BYTES / HEAD_LINES - n.len() - 4;
                (n, framed(first, unit, b"a", b"", len))
            })
            .collect::<Vec<(String, Vec<u8>)>>()
    };
    match name {
        "head-path" => (
            input(framed(b"/", b"%c0%ae/", b"a", b"", HEAD_BYTES), Vec::new()),
            input(framed(b"/", b"abcdef/", b"a", b"", HEAD_BYTES), Vec::new()),
        ),
        "head-query" => (
            input(
                framed(b"/search?q=", b"%", b"a", b"", HEAD_BYTES),
                Vec::new(),
            ),
            input(
                framed(b"/search?q=", b"a", b"a", b"", HEAD_BYTES),
                Vec::new(),
            ),
        ),
        "head-header-bytes" => {
            let name = |i: usize| format!("x-hostile-{i:02}");
            (
                input(b"/".to_vec(), lines(&name, b"", b"\x80")),
                input(b"/".to_vec(), lines(&name, b"", b"a")),
            )
        }
        "head-cookie-escapes" => {
            // One quoted value a line, closed: its escapes are unquoted (Werkzeug's reading).
            let quoted = |unit: &[u8]| {
                (0..HEAD_LINES)
                    .map(|_| {
                        let len = HEAD_BYTES / HEAD_LINES - "Cookie".len() - 4;
                        (
                            "Cookie".to_string(),
                            framed(b"a=\"", unit, b"A", b"\"", len),
                        )
                    })
                    .collect::<Vec<(String, Vec<u8>)>>()
            };
            (
                input(b"/".to_vec(), quoted(b"\\101")),
                input(b"/".to_vec(), quoted(b"AAAA")),
            )
        }
        "head-forwarded-hosts" => {
            let name = |_| "X-Forwarded-Host".to_string();
            (
                input(b"/".to_vec(), lines(&name, b"", b"xn--bcher-kva.example,")),
                input(b"/".to_vec(), lines(&name, b"", b"bn--bcher-kva.example,")),
            )
        }
        _ => {
            let name = |_| "Cookie".to_string();
            (
                input(b"/".to_vec(), lines(&name, b"", b"a=%00;")),
                // One cookie per line, of the same length.
                input(b"/".to_vec(), lines(&name, b"a=", b"b")),
            )
        }
    }
}

/// A YAML case and its twin of the same size and shape: collections are a mapping's values
/// (a flow collection at a document's root is held whole by the parser and cut early).
pub(super) fn yaml(name: &str, size: usize) -> (Input, Input) {
    let item = |n: usize| format!("{}, ", "a".repeat(n));
    match name {
        "yaml-nul-escapes" => twins(
            framed(b"a: \"", b"\\0", b"a", b"\"\n", size),
            clean_framed(b"a: \"", b"\"\n", size),
        ),
        // The twin's items are long enough to stay under `max_json_strings` at 8 MiB.
        "yaml-aliases" => twins(
            framed(b"a: &a x\nb: [", b"*a, ", b" ", b"]\n", size),
            framed(b"a: &a x\nb: [", item(98).as_bytes(), b" ", b"]\n", size),
        ),
        "yaml-deep-flow" => {
            let deep = ["[".repeat(60), "]".repeat(60), ", ".to_string()].concat();
            let flat = ["[".to_string(), "a".repeat(118), "], ".to_string()].concat();
            twins(
                framed(b"a: [", deep.as_bytes(), b" ", b"]\n", size),
                framed(b"a: [", flat.as_bytes(), b" ", b"]\n", size),
            )
        }
        _ => twins(
            // yaml-tiny-scalars: `a,` as often as fits, far past `max_json_strings`.
            framed(b"a: [", b"a,", b" ", b"a]\n", size),
            clean_framed(b"a: [", b"]\n", size),
        ),
    }
}
