use crate::ops::config::{Config, Overrides};
use crate::routes::{Choice, Target};

fn load(text: &str) -> Result<Config, crate::ops::config::ConfigError> {
    Config::load(text, "f.toml", &[], &Overrides::default(), &|_| None)
}

/// Each mistake is refused with the file's line (an exclusion's: its table's) and a message
/// that names it.
#[test]
fn route_mistakes_are_refused_where_they_are() {
    let cases = [
        ("[[route]]\nname = \"Wiki\"\n", 2, "not 1 to 64"),
        ("[[route]]\nname = \"default\"\n", 2, "taken"),
        (
            "[[route]]\nname = \"a\"\n[[route]]\nname = \"a\"\n",
            4,
            "taken",
        ),
        (
            "[[route]]\nname = \"all\"\n[[route]]\nname = \"b\"\n",
            4,
            "never matches",
        ),
        (
            "[[route]]\nname = \"a\"\nprofile = \"nope\"\n",
            3,
            "unknown profile",
        ),
        (
            "[[route]]\nname = \"a\"\nmode = \"audit\"\n",
            3,
            "enforce or monitor",
        ),
        (
            "[[route]]\nname = \"a\"\npaths = [\"/a//b\"]\n",
            3,
            "never matches",
        ),
        (
            "[[route]]\nname = \"a\"\npaths = [\"wiki\"]\n",
            3,
            "start with '/'",
        ),
        (
            "[[route]]\nname = \"a\"\nhosts = [\"bücher.example\"]\n",
            3,
            "A-labels",
        ),
        (
            "[[route]]\nname = \"a\"\nmethods = [\"get\"]\n",
            3,
            "upper case",
        ),
        (
            "[[route]]\nname = \"a\"\nmax_body_bytes = 0\n",
            3,
            "outside",
        ),
        (
            "[[route]]\nname = \"a\"\n[[route.exclusion]]\nkinds = [\"*\"]\njson = \"items\"\n",
            3,
            "can never match",
        ),
        (
            "[[route]]\nname = \"a\"\n[[route.exclusion]]\nkinds = [\"repeated_header\"]\nheader = \"host\"\n",
            3,
            "cannot be excluded",
        ),
        (
            "[[route]]\nname = \"a\"\n[[route.identity]]\nkind = \"username\"\n",
            3,
            "needs one selector",
        ),
        (
            "[[route]]\nname = \"a\"\n[[route.identity]]\nheader = \"x y\"\nkind = \"nickname\"\n",
            3,
            "can never match",
        ),
        (
            "[[route]]\nname = \"a\"\nwhere = \"/\"\n",
            3,
            "unknown field",
        ),
        (
            "[[route]]\nname = \"a\"\n[route.errors]\ndetail = \"terse\"\n",
            4,
            "full or minimal",
        ),
    ];
    for (text, line, words) in cases {
        let e = load(text).expect_err(text);
        assert_eq!(e.line, Some(line), "{text}: {e}");
        assert!(e.message.contains(words), "{text}: {e}");
    }
}

/// A valid route list: its profile carries the mode and exclusions, others are untouched.
#[test]
fn routes_build_their_profiles() {
    let text = "[[route]]\nname = \"wiki\"\npaths = [\"/wiki/\"]\nmode = \"monitor\"\nmax_body_bytes = \"64KiB\"\n\
                [[route.exclusion]]\nkinds = [\"not_nfc\"]\nquery = \"q\"\n\
                [[route.identity]]\nform = \"user\"\nkind = \"username\"\naction = \"rewrite\"\n";
    let config = load(text).expect("valid");
    let routes = &config.routes;
    assert_eq!(routes.list().len(), 1);
    let wiki = &routes.list()[0];
    assert!(wiki.profile.monitor);
    assert_eq!(wiki.profile.exclusions.len(), 1);
    let identity = &wiki.profile.identities[0];
    assert_eq!(identity.action, utf8gate_policy::IdentityAction::Rewrite);
    assert_eq!(
        identity.target,
        utf8gate_policy::Target::Form("user".into())
    );
    assert_eq!(wiki.max_body_bytes, 64 * 1024);
    let default = routes.default_route();
    assert!(!default.profile.monitor && default.profile.exclusions.is_empty());
    assert!(default.profile.identities.is_empty());
    assert_eq!(&*default.profile.name, "strict");
    let target = Target {
        host: None,
        authority: None,
        path: b"/wiki/a",
        method: "GET",
    };
    assert!(matches!(routes.choose(target), Choice::Route(r) if r.name == "wiki"));
}
