//! What the server reads from an X.509 certificate itself (RFC 5280 §4.1): its expiry (for
//! `utf8gate_tls_certificate_expiry_seconds`), the DNS names of its subjectAltName (which
//! server names an `sni` certificate answers) and a client certificate's identity (the audit
//! line's `client`). rustls verifies certificates but exposes none of these; a DER walk over
//! the few fields needed is some 150 lines, where an X.509 crate brings a parser framework.
//! Anything unexpected reads as `None`: never a panic, and every length is checked against
//! what remains.

/// The fields of a certificate the server uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Facts {
    /// `notAfter` as Unix time (seconds).
    pub not_after: i64,
    /// The subject's common name, if any.
    pub common_name: Option<String>,
    /// The subjectAltName's DNS names, in order.
    pub dns_names: Vec<String>,
    /// The subjectAltName's URIs (a SPIFFE ID is one), in order.
    pub uris: Vec<String>,
}

impl Facts {
    /// Who a client certificate names: its first URI, else its first DNS name, else its
    /// subject's common name.
    pub fn identity(&self) -> Option<&str> {
        (self.uris.first())
            .or(self.dns_names.first())
            .or(self.common_name.as_ref())
            .map(String::as_str)
    }
}

/// A DER element: its tag and contents.
struct Element<'a> {
    tag: u8,
    contents: &'a [u8],
}

/// Reads DER elements one after another.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The next element, or `None` at the end or on a malformed length.
    fn next(&mut self) -> Option<Element<'a>> {
        let (&tag, rest) = self.0.split_first()?;
        let (&first, rest) = rest.split_first()?;
        let (len, rest) = match first {
            n if n < 0x80 => (usize::from(n), rest),
            n => {
                let count = usize::from(n & 0x7f);
                if count == 0 || count > 4 || rest.len() < count {
                    return None;
                }
                let (bytes, rest) = rest.split_at(count);
                let len = bytes
                    .iter()
                    .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
                (len, rest)
            }
        };
        if rest.len() < len {
            return None;
        }
        let (contents, rest) = rest.split_at(len);
        self.0 = rest;
        Some(Element { tag, contents })
    }

    /// The next element, if its tag is `tag`.
    fn expect(&mut self, tag: u8) -> Option<&'a [u8]> {
        self.next().filter(|e| e.tag == tag).map(|e| e.contents)
    }
}

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const OID: u8 = 0x06;
const OCTET_STRING: u8 = 0x04;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;
/// `id-at-commonName`, 2.5.4.3.
const COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];
/// `id-ce-subjectAltName`, 2.5.29.17.
const SUBJECT_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x11];

/// The facts of the DER certificate `der`, or `None` if it does not read as one.
pub fn read(der: &[u8]) -> Option<Facts> {
    let certificate = Reader(der).expect(SEQUENCE)?;
    let mut tbs = Reader(Reader(certificate).expect(SEQUENCE)?);
    let mut first = tbs.next()?;
    if first.tag == 0xa0 {
        // [0] EXPLICIT version: the serial number follows.
        first = tbs.next()?;
    }
    if first.tag != 0x02 {
        return None;
    }
    tbs.expect(SEQUENCE)?; // signature algorithm
    tbs.expect(SEQUENCE)?; // issuer
    let mut validity = Reader(tbs.expect(SEQUENCE)?);
    validity.next()?; // notBefore
    let not_after = time(validity.next()?)?;
    let subject = tbs.expect(SEQUENCE)?;
    tbs.expect(SEQUENCE)?; // subjectPublicKeyInfo
    let mut facts = Facts {
        not_after,
        common_name: common_name(subject),
        ..Facts::default()
    };
    while let Some(e) = tbs.next() {
        if e.tag == 0xa3 {
            alt_names(e.contents, &mut facts)?;
        }
    }
    Some(facts)
}

/// The first common name of a `Name`.
fn common_name(name: &[u8]) -> Option<String> {
    let mut rdns = Reader(name);
    while let Some(set) = rdns.next() {
        if set.tag != SET {
            return None;
        }
        let mut attributes = Reader(set.contents);
        while let Some(attribute) = attributes.next() {
            let mut fields = Reader(attribute.contents);
            if fields.expect(OID)? == COMMON_NAME {
                let value = fields.next()?;
                return String::from_utf8(value.contents.to_vec()).ok();
            }
        }
    }
    None
}

