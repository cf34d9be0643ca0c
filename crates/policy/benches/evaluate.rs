//! `cargo bench -p utf8gate-policy --bench evaluate`: the whole evaluation of clean bodies, and
//! NFC rewriting, each with its baselines in the same group.
//!
//! * `evaluate`: `utf8gate` (every check, default profile, text body) and `utf8gate_json` (the
//!   same text as the strings of a JSON body, one per line; `utf8gate_array`, a corpus of
//!   JSON lines as the array of its objects) against
//!   `simdutf8_icu_nfc` (SIMD validation + ICU `is_normalized`, the cheapest correct
//!   "valid and NFC" answer from field libraries) and `simdutf8` alone.
//! * `normalize`: rewriting NFD Latin to NFC: the policy's `to_nfc` against ICU and
//!   unicode-normalization.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use icu_normalizer::ComposingNormalizerBorrowed;
use unicode_normalization::UnicodeNormalization;
use utf8gate_policy::{Decision, Profile, Request, evaluate};

#[path = "../../codec/benches/support/corpus.rs"]
mod corpus;
#[path = "support/json_corpus.rs"]
mod json_corpus;

const SIZES: [(&str, usize); 2] = [("64KiB", 64 << 10), ("1MiB", 1 << 20)];

fn evaluation(c: &mut Criterion) {
    let profile = Profile::strict();
    let icu = ComposingNormalizerBorrowed::new_nfc();
    let mut group = c.benchmark_group("evaluate");
    for script in corpus::SCRIPTS {
        for (size_name, size) in SIZES {
            let text = corpus::text(script, size);
            let request = Request::new("POST", b"/upload")
                .header("Content-Type", b"text/plain; charset=utf-8")
                .body(&text);
            let e = evaluate(&profile, &request);
            assert_eq!(
                e.verdict.decision,
                Decision::Allow,
                "{script}: {:?}",
                e.verdict.findings
            );
            let param = format!("{script}/{size_name}");
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_with_input(BenchmarkId::new("utf8gate", &param), &request, |b, r| {
                b.iter(|| evaluate(&profile, black_box(r)).verdict.decision)
            });
            // The same text as a JSON body (one string per line): its throughput counted in
            // the text's bytes, so that the two compare.
            let json = Request::new("POST", b"/upload")
                .header("Content-Type", b"application/json")
                .body(&json_corpus::json_of(&text));
            assert_eq!(evaluate(&profile, &json).verdict.decision, Decision::Allow);
            group.bench_with_input(BenchmarkId::new("utf8gate_json", &param), &json, |b, r| {
                b.iter(|| evaluate(&profile, black_box(r)).verdict.decision)
            });
            // A corpus of JSON lines as an API sends it: the array of its objects (at 64 KiB:
            // 1 MiB of them is more strings than the profile's `max_json_strings`).
            if matches!(script, "ascii-json" | "mixed") && size <= 64 << 10 {
                let array = Request::new("POST", b"/upload")
                    .header("Content-Type", b"application/json")
                    .body(&json_corpus::array_of(&text));
                assert_eq!(evaluate(&profile, &array).verdict.decision, Decision::Allow);
                let id = BenchmarkId::new("utf8gate_array", &param);
                group.bench_with_input(id, &array, |b, r| {
                    b.iter(|| evaluate(&profile, black_box(r)).verdict.decision)
                });
            }
            group.bench_with_input(
                BenchmarkId::new("simdutf8_icu_nfc", &param),
                &text,
                |b, t| {
                    b.iter(|| {
                        simdutf8::basic::from_utf8(black_box(t)).is_ok_and(|s| icu.is_normalized(s))
                    })
                },
            );
            group.bench_with_input(BenchmarkId::new("simdutf8", &param), &text, |b, t| {
                b.iter(|| simdutf8::basic::from_utf8(black_box(t)).is_ok())
            });
        }
    }
    group.finish();
}

fn normalization(c: &mut Criterion) {
    let icu = ComposingNormalizerBorrowed::new_nfc();
    let mut group = c.benchmark_group("normalize");
    for (size_name, size) in SIZES {
        let nfc = String::from_utf8(corpus::text("latin", size)).expect("valid");
        let nfd: String = nfc.nfd().collect();
        assert_eq!(utf8gate_policy::nfc::to_nfc(&nfd), nfc);
        let param = format!("latin-nfd/{size_name}");
        group.throughput(Throughput::Bytes(nfd.len() as u64));
        group.bench_with_input(BenchmarkId::new("utf8gate", &param), &nfd, |b, t| {
            b.iter(|| utf8gate_policy::nfc::to_nfc(black_box(t)).len())
        });
        group.bench_with_input(BenchmarkId::new("icu_normalizer", &param), &nfd, |b, t| {
            b.iter(|| icu.normalize(black_box(t)).len())
        });
        group.bench_with_input(
            BenchmarkId::new("unicode_normalization", &param),
            &nfd,
            |b, t| b.iter(|| black_box(t).nfc().collect::<String>().len()),
        );
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = evaluation, normalization
}
criterion_main!(benches);
