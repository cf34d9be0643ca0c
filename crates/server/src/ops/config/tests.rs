//! Tests of configuration loading: defaults, overrides in order (file, environment, flags),
//! errors with file and line, and that docs/config.md documents every key.

use super::*;

fn load(text: &str, env: &[(&str, &str)], o: &Overrides) -> Result<Config, ConfigError> {
    let env: Vec<_> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::load(text, "test.toml", &env, o, &|_| None)
}

#[test]
fn the_embedded_default_equals_the_built_in_defaults() {
    let from_file = Config::default_config();
    let from_nothing = load("", &[], &Overrides::default()).unwrap();
    assert_eq!(format!("{from_file:?}"), format!("{from_nothing:?}"));
    assert_eq!(from_file.max_body_bytes, 8 << 20);
    assert_eq!(from_file.upstream, None);
    assert_eq!(from_file.profiles.len(), 4);
}

#[test]
fn precedence_file_env_flags() {
    let o = Overrides {
        upstream: Some("http://127.0.0.1:7000".into()),
        ..Overrides::default()
    };
    let c = load(
        "[upstream]\nurl = \"http://127.0.0.1:5000\"\n[limits]\nmax_body_bytes = 100\n",
        &[
            ("UTF8GATE_LIMITS_MAX_BODY_BYTES", "200"),
            ("UTF8GATE_POLICY_PROFILE", "lossy"),
        ],
        &o,
    )
    .unwrap();
    assert_eq!(c.max_body_bytes, 200);
    assert_eq!(c.profile, "lossy");
    assert_eq!(c.upstream.as_deref(), Some("http://127.0.0.1:7000"));
}

