//! Archive differential: generated ZIPs and tars (hand-built, with the shapes no library
//! writes, and written by Python's `zipfile` and `tarfile`) read by utf8gate and by real
//! readers: Python's `zipfile` and `tarfile` (`tests/python/archive_readers.py`, standard
//! library only), Info-ZIP's `unzip -Z1` where installed, and libarchive's `bsdtar -tf`
//! (Debian's `libarchive-tools`; every format) where installed (required with
//! `REQUIRE_BSDTAR=1`). Every archive the default profile
//! lets through must be listed by each reader that accepts it with exactly utf8gate's names:
//! an archive any of them reads differently is refused.
//!
//! Without Python the test says so and passes, unless `REQUIRE_PYTHON_PARSERS=1`.

mod support;

use serde_json::{Value, json};
use support::differential::{Rng, b64, python_or_skip, run_readers, unb64};
use utf8gate_policy::{Decision, Part, Profile, Request, evaluate, read_fields};

const NAMES: &[&[u8]] = &[
    b"a.txt",
    b"dir/",
    b"dir/b.txt",
    "café.txt".as_bytes(),
    "日本語/ファイル.txt".as_bytes(),
    "e\u{301}.txt".as_bytes(),
    b"../up.txt",
    b"a/../../b",
    b"/abs",
    b"C:/win",
    b"a\\b",
    b"x\xC0\xAE\xC0\xAE/y",
    b"caf\x82.txt",
    b"nul\0.txt",
    b"\xFF",
    "sp ace/ελ.md".as_bytes(),
];

