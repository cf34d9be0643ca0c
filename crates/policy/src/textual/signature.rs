//! Binary signatures (a leaf): what a body's first bytes (and, for a whole body, its last)
//! say it is, by the `file-format` crate's table of some 450 signatures, and the WHATWG MIME
//! Sniffing Standard's rule for telling text from binary (§7.2, "binary data byte").
//!
//! A signature names binary content only when the bytes around it are not text: a body whose
//! first [`WHATWG_HEAD`] bytes are valid UTF-8 with no binary data byte is text that merely
//! starts like a signature (`GIF89a<?php ...`, `MZ` and a sentence), and is read as text. A
//! PDF is the exception: its header may be followed by kilobytes of ASCII objects, and its
//! signature alone says what it is. Formats whose signature is text (XML, scripts, PEM) are
//! no binary signature at all.

use file_format::{FileFormat, Kind};

use super::text_types::is_text_type;

/// The bytes the WHATWG rule looks at: a resource header's length (MIME Sniffing §7.2).
pub(crate) const WHATWG_HEAD: usize = 1445;

/// How far from its end an archive's end record can start: a ZIP's end of central
/// directory record (22 bytes) and the longest comment after it (APPNOTE 4.3.16).
pub(crate) const ZIP_TAIL: usize = 22 + 0xFFFF;

/// A binary signature found in a body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Signature {
    /// The format's name ("Portable Network Graphics").
    pub(crate) name: String,
    /// The format's media type.
    pub(crate) media_type: String,
    /// An archive or disk image whose entry names are not read (7z, RAR, OLE2, DMG, ISO).
    pub(crate) unread_names: bool,
}

impl Signature {
    /// The verdict's `not_text` for a body with this signature.
    pub(crate) fn reason(&self) -> String {
        let what = match self.unread_names {
            true => "an archive whose names are not read",
            false => "binary",
        };
        format!(
            "{} ({}) by its signature: {what}, not read as text",
            self.name, self.media_type
        )
    }
}

/// `true` for the WHATWG binary data bytes: C0 controls other than TAB, LF, FF, CR and ESC.
pub(crate) fn is_binary_data_byte(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F)
}

/// Whether `head` (a body's first bytes) is text by the WHATWG rule: a UTF-8, UTF-16 or
/// UTF-32 signature, or no binary data byte in its first [`WHATWG_HEAD`] bytes.
pub(crate) fn whatwg_text(head: &[u8]) -> bool {
    let head = &head[..head.len().min(WHATWG_HEAD)];
    utf8gate_codec::detect_signature(head).is_some()
        || !head.iter().copied().any(is_binary_data_byte)
}

/// Whether `head` is plain UTF-8 text: no binary data byte in its first [`WHATWG_HEAD`]
/// bytes, and valid UTF-8 there (a character cut by the window's end aside).
fn plain_text(head: &[u8]) -> bool {
    let head = &head[..head.len().min(WHATWG_HEAD)];
    let valid = match utf8gate_codec::validate(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() == WHATWG_HEAD,
    };
    valid && !head.iter().copied().any(is_binary_data_byte)
}

/// The binary signature of a body whose first bytes are `head` and, when the whole body is
/// at hand, whose last bytes are `tail` (a DMG's trailer is its last 512 bytes). `None` for
/// text, and for bytes no signature names. ZIP, tar and gzip are the archive reading's
/// (`crate::textual::judge` looks for them first).
pub(crate) fn binary_signature(head: &[u8], tail: Option<&[u8]>) -> Option<Signature> {
    // Text in UTF-16 or UTF-32 is a foreign charset, not a file type.
    if utf8gate_codec::detect_signature(head).is_some() {
        return None;
    }
    let format = FileFormat::from_bytes(head);
    let known = !matches!(
        format,
        FileFormat::ArbitraryBinaryData | FileFormat::PlainText | FileFormat::Empty
    );
    if known && !is_text_type(format.media_type()) {
        let pdf = format == FileFormat::PortableDocumentFormat;
        if pdf || !plain_text(head) {
            return Some(Signature {
                name: format.name().into(),
                media_type: format.media_type().into(),
                unread_names: unread_names(format),
            });
        }
    }
    // An Apple disk image's signature is its trailer (TN1150 and `hdiutil`): "koly", 512
    // bytes from the end (or, in some tools' images and samples, at the start).
    let koly = tail.and_then(|t| t.len().checked_sub(512).map(|at| &t[at..]));
    let koly = koly.filter(|t| t.starts_with(b"koly")).or(Some(head));
    koly.filter(|t| t.starts_with(b"koly") && !plain_text(head))
        .map(|_| Signature {
            name: FileFormat::AppleDiskImage.name().into(),
            media_type: FileFormat::AppleDiskImage.media_type().into(),
            unread_names: true,
        })
}

