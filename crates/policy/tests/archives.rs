//! Archives as every way in meets them: a streamed body that is an archive (by its type or
//! its first bytes) is refused, never passed unread; an archive sent untyped, as
//! `application/octet-stream` or as such a multipart file part is read for its names as one
//! sent as `application/zip` is. Archives built byte by byte (stored ZIPs, ustar headers).

mod support;

use support::coders::gzip;
use support::zips::{zip, zip_with};
use utf8gate_policy::{BodyScan, Decision, Profile, Request, Verdict, evaluate, evaluate_upload};

/// A ustar archive of `(name, content)` entries, with its two end blocks.
pub(crate) fn tar(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, content) in entries {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name);
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{:011o}", content.len()).as_bytes());
        h[136..147].copy_from_slice(b"00000000000");
        h[148..156].copy_from_slice(b"        ");
        h[156] = b'0';
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(content);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}

fn upload(content_type: &str, body: &[u8]) -> Request {
    let r = Request::new("POST", b"/");
    let r = match content_type {
        "" => r,
        t => r.header("Content-Type", t.as_bytes()),
    };
    r.body(body)
}

/// The verdict of `body` streamed in 1000-byte chunks as `content_type` under strict.
fn streamed(content_type: &str, body: &[u8]) -> Verdict {
    let strict = Profile::strict();
    let mut scan = BodyScan::for_body_of(&strict, &upload(content_type, b""), 1 << 30);
    body.chunks(1000).for_each(|c| scan.feed(c));
    scan.finish()
}

/// A slip ZIP padded past the first 8 KiB by a stored entry of binary content.
fn padded(names: &[&[u8]]) -> Vec<u8> {
    let pad = vec![0xA5u8; 20_000];
    let mut entries: Vec<(&[u8], &[u8])> = vec![(b"pad.bin", &pad)];
    entries.extend(names.iter().map(|n| (*n, &b"x"[..])));
    zip(&entries)
}

#[test]
fn a_streamed_archive_is_refused_never_allowed_unread() {
    let slip = padded(&[b"../../etc/cron.d/x"]);
    let clean = padded(&[b"docs/a.txt"]);
    let tarred = tar(&[(b"pad.bin", &[0xA5; 20_000]), (b"ok.txt", b"x")]);
    for (ct, body) in [
        ("application/zip", &slip),
        ("application/zip", &clean),
        ("application/x-zip-compressed", &clean),
        ("", &slip),
        ("", &clean),
        ("application/octet-stream", &clean),
        ("text/plain", &clean),
        ("", &tarred),
        ("application/octet-stream", &tarred),
        ("application/x-tar", &tarred),
        ("application/octet-stream", &gzip(&tarred)),
        ("application/gzip", &gzip(&tarred)),
    ] {
        let v = streamed(ct, body);
        assert_eq!(v.decision, Decision::Reject, "{ct:?}: {:?}", v.kinds());
        assert_eq!(v.kinds(), ["limit_exceeded"], "{ct:?}");
        assert!(v.findings[0].message.contains("too large"), "{ct:?}");
        // Read whole, the same bytes are read for their names (and as text: its NULs).
        let whole = evaluate_upload(&Profile::strict(), &upload(ct, body)).verdict;
        let refused = std::ptr::eq(body, &slip) || ct == "text/plain";
        let kinds = whole.kinds();
        assert_eq!(
            whole.decision == Decision::Reject,
            refused,
            "{ct:?}: {kinds:?}"
        );
    }
    // Binary that is no archive stays not text, streamed or whole.
    let png = [b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice(), &[0xA5; 20_000]].concat();
    for (ct, body) in [
        ("application/octet-stream", &png),
        ("", &png),
        ("image/png", &png),
        ("application/gzip", &gzip(&png)),
    ] {
        let v = streamed(ct, body);
        assert_eq!(v.decision, Decision::Allow, "{ct:?}: {:?}", v.kinds());
        assert!(v.not_text.is_some(), "{ct:?}");
        let whole = evaluate_upload(&Profile::strict(), &upload(ct, body)).verdict;
        assert_eq!(
            whole.decision,
            Decision::Allow,
            "{ct:?}: {:?}",
            whole.kinds()
        );
    }
}

/// A multipart body with one file part (`type` `None`: no `Content-Type` line).
fn multipart(part_type: Option<&str>, body: &[u8]) -> Vec<u8> {
    let typed = part_type.map_or(String::new(), |t| format!("Content-Type: {t}\r\n"));
    let head = format!(
        "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"upload\"\r\n{typed}\r\n"
    );
    [head.as_bytes(), body, b"\r\n--b--\r\n"].concat()
}

