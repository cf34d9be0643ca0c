use proptest::prelude::*;

use super::*;
use crate::{Decision, Profile, Request, evaluate};

/// `strict` with one identity on the query parameter `u`.
fn profile(kind: IdentityKind, action: Option<IdentityAction>) -> Profile {
    let mut p = Profile::strict();
    let spec = IdentitySpec {
        kind,
        action,
        restriction: None,
        max_bytes: None,
        query: Some("u".to_string()),
        form: None,
        header: None,
        cookie: None,
        json: None,
        xml: None,
        yaml: None,
        multipart: None,
    };
    p.identities.push(spec.build().expect("valid identity"));
    p
}

fn pct(value: &str) -> String {
    value.bytes().map(|b| format!("%{b:02X}")).collect()
}

fn request(value: &str) -> Request {
    Request::new("GET", format!("/login?u={}", pct(value)).as_bytes())
}

/// The verdict of `?u=value` under an identity of `kind` (its default action).
fn verdict(kind: IdentityKind, value: &str) -> crate::Verdict {
    evaluate(&profile(kind, None), &request(value)).verdict
}

fn kinds(v: &crate::Verdict) -> Vec<&str> {
    v.findings.iter().map(|f| f.kind.as_str()).collect()
}

/// RFC 8265 §3.5 (UsernameCaseMapped): the valid examples pass PRECIS and compare in lower
/// case; the invalid ones are refused. (`fußball` is valid PRECIS; the case collision check
/// still reports it, see `cve_cases_are_caught`.)
#[test]
fn rfc8265_username_examples() {
    for (value, key) in [
        ("juliet@example.com", "juliet@example.com"),
        ("fussball", "fussball"),
        ("π", "π"),
        ("Σ", "σ"),
        ("σ", "σ"),
        ("ς", "ς"),
    ] {
        let v = verdict(IdentityKind::Username, value);
        let precis: Vec<_> = kinds(&v)
            .into_iter()
            .filter(|k| *k == "identity_not_enforced" || *k == "identity_disallowed")
            .collect();
        assert!(precis.is_empty(), "{value}: {:?}", v.findings);
        assert_eq!(v.identities[0].enforced.as_deref(), Some(key), "{value}");
    }
    for value in ["foo bar", "", "henry\u{2163}", "\u{221E}", "\u{2163}"] {
        let v = verdict(IdentityKind::Username, value);
        if value.is_empty() {
            // An empty query value is a field too: refused as empty.
            assert_eq!(kinds(&v), ["identity_disallowed"], "{:?}", v.findings);
            continue;
        }
        assert!(kinds(&v).contains(&"identity_disallowed"), "{value}: {v:?}");
        assert_eq!(v.decision, Decision::Reject, "{value}");
        assert_eq!(v.identities[0].enforced, None, "{value}");
    }
}

/// RFC 8265 §4.3 (OpaqueString): valid, mapped (OGHAM SPACE MARK to SPACE), refused (TAB);
/// nothing of a secret reaches the verdict.
#[test]
fn rfc8265_opaque_examples() {
    for value in [
        "correct horse battery staple",
        "Correct Horse Battery Staple",
        "πßå",
        "Jack of ♦s",
    ] {
        let v = verdict(IdentityKind::Opaque, value);
        assert!(v.findings.is_empty(), "{value}: {:?}", v.findings);
    }
    let v = verdict(IdentityKind::Opaque, "foo\u{1680}bar");
    assert_eq!(kinds(&v), ["identity_not_enforced"]);
    assert_eq!(v.findings[0].action, crate::Action::Log);
    assert_eq!(v.findings[0].bytes, "");
    assert!(!v.findings[0].message.contains("foo"));
    let v = verdict(IdentityKind::Opaque, "my cat is a \u{9}by");
    // TAB is a `control` of a query value too.
    assert_eq!(kinds(&v), ["control", "identity_disallowed"]);
    assert_eq!(v.findings[1].bytes, "");
    let report = &v.identities[0];
    assert_eq!((&report.enforced, &report.skeleton), (&None, &None));
}

