//! Profile rules and TOML loading.

use super::*;

#[test]
fn strict_rules() {
    let p = Profile::strict();
    assert_eq!(p.action(FindingKind::Overlong, Part::Header), Reject);
    assert_eq!(p.action(FindingKind::NotNfc, Part::QueryValue), Normalize);
    assert_eq!(p.action(FindingKind::NotNfc, Part::Header), Log);
    assert_eq!(p.action(FindingKind::Bom, Part::Body), Strip);
    assert_eq!(
        p.action(FindingKind::MisplacedBom, Part::QueryValue),
        Reject
    );
    assert_eq!(p.action(FindingKind::MisplacedBom, Part::JsonString), Log);
    assert_eq!(
        Profile::windows_backend().action(FindingKind::Lookalike, Part::Path),
        Reject
    );
    assert_eq!(
        Profile::lossy().action(FindingKind::Truncated, Part::Body),
        Replace
    );
    assert!(Profile::built_in("monitor").unwrap().monitor);
    for name in Profile::BUILT_IN {
        let p = Profile::built_in(name).unwrap();
        for &kind in FindingKind::ALL {
            let rule = p.rule(kind).unwrap();
            assert!(
                kind.allowed_actions().contains(&rule.default),
                "{name} {kind}"
            );
            assert!(
                rule.classes
                    .values()
                    .all(|a| kind.allowed_actions().contains(a))
            );
        }
    }
}

#[test]
fn loads_toml_and_reports_errors_with_lines() {
    let p = Profile::from_toml(
        "name = \"mine\"\nbase = \"lossy\"\n[limits]\nmax_findings = 5\n[actions.not_nfc]\ndefault = \"log\"\nquery = \"normalize\"\n",
        "mine.toml",
    )
    .unwrap();
    assert_eq!(&*p.name, "mine");
    assert_eq!(p.limits.max_findings, 5);
    assert_eq!(p.limits.max_json_depth, 64);
    assert_eq!(p.action(FindingKind::NotNfc, Part::QueryValue), Normalize);
    assert_eq!(p.action(FindingKind::NotNfc, Part::Body), Log);
    assert_eq!(p.action(FindingKind::Overlong, Part::Body), Replace);

    let e = Profile::from_toml("name = \"x\"\n\nfrobnicate = 1\n", "bad.toml").unwrap_err();
    assert_eq!((e.source.as_str(), e.line), ("bad.toml", 3), "{e}");
    assert!(e.message.contains("frobnicate"), "{e}");
    let e = Profile::from_toml(
        "name = \"x\"\n[actions.overlong]\ndefault = \"normalize\"\n",
        "f",
    )
    .unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    let e =
        Profile::from_toml("name = \"x\"\n[actions.nope]\ndefault = \"log\"\n", "f").unwrap_err();
    assert!(e.message.contains("nope"), "{e}");
    let e = Profile::from_toml("name = \"x\"\n[limits]\nmax_json_depth = -1\n", "f").unwrap_err();
    assert_eq!(e.line, 3, "{e}");
}

#[test]
fn loads_readings_and_coding_limits() {
    let p = Profile::from_toml(
        "name = \"r\"\n[limits]\nmax_codings = 1\nmax_decoded_bytes = 1024\n[readings]\ncontent_codings = \"refuse\"\nmultipart_transfer_encoding = \"decode\"\ncharsets = \"transcode\"\npath_backend = \"servlet\"\n",
        "r.toml",
    )
    .unwrap();
    assert_eq!(p.limits.max_codings, 1);
    assert_eq!(p.limits.max_decoded_bytes, 1024);
    assert_eq!(p.limits.max_expansion_ratio, 200);
    assert_eq!(p.readings.content_codings, CodingReading::Refuse);
    assert_eq!(
        p.readings.multipart_transfer_encoding,
        PartEncodingReading::Decode
    );
    assert_eq!(p.readings.charsets, CharsetReading::Transcode);
    assert_eq!(p.readings.path_backend, PathBackend::Servlet);
    assert_eq!(Profile::strict().readings, Readings::default());
    let e = Profile::from_toml("name = \"r\"\n[readings]\npath_backend = \"nginx\"\n", "r")
        .unwrap_err();
    assert_eq!(e.line, 3, "{e}");
    let e =
        Profile::from_toml("name = \"r\"\n[limits]\nmax_expansion_ratio = 0\n", "r").unwrap_err();
    assert!(e.message.contains("at least 1"), "{e}");
}

/// `[[exclusion]]` tables load in order; a bad one is reported at its own line.
#[test]
fn exclusions_load_from_profile_files() {
    let text = "name = \"t\"\n[[exclusion]]\nkinds = [\"*\"]\nquery = \"q\"\n\n[[exclusion]]\nkinds = [\"not_nfc\"]\njson = \"/a/*\"\n";
    let p = Profile::from_toml(text, "t.toml").expect("valid");
    assert_eq!(p.exclusions.len(), 2);
    assert_eq!(p.exclusions[1].target, crate::Target::Json("/a/*".into()));
    let bad = "name = \"t\"\n[[exclusion]]\nkinds = [\"*\"]\nquery = \"q\"\n[[exclusion]]\nkinds = [\"repeated_header\"]\nheader = \"host\"\n";
    let e = Profile::from_toml(bad, "t.toml").expect_err("reading kinds are not exemptable");
    assert_eq!(e.line, 5, "{e:?}");
    assert!(e.message.contains("cannot be excluded"), "{e:?}");
}
