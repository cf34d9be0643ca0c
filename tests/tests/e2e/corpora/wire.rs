//! Requests as bytes: their head and body, request line, chunked bodies, and a marker swapped
//! for an attack with `Content-Length` kept right.

/// The de-chunked body of a well-formed chunked message body (the corpora's own requests).
pub(super) fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = find(body, b"\r\n").expect("a chunk-size line");
        let size = std::str::from_utf8(&body[..end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .expect("a hexadecimal chunk size");
        body = &body[end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A request split into its head (without the blank line) and its body.
pub(super) fn split(request: &[u8]) -> (&[u8], &[u8]) {
    let at = find(request, b"\r\n\r\n").expect("a request head ending in a blank line");
    (&request[..at], &request[at + 4..])
}

/// `(method, target)` of a request line.
pub(super) fn request_line(request: &[u8]) -> (String, String) {
    let line = request.split(|&b| b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split(' ');
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    (method, target)
}

/// Every occurrence of `marker` in the body replaced by `with` (at least one must be there), and
/// the `Content-Length` line, if any, set to the new body's length.
pub(super) fn substitute(request: &[u8], marker: &[u8], with: &[u8]) -> Vec<u8> {
    let (head, body) = split(request);
    assert!(
        find(body, marker).is_some(),
        "marker {:?} not in the body {:?}",
        String::from_utf8_lossy(marker),
        String::from_utf8_lossy(body)
    );
    let mut new_body = Vec::new();
    let mut rest = body;
    while let Some(at) = find(rest, marker) {
        new_body.extend_from_slice(&rest[..at]);
        new_body.extend_from_slice(with);
        rest = &rest[at + marker.len()..];
    }
    new_body.extend_from_slice(rest);
    let mut out = Vec::new();
    for (i, line) in head.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        if line.to_ascii_lowercase().starts_with(b"content-length:") {
            let cr = if line.ends_with(b"\r") { "\r" } else { "" };
            out.extend_from_slice(format!("Content-Length: {}{cr}", new_body.len()).as_bytes());
        } else {
            out.extend_from_slice(line);
        }
    }
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(&new_body);
    out
}
