//! [`Gateway`]: the real `utf8gate serve` process, and [`Metrics`], its parsed exposition.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, Command};

use crate::*;

/// The name of the binary target this crate builds from `crates/server/src/main.rs`, the very
/// file of the `utf8gate` binary (see `tests/Cargo.toml`): cargo builds a package's binaries
/// before it runs that package's integration tests, so the binary under test is never stale.
const BINARY: &str = "utf8gate-under-test";

/// How long [`Gateway::start`] waits for the three "listening" log lines.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The path of the binary under test: beside the test executable's `deps/` directory
/// (`target/<profile>/`).
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("{} has no target/<profile> directory", exe.display()));
    let path = profile_dir.join(format!("{BINARY}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is missing: run the tests with `cargo test -p utf8gate-e2e` (or --workspace), which builds it",
        path.display()
    );
    path
}

/// The real `utf8gate serve` process: proxy (only with an upstream), api and admin listeners
/// on 127.0.0.1, ports chosen by the kernel and read back from the JSON "listening" log lines.
/// Its stderr (the JSON log) is kept for [`Gateway::logs`]. Killed when dropped.
pub struct Gateway {
    /// The proxy listener; without an upstream the binary binds none, and this is an address
    /// nothing listens on.
    pub proxy: SocketAddr,
    /// The API listener (`/v1/scan`, `/v1/sanitize`, `/authz/...`).
    pub api: SocketAddr,
    /// The admin listener (`/metrics`, `/healthz`, `/readyz`).
    pub admin: SocketAddr,
    /// The gRPC `ext_authz` listener, when the configuration sets `listen.grpc_authz_addr`.
    pub grpc_authz: Option<SocketAddr>,
    child: Child,
    logs: Arc<Mutex<Vec<Vec<u8>>>>,
    config_file: PathBuf,
}

impl Gateway {
    /// Writes `toml` (a configuration file, layered over the defaults like any other) to a
    /// temporary file and starts `utf8gate serve --config FILE` with every listener on
    /// 127.0.0.1:0 and `--upstream URL` when given. Panics if the process does not report its
    /// listeners within 20 s (its log is in the message).
    pub async fn start(toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_inner(toml, upstream, false, &[]).await
    }

    /// [`Gateway::start`] with the binary run by `wrapper` (a command and its arguments that
    /// ends by executing the binary and its arguments in the same process, such as
    /// `prlimit --data=N --`), so that the process's id is still the gateway's.
    pub async fn start_under(wrapper: &[String], toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_inner(toml, upstream, false, wrapper).await
    }

    /// [`Gateway::start`], then stops reading the process's stderr (the pipe stays open and
    /// fills up), as a log shipper that has stalled would.
    pub async fn start_with_stalled_log(toml: &str, upstream: Option<&str>) -> Gateway {
        Gateway::start_inner(toml, upstream, true, &[]).await
    }

