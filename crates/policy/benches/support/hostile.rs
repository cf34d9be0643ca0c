//! Hostile requests and their clean twins (issue 23): bodies (and heads) whose cost per byte is
//! the highest each decoding layer and check allows, each beside a clean request of the same
//! size, type and shape, for the `hostile` bench group, `examples/hostile.rs` (which writes
//! them for `bench/hostile.sh` and measures peak allocation) and tests. Deterministic: the same
//! bytes on every run. Included with `#[path]`; it needs `utf8gate_policy` and `flate2`.
#![allow(unreachable_pub, dead_code)]

use utf8gate_policy::Request;

/// The size criterion measures (8 MiB, the server's default `max_body_bytes`, is too slow
/// for criterion before issue 23's fix).
pub const BENCH_SIZE: usize = 1 << 20;
/// The size of an attack: the server's default `max_body_bytes`.
pub const ATTACK_SIZE: usize = 8 << 20;
/// Bytes of a head case's hostile target or headers: within the server's default
/// `max_header_bytes` (64 KiB) with room for the request line and the client's own headers.
pub const HEAD_BYTES: usize = 60 << 10;

/// One side of a case: what a client sends besides `Content-Type` and `Content-Encoding`.
pub struct Input {
    /// Path and query, as on the request line.
    pub target: Vec<u8>,
    /// Other headers (raw values; never `Content-Type`, `Content-Encoding` or `Host`).
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body as sent (coded when the case has a `Content-Encoding`).
    pub body: Vec<u8>,
}

impl Input {
    /// Bytes sent: target, header values and body.
    pub fn len(&self) -> usize {
        let headers: usize = self.headers.iter().map(|(n, v)| n.len() + v.len()).sum();
        self.target.len() + headers + self.body.len()
    }
}

/// A hostile request and its clean twin: the same type, size and shape, without findings.
pub struct Case {
    /// Stable name (a file name: `[a-z0-9-]`).
    pub name: &'static str,
    /// What it attacks.
    pub what: &'static str,
    /// `Content-Type`, or `""` for none.
    pub content_type: &'static str,
    /// `Content-Encoding`, if the body is coded.
    pub content_encoding: Option<&'static str>,
    /// The profile it is evaluated under: a built-in's name, or the `name` of `profile_toml`.
    pub profile: &'static str,
    /// A profile file's text, when `profile` is not built in.
    pub profile_toml: Option<&'static str>,
    /// The hostile request.
    pub hostile: Input,
    /// Its clean twin.
    pub clean: Input,
}

impl Case {
    /// The profile the case is evaluated under.
    pub fn profile(&self) -> utf8gate_policy::Profile {
        match self.profile_toml {
            Some(text) => utf8gate_policy::Profile::from_toml(text, "hostile.rs").expect("valid"),
            None => utf8gate_policy::Profile::built_in(self.profile).expect("built in"),
        }
    }

    /// `input` as the policy request the proxy would evaluate.
    pub fn request(&self, input: &Input) -> Request {
        let mut r = Request::new("POST", &input.target);
        r.headers.push(("Host".into(), b"localhost".to_vec()));
        if !self.content_type.is_empty() {
            r.headers
                .push(("Content-Type".into(), self.content_type.as_bytes().to_vec()));
        }
        if let Some(coding) = self.content_encoding {
            r.headers
                .push(("Content-Encoding".into(), coding.as_bytes().to_vec()));
        }
        (r.headers).extend(input.headers.iter().map(|(n, v)| (n.into(), v.clone())));
        r.body = input.body.clone().into();
        r
    }

    /// Whether the case is in its body (heads are not read by uploads and scans).
    pub fn in_body(&self) -> bool {
        !self.hostile.body.is_empty()
    }

    /// Whether `/v1/scan` streams this body through `BodyScan` (text and octet streams).
    pub fn streamable(&self) -> bool {
        self.in_body()
            && (self.content_type.is_empty()
                || self.content_type.starts_with("text/")
                || self.content_type == "application/octet-stream")
    }
}

