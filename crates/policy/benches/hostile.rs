//! `cargo bench -p utf8gate-policy --bench hostile`: issue 23's hostile requests
//! (`support/hostile.rs`) against their clean twins (same type, size and shape), in one group
//! `hostile`, through `evaluate` (the proxy), `evaluate_upload` (`/v1/scan` of a buffered
//! body) and the streamed `BodyScan` (`/v1/scan` of text and octet streams), as bytes per
//! second. Ids: `PATH/CASE/hostile` and `PATH/CASE/clean`; `-- hostile/evaluate/text-nul`
//! selects one. Peak heap is measured by `examples/hostile.rs measure`, not here.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use utf8gate_policy::{BodyScan, Decision, Profile, Request, evaluate, evaluate_upload};

#[path = "support/hostile.rs"]
mod hostile;

/// Cases whose cost grows faster than their size before issue 23's fix (at 1 MiB they take
/// minutes to hours per evaluation), with the size each is measured at so that the group ends.
/// Once the fix makes them linear, empty this list: they then run at `hostile::BENCH_SIZE`
/// like the others.
const SUPERLINEAR: &[(&str, usize)] = &[
    ("text-bom", 32 << 10),
    ("text-bom-controls", 16 << 10),
    ("multipart-repeated-headers", 256 << 10),
];

/// One way a request is read: `evaluate`, `evaluate_upload` or the streamed scan.
type Path = fn(&Profile, &Request) -> Decision;

fn scan(profile: &Profile, request: &Request) -> Decision {
    let mut scan = BodyScan::for_body_of(profile, request, 1 << 30);
    // The server feeds the body as its frames arrive: 64 KiB pieces stand for them.
    for chunk in request.body.chunks(64 << 10) {
        scan.feed(chunk);
    }
    scan.finish().decision
}

fn paths(case: &hostile::Case) -> Vec<(&'static str, Path)> {
    let mut paths: Vec<(&'static str, Path)> =
        vec![("evaluate", |p, r| evaluate(p, r).verdict.decision)];
    if case.in_body() {
        paths.push(("evaluate_upload", |p, r| {
            evaluate_upload(p, r).verdict.decision
        }));
    }
    if case.streamable() {
        paths.push(("scan", scan));
    }
    paths
}

fn hostile_group(c: &mut Criterion) {
    utf8gate_policy::prepare();
    let mut group = c.benchmark_group("hostile");
    // Slow cases take a second or more per iteration today: one iteration per sample.
    group.sampling_mode(SamplingMode::Flat);
    for name in hostile::NAMES {
        let size = SUPERLINEAR
            .iter()
            .find(|&&(n, _)| n == *name)
            .map_or(hostile::BENCH_SIZE, |&(_, size)| size);
        let case = hostile::case(name, size).expect("listed");
        let profile = case.profile();
        for (side, input) in [("clean", &case.clean), ("hostile", &case.hostile)] {
            let request = case.request(input);
            if side == "clean" {
                let verdict = evaluate(&profile, &request).verdict;
                assert_eq!(
                    verdict.decision,
                    Decision::Allow,
                    "{name}: {:?}",
                    verdict.counts
                );
            }
            group.throughput(Throughput::Bytes(input.len() as u64));
            for (path, f) in paths(&case) {
                let id = BenchmarkId::new(path, format!("{name}/{side}"));
                group.bench_with_input(id, &request, |b, r| b.iter(|| f(&profile, black_box(r))));
            }
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(1000))
        .sample_size(10)
}

criterion_group! {
    name = benches;
    config = config();
    targets = hostile_group
}
criterion_main!(benches);
