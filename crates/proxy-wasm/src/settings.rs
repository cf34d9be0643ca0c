//! The plugin configuration: a TOML document, or the same keys as a JSON object (Istio's
//! `WasmPlugin.pluginConfig` reaches the filter as JSON). Empty: every default.
//!
//! ```toml
//! profile = "strict"              # a built-in profile (default "strict")
//! profile_toml = '''              # or a profile file's text, as policy.profile_files reads it
//! name = "app"
//! base = "strict"
//! '''
//! reject_status = 400             # status of a rejected request (415 for codings only)
//! detail = "full"                 # full | minimal: what a problem says (errors.detail)
//! max_body_bytes = 8388608        # the most body buffered and read
//! over_limit = "refuse"           # refuse (413) | pass (the first max_body_bytes checked)
//! body_rewrite = "refuse"         # refuse | reframe: a sanitized body of another length
//! ```
//!
//! `body_rewrite`: a proxy-wasm filter is given a request's body only after its head has gone
//! on (a later filter may hold it, but this one can no longer change it), so a body the
//! sanitizer rewrites cannot take a new `Content-Length` from it. `refuse` keeps
//! `Content-Length` and refuses a request whose sanitized body is of another length
//! (reject_status, the `rejected` problem saying so). `reframe` removes `Content-Length` from
//! every request with a body as its head goes on, so that a rewritten body of any length goes
//! on: Envoy's buffer filter after this one (as `deploy/envoy/envoy-wasm.yaml` ships it) sets
//! the true length of the whole body again; without it the body goes on chunked, which some
//! backends (Django's among them) do not read.

use serde::Deserialize;
use utf8gate_policy::Profile;
use utf8gate_policy::answer::Answering;

/// The server's `limits.max_body_bytes` default: 8 MiB.
pub const DEFAULT_MAX_BODY_BYTES: u64 = 8 << 20;

/// What a body longer than `max_body_bytes` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverLimit {
    /// 413 with the `body-too-large` problem, as the proxy answers.
    Refuse,
    /// Its first `max_body_bytes` checked as a cut body (the profile's `body_not_inspected`
    /// action applies; a body read as fields is refused), the rest passed unread.
    Pass,
}

/// What a sanitized body of another length than the received one gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRewrite {
    /// `Content-Length` kept; such a request is refused.
    Refuse,
    /// `Content-Length` removed from requests with a body; it goes on rewritten.
    Reframe,
}

/// The filter's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The profile every request is evaluated under.
    pub profile: Profile,
    /// How a refusal is answered.
    pub answering: Answering,
    /// The most body bytes buffered and read.
    pub max_body_bytes: u64,
    /// What a longer body gets.
    pub over_limit: OverLimit,
    /// What a sanitized body of another length gets.
    pub body_rewrite: BodyRewrite,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            profile: Profile::strict(),
            answering: Answering::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            over_limit: OverLimit::Refuse,
            body_rewrite: BodyRewrite::Refuse,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawSettings {
    profile: Option<String>,
    profile_toml: Option<String>,
    reject_status: Option<u16>,
    detail: Option<String>,
    max_body_bytes: Option<u64>,
    over_limit: Option<String>,
    body_rewrite: Option<String>,
}

