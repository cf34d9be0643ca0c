//! A small byte-exact JSON scanner: every object key and string value of a body, decoded the way
//! the application will receive it, with its JSON pointer and the byte span of its literal, so
//! that findings can point at it and a single string can be rewritten while every other byte of
//! the body (formatting included) stays as it was.
//!
//! serde_json cannot report byte spans, hence this scanner. It validates full RFC 8259 syntax,
//! never recurses (open containers live on an explicit stack whose depth is checked before each
//! push), never panics, and does work linear in the body plus the size of what it returns.
//!
//! It differs from serde_json on purpose in two ways, both because the caller diagnoses them
//! instead of refusing them blindly: a lone surrogate escape (`"\uD800"`) decodes to U+FFFD and
//! is reported in [`JsonString::lone_surrogates`], and raw bytes >= 0x80 inside a string are
//! copied as they are, valid UTF-8 or not (the caller runs the UTF-8 validator on
//! [`JsonString::value`]). It also accepts numbers of any magnitude (serde_json refuses a number
//! that overflows `f64`, such as `1e400`, when it builds a `Value`): RFC 8259 sets no range.

pub(crate) use checked::{Checked, check};
pub(crate) use error::JsonError;
#[cfg(test)]
pub(crate) use pointer::MAX_POINTER_BYTES;
pub(crate) use pointer::cut as cut_pointer;
pub(crate) use proof::prove;
pub(crate) use scanner::JsonLimits;
pub(crate) use string::encode_string;
pub(crate) use tokens::JsonString;
#[cfg(test)]
pub(crate) use tokens::Tokens;

mod checked;
mod error;
mod fold;
mod keys;
mod lone;
mod pointer;
mod proof;
mod scanner;
mod stack;
mod string;
mod tokens;
mod words;

/// Reads a whole JSON document (RFC 8259: any value at top level, surrounding whitespace
/// allowed; not a leading BOM: the caller strips it before calling) and hands every key and
/// string value to `f` in document order (a key comes right before its value), so the `raw`
/// spans are increasing and disjoint. Nothing is kept per string; an error of `f` ends it.
pub(crate) fn for_each<'a, E: From<JsonError>>(
    body: &'a [u8],
    limits: JsonLimits,
    f: impl FnMut(JsonString<'a>) -> Result<(), E>,
) -> Result<(), E> {
    scanner::scan_into(body, limits, &mut tokens::Each::new(f))
}

/// Every key and string value of a document ([`for_each`]), collected.
#[cfg(test)]
pub(crate) fn scan(body: &[u8], limits: JsonLimits) -> Result<Tokens<'_>, JsonError> {
    let mut out = Tokens::new();
    for_each(body, limits, |t| {
        out.push(t);
        Ok::<_, JsonError>(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests;
