//! Writes the hand-made seeds of the fuzz corpora: `cargo run --example seeds` from `fuzz/`
//! (writes `corpus/{http_request,multipart,coding,policy_bounded}/seed-*`). Plain Rust with flate2 and
//! brotli, so that every seed is reproducible.

use std::io::Write;
use std::path::Path;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn br(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        w.write_all(data).unwrap();
    }
    out
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("seed-{name}")), bytes).unwrap();
}

const BOUNDARY: &str = "----WebKitFormBoundary7MA4YWxkTrZu0gW";

/// A multipart body shaped as a browser sends it: text fields, a UTF-8 name, a file.
fn browser_multipart() -> Vec<u8> {
    let b = BOUNDARY;
    format!(
        "--{b}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nCafé crème\r\n\
         --{b}\r\nContent-Disposition: form-data; name=\"comment\"\r\n\r\nline one\r\nline two\r\n\
         --{b}\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"résumé.txt\"\r\n\
         Content-Type: text/plain\r\n\r\nhello, wörld\n\r\n\
         --{b}\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n\r\n\
         --{b}--\r\n"
    )
    .into_bytes()
}

fn http_request(dir: &Path) {
    let request = |head: &str, body: &[u8]| {
        let mut r = head.replace('\n', "\r\n").into_bytes();
        r.extend_from_slice(body);
        r
    };
    write(
        dir,
        "get",
        &request("GET / HTTP/1.1\nHost: example.com\n\n", b""),
    );
    write(
        dir,
        "get-query",
        &request(
            "GET /search?q=caf%C3%A9&lang=fr HTTP/1.1\nHost: example.com\nUser-Agent: curl/8.5.0\nAccept: */*\n\n",
            b"",
        ),
    );
    write(
        dir,
        "get-traversal",
        &request(
            "GET /files/%c0%ae%c0%ae/etc/passwd HTTP/1.1\nHost: a\n\n",
            b"",
        ),
    );
    write(
        dir,
        "get-absolute",
        &request(
            "GET http://example.com/a/b?x=1 HTTP/1.1\nHost: example.com\n\n",
            b"",
        ),
    );
    let form = b"name=Jos%C3%A9&city=S%C3%A3o+Paulo";
    write(
        dir,
        "post-form",
        &request(
            &format!(
                "POST /submit HTTP/1.1\nHost: a\nContent-Type: application/x-www-form-urlencoded\nContent-Length: {}\n\n",
                form.len()
            ),
            form,
        ),
    );
    let json = "{\"name\":\"Zoë\",\"tags\":[\"a\",\"e\u{301}\"],\"n\":1}".as_bytes();
    write(
        dir,
        "post-json-nfd",
        &request(
            &format!(
                "POST /api HTTP/1.1\nHost: a\nContent-Type: application/json\nContent-Length: {}\n\n",
                json.len()
            ),
            json,
        ),
    );
    let mp = browser_multipart();
    write(
        dir,
        "post-multipart",
        &request(
            &format!(
                "POST /upload HTTP/1.1\nHost: a\nContent-Type: multipart/form-data; boundary={BOUNDARY}\nContent-Length: {}\n\n",
                mp.len()
            ),
            &mp,
        ),
    );
    let text = "plain text body, caf\u{e9}\n".as_bytes();
    let gz = gzip(text);
    write(
        dir,
        "post-gzip",
        &request(
            &format!(
                "POST /t HTTP/1.1\nHost: a\nContent-Type: text/plain; charset=utf-8\nContent-Encoding: gzip\nContent-Length: {}\n\n",
                gz.len()
            ),
            &gz,
        ),
    );
    write(
        dir,
        "post-chunked",
        &request(
            "POST /t HTTP/1.1\nHost: a\nContent-Type: text/plain\nTransfer-Encoding: chunked\n\n",
            b"5\r\nhello\r\n0\r\n\r\n",
        ),
    );
    write(
        dir,
        "post-latin1",
        &request(
            "POST /t HTTP/1.1\nHost: a\nContent-Type: text/plain\nContent-Length: 4\n\n",
            b"caf\xe9",
        ),
    );
}

