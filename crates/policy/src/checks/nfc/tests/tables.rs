//! Tests of the lookup tables: every scalar against the definitions they are built from, and
//! the premises of the byte filters.

use super::*;

/// Checks that `set` answers `member` for `c` when looked up by its leading bytes, whatever
/// follows it, and that the lead-byte filter flags it if it is a member; returns the byte
/// sequences tried (the character, then a follower byte repeated).
fn check_lookup(set: &ByteSet, c: char, member: bool) -> Vec<[u8; 6]> {
    [0x00, 0x41, 0xBF, 0xE3]
        .map(|follower| {
            let mut buf = [follower; 6];
            let len = c.encode_utf8(&mut buf).len();
            buf[len..].fill(follower);
            let start = [buf[0], buf[1], buf[2]];
            if c as u32 >= 0x300 {
                assert_eq!(set.contains_at(&buf, 0, start), member, "{c:?}");
            }
            if member {
                assert!(needs_lookup(buf[0]), "{c:?} is not flagged");
            }
            buf
        })
        .to_vec()
}

/// The table holds exactly the characters that are not inert, by the definition.
#[test]
fn table_matches_definition() {
    let tables = nfc_tables();
    for c in scalars() {
        let not_inert = !is_inert(c);
        assert_eq!(tables.is_not_inert(c as u32), not_inert, "{c:?}");
        for buf in check_lookup(&tables.not_inert, c, not_inert) {
            if not_inert {
                assert!(may_be_not_inert(buf[0], buf[1], buf[2]), "{c:?}");
            }
        }
    }
    assert_eq!(
        tables.not_inert.filter, SEQUENCES,
        "both filters flag every non-inert char"
    );
    assert!(tables.not_inert.set.skipped_leads_are_empty());
}

/// The quick-check table holds every scalar's canonical combining class and `NFC_QC` as
/// `unicode-normalization` gives them (inert ones as 0: ccc 0 and Yes).
#[test]
fn quick_table_matches_definition() {
    let tables = nfc_tables();
    for c in scalars() {
        let cp = c as u32;
        let entry = tables.quick.block(cp)[(cp & 63) as usize];
        assert_eq!(entry, quick_entry(c), "{c:?}");
        assert_eq!(entry == 0, is_inert(c), "{c:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The table's quick check answers as `unicode-normalization`'s `is_nfc_quick`.
    #[test]
    fn quick_check_agrees_with_unicode_normalization(s in super::interesting_text()) {
        prop_assert_eq!(nfc_tables().quick_check(&s), is_nfc_quick(s.chars()), "{:?}", s);
    }
}

/// The prefilter's premises: U+0000..U+02FF (bytes below 0xCC) are inert, and
/// `needs_lookup` is "not below 0xCC and not in SKIPPED_LEADS".
#[test]
fn prefilter_premises() {
    assert!(('\0'..='\u{2FF}').all(is_inert));
    assert!(!is_inert('\u{300}'));
    for b in 0..=u8::MAX {
        let skipped = SKIPPED_LEADS.iter().any(|&(lo, hi)| (lo..=hi).contains(&b));
        assert_eq!(needs_lookup(b), b >= 0xCC && !skipped, "{b:#04X}");
    }
}

/// An inert character is a boundary: its canonical decomposition starts with an inert
/// character (a starter that nothing composes with from the left).
#[test]
fn inert_characters_decompose_to_an_inert_start() {
    for c in scalars().filter(|&c| is_inert(c)) {
        let first = c.to_string().nfd().next();
        assert!(first.is_some_and(is_inert), "{c:?} starts with {first:?}");
    }
}

/// The stream-safe table matches the direct computation, and its three-bit fields suffice.
#[test]
fn stream_safe_table_matches_definition() {
    let tables = stream_safe_tables();
    let (mut max_lead, mut max_trail) = (0, 0);
    for c in scalars() {
        let mut nfkd = Vec::new();
        decompose_compatible(c, |d| nfkd.push(canonical_combining_class(d) != 0));
        let lead = nfkd.iter().take_while(|&&n| n).count();
        let trail = nfkd.iter().rev().take_while(|&&n| n).count();
        let props = tables.props(c as u32);
        assert_eq!(usize::from(props.lead()), lead, "{c:?}");
        assert_eq!(usize::from(props.trail()), trail, "{c:?}");
        assert_eq!(props.all_nonstarters(), lead == nfkd.len(), "{c:?}");
        check_lookup(&tables.leading, c, lead > 0);
        max_lead = max_lead.max(lead);
        max_trail = max_trail.max(trail);
        if (c as u32) < 0x300 {
            assert_eq!(
                lead, 0,
                "{c:?} is below U+0300 but starts with a non-starter"
            );
        }
    }
    assert!(max_lead < 7 && max_trail < 7, "{max_lead} {max_trail}");
    assert_eq!(usize::from(tables.max_trail), max_trail);
    let inert_leading: Vec<char> = tables
        .inert_leading
        .iter()
        .flat_map(|(prefix, lasts)| {
            lasts.iter().flat_map(|last| {
                String::from_utf8_lossy(&[prefix.needle(), &[*last]].concat())
                    .into_owned()
                    .chars()
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    assert_eq!(inert_leading, ['\u{FF9E}', '\u{FF9F}']);
    // Found after other characters of the same group (U+FF80..U+FF9D) and at the very end.
    assert!(!inert_text_is_stream_safe("ﾀﾁﾂ ｶﾟ", 30));
    assert!(inert_text_is_stream_safe("ﾀﾁﾂ ｶ", 30));
    assert!(!inert_text_is_stream_safe("ｶﾞ plain", 30));
    assert!(inert_text_is_stream_safe("plain 東京 😀", 30));
    assert_eq!(
        tables.leading.filter, LEADS,
        "the lead-byte filter flags every character with leading non-starters"
    );
}
