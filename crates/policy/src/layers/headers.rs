//! Header values as backends decode them. Every header is checked raw; these are the further
//! readings, each checked like the part of a URL it amounts to, so that the same payload gets
//! the same verdict in a query value and in every header a backend decodes:
//!
//! * `Cookie` (RFC 6265 §4.2 pairs): as frameworks read them (`crate::layers::cookies`).
//! * URL-valued headers (`Referer`, `Origin`, configured names): the URL's path (path rules)
//!   and query (query rules), as applications that redirect to them read them.
//! * Path-override headers (`X-Original-URL`, `X-Rewrite-URL`, `X-Forwarded-Prefix`,
//!   configured names), which some frameworks take as the request path: path and query rules.
//! * Host-valued headers (`Host`, `X-Forwarded-Host`, `X-Original-Host`, `X-Host`,
//!   `Forwarded: host=`) and the hosts of URL-valued headers: as IDNA reads them
//!   (`crate::layers::hosts`); a forwarded host in ASCII must be a host, as `Host` must.
//! * RFC 8187 extended parameters in any header (`title*=UTF-8''%E2%80%AE`): decoded.

use crate::field::Container;
use crate::finding::FindingKind;
use crate::layers::decomposed::{Decomposed, Fields};
use crate::layers::{hosts, path, percent, query};
use crate::location::{Location, Part};
use crate::profile::Profile;
use crate::request::{Request, split_params, trim};

/// Adds the decoded readings of the request's headers (checked, never rewritten).
pub(crate) fn readings<'a>(request: &'a Request, profile: &Profile, out: &mut Decomposed<'a>) {
    let readings = &profile.readings;
    let mut cookies_read = 0;
    for (i, (name, value)) in request.headers.iter().enumerate() {
        let name = name.as_str();
        let listed = |list: &[String]| list.iter().any(|h| h.eq_ignore_ascii_case(name));
        if name.eq_ignore_ascii_case("cookie") {
            crate::layers::cookies::cookies(value, i, profile, &mut cookies_read, out);
        } else if name.eq_ignore_ascii_case("host") {
            // Its syntax is the head's (`head::host`).
            let host = hosts::name_of(trim(value));
            hosts::check_header_hosts(name, Part::Header, host.into_iter(), i, out);
        } else if hosts::HOST_LIST_HEADERS
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
        {
            let items = value.split(|&b| b == b',').map(trim);
            forwarded_hosts(name, items, i, out);
        } else if name.eq_ignore_ascii_case("forwarded") {
            forwarded_hosts(name, hosts::forwarded_hosts(value), i, out);
        } else if listed(&readings.url_headers) || listed(&readings.path_override_headers) {
            url(name, value, i, profile, out);
        }
        if value.contains(&b'*') && value.windows(2).any(|w| w == b"*=") {
            extended_parameters(name, value, i, out);
        }
    }
}

/// The hosts (`host[:port]`) a proxy says the client asked for: an ASCII one must be a host
/// (`head::host`), and every one is read as IDNA reads it.
fn forwarded_hosts<'a, 'v>(
    name: &str,
    items: impl Iterator<Item = &'v [u8]>,
    header: usize,
    out: &mut Decomposed<'a>,
) {
    let mut names = Vec::new();
    for item in items {
        if item.is_ascii()
            && let Err((offset, why)) = crate::layers::head::host(item)
        {
            out.structural_named(Part::Header, name, FindingKind::MalformedHost, offset, why);
        } else if let Some(host) = hosts::name_of(item) {
            names.push(host);
        }
    }
    hosts::check_header_hosts(name, Part::Header, names.into_iter(), header, out);
}

/// The path and query of a URL (absolute, or a path with a query).
fn url<'a>(
    name: &str,
    value: &'a [u8],
    header: usize,
    profile: &Profile,
    out: &mut Decomposed<'a>,
) {
    let value = trim(value);
    let rest = match hosts::scheme_end(value) {
        Some(after) if value[after..].starts_with(b"//") => {
            let authority = &value[after + 2..];
            let end = authority
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'#'))
                .unwrap_or(authority.len());
            // The authority as a host, after any user information.
            let host = &authority[..end];
            let host = &host[host.iter().rposition(|&b| b == b'@').map_or(0, |at| at + 1)..];
            if let Err((offset, why)) = crate::layers::head::host(host) {
                out.structural_named(Part::UrlPath, name, FindingKind::MalformedHost, offset, why);
            } else {
                let host = hosts::name_of(host);
                hosts::check_header_hosts(name, Part::UrlPath, host.into_iter(), header, out);
            }
            &authority[end..]
        }
        _ => value,
    };
    let rest = &rest[..rest.iter().position(|&b| b == b'#').unwrap_or(rest.len())];
    let (raw_path, raw_query) = match rest.iter().position(|&b| b == b'?') {
        Some(q) => (&rest[..q], Some(&rest[q + 1..])),
        None => (rest, None),
    };
    let location = || Location::part(Part::UrlPath).with_name(name.as_bytes());
    if !raw_path.is_empty() {
        let (path_bytes, mut findings) = percent::decode(raw_path, false, &mut out.layer_room);
        percent::encoded_separators(raw_path, &mut findings);
        path::backend_readings(&path_bytes, profile.readings.path_backend, out);
        out.header_reading(location(), path_bytes, header, findings);
    }
    if let Some(raw_query) = raw_query {
        let mut fields = Fields::new();
        query::fields(
            raw_query,
            Container::Header(header),
            0,
            false,
            profile.limits.max_parameters,
            &mut out.layer_room,
            &mut fields,
        );
        for mut field in fields {
            field.location.part = Part::UrlQuery;
            field.location.name = Some(name.into());
            field.check_only = true;
            out.fields.push(field);
        }
    }
}

/// `key*=charset'language'percent-encoded` parameters, decoded.
fn extended_parameters<'a>(name: &str, value: &'a [u8], header: usize, out: &mut Decomposed<'a>) {
    for piece in split_params(value) {
        let Some(eq) = piece.iter().position(|&b| b == b'=') else {
            continue;
        };
        if !trim(&piece[..eq]).ends_with(b"*") {
            continue;
        }
        let ext = trim(&piece[eq + 1..]);
        let Some((charset, tail)) = percent::split_ext_value(ext) else {
            continue;
        };
        if !charset.eq_ignore_ascii_case(b"utf-8") {
            out.structural_named(
                Part::HeaderParameter,
                name,
                FindingKind::ForeignCharset,
                0,
                format!(
                    "extended parameter in charset {:?}",
                    String::from_utf8_lossy(charset)
                ),
            );
            continue;
        }
        let (bytes, findings) = percent::decode(&ext[tail..], false, &mut out.layer_room);
        let location = Location::part(Part::HeaderParameter).with_name(name.as_bytes());
        out.header_reading(location, bytes, header, findings);
    }
}
