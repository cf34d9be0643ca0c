//! A ZIP's entry names as every extractor reads them, from the raw records (APPNOTE 6.3.10):
//! the end of central directory record, each central directory header and the local header it
//! points at, their names, general-purpose bit 11 and Info-ZIP Unicode Path extra fields
//! (0x7075). Contents are never decompressed, except a symbolic link's target (at most
//! [`MAX_LINK`] bytes): reading names costs one pass over the headers, whatever the sizes
//! they declare.

use core::ops::Range;

use crate::finding::FindingKind;
use crate::readings::archive::entry::{Entry, Limits, Refusal};
use crate::readings::archive::names::cp437;
use crate::readings::archive::nested;

/// Longest symbolic link target read.
pub(super) const MAX_LINK: usize = 4096;

const CENTRAL: &[u8] = b"PK\x01\x02";
const LOCAL: &[u8] = b"PK\x03\x04";

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn corrupt(at: usize, message: impl Into<String>) -> Refusal {
    (FindingKind::MalformedBody, at, message.into())
}

/// The entries of the ZIP `body`, or why it is refused (corrupt, a limit).
pub(super) fn entries(body: &[u8], limits: &Limits) -> Result<Vec<Entry>, Refusal> {
    // The record ends the body: its comment runs to the end, no byte after it.
    let end = crate::textual::zip_end(body)
        .ok_or_else(|| corrupt(body.len(), "no end of central directory record"))?;
    let field = |at| u16_at(body, end + at).unwrap_or(0);
    let count = field(10);
    let (size, offset) = (u32_at(body, end + 12), u32_at(body, end + 16));
    let (size, offset) = (size.unwrap_or(0) as usize, offset.unwrap_or(0) as usize);
    if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        let message = "a ZIP64 archive (65535 entries or 4 GiB and more): its names are not read";
        return Err((FindingKind::LimitExceeded, end, message.into()));
    }
    if field(4) != 0 || field(6) != 0 || field(8) != count {
        return Err(corrupt(
            end,
            "a multi-disk ZIP (its end record names disks)",
        ));
    }
    let shift = end.checked_sub(size).and_then(|s| s.checked_sub(offset));
    if let Some(shift) = shift.filter(|&s| s > 0) {
        // A ZIP after other bytes (a self-extracting stub, an image: a polyglot) whose
        // offsets count from its own start: Info-ZIP, Python's zipfile and Java's ZipFile
        // read it shifted by what precedes it, so is it (once: there its offsets agree).
        let shifted = entries(&body[shift..], limits);
        return shifted.map_err(|(kind, at, message)| (kind, at + shift, message));
    }
    if offset.checked_add(size) != Some(end) {
        return Err(corrupt(
            end,
            "the central directory does not end where its end record starts (bytes before or between the records)",
        ));
    }
    if count > limits.max_entries {
        let message = format!("more than {} archive entries", limits.max_entries);
        return Err((FindingKind::LimitExceeded, end, message));
    }
    let mut out = Vec::with_capacity(count);
    let mut spans: Vec<Range<usize>> = Vec::with_capacity(count);
    let mut total: u64 = 0;
    let mut at = offset;
    for index in 0..count {
        let entry = central(body, at, offset..end, index, limits, &mut total)?;
        spans.push(entry.1.clone());
        at = entry.2;
        out.push(entry.0);
    }
    if at != end {
        return Err(corrupt(at, "bytes after the last central directory header"));
    }
    spans.sort_by_key(|r| r.start);
    for pair in spans.windows(2) {
        if pair[1].start < pair[0].end {
            let message = "two entries overlap (a zip bomb's shape): their data is read twice";
            return Err(corrupt(pair[1].start, message));
        }
    }
    Ok(out)
}

