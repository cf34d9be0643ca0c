//! Published third-party corpora replayed end to end: WAFFLED's JSON and multipart bypasses and
//! its valid multipart requests, charset-channel requests, HTTP Garden's parsing discrepancies,
//! PayloadsAllTheThings' traversal encodings and NFKC lookalikes, and OWASP CRS's encoding-rule
//! regression cases. Each wire request goes to the real gateway on loopback with the recording
//! upstream behind it.
//!
//! The data lives outside the repository, in `../shared/peers/external/` (its README.md and each
//! SOURCE.txt say where every file comes from); nothing of it is copied here. Without that folder
//! the tests print one line and pass, unless `REQUIRE_EXTERNAL_CORPORA=1` (CI) makes that a
//! failure.
//!
//! The expectation is utf8gate's own rule, not the source's: a request that is malformed or that
//! a backend can read two ways is refused (a 4xx from the gateway, nothing reaches the upstream);
//! a valid request is forwarded byte for byte; an attack hidden by a request's shape (the source's
//! SQL/XSS marker replaced by a UTF-8 attack that only appears after the backend's decoding) is
//! refused. Every case of a corpus runs; its test then fails once, listing every case that broke
//! the rule. `CORPORA_VERBOSE=1` (with `--nocapture`) prints every case's outcome.

use std::path::{Path, PathBuf};
use std::sync::Once;

use utf8gate_e2e::{Gateway, Upstream};

mod charset_channels;
mod crs;
mod http_garden;
mod payloads;
mod pybytes;
mod replay;
mod waffled;
mod wire;

use replay::*;
use wire::*;

/// Where the corpora are, relative to this package (`tests/`): the `shared/` folder beside the
/// repository.
const EXTERNAL: &str = "../../shared/peers/external";

/// The corpus folder `name` under [`EXTERNAL`], or `None` (one line on stderr, once per run) when
/// the corpora are absent; with `REQUIRE_EXTERNAL_CORPORA` set, absence is a failure instead.
fn corpus(name: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXTERNAL);
    if !root.is_dir() {
        assert!(
            std::env::var_os("REQUIRE_EXTERNAL_CORPORA").is_none(),
            "REQUIRE_EXTERNAL_CORPORA is set but {} is missing",
            root.display()
        );
        static SKIP: Once = Once::new();
        SKIP.call_once(|| {
            eprintln!(
                "skipped: the external corpora are not at {} (REQUIRE_EXTERNAL_CORPORA=1 makes this fail)",
                root.display()
            );
        });
        return None;
    }
    let dir = root.join(name);
    assert!(dir.is_dir(), "{} is missing", dir.display());
    Some(dir)
}

/// The text of a corpus file.
fn read(dir: &Path, file: &str) -> String {
    let path = dir.join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// A recording upstream and the gateway in front of it, configured with `toml`.
async fn start(toml: &str) -> (Upstream, Gateway) {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    (upstream, gw)
}

/// The cases of one corpus and those that broke the rule.
struct Tally {
    corpus: String,
    cases: usize,
    failures: Vec<String>,
    /// Known gaps: case ids that break the rule today, each with why (written in the note of
    /// the issue that left it). A known gap that passes is a failure too, so that the list
    /// stays true.
    known: &'static [(&'static str, &'static str)],
    gaps: usize,
}

impl Tally {
    fn new(corpus: &str) -> Tally {
        Tally::with_known_gaps(corpus, &[])
    }

    /// A tally in which the cases of `known` are expected to break the rule.
    fn with_known_gaps(corpus: &str, known: &'static [(&'static str, &'static str)]) -> Tally {
        Tally {
            corpus: corpus.to_string(),
            cases: 0,
            failures: Vec::new(),
            known,
            gaps: 0,
        }
    }

    /// Counts a case; when `ok` is false, keeps `id: shape: expected ...; got ...`.
    fn check(&mut self, id: &str, shape: &str, expected: &str, ok: bool, got: &Outcome) {
        self.check_with(id, shape, expected, ok, &got.describe());
    }

    /// [`Tally::check`] with the outcome already described.
    fn check_with(&mut self, id: &str, shape: &str, expected: &str, ok: bool, got: &str) {
        self.cases += 1;
        if std::env::var_os("CORPORA_VERBOSE").is_some() {
            let verdict = if ok { "pass" } else { "FAIL" };
            println!("{verdict} {} {id}: {shape}: {got}", self.corpus);
        }
        let known = self.known.iter().find(|(k, _)| *k == id);
        match (ok, known) {
            (false, None) => self
                .failures
                .push(format!("{id}: {shape}: expected {expected}; got {got}")),
            (false, Some(_)) => self.gaps += 1,
            (true, Some((_, why))) => self.failures.push(format!(
                "{id} passes: it is no longer a known gap ({why}); remove it from the list"
            )),
            (true, None) => {}
        }
    }

    /// Prints the counts; panics listing every failure, if any.
    fn finish(self) {
        let failed = self.failures.len();
        println!(
            "{}: {} cases, {} passed, {} known gaps, {} failed",
            self.corpus,
            self.cases,
            self.cases - failed - self.gaps,
            self.gaps,
            failed
        );
        assert!(
            self.failures.is_empty(),
            "{}: {failed} of {} cases break the rule:\n  {}",
            self.corpus,
            self.cases,
            self.failures.join("\n  ")
        );
    }
}
