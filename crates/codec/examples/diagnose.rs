//! Diagnoses files, or an embedded corpus of the attacks RFC 3629 §10 warns about.
//!
//! `cargo run --release -p utf8gate-codec --example diagnose [-- FILE ...]`
//!
//! Prints one line per malformed sequence, then what a strict and a lossy decoder make of the
//! input. Exit status: 0 if every input is valid UTF-8, 1 otherwise, 2 on an I/O error.

use std::process::ExitCode;

use utf8gate_codec::{diagnose, to_lossy, validate};

const EMBEDDED: &[(&str, &[u8])] = &[
    (
        "traversal with an overlong dot (IIS, Nimda)",
        b"/scripts/\xC0\xAE\xC0\xAE/winnt/system32/cmd.exe",
    ),
    ("overlong NUL", b"file.txt\xC0\x80.jpg"),
    ("overlong backslash", b"..\xC1\x9C..\xC1\x9Cboot.ini"),
    ("5-byte overlong slash", b"a\xF8\x80\x80\x80\xAFb"),
    ("CESU-8 pair", b"smile \xED\xA0\xBD\xED\xB8\x80"),
    ("lone surrogate", b"x\xED\xA0\x80y"),
    ("above U+10FFFF", b"\xF4\x90\x80\x80"),
    ("invalid bytes and a truncated tail", b"\xFE\xFFok\xE2\x82"),
    ("valid text", "Grüße, Привет, 你好, 👩‍💻".as_bytes()),
];

fn report(name: &str, bytes: &[u8]) -> bool {
    println!("{name} ({} bytes)", bytes.len());
    for m in diagnose(bytes) {
        println!("  [{}] {}", m.kind(), m.message());
    }
    match validate(bytes) {
        Ok(_) => println!("  valid UTF-8"),
        Err(e) => println!(
            "  strict: valid up to byte {}, error_len {:?}; lossy: {:?}",
            e.valid_up_to(),
            e.error_len(),
            to_lossy(bytes)
        ),
    }
    validate(bytes).is_ok()
}

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let mut all_valid = true;
    if files.is_empty() {
        for (name, bytes) in EMBEDDED {
            all_valid &= report(name, bytes);
        }
    }
    for file in &files {
        match std::fs::read(file) {
            Ok(bytes) => all_valid &= report(file, &bytes),
            Err(e) => {
                eprintln!("{file}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
