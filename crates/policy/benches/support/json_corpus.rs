//! The corpora of `corpus.rs` as JSON bodies, for the `evaluate` bench and the
//! `evaluate_corpus` example.

/// `text` as a JSON array of strings, one per line, escaped as `serde_json` writes them.
pub(crate) fn json_of(text: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(text).expect("the corpus is UTF-8");
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    out.push(b'[');
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'"');
        for c in line.chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                c if (c as u32) < 0x20 => {
                    out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                }
                c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        out.push(b'"');
    }
    out.push(b']');
    out
}

/// A corpus of JSON lines (`ascii-json`, `mixed`) as the JSON array of its whole objects: an
/// API's JSON, a few short keys and strings per object.
pub(crate) fn array_of(text: &[u8]) -> Vec<u8> {
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"{") && l.ends_with(b"}"))
        .collect();
    [b"[".as_slice(), &lines.join(b",".as_slice()), b"]"].concat()
}
