//! Peak memory with the shipped defaults: rounds of 8 concurrent 8 MiB `text/plain` bodies
//! (4 through the proxy to the loopback upstream, 4 to `/v1/scan`) keep the process's VmHWM
//! under idle + `limits.max_buffered_bytes` + [`OVERHEAD`], and under the sidecar's memory
//! limit (`deploy/kubernetes/sidecar.yaml`, with the ConfigMap's configuration) it is never
//! killed; `/healthz` and a clean request are answered meanwhile.
//!
//! The hostile variants (`C0 AE` pairs, lone continuation bytes, malformations and controls
//! between letters, CESU-8 pairs, overlong NULs: a finding every one to six bytes) cost the
//! evaluation what clean bodies do since findings are collected in bounded memory
//! (`crates/policy/src/found.rs`); the clean variants run the same rounds on clean bodies of the
//! same size. A round ends early when VmHWM passes its bound or the process dies, so a
//! regression fails fast, not slowly.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use utf8gate_e2e::try_exchange;
use utf8gate_e2e::{Gateway, MemoryLimit, RawResponse, Upstream, exchange, get, request};

use crate::support::*;

// =============================================================================================
// Peak memory and the sidecar's limit
// =============================================================================================

const MIB: u64 = 1 << 20;
/// `limits.max_body_bytes` by default: the largest body a request buffers.
const BODY: usize = 8 << 20;
/// `limits.max_buffered_bytes` by default.
const BUDGET: u64 = 96 * MIB;
/// What the process may hold beyond idle and the budget: the buffers of the connections in
/// flight (8 bodies and the probes; hyper reads up to about 400 KiB per connection at once and
/// writes the echoed answers), the stacks of the blocking threads evaluating, and what the
/// allocator keeps of freed memory. Measured on clean bodies: about 60 MiB over idle in all,
/// well inside the budget.
const OVERHEAD: u64 = 32 * MIB;
/// Requests in flight at once in a round.
const CONCURRENT: usize = 8;
/// How long a round's requests may take.
const ROUND: Duration = Duration::from_secs(60);

/// A body, named, with its `Content-Type`.
type Body = (&'static str, &'static [u8], Vec<u8>);

const TEXT: &[u8] = b"text/plain";

fn clean() -> Body {
    ("clean", TEXT, vec![b'a'; BODY])
}

/// Bodies with a finding every one to six bytes, and the shapes whose readings once held more
/// than the budget's factor: one combining run (NFC in stream-safe pieces), one XML element's
/// attributes, JSON lone-surrogate escapes.
fn hostile() -> [Body; 9] {
    let json = [
        b"{\"a\":\"".as_slice(),
        &b"\\ud800a".repeat(BODY / 7 - 2),
        b"\"}",
    ]
    .concat();
    let mut combining = b"a".to_vec();
    combining.extend("\u{301}".repeat((BODY - 1) / 2).as_bytes());
    [
        ("C0 AE pairs", TEXT, b"\xc0\xae".repeat(BODY / 2)),
        ("lone continuation bytes", TEXT, vec![0x80; BODY]),
        (
            "continuation bytes between letters",
            TEXT,
            b"\x80A".repeat(BODY / 2),
        ),
        (
            "CESU-8 pairs",
            TEXT,
            b"\xED\xA0\xBD\xED\xB8\x80".repeat(BODY / 6),
        ),
        ("NUL bytes between letters", TEXT, b"\0a".repeat(BODY / 2)),
        (
            "overlong NULs between letters",
            TEXT,
            b"\xC0\x80A".repeat(BODY / 3),
        ),
        ("one combining run", TEXT, combining),
        ("XML attributes", b"application/xml", attributes()),
        ("JSON lone surrogates", b"application/json", json),
    ]
}

/// `<r a0="&#0;" a1="&#0;" ...>`: one element's attributes, 50 000 of them (half the default
/// `max_json_strings`), then spaces to [`BODY`].
fn attributes() -> Vec<u8> {
    let mut out = b"<r".to_vec();
    for i in 0..50_000 {
        out.extend_from_slice(format!(" a{i}=\"&#0;\"").as_bytes());
    }
    out.extend_from_slice(b"/>");
    out.resize(BODY, b' ');
    out
}

