//! Sizes with units and listen addresses with host names, from a file, the environment and
//! flags, and their errors: a file's line, or the variable or flag.

use super::*;

#[test]
fn sizes_take_binary_units_in_files_and_variables_and_plain_integers_still() {
    let o = Overrides::default();
    let file = "[limits]\nmax_body_bytes = \"10MiB\"\nmax_header_bytes = \"64KiB\"\nmax_scan_bytes = \"2GiB\"\n";
    let c = load(file, &[], &o).unwrap();
    assert_eq!(
        (c.max_body_bytes, c.max_header_bytes, c.max_scan_bytes),
        (10 << 20, 64 << 10, 2 << 30)
    );
    let c = load("[limits]\nmax_body_bytes = 1000\n", &[], &o).unwrap();
    assert_eq!(c.max_body_bytes, 1000);
    let env = [("UTF8GATE_LIMITS_MAX_BODY_BYTES", "3 MiB")];
    assert_eq!(load("", &env, &o).unwrap().max_body_bytes, 3 << 20);
    let env = [("UTF8GATE_LIMITS_MAX_SCAN_BYTES", "4096")];
    assert_eq!(load("", &env, &o).unwrap().max_scan_bytes, 4096);
    // The unit is applied before the range check.
    assert_eq!(
        load("", &[("UTF8GATE_LIMITS_MAX_HEADER_BYTES", "1KiB")], &o)
            .unwrap()
            .max_header_bytes,
        1024
    );
}