/// Every case, by name, in the order they are reported.
pub const NAMES: &[&str] = &[
    "text-c0ae",
    "text-overlong-nul",
    "text-continuation",
    "text-cesu8",
    "text-bidi",
    "text-nul",
    "text-control",
    "text-alt-c0ae-41",
    "text-alt-80-41",
    "text-bom",
    "text-bom-controls",
    "text-lookalike",
    "text-noncharacter",
    "text-not-nfc",
    "text-combining",
    "text-combining-reorder",
    "text-json-continuation",
    "lossy-continuation",
    "json-nul-escapes",
    "json-surrogate-escapes",
    "json-control-escapes",
    "json-continuation",
    "json-many-strings",
    "json-long-pointer",
    "json-over-string-cap",
    "json-identities",
    "json-duplicate-keys",
    "json-escaped-isolated",
    "json-dotted-strings",
    "json-proof-fails-last",
    "json-pointers-proof-fails",
    "json-escaped-quotes",
    "json-newline-escapes",
    "json-dot-slash-strings",
    "json-accented-keys",
    "xml-nul-references",
    "xml-many-attributes",
    "xml-many-elements",
    "xml-deep-controls",
    "form-json-values",
    "multipart-json-parts",
    "yaml-nul-escapes",
    "yaml-aliases",
    "yaml-deep-flow",
    "yaml-tiny-scalars",
    "form-nul",
    "form-c0ae",
    "form-bare-percent",
    "form-double-encoding",
    "form-iis",
    "form-tiny-fields",
    "multipart-nul-parts",
    "multipart-header-lines",
    "multipart-repeated-headers",
    "multipart-nested-parts",
    "gzip-continuation",
    "head-path",
    "head-query",
    "head-header-bytes",
    "head-cookies",
    "head-cookie-escapes",
    "head-forwarded-hosts",
];

/// Every case at `size` bytes of body.
pub fn cases(size: usize) -> Vec<Case> {
    NAMES
        .iter()
        .map(|n| case(n, size).expect("listed"))
        .collect()
}

const TEXT: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";
const XML: &str = "application/xml";
const FORM: &str = "application/x-www-form-urlencoded";
const YAML: &str = "application/yaml";
const MULTIPART: &str = "multipart/form-data; boundary=hostile-bench-boundary";
const BOUNDARY: &[u8] = b"hostile-bench-boundary";
/// JSON strings in the many-strings cases: under the default `max_json_strings` (100 000).
const JSON_STRINGS: usize = 90_000;
/// Parts in the multipart case: under the default `max_multipart_parts` (100).
const PARTS: usize = 99;

/// The case `name` at `size` bytes of body (head cases: `HEAD_BYTES` of target or headers).
pub fn case(name: &str, size: usize) -> Option<Case> {
    let (name, what, content_type, profile) = NAMES
        .iter()
        .find(|&&n| n == name)
        .map(|&n| (n, describe(n), content_type(n), profile(n)))?;
    let (hostile, clean) = match name.split_once('-')? {
        ("text", "json-continuation") => twins(
            framed(b"\"", b"\x80", b"a", b"\"", size),
            clean_framed(b"\"", b"\"", size),
        ),
        ("text", _) | ("lossy", _) => twins(body(name, size), clean_text(size)),
        ("json", "accented-keys") | ("multipart", "nested-parts") => reading(name, size),
        ("json", _) => json(name, size),
        ("xml", _) => xml(name, size),
        ("form", _) => form(name, size),
        ("multipart", _) => multipart(name, size),
        ("yaml", _) => yaml(name, size),
        ("gzip", _) => twins(gzip(&noisy(b"\x80", size)), gzip(&clean_text(size))),
        _ => head(name),
    };
    let content_encoding = name.starts_with("gzip").then_some("gzip");
    Some(Case {
        name,
        what,
        content_type,
        content_encoding,
        profile,
        profile_toml: (profile == "identity").then_some(IDENTITY_PROFILE),
        hostile,
        clean,
    })
}