#[test]
fn an_archive_of_no_type_or_an_octet_stream_is_read_as_a_typed_one() {
    let slip = zip(&[(b"ok.txt", b"\0x"), (b"../../x.sh", b"x")]);
    let clean = zip(&[(b"ok.txt", b"\0x"), (b"docs/b.txt", b"x")]);
    let tar_slip = tar(&[(b"ok.txt", b"x"), (b"a/../../x.sh", b"x")]);
    let tar_clean = tar(&[(b"ok.txt", b"x"), (b"a/b.sh", b"x")]);
    let strict = Profile::strict();
    for (body, reject) in [
        (slip, true),
        (clean, false),
        (tar_slip.clone(), true),
        (tar_clean.clone(), false),
        (gzip(&tar_slip), true),
        (gzip(&tar_clean), false),
    ] {
        for ct in ["", "application/octet-stream"] {
            let v = evaluate_upload(&strict, &upload(ct, &body)).verdict;
            assert_eq!(v.decision == Decision::Reject, reject, "{ct:?} {v:?}");
        }
        for part in [None, Some("application/octet-stream")] {
            let form = multipart(part, &body);
            let request = upload("multipart/form-data; boundary=b", &form);
            let v = evaluate(&strict, &request).verdict;
            assert_eq!(v.decision == Decision::Reject, reject, "{part:?} {v:?}");
        }
    }
}

/// The kinds of `body` uploaded as `content_type` under `profile`, each with its location's
/// name.
fn findings(profile: &Profile, content_type: &str, body: &[u8]) -> Vec<(String, String)> {
    let v = evaluate_upload(profile, &upload(content_type, body)).verdict;
    let named = v.findings.iter().map(|f| {
        let name = f.location.name.as_deref().unwrap_or_default().to_string();
        (f.kind.as_str().to_string(), name)
    });
    named.collect()
}

fn limits(toml: &str) -> Profile {
    Profile::from_toml(&format!("name = \"t\"\n[limits]\n{toml}\n"), "t.toml").unwrap()
}

#[test]
fn archive_limits_are_profile_keys() {
    let three = zip(&[(b"a", b"12345"), (b"b", b"12345"), (b"c", b"12345")]);
    let strict = Profile::strict();
    assert!(findings(&strict, "application/zip", &three).is_empty());
    for key in ["max_archive_entries = 2", "max_archive_unpacked_bytes = 12"] {
        let kinds = findings(&limits(key), "application/zip", &three);
        assert_eq!(kinds, [("limit_exceeded".into(), String::new())], "{key}");
    }
    let long = zip(&[(b"abcdef", b"x")]);
    let kinds = findings(
        &limits("max_archive_name_bytes = 5"),
        "application/zip",
        &long,
    );
    assert_eq!(kinds[0].0, "limit_exceeded");
    let nested = zip(&[(b"inner.zip", &three)]);
    let kinds = findings(&limits("max_archive_depth = 1"), "application/zip", &nested);
    assert_eq!(kinds, [("limit_exceeded".into(), "inner.zip".into())]);
    for zero in [
        "max_archive_entries",
        "max_archive_depth",
        "max_archive_unpacked_bytes",
    ] {
        let text = format!("name = \"t\"\n[limits]\n{zero} = 0\n");
        assert!(Profile::from_toml(&text, "t.toml").is_err(), "{zero}");
    }
}

