use proptest::prelude::*;

use super::*;

fn route(name: &str, hosts: &[&str], paths: &[&str], methods: &[&str]) -> Route {
    let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    Route {
        name: name.to_string(),
        matches: Matches {
            hosts: list(hosts),
            paths: list(paths),
            methods: list(methods),
        },
        profile: Profile::strict(),
        max_body_bytes: 1,
        errors: crate::problem::ErrorStyle::default(),
    }
}

fn routes() -> Routes {
    Routes::new(
        vec![
            route("admin", &[], &["/admin/"], &[]),
            route("wiki", &["wiki.example.com"], &["/wiki/"], &["GET"]),
            route(
                "tenants",
                &["*.example.org"],
                &["/t/*/notes", "/files/**/raw"],
                &[],
            ),
            route("public", &[], &["/public/"], &[]),
        ],
        route("default", &[], &[], &[]),
    )
}

fn chosen(host: &str, path: &str, method: &str) -> String {
    let target = Target {
        host: Some(host.as_bytes()),
        authority: None,
        path: path.as_bytes(),
        method,
    };
    match routes().choose(target) {
        Choice::Route(r) => r.name.clone(),
        Choice::Ambiguous(a, b) => format!("ambiguous {a} {b}"),
    }
}

#[test]
fn first_match_by_host_path_and_method() {
    assert_eq!(chosen("a", "/admin/x", "GET"), "admin");
    assert_eq!(chosen("wiki.example.com:8080", "/wiki/Zoë", "GET"), "wiki");
    assert_eq!(
        chosen("WIKI.example.com.", "/wiki/a", "GET"),
        "wiki",
        "case, trailing dot"
    );
    assert_eq!(
        chosen("wiki.example.com", "/wiki/a", "POST"),
        "default",
        "method"
    );
    assert_eq!(
        chosen("other.example.com", "/wiki/a", "GET"),
        "default",
        "host"
    );
    assert_eq!(chosen("a.example.org", "/t/acme/notes", "PUT"), "tenants");
    assert_eq!(
        chosen("a.b.example.org", "/files/x/y/raw", "GET"),
        "tenants"
    );
    assert_eq!(
        chosen("example.org", "/t/acme/notes", "GET"),
        "default",
        "*. needs a label"
    );
    assert_eq!(
        chosen("a.example.org", "/t/a/b/notes", "GET"),
        "default",
        "* is one segment"
    );
    assert_eq!(
        chosen("a.example.org", "/t/acme/notes/x", "GET"),
        "default",
        "globs are whole"
    );
}

/// A path that only spells another route's prefix is under the route its backend reads.
#[test]
fn routes_are_chosen_on_the_path_the_backend_reads() {
    assert_eq!(chosen("a", "/public/..%2Fadmin/x", "GET"), "admin");
    assert_eq!(chosen("a", "/public/../admin/x", "GET"), "admin");
    assert_eq!(chosen("a", "/%61dmin/x", "GET"), "admin");
    assert_eq!(chosen("a", "//admin//x", "GET"), "admin");
    assert_eq!(chosen("a", "/admin;jsessionid=1/x", "GET"), "admin");
    assert_eq!(chosen("a", "/public/./x", "GET"), "public");
}

/// Readings that disagree (a Windows or case-blind backend; Host against an absolute-form
/// authority) make the request ambiguous.
#[test]
fn readings_that_choose_other_routes_are_ambiguous() {
    assert_eq!(
        chosen("a", "/public\\..\\admin/x", "GET"),
        "ambiguous default admin"
    );
    assert_eq!(chosen("a", "/ADMIN/x", "GET"), "ambiguous default admin");
    let target = Target {
        host: Some(b"wiki.example.com"),
        authority: Some(b"other.example.com"),
        path: b"/wiki/a",
        method: "GET",
    };
    assert!(matches!(routes().choose(target), Choice::Ambiguous(..)));
    let same = Target {
        authority: Some(b"WIKI.example.com:80"),
        ..target
    };
    assert!(matches!(routes().choose(same), Choice::Route(r) if r.name == "wiki"));
}

#[test]
fn canonical_paths() {
    let c = |p: &str| String::from_utf8(canonical(p.as_bytes(), false)).unwrap();
    assert_eq!(c("/"), "/");
    assert_eq!(c(""), "/");
    assert_eq!(c("/a/b/../c/"), "/a/c/");
    assert_eq!(c("/../../a"), "/a");
    assert_eq!(c("/a/."), "/a/");
    assert_eq!(c("/a%2"), "/a%2");
    assert_eq!(c("/a\\b"), "/a\\b");
    assert_eq!(
        String::from_utf8(canonical(b"/a\\..\\b", true)).unwrap(),
        "/b"
    );
}

/// An independent glob: a regex-free recursive definition, checked against the iterative
/// matcher on small alphabets.
fn reference(p: &[u8], t: &[u8]) -> bool {
    match p {
        [] => t.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=t.len()).any(|i| reference(rest, &t[i..])),
        [b'*', rest @ ..] => (0..=t.len())
            .take_while(|&i| i == 0 || t[i - 1] != b'/')
            .any(|i| reference(rest, &t[i..])),
        [c, rest @ ..] => t.first() == Some(c) && reference(rest, &t[1..]),
    }
}

proptest! {
    #[test]
    fn glob_agrees_with_a_recursive_definition(
        p in "[ab/*]{0,8}",
        t in "[ab/]{0,10}",
    ) {
        prop_assert_eq!(glob(p.as_bytes(), t.as_bytes()), reference(p.as_bytes(), t.as_bytes()), "{} {}", p, t);
    }

    /// Canonical paths are fixed points, start with `/` and hold no dot segments.
    #[test]
    fn canonical_is_idempotent(path in "[a./;%2Fe\\\\]{0,16}") {
        let once = canonical(path.as_bytes(), false);
        prop_assert!(once.starts_with(b"/"));
        let text = String::from_utf8_lossy(&once).into_owned();
        prop_assert!(!text.split('/').any(|s| s == "." || s == ".."), "{}", text);
        if !once.contains(&b'%') {
            prop_assert_eq!(canonical(&once, false), once.clone());
        }
    }
}
