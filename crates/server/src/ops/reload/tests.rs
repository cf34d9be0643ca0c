//! The reload decision: a valid configuration is swapped in, an invalid one is kept out with
//! its file and line, one that changes restart-only keys is refused naming each of them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use super::*;
use crate::ops::config::{Overrides, Source};

/// A configuration file of its own for one test, removed when dropped.
struct File(PathBuf);

impl File {
    fn new(text: &str) -> File {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("utf8gate-reload-{}-{n}.toml", std::process::id());
        let file = File(std::env::temp_dir().join(name));
        file.write(text);
        file
    }

    fn write(&self, text: &str) {
        std::fs::write(&self.0, text).expect("write the configuration file");
    }

    fn source(&self) -> Source {
        Source {
            file: Some(self.0.clone()),
            ..Source::default()
        }
    }
}

impl Drop for File {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A state started from `file` as `serve --config FILE` is.
fn started(file: &File) -> AppState {
    let config = file.source().read(&[]).expect("a valid configuration");
    AppState::new(config).reloadable(file.source())
}

fn reloads(state: &AppState, result: &str) -> f64 {
    let text = state.metrics.render();
    let key = format!("utf8gate_config_reloads_total{{result=\"{result}\"}} ");
    let line = text.lines().find(|l| l.starts_with(&key));
    let value = line.and_then(|l| l.rsplit(' ').next()?.parse().ok());
    value.unwrap_or_else(|| panic!("no {key} in\n{text}"))
}

#[tokio::test]
async fn a_valid_configuration_is_swapped_in_and_requests_in_flight_keep_theirs() {
    let file = File::new("[policy]\nprofile = \"strict\"\n");
    let state = started(&file);
    let in_flight = state.snapshot();
    file.write(
        "[policy]\nprofile = \"lossy\"\n\n[[route]]\nname = \"wiki\"\npaths = [\"/wiki/\"]\n",
    );
    assert_eq!(reload(&state).await, Ok(()));
    let now = state.snapshot();
    assert_eq!(now.config.profile, "lossy");
    let default = now.gate.profile(None).map(|p| p.name.clone()).ok();
    assert_eq!(default.as_deref(), Some("lossy"));
    assert_eq!(now.config.routes.list().len(), 1);
    assert_eq!(
        in_flight.config.profile, "strict",
        "a loaded snapshot never changes"
    );
    assert_eq!(
        (reloads(&state, "ok"), reloads(&state, "error")),
        (1.0, 0.0)
    );
    // The new route's series exist from the reload on, at 0.
    let text = state.metrics.render();
    let series = "utf8gate_requests_total{decision=\"reject\",mode=\"proxy\",route=\"wiki\"} 0";
    assert!(text.contains(series), "{text}");
}

#[tokio::test]
async fn an_invalid_configuration_is_refused_with_its_file_and_line_and_the_old_one_stays() {
    let file = File::new("[policy]\nprofile = \"lossy\"\n");
    let state = started(&file);
    file.write("[policy]\nprofile = \"strict\"\n\n[limits]\nmax_bodee_bytes = 1\n");
    let Err(ReloadError::Invalid(e)) = reload(&state).await else {
        panic!("an unknown key was reloaded");
    };
    assert_eq!(
        (e.source.as_str(), e.line),
        (file.0.to_str().unwrap(), Some(5)),
        "{e}"
    );
    let shown = ReloadError::Invalid(e).to_string();
    assert!(
        shown.starts_with(&format!("{}:5:", file.0.display())),
        "{shown}"
    );
    assert_eq!(state.snapshot().config.profile, "lossy");
    // A profile file that is not there, and a file that went away, are refused alike.
    file.write("[policy]\nprofile_files = [\"/nonexistent/p.toml\"]\n");
    let Err(ReloadError::Invalid(e)) = reload(&state).await else {
        panic!("a missing profile file was reloaded");
    };
    assert_eq!(e.line, Some(2), "{e}");
    std::fs::remove_file(&file.0).expect("remove");
    let Err(ReloadError::Invalid(e)) = reload(&state).await else {
        panic!("a missing file was reloaded");
    };
    assert!(e.message.contains("cannot read it"), "{e}");
    assert_eq!(state.snapshot().config.profile, "lossy");
    assert_eq!(
        (reloads(&state, "ok"), reloads(&state, "error")),
        (0.0, 3.0)
    );
}

#[tokio::test]
async fn a_change_of_restart_only_keys_is_refused_as_a_whole_naming_each_key() {
    let file = File::new("");
    let state = started(&file);
    file.write(
        "[policy]\nprofile = \"lossy\"\n[listen]\napi_addr = \"127.0.0.1:1\"\nproxy_threads = 3\n\
         [websocket]\nmax_tunnels = 5\n[log]\nlevel = \"debug\"\n",
    );
    let refused = reload(&state).await;
    let expected = vec![
        "listen.api_addr",
        "listen.proxy_threads",
        "log.level",
        "websocket.max_tunnels",
    ];
    let name = file.0.display().to_string();
    assert_eq!(refused, Err(ReloadError::RestartOnly(name, expected)));
    let shown = refused.unwrap_err().to_string();
    assert!(
        shown.contains(
            "restart: listen.api_addr, listen.proxy_threads, log.level, websocket.max_tunnels"
        ),
        "{shown}"
    );
    assert_eq!(
        state.snapshot().config.profile,
        "strict",
        "nothing was reloaded"
    );
    assert_eq!(reloads(&state, "error"), 1.0);
    // Set back, the same file reloads.
    file.write("[policy]\nprofile = \"lossy\"\n");
    assert_eq!(reload(&state).await, Ok(()));
    assert_eq!(state.snapshot().config.profile, "lossy");
}

#[test]
fn max_body_bytes_is_restart_only_only_with_the_grpc_check() {
    let load = |text: &str| {
        Config::load(text, "t.toml", &[], &Overrides::default(), &|_| None).expect("valid")
    };
    let old = load("");
    let new = load("[limits]\nmax_body_bytes = 1000\n");
    assert_eq!(restart_only_changes(&old, &new), Vec::<&str>::new());
    assert!(decide(&old, "t.toml", Ok(new)).is_ok());
    let grpc = "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n";
    let old = load(grpc);
    let new = load(&format!("{grpc}[limits]\nmax_body_bytes = 1000\n"));
    assert_eq!(restart_only_changes(&old, &new), ["limits.max_body_bytes"]);
    let invalid = Err(ConfigError {
        source: "t.toml".into(),
        line: Some(1),
        column: Some(1),
        message: "bad".into(),
    });
    assert!(matches!(
        decide(&old, "t.toml", invalid),
        Err(ReloadError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_state_without_a_source_refuses_to_reload() {
    let state = AppState::new(Config::default_config());
    assert_eq!(reload(&state).await, Err(ReloadError::NoSource));
    assert_eq!(reloads(&state, "error"), 1.0);
}

#[test]
fn every_restart_only_key_is_a_key_of_the_configuration() {
    let default: toml::Table = toml::from_str(crate::ops::config::DEFAULT_TOML).expect("TOML");
    for (key, _) in RESTART_ONLY {
        let (section, name) = key.split_once('.').expect("section.key");
        let found = default.get(section).and_then(|s| s.get(name));
        assert!(found.is_some(), "{key} is not in config/utf8gate.toml");
    }
}

#[test]
fn one_thread_per_core_is_no_change_when_the_cores_change() {
    let old = Config::default_config();
    let mut new = Config::default_config();
    assert_eq!(new.proxy_threads_set, 0);
    // A resized container's CPU quota: another count of cores behind the same setting.
    new.proxy_threads = old.proxy_threads + 1;
    assert!(restart_only_changes(&old, &new).is_empty());
    new.proxy_threads_set = old.proxy_threads + 1;
    assert_eq!(restart_only_changes(&old, &new), ["listen.proxy_threads"]);
}

#[test]
fn the_docs_name_every_restart_only_key() {
    let operations = include_str!("../../../../../docs/operations.md");
    let config = include_str!("../../../../../docs/config.md");
    let section = |doc: &'static str, from: &str, to: &str| {
        let start = doc.find(from).unwrap_or_else(|| panic!("no {from:?}"));
        let rest = &doc[start..];
        &rest[..rest.find(to).unwrap_or(rest.len())]
    };
    let table = section(
        operations,
        "| restart-only key |",
        "Everything else reloads",
    );
    let paragraph = section(config, "**Reload.**", "\n\n");
    for (key, _) in RESTART_ONLY {
        let quoted = format!("`{key}`");
        assert!(
            table.contains(&quoted),
            "docs/operations.md#reload lacks {key}"
        );
        assert!(
            paragraph.contains(&quoted),
            "docs/config.md's Reload lacks {key}"
        );
    }
}