fn describe(name: &str) -> &'static str {
    match name {
        "text-c0ae" => "overlong '.' (C0 AE), 1 finding / 2 bytes",
        "text-overlong-nul" => "overlong NUL (C0 80): overlong + nul, 2 findings / 2 bytes",
        "text-continuation" => "lone continuation bytes (80), 1 finding / byte",
        "text-cesu8" => "CESU-8 pairs (ED A0 BD ED B8 80)",
        "text-bidi" => "U+202E (valid UTF-8, logged in bodies), 1 finding / 3 bytes",
        "text-nul" => "NUL bytes, 1 finding / byte",
        "text-control" => "C0 control 01 (logged in bodies), 1 finding / byte",
        "text-alt-c0ae-41" => "C0 AE 41: no two findings adjacent",
        "text-alt-80-41" => "80 41: no two findings adjacent",
        "text-bom" => "U+FEFF repeated: a stripped BOM, then misplaced_bom / 3 bytes",
        "text-bom-controls" => "a BOM (stripped: the field is rewritten), then 01 bytes (logged)",
        "text-lookalike" => "U+FF0E fullwidth full stop (lookalike), 1 finding / 3 bytes",
        "text-noncharacter" => "U+FDD0 noncharacter, 1 finding / 3 bytes",
        "text-not-nfc" => "'e' U+0301 (NFD): the whole body normalized",
        "text-combining" => "'a' then U+0301 to the end: one combining run",
        "text-combining-reorder" => "'a' then U+0316 U+0301 alternating: a run to reorder",
        "text-json-continuation" => "text/plain '\"' 80.. '\"': read as text and as JSON",
        "lossy-continuation" => "lone continuation bytes under `lossy`: each replaced",
        "json-nul-escapes" => "one JSON string of \\u0000 escapes",
        "json-surrogate-escapes" => "one JSON string of \\ud800 escapes (lone surrogates)",
        "json-control-escapes" => "one JSON string of \\b escapes, 1 finding / 2 bytes",
        "json-continuation" => "one JSON string of raw 80 bytes, 1 finding / byte",
        "json-many-strings" => "90 000 JSON strings of \\u0000 escapes",
        "json-long-pointer" => "90 000 JSON strings under a 1 000-byte key (long pointers)",
        "json-over-string-cap" => "more JSON strings than max_json_strings",
        "json-identities" => "[{\"u\": fullwidth username}, ...] under an identity profile",
        "json-duplicate-keys" => {
            "one object of 45 000 members, every key \"k\" (twin: k0, k1, ...)"
        }
        "json-escaped-isolated" => {
            "one JSON string of \\u05d1\\u0922 escapes: each checked alone (twin: raw)"
        }
        "json-dotted-strings" => {
            "90 000 JSON strings of a.b\\/ (decoded, traversal-checked one by one; twin: ab)"
        }
        "json-proof-fails-last" => {
            "90 000 clean JSON strings, the last one \\u0000: proven, then read as fields"
        }
        "json-pointers-proof-fails" => {
            "90 000 strings under a 1 000-byte key, the last a \\u0000 (no proof)"
        }
        "json-escaped-quotes" => "one JSON string of \\\" escapes: proven, one escape / 2 bytes",
        "json-newline-escapes" => {
            "one JSON string of \\n escapes: proven, each escape's letter read alone"
        }
        "json-dot-slash-strings" => {
            "90 000 JSON strings of a./b (each may hold a dot-segment: traversal-checked; twin: ab)"
        }
        "json-accented-keys" => "45 000 members, keys e-acute and a number (twin: k0, k1, ...)",
        "multipart-nested-parts" => {
            "99 form fields typed multipart/mixed, each read as parts (twin: text/plain)"
        }
        "xml-nul-references" => "<r> then &#0; to the end: 1 nul / 4 bytes",
        "xml-many-attributes" => "one element of 45 000 attributes, each value &#0; (twin: abcd)",
        "xml-many-elements" => "<a/> repeated, past max_json_strings fields (twin: one text)",
        "xml-deep-controls" => "60 levels, then <t> of 48 &#1; repeated (twin: abcd)",
        "form-json-values" => "1 000 form values that are JSON objects (twin: plain values)",
        "multipart-json-parts" => "99 parts typed application/json (twin: text/plain)",
        "yaml-nul-escapes" => "one YAML double-quoted scalar of \\0 escapes (twin: letters)",
        "yaml-aliases" => "an anchor, then a flow sequence of *a aliases (twin: long plain items)",
        "yaml-deep-flow" => "flow sequences nested 60 deep, repeated (twin: 120-letter items)",
        "yaml-tiny-scalars" => "a: [a,a,...]: past max_json_strings scalars (twin: one scalar)",
        "form-nul" => "one form value of %00 escapes",
        "form-c0ae" => "one form value of %c0%ae escapes",
        "form-bare-percent" => "one form value of bare '%', 1 malformed_escape / byte",
        "form-double-encoding" => "one form value of %2525, 1 double_encoding / 5 bytes",
        "form-iis" => "one form value of %u002e, 1 iis_unicode_escape / 6 bytes",
        "form-tiny-fields" => "a=%00& repeated (past max_parameters)",
        "multipart-nul-parts" => "99 parts of NUL bytes",
        "multipart-header-lines" => "one part with 'a:' header lines",
        "multipart-repeated-headers" => "one part: 'a:' lines, then repeated content-type lines",
        "gzip-continuation" => "gzip of 80 bytes with a random letter 1 in 16",
        "head-path" => "path of %c0%ae/ segments (60 KiB)",
        "head-query" => "query value of bare '%' (60 KiB)",
        "head-header-bytes" => "50 headers of 80 bytes (obs-text, 60 KiB)",
        "head-cookies" => "50 Cookie headers of a=%00; pairs (60 KiB)",
        "head-cookie-escapes" => {
            "50 Cookie headers of one quoted value of \\101 escapes, each unquoted (twin: AAAA)"
        }
        "head-forwarded-hosts" => {
            "50 X-Forwarded-Host lists of xn-- hosts, each decoded by IDNA (twin: ASCII hosts)"
        }
        _ => "",
    }
}

