//! Reading one input of `scan` or `sanitize`: a file or standard input, buffered up to
//! `max_body_bytes` and evaluated as an upload (as `/v1/scan` evaluates a request body of the
//! same content type), streamed through the codec checks beyond that. An archive (its type, or
//! its first bytes: `utf8gate_policy::archive_in`) is buffered up to `max_archive_bytes` and
//! read for its names; a larger one is refused by the streamed scan (`limit_exceeded`), never
//! passed unread.

use std::io::Read;

use utf8gate_policy::{BodyScan, Mode, Profile, Request, Verdict};

/// How many first bytes binary detection looks at (as ripgrep and git do): the policy's rule.
pub(super) const BINARY_SNIFF_BYTES: usize = utf8gate_policy::SNIFF_BYTES;

/// What reading an input gave.
pub(super) enum Input {
    /// Binary of no known type (`utf8gate_policy::looks_binary`: a binary signature, or a
    /// binary data byte in its first 1445 bytes): not read further.
    Binary,
    /// The verdict.
    Scanned(Box<Scanned>),
}

/// The verdict of an input and, when it was buffered, its bytes and sanitized form.
pub(super) struct Scanned {
    /// The verdict.
    pub(super) verdict: Verdict,
    /// The input, when it fit `max_body_bytes` (every check ran); `None` when streamed.
    pub(super) body: Option<Vec<u8>>,
    /// The sanitized upload, when the decision is to sanitize (buffered inputs only).
    pub(super) sanitized: Option<Request>,
}

/// How to read inputs.
pub(super) struct Reading<'a> {
    /// The profile.
    pub(super) profile: &'a Profile,
    /// Largest input evaluated whole.
    pub(super) max_body: usize,
    /// Largest decoded body of a streamed input's codings.
    pub(super) max_scan: u64,
    /// Largest archive read whole for its entry names.
    pub(super) max_archive: u64,
    /// Skip binary inputs of no known type (no `--binary`, no `--content-type`, an extension
    /// that names no type).
    pub(super) skip_binary: bool,
}

fn open(name: &str) -> std::io::Result<Box<dyn Read>> {
    if name == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        Ok(Box::new(std::fs::File::open(name)?))
    }
}

/// Reads until `buffer` holds `want` bytes or the input ends; `false` at the end.
fn fill(reader: &mut Box<dyn Read>, buffer: &mut Vec<u8>, want: usize) -> std::io::Result<bool> {
    while buffer.len() < want {
        let n = (&mut *reader)
            .take((want - buffer.len()) as u64)
            .read_to_end(buffer)?;
        if n == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Reads and evaluates the input `name` (`-` for standard input) as `content_type`.
pub(super) fn evaluate(
    name: &str,
    content_type: &str,
    how: &Reading<'_>,
) -> std::io::Result<Input> {
    let mut reader = open(name)?;
    let mut buffer = Vec::new();
    // The first 8 KiB say whether it is binary, and an archive.
    fill(&mut reader, &mut buffer, BINARY_SNIFF_BYTES)?;
    let mut upload = Request::new("POST", b"/").mode(Mode::Scan);
    let mut archive = utf8gate_policy::archive_in(Some(content_type.as_bytes()), &buffer);
    if how.skip_binary && utf8gate_policy::looks_binary(&buffer) {
        // Binary of no known type (a signature, or a binary data byte: the WHATWG rule) is
        // skipped; an archive is not binary there, it is read below.
        return Ok(Input::Binary);
    } else if how.skip_binary && utf8gate_policy::archive_in(None, &buffer).is_some() {
        // An archive of no known type is read as an upload of no type is (`/v1/scan`
        // without a type), for its names.
        archive = utf8gate_policy::archive_in(None, &buffer);
    } else {
        upload = upload.header("content-type", content_type.as_bytes());
    }
    let whole = match archive {
        // Its names need the whole archive (a ZIP's are at its end).
        Some(_) => usize::try_from(how.max_archive).unwrap_or(usize::MAX),
        None => how.max_body,
    };
    // A file's size is known: one allocation of it, not a doubling buffer (twice the memory).
    let size = std::fs::metadata(name)
        .ok()
        .filter(|_| name != "-")
        .map(|m| m.len());
    if let Some(size) = size.and_then(|s| usize::try_from(s).ok()) {
        buffer.reserve_exact(
            size.min(whole)
                .saturating_add(1)
                .saturating_sub(buffer.len()),
        );
    }
    if !fill(&mut reader, &mut buffer, whole.saturating_add(1))? {
        // The buffer itself, not a copy of it.
        upload.body = buffer.into();
        let e = utf8gate_policy::evaluate_upload(how.profile, &upload);
        return Ok(Input::Scanned(Box::new(Scanned {
            verdict: e.verdict,
            body: Some(Vec::from(upload.body)),
            sanitized: e.sanitized,
        })));
    }
    // Larger than max_body_bytes: the streamed checks, in bounded memory.
    let mut scan = BodyScan::for_body_of(how.profile, &upload, how.max_scan);
    scan.feed(&buffer);
    let mut chunk = std::mem::take(&mut buffer);
    chunk.resize(64 * 1024, 0);
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        scan.feed(&chunk[..n]);
    }
    Ok(Input::Scanned(Box::new(Scanned {
        verdict: scan.finish(),
        body: None,
        sanitized: None,
    })))
}
