//! Deterministic benchmark corpora: the same bytes on every run and every machine.
#![allow(unreachable_pub, dead_code)]

/// The scripts measured, by name.
pub const SCRIPTS: [&str; 6] = ["ascii-json", "latin", "cyrillic", "cjk", "emoji", "mixed"];

/// The sizes measured, in bytes.
pub const SIZES: [(&str, usize); 3] = [("1KiB", 1 << 10), ("64KiB", 64 << 10), ("1MiB", 1 << 20)];

const LATIN: &[&str] = &[
    "déjà",
    "vu",
    "über",
    "Straße",
    "façade",
    "naïve",
    "crème",
    "brûlée",
    "élève",
    "garçon",
    "Grüße",
    "schön",
    "año",
    "niño",
    "coração",
    "São",
    "Paulo",
    "the",
    "and",
    "of",
];
const CYRILLIC: &[&str] = &[
    "привет",
    "мир",
    "съешь",
    "же",
    "ещё",
    "этих",
    "мягких",
    "французских",
    "булок",
    "да",
    "выпей",
    "чаю",
    "Москва",
    "город",
];
const CJK: &[&str] = &[
    "你好",
    "世界",
    "日本語",
    "の",
    "テキスト",
    "中文",
    "漢字",
    "東京",
    "北京",
    "。",
    "，",
    "：",
    "電車",
    "ひらがな",
    "カタカナ",
];
const EMOJI: &[&str] = &[
    "😀",
    "🎉",
    "👍🏽",
    "👩‍💻",
    "🇫🇷",
    "🇯🇵",
    "❤️",
    "🧑‍🤝‍🧑",
    "🚀",
    "🌍",
    "👨‍👩‍👧‍👦",
    "✨",
];

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() % words.len() as u64) as usize]
    }
}

/// Valid UTF-8 text of `script`, exactly `size` bytes (padded with spaces at a char boundary).
pub fn text(script: &str, size: usize) -> Vec<u8> {
    let mut rng = SplitMix(0x5EED ^ size as u64);
    let mut out = String::with_capacity(size + 64);
    let mut record = 0u64;
    while out.len() < size {
        match script {
            "ascii-json" => {
                record += 1;
                out.push_str(&format!(
                    "{{\"id\":{record},\"name\":\"user{}\",\"tags\":[\"a\",\"b\"],\"ok\":true}}\n",
                    rng.next() % 10_000
                ));
            }
            "latin" => push_words(&mut out, &mut rng, LATIN),
            "cyrillic" => push_words(&mut out, &mut rng, CYRILLIC),
            "cjk" => out.push_str(rng.pick(CJK)),
            "emoji" => out.push_str(rng.pick(EMOJI)),
            _ => {
                record += 1;
                let words = [LATIN, CYRILLIC, CJK, EMOJI][(rng.next() % 4) as usize];
                out.push_str(&format!(
                    "{{\"id\":{record},\"text\":\"{}\"}}\n",
                    rng.pick(words)
                ));
            }
        }
    }
    let mut cut = size;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    out.truncate(cut);
    while out.len() < size {
        out.push(' ');
    }
    out.into_bytes()
}

fn push_words(out: &mut String, rng: &mut SplitMix, words: &[&str]) {
    out.push_str(rng.pick(words));
    out.push(' ');
}

/// `text(script, size)` with about 1% of its bytes replaced, at character boundaries, by
/// malformed sequences of every common kind.
pub fn one_percent_invalid(script: &str, size: usize) -> Vec<u8> {
    const BAD: &[&[u8]] = &[
        b"\xFF",
        b"\x80",
        b"\xC0\xAF",
        b"\xE0\x80\xAF",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xE2\x82",
        b"\xF0\x9F\x98",
    ];
    let clean = text(script, size);
    let mut rng = SplitMix(0xBAD ^ size as u64);
    let mut out = Vec::with_capacity(size + size / 50);
    let mut i = 0;
    while i < clean.len() {
        let gap = 60 + (rng.next() % 240) as usize;
        let mut end = (i + gap).min(clean.len());
        while end < clean.len() && clean[end] & 0xC0 == 0x80 {
            end += 1;
        }
        out.extend_from_slice(&clean[i..end]);
        i = end;
        if i < clean.len() {
            out.extend_from_slice(BAD[(rng.next() % BAD.len() as u64) as usize]);
        }
    }
    out
}
