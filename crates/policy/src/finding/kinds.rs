//! The finding kinds as one table: each row is a kind's name, severity, class, reference and
//! the plain-English words problem pages use. Profiles take their defaults from the class (a
//! reading kind is rejected by every built-in profile), metrics label by the name, and
//! `docs/verdict.md` and `docs/openapi.json` are checked against the table by tests. Adding a
//! kind is adding a row here, plus the code that finds it.

use serde::{Deserialize, Serialize};

/// How serious a finding is in itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Informational.
    Info,
    /// Worth a log line.
    Low,
    /// Suspicious.
    Medium,
    /// An encoding trick with no legitimate use.
    High,
    /// A known attack shape (overlong separators, traversal).
    Critical,
}

/// What family a kind belongs to: what its default actions are and what a report says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindClass {
    /// Bytes that are not UTF-8 (from the codec): the bytes are shown with what a lax decoder
    /// reads there.
    Malformed,
    /// A character or escape that some reader turns into something else (a lookalike, an IIS
    /// `%u` escape): the bytes and that reading are shown.
    Disguise,
    /// A valid character that is a problem in itself (NUL, controls, BOMs): the bytes are shown.
    Character,
    /// Two readings of one request, or a layer utf8gate does not read: no rewrite fixes it,
    /// every built-in profile rejects it.
    Reading,
    /// An identity field (`[[identity]]`): its action is the identity table's.
    Identity,
    /// Everything else (escapes, structure, limits, normalization).
    Other,
}

macro_rules! kinds {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $severity:ident, $class:ident, $reference:literal,
        $what:literal; )*) => {
        /// What a finding is about. A closed set; every kind is documented in `docs/verdict.md`
        /// with its reference.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum FindingKind {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl FindingKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$variant),*];

            /// The kind's position in [`FindingKind::ALL`].
            pub(crate) const fn index(self) -> usize {
                self as usize
            }

            /// The stable snake_case name (`"overlong"`, `"double_encoding"`, ...).
            pub const fn as_str(self) -> &'static str {
                match self { $(FindingKind::$variant => $name,)* }
            }

            /// How serious the kind is in itself, before any profile decides what to do.
            pub const fn severity(self) -> Severity {
                match self { $(FindingKind::$variant => Severity::$severity,)* }
            }

            /// The kind's family.
            pub const fn class(self) -> KindClass {
                match self { $(FindingKind::$variant => KindClass::$class,)* }
            }

            /// The standard or incident this kind is about.
            pub const fn reference(self) -> &'static str {
                match self { $(FindingKind::$variant => $reference,)* }
            }

            /// What a finding of this kind is, in plain English, after its subject ("The path"
            /// + "contains an overlong UTF-8 sequence").
            pub const fn sentence(self) -> &'static str {
                match self { $(FindingKind::$variant => $what,)* }
            }

            /// The first line of the kind's documentation, as `docs/verdict.md` shows it.
            #[cfg(test)]
            pub(crate) fn doc(self) -> String {
                let docs: &[&[&str]] = &[$(&[$($doc),*]),*];
                docs[self.index()].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
            }
        }
    };
}