/// Reads the subjectAltName from the `[3]` extensions into `facts`.
fn alt_names(explicit: &[u8], facts: &mut Facts) -> Option<()> {
    let mut extensions = Reader(Reader(explicit).expect(SEQUENCE)?);
    while let Some(extension) = extensions.next() {
        let mut fields = Reader(extension.contents);
        if fields.expect(OID)? != SUBJECT_ALT_NAME {
            continue;
        }
        let mut value = fields.next()?;
        if value.tag == 0x01 {
            // critical BOOLEAN
            value = fields.next()?;
        }
        if value.tag != OCTET_STRING {
            return None;
        }
        let mut names = Reader(Reader(value.contents).expect(SEQUENCE)?);
        while let Some(name) = names.next() {
            let text = || String::from_utf8(name.contents.to_vec()).ok();
            match name.tag {
                0x82 => facts.dns_names.extend(text()),
                0x86 => facts.uris.extend(text()),
                _ => {}
            }
        }
    }
    Some(())
}

/// A `Time` (UTCTime or GeneralizedTime, in their DER forms ending in `Z`) as Unix time.
fn time(e: Element<'_>) -> Option<i64> {
    let text = std::str::from_utf8(e.contents).ok()?.strip_suffix('Z')?;
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match (e.tag, text.len()) {
        (UTC_TIME, 12) => {
            let yy: i32 = text[..2].parse().ok()?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &text[2..])
        }
        (GENERALIZED_TIME, 14) => (text[..4].parse().ok()?, &text[4..]),
        _ => return None,
    };
    let field = |i: usize| rest[i..i + 2].parse::<u8>().ok();
    let month = time::Month::try_from(field(0)?).ok()?;
    let date = time::Date::from_calendar_date(year, month, field(2)?).ok()?;
    let at = date.with_hms(field(4)?, field(6)?, field(8)?).ok()?;
    Some(at.assume_utc().unix_timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rcgen::{CertificateParams, DnType, KeyPair, SanType};

    fn made(params: CertificateParams) -> Vec<u8> {
        let key = KeyPair::generate().expect("key");
        params
            .self_signed(&key)
            .expect("certificate")
            .der()
            .to_vec()
    }

    #[test]
    fn reads_what_rcgen_wrote() {
        let mut params =
            CertificateParams::new(vec!["a.example".into(), "*.b.example".into()]).expect("params");
        params
            .distinguished_name
            .push(DnType::CommonName, "Service A");
        params
            .distinguished_name
            .push(DnType::OrganizationName, "utf8gate tests");
        params.subject_alt_names.push(SanType::URI(
            "spiffe://example/ns/a/sa/b".try_into().expect("uri"),
        ));
        for (year, utc) in [(2031, true), (2061, false)] {
            params.not_after = rcgen::date_time_ymd(year, 6, 30);
            let facts = read(&made(params.clone())).expect("read");
            let want = time::Date::from_calendar_date(year, time::Month::June, 30)
                .expect("date")
                .midnight()
                .assume_utc()
                .unix_timestamp();
            assert_eq!(facts.not_after, want, "UTCTime {utc}");
            assert_eq!(facts.dns_names, ["a.example", "*.b.example"]);
            assert_eq!(facts.uris, ["spiffe://example/ns/a/sa/b"]);
            assert_eq!(facts.common_name.as_deref(), Some("Service A"));
            assert_eq!(facts.identity(), Some("spiffe://example/ns/a/sa/b"));
        }
    }

    #[test]
    fn a_certificate_without_names_has_its_common_name_as_identity() {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params
            .distinguished_name
            .push(DnType::CommonName, "client-7");
        let facts = read(&made(params)).expect("read");
        assert!(facts.dns_names.is_empty() && facts.uris.is_empty());
        assert_eq!(facts.identity(), Some("client-7"));
    }

    proptest! {
        #[test]
        fn truncated_or_altered_certificates_never_panic(cut in 0usize..2000, at in 0usize..2000, byte: u8) {
            let der = made(CertificateParams::new(vec!["x.example".into()]).expect("params"));
            let mut bent = der.clone();
            let i = at % bent.len();
            bent[i] = byte;
            let _ = read(&bent);
            let _ = read(&der[..cut.min(der.len())]);
            prop_assert!(read(&der).is_some());
        }
    }
}
