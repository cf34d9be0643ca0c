//! Tars built byte by byte: ustar name and prefix, GNU long names, pax `path` per entry and
//! global, a pax size that disagrees, bytes after the end, gzip-compressed.

use crate::Decision;
use crate::readings::archive::tests::verdict;

/// A 512-byte header: name, type flag, size, link name, ustar prefix; its checksum set.
fn header(name: &[u8], kind: u8, size: usize, link: &[u8], prefix: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..107].copy_from_slice(b"0000644");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = kind;
    h[157..157 + link.len()].copy_from_slice(link);
    h[257..265].copy_from_slice(b"ustar\x0000");
    h[345..345 + prefix.len()].copy_from_slice(prefix);
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    h
}

/// A member: its header and its data, padded.
fn member(name: &[u8], kind: u8, data: &[u8]) -> Vec<u8> {
    let mut out = header(name, kind, data.len(), b"", b"");
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A pax record `key=value`.
fn record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = [key.as_bytes(), b"=", value, b"\n"].concat();
    let mut len = body.len() + 2;
    while format!("{len} ").len() + body.len() != len {
        len += 1;
    }
    [format!("{len} ").as_bytes(), &body].concat()
}

fn tar(members: &[Vec<u8>]) -> Vec<u8> {
    let mut out = members.concat();
    out.extend_from_slice(&[0; 1024]);
    out
}

fn kinds(body: &[u8]) -> Vec<String> {
    let (decision, kinds) = verdict("application/x-tar", body);
    assert_eq!(decision == Decision::Reject, !kinds.is_empty(), "{kinds:?}");
    kinds
}

#[test]
fn clean_tars_pass_and_names_are_checked() {
    let long = "d/".repeat(80) + "日本語.txt";
    let clean = tar(&[
        member(b"dir/", b'5', b""),
        member("dir/café.txt".as_bytes(), b'0', b"hello"),
        member(b"././@LongLink", b'L', long.as_bytes()),
        member(&long.as_bytes()[..100], b'0', b"x"),
        member(
            b"PaxHeaders/x",
            b'x',
            &record("path", "Ελληνικά/ü.txt".as_bytes()),
        ),
        member(b"????????/?.txt", b'0', b"x"),
    ]);
    assert_eq!(kinds(&clean), Vec::<String>::new());
    let prefixed = tar(&[[header(b"x.txt", b'0', 0, b"", b"../up"), vec![]].concat()]);
    assert_eq!(kinds(&prefixed), ["dot_segment"], "ustar prefix + name");
    let link = tar(&[header(b"l", b'2', 0, b"/etc/passwd", b"")]);
    assert_eq!(kinds(&link), ["archive_path"]);
}

#[test]
fn second_readings_of_a_name_are_refused() {
    let pax_vs_ustar = tar(&[
        member(b"PaxHeaders/a", b'x', &record("path", b"safe.txt")),
        member(b"../../evil", b'0', b"x"),
    ]);
    let global = tar(&[
        member(b"pax_global_header", b'g', &record("path", b"../g")),
        member(b"a.txt", b'0', b"x"),
    ]);
    let gnu_vs_pax = tar(&[
        member(b"././@LongLink", b'L', b"one.txt"),
        member(b"PaxHeaders/a", b'x', &record("path", b"two.txt")),
        member(b"one.txt", b'0', b"x"),
    ]);
    let size = tar(&[
        member(b"PaxHeaders/a", b'x', &record("size", b"1024")),
        member(b"a.txt", b'0', b"x"),
    ]);
    for (what, body) in [
        ("pax", pax_vs_ustar),
        ("global", global),
        ("gnu", gnu_vs_pax),
        ("size", size),
    ] {
        let kinds = kinds(&body);
        assert!(
            kinds.contains(&"ambiguous_archive_name".to_string()),
            "{what}: {kinds:?}"
        );
    }
}

#[test]
fn corrupt_trailing_and_compressed_tars() {
    let good = tar(&[member(b"a.txt", b'0', b"hello")]);
    let mut bad_sum = good.clone();
    bad_sum[0] = b'b';
    assert_eq!(kinds(&bad_sum), ["malformed_body"]);
    let mut trailing = good.clone();
    trailing.extend_from_slice(&member(b"hidden/../x", b'0', b""));
    assert_eq!(kinds(&trailing), ["malformed_body"]);
    assert_eq!(kinds(&good[..700]), ["malformed_body"]);
    for end in (0..good.len()).step_by(97) {
        let _ = verdict("application/x-tar", &good[..end]);
    }
    use std::io::Write;
    let gzip = |bytes: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    };
    let (decision, found) = verdict("application/gzip", &gzip(&good));
    assert_eq!((decision, found.len()), (Decision::Allow, 0));
    // GNU tar's type names a tar, compressed or not; a tar is no gzip.
    assert_eq!(
        verdict("application/x-gtar", &gzip(&good)).0,
        Decision::Allow
    );
    assert_eq!(verdict("application/x-gtar", &good).0, Decision::Allow);
    assert_eq!(
        verdict("application/gzip", &good).1,
        ["ambiguous_media_type"]
    );
    let slip = tar(&[member(b"../x", b'0', b"")]);
    assert_eq!(verdict("application/gzip", &gzip(&slip)).1, ["dot_segment"]);
    // A gzip of text is no archive: not text, allowed.
    let upload = crate::Request::new("POST", b"/")
        .header("Content-Type", b"application/gzip")
        .body(&gzip(b"just \xC0\xAE text"));
    let v = crate::evaluate_upload(&crate::Profile::strict(), &upload).verdict;
    assert_eq!(v.decision, Decision::Allow);
    assert!(v.not_text.is_some());
    // A bomb: a header declaring a huge entry of zeros, inflated only up to the cap.
    let mut bomb = header(b"zeros", b'0', 1 << 32, b"", b"");
    bomb.extend_from_slice(&vec![0; 1 << 22]);
    assert_eq!(
        verdict("application/gzip", &gzip(&bomb)).1,
        ["limit_exceeded"]
    );
}
