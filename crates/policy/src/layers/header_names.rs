//! Header names as backends read them: RFC 9110 §5.1 tokens, and CGI's RFC 3875 §4.1.18
//! `HTTP_` variables (WSGI, PHP's `$_SERVER`, Rack), where `-` and `_` are one and case does not
//! count. Two names that are one there, or the underscore spelling of a singleton, are two
//! readings of one request (`ambiguous_header_name`).

use std::collections::HashMap;

use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::layers::media_type::is_tchar;
use crate::location::Part;
use crate::request::Request;

/// Singletons whose underscore spelling CGI/WSGI backends read as the header itself.
const UNDERSCORE_SINGLETONS: [&str; 4] = [
    "host",
    "content-type",
    "content-length",
    "transfer-encoding",
];

/// Header names as backends read them (RFC 9110 §5.1 tokens; CGI's RFC 3875 §4.1.18
/// `HTTP_` variables, where `-` and `_` are one): a name that is not a token, two names that
/// are one after that translation, and the underscore spelling of a singleton are refused.
pub(crate) fn check(request: &Request, out: &mut Decomposed) {
    let mut spellings: Option<Spellings> = None;
    for (name, _) in &request.headers {
        let name = name.as_str();
        let bytes = name.as_bytes();
        // One pass: whether it is a token, and whether it has an underscore (exact when it is).
        let mut underscore = false;
        if let Some(bad) = bytes.iter().position(|&b| {
            underscore |= b == b'_';
            !is_tchar(b)
        }) {
            let why = format!(
                "byte 0x{:02X} in a header name, which is not a token",
                bytes[bad]
            );
            out.structural_named(
                Part::Header,
                name,
                FindingKind::AmbiguousHeaderName,
                bad,
                why,
            );
            continue;
        }
        if !underscore {
            continue;
        }
        let key = cgi_name(bytes);
        if let Some(single) = UNDERSCORE_SINGLETONS.iter().find(|s| s.as_bytes() == key) {
            let why = format!("{name} is {single} to CGI and WSGI backends");
            out.structural_named(Part::Header, name, FindingKind::AmbiguousHeaderName, 0, why);
            continue;
        }
        // Built once, and only for a request with an underscore in a name: each translated
        // name with its first spelling and another spelling, if there is one.
        let spellings = spellings.get_or_insert_with(|| {
            let mut seen: HashMap<Vec<u8>, (&str, Option<&str>)> = HashMap::new();
            for (other, _) in &request.headers {
                let entry = seen
                    .entry(cgi_name(other.as_bytes()))
                    .or_insert((other, None));
                if !entry.0.eq_ignore_ascii_case(other) {
                    entry.1 = Some(other);
                }
            }
            seen
        });
        let other = spellings.get(&key).and_then(|&(first, second)| {
            [Some(first), second]
                .into_iter()
                .flatten()
                .find(|o| !o.eq_ignore_ascii_case(name))
        });
        if let Some(other) = other {
            let why = format!("{name} and {other} are one header to CGI and WSGI backends");
            out.structural_named(Part::Header, name, FindingKind::AmbiguousHeaderName, 0, why);
        }
    }
}

/// Each header name as CGI reads it, with its first spelling and another one, if any.
type Spellings<'a> = HashMap<Vec<u8>, (&'a str, Option<&'a str>)>;

/// A header name as CGI reads it: case folded, `_` and `-` the same (kept as `-`).
fn cgi_name(name: &[u8]) -> Vec<u8> {
    name.iter()
        .map(|&b| {
            if b == b'_' {
                b'-'
            } else {
                b.to_ascii_lowercase()
            }
        })
        .collect()
}