    async fn start_inner(
        toml: &str,
        upstream: Option<&str>,
        stall_log: bool,
        wrapper: &[String],
    ) -> Gateway {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let config_file = std::env::temp_dir().join(format!(
            "utf8gate-e2e-{}-{}.toml",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&config_file, toml)
            .unwrap_or_else(|e| panic!("write {}: {e}", config_file.display()));
        let mut command = match wrapper.split_first() {
            None => Command::new(binary()),
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(binary());
                command
            }
        };
        command.arg("serve").arg("--config").arg(&config_file);
        for flag in ["--proxy-addr", "--api-addr", "--admin-addr"] {
            command.args([flag, "127.0.0.1:0"]);
        }
        if let Some(url) = upstream {
            command.args(["--upstream", url]);
        }
        // UTF8GATE_* variables are configuration overrides: none leak in from the test run.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("UTF8GATE_") {
                command.env_remove(key);
            }
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary().display()));
        let stderr = child.stderr.take().expect("piped stderr");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let kept = Arc::clone(&logs);
        // With a stalled log, reading stops once the listeners are known (the pipe stays open).
        let started = Arc::new(tokio::sync::Notify::new());
        let stop_reading = Arc::clone(&started);
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stderr);
            loop {
                let mut line = Vec::new();
                let read = tokio::select! {
                    () = stop_reading.notified(), if stall_log => std::future::pending().await,
                    read = reader.read_until(b'\n', &mut line) => read,
                };
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let _ = tx.send(line.clone());
                        kept.lock().unwrap_or_else(|p| p.into_inner()).push(line);
                    }
                }
            }
        });

        // A configuration that turns the gRPC check on (any address) adds its listener.
        let grpc = toml.contains("grpc_authz_addr = \"1");
        let wanted = 2 + usize::from(upstream.is_some()) + usize::from(grpc);
        let mut bound = BTreeMap::new();
        let deadline = tokio::time::Instant::now() + START_TIMEOUT;
        while bound.len() < wanted {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(line)) => {
                    if let Some((name, addr)) = listening(&line) {
                        bound.insert(name, addr);
                    }
                }
                Ok(None) | Err(_) => {
                    let status = child.try_wait().ok().flatten();
                    let log = String::from_utf8_lossy(
                        &logs.lock().unwrap_or_else(|p| p.into_inner()).concat(),
                    )
                    .into_owned();
                    panic!(
                        "utf8gate did not report its listeners (exit: {status:?}); its log:\n{log}"
                    );
                }
            }
        }
        started.notify_one();
        let proxy = match bound.get("proxy") {
            Some(addr) => *addr,
            None => dead_addr().await,
        };
        Gateway {
            proxy,
            api: bound["api"],
            admin: bound["admin"],
            grpc_authz: bound.get("grpc_authz").copied(),
            child,
            logs,
            config_file,
        }
    }

    /// Replaces the configuration file the process was started with (`--config`), for a
    /// reload to read: written to a new file, then renamed over it, so that a reload never
    /// reads half of it (as the kubelet swaps a mounted ConfigMap).
    pub fn rewrite_config(&self, toml: &str) {
        let next = self.config_file.with_extension("next");
        std::fs::write(&next, toml).unwrap_or_else(|e| panic!("write {}: {e}", next.display()));
        std::fs::rename(&next, &self.config_file)
            .unwrap_or_else(|e| panic!("rename to {}: {e}", self.config_file.display()));
    }

    /// Sends SIGHUP (reload the configuration) without waiting.
    pub fn hangup(&self) {
        self.signal("-HUP");
    }

    fn signal(&self, which: &str) {
        if let Some(pid) = self.child.id() {
            let sent = std::process::Command::new("kill")
                .args([which, &pid.to_string()])
                .status();
            assert!(
                matches!(sent, Ok(s) if s.success()),
                "kill {which} {pid}: {sent:?}"
            );
        }
    }

    /// Sends SIGTERM (graceful shutdown: stop accepting, drain) without waiting.
    pub fn shutdown(&mut self) {
        self.signal("-TERM");
    }

    /// Sends SIGTERM and waits at most `within` for the process to exit; `true` if it exited
    /// with status 0.
    pub async fn stop(&mut self, within: Duration) -> bool {
        self.shutdown();
        matches!(
            tokio::time::timeout(within, self.child.wait()).await,
            Ok(Ok(status)) if status.success()
        )
    }

    /// The peak resident set size of the process so far (`VmHWM` of `/proc/PID/status`), in
    /// bytes; `None` where `/proc` is not available.
    pub fn peak_rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()?)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }

    /// The process's exit status if it has exited (killed, aborted), `None` while it runs.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Every line the process has written to stderr so far (JSON log lines), raw bytes.
    pub fn logs(&self) -> Vec<Vec<u8>> {
        self.logs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The log lines parsed as JSON objects (lines that are not JSON are skipped).
    pub fn log_records(&self) -> Vec<serde_json::Value> {
        self.logs()
            .iter()
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect()
    }

    /// The audit line of the request with id `id`, waited for up to 5 s (the log is written
    /// by a thread of its own); panics if none comes.
    pub async fn audit_line(&self, id: &str) -> serde_json::Value {
        let mut line = None;
        let found = crate::poll_until(Duration::from_secs(5), || {
            line = (self.log_records().into_iter())
                .find(|r| r["message"] == "request" && r["request_id"] == id);
            line.is_some()
        })
        .await;
        assert!(found, "no audit line for request {id}");
        line.unwrap_or_default()
    }

    /// Scrapes `/metrics` from the admin listener over a socket.
    pub async fn metrics(&self) -> Metrics {
        let response = exchange(self.admin, &get("/metrics")).await;
        assert_eq!(response.status, 200, "GET /metrics: {}", response.text());
        Metrics::parse(&response.text())
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_file(&self.config_file);
    }
}

/// `(listener, address)` from a JSON log line `{"message":"listening","listener":..,"addr":..}`.
fn listening(line: &[u8]) -> Option<(String, SocketAddr)> {
    let record: serde_json::Value = serde_json::from_slice(line).ok()?;
    if record.get("message")?.as_str()? != "listening" {
        return None;
    }
    let name = record.get("listener")?.as_str()?.to_string();
    let addr = record.get("addr")?.as_str()?.parse().ok()?;
    Some((name, addr))
}

/// A parsed Prometheus text exposition.
#[derive(Debug, Clone, Default)]
pub struct Metrics {
    /// Each sample line as `name{labels}` (exactly as written) and its value.
    pub samples: BTreeMap<String, f64>,
    /// The whole text.
    pub text: String,
}

impl Metrics {
    /// Parses the sample lines (`name{labels} value`); comments are kept only in `text`.
    pub fn parse(text: &str) -> Metrics {
        let samples = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (key, value) = l
                    .rsplit_once(' ')
                    .unwrap_or_else(|| panic!("metric line without a value: {l:?}"));
                let value = value
                    .parse::<f64>()
                    .unwrap_or_else(|e| panic!("metric value in {l:?}: {e}"));
                (key.to_string(), value)
            })
            .collect();
        Metrics {
            samples,
            text: text.to_string(),
        }
    }

    /// The value of a sample, `name{labels}` exactly as exposed (labels in name order), or
    /// 0 when the series does not exist yet (a counter that was never incremented).
    pub fn value(&self, key: &str) -> f64 {
        self.samples.get(key).copied().unwrap_or(0.0)
    }

    /// The metric name of every sample (before `{`).
    pub fn names(&self) -> Vec<&str> {
        self.samples
            .keys()
            .map(|k| k.split('{').next().unwrap_or(k))
            .collect()
    }
}
