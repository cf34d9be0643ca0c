use crate::layers::media_type::*;

fn refused(value: &str) -> bool {
    second_reading(value.as_bytes()).is_some()
}

#[test]
fn what_browsers_and_clients_send_has_one_reading() {
    for ok in [
        "",
        "text/plain",
        "text/plain;charset=UTF-8",
        "text/plain; charset=utf-8",
        "Text/HTML; Charset=\"UTF-8\"",
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded;charset=UTF-8",
        "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW",
        "multipart/form-data; boundary=\"a;b,c\"",
        "application/json",
        "application/vnd.api+json",
        "application/merge-patch+json; charset=utf-8",
        "application/xml",
        "image/png",
        "text/plain;",
        "text/plain; format=flowed; delsp=yes",
    ] {
        assert_eq!(second_reading(ok.as_bytes()), None, "{ok:?}");
    }
}

#[test]
fn lists_and_junk_are_two_readings() {
    for bad in [
        "application/x-www-form-urlencoded, text/plain",
        "text/plain, application/json",
        "application/json,",
        "text/plain; charset=utf-8, application/x-www-form-urlencoded",
        "application/json garbage",
        "application / json",
        "application/",
        "/json",
        "json",
        "text/plain; charset",
        "text/plain; charset =utf-8",
        "text/plain; charset= utf-8",
        "text/plain; charset=",
        "text/plain; ch@rset=utf-8",
        "text/pl\u{0}ain",
        "\u{c}text/plain",
        "text/plain;\u{b}charset=utf-8",
        "text/plain; charset=utf-8\u{c}",
        "text/plain; a=\"b\"\r",
        "text/plain; a=\"b\rc\"",
    ] {
        assert!(refused(bad), "{bad:?}");
    }
}

#[test]
fn a_hidden_charset_is_a_second_reading() {
    for bad in [
        "application/x-www-form-urlencoded; x=\"charset=ibm037\"",
        "text/plain; charset=utf-8; x=\"charset=ibm037\"",
        "application/x-www-form-urlencoded; foo=\"a; charset=ibm037\"",
        "application/x-www-form-urlencoded; foo=\"CHARSET = ibm037\"",
    ] {
        assert!(refused(bad), "{bad:?}");
    }
    assert!(
        !refused("text/plain; charset=ibm037"),
        "a plain charset is the charset check's"
    );
    assert!(!refused("text/plain; name=\"charsets\""));
}

#[test]
fn prefix_read_types_are_two_readings() {
    for bad in [
        "application/x-www-form-urlencoded-v2",
        "application/x-www-form-urlencodedx; charset=utf-8",
        "multipart/form-data-x; boundary=a",
        "application/jsonx",
        "APPLICATION/JSON-SEQ",
    ] {
        assert!(refused(bad), "{bad:?}");
    }
    assert!(
        !refused("application/json-patch+json"),
        "a +json type is read as JSON"
    );
}

#[test]
fn the_offset_points_at_the_second_reading() {
    let value = b"text/plain, application/json";
    let (at, _) = second_reading(value).unwrap();
    assert_eq!(value[at], b',');
    let value = b"text/plain; a=b; junk";
    let (at, why) = second_reading(value).unwrap();
    assert_eq!(&value[at..], b" junk", "{why}");
}

/// The table is RFC 9110 §5.6.2's `tchar`, byte for byte.
#[test]
fn tchar_table_is_the_grammar() {
    for b in 0..=255u8 {
        let grammar = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        assert_eq!(
            crate::layers::media_type::is_tchar(b),
            grammar,
            "byte 0x{b:02X}"
        );
    }
}
