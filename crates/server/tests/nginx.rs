//! Real nginx (Debian's package) as an `auth_request` client of utf8gate's `/authz/forward`,
//! with `deploy/nginx/auth_request.conf` as its configuration.
//!
//! Needs `/usr/sbin/nginx` (or `nginx` on PATH); CI installs it and sets
//! `REQUIRE_NGINX=1`, which turns a missing nginx into a failure instead of a skip.

use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Request;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use utf8gate_server::listen::serve::{Limits, Listener, run};
use utf8gate_server::listen::stack::serving;
use utf8gate_server::{AppState, Config, routers};

fn nginx_binary() -> Option<PathBuf> {
    let candidates = [PathBuf::from("/usr/sbin/nginx")];
    candidates.into_iter().find(|p| p.exists()).or_else(|| {
        let out = Command::new("sh")
            .args(["-c", "command -v nginx"])
            .output()
            .ok()?;
        let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (!path.is_empty()).then(|| PathBuf::from(path))
    })
}

/// What reached the application: the target and the decision header.
type Seen = (String, Option<String>);

/// nginx started in a process group of its own: the master and its workers are killed
/// together when dropped (killing the master alone left its worker running after the suite).
struct Nginx(Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn write_config(dir: &Path, listen: u16, app: SocketAddr, api: SocketAddr) -> PathBuf {
    let site = include_str!("../../../deploy/nginx/auth_request.conf")
        .replace("@LISTEN@", &format!("127.0.0.1:{listen}"))
        .replace("@APP@", &app.to_string())
        .replace("@UTF8GATE@", &api.to_string());
    std::fs::write(dir.join("site.conf"), site).expect("write site.conf");
    let d = dir.display();
    let main = format!(
        "worker_processes 1;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  include {d}/site.conf;\n}}\n"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, main).expect("write nginx.conf");
    path
}

/// Sends raw bytes, returns the status code and the whole response.
async fn raw(addr: SocketAddr, request: &[u8]) -> (u16, Vec<u8>) {
    let mut stream = tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr))
        .await
        .expect("connect in time")
        .expect("connect");
    stream.write_all(request).await.expect("write");
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("response in time")
        .expect("read");
    let status = std::str::from_utf8(&response[9..12.min(response.len())])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, response)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nginx_auth_request_allows_clean_and_denies_tricks() {
    let Some(nginx) = nginx_binary() else {
        assert!(
            std::env::var_os("REQUIRE_NGINX").is_none(),
            "nginx is required but not installed"
        );
        eprintln!("skipped: nginx is not installed");
        return;
    };
    // The application: records what reaches it.
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = seen.clone();
    let app = axum::Router::new().fallback(move |request: Request| {
        let record = record.clone();
        async move {
            let decision = request
                .headers()
                .get("utf8gate-decision")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            record
                .lock()
                .expect("lock")
                .push((request.uri().to_string(), decision));
            "app says hi"
        }
    });
    let app = Listener::bind("app", "127.0.0.1:0".parse().expect("addr"), serving(app))
        .await
        .expect("bind app");
    let app_addr = app.local_addr().expect("addr");
    // One route refuses checks that come without the body (`require_body`).
    let toml = "[[route]]\nname = \"uploads\"\npaths = [\"/upload/\"]\nrequire_body = true\n";
    let config = Config::load(toml, "nginx.rs", &[], &Default::default(), &|_| None);
    let state = AppState::new(config.expect("valid configuration"));
    let (_, api, _) = routers(&state);
    let api = Listener::bind("api", "127.0.0.1:0".parse().expect("addr"), serving(api))
        .await
        .expect("bind api");
    let api_addr = api.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(run(
        vec![app, api],
        Limits {
            max_header_bytes: 65536,
            header_timeout: Duration::from_secs(5),
            http2: utf8gate_server::ops::config::Config::default_config().http2,
        },
        Duration::from_secs(1),
        async {
            let _ = stopped.await;
        },
    ));

    let dir = std::env::temp_dir().join(format!("utf8gate-nginx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let port = free_port();
    let conf = write_config(&dir, port, app_addr, api_addr);
    let check = Command::new(&nginx)
        .arg("-t")
        .arg("-c")
        .arg(&conf)
        .arg("-p")
        .arg(&dir)
        .output()
        .expect("nginx -t runs");
    assert!(
        check.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    let _nginx = Nginx(
        Command::new(&nginx)
            .arg("-c")
            .arg(&conf)
            .arg("-p")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("nginx starts"),
    );
    let front: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    let mut up = false;
    for _ in 0..100 {
        if TcpStream::connect(front).await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        up,
        "nginx did not listen within 5 s: {}",
        std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
    );

    let (status, body) = raw(
        front,
        b"GET /shop?q=Gr%C3%BC%C3%9Fe HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert!(body.ends_with(b"app says hi"));
    let (status, _) = raw(
        front,
        b"GET /files/%c0%ae%c0%ae/etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = raw(front, b"GET /profile HTTP/1.1\r\nHost: t\r\nX-Name: \xED\xA0\xBD\xED\xB8\x80\r\nConnection: close\r\n\r\n").await;
    assert_eq!(status, 403);
    let (status, _) = raw(
        front,
        b"GET /a/%u002e%u002e/b HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    )
    .await;
    // nginx's own URI parser refuses IIS %u escapes with 400 before asking utf8gate.
    assert_eq!(status, 400);

    // auth_request sends no body; the shipped file passes its length: the check says the body
    // was not inspected (allowed, logged and counted), and the route with `require_body`
    // refuses it.
    let post = |path: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
             Content-Length: 14\r\nConnection: close\r\n\r\n{{\"a\":\"\\u0000\"}}"
        )
    };
    let (status, _) = raw(front, post("/form").as_bytes()).await;
    assert_eq!(status, 200);
    let (status, _) = raw(front, post("/upload/a").as_bytes()).await;
    assert_eq!(status, 403);

    let seen = seen.lock().expect("lock").clone();
    assert_eq!(
        seen,
        [
            (
                "/shop?q=Gr%C3%BC%C3%9Fe".to_string(),
                Some("allow".to_string())
            ),
            ("/form".to_string(), Some("allow".to_string()))
        ],
        "only the clean request and the one whose body was not inspected reach the app"
    );
    let metrics = state.metrics.render();
    assert!(
        metrics.contains(
            "utf8gate_requests_total{decision=\"reject\",mode=\"authz\",route=\"default\"} 2"
        ),
        "{metrics}"
    );
    assert!(
        metrics
            .contains("utf8gate_findings_total{kind=\"body_not_inspected\",location=\"body\"} 2"),
        "{metrics}"
    );
    let _ = stop.send(());
    let _ = server.await;
    let _ = std::fs::remove_dir_all(&dir);
}
