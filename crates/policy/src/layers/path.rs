//! The path as backends read its segments: servlet containers and Spring remove `;` path
//! parameters from each segment before they resolve dot-segments, so `/a/..;x/b` is `/b` to
//! Tomcat while it has no dot-segment to a reader of RFC 3986 alone (CVE-2008-2938 family).

use crate::finding::FindingKind;
use crate::layers::decomposed::Decomposed;
use crate::location::Part;
use crate::profile::PathBackend;

/// Reports the dot-segments that only the backend's reading of the (percent-decoded) path
/// has.
pub(crate) fn backend_readings(path: &[u8], backend: PathBackend, out: &mut Decomposed) {
    if !backend.strips_path_parameters() || !path.contains(&b';') {
        return;
    }
    let mut offset = 0;
    for segment in path.split(|&b| b == b'/' || b == b'\\') {
        let start = offset;
        offset += segment.len() + 1;
        let Some(semi) = segment.iter().position(|&b| b == b';') else {
            continue;
        };
        let stripped = &segment[..semi];
        if stripped == b"." || stripped == b".." {
            out.structural(
                Part::Path,
                FindingKind::DotSegment,
                start,
                format!(
                    "segment {:?} is {:?} to servlet containers (path parameter removed)",
                    String::from_utf8_lossy(&segment[..segment.len().min(32)]),
                    String::from_utf8_lossy(stripped)
                ),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(path: &[u8], backend: PathBackend) -> bool {
        let mut out = Decomposed::default();
        backend_readings(path, backend, &mut out);
        !out.structural.is_empty()
    }

    #[test]
    fn path_parameters_hide_dot_segments() {
        for hit in [
            &b"/a/..;/b"[..],
            b"/a/..;jsessionid=1/b",
            b"/.;/admin",
            b"/a\\..;x\\b",
        ] {
            assert!(
                found(hit, PathBackend::Generic),
                "{}",
                String::from_utf8_lossy(hit)
            );
            assert!(found(hit, PathBackend::Servlet));
            assert!(!found(hit, PathBackend::Rfc3986));
        }
        for benign in [&b"/a;v=1/b"[..], b"/a/b;c", b"/a/...;x/b", b"/;x/", b"/a/b"] {
            assert!(
                !found(benign, PathBackend::Generic),
                "{}",
                String::from_utf8_lossy(benign)
            );
        }
    }
}
