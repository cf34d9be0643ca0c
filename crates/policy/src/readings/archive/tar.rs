//! A tar's entry names as every extractor reads them, from the raw 512-byte headers (POSIX
//! ustar and pax, GNU): the ustar name with its prefix, a GNU long name or link ('L', 'K'), a
//! pax `path`/`linkpath` per entry ('x') or global ('g'), and a pax `size` against the
//! header's. Read from any `Read` (a gzip-compressed tar is read as it inflates): headers and
//! long names are kept, entry data is skipped, never held.

use std::io::Read;

use crate::finding::FindingKind;
use crate::readings::archive::entry::{Entry, Limits, Refusal};
use crate::readings::archive::nested;

/// Largest pax or GNU long-name record read.
const MAX_RECORD: u64 = 64 * 1024;

fn corrupt(at: u64, message: impl Into<String>) -> Refusal {
    (FindingKind::MalformedBody, at as usize, message.into())
}

/// A read that failed: past the decompression cap ([`Capped`]), or corrupt.
fn failed(at: u64, e: &std::io::Error) -> Refusal {
    match e.kind() {
        std::io::ErrorKind::QuotaExceeded => {
            (FindingKind::LimitExceeded, at as usize, e.to_string())
        }
        _ => corrupt(at, e.to_string()),
    }
}

/// A reader that fails (`QuotaExceeded`) past `left` bytes: a gzip-compressed tar's cap.
pub(super) struct Capped<R> {
    pub(super) inner: R,
    pub(super) left: u64,
    pub(super) what: String,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::QuotaExceeded, self.what.clone())
        })?;
        Ok(n)
    }
}

/// Reads until `buf` is full or the input ends: how many bytes it holds.
fn fill(r: &mut dyn Read, buf: &mut [u8], at: u64) -> Result<usize, Refusal> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(at, &e)),
        }
    }
    Ok(n)
}

/// A NUL-terminated header field.
fn field(h: &[u8]) -> &[u8] {
    &h[..h.iter().position(|&b| b == 0).unwrap_or(h.len())]
}

