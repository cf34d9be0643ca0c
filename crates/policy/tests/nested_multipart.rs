//! Multipart inside multipart: RFC 2388 §5.5's `multipart/mixed` holding the files of one
//! form field (read as files by Apache Commons FileUpload and the Java stacks built on it), and
//! RFC 2046 nesting in other multipart bodies. The inner parts are read as parts (their
//! RFC 8187 `filename*` decoded), to `max_multipart_depth`, and one deeper is refused.

use utf8gate_policy::{Decision, Profile, Request, evaluate};

/// A form whose field `files` is a `multipart/mixed` of `inner` parts (each its headers and
/// content).
fn form_with_mixed(inner: &[(&str, &str)]) -> Vec<u8> {
    let mut mixed = String::new();
    for (headers, content) in inner {
        mixed.push_str(&format!("--BB\r\n{headers}\r\n\r\n{content}\r\n"));
    }
    mixed.push_str("--BB--");
    format!(
        "--AA\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n\
         --AA\r\nContent-Disposition: form-data; name=\"files\"\r\n\
         Content-Type: multipart/mixed; boundary=BB\r\n\r\n{mixed}\r\n--AA--\r\n"
    )
    .into_bytes()
}

fn verdict(body: &[u8]) -> utf8gate_policy::Verdict {
    let request = Request::new("POST", b"/upload")
        .header("Content-Type", b"multipart/form-data; boundary=AA")
        .body(body);
    evaluate(&Profile::strict(), &request).verdict
}

#[test]
fn inner_file_names_are_read_as_the_java_stacks_read_them() {
    let attacks = [
        "Content-Disposition: attachment; filename=\"\u{c0}\"; filename*=UTF-8''%C0%AE%C0%AE%2Fetc%2Fpasswd",
        "Content-Disposition: attachment; filename=\"x\"; filename*=UTF-8''%E2%80%AEgnp.exe",
        "Content-Disposition: attachment; filename*=ISO-8859-1''%E9t%E9.txt",
        "Content-Disposition: attachment; filename=\"a.txt\"\r\nContent-Transfer-Encoding: base64",
    ];
    for headers in attacks {
        let body = form_with_mixed(&[(headers, "hello")]);
        let v = verdict(&body);
        assert_eq!(v.decision, Decision::Reject, "{headers}: {:?}", v.counts);
    }
    // The inner `filename*` is decoded: its overlong bytes are found.
    let body = form_with_mixed(&[(attacks[0], "hello")]);
    assert!(verdict(&body).counts.contains_key("overlong"));
    // What the inner part holds is checked as text too.
    let body = form_with_mixed(&[(
        "Content-Disposition: attachment; filename=\"a.txt\"\r\nContent-Type: application/json",
        "{\"a\":1,\"a\":2}",
    )]);
    assert!(verdict(&body).counts.contains_key("ambiguous_json_key"));
}

#[test]
fn benign_nested_files_pass_unchanged() {
    let body = form_with_mixed(&[
        (
            "Content-Disposition: attachment; filename=\"file1.txt\"\r\nContent-Type: text/plain",
            "first file",
        ),
        (
            "Content-Disposition: attachment; filename=\"日本.txt\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt\r\nContent-Type: text/plain",
            "二つ目のファイル",
        ),
    ]);
    let v = verdict(&body);
    assert_eq!(v.decision, Decision::Allow, "{:?}", v.counts);
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    let deepest =
        "--CC\r\nContent-Disposition: attachment; filename=\"d.txt\"\r\n\r\ndeep\r\n--CC--";
    let middle = format!(
        "--BB\r\nContent-Disposition: attachment; filename=\"m\"\r\n\
         Content-Type: multipart/mixed; boundary=CC\r\n\r\n{deepest}\r\n--BB--"
    );
    let body = format!(
        "--AA\r\nContent-Disposition: form-data; name=\"files\"\r\n\
         Content-Type: multipart/mixed; boundary=BB\r\n\r\n{middle}\r\n--AA--\r\n"
    );
    let v = verdict(body.as_bytes());
    assert_eq!(v.decision, Decision::Reject, "{:?}", v.counts);
    assert!(v.counts.contains_key("limit_exceeded"), "{:?}", v.counts);
    let mut deeper = Profile::strict();
    deeper.limits.max_multipart_depth = 3;
    let request = Request::new("POST", b"/upload")
        .header("Content-Type", b"multipart/form-data; boundary=AA")
        .body(body.as_bytes());
    let v = evaluate(&deeper, &request).verdict;
    assert_eq!(v.decision, Decision::Allow, "{:?}", v.findings);
}
