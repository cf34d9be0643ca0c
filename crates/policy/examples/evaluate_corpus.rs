//! `cargo run --release -p utf8gate-policy --example evaluate_corpus -- SCRIPT SIZE REPS [json]`:
//! evaluates one benchmark corpus (the `evaluate` bench's request: default profile,
//! `text/plain` body; with `json`, the same text as the strings of an `application/json`
//! array, one per line of the corpus, escapes written as JSON writers write them) `REPS` times, for profiling the clean path under callgrind or perf
//! without criterion's own work in the profile. Prints the rate of the repetitions. With
//! `get` instead of `json`, the request is a browser's GET with a query (`SCRIPT` and `SIZE`
//! are not read): the clean request of the allocations test. With `array`, a corpus of JSON
//! lines (`ascii-json`, `mixed`) is sent as the JSON array of its objects: an API's JSON, a
//! few short keys and strings per object. With `file`, `SCRIPT` is a file sent as the body,
//! `application/json` when its name ends in `.json`, else `text/plain` (`SIZE` is not read).

use std::hint::black_box;

use utf8gate_policy::{Decision, Profile, Request, evaluate};

#[path = "../../codec/benches/support/corpus.rs"]
mod corpus;
#[path = "../benches/support/json_corpus.rs"]
mod json_corpus;

use json_corpus::{array_of, json_of};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let script = args.get(1).map_or("latin", String::as_str);
    let size: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(64 << 10);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mode = args.get(4).map_or("text", String::as_str);
    let profile = Profile::strict();
    let text = match mode {
        "file" => std::fs::read(script).expect("a readable file"),
        _ => corpus::text(script, size),
    };
    let request = if mode == "json" {
        Request::new("POST", b"/upload")
            .header("Content-Type", b"application/json")
            .body(&json_of(&text))
    } else if mode == "array" {
        Request::new("POST", b"/upload")
            .header("Content-Type", b"application/json")
            .body(&array_of(&text))
    } else if mode == "file" {
        let json = script.ends_with(".json");
        let content_type: &[u8] = if json {
            b"application/json"
        } else {
            b"text/plain"
        };
        Request::new("POST", b"/upload")
            .header("Content-Type", content_type)
            .body(&text)
    } else if mode == "get" {
        Request::new("GET", b"/search?q=caf%C3%A9+cr%C3%A8me&lang=fr&page=2")
            .header("Host", b"example.com")
            .header("Accept", b"text/html,application/xhtml+xml")
            .header("Accept-Language", b"fr-CH, fr;q=0.9, en;q=0.8")
            .header("User-Agent", b"Mozilla/5.0 (X11; Linux x86_64)")
    } else {
        Request::new("POST", b"/upload")
            .header("Content-Type", b"text/plain; charset=utf-8")
            .body(&text)
    };
    // Warm: the lazily built tables are built outside the measured repetitions.
    let first = evaluate(&profile, &request);
    assert_eq!(first.verdict.decision, Decision::Allow, "{script}");
    let start = std::time::Instant::now();
    measured(&profile, &request, reps);
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "{script}/{size}: {:.2} GB/s",
        (size * reps) as f64 / seconds / 1e9
    );
}

/// The repetitions, in a function of their own for `callgrind --toggle-collect=*measured*`.
#[inline(never)]
fn measured(profile: &Profile, request: &Request, reps: usize) {
    for _ in 0..reps {
        black_box(evaluate(profile, black_box(request)).verdict.decision);
    }
}
