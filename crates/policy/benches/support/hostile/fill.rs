//! Fillers of `hostile.rs`: repeated units, clean text, noise, gzip.

use std::io::Write as _;

/// `prefix`, `unit` repeated as many whole times as fit, `pad` bytes to fill, `suffix`:
/// exactly `size` bytes (or the prefix and suffix alone when they do not fit).
pub fn framed(prefix: &[u8], unit: &[u8], pad: &[u8], suffix: &[u8], size: usize) -> Vec<u8> {
    let room = size.saturating_sub(prefix.len() + suffix.len());
    let mut out = Vec::with_capacity(size.max(prefix.len() + suffix.len()));
    out.extend_from_slice(prefix);
    let unit = if unit.is_empty() { pad } else { unit };
    for _ in 0..room / unit.len() {
        out.extend_from_slice(unit);
    }
    out.extend(pad.iter().cycle().take(room % unit.len()));
    out.extend_from_slice(suffix);
    out
}

/// A deterministic xorshift generator: the same bytes on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "and",
    "of",
    "request",
    "gateway",
    "Grüße",
    "aus",
    "Köln",
    "déjà",
    "vu",
    "façade",
    "São",
    "Paulo",
    "Привет",
    "мир",
    "こんにちは",
    "世界",
    "日本語",
    "Καλή",
    "μέρα",
    "안녕하세요",
    "नमस्ते",
    "café",
    "naïve",
];

/// Valid NFC text with no finding, of random words (compressible as text is, not more:
/// a coded twin stays under `max_expansion_ratio`), exactly `size` bytes.
pub fn clean_text(size: usize) -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::with_capacity(size + 32);
    let mut line = 0;
    while out.len() < size {
        let word = WORDS[rng.below(WORDS.len())];
        out.extend_from_slice(word.as_bytes());
        line += word.len() + 1;
        out.push(if line > 72 { b'\n' } else { b' ' });
        if line > 72 {
            line = 0;
        }
    }
    while out.len() > size {
        out.pop();
    }
    // Cut at a character boundary, then padded with spaces.
    while std::str::from_utf8(&out).is_err() {
        out.pop();
    }
    out.resize(size, b' ');
    out
}

/// ASCII letters and digits: the clean filler of JSON strings, form values and parts.
fn clean_ascii(size: usize) -> Vec<u8> {
    let text = clean_text(size);
    text.iter()
        .map(|&b| if b.is_ascii_alphanumeric() { b } else { b'x' })
        .collect()
}

/// `prefix`, ASCII letters, `suffix`: exactly `size` bytes.
pub(super) fn clean_framed(prefix: &[u8], suffix: &[u8], size: usize) -> Vec<u8> {
    let letters = clean_ascii(size.saturating_sub(prefix.len() + suffix.len()));
    framed(prefix, &letters, b"a", suffix, size)
}

/// `unit` repeated, one byte in 16 a random letter (so that deflate compresses it as it does
/// text, under `max_expansion_ratio`), exactly `size` bytes.
pub(super) fn noisy(unit: &[u8], size: usize) -> Vec<u8> {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(size + unit.len());
    while out.len() < size {
        if rng.below(16) == 0 {
            out.push(b'a' + rng.below(26) as u8);
        } else {
            out.extend_from_slice(unit);
        }
    }
    out.truncate(size);
    out
}

/// `bytes` gzip-coded (level 6).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("in memory");
    e.finish().expect("in memory")
}
