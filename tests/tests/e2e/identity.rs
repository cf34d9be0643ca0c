//! Identity fields: a route's `[[route.identity]]` refuses homographs and case collisions,
//! rewrites to the enforced form when it opts in, and lets benign non-ASCII names through
//! untouched.

use utf8gate_e2e::{Gateway, Upstream, exchange, request};

use crate::support::*;

/// Two routes with a `username` form field: refused (the default) and rewritten (opt-in).
const ROUTES: &str = r#"
[[route]]
name = "signup"
paths = ["/signup"]
[[route.identity]]
form = "username"
kind = "username"

[[route]]
name = "settings"
paths = ["/settings"]
[[route.identity]]
form = "username"
kind = "username"
action = "rewrite"
"#;

const FORM: &[(&str, &[u8])] = &[(
    "Content-Type",
    b"application/x-www-form-urlencoded".as_slice(),
)];

// =============================================================================================
// Identity fields
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_username_route_refuses_homographs_rewrites_on_opt_in_and_passes_benign_names() {
    let upstream = Upstream::start().await;
    let gw = Gateway::start(ROUTES, Some(&upstream.url())).await;
    let post = |path: &str, body: &[u8]| request("POST", path, FORM, body);

    // `pаypal` with a Cyrillic а: mixed scripts, refused; the skeleton is in the verdict.
    let homograph = exchange(gw.proxy, &post("/signup", b"username=p%D0%B0ypal")).await;
    let verdict = assert_rejected(&homograph, 400);
    assert_eq!(kinds(&verdict), ["mixed_script"]);
    let report = &verdict.identities[0];
    assert_eq!(report.skeleton.as_deref(), Some("paypal"));
    assert_eq!(report.scripts, ["Latin", "Cyrillic"]);

    // Django CVE-2019-19844: a dotless ı that upper-cases to I.
    let dotless = b"username=m%C4%B1ke%40example.org";
    let verdict = assert_rejected(&exchange(gw.proxy, &post("/signup", dotless)).await, 400);
    assert_eq!(kinds(&verdict), ["identity_case_collision"]);
    assert_eq!(upstream.count(), 0, "nothing refused reached the upstream");

    // A benign non-ASCII name is forwarded byte for byte.
    let benign = "username=Zo%C3%AB&other=%D0%9C%D0%B0%D1%80%D0%B8%D1%8F".as_bytes();
    let allowed = exchange(gw.proxy, &post("/signup", benign)).await;
    assert_eq!(allowed.status, 200, "{}", allowed.text());
    assert_eq!(upstream.records()[0].body, benign);

    // Opt-in rewrite: fullwidth letters become their enforced form.
    let fullwidth = b"username=%EF%BD%8D%EF%BD%89%EF%BD%8B%EF%BD%85&x=1";
    let rewritten = exchange(gw.proxy, &post("/settings", fullwidth)).await;
    assert_eq!(rewritten.status, 200, "{}", rewritten.text());
    let forwarded = &upstream.records()[1];
    assert_eq!(forwarded.body, b"username=mike&x=1");
    assert_eq!(
        forwarded.header("utf8gate-decision"),
        Some(b"sanitize".as_slice())
    );
    // What no rewrite fixes is still refused there.
    let homograph = exchange(gw.proxy, &post("/settings", b"username=p%D0%B0ypal")).await;
    assert_rejected(&homograph, 400);
    assert_eq!(upstream.count(), 2);
}

// New identity tests go here.
