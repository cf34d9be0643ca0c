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
