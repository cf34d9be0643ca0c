//! The hostile cases of issue 23 (`benches/support/hostile.rs`), outside criterion:
//!
//! * `cargo run --release -p utf8gate-policy --example hostile -- list`: names and what each
//!   attacks;
//! * `... -- write DIR [SIZE]`: writes each case into `DIR/NAME/` for `bench/hostile.sh`
//!   (`hostile.body`, `clean.body`, `hostile.target`, `clean.target`, `hostile.headers`,
//!   `clean.headers` as curl `-H @file` lines, `content-type`, `content-encoding`, `profile`,
//!   and `profile.toml` when the profile is not built in);
//! * `... -- measure [SIZE] [NAME...]`: time and peak heap of `evaluate`, `evaluate_upload`
//!   and `BodyScan` on each hostile request and its clean twin, one child process per case
//!   (killed after `HOSTILE_TIMEOUT` seconds, default 60, and reported as a timeout), peak
//!   heap from a counting allocator. SIZE defaults to 8 MiB (`ATTACK_SIZE`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use utf8gate_policy::{BodyScan, Profile, Request, Verdict, evaluate, evaluate_upload};

#[path = "../benches/support/hostile.rs"]
mod hostile;

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only counters are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller's contract is `System::dealloc`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract is `System::realloc`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            let live = if new_size >= layout.size() {
                LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size()
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed) - (layout.size() - new_size)
            };
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size = |i: usize| {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(hostile::ATTACK_SIZE)
    };
    match args.first().map(String::as_str) {
        Some("list") => {
            for name in hostile::NAMES {
                let case = hostile::case(name, 64).expect("listed");
                println!("{name}\t{}\t{}", case.content_type, case.what);
            }
        }
        Some("write") => write(args.get(1).expect("write DIR [SIZE]"), size(2)),
        Some("measure") => measure(size(1), &args[2.min(args.len())..]),
        Some("measure-one") => measure_one(&args[1], size(2)),
        _ => eprintln!("usage: hostile list | write DIR [SIZE] | measure [SIZE] [NAME...]"),
    }
}

fn write(dir: &str, size: usize) {
    for name in hostile::NAMES {
        let case = hostile::case(name, size).expect("listed");
        let d = std::path::Path::new(dir).join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        let put = |file: &str, bytes: &[u8]| std::fs::write(d.join(file), bytes).expect("write");
        for (side, input) in [("hostile", &case.hostile), ("clean", &case.clean)] {
            put(&format!("{side}.body"), &input.body);
            put(&format!("{side}.target"), &input.target);
            let mut lines = Vec::new();
            for (n, v) in &input.headers {
                lines.extend_from_slice(format!("{n}: ").as_bytes());
                lines.extend_from_slice(v);
                lines.push(b'\n');
            }
            put(&format!("{side}.headers"), &lines);
        }
        put("content-type", case.content_type.as_bytes());
        put(
            "content-encoding",
            case.content_encoding.unwrap_or("").as_bytes(),
        );
        put("profile", case.profile.as_bytes());
        if let Some(toml) = case.profile_toml {
            put("profile.toml", toml.as_bytes());
        }
        put("what", case.what.as_bytes());
    }
}

/// Each case in a child process, with a timeout; prints a Markdown table.
fn measure(size: usize, names: &[String]) {
    let timeout = std::env::var("HOSTILE_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60.0);
    let exe = std::env::current_exe().expect("own path");
    println!(
        "| case | path | clean ms | hostile ms | hostile / clean | clean peak heap MiB | \
         hostile peak heap MiB | hostile peak heap / byte sent | hostile counts | decision |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let all: Vec<String> = hostile::NAMES.iter().map(|n| n.to_string()).collect();
    for name in if names.is_empty() { &all[..] } else { names } {
        let mut child = std::process::Command::new(&exe)
            .args(["measure-one", name, &size.to_string()])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break Some(status);
            }
            if start.elapsed().as_secs_f64() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut out = String::new();
        use std::io::Read as _;
        let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
        print!("{out}");
        if status.is_none() {
            println!("| {name} | (rest) | | timeout after {timeout} s | | | | | | |");
        }
        let _ = std::io::stdout().flush();
    }
}

/// One measured run: wall time and peak heap above what was live before it.
fn run<T>(f: impl FnOnce() -> T) -> (T, f64, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let start = Instant::now();
    let out = f();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    (out, ms, PEAK.load(Relaxed) - before)
}

fn measure_one(name: &str, size: usize) {
    utf8gate_policy::prepare();
    let case = hostile::case(name, size).expect("a case name (see `list`)");
    let profile = case.profile();
    let requests = [case.request(&case.clean), case.request(&case.hostile)];
    type Path = fn(&Profile, &Request) -> Verdict;
    let mut paths: Vec<(&str, Path)> = vec![("evaluate", |p, r| evaluate(p, r).verdict)];
    if case.in_body() {
        paths.push(("evaluate_upload", |p, r| evaluate_upload(p, r).verdict));
    }
    if case.streamable() {
        paths.push(("BodyScan", |p, r| {
            let mut scan = BodyScan::for_body_of(p, r, 1 << 30);
            for chunk in r.body.chunks(64 << 10) {
                scan.feed(chunk);
            }
            scan.finish()
        }));
    }
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    for (path, f) in paths {
        let (clean, clean_ms, clean_peak) = run(|| f(&profile, &requests[0]));
        let (verdict, ms, peak) = run(|| f(&profile, &requests[1]));
        let counts: u64 = verdict.counts.values().sum();
        let input = case.hostile.len();
        println!(
            "| {name} | {path} | {clean_ms:.1} | {ms:.1} | {:.1}× | {:.1} | {:.1} | {:.1} | {counts} | {:?} (clean: {:?}) |",
            ms / clean_ms,
            mib(clean_peak),
            mib(peak),
            peak as f64 / input as f64,
            verdict.decision,
            clean.decision,
        );
        let _ = std::io::stdout().flush();
    }
}
