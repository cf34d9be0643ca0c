use crate::readings::multipart::*;

const BODY: &[u8] = b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n--XyZ\r\nContent-Disposition: form-data; name=\"up\"; filename=\"a\\\"b.txt\"; filename*=UTF-8''%c0%ae.txt\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2\r\n--XyZ--\r\n";

#[test]
fn finds_every_span() {
    let parts = parts(BODY, b"XyZ", 10, 1000).unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(&BODY[parts[0].name.clone().unwrap()], b"title");
    assert_eq!(&BODY[parts[0].content.clone()], b"hello");
    assert_eq!(&BODY[parts[1].filename.clone().unwrap()], b"a\\\"b.txt");
    assert_eq!(
        unquote_inner(&BODY[parts[1].filename.clone().unwrap()]),
        b"a\"b.txt"
    );
    assert_eq!(&BODY[parts[1].filename_ext.clone().unwrap()], b"%c0%ae.txt");
    assert_eq!(parts[1].content_type.as_deref(), Some("text/plain"));
    assert_eq!(&BODY[parts[1].content.clone()], b"line1\r\nline2");
    assert_eq!(parts[1].headers.len(), 2);
}

#[test]
fn bounded_and_strict_about_framing() {
    assert_eq!(
        parts(BODY, b"XyZ", 1, 1000),
        Err(MultipartError::TooManyParts { limit: 1 })
    );
    assert!(matches!(
        parts(b"--XyZ\r\n\r\nunterminated", b"XyZ", 5, 1000),
        Err(MultipartError::Malformed { .. })
    ));
    assert!(matches!(
        parts(b"no delimiter", b"XyZ", 5, 1000),
        Err(MultipartError::Malformed { .. })
    ));
    assert_eq!(parts(b"--b--", b"b", 5, 1000), Ok(vec![]));
    assert_eq!(quote(b"a\"b\\"), b"a\\\"b\\\\");
}
