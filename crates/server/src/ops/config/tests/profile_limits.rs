//! The server's `[limits]` and the profiles' own limits.

use super::*;

fn with_profile(config: &str, profile: &str) -> Result<Config, ConfigError> {
    let text = format!("[policy]\nprofile_files = [\"custom.toml\"]\n{config}");
    Config::load(&text, "test.toml", &[], &Overrides::default(), &|name| {
        (name == "custom.toml").then(|| format!("name = \"custom\"\n{profile}"))
    })
}

#[test]
fn a_profile_s_own_lower_limit_stays_and_a_higher_one_is_capped() {
    let c = with_profile(
        "",
        "[limits]\nmax_json_depth = 8\nmax_multipart_parts = 5\n",
    )
    .unwrap();
    let l = c.profiles["custom"].limits;
    assert_eq!((l.max_json_depth, l.max_multipart_parts), (8, 5));
    let profile = "[limits]\nmax_json_depth = 1000\nmax_multipart_parts = 5000\n";
    let c = with_profile("[limits]\nmax_json_depth = 64\n", profile).unwrap();
    let l = c.profiles["custom"].limits;
    assert_eq!((l.max_json_depth, l.max_multipart_parts), (64, 100));
}

#[test]
fn profiles_that_set_no_limit_of_their_own_take_the_server_s() {
    let server = "[limits]\nmax_json_depth = 200\nmax_multipart_parts = 300\n";
    // A [limits] table without these keys does not set them either.
    let c = with_profile(server, "base = \"lossy\"\n[limits]\nmax_codings = 1\n").unwrap();
    for p in c.profiles.values() {
        let l = p.limits;
        assert_eq!(
            (l.max_json_depth, l.max_multipart_parts),
            (200, 300),
            "{}",
            p.name
        );
    }
    assert_eq!(c.profiles.len(), 5);
}

#[test]
fn a_profile_file_s_errors_have_its_line_and_column() {
    let e = with_profile("", "[limits]\nmax_json_depth = \"deep\"\n").unwrap_err();
    assert_eq!(
        (e.source.as_str(), e.line, e.column),
        ("custom.toml", Some(3), Some(18)),
        "{e}"
    );
    let e = Config::load(
        "[policy]\nprofile_files = [\"a.toml\", \"missing.toml\"]\n",
        "test.toml",
        &[],
        &Overrides::default(),
        &|name| (name == "a.toml").then(|| "name = \"a\"\n".to_string()),
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (Some(2), Some(28)), "{e}");
    assert!(e.message.contains("cannot read \"missing.toml\""), "{e}");
}

#[test]
fn archive_limits_are_server_defaults_and_caps() {
    let server = "[limits]\nmax_archive_entries = 10\nmax_archive_depth = 3\nmax_archive_unpacked_bytes = \"1MiB\"\n";
    let c = with_profile(
        server,
        "[limits]\nmax_archive_entries = 5\nmax_archive_depth = 9\n",
    )
    .unwrap();
    let l = c.profiles["custom"].limits;
    // Its own lower value stays, a higher one is capped, an unset one is the server's.
    assert_eq!((l.max_archive_entries, l.max_archive_depth), (5, 3));
    assert_eq!(l.max_archive_unpacked_bytes, 1 << 20);
    let strict = c.profiles["strict"].limits;
    assert_eq!(
        (strict.max_archive_entries, strict.max_archive_name_bytes),
        (10, 4096)
    );
    let e = with_profile("[limits]\nmax_archive_depth = 0\n", "").unwrap_err();
    assert!(e.to_string().contains("max_archive_depth"), "{e}");
}

#[test]
fn multipart_depth_is_a_server_default_and_cap() {
    let c = with_profile(
        "[limits]\nmax_multipart_depth = 3\n",
        "[limits]\nmax_multipart_depth = 9\n",
    )
    .unwrap();
    assert_eq!(c.profiles["custom"].limits.max_multipart_depth, 3);
    assert_eq!(c.profiles["strict"].limits.max_multipart_depth, 3);
    let c = with_profile("", "[limits]\nmax_multipart_depth = 1\n").unwrap();
    assert_eq!(c.profiles["custom"].limits.max_multipart_depth, 1);
    assert_eq!(c.profiles["strict"].limits.max_multipart_depth, 2);
    let e = with_profile("[limits]\nmax_multipart_depth = 17\n", "").unwrap_err();
    assert!(e.to_string().contains("max_multipart_depth"), "{e}");
}
