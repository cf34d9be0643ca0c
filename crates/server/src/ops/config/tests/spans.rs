//! Errors point at the value: its file, line and column, or the variable or flag that set it.

use std::time::Duration;

use super::*;

/// The 1-based column of the first `needle` on `line` (1-based) of `text`, in characters.
fn column_of(text: &str, line: usize, needle: &str) -> usize {
    let l = text.lines().nth(line - 1).unwrap();
    l[..l.find(needle).unwrap()].chars().count() + 1
}

fn file_error(text: &str) -> ConfigError {
    load(text, &[], &Overrides::default()).unwrap_err()
}

#[test]
fn a_repeated_key_is_reported_where_it_is_repeated() {
    let text = "[limits]\nmax_body_bytes = 1000\nmax_json_depth = 3\nmax_body_bytes = 2000\n";
    let e = file_error(text);
    assert_eq!(
        (e.source.as_str(), e.line, e.column),
        ("test.toml", Some(4), Some(1)),
        "{e}"
    );
    assert!(e.to_string().starts_with("test.toml:4:1: "), "{e}");
}

#[test]
fn a_bad_value_is_reported_at_its_own_line_and_column() {
    let text = "[listen]\nproxy_addr = \"127.0.0.1:1\"\n\n[upstream]\nurl = \"ftp://x\"\n";
    let e = file_error(text);
    assert_eq!((e.line, e.column), (Some(5), Some(7)), "{e}");
    assert_eq!(
        e.to_string(),
        "test.toml:5:7: upstream.url: \"ftp://x\" must be http://host:port or https://host:port (no path)"
    );
    // `profile_files` starts with `profile`: the line is the value's, not the first match.
    let text = "[policy]\nprofile_files = []\nprofile = \"nope\"\n";
    let e = file_error(text);
    assert_eq!((e.line, e.column), (Some(3), Some(11)), "{e}");
    assert!(
        e.message
            .starts_with("policy.profile: unknown profile \"nope\""),
        "{e}"
    );
    // Dotted keys and inline tables: the column counts characters, not bytes.
    let text = "log = { level = \"\u{fc}\", format = \"xml\" }\n";
    let e = file_error(text);
    assert_eq!(
        (e.line, e.column),
        (Some(1), Some(column_of(text, 1, "\"xml\"")))
    );
    assert_eq!(e.column, Some(31), "{e}");
    let e = file_error("\n[limits]\nmax_body_bytes = \"big\"\n");
    assert_eq!((e.line, e.column), (Some(3), Some(18)), "{e}");
    let e = file_error("limits = 5\n");
    assert_eq!((e.line, e.column), (Some(1), Some(10)), "{e}");
    assert!(e.message.contains("expected a table"), "{e}");
    let e = file_error("[limits\n");
    assert_eq!((e.source.as_str(), e.line), ("test.toml", Some(1)), "{e}");
    assert!(e.column.is_some(), "{e}");
}

#[test]
fn a_bad_list_element_is_reported_at_its_column() {
    let text = "[listen]\ntrusted_proxies = [\"10.0.0.0/8\", \"nope\"]\n";
    let e = file_error(text);
    assert_eq!(
        (e.line, e.column),
        (Some(2), Some(column_of(text, 2, "\"nope\""))),
        "{e}"
    );
    assert!(e.message.contains("listen.trusted_proxies") && e.message.contains("nope"));
    let text = "[authz]\ntrusted_peers = [\n  \"127.0.0.0/8\",\n  \"::1/129\",\n]\n";
    let e = file_error(text);
    assert_eq!((e.line, e.column), (Some(4), Some(3)), "{e}");
}

