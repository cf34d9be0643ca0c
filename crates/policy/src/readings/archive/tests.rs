//! ZIPs built byte by byte, for the shapes no library writes: a Unicode Path field that
//! disagrees (with its CRC right or wrong), bit 11 on non-UTF-8, a local header that names
//! another file, overlapping entries, a declared expansion past the ratio.

use crate::{Decision, Profile, Request, evaluate_upload};

/// One entry: its name, flags (bit 11), extra field (central and local), content, and the
/// local header's name when it differs.
#[derive(Clone, Default)]
pub(crate) struct ZipEntry {
    pub(crate) name: Vec<u8>,
    pub(crate) utf8: bool,
    pub(crate) extra: Vec<u8>,
    pub(crate) content: Vec<u8>,
    pub(crate) local_name: Option<Vec<u8>>,
    pub(crate) declared_size: Option<u32>,
    pub(crate) symlink: bool,
}

impl ZipEntry {
    pub(crate) fn named(name: &[u8]) -> ZipEntry {
        ZipEntry {
            name: name.to_vec(),
            utf8: true,
            content: b"text\n".to_vec(),
            ..ZipEntry::default()
        }
    }
}

fn crc(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// A Unicode Path extra field (0x7075) naming `path`, with the CRC of `header_name`.
pub(crate) fn unicode_path(header_name: &[u8], path: &[u8]) -> Vec<u8> {
    let mut data = vec![1];
    data.extend_from_slice(&crc(header_name).to_le_bytes());
    data.extend_from_slice(path);
    let mut out = 0x7075u16.to_le_bytes().to_vec();
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

/// A stored ZIP of `entries`.
pub(crate) fn zip(entries: &[ZipEntry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for e in entries {
        let offset = out.len() as u32;
        let flags: u16 = if e.utf8 { 0x800 } else { 0 };
        let local_name = e.local_name.as_ref().unwrap_or(&e.name);
        let size = e.content.len() as u32;
        let common = |out: &mut Vec<u8>, name: &[u8]| {
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // stored, time, date
            out.extend_from_slice(&crc(&e.content).to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&e.declared_size.unwrap_or(size).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&(e.extra.len() as u16).to_le_bytes());
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out, local_name);
        out.extend_from_slice(local_name);
        out.extend_from_slice(&e.extra);
        out.extend_from_slice(&e.content);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes()); // made by Unix
        common(&mut central, &e.name);
        central.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        let mode: u32 = if e.symlink { 0o120_777 } else { 0o100_644 };
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(&e.name);
        central.extend_from_slice(&e.extra);
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    let n = (entries.len() as u16).to_le_bytes();
    out.extend_from_slice(&[n[0], n[1], n[0], n[1]]);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// The verdict's decision and kinds for `body` uploaded as `content_type` under strict.
pub(crate) fn verdict(content_type: &str, body: &[u8]) -> (Decision, Vec<String>) {
    let upload = Request::new("POST", b"/")
        .header("Content-Type", content_type.as_bytes())
        .body(body);
    let v = evaluate_upload(&Profile::strict(), &upload).verdict;
    assert!(v.not_text.is_none(), "an archive is read: {:?}", v.not_text);
    (
        v.decision,
        v.kinds().into_iter().map(String::from).collect(),
    )
}

fn kinds_of(entries: &[ZipEntry]) -> Vec<String> {
    let (decision, kinds) = verdict("application/zip", &zip(entries));
    assert_eq!(decision == Decision::Reject, !kinds.is_empty(), "{kinds:?}");
    kinds
}

#[test]
fn clean_names_in_many_scripts_pass() {
    let names = [
        "readme.txt",
        "dir/",
        "dir/café.txt",
        "日本語/ファイル.txt",
        "Ελληνικά.md",
        "русский/файл",
        "עברית.txt",
        "한국어.txt",
        "emoji-😀.png",
        "a.b/c..d/e.",
    ];
    let entries: Vec<ZipEntry> = names
        .iter()
        .map(|n| ZipEntry::named(n.as_bytes()))
        .collect();
    assert_eq!(kinds_of(&entries), Vec::<String>::new());
    let (decision, _) = verdict("application/zip", &zip(&[]));
    assert_eq!(decision, Decision::Allow, "an empty ZIP");
}

#[test]
fn names_are_checked_as_paths() {
    for (name, kind) in [
        (&b"../evil.sh"[..], "dot_segment"),
        (b"a/\xC0\xAE\xC0\xAE/b", "overlong"),
        (b"a\0.txt", "nul"),
        (b"/etc/passwd", "archive_path"),
        (b"C:/Windows/x.dll", "archive_path"),
        (b"a\\..\\b", "archive_path"),
        (b"bad\xFF.txt", "invalid_byte"),
        (b"a\xE2\x80\xAEtxt.exe", "bidi_control"),
        (b"a\x1B[31m", "control"),
    ] {
        let kinds = kinds_of(&[ZipEntry::named(b"ok.txt"), ZipEntry::named(name)]);
        assert!(kinds.iter().any(|k| k == kind), "{name:?}: {kinds:?}");
    }
}

#[test]
fn second_readings_of_a_name_are_refused() {
    let cases = [
        // The Unicode Path field names another file, CRC right or wrong.
        ZipEntry {
            extra: unicode_path(b"a.txt", b"../a.txt"),
            ..ZipEntry::named(b"a.txt")
        },
        ZipEntry {
            extra: unicode_path(b"zzz", b"b.txt"),
            ..ZipEntry::named(b"a.txt")
        },
        // Not flagged UTF-8, not ASCII: CP437 and UTF-8 readers disagree.
        ZipEntry {
            utf8: false,
            ..ZipEntry::named("café".as_bytes())
        },
        // The local header names another file.
        ZipEntry {
            local_name: Some(b"../x".to_vec()),
            ..ZipEntry::named(b"a.txt")
        },
    ];
    for entry in cases {
        let kinds = kinds_of(&[entry]);
        assert!(
            kinds.iter().any(|k| k == "ambiguous_archive_name"),
            "{kinds:?}"
        );
    }
    // A Unicode Path field that agrees is one reading.
    let agrees = ZipEntry {
        extra: unicode_path(b"a.txt", b"a.txt"),
        ..ZipEntry::named(b"a.txt")
    };
    assert_eq!(kinds_of(&[agrees]), Vec::<String>::new());
}

#[test]
fn link_targets_are_checked() {
    let link = ZipEntry {
        symlink: true,
        content: b"../../etc".to_vec(),
        ..ZipEntry::named(b"l")
    };
    assert!(kinds_of(&[link]).contains(&"dot_segment".to_string()));
    let link = ZipEntry {
        symlink: true,
        content: b"/etc".to_vec(),
        ..ZipEntry::named(b"l")
    };
    assert!(kinds_of(&[link]).contains(&"archive_path".to_string()));
}

#[test]
fn corrupt_lying_and_bombs_are_refused_without_expanding() {
    let good = zip(&[ZipEntry::named(b"a.txt"), ZipEntry::named(b"b.txt")]);
    let (_, kinds) = verdict("application/zip", b"%PDF-1.7 not a zip");
    assert_eq!(kinds, ["ambiguous_media_type"]);
    // An end record shorter than its 22 bytes, a comment length past the end.
    for short in [
        &b"PK\x05\x06"[..],
        b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xFF\xFF",
    ] {
        assert_eq!(verdict("application/zip", short).1, ["malformed_body"]);
    }
    for cut in [1, 10, 30, good.len() / 2] {
        let (_, kinds) = verdict("application/zip", &good[..good.len() - cut]);
        assert_eq!(kinds, ["malformed_body"], "cut {cut}");
    }
    // An entry that declares a 1 GiB expansion of 5 bytes.
    let bomb = ZipEntry {
        declared_size: Some(1 << 30),
        ..ZipEntry::named(b"bomb")
    };
    assert_eq!(kinds_of(&[bomb]), ["limit_exceeded"]);
    // Two central headers pointing at one local record: overlapping entries.
    let mut overlap = zip(&[ZipEntry::named(b"a"), ZipEntry::named(b"a")]);
    let cd = memchr::memmem::rfind(&overlap, b"PK\x01\x02").unwrap();
    overlap[cd + 42..cd + 46].copy_from_slice(&0u32.to_le_bytes());
    let upload = Request::new("POST", b"/")
        .header("Content-Type", b"application/zip")
        .body(&overlap);
    let v = evaluate_upload(&Profile::strict(), &upload).verdict;
    assert_eq!(v.kinds(), ["malformed_body"]);
    assert!(
        v.findings[0].message.contains("overlap"),
        "{}",
        v.findings[0].message
    );
}

#[test]
fn every_prefix_and_byte_flip_is_read_without_panic() {
    let good = zip(&[
        ZipEntry {
            extra: unicode_path(b"a.txt", b"a.txt"),
            ..ZipEntry::named(b"a.txt")
        },
        ZipEntry {
            symlink: true,
            content: b"a.txt".to_vec(),
            ..ZipEntry::named(b"l")
        },
    ]);
    for end in 0..good.len() {
        let _ = verdict("application/zip", &good[..end]);
    }
    for at in 0..good.len() {
        let mut flipped = good.clone();
        flipped[at] ^= 0xFF;
        let _ = verdict("application/zip", &flipped);
    }
}
