//! The `utf8gate` command line as a process: `scan` over a mix of files (good, rejected,
//! sanitized, binary, UTF-16, missing) in both formats and with `-q`, its exit statuses, and
//! the same verdict as `/v1/scan` for the same bytes and content type.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use utf8gate_e2e::{Gateway, binary, exchange, request};

// =============================================================================================
// CLI: scan
// =============================================================================================

/// A fresh directory with `files` (name, bytes) in it.
fn files(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("utf8gate-e2e-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).expect("write a file");
    }
    dir
}

/// `utf8gate ARGS` run in `dir`, with no `UTF8GATE_` variable of the test's environment.
fn utf8gate(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(binary());
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("UTF8GATE_") {
            command.env_remove(name);
        }
    }
    command.output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

fn utf16le(s: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

#[test]
fn scan_reports_every_input_and_exits_with_the_worst_status() {
    let utf16 = utf16le("plain ASCII text, in UTF-16: full of NULs");
    let dir = files(
        "mix",
        &[
            ("good.txt", "Grüße 你好\n".as_bytes()),
            ("bad.txt", b"ok\nbad \xC0\xAE here\n"),
            ("nfd.txt", "cafe\u{301}\n".as_bytes()),
            ("photo.dat", b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\xC0\xAE"),
            ("utf16.txt", &utf16),
        ],
    );
    let all = [
        "good.txt",
        "missing.txt",
        "bad.txt",
        "nfd.txt",
        "photo.dat",
        "utf16.txt",
    ];
    let json = utf8gate(&dir, &[&["scan", "--format", "json"], &all[..]].concat());
    // The unreadable input outranks the rejected ones, and every other input is still reported.
    assert_eq!(json.status.code(), Some(66), "{}", text(&json.stderr));
    let lines: Vec<serde_json::Value> = text(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let seen: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["input"].as_str().unwrap(),
                l["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("good.txt", "allow"),
            ("bad.txt", "reject"),
            ("nfd.txt", "sanitize"),
            ("utf16.txt", "reject")
        ]
    );
    // UTF-16 is one clear finding, not a malformation per byte pair.
    assert_eq!(
        lines[3]["counts"],
        serde_json::json!({"foreign_charset": 1})
    );
    assert_eq!(
        lines[3]["findings"][0]["message"],
        "this is UTF-16LE, not UTF-8 (signature FF FE)"
    );
    let stderr = text(&json.stderr);
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 2, "{stderr}");
    assert!(notes[0].starts_with("utf8gate: missing.txt: "), "{stderr}");
    assert!(
        notes[1].starts_with("utf8gate: photo.dat: skipped: binary"),
        "{stderr}"
    );

    // Human lines: file:line:column (bytes), the kind, the bytes in hex; a summary per input.
    let human = utf8gate(
        &dir,
        &[
            "scan", "--format", "human", "good.txt", "bad.txt", "nfd.txt",
        ],
    );
    assert_eq!(human.status.code(), Some(2));
    let out = text(&human.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "good.txt: allow", "{out}");
    assert!(lines[1].starts_with("bad.txt:2:5: overlong: "), "{out}");
    assert!(lines[1].ends_with(" [C0 AE]"), "{out}");
    assert_eq!(lines[2], "bad.txt: reject: 1 finding (overlong)", "{out}");
    assert!(lines[3].starts_with("nfd.txt:1:4: not_nfc: "), "{out}");
    assert_eq!(lines[4], "nfd.txt: sanitize: 1 finding (not_nfc)", "{out}");
    // Not a terminal: JSON Lines by default.
    let default = utf8gate(&dir, &["scan", "good.txt"]);
    assert_eq!(default.status.code(), Some(0));
    assert!(text(&default.stdout).starts_with('{'));

    // -q: the status only; errors still on stderr.
    for (args, status) in [
        (&["good.txt", "nfd.txt"][..], 1),
        (&["good.txt", "photo.dat"][..], 0),
        (&["nfd.txt", "bad.txt"][..], 2),
        (&["bad.txt", "missing.txt"][..], 66),
    ] {
        let quiet = utf8gate(&dir, &[&["scan", "-q"], args].concat());
        assert_eq!(quiet.status.code(), Some(status), "{args:?}");
        assert!(quiet.stdout.is_empty(), "{args:?}");
        assert_eq!(
            quiet.stderr.is_empty(),
            !args.contains(&"missing.txt"),
            "{args:?}: {}",
            text(&quiet.stderr)
        );
    }

    // --binary reads what looks binary as text: the NUL and the overlong are found, with or
    // without a binary --content-type.
    for flag in [
        &["--binary"][..],
        &["--binary", "--content-type", "application/octet-stream"][..],
    ] {
        let out = utf8gate(
            &dir,
            &[&["scan", "--format", "json"], flag, &["photo.dat"]].concat(),
        );
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(line["counts"]["nul"], 2, "{flag:?}: {line}");
        assert_eq!(line["counts"]["overlong"], 1, "{flag:?}: {line}");
    }
    // A binary --content-type alone says what the input is: not text, allowed, as /v1/scan.
    let out = utf8gate(
        &dir,
        &[
            "scan",
            "--format",
            "json",
            "--content-type",
            "application/octet-stream",
            "photo.dat",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let line: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert!(
        line["not_text"]
            .as_str()
            .unwrap()
            .contains("by its signature"),
        "{line}"
    );
}

#[test]
fn usage_errors_are_64_and_list_what_is_known() {
    let dir = files("usage", &[("a.txt", b"a")]);
    let out = utf8gate(&dir, &["scan", "--profile", "nope", "a.txt"]);
    assert_eq!(out.status.code(), Some(64));
    assert!(
        text(&out.stderr)
            .contains("unknown profile \"nope\" (known: lossy, monitor, strict, windows-backend)"),
        "{}",
        text(&out.stderr)
    );
    let out = utf8gate(&dir, &["check-config", "missing.toml"]);
    assert_eq!(out.status.code(), Some(66), "{}", text(&out.stderr));
    let out = utf8gate(&dir, &["sanitize", "a.txt", "a.txt"]);
    assert_eq!(out.status.code(), Some(64), "sanitize takes one input");
    let help = text(&utf8gate(&dir, &["scan", "--help"]).stdout);
    for code in ["0 ", "1 ", "2 ", "64", "66", "69"] {
        assert!(
            help.contains(&format!("\n  {code}")),
            "exit {code} in --help:\n{help}"
        );
    }
}

/// The same bytes and content type get the same verdict from `utf8gate scan --content-type`
/// and `POST /v1/scan` of the running binary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_and_v1_scan_agree_on_bytes_and_content_type() {
    let gw = Gateway::start("", None).await;
    let utf16 = utf16le("hé");
    let cases: [(&str, &[u8]); 10] = [
        ("text/plain", "Grüße\n".as_bytes()),
        ("text/plain", b"a\xC0\xAEb\x00"),
        ("text/plain", "cafe\u{301}".as_bytes()),
        ("text/plain", &utf16),
        ("application/json", b"{\"a\":\"\\ud800\",\"b\":\"e\xCC\x81\"}"),
        ("application/json", b"{\"a\":"),
        ("application/x-www-form-urlencoded", b"q=%C0%AE%C0%AE&r=caf%C3%A9"),
        ("text/plain; charset=iso-8859-1", b"caf\xE9"),
        ("application/octet-stream", b"\xFF\xD8\x00\xC0\xAE"),
        ("multipart/form-data; boundary=b", b"--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a/../b\"\r\n\r\nx\r\n--b--\r\n"),
    ];
    for (i, (content_type, body)) in cases.iter().enumerate() {
        let dir = files(&format!("agree-{i}"), &[("input", body)]);
        let cli = utf8gate(
            &dir,
            &[
                "scan",
                "--format",
                "json",
                "--content-type",
                content_type,
                "input",
            ],
        );
        let mut from_cli: serde_json::Value =
            serde_json::from_str(text(&cli.stdout).trim()).expect("one JSON line");
        from_cli.as_object_mut().unwrap().remove("input");
        let sent = request(
            "POST",
            "/v1/scan",
            &[("Content-Type", content_type.as_bytes())],
            body,
        );
        let response = exchange(gw.api, &sent).await;
        assert_eq!(response.status, 200, "{content_type}");
        assert_eq!(from_cli, response.json(), "{content_type} {body:02X?}");
        let status = match from_cli["decision"].as_str().unwrap() {
            "allow" => 0,
            "sanitize" => 1,
            _ => 2,
        };
        assert_eq!(cli.status.code(), Some(status), "{content_type}");
    }
}

// New CLI tests go here.
