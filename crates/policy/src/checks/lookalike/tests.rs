//! The lookalike tables: their shape, the derived table against `python3` over every code
//! point and against its generator, and what ordinary text does.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::Command;

use unicode_normalization::UnicodeNormalization;

use super::*;

/// Images holding one of these (or NFC-made, or a bare dot-segment) are default-tier.
const STRONG: &str = "/\\<>'\"&[]{}|`$%#-";

fn first_byte(c: char) -> u8 {
    let mut buf = [0; 4];
    c.encode_utf8(&mut buf).as_bytes()[0]
}

fn reported(table: Table, text: &str) -> Vec<RawFinding> {
    let mut out = Vec::new();
    scan(table, 0, text, &mut out);
    out
}

#[test]
fn tables_are_sorted_and_reachable_by_the_prefilters() {
    for list in [table::DERIVED, BEST_FIT_MAPPINGS, &ALL[..]] {
        assert!(list.windows(2).all(|w| w[0].0 < w[1].0));
    }
    for &(c, image_of_c, _, tier) in &ALL {
        assert!(!c.is_ascii() && image_of_c.contains(|a| table::SYNTAX.contains(a)));
        let best_fit = tier == Tier::BestFit;
        assert!(may_start(first_byte(c), best_fit), "{c:?}");
        assert_eq!(image(Table::Default, c).is_some(), !best_fit, "{c:?}");
        assert!(image(Table::BestFit, c).is_some(), "{c:?}");
    }
}

#[test]
fn the_prefilter_takes_the_best_fit_leads_only_with_best_fit() {
    let leads = |best_fit| {
        (0..=255u8)
            .filter(|&b| may_start(b, best_fit))
            .collect::<Vec<_>>()
    };
    assert_eq!(leads(false), [0xC2, 0xCA, 0xCD, 0xE1, 0xE2, 0xEF]);
    assert_eq!(
        leads(true),
        [0xC2, 0xCA, 0xCD, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0]
    );
}

#[test]
fn nfc_and_nfkc_claims_hold() {
    for (c, image, how, _) in ALL {
        let s = c.to_string();
        match how {
            "NFC" => assert_eq!(s.nfc().collect::<String>(), image, "{c:?}"),
            "NFKC" => assert_eq!(s.nfkc().collect::<String>(), image, "{c:?}"),
            _ => assert!(how.starts_with("best fit"), "{c:?}"),
        }
    }
}

#[test]
fn tiers_follow_the_rule() {
    for &(c, image, how, tier) in table::DERIVED {
        let strong =
            how == "NFC" || image == "." || image == ".." || image.contains(|a| STRONG.contains(a));
        assert_eq!(tier == Tier::Default, strong, "{c:?} {image:?}");
    }
}

#[test]
fn syntax_lookalikes_of_templates_shells_and_paths_are_reported() {
    for (c, expected) in [
        ('\u{FE30}', ".."),
        ('\u{FE5B}', "{"),
        ('\u{FF3B}', "["),
        ('\u{FF06}', "&"),
    ] {
        assert_eq!(image(Table::Default, c), Some((expected, "NFKC")), "{c:?}");
        let found = reported(Table::Default, &format!("a{c}b"));
        assert_eq!(found.len(), 1, "{c:?}");
        assert_eq!(found[0].offset, 1);
    }
    assert_eq!(image(Table::BestFit, '\u{2474}'), Some(("(1)", "NFKC")));
    assert_eq!(
        image(Table::BestFit, '\u{3231}'),
        Some(("(\u{682A})", "NFKC"))
    );
    assert_eq!(image(Table::Default, '\u{2474}'), None);
    // The ASCII a lookalike becomes is the syntax of its image, not its first letter.
    let found = reported(Table::Default, "\u{2105}");
    assert_eq!(found[0].lax_scalar.as_deref(), Some("U+002F"));
}

#[test]
fn ordinary_text_is_not_a_lookalike_by_default() {
    for text in [
        "你好，世界：今天。",
        "½ … «quoted» l’été",
        "Ölçü ¿qué? ¡sí!",
        "Ａ１ ＡＢＣ株式会社は１２３番地にあります。",
        "「こんにちは」、世界。ｔｅｓｔ　ＵＴＦ８",
        "我们在２０２４年使用ＡＢＣ系统，一切正常！",
    ] {
        assert!(reported(Table::Default, text).is_empty(), "{text}");
    }
    for c in ['Ａ', '１', '、', '。', '「', '」', 'ｚ', '９'] {
        assert_eq!(image(Table::BestFit, c), None, "{c:?}");
    }
    assert_eq!(reported(Table::BestFit, "l’été").len(), 1);
    assert_eq!(reported(Table::BestFit, "你好，世界：今天。").len(), 2);
}

