//! Hosts as IDNA reads them. Resolvers, browsers and URL parsers map a host with UTS #46
//! (the WHATWG URL parser's "domain to ASCII") before they use it: U+3002, U+FF0E and U+FF61
//! become `.`, full-width letters and digits ASCII, and U+00AD, U+200B, U+2060, U+034F and
//! variation selectors vanish; an `xn--` label is Punycode for its Unicode form. A host whose
//! mapping is not its own bytes (but for ASCII case) is another host to them than to an
//! allow-list or a log that compares bytes: `confusable_host`. So is an `xn--` label that is
//! not the A-label of what it decodes to, and a label that mixes scripts beyond UTS #39's
//! "highly restrictive" level (a Cyrillic `а` in `pаypal`): browsers show those as Punycode
//! for that reason. The Unicode form of an internationalized host is checked as text too.
//!
//! The fields read as hosts: `Host` (`:authority`), `X-Forwarded-Host`, `X-Original-Host`,
//! `X-Host` (lists), `Forwarded`'s `host=`, the host of every URL-valued header, and the host
//! of URL-valued query and form parameters (`[readings] url_parameters`) whose value is an
//! absolute or scheme-relative URL. The mapping is the `idna` crate's (UTS #46 with the
//! WHATWG URL Standard's options), not a table of ours.

use idna::uts46::{AsciiDenyList, Hyphens, Uts46};
use unicode_security::{RestrictionLevel, RestrictionLevelDetection};

use crate::decide::found::Found;
use crate::field::{Field, FieldBytes};
use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::location::{Location, Part};
use crate::profile::Profile;

/// Headers whose value is a list of hosts (each with an optional port).
pub(crate) const HOST_LIST_HEADERS: [&str; 3] = ["x-forwarded-host", "x-original-host", "x-host"];

/// What IDNA makes of a host name (without port or brackets): `Ok(None)` for an ASCII host
/// without `xn--` labels (nothing to map), `Ok(Some(unicode))` for an internationalized host
/// that maps to itself (its Unicode form, to check as text), `Err(why)` for one IDNA reads
/// as another host.
pub(crate) fn idna(host: &[u8]) -> Result<Option<String>, String> {
    let ace = host.windows(4).any(|w| w.eq_ignore_ascii_case(b"xn--"));
    if host.is_ascii() && !ace {
        return Ok(None);
    }
    let uts46 = Uts46::new();
    let shown = String::from_utf8_lossy(host);
    let (unicode, result) = uts46.to_unicode(host, AsciiDenyList::EMPTY, Hyphens::Allow);
    if result.is_err() {
        return Err(format!(
            "{shown:?} is not a host UTS #46 reads (its labels are not valid IDNA)"
        ));
    }
    let lower = shown.to_ascii_lowercase();
    let (ours, theirs): (Vec<&str>, Vec<&str>) =
        (lower.split('.').collect(), unicode.split('.').collect());
    let reads_as =
        || format!("{shown:?} is {unicode:?} to UTS #46 (resolvers, browsers, URL parsers)");
    if ours.len() != theirs.len() {
        return Err(reads_as());
    }
    for (&label, &mapped) in ours.iter().zip(&theirs) {
        // An A-label decodes to one Unicode label (Punycode is a bijection, and `to_unicode`
        // refuses one that decodes to ASCII or to a label IDNA does not allow): only the
        // other labels must map to themselves.
        let same = label.starts_with("xn--") || label == mapped;

        if !same {
            return Err(reads_as());
        }
        if !mapped.is_ascii()
            && mapped.detect_restriction_level() > RestrictionLevel::HighlyRestrictive
        {
            return Err(format!(
                "label {mapped:?} of {shown:?} mixes scripts (UTS #39 §5.2: above highly restrictive)"
            ));
        }
    }
    Ok(Some(unicode.into_owned()))
}

/// Reads the host names `hosts` of header `header` (`name`) as IDNA reads them: a finding at
/// `part` for each that IDNA reads as another host; the Unicode forms of the rest, joined by
/// `, `, one check-only field (one field a line, not one a host: a list of many costs its
/// bytes, not a field's set-up each).
pub(crate) fn check_header_hosts<'a, 'h>(
    name: &str,
    part: Part,
    hosts: impl Iterator<Item = &'h [u8]>,
    header: usize,
    out: &mut Decomposed<'a>,
) {
    let mut forms = Vec::new();
    for host in hosts {
        match idna(host) {
            Ok(None) => {}
            Ok(Some(unicode)) => {
                if !forms.is_empty() {
                    forms.extend_from_slice(b", ");
                }
                forms.extend_from_slice(unicode.as_bytes());
            }
            Err(why) => out.structural_named(part, name, FindingKind::ConfusableHost, 0, why),
        }
    }
    if !forms.is_empty() {
        let location = Location::part(part).with_name(name.as_bytes());
        let bytes = FieldBytes::from(forms);
        out.header_reading(location, bytes, header, Found::new(0, Default::default()));
    }
}

