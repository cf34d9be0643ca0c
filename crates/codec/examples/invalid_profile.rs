//! Runs one decoder over one 1 %-invalid bench corpus, for instruction counts under callgrind.
//!
//! `cargo build --release -p utf8gate-codec --example invalid_profile`, then
//! `valgrind --tool=callgrind target/release/examples/invalid_profile FUNC CORPUS SIZE RUNS`
//! with FUNC one of `diagnose`, `lossy`, `std_lossy`, `encoding_rs`, `none`, CORPUS one of the
//! bench corpora and SIZE in bytes. Instructions per byte are
//! `(Ir(RUNS) - Ir(0)) / (RUNS * input length)`; `scripts/callgrind_ipb.sh` does that for every
//! corpus.

use std::hint::black_box;

#[path = "../benches/support/corpus.rs"]
mod corpus;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (func, script) = (args[1].as_str(), args[2].as_str());
    let size: usize = args[3].parse().expect("SIZE in bytes");
    let runs: usize = args[4].parse().expect("RUNS");
    let input = corpus::one_percent_invalid(script, size);
    let mut total = 0usize;
    for _ in 0..runs {
        let i = black_box(&input[..]);
        total += match func {
            "diagnose" => utf8gate_codec::diagnose(i).count(),
            "lossy" => utf8gate_codec::to_lossy(i).len(),
            "std_lossy" => String::from_utf8_lossy(i).len(),
            "encoding_rs" => encoding_rs::UTF_8.decode_without_bom_handling(i).0.len(),
            _ => 0,
        };
    }
    println!("{func} {script} {} bytes: {total}", input.len());
}