#[test]
fn folds_fullwidth_traversal() {
    assert_eq!(
        fold(Table::Default, "a/\u{FF0E}\u{FF0E}\u{FF0F}b"),
        "a/../b"
    );
    assert_eq!(fold(Table::Default, "a/\u{FE30}/b"), "a/../b");
    assert_eq!(
        first_path_syntax(Table::Default, "x\u{FF3B}\u{FE30}"),
        Some((4, '\u{FE30}'))
    );
    assert_eq!(first_path_syntax(Table::Default, "\u{FF06}\u{FE5B}"), None);
}

/// Says why a test checked nothing, on the real stderr (which the test harness does not
/// capture), so that it shows in a passing run.
fn skip(why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIP: {why}");
}

/// `python3` with `args`, or `None` (after one clear line) when it cannot run.
fn python3(test: &str, args: &[&str]) -> Option<std::process::Output> {
    match Command::new("python3").args(args).output() {
        Ok(out) => Some(out),
        Err(e) => {
            skip(&format!("{test}: python3 is not available ({e})"));
            None
        }
    }
}

/// Lists every code point whose NFKC form differs and holds `argv[1]`'s syntax, as the hex
/// code point and the hex UTF-8 of the image, after a first line with the Unicode version.
const PYTHON_LIST: &str = "import sys, unicodedata as u
syn = set(sys.argv[1])
print(u.unidata_version)
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        continue
    k = u.normalize('NFKC', chr(cp))
    if k != chr(cp) and syn & set(k):
        print('%X %s' % (cp, k.encode().hex()))
";

fn unhex(s: &str) -> String {
    let bytes: Vec<u8> = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect();
    String::from_utf8(bytes).expect("UTF-8")
}

/// Every scalar value, against Python's `unicodedata` NFKC (the version the table was made
/// from): a character is in the derived table exactly when its NFKC form differs from it and
/// holds syntax, with that form as its image.
#[test]
fn derived_table_is_python_nfkc_over_every_code_point() {
    let Some(out) = python3(
        "the lookalike table against NFKC",
        &["-c", PYTHON_LIST, table::SYNTAX],
    ) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let mut lines = stdout.lines();
    let version = lines.next().expect("a version");
    if version != table::UNICODE_VERSION {
        skip(&format!(
            "the lookalike table against NFKC: python3 has Unicode {version}, the table was \
             made from {}; regenerate it with scripts/gen_lookalikes.py to compare",
            table::UNICODE_VERSION
        ));
        return;
    }
    let python: BTreeMap<u32, String> = lines
        .map(|l| {
            let (cp, image) = l.split_once(' ').expect("two fields");
            (u32::from_str_radix(cp, 16).expect("hex"), unhex(image))
        })
        .collect();
    let derived = |c: char| {
        table::DERIVED
            .binary_search_by(|e| e.0.cmp(&c))
            .ok()
            .map(|i| table::DERIVED[i].1)
    };
    let mut checked = 0;
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        let expected = python.get(&u32::from(c)).map(String::as_str);
        assert_eq!(derived(c), expected, "U+{:04X}", u32::from(c));
        if let Some(image_of_c) = expected {
            assert!(image(Table::BestFit, c).is_some_and(|(i, _)| i == image_of_c));
        }
        checked += 1;
    }
    assert_eq!(checked, 0x11_0000 - 0x800);
    assert_eq!(python.len(), table::DERIVED.len());
}

/// The checked-in table is what the generator writes.
#[test]
fn derived_table_is_what_the_generator_writes() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/gen_lookalikes.py"
    );
    let Some(out) = python3(
        "the lookalike table against its generator",
        &[script, "--check"],
    ) else {
        return;
    };
    let said = String::from_utf8_lossy(&out.stdout);
    match out.status.code() {
        Some(0) => {}
        Some(3) => skip(said.trim().trim_start_matches("SKIP: ")),
        _ => panic!("{said}{}", String::from_utf8_lossy(&out.stderr)),
    }
}
