//! What a body reading is (a leaf): the media types it claims and how it takes a body of
//! them apart into fields. The readings themselves are modules of `readings/` (and
//! `parts` for multipart), listed once in [`crate::readings::READINGS`].

use crate::layers::decomposed::Decomposed;
use crate::profile::Profile;
use crate::request::ContentType;

/// How a body of one family of media types is read: adding a reading (XML, YAML) is a module
/// with its `READING` and one line in [`crate::readings::READINGS`].
pub(crate) struct BodyReading {
    /// Its name (`json`, `form`, `multipart`), as the docs and the `[[exclusion]]` and
    /// `[[identity]]` selectors name it (a test holds each to a selector key); a typed multipart
    /// part is never read as multipart again.
    pub(crate) name: &'static str,
    /// Whether a body of this media type is read this way. A type a looser backend reads as
    /// this one is refused before (`ambiguous_media_type`), not claimed.
    pub(crate) claims: fn(&ContentType) -> bool,
    /// The second reading of a body of no type, `text/plain` or `application/octet-stream`
    /// (`ct`) that a backend which sniffs bodies may read this way: its fields when it is one
    /// (JSON that parses, say), nothing otherwise. The caller makes them check-only.
    pub(crate) sniffed: Option<Sniffed>,
    /// The fields of `body` under this reading, its structural findings, within the profile's
    /// limits; `scan_binary` says whether binary parts are read.
    pub(crate) read: for<'a> fn(&'a [u8], &ContentType, &Profile, bool, &mut Decomposed<'a>),
}

/// A reading of a sniffed body: its fields if the body is of this type, nothing otherwise.
pub(crate) type Sniffed = for<'a> fn(&'a [u8], &ContentType, &Profile, &mut Decomposed<'a>);