/// Archives and disk images whose entry names this gateway does not read.
fn unread_names(format: FileFormat) -> bool {
    matches!(format.kind(), Kind::Archive | Kind::Disk | Kind::Package)
        || format == FileFormat::CompoundFileBinary
        || format.media_type() == "application/x-cfb"
        || format.media_type().starts_with("application/vnd.ms-")
        || format.media_type() == "application/msword"
}

/// Where the end of central directory record of a ZIP that ends `body` starts, if one does:
/// the record in the last [`ZIP_TAIL`] bytes whose comment runs exactly to the end (how every
/// extractor finds a ZIP, whatever comes before it: a GIF, an executable stub).
pub(crate) fn zip_end(body: &[u8]) -> Option<usize> {
    let from = body.len().saturating_sub(ZIP_TAIL);
    let window = &body[from..];
    memchr::memmem::rfind_iter(window, b"PK\x05\x06")
        .map(|at| from + at)
        .find(|&at| {
            let comment = body
                .get(at + 20..at + 22)
                .map(|c| u16::from_le_bytes([c[0], c[1]]));
            comment.is_some_and(|c| at + 22 + usize::from(c) == body.len())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_data_bytes_are_the_whatwg_set() {
        let set: Vec<u8> = (0..=255u8).filter(|&b| is_binary_data_byte(b)).collect();
        let expected = (0u8..=8)
            .chain([0x0B])
            .chain(0x0E..=0x1A)
            .chain(0x1C..=0x1F);
        assert_eq!(set, expected.collect::<Vec<_>>());
        assert!(whatwg_text(b"plain\ttext\r\n\x0C\x1B"));
        assert!(!whatwg_text(b"a\0b"));
        assert!(whatwg_text(b"\xFF\xFEh\0i\0"));
        let mut late = vec![b'a'; WHATWG_HEAD];
        late.push(0);
        assert!(whatwg_text(&late));
    }

    #[test]
    fn a_signature_counts_where_the_bytes_are_not_text() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";
        let found = binary_signature(png, None).expect("a PNG");
        assert_eq!(found.media_type, "image/png");
        assert!(found.reason().contains("by its signature"));
        // Text that starts like a signature is text.
        for text in [
            &b"GIF89a<?php echo 1; ?>"[..],
            b"MZ is a sentence",
            b"PK is text",
        ] {
            assert_eq!(binary_signature(text, None), None, "{text:?}");
        }
        assert!(binary_signature(b"GIF89a\x01\0\x01\0\x80\0\0", None).is_some());
        // A PDF by its header alone; XML and scripts are text whatever they start with.
        assert!(binary_signature(b"%PDF-1.7\n1 0 obj\n", None).is_some());
        assert_eq!(binary_signature(b"<?xml version=\"1.0\"?>\0", None), None);
        assert_eq!(binary_signature(b"#!/usr/bin/env bash\n\0", None), None);
        assert_eq!(binary_signature(b"\xFF\xFEh\0i\0", None), None);
        let seven = b"7z\xBC\xAF\x27\x1C\0\x04";
        assert!(binary_signature(seven, None).unwrap().unread_names);
    }

    #[test]
    fn a_disk_image_is_known_by_its_trailer() {
        let mut dmg = vec![0x11u8; 2048];
        let at = dmg.len() - 512;
        dmg[at..at + 4].copy_from_slice(b"koly");
        let found = binary_signature(&dmg[..64], Some(&dmg)).expect("a DMG");
        assert!(found.unread_names);
        assert_eq!(binary_signature(&dmg[..64], None), None);
        // Its trailer at the start, as some tools and samples put it.
        let front = [&b"koly\0\0\0\x04\0\0\x02\0"[..], &[0x11; 100]].concat();
        assert!(binary_signature(&front, None).unwrap().unread_names);
        assert_eq!(binary_signature(b"koly is a word", None), None);
    }

    #[test]
    fn a_zip_is_found_by_its_end_record_whatever_precedes_it() {
        let mut body = b"GIF89a\x01\0\x01\0".to_vec();
        body.extend_from_slice(b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x03\0abc");
        assert_eq!(zip_end(&body), Some(10));
        body.push(b'x');
        assert_eq!(zip_end(&body), None);
        assert_eq!(zip_end(b"PK\x05\x06"), None);
    }
}