#[test]
fn size_errors_have_the_file_line_or_name_the_variable() {
    let o = Overrides::default();
    let e = load("[limits]\n\nmax_body_bytes = \"10MB\"\n", &[], &o).unwrap_err();
    assert_eq!(
        (e.source.as_str(), e.line, e.column),
        ("test.toml", Some(3), Some(18))
    );
    assert!(
        e.message
            .starts_with("limits.max_body_bytes: \"10MB\": \"MB\" is ambiguous"),
        "{e}"
    );
    let e = load("[limits]\nmax_body_bytes = \"5GiB\"\n", &[], &o).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(
        e.message.contains("5368709120 is outside 1..=4294967296"),
        "{e}"
    );
    let e = load("[limits]\nmax_body_bytes = -1\n", &[], &o).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.contains("negative"), "{e}");
    let e = load("[limits]\nmax_body_bytes = true\n", &[], &o).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    let e = load("", &[("UTF8GATE_LIMITS_MAX_BODY_BYTES", "1.5GiB")], &o).unwrap_err();
    assert_eq!(
        (e.source.as_str(), e.line),
        ("UTF8GATE_LIMITS_MAX_BODY_BYTES", None)
    );
    assert!(
        e.to_string()
            .starts_with("UTF8GATE_LIMITS_MAX_BODY_BYTES: \"1.5GiB\" is not a size"),
        "{e}"
    );
    // A file below the variable is not blamed for the variable's value.
    let file = "[limits]\nmax_body_bytes = \"1MiB\"\n";
    let e = load(file, &[("UTF8GATE_LIMITS_MAX_BODY_BYTES", "8M")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LIMITS_MAX_BODY_BYTES", "{e}");
    assert!(e.message.contains("write 8MiB"), "{e}");
    // Other integers keep their type: no units there.
    let e = load("", &[("UTF8GATE_LOG_BUFFER_LINES", "1KiB")], &o).unwrap_err();
    assert_eq!(e.source, "UTF8GATE_LOG_BUFFER_LINES", "{e}");
}

#[test]
fn listen_addresses_take_host_names_resolved_at_start_up() {
    let o = Overrides::default();
    let c = load("[listen]\napi_addr = \"localhost:8181\"\n", &[], &o).unwrap();
    assert_eq!(c.api_addr, "127.0.0.1:8181".parse().unwrap());
    let c = load("[listen]\nadmin_addr = \"[::1]:9191\"\n", &[], &o).unwrap();
    assert_eq!(c.admin_addr, "[::1]:9191".parse().unwrap());
    let flag = Overrides {
        proxy_addr: Some("localhost:0".into()),
        ..Overrides::default()
    };
    assert!(load("", &[], &flag).unwrap().proxy_addr.ip().is_loopback());
    // `.invalid` never resolves (RFC 6761).
    let e = load(
        "[listen]\n\napi_addr = \"no-such-host.invalid:80\"\n",
        &[],
        &o,
    )
    .unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(
        e.message
            .contains("\"no-such-host.invalid\" does not resolve"),
        "{e}"
    );
    for bad in [
        "localhost",
        "localhost:99999",
        "local host:80",
        "a..b:80",
        ":80",
    ] {
        let env = [("UTF8GATE_LISTEN_ADMIN_ADDR", bad)];
        let e = load("", &env, &o).unwrap_err();
        assert_eq!(e.source, "UTF8GATE_LISTEN_ADMIN_ADDR", "{bad}: {e}");
        assert!(e.message.contains("is not a socket address"), "{bad}: {e}");
    }
    let flag = Overrides {
        api_addr: Some("nowhere.invalid:1".into()),
        ..Overrides::default()
    };
    let e = load("", &[], &flag).unwrap_err();
    assert_eq!((e.source.as_str(), e.line), ("--api-addr", None), "{e}");
}

#[test]
fn the_memory_budget_defaults_to_96_mib_and_must_hold_the_largest_body_three_times() {
    let o = Overrides::default();
    let c = load("", &[], &o).unwrap();
    assert_eq!(c.max_buffered_bytes, 96 << 20);
    assert_eq!(c.buffer_wait, std::time::Duration::from_millis(200));
    let env = [
        ("UTF8GATE_LIMITS_MAX_BUFFERED_BYTES", "1GiB"),
        ("UTF8GATE_LIMITS_BUFFER_WAIT_SECONDS", "0"),
    ];
    let c = load("", &env, &o).unwrap();
    assert_eq!(
        (c.max_buffered_bytes, c.buffer_wait.as_millis()),
        (1 << 30, 0)
    );
    // 3 × max_body_bytes exactly is enough; a byte less is not.
    let file = "[limits]\nmax_body_bytes = \"1MiB\"\nmax_buffered_bytes = \"3MiB\"\n";
    assert_eq!(load(file, &[], &o).unwrap().max_buffered_bytes, 3 << 20);
    let file = "[limits]\nmax_body_bytes = \"1MiB\"\nmax_buffered_bytes = 3145727\n";
    let e = load(file, &[], &o).unwrap_err();
    assert_eq!((e.line, e.column), (Some(3), Some(22)), "{e}");
    assert!(
        e.message.starts_with("limits.max_buffered_bytes: 3145727 cannot hold one body of limits.max_body_bytes (1048576 bytes) times 3"),
        "{e}"
    );
    // A route's own limit, and the gRPC check's message when it is on, count too.
    let route = "[[route]]\nname = \"big\"\nmax_body_bytes = \"64MiB\"\n";
    let e = load(route, &[], &o).unwrap_err();
    assert!(e.message.contains("route \"big\": max_body_bytes"), "{e}");
    assert!(e.message.contains("at least 201326592"), "{e}");
    let env = [("UTF8GATE_LIMITS_MAX_BUFFERED_BYTES", "192MiB")];
    assert!(load(route, &env, &o).is_ok());
    let grpc =
        "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n[limits]\nmax_buffered_bytes = \"24MiB\"\n";
    let e = load(grpc, &[], &o).unwrap_err();
    assert!(e.message.contains("gRPC"), "{e}");
    let e = load("[limits]\nbuffer_wait_seconds = -1.0\n", &[], &o).unwrap_err();
    assert!(e.message.contains("buffer_wait_seconds"), "{e}");
}
