//! Headless Chromium uploads a real `.docx` (python-docx) and a real `.png` (Pillow), made by
//! `tests/python/make_benign_files.py`, through utf8gate's proxy listener: a page builds
//! `File` objects from base64 embedded in it, posts them with text fields in several scripts as
//! a `FormData` with `fetch` (Chromium writes the multipart body and its boundary), then PUTs
//! the `.docx` alone as a raw body. It writes the statuses into the DOM, which `--dump-dom`
//! prints.
//!
//! What reached the upstream is read with Python's standard `email` parser
//! (`tests/python/read_forms_stdlib.py`): every part, the files byte for byte, with the file
//! names and the media types Chromium put on them.

use std::path::Path;

use base64::Engine;
use serde_json::{Value, json};
use utf8gate_e2e::{
    Gateway, Recorded, ScratchDir, Upstream, chromium_tool, headless_chromium, hex, page_results,
    pinned_python, python_json, read_forms,
};

/// The media type Chromium gives a `.docx` (`EXTENSION_TYPES` in `make_benign_files.py`).
const DOCX_TYPE: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/// The form's text fields, in the order the page appends them.
const FIELDS: [(&str, &str); 2] = [
    ("title", "Résumé — Zoë Ærø"),
    (
        "note",
        "Crème brûlée, Привет, Καλημέρα, 東京 履歴書 한국어, مرحبا, नमस्ते, 👍🏽 🎉",
    ),
];

/// The page: decodes `FILES` into `File` objects, posts them with `FIELDS` as one `FormData`,
/// PUTs the first file alone, and writes what it saw into `#results`.
const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Files through utf8gate</title></head>
<body><pre id="results">pending</pre>
<script>
"use strict";
const FILES = /*FILES*/;
const FIELDS = /*FIELDS*/;

function file(f) {
  const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
  return new File([bytes], f.name, { type: f.type });
}

async function answer(response) {
  const echoed = await response.arrayBuffer();
  return {
    status: response.status,
    upstream: response.headers.get("x-upstream"),
    echoed: echoed.byteLength,
  };
}

async function run() {
  const files = FILES.map(file);
  const form = new FormData();
  for (const [name, value] of FIELDS) form.append(name, value);
  FILES.forEach((f, i) => form.append(f.field, files[i]));
  const out = { types: files.map((f) => f.type), sizes: files.map((f) => f.size) };
  out.form = await answer(await fetch("/upload/form", { method: "POST", body: form }));
  const put = { method: "PUT", body: files[0] };
  out.put = await answer(await fetch("/upload/" + files[0].name, put));
  return out;
}

window.addEventListener("load", () => {
  const results = document.getElementById("results");
  run().then(
    (out) => { results.textContent = JSON.stringify(out); },
    (e) => { results.textContent = JSON.stringify({ error: String(e) }); },
  );
});
</script>
</body></html>
"#;

/// One file the page uploads: its form field, its name (as `make_benign_files.py` wrote it)
/// and the type the page gives its `File`.
struct Upload {
    field: &'static str,
    name: &'static str,
    media_type: &'static str,
}

/// The files the page uploads, in the order it appends them.
const UPLOADS: [Upload; 2] = [
    Upload {
        field: "cv",
        name: "cv.docx",
        media_type: DOCX_TYPE,
    },
    Upload {
        field: "photo",
        name: "image.png",
        media_type: "image/png",
    },
];

/// The parts of a multipart body as `tests/python/read_forms_stdlib.py` reads them with
/// Python's `email` parser, run by `python`.
fn email_parts(python: &Path, content_type: &str, body: &[u8]) -> Value {
    let input = [("multipart", content_type.to_string(), body.to_vec())];
    read_forms(python, &input).swap_remove(0)
}

/// One part as `read_forms_stdlib.py` gives it.
fn part(name: &str, filename: Option<&str>, content_type: Option<&str>, content: &[u8]) -> Value {
    let content = hex(content);
    json!({"name": name, "filename": filename, "content_type": content_type, "content": content})
}

/// A header's first value as text.
fn header_str<'a>(r: &'a Recorded, name: &str) -> &'a str {
    std::str::from_utf8(r.header(name).unwrap_or_default()).unwrap_or("(not UTF-8)")
}

/// What one request was, for a failure's message: method, target, type and body size.
fn brief(r: &Recorded) -> String {
    let ct = header_str(r, "content-type");
    format!("{} {} ({ct}, {} bytes)", r.method, r.target, r.body.len())
}

