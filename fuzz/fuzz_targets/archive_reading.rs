//! Issue 27's archive reading: a fuzzed body evaluated under `strict` as a ZIP, a tar or a
//! gzip-compressed tar (the first byte chooses, and whether text entries' contents are read:
//! `[readings] archive_contents = "text"`). Never a panic or a hang (contents are expanded
//! within `max_decoded_bytes` only); and every entry name of an allowed archive (nested ones'
//! too) holds to invariants written here independently of the reading: valid UTF-8, no NUL or
//! other C0 control, no `..` segment, not absolute, no drive letter, no backslash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{
    ArchiveContentsReading, Decision, Part, Profile, Request, evaluate, read_fields,
};

const TYPES: [&str; 3] = ["application/zip", "application/x-tar", "application/gzip"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, body)) = data.split_first() else {
        return;
    };
    let request = Request::new("POST", b"/")
        .header("Host", b"a.example")
        .header("Content-Type", TYPES[usize::from(choice) % 3].as_bytes())
        .body(body);
    let mut strict = Profile::strict();
    if choice / 3 % 2 == 1 {
        strict.readings.archive_contents = ArchiveContentsReading::Text;
    }
    if evaluate(&strict, &request).verdict.decision == Decision::Reject {
        return;
    }
    for (location, name) in read_fields(&strict, &request) {
        if location.part != Part::ArchiveEntry {
            continue;
        }
        let text = core::str::from_utf8(&name).expect("allowed a name that is not UTF-8");
        assert!(!text.bytes().any(|b| b < 0x20), "allowed a control in {text:?}");
        assert!(!text.split('/').any(|s| s == ".."), "allowed a '..' in {text:?}");
        assert!(!text.starts_with('/') && !text.contains('\\'), "allowed {text:?}");
        let drive = text.len() >= 2 && text.as_bytes()[1] == b':';
        assert!(!drive, "allowed a drive letter in {text:?}");
    }
});