/// The central directory header at `at` (in `cd`, the central directory): the entry, the span
/// of its local record and data, and where the next header starts.
fn central(
    body: &[u8],
    at: usize,
    cd: Range<usize>,
    index: usize,
    limits: &Limits,
    total: &mut u64,
) -> Result<(Entry, Range<usize>, usize), Refusal> {
    let h = body.get(at..at + 46).filter(|h| h.starts_with(CENTRAL));
    let h = h.ok_or_else(|| corrupt(at, format!("central directory header {index} is missing")))?;
    let get = |o| u16_at(h, o).unwrap_or(0);
    let get32 = |o| u32_at(h, o).unwrap_or(0);
    let (flags, method, name_len) = (get(8), get(10), get(28));
    let (compressed, size) = (get32(20), get32(24));
    let name = at + 46..at + 46 + name_len;
    let extra = name.end..name.end + get(30);
    let next = extra.end + get(32);
    if next > cd.end {
        return Err(corrupt(
            at,
            format!("central directory header {index} runs past its end"),
        ));
    }
    if name_len > limits.max_name {
        let message = format!("an entry name of more than {} bytes", limits.max_name);
        return Err((FindingKind::LimitExceeded, name.start, message));
    }
    *total += u64::from(size);
    if *total > limits.max_total {
        let message = format!("entries of more than {} bytes in all", limits.max_total);
        return Err((FindingKind::LimitExceeded, at, message));
    }
    let most = u64::from(compressed).saturating_mul(limits.max_ratio);
    if u64::from(size) > 1 << 20 && u64::from(size) > most {
        let message = format!("an entry that expands more than {} times", limits.max_ratio);
        return Err((FindingKind::LimitExceeded, at, message));
    }
    let local = get32(42) as usize;
    let l = body.get(local..local + 30).filter(|l| l.starts_with(LOCAL));
    let l = l.ok_or_else(|| {
        corrupt(
            local,
            format!("the local header of entry {index} is missing"),
        )
    })?;
    let local_name = local + 30..local + 30 + u16_at(l, 26).unwrap_or(0);
    let local_extra = local_name.end..local_name.end + u16_at(l, 28).unwrap_or(0);
    let data = local_extra.end..local_extra.end.saturating_add(compressed as usize);
    if data.end > cd.start {
        return Err(corrupt(
            local,
            format!("entry {index} runs into the central directory"),
        ));
    }
    let mut entry = Entry {
        name: body[name.clone()].to_vec(),
        ambiguity: None,
        link: None,
        nested: None,
        text: None,
    };
    let names = (&body[name.clone()], &body[local_name.clone()]);
    let utf8 = flags & 0x800 != 0;
    entry.ambiguity = if names.0 != names.1 {
        Some(format!(
            "the central directory names it {:?}, its local header {:?}",
            lossy(names.0),
            lossy(names.1)
        ))
    } else if utf8 != (u16_at(l, 6).unwrap_or(0) & 0x800 != 0) {
        Some("its local header and central directory disagree on bit 11 (UTF-8)".into())
    } else if !utf8 && !names.0.is_ascii() {
        Some(format!(
            "its name is not flagged UTF-8 (bit 11) but is not ASCII: CP437 reads {:?}, UTF-8 \
             readers {:?}",
            cp437(names.0),
            lossy(names.0)
        ))
    } else {
        let extras = [&body[extra], &body[local_extra.clone()]];
        extras.iter().find_map(|e| unicode_path(e, names.0))
    };
    let unix = get(4) >> 8 == 3;
    if unix && (get32(38) >> 16) & 0o170_000 == 0o120_000 {
        entry.link = Some(link(body, data.clone(), method, index)?);
    } else {
        let raw = &body[data];
        let head = head(raw, method, nested::head_len(limits) as usize);
        let mut whole = |left: u64| content(raw, method, left.saturating_add(1));
        let size = u64::from(size);
        entry.nested = nested::nested(&entry.name, size, head.as_deref(), limits, &mut whole);
        if entry.nested.is_none() && !entry.name.ends_with(b"/") {
            entry.text = nested::text(size, head.as_deref(), limits, &mut whole);
        }
    }
    Ok((entry, local..local_extra.end + compressed as usize, next))
}

/// How an Info-ZIP Unicode Path field (0x7075) in `extra` reads another file than `name`,
/// the header's name, if it does: its CRC-32 of the header name matched (Info-ZIP uses it)
/// or not (APPNOTE says ignore it; several libraries used it regardless).
fn unicode_path(extra: &[u8], name: &[u8]) -> Option<String> {
    let mut at = 0;
    while let (Some(id), Some(len)) = (u16_at(extra, at), u16_at(extra, at + 2)) {
        let data = extra.get(at + 4..at + 4 + len)?;
        at += 4 + len;
        if id != 0x7075 {
            continue;
        }
        let (Some(&version), Some(crc)) = (data.first(), u32_at(data, 1)) else {
            return Some("a Unicode Path field (0x7075) too short to read".into());
        };
        let path = &data[5.min(data.len())..];
        let mut header_crc = flate2::Crc::new();
        header_crc.update(name);
        let matched = header_crc.sum() == crc;
        if version != 1 || path != name {
            let crc = if matched {
                "its CRC matches"
            } else {
                "its CRC does not match"
            };
            return Some(format!(
                "its Unicode Path field (0x7075, version {version}, {crc}) names it {:?}, its \
                 header {:?}",
                lossy(path),
                lossy(name)
            ));
        }
    }
    None
}

/// An entry's first bytes, at most `most`: inflated straight into a buffer of that size, so
/// that looking costs what it reads (a `read::DeflateDecoder` inflates 32 KiB at a time), `None`
/// for a method other than stored and deflate.
fn head(raw: &[u8], method: usize, most: usize) -> Option<Vec<u8>> {
    match method {
        0 => Some(raw[..raw.len().min(most)].to_vec()),
        8 => {
            let mut out = Vec::with_capacity(most);
            let mut inflate = flate2::Decompress::new(false);
            // Finish inflates into `out` directly and stops when it is full.
            let _ = inflate.decompress_vec(raw, &mut out, flate2::FlushDecompress::Finish);
            Some(out)
        }
        _ => None,
    }
}

/// At most `most` first bytes of an entry's content (`raw`, stored or deflated; a corrupt
/// stream gives what inflated before it failed), `None` for another method.
fn content(raw: &[u8], method: usize, most: u64) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let _ = match method {
        0 => std::io::Read::read_to_end(&mut std::io::Read::take(raw, most), &mut out),
        8 => {
            let inflate = flate2::read::DeflateDecoder::new(raw);
            std::io::Read::read_to_end(&mut std::io::Read::take(inflate, most), &mut out)
        }
        _ => return None,
    };
    Some(out)
}

/// A symbolic link's target: the entry's data, stored or deflated, at most [`MAX_LINK`] bytes.
fn link(body: &[u8], data: Range<usize>, method: usize, index: usize) -> Result<Vec<u8>, Refusal> {
    let raw = &body[data.clone()];
    let message = format!("entry {index} is a link whose target is not read");
    match method {
        0 if raw.len() <= MAX_LINK => Ok(raw.to_vec()),
        8 => {
            let mut out = Vec::with_capacity(MAX_LINK + 1);
            let mut inflate = flate2::Decompress::new(false);
            let flush = flate2::FlushDecompress::Finish;
            match inflate.decompress_vec(raw, &mut out, flush) {
                Ok(flate2::Status::StreamEnd) if out.len() <= MAX_LINK => Ok(out),
                _ => Err(corrupt(data.start, message)),
            }
        }
        _ => Err(corrupt(data.start, message)),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(128)]).into_owned()
}
