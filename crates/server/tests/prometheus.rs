//! A real Prometheus (Debian's package) scrapes the admin listener of the real `utf8gate`
//! binary, with `deploy/prometheus/prometheus.yml` and `rules.yml` as shipped (only the
//! addresses and intervals changed), and evaluates the rules on what it scraped.
//!
//! Needs `prometheus` on PATH (or `/usr/bin/prometheus`); CI installs it and sets
//! `REQUIRE_PROMETHEUS=1`, which turns a missing Prometheus into a failure instead of a skip.
//! Every wait is a bounded poll.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn prometheus_binary() -> Option<PathBuf> {
    let out = Command::new("sh")
        .args(["-c", "command -v prometheus || ls /usr/bin/prometheus"])
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .next()?
        .trim()
        .to_string();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// One HTTP/1.0 exchange (no chunked answers, the server closes): status and body.
fn http(addr: SocketAddr, method: &str, target: &str, body: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let head = format!(
        "{method} {target} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let status = std::str::from_utf8(response.get(9..12)?)
        .ok()?
        .parse()
        .ok()?;
    let start = response.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    Some((status, response[start..].to_vec()))
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The JSON `data` of a Prometheus API answer, if the call succeeded.
fn api(prometheus: SocketAddr, target: &str) -> Option<serde_json::Value> {
    let (status, body) = http(prometheus, "GET", target, b"")?;
    let value: serde_json::Value = serde_json::from_slice(&body).ok()?;
    (status == 200 && value["status"] == "success").then(|| value["data"].clone())
}

/// The value of an instant query that returns one sample.
fn query(prometheus: SocketAddr, expr: &str) -> Option<f64> {
    let data = api(prometheus, &format!("/api/v1/query?query={}", encode(expr)))?;
    let result = data["result"].as_array()?;
    if result.len() != 1 {
        return None;
    }
    result[0]["value"][1].as_str()?.parse().ok()
}

/// Polls `check` every 200 ms for at most `within`; its last answer.
fn poll<T>(within: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + within;
    loop {
        let answer = check();
        if answer.is_some() || Instant::now() >= deadline {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `text` with `from` replaced by `to`, which must occur.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "{from:?} is no longer in the shipped file"
    );
    text.replace(from, to)
}

fn write_prometheus_config(dir: &Path, admin: SocketAddr) -> PathBuf {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/prometheus");
    let read = |name: &str| {
        std::fs::read_to_string(shipped.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let config = replaced(
        &read("prometheus.yml"),
        "scrape_interval: 15s",
        "scrape_interval: 1s",
    );
    let config = replaced(&config, "scrape_timeout: 5s", "scrape_timeout: 1s");
    let config = replaced(
        &config,
        "evaluation_interval: 30s",
        "evaluation_interval: 1s",
    );
    let config = replaced(&config, "- 127.0.0.1:9090", &format!("- {admin}"));
    let rules = replaced(&read("rules.yml"), "interval: 30s", "interval: 1s");
    std::fs::write(dir.join("rules.yml"), rules).expect("write rules.yml");
    let path = dir.join("prometheus.yml");
    std::fs::write(&path, config).expect("write prometheus.yml");
    path
}

#[test]
fn a_real_prometheus_scrapes_the_binary_and_evaluates_the_shipped_rules() {
    let Some(prometheus) = prometheus_binary() else {
        assert!(
            std::env::var_os("REQUIRE_PROMETHEUS").is_none(),
            "Prometheus is required but not installed"
        );
        eprintln!("skipped: prometheus is not installed");
        return;
    };
    let (api_addr, admin) = (free_addr(), free_addr());
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_utf8gate"));
    gateway
        .args(["serve", "--api-addr", &api_addr.to_string()])
        .args(["--admin-addr", &admin.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("UTF8GATE_") {
            gateway.env_remove(key);
        }
    }
    let _gateway = Killed(gateway.spawn().expect("utf8gate starts"));
    assert!(
        poll(Duration::from_secs(10), || {
            http(admin, "GET", "/healthz", b"").filter(|(s, _)| *s == 200)
        })
        .is_some(),
        "utf8gate's admin listener did not answer /healthz within 10 s"
    );

    let dir = std::env::temp_dir().join(format!("utf8gate-prometheus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = write_prometheus_config(&dir, admin);
    let web = free_addr();
    let log = std::fs::File::create(dir.join("prometheus.log")).expect("log file");
    let _prometheus = Killed(
        Command::new(&prometheus)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("prometheus starts"),
    );
    let log = || std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default();

    // The target is up: Prometheus parsed the exposition (a format error would make it down).
    let up = poll(Duration::from_secs(30), || {
        query(web, r#"up{job="utf8gate"}"#).filter(|v| *v == 1.0)
    });
    assert_eq!(up, Some(1.0), "the target never came up; log:\n{}", log());
    // Scraped before any request: the closed label sets already exist at 0.
    assert_eq!(
        query(
            web,
            r#"utf8gate_requests_total{job="utf8gate",mode="scan",decision="reject"}"#
        ),
        Some(0.0)
    );

    let overlong = b"/files/\xC0\xAE\xC0\xAE/etc/passwd";
    for body in [
        &overlong[..],
        b"clean text",
        overlong,
        b"Gr\xC3\xBC\xC3\x9Fe",
        overlong,
    ] {
        let answer = http(api_addr, "POST", "/v1/scan", body);
        assert_eq!(answer.map(|(s, _)| s), Some(200));
    }

    let count = |decision: &str| {
        query(
            web,
            &format!(
                r#"utf8gate_requests_total{{job="utf8gate",mode="scan",decision="{decision}"}}"#
            ),
        )
    };
    let seen = poll(Duration::from_secs(20), || {
        (count("reject") == Some(3.0) && count("allow") == Some(2.0)).then_some(())
    });
    assert!(
        seen.is_some(),
        "scraped counters: reject {:?}, allow {:?}",
        count("reject"),
        count("allow")
    );
    // The shipped recording rule, evaluated by Prometheus on scraped data: 3 of 5 rejected
    // (both rates come from the same scrapes, so the ratio is exact).
    let rule = r#"job:utf8gate_requests_rejected:ratio_rate5m{job="utf8gate"}"#;
    let ratio = poll(Duration::from_secs(20), || {
        query(web, rule).filter(|v| (v - 0.6).abs() < 1e-9)
    });
    assert!(
        ratio.is_some(),
        "{rule} = {:?}, not 0.6; log:\n{}",
        query(web, rule),
        log()
    );
    let overlong_findings = query(
        web,
        r#"sum(utf8gate_findings_total{job="utf8gate",kind="overlong"})"#,
    );
    assert!(
        overlong_findings.is_some_and(|v| v >= 3.0),
        "overlong findings scraped: {overlong_findings:?}"
    );

    // Every shipped rule loaded and evaluates without error on real data.
    let shipped = std::fs::read_to_string(dir.join("rules.yml")).expect("rules.yml");
    let expected = shipped
        .lines()
        .filter(|l| {
            l.trim_start().starts_with("- record:") || l.trim_start().starts_with("- alert:")
        })
        .count();
    let healthy = poll(Duration::from_secs(20), || {
        let groups = api(web, "/api/v1/rules")?;
        let rules: Vec<serde_json::Value> = groups["groups"]
            .as_array()?
            .iter()
            .flat_map(|g| g["rules"].as_array().cloned().unwrap_or_default())
            .collect();
        let evaluated = rules
            .iter()
            .all(|r| r["health"] == "ok" && r["lastEvaluation"] != "0001-01-01T00:00:00Z");
        (rules.len() == expected && evaluated).then_some(rules.len())
    });
    assert_eq!(
        healthy,
        Some(expected),
        "rules: {:?}; log:\n{}",
        api(web, "/api/v1/rules"),
        log()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
