//! What `evaluate` allocates for a clean request, counted by a global allocator: nothing for a
//! clean GET or a clean JSON body, and no copy of a JSON string that has no escape.

// A global allocator is implemented with `unsafe`: it only forwards to `System`, counting.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use utf8gate_policy::{Decision, Profile, Request, evaluate};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to the system allocator with the caller's arguments, whose
// contracts are the same; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new, Ordering::Relaxed);
        // SAFETY: as the caller's.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Mixed-script text without JSON escapes, as the proxy benchmark's body has.
const SENTENCE: &str = "Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis. Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. 我能吞下玻璃而不伤身体。 いろはにほへと ちりぬるを。 أنا قادر على أكل الزجاج. 나는 유리를 먹을 수 있어요. Great job 👍🎉😀 ";

/// Allocations and bytes allocated by one `evaluate` of `request` (after a first one, which
/// builds the lazily built tables).
fn allocated(profile: &Profile, request: &Request) -> (usize, usize) {
    let e = evaluate(profile, request);
    assert_eq!(
        e.verdict.decision,
        Decision::Allow,
        "{:?}",
        e.verdict.findings
    );
    drop(e);
    let (a, b) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let e = evaluate(profile, request);
    let n = (
        ALLOCATIONS.load(Ordering::Relaxed) - a,
        BYTES.load(Ordering::Relaxed) - b,
    );
    drop(e);
    n
}

/// A 16 KiB JSON array of `strings` strings of the sentence, each ending in `escape`.
fn json_of(strings: usize, escape: &str) -> Vec<u8> {
    let mut json = String::from("[");
    for i in 0..strings {
        if i > 0 {
            json.push(',');
        }
        json.push('"');
        while json.len() < (i + 1) * (16 << 10) / strings {
            json.push_str(SENTENCE);
        }
        json.push_str(escape);
        json.push('"');
    }
    json.push(']');
    json.into_bytes()
}

// One test function: the counters are global, and the tests of one binary run in parallel.
#[test]
fn a_clean_request_allocates_nothing_and_copies_no_string_without_escapes() {
    let profile = Profile::strict();
    // Short escaped values (`caf%C3%A9`, `hello+world`) are decoded inline.
    for target in [
        &b"/items/42?page=2&q=caf%C3%A9"[..],
        b"/search?q=hello+world&lang=fr",
        b"/a/b/c",
    ] {
        let get = Request::new("GET", target)
            .header("Host", b"example.com")
            .header("Accept", b"text/html,application/xhtml+xml")
            .header("Accept-Language", b"fr-CH, fr;q=0.9, en;q=0.8")
            .header("User-Agent", b"Mozilla/5.0 (X11; Linux x86_64)");
        let (n, bytes) = allocated(&profile, &get);
        eprintln!(
            "GET {}: {n} allocations, {bytes} bytes",
            String::from_utf8_lossy(target)
        );
        assert_eq!(n, 0, "a clean GET made {n} allocations");
    }
    let post = |body: &[u8]| {
        Request::new("POST", b"/api")
            .header("Host", b"example.com")
            .header("Content-Type", b"application/json")
            .body(body)
    };
    let one_string = json_of(1, "");
    assert_eq!(
        allocated(&profile, &post(&one_string)).0,
        0,
        "a clean 16 KiB JSON body"
    );
    let small =
        r#"{"user":{"name":"Zoë","tags":["caf\u00e9","\u65e5\u672c"],"age":42}}"#.as_bytes();
    assert_eq!(
        allocated(&profile, &post(small)).0,
        0,
        "a small JSON object"
    );
    for strings in [1, 16] {
        let plain = json_of(strings, "");
        let (n, bytes) = allocated(&profile, &post(&plain));
        eprintln!(
            "{} B of JSON, {strings} strings: {n} allocations, {bytes} bytes",
            plain.len()
        );
        // A string without escapes is borrowed from the body, never copied.
        assert!(bytes < plain.len(), "{bytes} bytes for {} B", plain.len());
        // One with an escape is not decoded either: the document is proven clean whole
        // (`readings::json::proof`), its strings read in place.
        let escaped = json_of(strings, "\\n");
        let (m, more) = allocated(&profile, &post(&escaped));
        eprintln!("the same with an escape in each string: {m} allocations, {more} bytes");
        assert_eq!((m, more), (0, 0), "{n} allocations without escapes");
    }
}