#[test]
fn archives_in_archives_are_read_to_the_depth_or_reported() {
    let strict = Profile::strict();
    let slip = zip(&[(b"ok.txt", b"x"), (b"../../x.sh", b"x")]);
    let clean = zip(&[(b"ok.txt", b"x"), (b"docs/b.txt", b"x")]);
    let tar_slip = tar(&[(b"a/../../y.sh", b"y")]);
    for deflate in [false, true] {
        // By name, by magic (a ZIP named .bin), a tar and a gzip-compressed tar in a ZIP.
        for (name, inner, found) in [
            (&b"inner.zip"[..], &slip, "inner.zip!../../x.sh"),
            (b"data.bin", &slip, "data.bin!../../x.sh"),
            (b"t.tar", &tar_slip, "t.tar!a/../../y.sh"),
            (b"t.tgz", &gzip(&tar_slip), "t.tgz!a/../../y.sh"),
        ] {
            let outer = zip_with(&[(b"readme.txt", b"hi"), (name, inner)], deflate);
            let kinds = findings(&strict, "application/zip", &outer);
            assert_eq!(kinds, [("dot_segment".into(), found.into())], "{deflate}");
        }
        let outer = zip_with(&[(b"inner.zip", &clean)], deflate);
        assert!(findings(&strict, "application/zip", &outer).is_empty());
    }
    // A ZIP in a gzip-compressed tar.
    let tgz = gzip(&tar(&[(b"in.zip", &slip)]));
    let kinds = findings(&strict, "application/gzip", &tgz);
    assert_eq!(kinds, [("dot_segment".into(), "in.zip!../../x.sh".into())]);
    // A chain deeper than max_archive_depth (2), the shape of a quine (an archive that holds
    // itself): read to the depth, the next one reported at its entry, never skipped.
    let deep = zip(&[(b"c.zip", &clean)]);
    let chain = zip(&[(b"b.zip", &deep)]);
    let kinds = findings(&strict, "application/zip", &chain);
    assert_eq!(kinds, [("limit_exceeded".into(), "b.zip!c.zip".into())]);
    // A nested archive past the budget of inflated bytes (max_decoded_bytes).
    let big = zip(&[(b"pad", &[b'a'; 4000]), (b"x", b"x")]);
    let outer = zip_with(&[(b"big.zip", &big)], true);
    let kinds = findings(
        &limits("max_decoded_bytes = 1024"),
        "application/zip",
        &outer,
    );
    assert_eq!(kinds, [("limit_exceeded".into(), "big.zip".into())]);
    // A nested bomb that lies about its size (20 MiB of zeros declared as 10 bytes): inflated
    // to the budget (max_decoded_bytes, 8 MiB) and no further, then refused at its entry.
    let mut bomb = zip_with(&[(b"bomb.zip", &vec![0; 20 << 20])], true);
    let cd = memchr::memmem::rfind(&bomb, b"PK\x01\x02").unwrap();
    bomb[22..26].copy_from_slice(&10u32.to_le_bytes());
    bomb[cd + 24..cd + 28].copy_from_slice(&10u32.to_le_bytes());
    let kinds = findings(&strict, "application/zip", &bomb);
    assert_eq!(kinds, [("limit_exceeded".into(), "bomb.zip".into())]);
    // A corrupt nested archive is refused at its entry.
    let cut = zip(&[(b"cut.zip", &slip[..slip.len() - 5])]);
    let kinds = findings(&strict, "application/zip", &cut);
    assert_eq!(kinds, [("malformed_body".into(), "cut.zip".into())]);
}

/// `[readings] archive_contents = "text"`: each text entry checked as a text body at its entry
/// (nested ones too), binary entries not; within `max_decoded_bytes`, then `limit_exceeded`.
#[test]
fn text_contents_are_checked_when_the_profile_reads_them() {
    let read = |extra: &str| {
        let text = format!("name = \"c\"\n[readings]\narchive_contents = \"text\"\n{extra}");
        Profile::from_toml(&text, "c.toml").unwrap()
    };
    let contents = read("");
    let bad: &[u8] = b"ok\nbad \xC0\xAE here\n";
    let binary = [b"\x89PNG\0\0", bad].concat();
    let inner = zip(&[(b"deep.txt", bad)]);
    for deflate in [false, true] {
        let archive = zip_with(
            &[(b"a.txt", b"fine\n"), (b"b.txt", bad), (b"c.png", &binary)],
            deflate,
        );
        // Off by default: the names are clean.
        assert!(findings(&Profile::strict(), "application/zip", &archive).is_empty());
        let found = findings(&contents, "application/zip", &archive);
        assert_eq!(found, [("overlong".into(), "b.txt".into())], "{deflate}");
        let nested = zip_with(&[(b"in.zip", &inner)], deflate);
        let found = findings(&contents, "application/zip", &nested);
        assert_eq!(found, [("overlong".into(), "in.zip!deep.txt".into())]);
    }
    let tarred = gzip(&tar(&[(b"a.txt", b"fine\n"), (b"b.txt", bad)]));
    let found = findings(&contents, "application/gzip", &tarred);
    assert_eq!(found, [("overlong".into(), "b.txt".into())]);
    // Past the budget of read bytes: said at the entry, never skipped.
    let big = zip(&[(b"a.txt", &[b'a'; 3000]), (b"b.txt", &[b'b'; 3000])]);
    let small = read("[limits]\nmax_decoded_bytes = 4096\n");
    let found = findings(&small, "application/zip", &big);
    assert_eq!(found, [("limit_exceeded".into(), "b.txt".into())]);
}

/// A body an authorization check brought cut (Envoy's `x-envoy-auth-partial-body`): an archive
/// cannot be read in part (a ZIP's names are at its end), so it is refused, never passed as
/// binary that lost nothing by the cut.
#[test]
fn a_cut_archive_is_refused() {
    let slip = zip(&[(b"pad.bin", &[0xA5; 4000]), (b"../x.sh", b"x")]);
    for (ct, refused) in [
        ("application/zip", true),
        ("application/x-tar", true),
        // A ZIP is an archive whatever its label (its first bytes say so).
        ("image/png", true),
    ] {
        let mut request = upload(ct, &slip[..2000]).header("Host", b"h");
        request.body_state = utf8gate_policy::BodyState::Cut;
        let v = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(
            v.decision == Decision::Reject,
            refused,
            "{ct}: {:?}",
            v.kinds()
        );
        assert_eq!(v.kinds().contains(&"limit_exceeded"), refused, "{ct}");
    }
}
