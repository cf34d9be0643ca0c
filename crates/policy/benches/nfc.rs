//! `cargo bench -p utf8gate-policy --bench nfc`: the NFC check of already-NFC text, UTF-8
//! validation included, against the same validation followed by `unicode-normalization`'s quick
//! check or ICU4X's `is_normalized`, and against validation alone, all measured in one group on
//! the same bytes. `scripts/bench_table.py nfc_check simdutf8_icu` prints the ratios.
//!
//! `utf8gate_codec::validate` is `simdutf8::basic` on valid input, hence the baselines' names;
//! `simdutf8` is `simdutf8::basic::from_utf8` itself.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use icu_normalizer::ComposingNormalizerBorrowed;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

// Shared with the codec's benchmarks.
#[path = "../../codec/benches/support/corpus.rs"]
mod corpus;

/// The sizes measured: the cache-resident and the L3 case.
const SIZES: [&str; 2] = ["64KiB", "1MiB"];

/// `unicode-normalization`'s quick check, with `Maybe` resolved by comparing with the NFC.
fn unicode_normalization_is_nfc(text: &str) -> bool {
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => true,
        IsNormalized::No => false,
        IsNormalized::Maybe => text.nfc().eq(text.chars()),
    }
}

/// The `nfc_check` group: every corpus at 64 KiB and 1 MiB, all of it NFC.
fn nfc_check(c: &mut Criterion) {
    let icu = ComposingNormalizerBorrowed::new_nfc();
    let mut group = c.benchmark_group("nfc_check");
    for script in corpus::SCRIPTS {
        for (size_name, size) in corpus::SIZES {
            if !SIZES.contains(&size_name) {
                continue;
            }
            let input = corpus::text(script, size);
            let text = utf8gate_codec::validate(&input).expect("the corpus is valid UTF-8");
            assert!(utf8gate_policy::nfc::is_nfc(text), "{script} is NFC");
            assert!(unicode_normalization_is_nfc(text), "{script} is NFC");
            assert!(icu.is_normalized(text), "{script} is NFC");
            let param = format!("{script}/{size_name}");
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(BenchmarkId::new("utf8gate", &param), &input, |b, i| {
                b.iter(|| {
                    utf8gate_codec::validate(black_box(i)).is_ok_and(utf8gate_policy::nfc::is_nfc)
                })
            });
            group.bench_with_input(
                BenchmarkId::new("simdutf8_unicode_normalization", &param),
                &input,
                |b, i| {
                    b.iter(|| {
                        utf8gate_codec::validate(black_box(i))
                            .is_ok_and(unicode_normalization_is_nfc)
                    })
                },
            );
            group.bench_with_input(BenchmarkId::new("simdutf8_icu", &param), &input, |b, i| {
                b.iter(|| {
                    utf8gate_codec::validate(black_box(i)).is_ok_and(|s| icu.is_normalized(s))
                })
            });
            group.bench_with_input(BenchmarkId::new("simdutf8", &param), &input, |b, i| {
                b.iter(|| simdutf8::basic::from_utf8(black_box(i)).is_ok())
            });
        }
    }
    group.finish();
}

/// Short runs: the group has 48 cases.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = nfc_check
}
criterion_main!(benches);
