//! An independent reading of an HTML page: Python's standard `html.parser`, in a `python3`
//! child process, so that the error pages are checked as a parser other than ours reads them.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// Reads the page, character references decoded, and prints what it found as JSON.
const READER: &str = r#"
import json, sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

class Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self.stack, self.ids, self.text, self.other = [], [], {}, [], []
    def handle_starttag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": [[k, v] for k, v in attrs]})
        if tag not in VOID:
            self.stack.append((tag, dict(attrs).get("id")))
    def handle_startendtag(self, tag, attrs):
        self.elements.append({"tag": tag, "attrs": [[k, v] for k, v in attrs]})
    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass
    def handle_data(self, data):
        tags = [t for t, _ in self.stack]
        for _, id_ in self.stack:
            if id_ is not None:
                self.ids[id_] = self.ids.get(id_, "") + data
        if "body" in tags:
            self.text.append(data)
        elif "title" in tags:
            self.title = getattr(self, "title", "") + data
    def handle_comment(self, data):
        self.other.append("comment")
    def handle_pi(self, data):
        self.other.append("pi")
    def unknown_decl(self, data):
        self.other.append("decl")

reader = Reader()
reader.feed(sys.stdin.buffer.read().decode("utf-8"))
reader.close()
json.dump({
    "elements": reader.elements,
    "ids": reader.ids,
    "text": " ".join(" ".join(reader.text).split()),
    "title": getattr(reader, "title", ""),
    "other": reader.other,
}, sys.stdout)
"#;

/// A start tag: its name and attributes (names lowercased, values decoded, `None` when bare).
pub type Element = (String, Vec<(String, Option<String>)>);

/// A page as Python's `html.parser` reads it.
#[derive(Debug, Clone)]
pub struct ParsedHtml {
    /// Every start tag in order.
    pub elements: Vec<Element>,
    /// The text of each element with an `id`, by id (character references decoded).
    pub ids: BTreeMap<String, String>,
    /// The text of `<body>`, runs of whitespace made one space.
    pub text: String,
    /// The text of `<title>`.
    pub title: String,
    /// Comments, processing instructions and declarations other than the doctype.
    pub other: Vec<String>,
}

impl ParsedHtml {
    /// The text of the element with `id`, runs of whitespace made one space ("" if none).
    pub fn id(&self, id: &str) -> String {
        let text = self.ids.get(id).map_or("", String::as_str);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Whether an element named `tag` is in the page.
    pub fn has(&self, tag: &str) -> bool {
        self.elements.iter().any(|(t, _)| t == tag)
    }
}

/// Reads `page` (UTF-8) with `python3`'s `html.parser`; panics if python3 cannot run or the
/// page is not UTF-8.
pub fn parse_html(page: &[u8]) -> ParsedHtml {
    let mut child = Command::new("python3")
        .args(["-c", READER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 (html.parser) cannot run: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(page)
            .unwrap_or_else(|e| panic!("writing to python3: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("python3: {e}"));
    assert!(
        out.status.success(),
        "html.parser: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "html.parser output ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let string = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let elements = v["elements"].as_array().cloned().unwrap_or_default();
    ParsedHtml {
        elements: elements
            .iter()
            .map(|e| {
                let attrs = e["attrs"].as_array().cloned().unwrap_or_default();
                let attrs = attrs
                    .iter()
                    .map(|a| (string(&a[0]), a[1].as_str().map(str::to_string)))
                    .collect();
                (string(&e["tag"]), attrs)
            })
            .collect(),
        ids: v["ids"]
            .as_object()
            .map(|o| o.iter().map(|(k, t)| (k.clone(), string(t))).collect())
            .unwrap_or_default(),
        text: string(&v["text"]),
        title: string(&v["title"]),
        other: v["other"]
            .as_array()
            .map(|a| a.iter().map(string).collect())
            .unwrap_or_default(),
    }
}
