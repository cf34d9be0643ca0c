//! A start tag's attribute list refused at its first fault in document order, duplicates
//! found without a set of the names (`text::first_refusal`), against a plain pairwise oracle.

use crate::readings::xml::text::{Attributes, first_refusal};

/// The oracle: the attributes in order, the first whose name an earlier one has, or the
/// syntax error, whichever comes first.
fn oracle(list: &str) -> Option<usize> {
    let mut names: Vec<&str> = Vec::new();
    for attribute in Attributes::new(list) {
        match attribute {
            Ok(a) => {
                let name = &list[a.name.clone()];
                if names.contains(&name) {
                    return Some(a.name.start);
                }
                names.push(name);
            }
            Err((at, _)) => return Some(at),
        }
    }
    None
}

#[test]
fn the_first_fault_in_document_order() {
    for (list, fault) in [
        (" a='1' b='2'", None),
        (" a='1' a='2'", Some(7)),
        (" a='1' b='2' a='3' b='4'", Some(13)),
        (" a='1' a='2' b", Some(7)),
        (" a='1' b c='3' a='4'", Some(9)),
        (" a='1'b='2' a='3'", Some(6)),
        (" é='1' e\u{301}='2' é='3'", Some(16)),
    ] {
        let got = first_refusal(list).map(|(at, _)| at);
        assert_eq!(got, fault, "{list:?}");
        assert_eq!(got, oracle(list), "{list:?}");
    }
    assert!(first_refusal(" a='1' a='2'").unwrap().1.contains("twice"));
}

#[test]
fn agrees_with_the_oracle_on_generated_lists() {
    // Names from a small alphabet so that repeats are common; some lists broken.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..2_000 {
        let mut list = String::new();
        for _ in 0..(x % 12) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let name = ["a", "b", "c", "ab", "ba", "é", "z9"][(x % 7) as usize];
            let broken = x.is_multiple_of(41);
            list.push_str(&format!(" {name}={}", if broken { "1" } else { "'v'" }));
        }
        assert_eq!(
            first_refusal(&list).map(|(at, _)| at),
            oracle(&list),
            "{list:?}"
        );
    }
}

#[test]
fn one_name_a_hundred_thousand_times_is_one_refusal() {
    let list = " a=''".repeat(100_000);
    assert_eq!(first_refusal(&list).map(|(at, _)| at), Some(6));
}