fn crc(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// A stored ZIP entry: (name, bit 11, local name, extra field).
type ZipEntry = (Vec<u8>, bool, Vec<u8>, Vec<u8>);

fn zip(entries: &[ZipEntry]) -> Vec<u8> {
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for (name, utf8, local, extra) in entries {
        let offset = out.len() as u32;
        let head = |name: &[u8]| {
            let mut h = vec![20, 0, 0, if *utf8 { 8 } else { 0 }, 0, 0, 0, 0, 0, 0];
            h.extend_from_slice(&crc(b"x").to_le_bytes());
            h.extend_from_slice(&[1, 0, 0, 0, 1, 0, 0, 0]);
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            h
        };
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&head(local));
        out.extend_from_slice(local);
        out.extend_from_slice(extra);
        out.push(b'x');
        central.extend_from_slice(b"PK\x01\x02\x14\x03");
        central.extend_from_slice(&head(name));
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
        central.extend_from_slice(extra);
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    let n = entries.len() as u8;
    out.extend_from_slice(&[b'P', b'K', 5, 6, 0, 0, 0, 0, n, 0, n, 0]);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// A generated ZIP: names from the pool, some with the shapes that read twice.
fn generated_zip(rng: &mut Rng) -> Vec<u8> {
    let entries: Vec<ZipEntry> = (0..1 + rng.below(3))
        .map(|_| {
            let name = rng.pick(NAMES).to_vec();
            let utf8 = !rng.chance(20);
            let local = if rng.chance(10) {
                rng.pick(NAMES).to_vec()
            } else {
                name.clone()
            };
            let extra = if rng.chance(15) {
                let path = rng.pick(NAMES);
                let crc_of: &[u8] = if rng.chance(50) { &name } else { b"other" };
                let mut e = vec![0x75, 0x70, (path.len() + 5) as u8, 0, 1];
                e.extend_from_slice(&crc(crc_of).to_le_bytes());
                e.extend_from_slice(path);
                e
            } else {
                Vec::new()
            };
            (name, utf8, local, extra)
        })
        .collect();
    zip(&entries)
}

/// utf8gate's decision and names (in entry order) for `body` as `content_type`.
fn utf8gate(content_type: &str, body: &[u8]) -> (Decision, Vec<Vec<u8>>) {
    let request = Request::new("POST", b"/")
        .header("Host", b"h")
        .header("Content-Type", content_type.as_bytes())
        .body(body);
    let profile = Profile::strict();
    let decision = evaluate(&profile, &request).verdict.decision;
    let names = read_fields(&profile, &request)
        .into_iter()
        .filter(|(l, _)| l.part == Part::ArchiveEntry && l.pointer.is_none())
        .map(|(_, bytes)| bytes)
        .collect();
    (decision, names)
}

/// Info-ZIP's names of the ZIP `body`, or `None` when it refuses it or is not installed.
fn unzip(body: &[u8], i: usize) -> Option<Vec<Vec<u8>>> {
    let path =
        std::env::temp_dir().join(format!("utf8gate-archdiff-{}-{i}.zip", std::process::id()));
    std::fs::write(&path, body).ok()?;
    let out = std::process::Command::new("unzip")
        .arg("-Z1")
        .arg(&path)
        .output()
        .ok();
    let _ = std::fs::remove_file(&path);
    let out = out.filter(|o| o.status.success())?;
    Some(
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// Whether `bsdtar` runs; without it the test says so, or fails with `REQUIRE_BSDTAR=1`.
fn bsdtar_or_skip() -> bool {
    let found = std::process::Command::new("bsdtar")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        let required = std::env::var("REQUIRE_BSDTAR").is_ok_and(|v| v == "1");
        assert!(!required, "REQUIRE_BSDTAR=1 but bsdtar does not run");
        eprintln!("skipped: bsdtar (libarchive-tools) is not installed");
    }
    found
}

/// libarchive's names of `body` (`bsdtar -tf`, names in UTF-8), or `None` when it refuses it.
fn bsdtar(body: &[u8], i: usize) -> Option<Vec<Vec<u8>>> {
    let path = std::env::temp_dir().join(format!("utf8gate-bsdtar-{}-{i}", std::process::id()));
    std::fs::write(&path, body).ok()?;
    let out = std::process::Command::new("bsdtar")
        .env("LC_ALL", "C.UTF-8")
        .arg("-tf")
        .arg(&path)
        .output()
        .ok();
    let _ = std::fs::remove_file(&path);
    let out = out.filter(|o| o.status.success())?;
    let lines = out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    Some(lines.map(<[u8]>::to_vec).collect())
}

#[test]
fn allowed_archives_are_read_alike_by_every_reader() {
    let Some(py) = python_or_skip() else {
        return;
    };
    let libarchive = bsdtar_or_skip();
    let mut rng = Rng(0x5EED_A4C1);
    let mut cases: Vec<(&str, Vec<u8>)> = (0..600)
        .map(|_| ("application/zip", generated_zip(&mut rng)))
        .collect();
    let long = "long/".repeat(30);
    let clean: Vec<Vec<&str>> = vec![
        vec!["a.txt", "dir/", "dir/café.txt"],
        vec!["日本語/ファイル.txt", "Ελληνικά.md", "русский/файл"],
        vec![&long, "emoji-😀.txt"],
    ];
    let to_write: Vec<Value> = (0..60)
        .map(|i| {
            let mut names: Vec<String> = (0..1 + i % 3)
                .map(|_| {
                    let name: &&[u8] = rng.pick(NAMES);
                    String::from_utf8_lossy(name).replace('\0', "")
                })
                .filter(|n| !n.is_empty())
                .collect();
            names.dedup();
            json!(names)
        })
        .chain(clean.iter().map(|c| json!(c)))
        .collect();
    let written = run_readers(&py, "archive_readers.py", &json!({"write": to_write}));
    let written = written["written"].as_array().unwrap();
    for (i, w) in written.iter().enumerate() {
        for (key, ct) in [
            ("zip", "application/zip"),
            ("pax", "application/x-tar"),
            ("gnu", "application/x-tar"),
            ("ustar", "application/x-tar"),
            ("tgz", "application/gzip"),
        ] {
            if let Some(data) = w[key].as_str() {
                let bytes = unb64(data);
                if i >= 60 {
                    assert_eq!(
                        utf8gate(ct, &bytes).0,
                        Decision::Allow,
                        "clean {key} {:?}",
                        clean[i - 60]
                    );
                }
                cases.push((ct, bytes));
            }
        }
    }
    let read: Vec<Value> = cases.iter().map(|(_, b)| json!(b64(b))).collect();
    let answer = run_readers(&py, "archive_readers.py", &json!({"read": read}));
    let results = answer["read"].as_array().unwrap();
    let (mut allowed, mut compared, mut refused) = (0, 0, 0);
    for (i, ((ct, body), result)) in cases.iter().zip(results).enumerate() {
        let (decision, names) = utf8gate(ct, body);
        if decision != Decision::Allow {
            refused += 1;
            continue;
        }
        allowed += 1;
        let reader = if ct.contains("zip") {
            "zipfile"
        } else {
            "tarfile"
        };
        let mut readings = vec![(
            reader,
            result[reader]["names"].as_array().map(|a| {
                a.iter()
                    .map(|n| unb64(n.as_str().unwrap()))
                    .collect::<Vec<_>>()
            }),
        )];
        if ct.contains("zip") {
            readings.push(("unzip", unzip(body, i)));
        }
        if libarchive {
            readings.push(("bsdtar", bsdtar(body, i)));
        }
        // A directory's trailing '/' is dropped by tarfile: it names the same place.
        let trim = |n: &[u8]| n.strip_suffix(b"/").unwrap_or(n).to_vec();
        let names: Vec<Vec<u8>> = names.iter().map(|n| trim(n)).collect();
        for (who, theirs) in readings {
            let Some(theirs) = theirs else { continue };
            let theirs: Vec<Vec<u8>> = theirs.iter().map(|n| trim(n)).collect();
            compared += 1;
            assert_eq!(
                theirs,
                names,
                "{who} reads the allowed {ct} #{i} differently: {}",
                b64(body)
            );
        }
    }
    eprintln!(
        "{} archives: {allowed} allowed, {compared} readings compared equal, {refused} refused",
        cases.len()
    );
    assert!(allowed > 50 && refused > 50, "the generator covers both");
}
