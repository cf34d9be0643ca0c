//! The archive formats as their first bytes say (a leaf): a ZIP, a tar, a gzip-compressed tar.

/// The archive formats read, as the bytes start.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Zip,
    Tar,
    /// A gzip-compressed tar (a gzip of anything else is not an archive).
    Gzip,
}

impl Format {
    pub(super) fn of(body: &[u8]) -> Option<Format> {
        if is_zip(body) {
            Some(Format::Zip)
        } else if is_tar(body) {
            Some(Format::Tar)
        } else if body.starts_with(b"\x1f\x8b") {
            Some(Format::Gzip)
        } else {
            None
        }
    }

    /// The archive a whole `body` is: as its first bytes say, or a ZIP whose end record ends
    /// it whatever comes before (an image, an executable stub: extractors start at the end).
    pub(super) fn of_whole(body: &[u8]) -> Option<Format> {
        Format::of(body).or_else(|| crate::textual::zip_end(body).map(|_| Format::Zip))
    }

    /// The archive `head` (a body's first bytes, 1 KiB is enough) starts, a gzip only when it
    /// holds a tar: how an untyped body is sniffed.
    pub(super) fn sniffed(head: &[u8]) -> Option<Format> {
        Format::of(head).filter(|&f| f != Format::Gzip || gzip_holds_tar(head))
    }
}

/// `true` when `body` starts as a ZIP does: a local header, or the end record of an empty one.
pub(super) fn is_zip(body: &[u8]) -> bool {
    body.starts_with(b"PK\x03\x04") || body.starts_with(b"PK\x05\x06")
}

/// `true` when `head` (at least 263 bytes) is a POSIX or GNU tar header.
pub(super) fn is_tar(head: &[u8]) -> bool {
    head.get(257..262) == Some(b"ustar")
}

/// Whether the gzip `body` (or its first bytes) inflates to a tar header.
pub(super) fn gzip_holds_tar(body: &[u8]) -> bool {
    crate::textual::gzip_holds_tar(body)
}