fn content_type(name: &str) -> &'static str {
    match name.split_once('-').map_or("", |(kind, _)| kind) {
        "json" => JSON,
        "xml" => XML,
        "form" => FORM,
        "multipart" => MULTIPART,
        "yaml" => YAML,
        "head" => "",
        _ => TEXT,
    }
}

fn profile(name: &str) -> &'static str {
    match name {
        "json-identities" => "identity",
        _ if name.starts_with("lossy") => "lossy",
        _ => "strict",
    }
}

/// The profile of `json-identities`: `strict` with every `u` member of the top-level array's
/// objects a username, rewritten to its enforced form.
pub const IDENTITY_PROFILE: &str = r#"name = "identity"

[[identity]]
json = "/*/u"
kind = "username"
action = "rewrite"
"#;

fn text_unit(name: &str) -> &'static [u8] {
    match name {
        "text-c0ae" => b"\xC0\xAE",
        "text-overlong-nul" => b"\xC0\x80",
        "text-continuation" | "lossy-continuation" => b"\x80",
        "text-cesu8" => b"\xED\xA0\xBD\xED\xB8\x80",
        "text-bidi" => "\u{202E}".as_bytes(),
        "text-nul" => b"\0",
        "text-control" => b"\x01",
        "text-bom-controls" => b"\x01",
        "text-alt-c0ae-41" => b"\xC0\xAEA",
        "text-alt-80-41" => b"\x80A",
        "text-bom" => "\u{FEFF}".as_bytes(),
        "text-lookalike" => "\u{FF0E}".as_bytes(),
        "text-noncharacter" => "\u{FDD0}".as_bytes(),
        "text-not-nfc" => "e\u{301} ".as_bytes(),
        "text-combining" => "\u{301}".as_bytes(),
        "text-combining-reorder" => "\u{316}\u{301}".as_bytes(),
        _ => b"\x80",
    }
}

/// The text cases' bodies: their unit repeated (after a base letter for combining marks, a BOM
/// for `text-bom-controls`), padded with spaces to exactly `size` bytes.
fn body(name: &str, size: usize) -> Vec<u8> {
    let unit = text_unit(name);
    let prefix: &[u8] = match name {
        "text-combining" | "text-combining-reorder" => b"a",
        "text-bom-controls" => "\u{FEFF}".as_bytes(),
        _ => b"",
    };
    framed(prefix, unit, b" ", b"", size)
}

fn twins(hostile: Vec<u8>, clean: Vec<u8>) -> (Input, Input) {
    let input = |body| Input {
        target: b"/upload".to_vec(),
        headers: Vec::new(),
        body,
    };
    (input(hostile), input(clean))
}

#[path = "hostile/documents.rs"]
mod documents;
#[path = "hostile/fill.rs"]
mod fill;
#[path = "hostile/readings.rs"]
mod readings;
#[path = "hostile/shapes.rs"]
mod shapes;
use documents::xml;
use fill::{clean_framed, noisy};
pub use fill::{clean_text, framed, gzip};
use readings::reading;
use shapes::{form, head, json, multipart, yaml};
