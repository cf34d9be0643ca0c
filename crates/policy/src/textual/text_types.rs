//! The media types whose content is text (a leaf): an allow-list of patterns. Every other
//! declared type is judged by its bytes (`crate::textual`).
//!
//! The registry holds thousands of binary types and gains more every month; the text types
//! are few and follow patterns: `text/*`, the structured-syntax suffixes `+json`, `+xml` and
//! `+yaml` (RFC 6838 §4.2.8), and the named types below.

/// Named text types outside `text/*` and the suffixes.
const TEXT_TYPES: [&str; 27] = [
    "application/json",
    "application/x-json",
    "application/json-seq",
    "application/jsonl",
    "application/x-ndjson",
    "application/ndjson",
    "application/x-jsonlines",
    "application/json-patch+json",
    "application/xml",
    "application/xml-dtd",
    "application/xml-external-parsed-entity",
    "application/yaml",
    "application/x-yaml",
    "application/x-www-form-urlencoded",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/x-ecmascript",
    "application/graphql",
    "application/graphql-response+json",
    "application/sql",
    "application/x-sh",
    "application/x-shellscript",
    "application/x-csh",
    "application/csv",
    "application/x-httpd-php",
    "application/x-php",
];

/// `true` when a body declared `essence` (lowercase, no parameters) is text by its type:
/// read as the type says (by the reading that claims it, or as one text field).
pub(crate) fn is_text_type(essence: &str) -> bool {
    essence.starts_with("text/")
        || essence.starts_with("multipart/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || essence.ends_with("+yaml")
        || TEXT_TYPES.contains(&essence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_a_short_list_of_patterns() {
        for text in [
            "text/plain",
            "text/csv",
            "multipart/related",
            "application/vnd.api+json",
            "image/svg+xml",
            "application/vnd.k8s+yaml",
            "application/x-ndjson",
            "application/graphql",
            "application/sql",
            "application/x-sh",
            "application/javascript",
        ] {
            assert!(is_text_type(text), "{text}");
        }
        for binary in [
            "image/png",
            "application/octet-stream",
            "application/pdf",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/grpc+proto",
            "application/cbor",
            "application/x-7z-compressed",
            "",
        ] {
            assert!(!is_text_type(binary), "{binary}");
        }
    }
}
