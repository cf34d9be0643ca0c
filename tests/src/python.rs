//! The pinned Python virtualenv (`tests/python/setup-venv.sh`): real producers of files and
//! API bodies for the end-to-end tests.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The repository's root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The virtualenv's interpreter, or `None` (with one line saying why) where the test may
/// skip: without `REQUIRE_PYTHON_PARSERS=1` (CI sets it, and the venv must then build).
pub fn pinned_python() -> Option<PathBuf> {
    let out = Command::new("bash")
        .arg(repo_root().join("tests/python/setup-venv.sh"))
        .stderr(Stdio::inherit())
        .output();
    let why = match out {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            return Some(PathBuf::from(
                text.lines().last().unwrap_or_default().trim(),
            ));
        }
        Ok(out) => format!("setup-venv.sh failed: {}", out.status),
        Err(e) => format!("bash: {e}"),
    };
    assert!(
        std::env::var("REQUIRE_PYTHON_PARSERS").as_deref() != Ok("1"),
        "the pinned virtualenv is required (REQUIRE_PYTHON_PARSERS=1): {why}"
    );
    eprintln!("skipped: no pinned Python virtualenv ({why})");
    None
}

/// Runs `tests/python/<script>` with `args` under `python`; its stdout as JSON.
pub fn python_json(python: &PathBuf, script: &str, args: &[&str]) -> serde_json::Value {
    let out = Command::new(python)
        .arg(repo_root().join("tests/python").join(script))
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("{script}: {e}"));
    assert!(out.status.success(), "{script}: {}", out.status);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{script}: {e}"))
}
