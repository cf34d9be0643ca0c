//! Plumbing of the parser differentials: a seeded generator, base64 both ways, and the
//! pinned virtualenv's readers (`tests/python/`), run with one JSON document in and out.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// xorshift64*: the bodies are the same on every run.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

pub(crate) fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                A[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

pub(crate) fn unb64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            _ => 63,
        };
        acc = acc << 6 | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The interpreter of the pinned virtualenv, or why there is none.
pub(crate) fn python() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("bash")
        .arg(root.join("tests/python/setup-venv.sh"))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("bash: {e}"))?;
    if !out.status.success() {
        return Err(format!("setup-venv.sh failed: {}", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default().trim().to_string();
    Ok(PathBuf::from(last))
}

/// The readers' interpreter, or `None` (with one line saying why) where the test may skip:
/// without `REQUIRE_PYTHON_PARSERS=1`.
pub(crate) fn python_or_skip() -> Option<PathBuf> {
    match python() {
        Ok(py) => Some(py),
        Err(why) if std::env::var("REQUIRE_PYTHON_PARSERS").as_deref() != Ok("1") => {
            eprintln!(
                "skipped: no Python parsers ({why}); REQUIRE_PYTHON_PARSERS=1 makes this fail"
            );
            None
        }
        Err(why) => panic!("{why}"),
    }
}

/// Runs `tests/python/<script>` with `input` on stdin; its JSON answer.
pub(crate) fn run_readers(py: &PathBuf, script: &str, input: &Value) -> Value {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut child = Command::new(py)
        .arg(root.join("tests/python").join(script))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the readers");
    let mut stdin = child.stdin.take().unwrap();
    let bytes = input.to_string().into_bytes();
    // Written from a thread: a large answer must not wait for the whole question.
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{script} failed");
    serde_json::from_slice(&out.stdout).unwrap()
}
