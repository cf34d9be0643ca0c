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
    assert_eq!(p.name, "mine");
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