/// An octal number field (or GNU base-256, high bit set), `None` when it is neither.
fn number(h: &[u8]) -> Option<u64> {
    if h.first().is_some_and(|b| b & 0x80 != 0) {
        let mut n: u64 = u64::from(h[0] & 0x7F);
        for &b in &h[1..] {
            n = n.checked_mul(256)?.checked_add(u64::from(b))?;
        }
        return Some(n);
    }
    let digits = field(h).trim_ascii();
    let text = core::str::from_utf8(digits).ok()?;
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

/// The names a pending set of records gives the next entry.
#[derive(Default, Clone)]
struct Pending {
    path: Option<Vec<u8>>,
    linkpath: Option<Vec<u8>>,
    size: Option<u64>,
}

/// Reads `len` bytes (a record) or fails.
fn take(r: &mut dyn Read, len: u64, at: u64) -> Result<Vec<u8>, Refusal> {
    let mut out = vec![0; len as usize];
    if fill(r, &mut out, at)? as u64 != len {
        return Err(corrupt(at, "the archive ends inside an entry"));
    }
    Ok(out)
}

/// At most `most` bytes (fewer where the input ends).
fn take_most(r: &mut dyn Read, most: u64, at: u64) -> Result<Vec<u8>, Refusal> {
    let mut out = Vec::new();
    r.take(most)
        .read_to_end(&mut out)
        .map_err(|e| failed(at, &e))?;
    Ok(out)
}

/// The pax records of `data` into `into` (`path`, `linkpath`, `size`).
fn pax(data: &[u8], into: &mut Pending, at: u64) -> Result<(), Refusal> {
    let mut rest = data;
    while !rest.is_empty() {
        let space = rest
            .iter()
            .position(|&b| b == b' ')
            .ok_or_else(|| corrupt(at, "a pax record without a length"))?;
        let len: usize = core::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|t| t.parse().ok())
            .filter(|&n| n > space + 1 && n <= rest.len())
            .ok_or_else(|| corrupt(at, "a pax record whose length is wrong"))?;
        let record = &rest[space + 1..len];
        rest = &rest[len..];
        let record = record
            .strip_suffix(b"\n")
            .ok_or_else(|| corrupt(at, "a pax record without its newline"))?;
        let eq = record
            .iter()
            .position(|&b| b == b'=')
            .ok_or_else(|| corrupt(at, "a pax record without '='"))?;
        let (key, value) = (&record[..eq], record[eq + 1..].to_vec());
        match key {
            b"path" => into.path = Some(value),
            b"linkpath" => into.linkpath = Some(value),
            b"size" => {
                into.size = core::str::from_utf8(&value)
                    .ok()
                    .and_then(|t| t.parse().ok())
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether `short` (a ustar field) is what a writer puts there for the long `name`: `name`
/// itself, its first 99 bytes or more (GNU), or that with each non-ASCII character as `?`
/// (Python's tarfile, pax format).
fn fits(short: &[u8], name: &[u8]) -> bool {
    if short == name || short.is_empty() {
        return true;
    }
    if name.starts_with(short) && short.len() >= 99 {
        return true;
    }
    let ascii: Vec<u8> = String::from_utf8_lossy(name)
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { b'?' })
        .collect();
    ascii.starts_with(short) && short.len() >= 99.min(ascii.len())
}

/// The entries of the tar read from `r`, or why it is refused.
pub(super) fn entries(r: &mut dyn Read, limits: &Limits) -> Result<Vec<Entry>, Refusal> {
    let (mut out, mut at, mut total) = (Vec::new(), 0u64, 0u64);
    let (mut next, mut global, mut long) =
        (Pending::default(), Pending::default(), Pending::default());
    let mut header = [0u8; 512];
    loop {
        match fill(r, &mut header, at)? {
            // No end-of-archive blocks: extractors read what is there.
            0 if at > 0 => return Ok(out),
            512 => {}
            _ => return Err(corrupt(at, "the archive ends inside a header")),
        }
        if header.iter().all(|&b| b == 0) {
            // The end: what follows must be zeros (an extractor that skips zero blocks, as
            // `tar -i` does, would read entries no other sees).
            let mut tail = [0u8; 8192];
            loop {
                let n = fill(r, &mut tail, at)?;
                if n == 0 {
                    return Ok(out);
                }
                if tail[..n].iter().any(|&b| b != 0) {
                    return Err(corrupt(
                        at,
                        "bytes after the end of the archive (entries only some extractors read)",
                    ));
                }
            }
        }
        let sum: u64 = header
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u64::from(b)
                }
            })
            .sum();
        if number(&header[148..156]) != Some(sum) {
            return Err(corrupt(at, "a header whose checksum is wrong"));
        }
        let size = number(&header[124..136])
            .ok_or_else(|| corrupt(at, "a header whose size is not a number"))?;
        let kind = header[156];
        let data_at = at + 512;
        let padded = size.div_ceil(512).saturating_mul(512);
        match kind {
            b'L' | b'K' | b'x' | b'g' => {
                if size > MAX_RECORD {
                    return Err((
                        FindingKind::LimitExceeded,
                        at as usize,
                        format!("a long-name or pax record of more than {MAX_RECORD} bytes"),
                    ));
                }
                let data = take(r, padded, data_at)?;
                let data = &data[..size as usize];
                match kind {
                    b'L' => long.path = Some(field(data).to_vec()),
                    b'K' => long.linkpath = Some(field(data).to_vec()),
                    b'x' => pax(data, &mut next, data_at)?,
                    _ => pax(data, &mut global, data_at)?,
                }
                at = data_at + padded;
                continue;
            }
            _ => {}
        }
        if out.len() >= limits.max_entries {
            return Err((
                FindingKind::LimitExceeded,
                at as usize,
                format!("more than {} archive entries", limits.max_entries),
            ));
        }
        let ustar = field(&header[0..100]);
        let prefix = if &header[257..263] == b"ustar\0" {
            field(&header[345..500])
        } else {
            b""
        };
        let ustar = if prefix.is_empty() {
            ustar.to_vec()
        } else {
            [prefix, b"/", ustar].concat()
        };
        let ustar_link = field(&header[157..257]).to_vec();
        let mut ambiguity = None;
        let readings = |own: &Option<Vec<u8>>,
                        gnu: &Option<Vec<u8>>,
                        global: &Option<Vec<u8>>,
                        short: &[u8]| {
            let chosen = own
                .clone()
                .or_else(|| gnu.clone())
                .unwrap_or_else(|| short.to_vec());
            let disagree = [own, gnu]
                .iter()
                .filter_map(|r| r.as_ref())
                .any(|r| *r != chosen)
                || !fits(short, &chosen)
                || global
                    .as_ref()
                    .is_some_and(|g| own.is_none() && *g != chosen);
            (chosen, disagree)
        };
        let (name, bad_name) = readings(&next.path, &long.path, &global.path, &ustar);
        let (link, bad_link) = readings(
            &next.linkpath,
            &long.linkpath,
            &global.linkpath,
            &ustar_link,
        );
        if bad_name {
            ambiguity = Some(format!(
                "its ustar name {:?}, GNU long name and pax path (per entry or global) disagree",
                String::from_utf8_lossy(&ustar)
            ));
        } else if bad_link {
            ambiguity = Some("its ustar link name, GNU long link and pax linkpath disagree".into());
        } else if next.size.is_some_and(|s| s != size) {
            ambiguity = Some(
                "its pax size and header size disagree: extractors find different entries after it"
                    .into(),
            );
        }
        if name.len() > limits.max_name || link.len() > limits.max_name {
            return Err((
                FindingKind::LimitExceeded,
                at as usize,
                format!("an entry name of more than {} bytes", limits.max_name),
            ));
        }
        let size = next.size.unwrap_or(size);
        total = total.saturating_add(size);
        if total > limits.max_total {
            return Err((
                FindingKind::LimitExceeded,
                at as usize,
                format!("entries of more than {} bytes in all", limits.max_total),
            ));
        }
        let is_link = matches!(kind, b'1' | b'2');
        let padded = size.div_ceil(512).saturating_mul(512);
        // The first bytes say whether it is an archive; the rest is read only if it is one.
        let head = take_most(r, size.min(nested::head_len(limits)), data_at)?;
        let mut read = head.len() as u64;
        let mut whole = |_: u64| {
            let rest = take_most(r, size - head.len() as u64, data_at).ok()?;
            read += rest.len() as u64;
            Some([&head[..], &rest].concat())
        };
        let (mut nested, mut text) = (None, None);
        if !is_link && kind != b'5' {
            nested = nested::nested(&name, size, Some(&head), limits, &mut whole);
            if nested.is_none() {
                text = nested::text(size, Some(&head), limits, &mut whole);
            }
        }
        out.push(Entry {
            name,
            ambiguity,
            link: is_link.then_some(link),
            nested,
            text,
        });
        let skipped = std::io::copy(&mut r.take(padded - read), &mut std::io::sink())
            .map_err(|e| failed(data_at, &e))?;
        if read + skipped != padded {
            return Err(corrupt(data_at, "the archive ends inside an entry"));
        }
        at = data_at + padded;
        next = Pending::default();
        long = Pending::default();
    }
}
