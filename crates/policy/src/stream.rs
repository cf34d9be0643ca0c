//! Streaming scan of a body too large to buffer: the codec's findings, the signature and NUL
//! bytes, in bounded memory, as a verdict of the same shape as [`evaluate`](crate::evaluate())'s.
//!
//! Everything else (NFC, controls, lookalikes, structure) needs the whole field and runs only
//! on buffered bodies; the verdict says which checks ran through its findings' kinds only.

use utf8gate_codec::StreamValidator;

use crate::decide::collect::Collector;
use crate::decide::found::{Found, KindSet};
use crate::decide::verdict::Verdict;
use crate::finding::{FindingKind, Fix, RawFinding};
use crate::layers::coding::{self, CodingError, Decoder};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::{ContentType, Request};
use crate::textual::{Added, Content, JUDGE_BYTES, ZIP_TAIL, judge, zip_end};

/// A body scanned chunk by chunk.
pub struct BodyScan<'p> {
    validator: StreamValidator,
    collector: Collector<'p>,
    location: Location,
    /// The body's first bytes, held until there are four (the longest signature) or the body
    /// ends: a UTF-16 or UTF-32 signature makes the body one `foreign_charset`, unread.
    head: Vec<u8>,
    /// The head has been looked at (and checked, unless the body is foreign).
    started: bool,
    /// Bytes after a UTF-16 or UTF-32 signature, or of a body that is not text, counted and
    /// not read.
    foreign: Option<u64>,
    /// The head decides whether the body is text (`crate::textual::judge`); not when the
    /// profile scans binary bodies.
    judged: bool,
    /// The body's media type, judged with its head.
    content_type: ContentType,
    /// The last bytes of a body that is not text ([`ZIP_TAIL`] to twice that): a ZIP's end
    /// record after an image makes it an archive, refused at the end (its names are not read
    /// as it streams).
    tail: Option<Vec<u8>>,
    /// Where the last [`ZIP_TAIL`] bytes start when the body's length is known
    /// ([`BodyScan::expect_len`]): the bytes before are not kept.
    tail_from: u64,
    /// The types the profile adds to the rule (`[readings] text_types`, `binary_types`).
    added: Added<'p>,
    offset: usize,
    /// The body's findings, bounded (`crate::decide::found`): listed in offset order at the end.
    found: Found,
    /// Where the scan stopped reading: the request was settled there (`Found::settled`).
    stopped: Option<usize>,
    /// The body's codings, undone chunk by chunk before the checks.
    decoder: Option<Decoder>,
    /// A coding failed: the rest of the body is not read (the failure is a finding).
    coding_failed: bool,
}