/// The incidents of the issue: every one is a finding that rejects a username.
#[test]
fn cve_cases_are_caught() {
    for (value, kind, enforced_in_message) in [
        // Django CVE-2019-19844: `mıke@example.org` upper-cases to `MIKE@EXAMPLE.ORG`.
        ("mıke@example.org", "identity_case_collision", None),
        ("ı", "identity_case_collision", None),
        // GitHub's dotless-i and ß password-reset collisions.
        ("straße", "identity_case_collision", None),
        ("ß", "identity_case_collision", None),
        // KELVIN SIGN: its NFKC form is K, so the IdentifierClass disallows it.
        ("\u{212A}elvin", "identity_disallowed", Some("U+212A")),
        // LATIN SMALL LETTER LONG S: a compatibility character, disallowed.
        ("\u{17F}ecret", "identity_disallowed", None),
        // Fullwidth letters: the width mapping rule.
        ("ｍｉｋｅ", "identity_not_enforced", Some("\"mike\"")),
        // Cyrillic а in Latin: minimally restrictive.
        ("pаypal", "mixed_script", None),
    ] {
        let v = verdict(IdentityKind::Username, value);
        let at = v.findings.iter().find(|f| f.kind.as_str() == kind);
        let at = at.unwrap_or_else(|| panic!("{value}: no {kind} in {:?}", v.findings));
        assert_eq!(at.action, crate::Action::Reject, "{value}");
        assert_eq!(v.decision, Decision::Reject, "{value}");
        if let Some(e) = enforced_in_message {
            assert!(at.message.contains(e), "{value}: {}", at.message);
        }
    }
    let v = verdict(IdentityKind::Username, "mıke@example.org");
    let f = &v.findings[0];
    assert_eq!((f.offset, f.bytes.as_str()), (1, "C4 B1"));
    assert_eq!(f.lax_scalar.as_deref(), Some("mike@example.org"));
    // A refused code point is located in the value as sent (fullwidth letters before it are
    // mapped, not counted differently).
    let v = verdict(IdentityKind::Username, "ｍｉ\u{17F}e");
    let f = &v.findings[0];
    assert_eq!(
        (f.kind.as_str(), f.offset, f.bytes.as_str()),
        ("identity_disallowed", 6, "C5 BF")
    );
    let v = verdict(IdentityKind::Username, "pаypal");
    let f = v
        .findings
        .iter()
        .find(|f| f.kind.as_str() == "mixed_script");
    let f = f.expect("mixed_script");
    assert!(f.message.contains("Latin, Cyrillic"), "{}", f.message);
    assert_eq!((f.offset, f.bytes.as_str()), (1, "D0 B0"));
    let report = &v.identities[0];
    assert_eq!(report.skeleton.as_deref(), Some("paypal"));
    assert_eq!(report.scripts, ["Latin", "Cyrillic"]);
    assert_eq!(report.restriction, Some(Restriction::MinimallyRestrictive));
}

/// Names in 15 scripts: no finding under `username`, a report with the comparison form.
#[test]
fn benign_names_pass_in_many_scripts() {
    let names = [
        ("Latin", "Zoë"),
        ("Latin", "Ólafur"),
        ("Latin", "Đặng"),
        ("Greek", "Αλέξανδρος"),
        ("Cyrillic", "Мария"),
        ("Han", "山田太郎"),
        ("Hiragana", "やまだはなこ"),
        ("Hangul", "김민준"),
        ("Arabic", "محمد"),
        ("Hebrew", "דוד"),
        ("Devanagari", "प्रिया"),
        ("Thai", "สมชาย"),
        ("Georgian", "ნინო"),
        ("Armenian", "Արամ"),
        ("Ethiopic", "አበበ"),
        ("Tamil", "முருகன்"),
        ("Bengali", "অমিত"),
    ];
    let scripts: std::collections::BTreeSet<_> = names.iter().map(|(s, _)| s).collect();
    assert!(scripts.len() >= 12);
    for (script, name) in names {
        let v = verdict(IdentityKind::Username, name);
        assert!(v.findings.is_empty(), "{name}: {:?}", v.findings);
        assert_eq!(v.decision, Decision::Allow, "{name}");
        let report = &v.identities[0];
        assert_eq!(report.scripts, [script], "{name}");
        assert_eq!(report.enforced, Some(name.to_lowercase()), "{name}");
        assert!(report.skeleton.is_some());
        // And as nicknames.
        let v = verdict(IdentityKind::Nickname, name);
        assert!(v.findings.is_empty(), "{name}: {:?}", v.findings);
    }
    // Japanese mixes Han and kana: one augmented script (Jpan), UTS #39 §5.1.
    let v = verdict(IdentityKind::Username, "山田はなこ");
    assert!(v.findings.is_empty(), "{:?}", v.findings);
    assert_eq!(v.identities[0].restriction, Some(Restriction::SingleScript));
    // Latin with Han: highly restrictive, below the default level.
    let v = verdict(IdentityKind::Username, "yamada山田");
    assert!(v.findings.is_empty(), "{:?}", v.findings);
    assert_eq!(
        v.identities[0].restriction,
        Some(Restriction::HighlyRestrictive)
    );
}

/// RFC 8266: spaces trimmed and collapsed, case kept; the comparison form is lower case.
#[test]
fn nickname_spaces_are_enforced() {
    let v = verdict(IdentityKind::Nickname, "  Guybrush   Threepwood ");
    assert_eq!(kinds(&v), ["identity_not_enforced"]);
    assert!(v.findings[0].message.contains("\"Guybrush Threepwood\""));
    assert_eq!(
        v.identities[0].enforced.as_deref(),
        Some("guybrush threepwood")
    );
}

