//! Cost follows bytes, not findings: evaluating an 8 MiB hostile body allocates at most a fixed
//! multiple of its size, whatever the number of findings in it, and its verdict stays small.
//!
//! A counting global allocator records the peak of live bytes during each evaluation. The
//! bodies are the hostile shapes of the bounded issue (a finding every one to six bytes, in
//! every decoding layer) next to clean bodies of the same size and type.

// A global allocator is `unsafe` to implement; this one only forwards to `System` and counts.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use utf8gate_policy::{BodyScan, Profile, Request, evaluate, evaluate_upload};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                + (new_size - layout.size());
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One measurement at a time: the counters are global.
static SERIAL: Mutex<()> = Mutex::new(());

/// Peak live bytes allocated by `f` above what was live when it started.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

const SIZE: usize = 8 << 20;

/// Allocation allowed per byte of body, beyond the body itself: the server's memory budget
/// charges a body `EVALUATION_FACTOR` (3) times, the body and twice its size for one
/// evaluation: a decoded or rewritten copy (a rewrite grows a field by a quarter at most, is
/// written into a buffer of its exact size and moved into the body it is) and working memory
/// of at most the body's size, nothing per finding. Measured peaks are printed: at most 18 MiB
/// for 8 MiB (a JSON string of `\ud800` escapes), the rewrites at most 16.
const PER_BYTE: usize = 2;

/// Allocation allowed whatever the size (tables, the verdict's listed findings).
const FIXED: usize = 4 << 20;

#[path = "bounded/cases.rs"]
mod cases;
use cases::{body_of, cases};

#[test]
fn hostile_bodies_allocate_a_fixed_multiple_of_their_size() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut failures = Vec::new();
    for profile in [Profile::strict(), Profile::lossy()] {
        for (name, content_type, body) in cases() {
            let request = Request::new("POST", b"/upload")
                .header("Content-Type", content_type.as_bytes())
                .body(&body);
            let bound = PER_BYTE * body.len() + FIXED;
            let (evaluation, peak) = peak_of(|| evaluate(&profile, &request));
            let (_, upload_peak) = peak_of(|| evaluate_upload(&profile, &request));
            let verdict = evaluation.verdict;
            // The verdict itself is small: its listed findings are capped.
            assert!(
                verdict.findings.len() <= profile.limits.max_findings,
                "{name}"
            );
            let line = format!(
                "{} {name}: peak {} MiB (upload {} MiB), bound {} MiB, {} findings listed, {} counted",
                profile.name,
                peak >> 20,
                upload_peak >> 20,
                bound >> 20,
                verdict.findings.len(),
                verdict.counts.values().sum::<u64>(),
            );
            println!("{line}");
            if peak.max(upload_peak) > bound {
                failures.push(line);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "over the bound:\n{}",
        failures.join("\n")
    );
}

/// Documents of many short fields (JSON strings, XML names and texts, YAML scalars), where a
/// field costs the most: under the count limit (`max_json_strings`), with a last field that
/// reports a NUL (and that the JSON proof cannot pass), so that every field is checked. What
/// the evaluation keeps per field (location, pointer, bytes) must not add up: its working
/// memory stays within the body's size (the server's budget counts on it).
#[test]
fn documents_of_many_short_fields_allocate_no_more_than_their_size() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const SMALL: usize = 1 << 20;
    let fill = |prefix: &[u8], piece: &[u8], suffix: &[u8]| body_of(SMALL, prefix, piece, suffix);
    let long_key = [b"{\"".as_slice(), &[b'k'; 1000], b"\":["].concat();
    // 13 bytes a string: about 80 000 strings, under the count limit.
    let strings = fill(b"[", b"\"abcdefghij\",", b"\"\\u0000\"]");
    // 40 000 members of 23 bytes: 80 000 strings.
    let keys: String = (0..40_000)
        .map(|n| format!("\"k{n:06}\":\"abcdefghij\","))
        .collect();
    let keys = format!("{{{keys}\"\\u0000\":1}}").into_bytes();
    // A third of the size, percent-encoded.
    let cut = strings[..strings.len() / 3]
        .iter()
        .rposition(|&b| b == b',');
    let value = [&strings[..=cut.unwrap_or_default()], b"\"\\u0000\"]"].concat();
    let form: Vec<u8> = value
        .iter()
        .flat_map(|&b| format!("%{b:02X}").into_bytes())
        .collect();
    let attributes: String = (0..40_000)
        .map(|n| format!("a{n:06}='abcdefghijkl' "))
        .collect();
    let attributes = format!("<r><a {attributes}/><z>&#0;</z></r>").into_bytes();
    let cases: Vec<(&str, &str, Vec<u8>)> = vec![
        (
            "long pointers",
            "application/json",
            fill(&long_key, b"\"abcdefghij\",", b"\"\\u0000\"]}"),
        ),
        ("many strings", "application/json", strings.clone()),
        ("many keys", "application/json", keys),
        ("sniffed as text", "text/plain", strings.clone()),
        (
            "xml elements",
            "application/xml",
            fill(b"<r>", b"<abcdefghij/>", b"<z>&#0;</z></r>"),
        ),
        ("xml attributes", "application/xml", attributes),
        (
            "yaml scalars",
            "application/yaml",
            fill(b"a: [", b"abcdefghij, ", b"\"\\0\"]"),
        ),
        (
            "a form value",
            "application/x-www-form-urlencoded",
            [b"a=".as_slice(), &form].concat(),
        ),
    ];
    let mut failures = Vec::new();
    for (name, content_type, body) in cases {
        let request = Request::new("POST", b"/upload")
            .header("Content-Type", content_type.as_bytes())
            .body(&body);
        let profile = Profile::strict();
        let (evaluation, peak) = peak_of(|| evaluate(&profile, &request));
        let bound = body.len() + FIXED;
        let line = format!(
            "{name}: peak {} KiB, bound {} KiB, {:?}",
            peak >> 10,
            bound >> 10,
            evaluation.verdict.counts
        );
        println!("{line}");
        // Every field read: the last one's NUL found.
        if peak > bound || !evaluation.verdict.counts.contains_key("nul") {
            failures.push(line);
        }
    }
    assert!(
        failures.is_empty(),
        "over the bound, or not read to the end:\n{}",
        failures.join("\n")
    );
}

