//! `cargo bench -p utf8gate-codec`: validation, diagnosis and lossy decoding, each group with
//! its baselines (std, simdutf8, encoding_rs) measured in the same run on the same bytes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

#[path = "support/corpus.rs"]
mod corpus;

fn validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("validate");
    for script in corpus::SCRIPTS {
        for (size_name, size) in corpus::SIZES {
            let input = corpus::text(script, size);
            assert!(core::str::from_utf8(&input).is_ok());
            let param = format!("{script}/{size_name}");
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(BenchmarkId::new("utf8gate", &param), &input, |b, i| {
                b.iter(|| utf8gate_codec::validate(black_box(i)).is_ok())
            });
            group.bench_with_input(
                BenchmarkId::new("simdutf8_basic", &param),
                &input,
                |b, i| b.iter(|| simdutf8::basic::from_utf8(black_box(i)).is_ok()),
            );
            group.bench_with_input(BenchmarkId::new("std", &param), &input, |b, i| {
                b.iter(|| core::str::from_utf8(black_box(i)).is_ok())
            });
        }
    }
    group.finish();
}

fn one_percent_invalid(c: &mut Criterion) {
    let mut group = c.benchmark_group("invalid1pct");
    for script in corpus::SCRIPTS {
        for (size_name, size) in corpus::SIZES {
            let input = corpus::one_percent_invalid(script, size);
            assert_eq!(
                utf8gate_codec::to_lossy(&input),
                String::from_utf8_lossy(&input),
                "lossy output differs from std on {script}"
            );
            let param = format!("{script}/{size_name}");
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(
                BenchmarkId::new("utf8gate_diagnose", &param),
                &input,
                |b, i| b.iter(|| utf8gate_codec::diagnose(black_box(i)).count()),
            );
            group.bench_with_input(
                BenchmarkId::new("utf8gate_lossy", &param),
                &input,
                |b, i| b.iter(|| utf8gate_codec::to_lossy(black_box(i)).len()),
            );
            group.bench_with_input(BenchmarkId::new("std_lossy", &param), &input, |b, i| {
                b.iter(|| String::from_utf8_lossy(black_box(i)).len())
            });
            group.bench_with_input(BenchmarkId::new("encoding_rs", &param), &input, |b, i| {
                b.iter(|| {
                    encoding_rs::UTF_8
                        .decode_without_bom_handling(black_box(i))
                        .0
                        .len()
                })
            });
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = validation, one_percent_invalid
}
criterion_main!(benches);