impl<'p> BodyScan<'p> {
    /// A scan under `profile`.
    pub fn new(profile: &'p Profile) -> BodyScan<'p> {
        let collector = Collector::new(profile, b"");
        let location = Location::part(Part::Body);
        let found = Found::new(profile.limits.max_findings, KindSet::default())
            .stop_early(collector.rejecting(&location), false);
        BodyScan {
            validator: StreamValidator::new(),
            collector,
            location,
            head: Vec::with_capacity(4),
            started: false,
            foreign: None,
            judged: false,
            content_type: ContentType::parse(b""),
            tail: None,
            tail_from: 0,
            added: profile.readings.added_types(),
            offset: 0,
            found,
            stopped: None,
            decoder: None,
            coding_failed: false,
        }
    }

    /// A scan of the upload whose head is `head`: its `Content-Encoding` and transfer codings
    /// are undone as the body streams in (at most `max_decoded` decoded bytes), as
    /// [`evaluate_upload`](crate::evaluate_upload) does for a buffered upload, and its bytes are
    /// checked when they are text by the same rule (`crate::textual`, judged on its first
    /// 40 KiB: binary is not read). Codings that cannot be read are findings of the verdict.
    pub fn for_body_of(profile: &'p Profile, head: &Request, max_decoded: u64) -> BodyScan<'p> {
        let mut scan = BodyScan::new(profile);
        let ct = head
            .content_type()
            .unwrap_or_else(|| ContentType::parse(b""));
        scan.judged = !profile.scan_binary;
        scan.content_type = ct;
        let mut limits = profile.limits;
        limits.max_decoded_bytes = usize::try_from(max_decoded).unwrap_or(usize::MAX);
        match coding::request_codings(head, profile.readings.content_codings, &limits) {
            Ok(codings) if codings.is_empty() => {}
            Ok(codings) => scan.decoder = Some(Decoder::new(&codings, &limits)),
            Err(e) => scan.coding_error(&e),
        }
        scan
    }

    /// Says the body is `len` bytes long (its `Content-Length`): a body judged binary then
    /// keeps only its last 64 KiB for a ZIP's end record, not every chunk as it comes. Ignored
    /// for a coded body (its decoded length is not its length).
    pub fn expect_len(&mut self, len: u64) {
        if self.decoder.is_none() && !self.coding_failed {
            self.tail_from = len.saturating_sub(ZIP_TAIL as u64);
        }
    }

    /// Bytes of the body read so far, after its codings.
    pub fn decoded_len(&self) -> u64 {
        self.offset as u64 + self.head.len() as u64 + self.foreign.unwrap_or(0)
    }

    fn coding_error(&mut self, e: &CodingError) {
        let kind = match e {
            CodingError::Unsupported(_) => FindingKind::UnsupportedCoding,
            CodingError::Corrupt(_) => FindingKind::CorruptCoding,
            CodingError::TooLarge(_) => FindingKind::LimitExceeded,
        };
        let location = Location::part(Part::Header).with_name(b"content-encoding");
        let raw = RawFinding::new(kind, 0, &[], Fix::None, None, e.to_string());
        self.collector.add(&location, raw, "");
        self.coding_failed = true;
    }

    /// Whether the verdict is settled before the end: a finding the profile rejects was found
    /// (the body cannot pass), or a coding failed (the rest is not read): reading on changes
    /// nothing, and [`finish`](Self::finish) gives the verdict at once. A caller streaming the body on
    /// (Envoy `ext_proc`) stops it here.
    pub fn settled(&self) -> bool {
        self.coding_failed || self.stopped.is_some() || self.found.rejecting()
    }

    /// Feeds the next chunk of the body as received.
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.coding_failed {
            return;
        }
        if self.decoder.is_none() {
            self.feed_decoded(chunk);
            return;
        }
        // Piece by piece, each piece's decoded bytes checked before the next is decoded: a
        // chunk of well-compressed text decodes to a hundred times its size or more, which is
        // never held whole.
        let mut decoded = Vec::new();
        for piece in chunk.chunks(coding::PIECE) {
            let Some(decoder) = self.decoder.as_mut() else {
                return;
            };
            decoded.clear();
            let result = decoder.feed(piece, &mut decoded);
            self.feed_decoded(&decoded);
            if let Err(e) = result {
                self.coding_error(&e);
                return;
            }
        }
    }

    /// Feeds the next chunk of decoded bytes: held while the head is short, else checked.
    fn feed_decoded(&mut self, chunk: &[u8]) {
        if let Some(skipped) = self.foreign.as_mut() {
            let at = *skipped;
            *skipped += chunk.len() as u64;
            if let Some(tail) = self.tail.as_mut() {
                keep_tail(tail, after(chunk, at, self.tail_from));
            }
        } else if self.started {
            self.check(chunk);
        } else {
            // The first 40 KiB: enough to tell text, every signature and an archive.
            let want = JUDGE_BYTES;
            let take = chunk.len().min(want - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
            if self.head.len() == want {
                self.start(&chunk[take..]);
            }
        }
    }

    /// Looks at the head ([`JUDGE_BYTES`], or the whole body if shorter), then checks it and
    /// `rest` unless it is an archive (refused: its names need the whole body, which a scan
    /// does not hold), a UTF-16 or UTF-32 signature says the body is not UTF-8, or it is not
    /// text (`crate::textual::judge`, as the buffered evaluation of an upload judges it).
    fn start(&mut self, rest: &[u8]) {
        self.started = true;
        let head = std::mem::take(&mut self.head);
        let ct = &self.content_type;
        let claimed = crate::readings::claiming(ct).is_some();
        let judged = match self.judged {
            true => judge(ct, claimed, &head, None, true, self.added),
            false => Content::Declared,
        };
        let archive = crate::readings::archive_in(ct, &head);
        if let Some(what) = archive.or(matches!(judged, Content::Archive(_)).then_some("ZIP")) {
            self.foreign = Some((head.len() + rest.len()) as u64);
            self.refuse_archive(what);
            return;
        }
        if let Content::Binary(reason) = judged {
            self.collector.not_text = Some(reason);
            self.foreign = Some((head.len() + rest.len()) as u64);
            let mut tail = Vec::new();
            keep_tail(&mut tail, after(&head, 0, self.tail_from));
            keep_tail(&mut tail, after(rest, head.len() as u64, self.tail_from));
            self.tail = Some(tail);
            return;
        }
        if let Some((_, message)) = crate::readings::body::foreign_signature(&head) {
            self.foreign = Some((head.len() + rest.len()) as u64);
            let kind = FindingKind::ForeignCharset;
            let raw = RawFinding::new(kind, 0, &[], Fix::None, None, message);
            self.collector.add(&self.location, raw, "");
            return;
        }
        self.check(&head);
        self.check(rest);
    }

    /// Refuses an archive too large to be read whole (`what` says how it was known).
    fn refuse_archive(&mut self, what: &str) {
        let message = format!(
            "an archive ({what}) too large to be read whole: its entry names (a ZIP's are at \
             its end) are not read as it streams, so it is refused"
        );
        let raw = RawFinding::new(FindingKind::LimitExceeded, 0, &[], Fix::None, None, message);
        self.collector.add(&self.location, raw, "");
    }

    /// Checks the next decoded bytes (the first call has the body's first bytes, at least
    /// three of them unless the body is shorter).
    fn check(&mut self, chunk: &[u8]) {
        if self.stopped.is_some() {
            self.offset += chunk.len();
            return;
        }
        if self.offset == 0 && chunk.starts_with(&utf8gate_codec::UTF8_BOM) {
            let raw = RawFinding::new(
                FindingKind::Bom,
                0,
                &utf8gate_codec::UTF8_BOM,
                Fix::Char(0..3),
                Some("U+FEFF".into()),
                "byte order mark (signature) at the start of a body".into(),
            );
            self.found.push(raw);
        }
        // A vectorized search: a clean chunk costs one fast pass, not a loop over its bytes.
        for i in memchr::memchr_iter(0, chunk) {
            crate::checks::controls::report(Part::Body, '\0', self.offset + i, &mut self.found);
        }
        self.offset += chunk.len();
        let found = &mut self.found;
        self.validator
            .feed(chunk, |m| crate::checks::utf8::findings_of(&m, found));
        if self.found.settled() {
            self.stopped = Some(self.offset);
        }
    }

    /// Ends the scan and returns the verdict. A scan never rewrites, so the decision is
    /// `reject` or `allow` (`sanitize` where a finding's action would rewrite).
    pub fn finish(mut self) -> Verdict {
        if let Some(mut decoder) = self.decoder.take() {
            let mut rest = Vec::new();
            let result = decoder.finish(&mut rest);
            if !self.coding_failed {
                self.feed_decoded(&rest);
                if let Err(e) = result {
                    self.coding_error(&e);
                }
            }
        }
        if !self.started {
            self.start(&[]);
        }
        if let Some(tail) = self.tail.take()
            && zip_end(&tail).is_some()
        {
            // Binary at its start, a ZIP at its end: extractors read the ZIP.
            self.collector.not_text = None;
            self.refuse_archive("a ZIP's end record at its end");
        }
        let foreign = self.foreign.is_some();
        let BodyScan {
            validator,
            mut collector,
            location,
            mut found,
            stopped,
            ..
        } = self;
        let read = match stopped {
            None => {
                validator
                    .finish(|m| crate::checks::utf8::findings_of(&m, &mut found))
                    .bytes
            }
            Some(at) => at,
        };
        collector.add_found(&location, &mut found, false, "");
        collector.stopped_early = stopped.is_some();
        if !foreign {
            collector.inspected(crate::location::LocationClass::Body, read as u64);
        }
        // A scan never rewrites: a finding whose action would rewrite stands for a rewrite.
        let would_rewrite = collector.would_rewrite;
        collector.finish(would_rewrite)
    }
}

#[cfg(test)]
mod tests;

/// Appends `chunk` to `tail`, keeping its last [`ZIP_TAIL`] bytes at least and twice that at
/// most: each byte is moved at most once more, however the body is cut into chunks.
fn keep_tail(tail: &mut Vec<u8>, chunk: &[u8]) {
    let chunk = &chunk[chunk.len().saturating_sub(ZIP_TAIL)..];
    if tail.len() + chunk.len() > 2 * ZIP_TAIL {
        let keep = ZIP_TAIL - chunk.len();
        tail.drain(..tail.len().saturating_sub(keep));
    }
    tail.extend_from_slice(chunk);
}

/// The part of `chunk` (whose first byte is the body's byte `at`) from the body's byte `from`.
fn after(chunk: &[u8], at: u64, from: u64) -> &[u8] {
    let skip = from.saturating_sub(at).min(chunk.len() as u64);
    &chunk[usize::try_from(skip).unwrap_or(chunk.len())..]
}
