//! Markus Kuhn's "UTF-8 decoder capability and stress test" (CC BY 4.0), read from
//! `tests/data/UTF-8-test.txt`: every line's validity and lossy decoding agree with std,
//! and the lines of sections 3 to 5 report the kinds those sections name.

mod support;

use std::path::PathBuf;

use support::{check_diagnosis, check_lossy, check_validate};
use utf8gate_codec::MalformedKind::{self, *};

fn kuhn_file() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/UTF-8-test.txt");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The kinds a section's lines may report, by section number prefix; `&[]` means valid.
fn expected_kinds(section: &str) -> Option<&'static [MalformedKind]> {
    const TABLE: &[(&str, &[MalformedKind])] = &[
        ("2.1.5", &[LegacyForm]),
        ("2.1.6", &[LegacyForm]),
        ("2.2.4", &[AboveMax]),
        ("2.2.5", &[LegacyForm]),
        ("2.2.6", &[LegacyForm]),
        ("2.3.5", &[AboveMax]),
        ("2.", &[]),
        ("3.1", &[UnexpectedContinuation]),
        ("3.2", &[Truncated]),
        ("3.3", &[Truncated]),
        ("3.4", &[Truncated]),
        ("3.5", &[InvalidByte]),
        ("4.", &[Overlong]),
        ("5.1", &[Surrogate]),
        ("5.2", &[Cesu8Pair]),
        ("5.3", &[]),
    ];
    TABLE
        .iter()
        .find(|(p, _)| section.starts_with(p))
        .map(|(_, k)| *k)
}

/// A line's section number, if the line starts with one ("3.1.2  ...").
fn section_of(line: &[u8]) -> Option<String> {
    let end = line.iter().position(|&b| b == b' ')?;
    let head = std::str::from_utf8(&line[..end]).ok()?;
    let ok = head.contains('.') && head.chars().all(|c| c.is_ascii_digit() || c == '.');
    ok.then(|| head.trim_end_matches('.').to_string())
}

#[test]
fn every_line_agrees_with_std() {
    let file = kuhn_file();
    assert_eq!(file.len(), 22_835, "the stress test file changed");
    let mut invalid_lines = 0;
    for line in file.split(|&b| b == b'\n') {
        check_validate(line);
        check_lossy(line);
        invalid_lines += usize::from(!check_diagnosis(line).is_empty());
    }
    // Python's strict `bytes.decode('utf-8')` rejects 68 lines of the file.
    assert_eq!(invalid_lines, 68);
}

#[test]
fn sections_three_to_five_report_their_kinds() {
    let file = kuhn_file();
    let mut section = String::new();
    let mut checked = 0;
    for line in file.split(|&b| b == b'\n') {
        if let Some(s) = section_of(line) {
            section = s;
        }
        let Some(kinds) = expected_kinds(&section) else {
            continue;
        };
        let found = check_diagnosis(line);
        for m in &found {
            assert!(
                kinds.contains(&m.kind()),
                "section {section}: {m:?} in {line:02X?}"
            );
            checked += 1;
        }
        if kinds.is_empty() {
            assert!(
                found.is_empty(),
                "section {section} should be valid: {found:?}"
            );
        }
    }
    assert!(checked > 150, "only {checked} malformations were checked");
}

#[test]
fn concatenated_incomplete_sequences_are_ten_findings() {
    let file = kuhn_file();
    let line = file
        .split(|&b| b == b'\n')
        .find(|l| l.starts_with(b"   \"\xC0\xE0\x80"))
        .expect("section 3.4 line");
    let found = check_diagnosis(line);
    assert_eq!(found.len(), 10, "{found:?}");
    assert!(found.iter().all(|m| m.kind() == Truncated));
}