kinds! {
    /// Overlong form of a shorter value (`C0 AE`). From the codec.
    Overlong = "overlong", Critical, Malformed, "RFC 3629 §3, §10",
        "contains an overlong UTF-8 sequence";
    /// Lone UTF-16 surrogate in UTF-8 (`ED A0 80`).
    Surrogate = "surrogate", High, Malformed, "RFC 3629 §3",
        "contains a UTF-16 surrogate encoded as UTF-8, which is not valid UTF-8";
    /// CESU-8 surrogate pair (`ED A0 BD ED B8 80`).
    Cesu8Pair = "cesu8_pair", High, Malformed, "RFC 3629 §3; Unicode TR #26",
        "contains a CESU-8 surrogate pair instead of a four-byte UTF-8 sequence";
    /// 4-byte sequence above U+10FFFF.
    AboveMax = "above_max", High, Malformed, "RFC 3629 §3",
        "contains a sequence above U+10FFFF, the last Unicode code point";
    /// 5- or 6-byte RFC 2279 form.
    LegacyForm = "legacy_form", High, Malformed, "RFC 3629 §3, §12",
        "contains a five- or six-byte sequence of the obsolete RFC 2279 form";
    /// `FE` or `FF`.
    InvalidByte = "invalid_byte", High, Malformed, "RFC 3629 §1",
        "contains a byte that never appears in UTF-8";
    /// Continuation byte where a character should start.
    UnexpectedContinuation = "unexpected_continuation", Medium, Malformed, "RFC 3629 §3, §4",
        "contains a continuation byte where a character should start";
    /// Sequence cut short.
    Truncated = "truncated", Medium, Malformed, "RFC 3629 §3, §4",
        "contains a UTF-8 sequence cut short";
    /// `%` not followed by two hex digits.
    MalformedEscape = "malformed_escape", Medium, Other, "RFC 3986 §2.1",
        "contains a '%' not followed by two hexadecimal digits";
    /// IIS-style `%uXXXX` escape.
    IisUnicodeEscape = "iis_unicode_escape", High, Disguise, "CVE-2000-0884 (IIS %u decoding)",
        "contains an IIS-style %u escape, which some servers decode";
    /// An escape that is still an escape after one decoding pass (`%252e`).
    DoubleEncoding = "double_encoding", High, Other, "CVE-2001-0333 (IIS double decoding); CWE-174",
        "contains a percent escape that is still an escape after decoding";
    /// `%2F` or `%5C` in a path: a separator the router does not see.
    EncodedSeparator = "encoded_separator", Medium, Other, "RFC 3986 §2.2, §7.3",
        "contains an encoded slash or backslash (%2F or %5C)";
    /// A dot-segment or separator that only the lax reading (overlongs decoded, a second
    /// percent-decoding pass, lookalikes folded) contains.
    Traversal = "traversal", Critical, Other, "RFC 3629 §10; CWE-22, CWE-176",
        "contains a '.' or '..' segment or a separator hidden by an encoding trick";
    /// A plain `.` or `..` segment after decoding.
    DotSegment = "dot_segment", Medium, Other, "RFC 3986 §3.3, §5.2.4; CWE-22",
        "contains a '.' or '..' segment";
    /// U+FEFF at the start of a body: a signature.
    Bom = "bom", Low, Character, "RFC 3629 §6",
        "starts with a byte order mark";
    /// U+FEFF anywhere a signature cannot be: ZERO WIDTH NO-BREAK SPACE.
    MisplacedBom = "misplaced_bom", Medium, Character, "RFC 3629 §6",
        "contains U+FEFF (zero width no-break space) inside the text";
    /// Text that is not in Normalization Form C.
    NotNfc = "not_nfc", Low, Other, "UAX #15; RFC 5198 §2",
        "contains text that is not in Unicode Normalization Form C";
    /// More than 30 non-starters in a row (UAX #15 stream-safe format).
    ExcessiveCombining = "excessive_combining", Medium, Other, "UAX #15 §13 (Stream-Safe Text Format)",
        "contains more than 30 combining marks in a row";
    /// A character whose NFC, NFKC or best-fit image is ASCII syntax.
    Lookalike = "lookalike", Medium, Disguise, "UTS #39; WorstFit (CVE-2024-4577)",
        "contains a character that some servers turn into ASCII syntax";
    /// NUL, raw or in any disguise.
    Nul = "nul", High, Character, "CWE-158",
        "contains a NUL character";
    /// A C0 or C1 control other than TAB, CR and LF.
    Control = "control", Medium, Character, "CWE-116",
        "contains a control character";
    /// Bidi embedding, override or isolate (Trojan Source).
    BidiControl = "bidi_control", High, Character, "CVE-2021-42574; UAX #9",
        "contains a bidirectional text control, which can make text read out of order";
    /// A noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF).
    Noncharacter = "noncharacter", Low, Character, "Unicode §23.7; Corrigendum #9",
        "contains a Unicode noncharacter";
    /// A JSON `\uXXXX` escape that forms a lone surrogate.
    EscapedSurrogate = "escaped_surrogate", High, Other, "RFC 8259 §8.2",
        "contains a JSON \\u escape of a lone surrogate";
    /// A body whose declared charset is not UTF-8 or US-ASCII.
    ForeignCharset = "foreign_charset", Medium, Other, "RFC 9110 §8.3.2",
        "declares a character set other than UTF-8";
    /// A body that does not parse as its content type says (JSON syntax, multipart framing).
    MalformedBody = "malformed_body", Medium, Other, "RFC 8259; RFC 7578",
        "does not parse as its content type says";
    /// A configured limit (size, depth, parts, findings) was reached; the rest was not inspected.
    LimitExceeded = "limit_exceeded", High, Other, "utf8gate limits",
        "goes past a configured limit, so the rest was not inspected";
    /// A header that must appear once (`Host`, `Content-Type`, a part's `Content-Disposition`)
    /// appears more than once, or `Content-Length` lines disagree: two readings of one request.
    RepeatedHeader = "repeated_header", High, Reading, "RFC 9110 §5.3; RFC 9112 §3.2, §6.3; RFC 7578 §4.2",
        "repeats a header that must appear once";
    /// A media-type or disposition parameter (`charset`, `boundary`, `name`, `filename`) given
    /// more than once: parsers disagree on which one counts.
    RepeatedParameter = "repeated_parameter", High, Reading, "RFC 9110 §5.6.6; RFC 7578 §4.2",
        "repeats a parameter that must appear once";
    /// A parameter that parsers read differently: RFC 2231 continuations, backslash escapes in
    /// a quoted string, an unterminated quote, `filename` and `filename*` that disagree.
    AmbiguousParameter = "ambiguous_parameter", High, Reading, "RFC 2231 §3; RFC 9110 §5.6.4; RFC 7578 §4.2",
        "has a parameter that parsers read differently";
    /// A `Host` that is not an ASCII reg-name, IPv4 address or IP literal with a numeric port
    /// (escapes, controls, non-ASCII: IDNs must arrive as A-labels).
    MalformedHost = "malformed_host", High, Reading, "RFC 9112 §3.2; RFC 3986 §3.2.2; RFC 5890 §2.3.2.1",
        "has a Host that is not a plain host name or address";
    /// A content or transfer coding utf8gate does not decode (or the profile refuses codings),
    /// codings stacked deeper than the limit, or a malformed coding list.
    UnsupportedCoding = "unsupported_coding", Medium, Reading, "RFC 9110 §8.4, §15.5.16",
        "uses a content or transfer coding utf8gate does not decode";
    /// A coded body that does not decode: a corrupt or truncated gzip, deflate or brotli
    /// stream, or bytes after its end.
    CorruptCoding = "corrupt_coding", High, Reading, "RFC 9110 §8.4.1; RFC 1950; RFC 1951; RFC 1952; RFC 7932",
        "has a compressed body that does not decompress";
    /// A multipart part with a `Content-Transfer-Encoding` other than 7bit, 8bit or binary.
    TransferEncodedPart = "transfer_encoded_part", High, Reading, "RFC 7578 §4.7; RFC 2045 §6",
        "has a multipart part with a transfer encoding";
    /// A `Content-Type` that backends read differently from RFC 9110's one reading: not one
    /// `type/subtype; params` (a comma list, junk after the type, a parameter without a
    /// value), a `charset=` inside another parameter or after a comma (where a charset-searching
    /// backend finds it), or a type a prefix-matching backend reads as a form, multipart or JSON.
    AmbiguousMediaType = "ambiguous_media_type", High, Reading, "RFC 9110 §8.3.1, §5.6.6; WAFFLED (ACSAC 2025)",
        "has a Content-Type that backends read as different media types or charsets";
    /// A header name that is not an RFC 9110 token (a NUL, a control, a space), or that a
    /// CGI/WSGI backend reads as another name once `-` and `_` are the same
    /// (`Content_Type` beside `Content-Type`, or a lone underscore spelling of `Host`,
    /// `Content-Type`, `Content-Length`, `Transfer-Encoding`); in the head or a multipart part.
    AmbiguousHeaderName = "ambiguous_header_name", High, Reading, "RFC 9110 §5.1, §5.6.2; RFC 3875 §4.1.18",
        "has a header name that backends read as another header, or that is not a token";
    /// Both `Content-Length` and `Transfer-Encoding` (a front proxy may frame the body by one
    /// and the backend by the other: request smuggling; RFC 9112 lets a server refuse it), or
    /// `chunked` named twice.
    AmbiguousFraming = "ambiguous_framing", High, Reading, "RFC 9112 §6.1, §6.3; CWE-444",
        "has two framings (Content-Length and Transfer-Encoding, or chunked twice), which proxies and backends read differently";
    /// A key repeated in one JSON object once its escapes are decoded and it is in NFC (`"a"`
    /// and `"\u0061"`): some parsers keep the first value, others the last; a key Go's
    /// case folding reads as an ASCII key (U+017F, U+212A); under `json_keys = "go"`, keys
    /// equal under simple case folding.
    AmbiguousJsonKey = "ambiguous_json_key", High, Reading, "RFC 8259 §4; RFC 7493 §2.3; Unicode CaseFolding.txt",
        "has a JSON object with a key given twice, whose first or last value parsers keep";
    /// An XML document type declaration that declares entities or attribute defaults, or names
    /// an external DTD to load: parsers that expand or load it read text (or attributes) that
    /// no field of the document shows (XXE, billion laughs).
    XmlDoctype = "xml_doctype", High, Reading, "XML 1.0 §2.8, §4.2; CWE-611; CWE-776",
        "has an XML DOCTYPE whose entities or external DTD parsers expand into text no field shows";
    /// A YAML document with a second reading: a tag outside the core schema (`!!binary`,
    /// `!!python/object`, `!local`), a merge key `<<`, an alias (the application sees the
    /// anchored value twice), a key given twice in one mapping.
    AmbiguousYaml = "ambiguous_yaml", High, Reading, "YAML 1.2.2 §3.2.1.3, §6.9, §7.1, §10.3",
        "has a YAML tag, alias, merge key or repeated key that gives its text a second reading";
    /// An archive entry whose name reads two ways: a ZIP's local header and central directory
    /// disagree, its Info-ZIP Unicode Path field (0x7075) names another file than its header
    /// (CRC or not), a name not flagged UTF-8 (bit 11) holds non-ASCII bytes (CP437 or the
    /// extractor's code page), a tar's ustar, GNU long-name and PAX `path` readings disagree.
    AmbiguousArchiveName = "ambiguous_archive_name", High, Reading, "APPNOTE 6.3.10 §4.4.4, §4.6.9, Appendix D; POSIX pax; CVE-2025-62518",
        "has an archive entry whose name extractors read as different files";
    /// A `Cookie` pair that frameworks split or name differently: a quoted value that does not
    /// end in its pair (Werkzeug reads it across `;`, Django splits it), white space at an end of a name or value that Python's `str.strip` removes
    /// (Django reads `\u2000__Host-x` as `__Host-x`), a DQUOTE or backslash in a name, a `$`
    /// name (an RFC 2109 attribute to Tomcat and Jetty, a cookie to the rest).
    AmbiguousCookie = "ambiguous_cookie", High, Reading, "RFC 6265 §4.1.1, §5.4; RFC 2109 §4.4; PortSwigger, Cookie Chaos (2025)",
        "has a cookie that frameworks split or name differently (a quoted value across ';', white space Python strips, an RFC 2109 attribute)";
    /// A host that IDNA (UTS #46, the WHATWG URL parser) reads as another host: U+3002 or a
    /// full-width letter mapped, U+200B or U+00AD dropped, an `xn--` label that is not the
    /// A-label of what it decodes to; or a label that mixes scripts beyond UTS #39's highly
    /// restrictive level. In `Host`, forwarded hosts and the hosts of URL-valued headers and
    /// parameters.
    ConfusableHost = "confusable_host", High, Disguise, "UTS #46 §4; WHATWG URL §3.5; UTS #39 §5.2",
        "has a host that resolvers and URL parsers read as another host, or whose labels mix scripts";
    /// An identity field (`[[identity]]`) that its PRECIS profile would change: width, NFC,
    /// spaces (nicknames); the enforced form is in the message and the verdict's `identities`.
    IdentityNotEnforced = "identity_not_enforced", Medium, Identity, "RFC 8264 §7; RFC 8265 §3.4, §4.2; RFC 8266 §2",
        "has an identity field (a username, a nickname) not in its enforced PRECIS form";
    /// An identity field its PRECIS profile refuses: a disallowed code point (controls,
    /// symbols, compatibility characters such as U+017F), an empty value, the bidi rule.
    IdentityDisallowed = "identity_disallowed", High, Identity, "RFC 8264 §8, §9; RFC 5893 §2",
        "has an identity field with a character its PRECIS profile refuses";
    /// An identity field that another string matches under case-insensitive comparison with
    /// full case mapping (`ı` and `I`, `ß` and `SS`): upper-casing it then lower-casing it
    /// gives another string.
    IdentityCaseCollision = "identity_case_collision", High, Identity, "CVE-2019-19844; Unicode §5.18; RFC 8265 §3.3.1",
        "has an identity field that compares equal to another one when case is ignored";
    /// An identity field above its configured UTS #39 restriction level (`pаypal` with a
    /// Cyrillic `а`): the scripts are named.
    MixedScript = "mixed_script", High, Identity, "UTS #39 §5.2",
        "has an identity field that mixes scripts (a homograph such as a Cyrillic a in a Latin name)";
    /// The request was described by a proxy in string fields only (Envoy's gRPC `ext_authz`
    /// without `encode_raw_headers` or `pack_as_bytes`): invalid UTF-8 may already have been
    /// replaced before utf8gate saw it, so the checks ran blind. Set by the server
    /// ([`Request::string_fields_only`](crate::Request::string_fields_only)).
    StringFieldsOnly = "string_fields_only", High, Other, "CVE-2024-23324; envoyproxy/envoy#9822, #27386",
        "was described by the proxy in string fields only, which may hide invalid bytes";
    /// A body the check did not bring whole (cut by the front's buffer) or at all, though the
    /// head says there is one: it was not inspected, or only in part. Logged by default; a
    /// route with `require_body` denies it.
    BodyNotInspected = "body_not_inspected", Medium, Other, "RFC 9110 §8.6; docs/operations.md",
        "has a body that the check did not bring whole, so it was not inspected (or only in part)";
    /// An archive entry name (or link target) that an extractor may write outside its
    /// directory whatever its encoding: absolute (`/etc/x`), a drive letter (`C:`), a
    /// backslash (a separator on Windows), an empty segment.
    ArchivePath = "archive_path", High, Other, "CWE-22 (zip-slip); CWE-36; APPNOTE 6.3.10 §4.4.17",
        "has an archive entry whose name is absolute, names a drive or uses a backslash";
}
