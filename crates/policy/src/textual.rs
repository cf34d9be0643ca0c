//! What is text (a leaf): the one rule `/v1/scan`, `/v1/sanitize`, the CLI, proxied bodies
//! and multipart file parts share. A declared media type decides (text, or one of the binary
//! types of [`crate::request`]); input of no type is decided by its content, as git and
//! ripgrep decide: a NUL in its first [`SNIFF_BYTES`] bytes (and no UTF-16 or UTF-32
//! signature) is binary. Binary input is not read as text (a profile's `scan_binary`, the
//! CLI's `--binary`, reads it anyway); the verdict says so in `not_text`.

use crate::request::{ContentType, is_binary};

/// How many first bytes decide whether input of no type is binary.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// Whether `head` (the first bytes of an input) looks binary: a NUL in its first
/// [`SNIFF_BYTES`] bytes, and no UTF-16 or UTF-32 signature (whose text is full of NULs, and
/// which a verdict names as one `foreign_charset` finding).
pub fn looks_binary(head: &[u8]) -> bool {
    let head = &head[..head.len().min(SNIFF_BYTES)];
    let signature = utf8gate_codec::detect_signature(head);
    memchr::memchr(0, head).is_some()
        && signature.is_none_or(|s| s == utf8gate_codec::Signature::Utf8)
}

/// Why a body of type `ct` whose first bytes are `head` is not text, or `None` when it is
/// text. The sentence is the verdict's `not_text`. (A body reading may still claim a binary
/// type: an archive is read for its names, `layers::body`.)
pub(crate) fn not_text(ct: &ContentType, head: &[u8]) -> Option<String> {
    if ct.essence.is_empty() {
        return looks_binary(head).then(|| {
            format!(
                "no media type, and a NUL in the first {} KiB: binary, not read as text",
                SNIFF_BYTES / 1024
            )
        });
    }
    is_binary(&ct.essence).then(|| format!("{}: a binary media type, not read as text", ct.essence))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary_reason(content_type: Option<&[u8]>, head: &[u8]) -> Option<String> {
        not_text(&ContentType::parse(content_type.unwrap_or_default()), head)
    }

    /// The content decides for uploads only: a proxied body of no type is what a backend may
    /// read as text, so a NUL in it is a finding (as before the rule), not a file type.
    #[test]
    fn a_proxied_body_of_no_type_is_text_and_an_upload_is_sniffed() {
        use crate::{Decision, Profile, Request, evaluate, evaluate_upload};
        let request = Request::new("POST", b"/").body(b"a\0b \xC0\xAE\xC0\xAE/");
        let proxied = evaluate(&Profile::strict(), &request).verdict;
        assert_eq!(proxied.decision, Decision::Reject);
        assert!(proxied.kinds().contains(&"nul") && proxied.kinds().contains(&"overlong"));
        let upload = evaluate_upload(&Profile::strict(), &request).verdict;
        assert_eq!(upload.decision, Decision::Allow);
        assert!(upload.not_text.is_some());
    }

    #[test]
    fn declared_types_decide_and_untyped_input_is_sniffed() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        for (ct, head, binary) in [
            ("image/png", &png[..], true),
            ("application/pdf", b"%PDF-1.7 text only", true),
            ("application/octet-stream", b"plain", true),
            ("text/plain", png, false),
            ("application/json", b"{\"a\":\"\0\"}", false),
            ("image/svg+xml", b"<svg/>", false),
            ("application/vnd.api+json", b"{}", false),
            ("", png, true),
            ("", b"plain text", false),
            ("", b"\xFF\xFEh\0i\0", false),
        ] {
            let reason = binary_reason(Some(ct.as_bytes()), head);
            assert_eq!(reason.is_some(), binary, "{ct:?} {head:?}");
        }
        assert!(
            binary_reason(None, b"\0")
                .unwrap()
                .contains("no media type")
        );
        // Only the first 8 KiB decide.
        let mut late = vec![b'a'; SNIFF_BYTES];
        late.push(0);
        assert!(!looks_binary(&late));
        late[SNIFF_BYTES - 1] = 0;
        assert!(looks_binary(&late));
    }
}
