//! The HTML page of a problem, for clients that prefer `text/html` (browsers): self-contained,
//! inline CSS and no script, served with a Content-Security-Policy that forbids everything
//! else. Every value written into it is escaped by [`escape_into`], which also shows invisible
//! and direction-changing characters as their code points, so that the page cannot be made to
//! read differently from what it says. A leaf of `problem`.

use std::fmt::Write;

use super::kind::Problem;
use super::plain;
use super::style::Detail;

/// The media type of the page.
pub const TEXT_HTML: &str = "text/html; charset=utf-8";

/// The page's Content-Security-Policy: nothing but its own inline style.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'";

const STYLE: &str = "body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:42rem;\
padding:0 1rem;color:#1b1b1b;background:#fff}h1{font-size:1.5rem;margin:0 0 .25rem}\
.status{color:#555;margin:0 0 1.5rem}code{font:15px ui-monospace,monospace;\
background:#f2f2f2;padding:.1rem .3rem;word-break:break-all}li{margin:.25rem 0}";

/// The page of `problem` for request `request_id`: the title, the status and the request id;
/// with [`Detail::Full`] also what was wrong (one sentence per finding kind of a rejection, the
/// detail of any other problem).
pub(super) fn page(problem: &Problem, title: &str, request_id: &str, detail: Detail) -> String {
    let status = problem.status;
    let reason = status.canonical_reason().unwrap_or("Error");
    let mut out = String::with_capacity(2048);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"robots\" content=\"noindex\">\n<title>");
    let _ = write!(out, "{} ", status.as_u16());
    escape_into(&mut out, title);
    let _ = write!(
        out,
        "</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
    );
    out.push_str("<h1 id=\"title\">");
    escape_into(&mut out, title);
    let _ = write!(
        out,
        "</h1>\n<p class=\"status\" id=\"status\">HTTP {} ",
        status.as_u16()
    );
    escape_into(&mut out, reason);
    out.push_str("</p>\n");
    if detail == Detail::Full {
        out.push_str("<p>What was wrong:</p>\n<ul id=\"detail\">\n");
        let said = match &problem.verdict {
            Some(verdict) => plain::sentences(verdict),
            None => vec![as_sentence(&problem.detail)],
        };
        for sentence in said {
            out.push_str("<li>");
            escape_into(&mut out, &sentence);
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<p>Request id: <code id=\"request-id\">");
    escape_into(&mut out, request_id);
    out.push_str("</code></p>\n<p>Quote the request id when you report this error.</p>\n");
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// A problem's detail (`the body exceeds 10 bytes`) as a sentence.
fn as_sentence(detail: &str) -> String {
    let mut chars = detail.chars();
    let mut text: String = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => return "No detail.".to_string(),
    };
    if !text.ends_with('.') {
        text.push('.');
    }
    text
}

/// Appends `text` as HTML text or attribute content: `& < > " '` as character references, and
/// every character that [`shown_as_code_point`] as `U+XXXX` (visible, inert text).
pub(super) fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if shown_as_code_point(c) => {
                let _ = write!(out, "U+{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// Characters a reader would not see, or that change how the text around them is shown:
/// controls (C0, DEL, C1), bidirectional marks, embeddings, overrides and isolates, zero-width
/// and invisible format characters, line and paragraph separators, interlinear annotations,
/// tags, variation selectors, noncharacters and private use.
pub(super) fn shown_as_code_point(c: char) -> bool {
    let n = u32::from(c);
    c.is_control()
        || matches!(
            n,
            0x00AD
                | 0x034F
                | 0x061C
                | 0x115F..=0x1160
                | 0x17B4..=0x17B5
                | 0x180B..=0x180F
                | 0x200B..=0x200F
                | 0x2028..=0x202E
                | 0x2060..=0x206F
                | 0x3164
                | 0xE000..=0xF8FF
                | 0xFDD0..=0xFDEF
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0xFFA0
                | 0xFFF0..=0xFFFB
                | 0x1D173..=0x1D17A
                | 0xE0000..=0xE0FFF
                | 0xF0000..
        )
        || n & 0xFFFE == 0xFFFE
}

#[cfg(test)]
mod tests;