#[test]
fn an_environment_value_s_errors_name_the_variable() {
    let o = Overrides::default();
    let e = load("", &[("UTF8GATE_LIMITS_MAX_BODY_BYTES", "abc")], &o).unwrap_err();
    assert_eq!(
        (e.source.as_str(), e.line, e.column),
        ("UTF8GATE_LIMITS_MAX_BODY_BYTES", None, None)
    );
    assert!(e.message.contains("\"abc\""), "{e}");
    assert_eq!(
        e.to_string(),
        "UTF8GATE_LIMITS_MAX_BODY_BYTES: \"abc\" is not a size: a whole number, optionally with a unit (like 1048576, \"64KiB\", \"10MiB\" or \"1GiB\")"
    );
    // Read as a number, refused by validation: still the variable, not the file.
    let file = "[limits]\nmax_body_bytes = 1000\n";
    let e = load(file, &[("UTF8GATE_LIMITS_MAX_BODY_BYTES", "0")], &o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "UTF8GATE_LIMITS_MAX_BODY_BYTES: 0 is outside 1..=4294967296"
    );
    let proxies = r#"["10.0.0.0/8", "nope"]"#;
    let e = load("", &[("UTF8GATE_LISTEN_TRUSTED_PROXIES", proxies)], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LISTEN_TRUSTED_PROXIES", "{e}");
    assert!(e.message.contains("\"nope\""), "{e}");
    let e = load("", &[("UTF8GATE_LISTEN_TRUSTED_PROXIES", "[1]")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LISTEN_TRUSTED_PROXIES", "{e}");
    let e = load(
        "",
        &[("UTF8GATE_UPSTREAM_CONNECT_TIMEOUT_SECONDS", "-1")],
        &o,
    )
    .unwrap_err();
    assert_eq!(e.source, "UTF8GATE_UPSTREAM_CONNECT_TIMEOUT_SECONDS", "{e}");
    let e = load("", &[("UTF8GATE_LISTEN_ALLOW_TRACE", "yes")], &o).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("UTF8GATE_LISTEN_ALLOW_TRACE: invalid boolean \"yes\"")
    );
}

#[test]
fn unknown_variables_are_errors_naming_them() {
    let o = Overrides::default();
    let e = load("", &[("UTF8GATE_LIMITS_MAX_BODEE_BYTES", "1")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LIMITS_MAX_BODEE_BYTES", "{e}");
    assert!(e.message.contains("unknown key \"max_bodee_bytes\""), "{e}");
    let e = load("", &[("UTF8GATE_LIMIT_MAX_BODY_BYTES", "1")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LIMIT_MAX_BODY_BYTES", "{e}");
    assert!(e.message.contains("unknown section \"limit\""), "{e}");
    let e = load("", &[("UTF8GATE_LOG", "debug")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LOG", "{e}");
}

#[test]
fn environment_values_take_their_key_s_type() {
    let o = Overrides::default();
    let c = load(
        "",
        &[
            ("UTF8GATE_UPSTREAM_URL", "http://127.0.0.1:3000"),
            ("UTF8GATE_LOG_LEVEL", "info,hyper=warn"),
            ("UTF8GATE_LIMITS_REQUEST_TIMEOUT_SECONDS", "5"),
            ("UTF8GATE_LIMITS_SHUTDOWN_GRACE_SECONDS", "0.5"),
            ("UTF8GATE_LISTEN_ALLOW_TRACE", "true"),
        ],
        &o,
    )
    .unwrap();
    assert_eq!(c.upstream.as_deref(), Some("http://127.0.0.1:3000"));
    assert_eq!(c.log_level, "info,hyper=warn");
    assert_eq!(c.request_timeout, Duration::from_secs(5));
    assert_eq!(c.shutdown_grace, Duration::from_millis(500));
    assert!(c.allow_trace);
}

#[test]
fn a_flag_s_errors_name_the_flag() {
    let o = Overrides {
        api_addr: Some("not-an-address".into()),
        ..Overrides::default()
    };
    let e = load("[listen]\napi_addr = \"127.0.0.1:1\"\n", &[], &o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--api-addr: \"not-an-address\" is not a socket address (like 127.0.0.1:8080, [::1]:8080 or localhost:8080)"
    );
    let o = Overrides {
        profile: Some("nope".into()),
        ..Overrides::default()
    };
    let e = load("", &[("UTF8GATE_POLICY_PROFILE", "lossy")], &o).unwrap_err();
    assert_eq!(e.source, "--profile", "{e}");
}

#[test]
fn a_file_that_omits_sections_and_keys_gets_the_embedded_default_s() {
    let o = Overrides::default();
    let default = Config::default_config();
    let c = load("[listen]\nproxy_threads = 3\n", &[], &o).unwrap();
    assert_eq!(c.proxy_threads, 3);
    assert_eq!(
        (c.proxy_addr, c.api_addr, c.admin_addr),
        (default.proxy_addr, default.api_addr, default.admin_addr)
    );
    assert_eq!(c.trusted_peers, default.trusted_peers);
    assert_eq!(c.max_body_bytes, 8 << 20);
    assert_eq!(c.connect_timeout, Duration::from_secs(2));
    assert_eq!((c.reject_status, c.authz_deny_status), (400, 403));
    assert_eq!(
        (c.log_format, c.log_buffer_lines),
        (LogFormat::Json, 16_384)
    );
    // The embedded default's own values never reach a user's error: this one is the file's.
    let e = load("log.format = \"xml\"\n", &[], &o).unwrap_err();
    assert_eq!(
        e.to_string(),
        "test.toml:1:14: log.format: \"xml\" is not json or pretty"
    );
}

#[test]
fn tls_keys_are_checked_where_they_are_written() {
    for (text, line, words) in [
        (
            "[tls]\nlisteners = [\"proxy\", \"web\"]\n",
            2,
            "\"web\" is not proxy, api or admin",
        ),
        (
            "[tls]\nlisteners = [\"api\"]\n",
            1,
            "need tls.cert and tls.key",
        ),
        (
            "[tls]\ncert = \"/a.pem\"\n",
            1,
            "tls.cert is set without tls.key",
        ),
        (
            "[tls]\nmin_version = \"1.1\"\n",
            2,
            "older versions are not served",
        ),
        (
            "[tls]\nclient_auth = \"maybe\"\n",
            2,
            "not required or optional",
        ),
        (
            "[tls]\nsni = [{ cert = \"/b.pem\", key = \"\" }]\n",
            2,
            "needs a cert and a key",
        ),
        (
            "[upstream]\ntls_server_name = \"a b\"\n",
            2,
            "not a DNS name",
        ),
        (
            "[upstream]\ntls_key = \"/k.pem\"\n",
            1,
            "tls_key is set without upstream.tls_cert",
        ),
    ] {
        let e = file_error(text);
        assert!(e.message.contains(words), "{text}: {e}");
        // The key the error is about is named, on its own line when it is written there.
        if line > 1 {
            assert_eq!(e.line, Some(line), "{text}: {e}");
        }
    }
    let ok = "[tls]\nlisteners = [\"proxy\", \"admin\"]\ncert = \"/c.pem\"\nkey = \"/k.pem\"\n\
              sni = [{ cert = \"/b.pem\", key = \"/b.key\" }]\nclient_ca = \"/ca.pem\"\n\
              client_auth = \"optional\"\nmin_version = \"1.3\"\nwatch_seconds = 0\n";
    let config = load(ok, &[], &Overrides::default()).unwrap();
    let tls = &config.tls;
    assert!(tls.listeners.proxy && tls.listeners.admin && !tls.listeners.api);
    assert_eq!(tls.sni.len(), 1);
    assert!(tls.tls13_only && tls.client_auth == crate::ops::config::ClientAuth::Optional);
    assert_eq!(tls.watch, Duration::ZERO);
    let env = [
        ("UTF8GATE_TLS_LISTENERS", "[\"api\"]"),
        ("UTF8GATE_TLS_CERT", "/e.pem"),
        ("UTF8GATE_TLS_KEY", "/e.key"),
    ];
    let config = load("", &env, &Overrides::default()).unwrap();
    assert!(config.tls.listeners.api);
    assert_eq!(
        config.tls.default.unwrap().cert,
        std::path::PathBuf::from("/e.pem")
    );
}
