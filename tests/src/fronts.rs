//! Real front proxies and browsers as child processes (Traefik, HAProxy, Chromium): finding
//! the tool, a scratch directory, free loopback ports, a process group killed on drop, and a
//! client that connects from a chosen loopback address.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

use crate::*;

/// Runs headless Chromium on `url` with `args` (`--dump-dom`, `--screenshot=...`,
/// `--virtual-time-budget=...`) and the flags this machine needs (root, closed network), with a
/// fresh profile named `name` in `dir`; bounded at 90 s. Its stdout.
pub async fn headless_chromium(
    bin: &Path,
    dir: &ScratchDir,
    name: &str,
    url: &str,
    args: &[&str],
) -> String {
    let mut command = Command::new(bin);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join(format!("profile-{name}")).display()
        ))
        .args(args)
        .arg(url);
    let out = dir.path().join(format!("{name}.out"));
    let log = dir.path().join(format!("{name}.log"));
    let mut process = ProcessGroup::spawn_with_stdout("chromium", command, &log, Some(&out));
    let exited = process.wait_exit(Duration::from_secs(90)).await;
    let stdout = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(
        exited.is_some_and(|s| s.success()),
        "chromium ({name}) did not finish in 90 s ({exited:?}): {}\n{stdout}",
        process.log()
    );
    stdout
}

/// The external tool a front-proxy test needs: `$override_var` when set (a path), else the
/// first of `candidates` that exists, else `name` on `PATH`. `None` means "skip the test",
/// unless `$require_var` is set (CI sets it), which turns a missing tool into a panic.
pub fn front_tool(
    name: &str,
    override_var: &str,
    candidates: &[&str],
    require_var: &str,
) -> Option<PathBuf> {
    let from_var = std::env::var_os(override_var).map(PathBuf::from);
    let found = from_var
        .into_iter()
        .chain(candidates.iter().map(PathBuf::from))
        .chain(
            std::env::var_os("PATH")
                .map(|p| {
                    std::env::split_paths(&p)
                        .map(|d| d.join(name))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
        )
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os(require_var).is_none(),
            "{name} is required ({require_var} is set) but was not found (${override_var}, {candidates:?}, PATH)"
        );
        eprintln!("skipped: {name} is not installed (set ${override_var} or put it on PATH)");
    }
    found
}

/// A scratch directory under the system's temporary directory, removed when dropped.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Creates `utf8gate-<label>-<pid>-<n>`.
    pub fn new(label: &str) -> ScratchDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "utf8gate-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        ScratchDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `name` in the directory and returns its path.
    pub fn write(&self, name: &str, contents: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loopback port free at the time of the call (bound, then released), for tools that take
/// their listening address in a configuration file and cannot report a port 0 back. Never the
/// same port twice in one test process: once released, a port may be handed out again, and two
/// fronts configured with one port (the second failing to bind while the first answers its
/// readiness check) fail later with a refused connection when the first stops.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for _ in 0..1000 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or_else(|e| panic!("a free loopback port: {e}"));
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
    panic!("no loopback port not handed out already in 1 000 tries");
}

/// A child process started in a process group of its own, its stdout and stderr in a log
/// file; the whole group (a browser's helpers, a proxy's workers) is killed when dropped.
pub struct ProcessGroup {
    child: Child,
    what: String,
    log: PathBuf,
}

impl ProcessGroup {
    /// Spawns `command` (stdin null, stdout and stderr written to `log`).
    pub fn spawn(what: &str, command: Command, log: &Path) -> ProcessGroup {
        ProcessGroup::spawn_with_stdout(what, command, log, None)
    }

    /// [`ProcessGroup::spawn`] with stdout written to a file of its own when `stdout` is given
    /// (what a tool prints as its result, apart from its diagnostics).
    pub fn spawn_with_stdout(
        what: &str,
        mut command: Command,
        log: &Path,
        stdout: Option<&Path>,
    ) -> ProcessGroup {
        use std::os::unix::process::CommandExt;
        let create = |p: &Path| {
            std::fs::File::create(p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()))
        };
        let err = create(log);
        let out = match stdout {
            Some(path) => create(path),
            None => err.try_clone().unwrap_or_else(|e| panic!("dup log: {e}")),
        };
        command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {what} ({command:?}): {e}"));
        ProcessGroup {
            child,
            what: what.to_string(),
            log: log.to_path_buf(),
        }
    }

    /// What the process wrote so far (lossy).
    pub fn log(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(&self.log).unwrap_or_default()).into_owned()
    }

    /// Waits at most `within` for the process to exit by itself; `None` if it is still
    /// running then.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits (bounded) until `addr` accepts connections; panics with the log if it does not,
    /// or if the process exits first.
    pub async fn wait_listening(&mut self, addr: SocketAddr, within: Duration) {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before listening: {}",
                    self.what,
                    self.log()
                );
            }
            if TcpStream::connect(addr).await.is_ok() {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{} did not listen on {addr} within {within:?}: {}",
                self.what,
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // The group's id is the child's pid (process_group(0)).
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// [`exchange`] from a chosen local address (any of 127.0.0.0/8 on Linux), so that a front
/// proxy or utf8gate sees that address as the client's. Panics on error or after
/// [`DEFAULT_TIMEOUT`].
pub async fn exchange_from(source: IpAddr, addr: SocketAddr, bytes: &[u8]) -> RawResponse {
    let connect = async {
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(source, 0))?;
        socket.connect(addr).await
    };
    let mut stream: TcpStream = tokio::time::timeout(DEFAULT_TIMEOUT, connect)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))
        .and_then(|r| r)
        .unwrap_or_else(|e| panic!("connect {source} -> {addr}: {e}"));
    stream
        .write_all(bytes)
        .await
        .unwrap_or_else(|e| panic!("write to {addr}: {e}"));
    let mut conn = RawConn::from_stream(stream);
    conn.read_response(DEFAULT_TIMEOUT)
        .await
        .unwrap_or_else(|e| panic!("response from {addr} (client {source}): {e}"))
}
