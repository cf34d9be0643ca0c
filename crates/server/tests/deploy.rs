//! The deployment files use only metrics that utf8gate exports.
//!
//! A renamed metric, a misspelt metric name in a PromQL expression or a panel querying a family
//! that does not exist would otherwise fail silently: an alert that never fires, an empty panel
//! (PromQL syntax is promtool's job, in `.ci/deploy-checks`). This test
//! renders every metric family of a real [`Metrics`] registry (after one request has been
//! recorded through its public methods, so that every family has samples) and checks every
//! `utf8gate_*` and `process_*` name used by the Prometheus rules, their unit tests and the
//! Grafana dashboard against it. Recording-rule names (`level:metric:operations`) used anywhere
//! must be defined in the rules file.
//!
//! The process collector (`utf8gate_process_*`: the registry's prefix applies to it too) exists
//! on Linux only; elsewhere those names are not checked.

use std::collections::BTreeSet;

use utf8gate_policy::{Decision, Mode, Profile, Request, evaluate};
use utf8gate_server::ops::metrics::{Metrics, UpstreamError};

const RULES: &str = include_str!("../../../deploy/prometheus/rules.yml");
const RULES_TEST: &str = include_str!("../../../deploy/prometheus/rules_test.yml");
const DASHBOARD: &str = include_str!("../../../deploy/grafana/utf8gate.json");

const FILES: [(&str, &str); 3] = [
    ("deploy/prometheus/rules.yml", RULES),
    ("deploy/prometheus/rules_test.yml", RULES_TEST),
    ("deploy/grafana/utf8gate.json", DASHBOARD),
];

/// The text exposition of a registry in which every family has samples.
fn rendered() -> String {
    let metrics = Metrics::new();
    let evaluation = evaluate(
        &Profile::strict(),
        &Request::new("GET", b"/files/%c0%ae%c0%ae/etc/passwd"),
    );
    assert_eq!(evaluation.verdict.decision, Decision::Reject);
    assert!(
        !evaluation.verdict.findings.is_empty(),
        "the sample request must have findings, so that findings_total has samples"
    );
    metrics.record(Mode::Proxy, &evaluation.verdict, 0.002);
    metrics.record_refused(Mode::Scan, "", 0.001);
    metrics.upstream_answered(0.01);
    metrics.upstream_failed(UpstreamError::Connect);
    metrics.upstream_failed(UpstreamError::Timeout);
    metrics.body_limit_exceeded();
    metrics.in_flight().inc();
    metrics
        .tls()
        .served(&[("/etc/utf8gate-tls/tls.crt".into(), "example".into(), 0)]);
    metrics.tls().handshake_failed("proxy", "plaintext");
    metrics.render()
}

/// Family names (`# TYPE` lines) and sample names (`_bucket`, `_sum`, `_count` of histograms
/// included), and the families that have no sample.
fn exported(text: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut families = Vec::new();
    let mut samples = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            if let Some(name) = rest.split_whitespace().next() {
                families.push(name.to_string());
            }
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            let end = line.find(['{', ' ']).unwrap_or(line.len());
            samples.insert(line[..end].to_string());
        }
    }
    let empty = families
        .iter()
        .filter(|f| {
            !samples.iter().any(|s| {
                s == *f
                    || s.strip_prefix(f.as_str())
                        .is_some_and(|r| r.starts_with('_'))
            })
        })
        .cloned()
        .collect();
    let mut names: BTreeSet<String> = families.into_iter().collect();
    names.extend(samples);
    (names, empty)
}

/// Maximal runs of metric-name characters (`[A-Za-z0-9_:]`), without the colons that end a
/// word in prose ("see utf8gate_requests_total: ...").
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .map(|t| t.trim_matches(':'))
        .filter(|t| !t.is_empty())
}

/// Metric names a file uses: identifiers matching `(utf8gate|process)_[a-z0-9_]+`.
fn metric_names(text: &str) -> BTreeSet<&str> {
    identifiers(text)
        .filter(|t| {
            ["utf8gate_", "process_"]
                .iter()
                .any(|p| t.len() > p.len() && t.starts_with(p))
                && t.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .collect()
}

/// Recording-rule names a file uses: identifiers with a colon that mention a utf8gate metric.
fn recorded_names(text: &str) -> BTreeSet<&str> {
    identifiers(text)
        .filter(|t| t.contains(':') && t.contains("utf8gate_"))
        .collect()
}

/// The names recording rules define (`record: NAME`).
fn defined_records(rules: &str) -> BTreeSet<&str> {
    rules
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            l.strip_prefix("- ").unwrap_or(l).strip_prefix("record:")
        })
        .map(str::trim)
        .collect()
}

#[test]
fn every_family_has_samples_after_one_request() {
    let text = rendered();
    let (names, empty) = exported(&text);
    assert!(
        empty.is_empty(),
        "families without samples: {empty:?}\n{text}"
    );
    for expected in [
        "utf8gate_requests_total",
        "utf8gate_findings_total",
        "utf8gate_request_duration_seconds_bucket",
        "utf8gate_protocol_requests_total",
        "utf8gate_upstream_errors_total",
        "utf8gate_body_limit_exceeded_total",
        "utf8gate_in_flight_requests",
    ] {
        assert!(
            names.contains(expected),
            "{expected} is not exported:\n{text}"
        );
    }
}

#[test]
fn deploy_files_use_only_exported_metrics() {
    let text = rendered();
    let (exported, _) = exported(&text);
    let mut missing = Vec::new();
    for (file, content) in FILES {
        let names = metric_names(content);
        assert!(
            !names.is_empty(),
            "{file}: no utf8gate_* or process_* metric found"
        );
        for name in names {
            if name.contains("process_") && !cfg!(target_os = "linux") {
                continue;
            }
            if !exported.contains(name) {
                missing.push(format!("{file}: {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "metrics used by deployment files but not exported:\n  {}\nexported:\n  {}",
        missing.join("\n  "),
        exported.iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn recording_rules_used_are_defined() {
    let defined = defined_records(RULES);
    assert!(defined.len() >= 5, "recording rules not found: {defined:?}");
    for (file, content) in FILES {
        for name in recorded_names(content) {
            assert!(
                defined.contains(name),
                "{file} uses {name}, which deploy/prometheus/rules.yml does not record; defined: {defined:?}"
            );
        }
    }
}

#[test]
fn the_scan_finds_what_it_should() {
    let sample = r#"sum(rate(utf8gate_requests_total{decision="reject"}[5m])) / on(job) job:utf8gate_requests:rate5m
        "expr": "utf8gate_process_resident_memory_bytes{job=\"$job\"}" https://example.invalid/utf8gate/x#a utf8gate_* process_ (utf8gate_in_flight_requests: the gauge)"#;
    assert_eq!(
        metric_names(sample).into_iter().collect::<Vec<_>>(),
        [
            "utf8gate_in_flight_requests",
            "utf8gate_process_resident_memory_bytes",
            "utf8gate_requests_total"
        ]
    );
    assert_eq!(
        recorded_names(sample).into_iter().collect::<Vec<_>>(),
        ["job:utf8gate_requests:rate5m"]
    );
}