#[test]
fn a_streamed_scan_of_hostile_bytes_holds_no_more_than_a_chunk() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let profile = Profile::strict();
    for piece in [
        &b"\x80"[..],
        b"\xC0\xAE",
        b"\0",
        b"\xED\xA0\xBD\xED\xB8\x80",
    ] {
        let chunk = piece.repeat(64 * 1024 / piece.len());
        let (verdict, peak) = peak_of(|| {
            let mut scan = BodyScan::new(&profile);
            for _ in 0..(SIZE / chunk.len()) {
                scan.feed(&chunk);
            }
            scan.finish()
        });
        assert!(verdict.findings.len() <= profile.limits.max_findings);
        assert!(
            peak < FIXED,
            "{piece:02X?}: a streamed scan of {SIZE} bytes peaked at {peak} bytes"
        );
    }
}

#[test]
fn a_run_of_hostile_bytes_is_one_finding_that_counts_them_all() {
    // Monitored: read to the end.
    let mut profile = Profile::strict();
    profile.monitor = true;
    let body = vec![0x80; 1 << 20];
    let request = Request::new("POST", b"/")
        .header("Content-Type", b"text/plain")
        .body(&body);
    let verdict = evaluate(&profile, &request).verdict;
    assert_eq!(verdict.findings.len(), 1);
    assert_eq!(verdict.findings[0].length, 1 << 20);
    assert_eq!(verdict.findings[0].run, Some(1 << 20));
    assert_eq!(verdict.counts["unexpected_continuation"], 1 << 20);
    assert!(!verdict.findings_truncated && !verdict.stopped_early);
    // Enforced: settled after `max_findings` occurrences, the run covering what was read.
    let strict = Profile::strict();
    let verdict = evaluate(&strict, &request).verdict;
    assert!(verdict.stopped_early);
    assert_eq!(verdict.findings.len(), 1);
    let read = verdict.counts["unexpected_continuation"];
    assert!(
        read >= strict.limits.max_findings as u64 && read < 1 << 20,
        "{read}"
    );
    assert_eq!(verdict.findings[0].run, Some(read));
}

#[test]
fn a_settled_request_is_not_read_to_the_end_unless_monitored() {
    // `80 41`: no two findings adjacent, so the listing fills at the 100th.
    let body = b"\x80A".repeat(1 << 20);
    let request = Request::new("POST", b"/")
        .header("Content-Type", b"text/plain")
        .body(&body);
    let strict = Profile::strict();
    let verdict = evaluate(&strict, &request).verdict;
    assert_eq!(verdict.decision, utf8gate_policy::Decision::Reject);
    assert!(verdict.stopped_early);
    assert_eq!(verdict.findings.len(), strict.limits.max_findings);
    assert!(verdict.counts["unexpected_continuation"] < 1 << 20);
    // The streamed scan stops too.
    let mut scan = BodyScan::new(&strict);
    for chunk in body.chunks(64 * 1024) {
        scan.feed(chunk);
    }
    let streamed = scan.finish();
    assert!(streamed.stopped_early);
    assert_eq!(streamed.findings.len(), strict.limits.max_findings);
    assert!(streamed.bytes_inspected < body.len() as u64);
    // A monitored request is read to the end: every occurrence counted.
    let mut monitor = Profile::strict();
    monitor.monitor = true;
    let verdict = evaluate(&monitor, &request).verdict;
    assert!(!verdict.stopped_early);
    assert_eq!(verdict.counts["unexpected_continuation"], 1 << 20);
    // Under the limit nothing stops: a few findings are all counted.
    let few = Request::new("POST", b"/")
        .header("Content-Type", b"text/plain")
        .body(&b"\x80A".repeat(50));
    let verdict = evaluate(&strict, &few).verdict;
    assert!(!verdict.stopped_early);
    assert_eq!(verdict.counts["unexpected_continuation"], 50);
}

