//! What the tests of several readings share (tests only).

use proptest::prelude::*;

use crate::field::KEEP_NONE;
use crate::profile::Profile;
use crate::request::Request;

/// `doc` under each of `content_types`, and as a multipart part of type `part_type`, gets the
/// same evaluation (strict and lossy) with a document's fields kept as their budget allows and
/// with none kept (the document read again field by field as it is checked).
pub(crate) fn kept_and_read_again_agree(
    doc: &str,
    content_types: &[&str],
    part_type: &str,
) -> Result<(), TestCaseError> {
    let part = format!(
        "--b\r\nContent-Disposition: form-data; name=\"x\"\r\nContent-Type: {part_type}\r\n\r\n\
         {doc}\r\n--b--\r\n"
    );
    let multipart = ("multipart/form-data; boundary=b", part.as_str());
    let ways = content_types.iter().map(|t| (*t, doc)).chain([multipart]);
    for (content_type, body) in ways {
        let request = Request::new("POST", b"/api")
            .header("Content-Type", content_type.as_bytes())
            .body(body.as_bytes());
        for profile in [Profile::strict(), Profile::lossy()] {
            let kept = crate::evaluate(&profile, &request);
            KEEP_NONE.set(true);
            let read_again = crate::evaluate(&profile, &request);
            KEEP_NONE.set(false);
            prop_assert_eq!(&kept, &read_again, "{}: {}", content_type, body);
        }
    }
    Ok(())
}
