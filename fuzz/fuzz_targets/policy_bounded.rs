//! Issue 23's memory bound: `evaluate` and `evaluate_upload` of arbitrary bytes, as a body of
//! one of several content types (or as a query), under a counting global allocator. The peak
//! of live heap bytes during one evaluation, above what was live before it, must stay within
//! `ALLOC_FACTOR` × the input's length + `ALLOC_SLACK`.
//!
//! `cargo fuzz run policy_bounded -s none` (stable toolchain). Byte 0 chooses the reading
//! (its low three bits, modulo 7: six content types and the query) and the profile (bits 6–7:
//! `strict`, `lossy`, `strict` with identity fields, `monitor`); the rest is the input.
//! `cargo run --example seeds` writes issue 23's hostile bodies as seeds.
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use libfuzzer_sys::fuzz_target;
use utf8gate_policy::{Profile, Request, evaluate, evaluate_upload};

/// Heap bytes an evaluation may hold at once per input byte: the body, its decoded copy, a
/// rewritten copy and the verdict's re-encoding each take about one; the rest is room for
/// per-field structures (issue 23: a structure per finding is what must not grow).
const ALLOC_FACTOR: usize = 16;
/// Heap bytes an evaluation may hold whatever its input: tables built on first use, the
/// verdict with its at most `max_findings` listed findings, per-request buffers.
const ALLOC_SLACK: usize = 1 << 20;

/// The readings byte 0 chooses from: a `Content-Type`, or `None` for the input as a query.
const READINGS: [Option<&[u8]>; 7] = [
    Some(b"text/plain; charset=utf-8"),
    Some(b"application/json"),
    Some(b"application/x-www-form-urlencoded"),
    // The boundary of the hostile seeds (crates/policy/benches/support/hostile.rs).
    Some(b"multipart/form-data; boundary=hostile-bench-boundary"),
    Some(b"application/octet-stream"),
    Some(b""),
    None,
];

/// Identity fields where a fuzzed body can reach them: a form field, a top-level JSON member
/// and every `u` of a top-level array's objects, a multipart field.
const IDENTITY_PROFILE: &str = r#"name = "bounded-identity"

[[identity]]
form = "u"
kind = "username"
action = "rewrite"

[[identity]]
json = "/*/u"
kind = "nickname"

[[identity]]
multipart = "u"
kind = "opaque"
"#;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            PEAK.fetch_max(
                LIVE.fetch_add(layout.size(), Relaxed) + layout.size(),
                Relaxed,
            );
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            PEAK.fetch_max(LIVE.fetch_add(new_size, Relaxed) + new_size, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns the peak of live heap bytes above those live when it started.
fn peak_of<T>(f: impl FnOnce() -> T) -> usize {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = f();
    let peak = PEAK.load(Relaxed).saturating_sub(before);
    drop(out);
    peak
}

fn profiles() -> &'static [Profile; 4] {
    static PROFILES: OnceLock<[Profile; 4]> = OnceLock::new();
    PROFILES.get_or_init(|| {
        utf8gate_policy::prepare();
        [
            Profile::strict(),
            Profile::lossy(),
            Profile::from_toml(IDENTITY_PROFILE, "policy_bounded").expect("valid profile"),
            Profile::built_in("monitor").expect("built in"),
        ]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let profile = &profiles()[usize::from(selector >> 6)];
    let request = match READINGS[usize::from(selector & 7) % READINGS.len()] {
        Some(content_type) => {
            let r = Request::new("POST", b"/upload")
                .header("Host", b"localhost")
                .body(input);
            match content_type {
                b"" => r,
                ct => r.header("Content-Type", ct),
            }
        }
        None => {
            let mut target = b"/search?".to_vec();
            target.extend_from_slice(input);
            Request::new("GET", &target).header("Host", b"localhost")
        }
    };
    let bound = ALLOC_FACTOR * data.len() + ALLOC_SLACK;
    let peak = peak_of(|| evaluate(profile, &request));
    assert!(
        peak <= bound,
        "evaluate ({}): peak heap {peak} bytes for {} input bytes, bound {bound}",
        profile.name,
        data.len()
    );
    if !request.body.is_empty() {
        let peak = peak_of(|| evaluate_upload(profile, &request));
        assert!(
            peak <= bound,
            "evaluate_upload ({}): peak heap {peak} bytes for {} input bytes, bound {bound}",
            profile.name,
            data.len()
        );
    }
});