#[test]
fn errors_name_the_file_and_line() {
    let e = load(
        "[limits]\n\nmax_bodee_bytes = 1\n",
        &[],
        &Overrides::default(),
    )
    .unwrap_err();
    assert_eq!((e.source.as_str(), e.line), ("test.toml", Some(3)), "{e}");
    let e = load(
        "[limits]\nrequest_timeout_seconds = 0\n",
        &[],
        &Overrides::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    let e = load(
        "[upstream]\nurl = \"ftp://x\"\n",
        &[],
        &Overrides::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    let e = load("[policy]\nprofile = \"nope\"\n", &[], &Overrides::default()).unwrap_err();
    assert!(e.message.contains("nope"), "{e}");
    let e = load("", &[("UTF8GATE_LIMITS_NOPE", "1")], &Overrides::default()).unwrap_err();
    assert!(e.message.contains("nope"), "{e}");
    let e = load("", &[("UTF8GATE_NOPE_X", "1")], &Overrides::default()).unwrap_err();
    assert!(e.source.contains("UTF8GATE_NOPE_X"), "{e}");
    let e = load(
        "[listen]\napi_addr = \"localhost\"\n",
        &[],
        &Overrides::default(),
    )
    .unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn the_errors_section_sets_the_listeners_error_style() {
    use crate::problem::{Detail, ErrorStyle};
    let none = Overrides::default();
    assert_eq!(Config::default_config().errors, ErrorStyle::default());
    let c = load(
        "[errors]\ndetail = \"minimal\"\n",
        &[("UTF8GATE_ERRORS_HTML", "false")],
        &none,
    );
    let errors = c.map(|c| c.errors).ok();
    assert_eq!(
        errors,
        Some(ErrorStyle {
            detail: Detail::Minimal,
            html: false
        })
    );
    let e = load("[errors]\n\ndetail = \"terse\"\n", &[], &none).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(
        e.message.contains("\"terse\" is not full or minimal"),
        "{e}"
    );
    let e = load("[errors]\nhtml = \"yes\"\n", &[], &none).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn cidrs() {
    let net = Cidr::parse("127.0.0.0/8").unwrap();
    assert!(net.contains("127.1.2.3".parse().unwrap()));
    assert!(net.contains("::ffff:127.0.0.1".parse().unwrap()));
    assert!(!net.contains("10.0.0.1".parse().unwrap()));
    assert!(
        Cidr::parse("::1/128")
            .unwrap()
            .contains("::1".parse().unwrap())
    );
    assert!(
        Cidr::parse("0.0.0.0/0")
            .unwrap()
            .contains("8.8.8.8".parse().unwrap())
    );
    assert_eq!(Cidr::parse("1.2.3.4/33"), None);
    assert_eq!(Cidr::parse("nope"), None);
}

/// docs/config.md against the embedded default.
mod doc_tests {
    #[test]
    fn every_key_of_the_default_is_documented() {
        let doc = include_str!("../../../../../docs/config.md");
        let mut section = "";
        let mut keys = 0;
        for line in super::DEFAULT_TOML.lines() {
            if let Some(s) = line.strip_prefix('[') {
                section = s.trim_end_matches(']');
            } else if let Some((key, _)) = line.split_once(" = ")
                && !line.starts_with('#')
            {
                keys += 1;
                let name = match section {
                    "" => key.to_string(),
                    _ => format!("{section}.{key}"),
                };
                assert!(
                    doc.contains(&format!("| `{name}` |")),
                    "docs/config.md lacks {name}"
                );
            }
        }
        assert_eq!(keys, 69);
    }
}

#[test]
fn proxy_threads_default_to_the_available_cores() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let o = Overrides::default();
    let auto = load("", &[], &o).unwrap();
    assert_eq!((auto.proxy_threads, auto.proxy_threads_set), (cores, 0));
    let three = load("[listen]\nproxy_threads = 3\n", &[], &o).unwrap();
    assert_eq!(three.proxy_threads, 3);
    let env = load("", &[("UTF8GATE_LISTEN_PROXY_THREADS", "5")], &o).unwrap();
    assert_eq!(env.proxy_threads, 5);
    let err = load("[listen]\nproxy_threads = 5000\n", &[], &o).unwrap_err();
    assert!(err.to_string().contains("proxy_threads"), "{err}");
}

#[test]
fn trusted_proxies_default_to_nobody_and_take_cidrs_from_file_and_environment() {
    let o = Overrides::default();
    assert!(load("", &[], &o).unwrap().trusted_proxies.is_empty());
    let file = load(
        "[listen]\ntrusted_proxies = [\"10.0.0.0/8\", \"::1\"]\n",
        &[],
        &o,
    )
    .unwrap();
    assert_eq!(
        file.trusted_proxies,
        [
            Cidr::parse("10.0.0.0/8").unwrap(),
            Cidr::parse("::1/128").unwrap()
        ]
    );
    let env = load(
        "",
        &[("UTF8GATE_LISTEN_TRUSTED_PROXIES", r#"["192.0.2.0/24"]"#)],
        &o,
    )
    .unwrap();
    assert_eq!(env.trusted_proxies, [Cidr::parse("192.0.2.0/24").unwrap()]);
    let err = load("[listen]\n\ntrusted_proxies = [\"nope\"]\n", &[], &o).unwrap_err();
    assert_eq!(err.line, Some(3), "{err}");
    assert!(err.message.contains("trusted_proxies"), "{err}");
}

#[test]
fn max_body_bytes_caps_every_profile_s_decoded_bytes() {
    let o = Overrides::default();
    let small = load("[limits]\nmax_body_bytes = 1000\n", &[], &o).unwrap();
    assert!(!small.profiles.is_empty());
    for p in small.profiles.values() {
        assert_eq!(p.limits.max_decoded_bytes, 1000, "{}", p.name);
    }
    // Never raised: a larger body limit leaves the profiles' own limit.
    let large = "[limits]\nmax_body_bytes = 1073741824\nmax_buffered_bytes = \"3GiB\"\n";
    let large = load(large, &[], &o).unwrap();
    let default = utf8gate_policy::Limits::default().max_decoded_bytes;
    for p in large.profiles.values() {
        assert_eq!(p.limits.max_decoded_bytes, default, "{}", p.name);
    }
}

mod profile_limits;
mod spans;
mod values;
