//! [`MemoryLimit`]: a way to run the gateway under a memory limit, as a container runtime
//! would run the sidecar, found among what this machine allows.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A memory limit for one child process: the command that runs a program under it (its
/// arguments end where the program and its arguments follow, and it executes the program in
/// its own process, so the gateway's process id is the program's).
#[derive(Debug)]
pub struct MemoryLimit {
    /// How the limit is applied, for the test's output.
    pub how: String,
    /// The command to put before the program.
    pub wrapper: Vec<String>,
    /// A cgroup made for the child, removed on drop.
    cgroup: Option<PathBuf>,
}

impl MemoryLimit {
    /// The first of these that works here, limiting the child to `bytes`:
    ///
    /// 1. a transient systemd scope with `MemoryMax` (and no swap), as Kubernetes' limit is a
    ///    cgroup's `memory.max`;
    /// 2. a cgroup v2 made for the child under the root of the cgroup2 hierarchy, when that
    ///    root delegates the memory controller and this process may write there;
    /// 3. `prlimit --data` (RLIMIT_DATA: the private writable memory the process maps, an upper
    ///    bound of what it can make resident). `prlimit --as` would count the address space
    ///    glibc and the threads reserve without touching it (utf8gate idles at about 344 MiB of
    ///    it against 11 MiB resident), so no 256 MiB `--as` could even start it.
    ///
    /// `None` when none works.
    pub fn find(bytes: u64) -> Option<MemoryLimit> {
        systemd_scope(bytes)
            .or_else(|| cgroup_v2(bytes))
            .or_else(|| data_rlimit(bytes))
    }
}

impl Drop for MemoryLimit {
    fn drop(&mut self) {
        let Some(dir) = self.cgroup.take() else {
            return;
        };
        // The child may take a moment to be reaped after it is killed.
        for _ in 0..200 {
            if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// `true` if `program args... true` runs and succeeds.
fn works(program: &str, args: &[String]) -> bool {
    Command::new(program)
        .args(args)
        .arg("true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn systemd_scope(bytes: u64) -> Option<MemoryLimit> {
    let wrapper: Vec<String> = [
        "systemd-run",
        "--scope",
        "--quiet",
        "-p",
        &format!("MemoryMax={bytes}"),
        "-p",
        "MemorySwapMax=0",
        "--",
    ]
    .map(String::from)
    .to_vec();
    works(&wrapper[0], &wrapper[1..]).then(|| MemoryLimit {
        how: format!("systemd-run --scope -p MemoryMax={bytes}"),
        wrapper,
        cgroup: None,
    })
}

fn cgroup_v2(bytes: u64) -> Option<MemoryLimit> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // "... mount-point ... - cgroup2 cgroup2 rw": the fifth field is the mount point.
    let root = mountinfo
        .lines()
        .find(|l| {
            l.split(" - ")
                .nth(1)
                .is_some_and(|t| t.starts_with("cgroup2 "))
        })?
        .split(' ')
        .nth(4)
        .map(PathBuf::from)?;
    let delegated = std::fs::read_to_string(root.join("cgroup.subtree_control")).ok()?;
    if !delegated.split_whitespace().any(|c| c == "memory") {
        return None;
    }
    let dir = root.join(format!(
        "utf8gate-e2e-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).ok()?;
    let limit = MemoryLimit {
        how: format!("a cgroup v2 with memory.max={bytes} ({})", dir.display()),
        wrapper: vec![
            "sh".into(),
            "-c".into(),
            format!("echo $$ > '{}/cgroup.procs' && exec \"$@\"", dir.display()),
            "sh".into(),
        ],
        cgroup: Some(dir.clone()),
    };
    std::fs::write(dir.join("memory.max"), bytes.to_string()).ok()?;
    // No swap to hide in (absent without swap accounting).
    let _ = std::fs::write(dir.join("memory.swap.max"), "0");
    works(&limit.wrapper[0], &limit.wrapper[1..]).then_some(limit)
}

fn data_rlimit(bytes: u64) -> Option<MemoryLimit> {
    let wrapper = vec![
        "prlimit".to_string(),
        format!("--data={bytes}"),
        "--".into(),
    ];
    works(&wrapper[0], &wrapper[1..]).then(|| MemoryLimit {
        how: format!("prlimit --data={bytes} (RLIMIT_DATA)"),
        wrapper,
        cgroup: None,
    })
}
