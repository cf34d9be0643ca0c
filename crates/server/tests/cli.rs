//! The `utf8gate` binary's command line: scan, sanitize, check-config and their exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn utf8gate(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_utf8gate"))
        .args(args)
        .env_remove("UTF8GATE_POLICY_PROFILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("utf8gate-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

#[test]
fn scan_prints_one_verdict_per_input_and_exits_with_the_worst_decision() {
    let clean = temp_file("clean.txt", "Grüße 你好 👩‍💻".as_bytes());
    let nfd = temp_file("nfd.txt", "cafe\u{301}".as_bytes());
    let bad = temp_file("bad.json", b"{\"a\":\"\xC0\xAE\"}");
    let out = utf8gate(
        &[
            "scan",
            clean.to_str().unwrap(),
            nfd.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let decisions: Vec<_> = lines
        .iter()
        .map(|l| l["decision"].as_str().unwrap())
        .collect();
    assert_eq!(decisions, ["allow", "sanitize", "reject"]);
    assert_eq!(lines[2]["findings"][0]["location"]["pointer"], "/a");
    assert_eq!(lines[2]["input"], bad.to_str().unwrap());
    assert_eq!(
        utf8gate(&["scan", clean.to_str().unwrap()], b"")
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        utf8gate(&["scan", nfd.to_str().unwrap()], b"")
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn sanitize_writes_the_rewritten_bytes_and_nothing_when_rejected() {
    let out = utf8gate(&["sanitize", "-"], "cafe\u{301}".as_bytes());
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(1), "café".as_bytes())
    );
    let input = b"ok \xFF\xC0\xAE \xE2\x82";
    let out = utf8gate(&["sanitize", "--profile", "lossy", "-"], input);
    assert_eq!(out.stdout, String::from_utf8_lossy(input).as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let out = utf8gate(&["sanitize", "-"], input);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(2), 0));
}

#[test]
fn usage_input_and_config_errors_are_64_and_up() {
    assert_eq!(utf8gate(&["scan"], b"").status.code(), Some(64));
    assert_eq!(utf8gate(&["frobnicate"], b"").status.code(), Some(64));
    assert_eq!(
        utf8gate(&["scan", "/nonexistent/file"], b"").status.code(),
        Some(66)
    );
    assert_eq!(
        utf8gate(&["scan", "--profile", "nope", "-"], b"")
            .status
            .code(),
        Some(64)
    );
    let bad = temp_file("bad.toml", b"[limits]\nmax_body_bytes = 1\nbogus_key = 2\n");
    let out = utf8gate(&["check-config", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(64));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:3", bad.display())) && err.contains("bogus_key"),
        "{err}"
    );
    let good = temp_file(
        "good.toml",
        utf8gate_server::ops::config::DEFAULT_TOML.as_bytes(),
    );
    assert_eq!(
        utf8gate(&["check-config", good.to_str().unwrap()], b"")
            .status
            .code(),
        Some(0)
    );
    // A bad configuration stops `serve` before any socket is bound.
    let out = utf8gate(&["serve", "--config", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(64));
    let out = utf8gate(&["serve", "--api-addr", "not-an-address"], b"");
    assert_eq!(out.status.code(), Some(64));
}
