use super::*;

#[test]
fn names_are_unique_and_round_trip_through_serde() {
    let mut names: Vec<_> = FindingKind::ALL.iter().map(|k| k.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), FindingKind::ALL.len());
    for &kind in FindingKind::ALL {
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.as_str()));
        assert_eq!(FindingKind::from_name(kind.as_str()), Some(kind));
        assert!(kind.allowed_actions().contains(&Action::Reject));
        assert!(kind.allowed_actions().contains(&Action::Log));
    }
}

#[test]
fn every_codec_kind_maps_to_its_own_finding_kind() {
    for kind in MalformedKind::ALL {
        assert_eq!(FindingKind::from_malformed(kind).as_str(), kind.as_str());
    }
}

#[test]
fn hex_is_capped() {
    assert_eq!(hex_bytes(&[0xC0, 0xAE]), "C0 AE");
    assert_eq!(hex_bytes(&[0; 20]).split(' ').count(), 17);
}

#[test]
fn the_malformed_class_is_what_the_codec_reports() {
    for &kind in FindingKind::ALL {
        assert_eq!(
            kind.class() == KindClass::Malformed,
            kind.is_malformed_utf8(),
            "{kind:?}"
        );
        assert!(
            !kind.sentence().is_empty() && !kind.doc().is_empty(),
            "{kind:?}"
        );
    }
}

/// `docs/verdict.md`'s kind table has one row per kind, in the table's order, with the
/// table's severity and reference: the docs are checked against the code, never kept apart.
#[test]
fn docs_verdict_lists_every_kind_as_the_table_says() {
    let docs = include_str!("../../../../docs/verdict.md");
    let section = docs.split("\n## Kinds\n").nth(1).expect("a Kinds section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let rows: Vec<Vec<&str>> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .filter(|cells: &Vec<&str>| cells.len() == 4)
        .collect();
    let listed: Vec<&str> = rows.iter().map(|r| r[0].trim_matches('`')).collect();
    let names: Vec<&str> = FindingKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        listed, names,
        "docs/verdict.md lists other kinds than the table"
    );
    for (row, &kind) in rows.iter().zip(FindingKind::ALL) {
        let severity = serde_json::to_string(&kind.severity()).unwrap();
        assert_eq!(row[1], severity.trim_matches('"'), "{kind:?}'s severity");
        assert_eq!(row[3], kind.reference(), "{kind:?}'s reference");
    }
}
