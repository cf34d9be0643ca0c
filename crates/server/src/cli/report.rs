//! How `scan` prints a verdict: JSON Lines (the verdict with its `input`) or human lines in
//! the compiler and ripgrep style, `file:line:column: kind: message [bytes]`.
//!
//! Lines and columns are 1-based and counted in bytes (a column is the byte offset from the
//! line's start plus one, as ripgrep's `--column` and gcc count): in malformed text there are
//! no characters to count, and editors jump to byte columns. Only a finding in the whole body
//! has a line and column; one in a field the body was read into (a JSON string, a form value, a
//! multipart part) is located by the field and the offset in its decoded bytes:
//! `file: json_string /a +3: overlong: ...`.

use std::io::{Read, Write};

use utf8gate_policy::{Finding, Location, Part, Verdict};

/// The output format of `scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// `file:line:col: kind: message [bytes in hex]` per finding, then `file: decision`.
    Human,
    /// One JSON object per input: the verdict (docs/verdict.md) with `input`.
    Json,
}

/// One JSON line: the verdict with the input's name.
pub fn json_line(out: &mut dyn Write, input: &str, verdict: &Verdict) -> std::io::Result<()> {
    let mut line = serde_json::to_value(verdict).unwrap_or_default();
    if let Some(object) = line.as_object_mut() {
        object.insert("input".into(), input.into());
    }
    writeln!(out, "{line}")
}

/// The human lines of one input. `positions` gives the 1-based line and column of each
/// finding in the whole body (`None` where unknown: another location, or a streamed input that
/// cannot be read again).
pub fn human(
    out: &mut dyn Write,
    input: &str,
    verdict: &Verdict,
    positions: &[Option<(u64, u64)>],
) -> std::io::Result<()> {
    for (i, f) in verdict.findings.iter().enumerate() {
        let place = match positions.get(i).copied().flatten() {
            Some((line, column)) => format!("{input}:{line}:{column}:"),
            // An archive entry, as `upload.zip!dir/name.txt` (its link target: `-> /link`).
            None if f.location.part == Part::ArchiveEntry => {
                let name = f.location.name.as_deref().unwrap_or("");
                let link = f
                    .location
                    .pointer
                    .as_deref()
                    .map_or("", |_| " (link target)");
                format!("{input}!{name}{link}: +{}:", f.offset)
            }
            // An archive entry's contents (`[readings] archive_contents = "text"`).
            None if f.location.part == Part::Body
                && f.location.pointer.as_deref() == Some("/content") =>
            {
                let name = f.location.name.as_deref().unwrap_or("");
                format!("{input}!{name} (contents): byte {}:", f.offset)
            }
            None if is_body(&f.location) => format!("{input}: byte {}:", f.offset),
            None => format!("{input}: {} +{}:", field(&f.location), f.offset),
        };
        let bytes = if f.bytes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", f.bytes)
        };
        writeln!(out, "{place} {}: {}{bytes}", f.kind.as_str(), f.message)?;
    }
    let decision = serde_json::to_value(verdict.decision)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let mut summary = format!("{input}: {decision}");
    if !verdict.enforced {
        summary.push_str(" (monitor: not enforced)");
    }
    if let Some(why) = &verdict.not_text {
        summary.push_str(&format!(" (not text: {why})"));
    }
    if !verdict.counts.is_empty() {
        let total: u64 = verdict.counts.values().sum();
        let s = if total == 1 { "" } else { "s" };
        summary.push_str(&format!(
            ": {total} finding{s} ({})",
            verdict.kinds().join(", ")
        ));
        if verdict.findings_truncated {
            summary.push_str(&format!(", {} listed", verdict.findings.len()));
        }
    }
    writeln!(out, "{summary}")
}

/// Whether a finding is about the whole body (its offset is the input's byte offset).
pub fn is_body(location: &Location) -> bool {
    location.part == Part::Body && location.name.is_none() && location.pointer.is_none()
}

/// A location other than the whole body, as `json_string /a`, `form_value [q]`,
/// `multipart_content [file] #1`.
fn field(location: &Location) -> String {
    let mut s = serde_json::to_value(location.part)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    if let Some(name) = &location.name {
        s.push_str(&format!(" [{name}]"));
    }
    if let Some(pointer) = &location.pointer {
        s.push_str(&format!(" {pointer}"));
    }
    if let Some(index) = location.index {
        s.push_str(&format!(" #{index}"));
    }
    s
}

