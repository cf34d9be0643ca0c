//! `cargo run --release -p utf8gate-policy --example evaluate_corpus -- SCRIPT SIZE REPS`:
//! evaluates one benchmark corpus (the `evaluate` bench's request: default profile,
//! `text/plain` body) `REPS` times, for profiling the clean path under callgrind or perf
//! without criterion's own work in the profile. Prints the rate of the repetitions.

use std::hint::black_box;

use utf8gate_policy::{Decision, Profile, Request, evaluate};

#[path = "../../codec/benches/support/corpus.rs"]
mod corpus;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let script = args.get(1).map_or("latin", String::as_str);
    let size: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(64 << 10);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let profile = Profile::strict();
    let text = corpus::text(script, size);
    let request = Request::new("POST", b"/upload")
        .header("Content-Type", b"text/plain; charset=utf-8")
        .body(&text);
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