fn multipart(dir: &Path) {
    let with_boundary = |boundary: &str, body: &[u8]| {
        let mut r = boundary.as_bytes().to_vec();
        r.push(b'\n');
        r.extend_from_slice(body);
        r
    };
    write(
        dir,
        "browser",
        &with_boundary(BOUNDARY, &browser_multipart()),
    );
    write(
        dir,
        "quoted-boundary",
        &with_boundary(
            "\"a b\"",
            b"preamble\r\n--a b\r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--a b--\r\n",
        ),
    );
    write(
        dir,
        "filename-star",
        &with_boundary(
            "XyZ",
            "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"na\u{ef}ve.txt\"; filename*=UTF-8''na%C3%AFve.txt\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ncontent\r\n--XyZ--"
                .as_bytes(),
        ),
    );
    write(
        dir,
        "nfd-field",
        &with_boundary(
            "b",
            "--b\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\ne\u{301}t\u{e9}\r\n--b--\r\n"
                .as_bytes(),
        ),
    );
    write(dir, "no-parts", &with_boundary("b", b"--b--\r\n"));
}

fn coding(dir: &Path) {
    let text = "The quick brown fox jumps over the lazy dog. Café, naïve, 日本語.\n".repeat(8);
    let text = text.as_bytes();
    // Byte 0: low nibble chooses the codings (0 gzip, 1 deflate, 2 br, 3.. stacked pairs),
    // high nibble the number of chunk-size bytes that follow (1..4).
    let seed = |selector: u8, sizes: &[u8], stream: &[u8]| {
        let mut r = vec![selector];
        r.extend_from_slice(sizes);
        r.extend_from_slice(stream);
        r
    };
    write(dir, "gzip", &seed(0x00, &[0], &gzip(text)));
    write(dir, "gzip-chunks", &seed(0x20, &[1, 7, 200], &gzip(text)));
    write(dir, "gzip-empty", &seed(0x00, &[3], &gzip(b"")));
    let mut members = gzip(b"first member\n");
    members.extend_from_slice(&gzip(b"second member\n"));
    write(dir, "gzip-two-members", &seed(0x10, &[5, 0], &members));
    write(dir, "zlib", &seed(0x01, &[0], &zlib(text)));
    write(dir, "zlib-chunks", &seed(0x11, &[1, 13], &zlib(text)));
    write(dir, "raw-deflate", &seed(0x01, &[0], &raw_deflate(text)));
    write(
        dir,
        "raw-deflate-chunks",
        &seed(0x31, &[1, 2, 3, 250], &raw_deflate(text)),
    );
    write(dir, "br", &seed(0x02, &[0], &br(text)));
    write(dir, "br-chunks", &seed(0x12, &[1, 9], &br(text)));
    // Stacked: gzip applied first, then br (choice 3 + 0 * 3 + 2 = 5).
    write(dir, "gzip-then-br", &seed(0x05, &[16], &br(&gzip(text))));
    // deflate then gzip (choice 3 + 1 * 3 + 0 = 6).
    write(
        dir,
        "deflate-then-gzip",
        &seed(0x16, &[4, 64], &gzip(&zlib(text))),
    );
    write(dir, "zeros", &seed(0x00, &[0], &gzip(&[0u8; 4096])));
}

#[path = "../../crates/policy/benches/support/hostile.rs"]
mod hostile;

/// `policy_bounded`: issue 23's hostile bodies (4 KiB, `strict`, uncoded), byte 0 choosing the
/// case's content type as the target reads it, and the query cases' queries.
fn policy_bounded(dir: &Path) {
    const TYPES: [&str; 6] = [
        "text/plain; charset=utf-8",
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=hostile-bench-boundary",
        "application/octet-stream",
        "",
    ];
    for name in hostile::NAMES {
        let case = hostile::case(name, 4 << 10).expect("listed");
        let input = &case.hostile;
        let (selector, bytes) = match TYPES.iter().position(|&t| t == case.content_type) {
            Some(i) if case.in_body() && case.content_encoding.is_none() => (i, &input.body[..]),
            _ => match input.target.iter().position(|&b| b == b'?') {
                Some(q) => (6, &input.target[q + 1..]),
                None => continue,
            },
        };
        let mut seed = vec![selector as u8];
        seed.extend_from_slice(bytes);
        write(dir, name, &seed);
    }
}

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    http_request(&corpus.join("http_request"));
    multipart(&corpus.join("multipart"));
    coding(&corpus.join("coding"));
    policy_bounded(&corpus.join("policy_bounded"));
}