/// `rewrite` writes the enforced form into the request (sanitize); what it cannot fix rejects;
/// `log` reports and lets through.
#[test]
fn actions_rewrite_reject_and_log() {
    let rewrite = profile(IdentityKind::Username, Some(IdentityAction::Rewrite));
    let e = evaluate(&rewrite, &request("ｍｉｋｅ"));
    assert_eq!(e.verdict.decision, Decision::Sanitize);
    assert_eq!(e.verdict.findings[0].action, crate::Action::Rewrite);
    let sanitized = e.sanitized.expect("sanitized");
    assert_eq!(sanitized.query.as_deref(), Some(&b"u=mike"[..]));
    assert_eq!(
        evaluate(&rewrite, &sanitized).verdict.decision,
        Decision::Allow
    );
    let e = evaluate(&rewrite, &request("pаypal"));
    assert_eq!(e.verdict.decision, Decision::Reject);
    let log = profile(IdentityKind::Username, Some(IdentityAction::Log));
    let v = evaluate(&log, &request("pаypal")).verdict;
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(v.findings[0].action, crate::Action::Log);
    // Other parameters are not identities.
    let v = evaluate(&log, &Request::new("GET", b"/?x=p%D0%B0ypal")).verdict;
    assert!(v.findings.is_empty() && v.identities.is_empty());
}

/// Configuration: one selector, never `path`, a limited `max_bytes`; `[actions]` cannot set
/// identity kinds.
#[test]
fn configuration_is_checked() {
    let toml = "name = \"x\"\n[[identity]]\nform = \"user\"\nkind = \"username\"\n";
    let p = Profile::from_toml(toml, "t").expect("valid");
    assert_eq!(p.identities[0].action, IdentityAction::Reject);
    assert_eq!(
        p.identities[0].restriction,
        Restriction::ModeratelyRestrictive
    );
    for (bad, says) in [
        ("[[identity]]\nkind = \"username\"\n", "needs one selector"),
        (
            "[[identity]]\nform = \"a\"\nquery = \"a\"\nkind = \"nickname\"\n",
            "one selector, not",
        ),
        ("[[identity]]\npath = \"/\"\nkind = \"username\"\n", "path"),
        (
            "[[identity]]\njson = \"a\"\nkind = \"opaque\"\n",
            "never match",
        ),
        (
            "[[identity]]\nform = \"a\"\nkind = \"opaque\"\nmax_bytes = 0\n",
            "max_bytes",
        ),
        (
            "[actions.mixed_script]\ndefault = \"log\"\n",
            "[[identity]]",
        ),
    ] {
        let text = format!("name = \"x\"\n{bad}");
        let err = Profile::from_toml(&text, "t").expect_err(bad).to_string();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

/// A value longer than `max_bytes` is refused without running PRECIS on it.
#[test]
fn a_value_whose_enforced_form_its_profile_refuses_is_disallowed() {
    // U+0387 GREEK ANO TELEIA: NFC makes it U+00B7, whose CONTEXTO rule then fails.
    let v = verdict(IdentityKind::Opaque, "\u{0387}");
    assert!(kinds(&v).contains(&"identity_disallowed"), "{v:?}");
    assert!(!kinds(&v).contains(&"identity_not_enforced"), "{v:?}");
}

#[test]
fn long_values_are_refused() {
    let v = verdict(IdentityKind::Username, &"a".repeat(300));
    assert_eq!(kinds(&v), ["identity_disallowed"]);
    assert!(v.findings[0].message.contains("max_bytes (256)"));
}

proptest! {
    /// Enforcing twice equals enforcing once, for every profile: a rewritten field is allowed
    /// when evaluated again (the PRECIS crate alone is not idempotent for U+0387).
    #[test]
    fn enforcing_is_idempotent(value in "\\PC{0,12}", kind in 0..3usize) {
        let kind = [IdentityKind::Username, IdentityKind::Nickname, IdentityKind::Opaque][kind];
        let p = profile(kind, Some(IdentityAction::Rewrite));
        let e = evaluate(&p, &request(&value));
        if let Some(sanitized) = e.sanitized {
            let again = evaluate(&p, &sanitized).verdict;
            prop_assert!(
                !again.findings.iter().any(|f| f.kind == FindingKind::IdentityNotEnforced),
                "{value:?}: {:?}", again.findings
            );
        }
        // A rewritten value is its profile's enforced form: evaluated again, nothing is left.
        if let Some(sanitized) = evaluate(&p, &request(&value)).sanitized {
            let again = evaluate(&p, &sanitized).verdict;
            let left = [FindingKind::IdentityNotEnforced, FindingKind::IdentityDisallowed];
            prop_assert!(
                !again.findings.iter().any(|f| left.contains(&f.kind)),
                "{value:?}: {:?}", again.findings
            );
        }
    }
}
