//! A profile's `[limits]`: bounds on the work one evaluation may do.

use serde::Deserialize;

/// Bounds on the work one evaluation may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Deepest JSON (and YAML) nesting, and XML element nesting, parsed (default 64).
    pub max_json_depth: usize,
    /// Most JSON strings, YAML scalars, or XML names and texts, inspected in one body (default
    /// 100 000).
    pub max_json_strings: usize,
    /// Most multipart parts (default 100).
    pub max_multipart_parts: usize,
    /// Deepest multipart nesting read: 1 reads the body's parts only, 2 (default) also the
    /// parts of a part typed `multipart/*` (RFC 2388 §5.5's files of one form field); one
    /// deeper is `limit_exceeded` at its part.
    pub max_multipart_depth: usize,
    /// Most query or form parameters, and most cookies of one request, all its `Cookie` lines
    /// together (default 1 000).
    pub max_parameters: usize,
    /// Most findings listed in a verdict; counts stay exact (default 100).
    pub max_findings: usize,
    /// Longest run of combining characters before `excessive_combining` (UAX #15: 30).
    pub max_nonstarters: usize,
    /// Most bytes a coded body may decode to (default 8 MiB; the server also caps it at its
    /// `max_body_bytes`).
    pub max_decoded_bytes: usize,
    /// Most decoded bytes per coded byte, checked at the end of a body that decoded to over 64 KiB
    /// (default 200; deflate's own maximum is about 1 032).
    pub max_expansion_ratio: usize,
    /// Most content and transfer codings applied to one body (default 2).
    pub max_codings: usize,
    /// Most entries of one archive (default 65 534, the most a ZIP without ZIP64 holds).
    pub max_archive_entries: usize,
    /// Longest archive entry name or link target, in bytes (default 4096, Linux's `PATH_MAX`).
    pub max_archive_name_bytes: usize,
    /// Most bytes one archive's entries declare in all, uncompressed: what an extractor would
    /// write (default 4 GiB). An entry over 1 MiB may also expand at most
    /// `max_expansion_ratio` times, and nested archives inflate to at most `max_decoded_bytes`.
    pub max_archive_unpacked_bytes: u64,
    /// Deepest archive nesting read: 1 reads the archive only, 2 (default) also the archives in
    /// it; one deeper is `limit_exceeded` at its entry, never skipped.
    pub max_archive_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_json_depth: 64,
            max_json_strings: 100_000,
            max_multipart_parts: 100,
            max_multipart_depth: 2,
            max_parameters: 1_000,
            max_findings: 100,
            max_nonstarters: 30,
            max_decoded_bytes: 8 << 20,
            max_expansion_ratio: 200,
            max_codings: 2,
            max_archive_entries: 65_534,
            max_archive_name_bytes: 4096,
            max_archive_unpacked_bytes: 4 << 30,
            max_archive_depth: 2,
        }
    }
}
