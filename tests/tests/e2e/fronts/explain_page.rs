//! Headless Chromium (Debian's `chromium`) loads the explain page (`GET /explain`, on with
//! `[explain] enabled`) of the real binary with its input in the link's fragment, which the
//! page submits to `/v1/scan?explain=true` by itself; `--dump-dom` prints the page once its
//! virtual time budget is spent. The test reads the highlights, the hex view, the lax
//! readings and the sanitized text in that DOM, for an overlong traversal, a CESU-8 pair and
//! a clean text, and takes a screenshot into the CI log folder (`$CI_LOGS_DIR`, else
//! `target/ci-logs/`), checked to be a PNG.

use std::path::{Path, PathBuf};

use utf8gate_e2e::{Gateway, ScratchDir, chromium_tool, headless_chromium};

/// Virtual time stands still while the scan is pending: the budget bounds the page's timers.
const BUDGET: &str = "--virtual-time-budget=10000";

/// The element with `id`'s serialized content (up to its closing `</tag>`), tags removed,
/// `&amp;` `&lt;` `&gt;` unescaped.
fn text_of(dom: &str, tag: &str, id: &str) -> String {
    let open = format!("id=\"{id}\"");
    let start = dom
        .find(&open)
        .unwrap_or_else(|| panic!("no #{id}:\n{dom}"));
    let start = start + dom[start..].find('>').expect("tag end") + 1;
    let end = start + dom[start..].find(&format!("</{tag}>")).expect("close");
    let mut text = String::new();
    let mut in_tag = false;
    for c in dom[start..end].chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The folder CI keeps its logs in.
fn ci_logs() -> PathBuf {
    std::env::var_os("CI_LOGS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/ci-logs"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_shows_findings_hex_lax_readings_and_sanitized_text_on_the_explain_page() {
    let Some(bin) = chromium_tool() else {
        return;
    };
    let gw = Box::pin(Gateway::start("[explain]\nenabled = true\n", None)).await;
    let dir = ScratchDir::new("explain-page");
    let page = format!("http://{}/explain", gw.api);

    // An overlong traversal, lossy: the two adjacent overlong forms are one finding, a run of
    // two, and one highlight; each byte is replaced by U+FFFD (one per maximal subpart).
    let overlong = format!("{page}#text=..%C0%AE%C0%AE/etc/passwd&profile=lossy&location=body");
    let dom = headless_chromium(&bin, &dir, "overlong", &overlong, &[BUDGET, "--dump-dom"]).await;
    assert!(dom.contains("data-state=\"done\""), "{dom}");
    assert_eq!(text_of(&dom, "span", "decision"), "sanitize");
    let marked = text_of(&dom, "div", "marked");
    assert_eq!(dom.matches("<mark ").count(), 1, "{dom}");
    assert_eq!(marked.matches("lax reading: U+002E").count(), 1, "{marked}");
    assert!(
        marked.contains("4 bytes: a run of 2 adjacent, the first C0 AE"),
        "{marked}"
    );
    assert!(marked.starts_with("..⟨C0⟩⟨AE⟩"), "{marked}");
    let hex = text_of(&dom, "div", "hex");
    assert!(hex.contains("2E 2E C0 AE C0 AE 2F"), "{hex}");
    assert_eq!(
        dom.matches("<strong>C0 AE C0 AE</strong>").count(),
        1,
        "{dom}"
    );
    assert!(dom.contains("<td>C0 AE (×2)</td>"), "{dom}");
    assert_eq!(
        text_of(&dom, "pre", "sanitized"),
        "..\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}/etc/passwd"
    );
    assert_eq!(dom.matches("<del>").count(), 1, "{dom}");

    // A CESU-8 pair in a JSON string, strict: one highlight, rejected, nothing sanitized.
    let cesu = format!("{page}#text=smile%20%ED%A0%BD%ED%B8%80!&profile=strict&location=json");
    let dom = headless_chromium(&bin, &dir, "cesu8", &cesu, &[BUDGET, "--dump-dom"]).await;
    assert!(dom.contains("data-state=\"done\""), "{dom}");
    assert_eq!(text_of(&dom, "span", "decision"), "reject");
    assert_eq!(dom.matches("<mark ").count(), 1, "{dom}");
    assert!(text_of(&dom, "div", "marked").contains("U+1F600"), "{dom}");
    assert!(dom.contains("<strong>ED A0 BD ED B8 80</strong>"), "{dom}");
    assert!(text_of(&dom, "pre", "sanitized").starts_with("Not sanitized"));

    // A clean text as a form value: no highlight, the text is its own sanitized text.
    let clean = format!("{page}#text=Gr%C3%BC%C3%9Fe%2C%20%E6%9D%B1%E4%BA%AC&location=form");
    let dom = headless_chromium(&bin, &dir, "clean", &clean, &[BUDGET, "--dump-dom"]).await;
    assert!(dom.contains("data-state=\"done\""), "{dom}");
    assert_eq!(text_of(&dom, "span", "decision"), "allow");
    assert_eq!(dom.matches("<mark ").count(), 0, "{dom}");
    assert_eq!(text_of(&dom, "pre", "sanitized"), "Grüße, 東京");
    assert_eq!(text_of(&dom, "pre", "diff"), "Unchanged.");

    // The screenshot, for people: the overlong traversal's page.
    let logs = ci_logs();
    std::fs::create_dir_all(&logs).expect("the CI log folder");
    let png = logs.join("explain.png");
    let _ = std::fs::remove_file(&png);
    let shot = format!("--screenshot={}", png.display());
    headless_chromium(
        &bin,
        &dir,
        "screenshot",
        &overlong,
        &[BUDGET, &shot, "--window-size=1200,1500"],
    )
    .await;
    let bytes = std::fs::read(&png).unwrap_or_default();
    assert!(
        bytes.len() > 1000,
        "{}: {} bytes",
        png.display(),
        bytes.len()
    );
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    eprintln!("explain page screenshot: {}", png.display());
}