/// The 1-based line and byte column of each whole-body finding of `findings` in the bytes
/// `reader` gives, in one pass (offsets past the end get none).
pub fn positions(
    mut reader: impl Read,
    findings: &[Finding],
) -> std::io::Result<Vec<Option<(u64, u64)>>> {
    let mut wanted: Vec<(usize, u64)> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| is_body(&f.location))
        .map(|(i, f)| (i, f.offset as u64))
        .collect();
    wanted.sort_by_key(|&(_, offset)| offset);
    let mut result = vec![None; findings.len()];
    let (mut line, mut line_start, mut at) = (1u64, 0u64, 0u64);
    let mut next = wanted.iter().peekable();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for (i, &b) in chunk[..n].iter().enumerate() {
            let offset = at + i as u64;
            while let Some(&(index, _)) = next.next_if(|&&(_, o)| o == offset) {
                result[index] = Some((line, offset - line_start + 1));
            }
            if b == b'\n' {
                line += 1;
                line_start = offset + 1;
            }
        }
        at += n as u64;
        if next.peek().is_none() {
            break;
        }
    }
    // A finding at the very end (a truncated sequence's offset is inside; a limit's may be
    // the length).
    for &(index, offset) in next {
        if offset == at {
            result[index] = Some((line, offset - line_start + 1));
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use utf8gate_policy::{Profile, Request, evaluate_upload};

    fn verdict(body: &[u8]) -> Verdict {
        let upload = Request::new("POST", b"/")
            .header("content-type", b"text/plain")
            .body(body);
        evaluate_upload(&Profile::strict(), &upload).verdict
    }

    #[test]
    fn positions_are_lines_and_byte_columns_of_the_body() {
        let body = "ok\nGrüße \u{0}\n\n\u{C0}x".as_bytes().to_vec();
        let mut body = body;
        body.extend_from_slice(b"\xC0\xAE\n\xE2\x82");
        let v = verdict(&body);
        let found: Vec<_> = positions(&body[..], &v.findings).unwrap();
        // Each position read back from the body: the line's text starts where the column says.
        for (f, p) in v.findings.iter().zip(&found) {
            let (line, column) = p.expect("a body finding has a position");
            let text = body.split(|&b| b == b'\n').nth(line as usize - 1).unwrap();
            let line_start: usize = body
                .split(|&b| b == b'\n')
                .take(line as usize - 1)
                .map(|l| l.len() + 1)
                .sum();
            assert_eq!(line_start + column as usize - 1, f.offset, "{f:?}");
            assert!(column as usize <= text.len(), "{f:?}");
        }
        let kinds: Vec<_> = v.findings.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["nul", "overlong", "truncated"]);
        assert_eq!(found, [Some((2, 9)), Some((4, 4)), Some((5, 1))]);
    }

    #[test]
    fn human_lines_name_file_line_column_kind_and_bytes() {
        let v = verdict(b"a\n\xC0\xAE");
        let mut out = Vec::new();
        let p = positions(&b"a\n\xC0\xAE"[..], &v.findings).unwrap();
        human(&mut out, "f.txt", &v, &p).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("f.txt:2:1: overlong: "), "{text}");
        assert!(lines[0].ends_with(" [C0 AE]"), "{text}");
        assert_eq!(lines[1], "f.txt: reject: 1 finding (overlong)");
        let mut out = Vec::new();
        human(&mut out, "g.txt", &verdict(b"fine"), &[]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "g.txt: allow\n");
        // An archive's findings name the entry: `upload.zip!dir/../x: ...`.
        // A stored ZIP of one entry named `dir/../x` (bit 11 set), no content.
        let zip = b"PK\x03\x04\x14\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00dir/../xPK\x01\x02\x14\x03\x14\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00dir/../xPK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x006\x00\x00\x00&\x00\x00\x00\x00\x00";
        let upload = Request::new("POST", b"/")
            .header("content-type", b"application/zip")
            .body(zip);
        let v = evaluate_upload(&Profile::strict(), &upload).verdict;
        let mut out = Vec::new();
        human(&mut out, "upload.zip", &v, &[]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("upload.zip!dir/../x: +4: dot_segment: "),
            "{text}"
        );
    }
}