/// The hosts of URL-valued query and form parameters (`[readings] url_parameters`), checked
/// as [`check_header_hosts`] checks a header's, at the parameter.
pub(crate) fn url_parameters(profile: &Profile, out: &mut Decomposed) {
    let names = &profile.readings.url_parameters;
    if names.is_empty() {
        return;
    }
    let mut found = Vec::new();
    for field in &out.fields {
        let location = &field.location;
        if field.check_only || !matches!(location.part, Part::QueryValue | Part::FormValue) {
            continue;
        }
        let named = location
            .name
            .as_deref()
            .is_some_and(|n| names.iter().any(|want| want.eq_ignore_ascii_case(n)));
        if let Some(host) = url_host(&field.bytes).filter(|_| named) {
            found.push((location.clone(), field.container, idna(host)));
        }
    }
    for (location, container, reading) in found {
        match reading {
            Ok(None) => {}
            Ok(Some(unicode)) => out.fields.push(Field {
                bytes: FieldBytes::from(unicode.into_bytes()),
                check_only: true,
                ..Field::raw(location, &[], container, 0..0)
            }),
            Err(why) => out.structural_at(location, FindingKind::ConfusableHost, 0, why),
        }
    }
}

/// The host name of `value` (`host`, `host:port`, `[v6]:port`): `None` for an IP literal.
pub(crate) fn name_of(value: &[u8]) -> Option<&[u8]> {
    if value.first() == Some(&b'[') {
        return None;
    }
    let end = value.iter().position(|&b| b == b':').unwrap_or(value.len());
    Some(&value[..end])
}

/// The host of `value` if it is an absolute (`scheme://`) or scheme-relative (`//`) URL,
/// with or without user information and port.
pub(crate) fn url_host(value: &[u8]) -> Option<&[u8]> {
    let value = crate::request::trim(value);
    let after = &value[scheme_end(value).unwrap_or(0)..];
    // WHATWG reads `\` as `/` in the slashes of special schemes.
    let authority = match after {
        [b'/' | b'\\', b'/' | b'\\', rest @ ..] => rest,
        _ => return None,
    };
    let end = authority
        .iter()
        .position(|b| matches!(b, b'/' | b'\\' | b'?' | b'#'))
        .unwrap_or(authority.len());
    let authority = &authority[..end];
    let host = &authority[authority
        .iter()
        .rposition(|&b| b == b'@')
        .map_or(0, |at| at + 1)..];
    name_of(host)
}

/// Where an RFC 3986 scheme and its `:` end, if `value` starts with one.
pub(crate) fn scheme_end(value: &[u8]) -> Option<usize> {
    let colon = value.iter().position(|&b| b == b':')?;
    let scheme = &value[..colon];
    let ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    ok.then_some(colon + 1)
}

/// The `host=` values of a `Forwarded` header (RFC 7239 §4), unquoted.
pub(crate) fn forwarded_hosts(value: &[u8]) -> impl Iterator<Item = &[u8]> {
    value
        .split(|&b| b == b',' || b == b';')
        .filter_map(|pair| {
            let pair = crate::request::trim(pair);
            let eq = pair.iter().position(|&b| b == b'=')?;
            crate::request::trim(&pair[..eq])
                .eq_ignore_ascii_case(b"host")
                .then(|| crate::request::trim(&pair[eq + 1..]))
        })
        .map(|v| match v {
            [b'"', inner @ .., b'"'] => inner,
            v => v,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_that_idna_reads_as_other_hosts() {
        for host in [
            "evil\u{3002}example",
            "evil\u{ff0e}example",
            "exa\u{200b}mple.com",
            "exa\u{ad}mple.com",
            "\u{ff25}\u{ff38}.com",
            "xn--zz.com",
            "p\u{430}ypal.com",
            "xn--pypal-4ve.com",
            "B\u{dc}CHER.de",
        ] {
            assert!(idna(host.as_bytes()).is_err(), "{host}");
        }
    }

    #[test]
    fn hosts_that_are_what_they_say() {
        assert_eq!(idna(b"Shop.Example.com"), Ok(None));
        assert_eq!(idna(b"xn--bcher-kva.de"), Ok(Some("bücher.de".into())));
        assert_eq!(idna(b"XN--BCHER-KVA.de"), Ok(Some("bücher.de".into())));
        assert_eq!(idna("bücher.de".as_bytes()), Ok(Some("bücher.de".into())));
        assert_eq!(
            idna("例え.テスト".as_bytes()),
            Ok(Some("例え.テスト".into()))
        );
        assert_eq!(
            idna(b"xn--r8jz45g.xn--zckzah"),
            Ok(Some("例え.テスト".into()))
        );
    }

    #[test]
    fn hosts_of_urls_and_forwarded() {
        assert_eq!(
            url_host(b"https://u:p@a.example:8443/x?y"),
            Some(&b"a.example"[..])
        );
        assert_eq!(url_host(b"//evil.example/x"), Some(&b"evil.example"[..]));
        assert_eq!(url_host(b"/\\evil.example"), Some(&b"evil.example"[..]));
        assert_eq!(
            url_host(b"https:\\\\evil.example"),
            Some(&b"evil.example"[..])
        );
        assert_eq!(url_host(b"/local/path"), None);
        assert_eq!(url_host(b"https://[::1]:80/"), None);
        let hosts: Vec<&[u8]> =
            forwarded_hosts(b"for=1.2.3.4;host=\"a.example:80\", host=b.example").collect();
        assert_eq!(hosts, [&b"a.example:80"[..], b"b.example"]);
    }
}