/// Both fetches are answered by the upstream, and it received the files byte for byte, with
/// the names and types Chromium put on them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_uploads_a_docx_and_a_png_through_the_proxy_byte_for_byte() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let Some(python) = pinned_python() else {
        return;
    };
    let dir = ScratchDir::new("chromium-files");
    let made = dir.path().join("made");
    let manifest = python_json(&python, "make_benign_files.py", &[&made.to_string_lossy()]);
    let listed = manifest["files"].as_array().expect("a list of files");
    let mut bytes = Vec::new();
    let mut files = Vec::new();
    for u in &UPLOADS {
        let entry = (listed.iter())
            .find(|f| f["name"] == u.name)
            .unwrap_or_else(|| panic!("{} is not in {manifest}", u.name));
        assert_eq!(
            entry["type"], u.media_type,
            "the type Chromium gives {}",
            u.name
        );
        let content = std::fs::read(made.join(u.name)).expect("the file");
        let base64 = base64::engine::general_purpose::STANDARD.encode(&content);
        files.push(
            json!({"field": u.field, "name": u.name, "type": u.media_type, "base64": base64}),
        );
        bytes.push(content);
    }
    let page = PAGE
        .replace("/*FILES*/", &Value::from(files).to_string())
        .replace("/*FIELDS*/", &json!(FIELDS).to_string());
    let upstream = Upstream::start_with_page("/files", page).await;
    let gw = Box::pin(Gateway::start("", Some(&upstream.url()))).await;

    let args = ["--dump-dom", "--virtual-time-budget=30000"];
    let url = format!("http://{}/files", gw.proxy);
    let dom = headless_chromium(&bin, &dir, "files", &url, &args).await;
    let results = page_results(&dom).unwrap_or_else(|| panic!("no results in the DOM:\n{dom}"));
    let types: Vec<_> = UPLOADS.iter().map(|u| u.media_type).collect();
    assert_eq!(results["types"], json!(types), "{results}");
    let sizes: Vec<_> = bytes.iter().map(Vec::len).collect();
    assert_eq!(results["sizes"], json!(sizes), "{results}");
    for fetch in ["form", "put"] {
        assert_eq!(results[fetch]["status"], 200, "{fetch}: {results}");
        assert_eq!(results[fetch]["upstream"], "echo", "{fetch}: {results}");
    }

    // One multipart request upstream, as Chromium wrote it.
    let records = upstream.records();
    let seen: Vec<String> = records.iter().map(brief).collect();
    let multipart: Vec<_> = (records.iter())
        .filter(|r| header_str(r, "content-type").starts_with("multipart/"))
        .collect();
    assert_eq!(multipart.len(), 1, "{seen:#?}");
    let posted = multipart[0];
    assert_eq!(
        (posted.method.as_str(), posted.target.as_str()),
        ("POST", "/upload/form")
    );
    assert_eq!(results["form"]["echoed"], posted.body.len(), "{results}");
    let ct = header_str(posted, "content-type");
    assert!(ct.starts_with("multipart/form-data; boundary="), "{ct}");
    let mut expected: Vec<Value> = (FIELDS.iter())
        .map(|(name, value)| part(name, None, None, value.as_bytes()))
        .collect();
    for (u, content) in UPLOADS.iter().zip(&bytes) {
        expected.push(part(u.field, Some(u.name), Some(u.media_type), content));
    }
    let read = email_parts(&python, ct, &posted.body);
    let read = read.as_array().cloned().unwrap_or_default();
    // The parts without their content (its size instead), then each content in full.
    let heads = |parts: &[Value]| -> Vec<Value> {
        let size = |p: &Value| p["content"].as_str().map_or(0, |c| c.len() / 2);
        (parts.iter())
            .map(|p| json!([p["name"], p["filename"], p["content_type"], size(p)]))
            .collect()
    };
    assert_eq!(
        heads(&read),
        heads(&expected),
        "name, file name, type, size"
    );
    for (got, sent) in read.iter().zip(&expected) {
        assert!(
            got["content"] == sent["content"],
            "{}: the part upstream is not what the page sent",
            sent["name"]
        );
    }

    // The .docx alone as a raw PUT body, byte for byte.
    let put: Vec<_> = records.iter().filter(|r| r.method == "PUT").collect();
    assert_eq!(put.len(), 1, "{seen:#?}");
    assert_eq!(put[0].target, "/upload/cv.docx");
    assert_eq!(header_str(put[0], "content-type"), DOCX_TYPE);
    assert!(put[0].body == bytes[0], "the PUT body is not the .docx");
}