/// A sanitize that would grow a long field by more than a quarter (NFC triples U+1D160,
/// U+FFFD triples a lone byte) is refused as `limit_exceeded`, never written; a short field,
/// or one that grows a little, is rewritten.
#[test]
fn a_rewrite_that_would_outgrow_the_budget_is_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let evaluate_text = |profile: &Profile, body: &[u8]| {
        let request = Request::new("POST", b"/upload")
            .header("Content-Type", b"text/plain")
            .body(body);
        evaluate(profile, &request)
    };
    let tripled = "\u{1D160}".repeat(64 * 1024 / 4 + 1);
    let lone = vec![0x80; 64 * 1024];
    for (profile, body) in [
        (Profile::strict(), tripled.as_bytes()),
        (Profile::lossy(), &lone[..]),
    ] {
        let (e, peak) = peak_of(|| evaluate_text(&profile, body));
        assert_eq!(e.verdict.decision, utf8gate_policy::Decision::Reject);
        assert!(
            e.verdict.counts.contains_key("limit_exceeded"),
            "{:?}",
            e.verdict.counts
        );
        assert!(peak < 2 * body.len() + FIXED, "{peak}");
    }
    // Short, or a little longer: rewritten.
    let short = evaluate_text(&Profile::strict(), "\u{1D160}".repeat(100).as_bytes());
    assert_eq!(short.verdict.decision, utf8gate_policy::Decision::Sanitize);
    let mut some = "a".repeat(100 * 1024);
    some.push_str(&"\u{1D160}".repeat(1000));
    let grown = evaluate_text(&Profile::strict(), some.as_bytes());
    assert_eq!(grown.verdict.decision, utf8gate_policy::Decision::Sanitize);
    let sanitized = grown.sanitized.expect("sanitized");
    assert_eq!(sanitized.body.len(), some.len() + 8 * 1000);
}

/// The search for the next shape: every short unit that maximises findings, fields, nesting,
/// escapes or non-starters, repeated to fill a body in the frame of every reading (a text
/// body, a JSON string and array, an XML text, a YAML quoted scalar and flow sequence, a form
/// value, a multipart part), under `strict` and `lossy`: one evaluation holds at most twice
/// the body (the server's factor of 3, the body being the first).
#[test]
fn every_unit_in_every_reading_holds_at_most_twice_its_body() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const SIZE: usize = 2 << 20;
    const SLACK: usize = 1 << 20;
    #[rustfmt::skip]
    let units: &[&[u8]] = &[
        b"\x80", b"\xC0\xAE", b"\xC0\x80", b"\xED\xA0\x80", b"\xF4\x90\x80\x80", b"\0", b"\x01",
        b"%", b"%00", b"%c0%ae", b"%2525", b"%u002e", b"\\u0000", b"\\ud800", b"\\b", b"\\n",
        b"\\\"", b"&#0;", b"&#1;", b"&amp;", b"<a/>", "\u{301}".as_bytes(),
        "e\u{301}".as_bytes(), "\u{1D160}".as_bytes(), "\u{FEFF}".as_bytes(),
        "\u{202E}".as_bytes(), "\u{FF0E}".as_bytes(), "\u{FB2C}".as_bytes(), b"a.b/", b"../",
        b"\"a\",", b"{\"a\":1},", b"[1],", b"\\0", b"*a ", b"a=b&", b"a",
    ];
    let frames: &[(&str, &[u8], &[u8])] = &[
        ("text/plain", b"", b""),
        ("application/json", b"{\"a\":\"", b"\"}"),
        ("application/json", b"[", b"1]"),
        ("application/xml", b"<r>", b"</r>"),
        ("application/yaml", b"a: \"", b"\""),
        ("application/yaml", b"a: [", b"]"),
        ("application/x-www-form-urlencoded", b"a=", b""),
        (
            "multipart/form-data; boundary=B",
            b"--B\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n",
            b"\r\n--B--\r\n",
        ),
    ];
    // Known to hold more, at most three times the body: a long YAML scalar is the parser's
    // copy, and a lax reading of its escapes.
    let known =
        |content_type: &str, unit: &[u8]| content_type == "application/yaml" && unit == b"%c0%ae";
    let mut failures = Vec::new();
    for profile in [Profile::strict(), Profile::lossy()] {
        for (content_type, prefix, suffix) in frames {
            for unit in units {
                let times = if known(content_type, unit) { 3 } else { 2 };
                let body = body_of(SIZE, prefix, unit, suffix);
                let request = Request::new("POST", b"/upload")
                    .header("Content-Type", content_type.as_bytes())
                    .body(&body);
                let (_, peak) = peak_of(|| evaluate(&profile, &request));
                if peak > times * body.len() + SLACK {
                    failures.push(format!(
                        "{} {content_type} {:?}: peak {} KiB for {} KiB",
                        profile.name,
                        String::from_utf8_lossy(unit),
                        peak >> 10,
                        body.len() >> 10
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "over twice the body:\n{}",
        failures.join("\n")
    );
}
