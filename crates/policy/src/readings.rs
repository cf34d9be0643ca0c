//! The body readings, in the order they are tried: a body is read by the first that claims
//! its media type, and a body of no type (or `text/plain`, `application/octet-stream`) is also
//! read by each that sniffs it, as a check-only second reading. A type none claims is read as
//! one text field.

mod archive;
pub(crate) mod body;
mod form;
mod grpc;
pub(crate) mod json;
mod json_body;
pub(crate) mod multipart;
pub(crate) mod parts;
pub(crate) mod reading;
mod xml;
mod yaml;

use crate::layers::decomposed::Decomposed;
use crate::readings::reading::BodyReading;

/// Every body reading. Adding one: its module (with `READING`), and a line here.
pub(crate) const READINGS: [&BodyReading; 7] = [
    &grpc::READING,
    &json_body::READING,
    &form::READING,
    &crate::readings::parts::READING,
    &xml::READING,
    &yaml::READING,
    &archive::READING,
];
pub(crate) use archive::archive_in;
pub(crate) use json_body::each_string as each_json_string;
pub(crate) use xml::each_field as each_xml_field;
pub(crate) use xml::xml_escape;
pub(crate) use yaml::each_field as each_yaml_field;

/// Query and form values that parse as a JSON object or array, which applications parse
/// (GraphQL over GET `variables=`, `filter=`): also read as JSON, check-only, each string at
/// its value's name and index. Each value is read once: linear in the request.
pub(crate) fn json_in_values(profile: &crate::profile::Profile, out: &mut Decomposed) {
    use crate::location::Part;
    let values: Vec<(crate::location::Location, Vec<u8>)> = out
        .fields
        .iter()
        .filter(|f| !f.check_only && matches!(f.location.part, Part::QueryValue | Part::FormValue))
        .filter(|f| {
            matches!(
                f.bytes.iter().find(|b| !b.is_ascii_whitespace()),
                Some(b'{' | b'[')
            )
        })
        .map(|f| (f.location.clone(), f.bytes.to_vec()))
        .collect();
    if values.is_empty() {
        return;
    }
    let Some(sniffed) = json_body::READING.sniffed else {
        return;
    };
    let untyped = crate::request::ContentType::parse(b"");
    for (location, value) in values {
        let mut second = out.second();
        sniffed(&value, &untyped, profile, &mut second);
        second.relocate(&location);
        out.absorb_check_only(second);
    }
}

/// The reading that claims `ct`, if any.
pub(crate) fn claiming(ct: &crate::request::ContentType) -> Option<&'static BodyReading> {
    READINGS.into_iter().find(|r| (r.claims)(ct))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::ContentType;

    #[test]
    fn each_reading_has_its_own_name_selector_and_types() {
        for (i, reading) in READINGS.iter().enumerate() {
            assert!(READINGS[i + 1..].iter().all(|r| r.name != reading.name));
            // A gRPC message's fields are JSON's, selected by `json`.
            assert!(
                reading.name == "grpc" || crate::exclusion::Target::KEYS.contains(&reading.name),
                "{} is no [[exclusion]] selector",
                reading.name
            );
        }
        for (essence, name) in [
            ("application/json", Some("json")),
            ("application/vnd.api+json", Some("json")),
            ("application/x-www-form-urlencoded", Some("form")),
            ("multipart/form-data", Some("multipart")),
            ("application/yaml", Some("yaml")),
            ("application/x-yaml", Some("yaml")),
            ("text/yaml", Some("yaml")),
            ("text/x-yaml", Some("yaml")),
            ("application/vnd.k8s+yaml", Some("yaml")),
            ("text/plain", None),
            ("application/octet-stream", None),
            ("application/zip", Some("archive")),
            ("application/grpc", Some("grpc")),
            ("application/grpc+json", Some("grpc")),
            ("application/grpc-web+proto", Some("grpc")),
            ("application/grpc-web-text", None),
            ("application/grpcx", None),
            ("multipart/related", Some("multipart")),
        ] {
            let ct = ContentType::parse(essence.as_bytes());
            let claiming: Vec<_> = READINGS.iter().filter(|r| (r.claims)(&ct)).collect();
            assert!(claiming.len() <= 1, "{essence} is claimed twice");
            assert_eq!(claiming.first().map(|r| r.name), name, "{essence}");
        }
    }
}