impl Settings {
    /// Reads a plugin configuration: JSON when it starts with `{`, TOML otherwise. An error
    /// says which key is wrong and why; the host then refuses the configuration.
    pub fn parse(configuration: &[u8]) -> Result<Settings, String> {
        let text = std::str::from_utf8(configuration)
            .map_err(|e| format!("the configuration is not UTF-8: {e}"))?;
        let raw: RawSettings = match text.trim_start().starts_with('{') {
            true => serde_json::from_str(text).map_err(|e| format!("configuration: {e}"))?,
            false => toml::from_str(text).map_err(|e| format!("configuration: {e}"))?,
        };
        let profile = match (raw.profile_toml, raw.profile) {
            (Some(_), Some(_)) => {
                return Err("set profile or profile_toml, not both".to_string());
            }
            (Some(text), None) => Profile::from_toml(&text, "profile_toml")
                .map_err(|e| format!("profile_toml: {e}"))?,
            (None, Some(name)) => Profile::built_in(&name).ok_or_else(|| {
                let known = Profile::BUILT_IN.join(", ");
                format!("profile: unknown profile {name:?} (built in: {known})")
            })?,
            (None, None) => Profile::strict(),
        };
        let mut settings = Settings {
            profile,
            ..Settings::default()
        };
        if let Some(status) = raw.reject_status {
            if !(400..=599).contains(&status) {
                return Err(format!("reject_status: {status} is not 400..=599"));
            }
            settings.answering.reject_status = status;
        }
        settings.answering.full_detail = match raw.detail.as_deref() {
            None | Some("full") => true,
            Some("minimal") => false,
            Some(other) => return Err(format!("detail: {other:?} is not full or minimal")),
        };
        if let Some(bytes) = raw.max_body_bytes {
            if bytes == 0 {
                return Err("max_body_bytes: must be at least 1".to_string());
            }
            settings.max_body_bytes = bytes;
        }
        settings.over_limit = match raw.over_limit.as_deref() {
            None | Some("refuse") => OverLimit::Refuse,
            Some("pass") => OverLimit::Pass,
            Some(other) => return Err(format!("over_limit: {other:?} is not refuse or pass")),
        };
        settings.body_rewrite = match raw.body_rewrite.as_deref() {
            None | Some("refuse") => BodyRewrite::Refuse,
            Some("reframe") => BodyRewrite::Reframe,
            Some(other) => return Err(format!("body_rewrite: {other:?} is not refuse or reframe")),
        };
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_and_json_say_the_same() {
        let toml = b"profile = \"lossy\"\nreject_status = 422\ndetail = \"minimal\"\nmax_body_bytes = 1024\nover_limit = \"pass\"\nbody_rewrite = \"reframe\"\n";
        let json = br#"{"profile": "lossy", "reject_status": 422, "detail": "minimal", "max_body_bytes": 1024, "over_limit": "pass", "body_rewrite": "reframe"}"#;
        for text in [&toml[..], &json[..]] {
            let s = Settings::parse(text).unwrap();
            assert_eq!(&*s.profile.name, "lossy");
            assert_eq!(s.answering.reject_status, 422);
            assert!(!s.answering.full_detail);
            assert_eq!((s.max_body_bytes, s.over_limit), (1024, OverLimit::Pass));
            assert_eq!(s.body_rewrite, BodyRewrite::Reframe);
        }
        let empty = Settings::parse(b"").unwrap();
        assert_eq!(&*empty.profile.name, "strict");
        assert_eq!(empty.max_body_bytes, DEFAULT_MAX_BODY_BYTES);
    }

    #[test]
    fn a_profile_file_is_read_as_the_server_reads_it() {
        let text = "profile_toml = '''\nname = \"app\"\nbase = \"strict\"\nmonitor = true\n'''\n";
        let s = Settings::parse(text.as_bytes()).unwrap();
        assert_eq!(&*s.profile.name, "app");
        assert!(s.profile.monitor);
    }

    #[test]
    fn mistakes_are_named() {
        for (text, says) in [
            ("profile = \"nope\"", "unknown profile"),
            ("reject_status = 200", "reject_status"),
            ("detail = \"some\"", "detail"),
            ("over_limit = \"drop\"", "over_limit"),
            ("body_rewrite = \"pad\"", "body_rewrite"),
            ("max_body_bytes = 0", "max_body_bytes"),
            ("colour = 1", "colour"),
            (
                "profile = \"strict\"\nprofile_toml = \"name = 'a'\"",
                "not both",
            ),
            (
                "profile_toml = \"name = 'a'\\nbase = 'none'\"",
                "profile_toml",
            ),
        ] {
            let error = Settings::parse(text.as_bytes()).unwrap_err();
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }
}
