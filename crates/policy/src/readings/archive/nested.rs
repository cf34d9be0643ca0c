//! What an entry holds: an archive (by name, or by its first bytes as an untyped body is
//! sniffed), its bytes inflated within the request's budget (`Limits::nested_left`) and only
//! above `Limits::max_depth`; or text, whose bytes are read within the same budget when the
//! profile reads archive contents.

use crate::readings::archive::entry::{Limits, Nested};
use crate::readings::archive::format::Format;

/// Names an extractor (or a user) treats as archives.
const SUFFIXES: [&[u8]; 5] = [b".zip", b".jar", b".tar", b".tar.gz", b".tgz"];

/// How many first bytes of an entry say whether it is an archive (a tar's magic is at 257; a
/// gzip-compressed tar's first header inflates from far fewer). Bounded so that looking costs
/// a small multiple of the entry's own header bytes, whatever the entry count.
pub(super) const HEAD: u64 = 1024;

/// Whether `name` names an archive.
pub(super) fn named(name: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    SUFFIXES.iter().any(|s| lower.ends_with(s))
}

/// What the entry `name` of `size` declared bytes holds when it is an archive (named so, or
/// `head`, its first [`HEAD`] bytes, is one; `None` for a head that could not be read:
/// a compression method not read); `None` when it is none. `whole(left)` reads all its bytes,
/// at most `left + 1` of them.
pub(super) fn nested(
    name: &[u8],
    size: u64,
    head: Option<&[u8]>,
    limits: &Limits,
    whole: &mut dyn FnMut(u64) -> Option<Vec<u8>>,
) -> Option<Nested> {
    let sniffed = head.is_some_and(|h| Format::sniffed(h).is_some());
    if !(named(name) || sniffed) {
        return None;
    }
    if head.is_none() {
        let why = "an archive compressed with a method not read: its entries are not read";
        return Some(Nested::Unread(why.into()));
    }
    if !limits.capture.get() {
        let why = format!(
            "an archive nested deeper than max_archive_depth ({}): its entries are not read",
            limits.max_depth
        );
        return Some(Nested::Unread(why));
    }
    let left = limits.nested_left.get();
    let bytes = (size <= left).then(|| whole(left)).flatten();
    match bytes.filter(|b| b.len() as u64 <= left) {
        Some(bytes) => {
            limits.nested_left.set(left - bytes.len() as u64);
            Some(Nested::Bytes(bytes))
        }
        None => Some(Nested::Unread(format!(
            "a nested archive past the {left} bytes left to inflate (max_decoded_bytes): its \
             entries are not read"
        ))),
    }
}

/// How many first bytes of an entry are read before anything else: enough to say whether it
/// is an archive, and whether it is text when contents are read.
pub(super) fn head_len(limits: &Limits) -> u64 {
    match limits.contents {
        true => crate::textual::SNIFF_BYTES as u64,
        false => HEAD,
    }
}

/// The contents of an entry of `size` declared bytes whose first bytes are `head`, when the
/// profile reads contents and it is text (not binary as an untyped upload is sniffed,
/// `crate::textual::looks_binary`; not empty): its bytes, or why they are not read (past the
/// budget). `whole(left)` reads all its bytes, at most `left + 1` of them.
pub(super) fn text(
    size: u64,
    head: Option<&[u8]>,
    limits: &Limits,
    whole: &mut dyn FnMut(u64) -> Option<Vec<u8>>,
) -> Option<Result<Vec<u8>, String>> {
    let head = head.filter(|h| limits.contents && !h.is_empty())?;
    if crate::textual::looks_binary(head) {
        return None;
    }
    let left = limits.nested_left.get();
    let bytes = (size <= left).then(|| whole(left)).flatten();
    Some(match bytes.filter(|b| b.len() as u64 <= left) {
        Some(bytes) => {
            limits.nested_left.set(left - bytes.len() as u64);
            Ok(bytes)
        }
        None => Err(format!(
            "its contents, past the {left} bytes left to read (max_decoded_bytes), are not read"
        )),
    })
}
