//! One line per request of a seeded random corpus: its verdict (decision, findings with their
//! offsets, counts) and a hash of the sanitized request. `tools/wasm-verdicts.sh` runs it
//! natively and as Wasm (with `simd128`, under Node's WASI) and requires the same lines: the
//! vector builds of each target (AVX2 or AVX-512 here, `simd128` there) and the portable loops
//! decide alike.
//!
//! The text of each request mixes characters drawn from every range of code points (ASCII,
//! two-, three- and four-byte forms, the classifier's lead bytes each with every continuation),
//! known tricks, and now and then a malformed byte; it goes into the body (plain text, a JSON
//! string, a form value), the query, a header and the path, under the strict, lossy and
//! Windows-backend profiles.
//!
//! usage: `verdict_lines [REQUESTS]` (default 4000)

use utf8gate_policy::{Profile, Request, evaluate};

/// xorshift64: the same sequence on every target.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const TRICKS: &[&str] = &[
    "e\u{301}",
    "\u{212b}",
    "\u{fb01}",
    "\u{ff0f}",
    "\u{2024}",
    "\u{2215}",
    "\u{202e}",
    "\u{feff}",
    "\u{200b}",
    "\u{00ad}",
    "\u{0085}",
    "\u{7f}",
    "\u{1b}",
    "\u{0}",
    "\u{3099}",
    "\u{0f73}",
    "\u{1d160}",
    "\u{e0041}",
    "\u{fe52}",
    "\u{2460}",
    "..",
    "/",
    "\\",
    "%2e",
    "%C0%AE",
    "%00",
];

const MALFORMED: &[&[u8]] = &[
    b"\xC0\xAE",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xE2\x82",
    b"\xFF",
    b"\xC2",
    b"\xF0\x9F\x98",
    b"\xF8\x88\x80\x80\x80",
];

/// A character from one of the ranges, weighted towards what text holds.
fn character(rng: &mut Rng) -> char {
    let range = match rng.below(10) {
        0..=3 => 0x20..0x7F,
        4..=5 => 0x80..0x800,
        6..=8 => 0x800..0x10000,
        _ => 0x10000..0x110000,
    };
    let cp = range.start + rng.below(u64::from(range.end - range.start)) as u32;
    char::from_u32(cp).unwrap_or('\u{FFFD}')
}

fn text(rng: &mut Rng, out: &mut Vec<u8>) {
    let n = rng.below(600);
    // Runs of one script, as text has: a base code point and neighbours.
    let mut base = character(rng) as u32;
    for _ in 0..n {
        match rng.below(100) {
            0 => out.extend_from_slice(MALFORMED[rng.below(MALFORMED.len() as u64) as usize]),
            1..=3 => {
                out.extend_from_slice(TRICKS[rng.below(TRICKS.len() as u64) as usize].as_bytes())
            }
            4..=9 => base = character(rng) as u32,
            10..=39 => out.push(b" aeinost,."[rng.below(10) as usize]),
            _ => {
                let near = base.saturating_add(rng.below(64) as u32);
                let c = char::from_u32(near).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

fn percent(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("%{b:02X}")).collect()
}

fn main() {
    let requests: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let profiles = [
        Profile::strict(),
        Profile::lossy(),
        Profile::windows_backend(),
    ];
    for case in 0..requests {
        let mut t = Vec::new();
        text(&mut rng, &mut t);
        let profile = &profiles[(case % 3) as usize];
        let request = match rng.below(6) {
            0 => Request::new("POST", b"/p")
                .body(&t)
                .header("content-type", b"text/plain"),
            1 => {
                let mut body = b"{\"k\":\"".to_vec();
                body.extend_from_slice(&t);
                body.extend_from_slice(b"\"}");
                Request::new("POST", b"/p")
                    .body(&body)
                    .header("content-type", b"application/json")
            }
            2 => {
                let body = format!("a={}", percent(&t));
                let form = b"application/x-www-form-urlencoded";
                Request::new("POST", b"/p")
                    .body(body.as_bytes())
                    .header("content-type", form)
            }
            3 => Request::new("GET", format!("/p?q={}", percent(&t)).as_bytes()),
            4 => Request::new("GET", b"/p").header("x-note", &t),
            _ => {
                let target = [b"/files/".as_slice(), percent(&t).as_bytes()].concat();
                Request::new("GET", &target)
            }
        };
        let request = request.header("host", b"example.test");
        let evaluation = evaluate(profile, &request);
        let v = &evaluation.verdict;
        let findings: Vec<_> = v
            .findings
            .iter()
            .map(|f| (f.kind.as_str(), f.offset))
            .collect();
        let sanitized = evaluation.sanitized.map(|s| {
            let bytes = [s.target(), s.body.to_vec()].concat();
            bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            })
        });
        println!(
            "{case} {} {findings:?} {:?} {sanitized:?}",
            v.decision.as_str(),
            v.counts
        );
    }
}
