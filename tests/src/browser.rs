//! What the headless-Chromium tests share: finding the browser, reading what a test page wrote
//! into its `<pre id="results">`, and reading multipart and urlencoded bodies with Python's
//! standard library (`tests/python/read_forms_stdlib.py`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::{ScratchDir, front_tool};

/// Debian's Chromium (`$CHROMIUM_BIN`, `/usr/bin/chromium`, `PATH`), or `None` with one line
/// saying the test is skipped (a panic under `REQUIRE_CHROMIUM`).
pub fn chromium_tool() -> Option<PathBuf> {
    front_tool(
        "chromium",
        "CHROMIUM_BIN",
        &["/usr/bin/chromium"],
        "REQUIRE_CHROMIUM",
    )
}

/// The JSON text a test page writes into `<pre id="results">`, unescaped from the DOM
/// serialization (`&amp;`, `&lt;`, `&gt;` in text).
pub fn page_results(dom: &str) -> Option<Value> {
    let start = dom.find("<pre id=\"results\">")? + "<pre id=\"results\">".len();
    let end = start + dom[start..].find("</pre>")?;
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&text).ok()
}

/// Lowercase hex, as `read_forms_stdlib.py` takes and gives bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads `(kind, content type, body)` inputs (`kind`: `multipart`, `urlencoded`, ...) with
/// `tests/python/read_forms_stdlib.py` under `python`: one JSON value each.
pub fn read_forms(python: &Path, inputs: &[(&str, String, Vec<u8>)]) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/python/read_forms_stdlib.py");
    let input: Vec<Value> = inputs
        .iter()
        .map(|(kind, ct, body)| json!({"kind": kind, "content_type": ct, "body": hex(body)}))
        .collect();
    let dir = ScratchDir::new("forms-python");
    let input_file = dir.write("input.json", &serde_json::to_vec(&input).expect("JSON"));
    let output = Command::new(python)
        .arg(script)
        .stdin(std::fs::File::open(&input_file).expect("open input"))
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("{} {script}: {e}", python.display()));
    assert!(
        output.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the reader's JSON")
}