/// What a round saw.
struct Round {
    /// Each request's destination and answer (`None`: none came).
    answers: Vec<(&'static str, Option<RawResponse>)>,
    /// VmHWM at the end of the round.
    peak: u64,
    /// The probes that failed, described.
    failed_probes: Vec<String>,
}

/// Sends [`CONCURRENT`] requests with `body` at once, half to the proxy and half to
/// `/v1/scan`. Meanwhile a task asks `/healthz` and `GET /clean` through the proxy every
/// 100 ms (each must be 200 within 2 s), and VmHWM is read every 20 ms: the round ends early
/// when it passes `bound` or the process exits.
async fn round(gw: &mut Gateway, (_, kind, body): &Body, bound: u64) -> Round {
    let mut requests = tokio::task::JoinSet::new();
    for i in 0..CONCURRENT {
        let (to, addr, target) = match i % 2 {
            0 => ("proxy", gw.proxy, "/upload"),
            _ => ("scan", gw.api, "/v1/scan"),
        };
        let bytes = request("POST", target, &[("content-type", kind)], body);
        requests.spawn(async move { (to, try_exchange(addr, bytes, ROUND).await.ok()) });
    }
    let failed = Arc::new(Mutex::new(Vec::new()));
    let probes = tokio::spawn(probe(gw.admin, gw.proxy, Arc::clone(&failed)));
    let deadline = Instant::now() + ROUND + Duration::from_secs(5);
    let mut answers = Vec::new();
    while answers.len() < CONCURRENT {
        while let Some(done) = requests.try_join_next() {
            answers.push(done.expect("request task"));
        }
        let over = gw.peak_rss().unwrap_or(0) > bound;
        if over || gw.exited().is_some() || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    probes.abort();
    let failed_probes = failed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    Round {
        answers,
        peak: gw.peak_rss().unwrap_or(0),
        failed_probes,
    }
}

/// Asks `/healthz` (admin) and `GET /clean` (proxy) every 100 ms until aborted, noting failures.
async fn probe(
    admin: std::net::SocketAddr,
    proxy: std::net::SocketAddr,
    failed: Arc<Mutex<Vec<String>>>,
) {
    loop {
        for (addr, target) in [(admin, "/healthz"), (proxy, "/clean?q=ok")] {
            let started = Instant::now();
            let answer = try_exchange(addr, get(target), Duration::from_secs(2)).await;
            let status = answer.as_ref().map(|r| r.status);
            if !matches!(status, Ok(200)) {
                let seen = format!("{target}: {status:?} after {:?}", started.elapsed());
                failed.lock().unwrap_or_else(|p| p.into_inner()).push(seen);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Asserts that every request of `round` was answered as it should be: a verdict, a
/// rejection (hostile bodies through the proxy), the echo (clean ones), or 503 `busy` with
/// `Retry-After`; and that the budget let some through.
fn assert_answered(name: &str, round: &Round, is_clean: bool) {
    assert!(
        round.failed_probes.is_empty(),
        "{name}: {:?}",
        round.failed_probes
    );
    assert_eq!(
        round.answers.len(),
        CONCURRENT,
        "{name}: not every request was answered"
    );
    let mut served = 0;
    for (to, answer) in &round.answers {
        let answer = answer
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: {to}: no answer"));
        match (answer.status, *to, is_clean) {
            (503, ..) => {
                assert_problem(answer, 503, "busy");
                assert_eq!(answer.header_str("retry-after"), "1", "{name}");
            }
            (200, "scan", _) => {
                let verdict = verdict_of(&answer.json());
                let expected = if is_clean { "allow" } else { "reject" };
                assert_eq!(verdict.decision.as_str(), expected, "{name}");
                served += 1;
            }
            (200, "proxy", true) => {
                assert_eq!(answer.body.len(), BODY, "{name}: the echo");
                served += 1;
            }
            (400, "proxy", false) => {
                assert_rejected(answer, 400);
                served += 1;
            }
            _ => panic!("{name}: {to}: {} {}", answer.status, answer.text()),
        }
    }
    assert!(served > 0, "{name}: every request was refused");
}

/// A small clean request to the proxy and to `/v1/scan`, so that what a first request sets up
/// counts as idle.
async fn warm_up(gw: &Gateway) {
    for (addr, target) in [(gw.proxy, "/upload"), (gw.api, "/v1/scan")] {
        let text: &[(&str, &[u8])] = &[("content-type", b"text/plain")];
        let answer = exchange(addr, &request("POST", target, text, b"hello")).await;
        assert_eq!(answer.status, 200, "{target}: {}", answer.text());
    }
}

/// Rounds of each body with the default configuration: VmHWM stays under idle + the budget +
/// [`OVERHEAD`], and every charge is given back.
async fn peak_stays_within_the_budget(bodies: &[Body]) {
    let upstream = Upstream::start().await;
    let mut gw = Gateway::start("", Some(&upstream.url())).await;
    warm_up(&gw).await;
    let metrics = gw.metrics().await;
    assert_eq!(metrics.value("utf8gate_budget_bytes"), BUDGET as f64);
    let idle = gw.peak_rss().expect("VmHWM from /proc");
    let bound = idle + BUDGET + OVERHEAD;
    for body in bodies {
        let name = body.0;
        let round = round(&mut gw, body, bound).await;
        println!(
            "{name}: VmHWM {} MiB (idle {} MiB, bound {} MiB)",
            round.peak / MIB,
            idle / MIB,
            bound / MIB
        );
        assert!(gw.exited().is_none(), "{name}: the gateway died");
        assert!(
            round.peak <= bound,
            "{name}: VmHWM {} > {bound}",
            round.peak
        );
        assert_answered(name, &round, name == "clean");
    }
    // Every charge is given back once the answers are (the gauge, scraped until it is 0).
    let mut charged = -1.0;
    for _ in 0..100 {
        charged = gw.metrics().await.value("utf8gate_budget_charged_bytes");
        if charged == 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(charged, 0.0, "still charged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_8_mib_bodies_8_at_a_time_keep_peak_memory_within_idle_plus_the_budget() {
    peak_stays_within_the_budget(&[clean()]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_8_mib_bodies_8_at_a_time_keep_peak_memory_within_idle_plus_the_budget() {
    peak_stays_within_the_budget(&hostile()).await;
}

/// The memory limit of the sidecar's utf8gate container (`resources.limits.memory`).
fn sidecar_memory_limit() -> u64 {
    let manifest = include_str!("../../../deploy/kubernetes/sidecar.yaml");
    let container = manifest
        .split("- name: utf8gate\n")
        .nth(1)
        .expect("the utf8gate container");
    let limits = container.split("limits:").nth(1).expect("its limits");
    let memory = limits
        .lines()
        .find_map(|l| l.trim().strip_prefix("memory:"))
        .expect("a memory limit")
        .trim();
    let (number, unit) = memory.split_at(memory.len() - 2);
    let shift = match unit {
        "Mi" => 20,
        "Gi" => 30,
        _ => panic!("unexpected memory unit in {memory:?}"),
    };
    number.parse::<u64>().expect("a number") << shift
}

/// The configuration file of the ConfigMap (`utf8gate.toml`), as the sidecar reads it.
fn configmap_toml() -> String {
    let manifest = include_str!("../../../deploy/kubernetes/configmap.yaml");
    let (_, file) = manifest
        .split_once("utf8gate.toml: |\n")
        .expect("utf8gate.toml");
    let lines = file
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with("    "));
    lines
        .map(|l| l.get(4..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rounds of each body with the ConfigMap's configuration under the sidecar's memory limit:
/// the process is never killed. Skipped, with one line saying so, where no limit can be set.
async fn never_killed_under_the_sidecar_limit(bodies: &[Body]) {
    let limit = sidecar_memory_limit();
    assert_eq!(
        limit,
        256 * MIB,
        "the sidecar's limit changed: check docs/operations.md"
    );
    let Some(limiter) = MemoryLimit::find(limit) else {
        println!(
            "skipped: neither systemd-run, a cgroup v2 memory controller nor prlimit can limit memory here"
        );
        return;
    };
    println!("the gateway runs under {}", limiter.how);
    let upstream = Upstream::start().await;
    let config = configmap_toml();
    let mut gw = Gateway::start_under(&limiter.wrapper, &config, Some(&upstream.url())).await;
    warm_up(&gw).await;
    for body in bodies {
        let name = body.0;
        let round = round(&mut gw, body, u64::MAX).await;
        if let Some(status) = gw.exited() {
            panic!("{name}: the gateway died under {}: {status}", limiter.how);
        }
        println!("{name}: VmHWM {} MiB", round.peak / MIB);
        assert_answered(name, &round, name == "clean");
    }
    let health = exchange(gw.admin, &get("/healthz")).await;
    assert_eq!(health.status, 200);
    assert!(gw.exited().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_traffic_under_the_sidecar_memory_limit_never_kills_it() {
    never_killed_under_the_sidecar_limit(&[clean()]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_traffic_under_the_sidecar_memory_limit_never_kills_it() {
    never_killed_under_the_sidecar_limit(&hostile()).await;
}

// New peak memory tests go here.
