//! Round trips per second of text messages through a WebSocket tunnel of utf8gate, beside the
//! same exchange straight with the echoing upstream (the baseline, in the same run): one
//! client sends a message and waits for its echo, 1 KiB and 64 KiB messages of mixed scripts.
//! Every message is validated and evaluated by the `strict` profile on its way in, and the
//! echo validated on its way back (`server_text = "log"`).
//!
//! ```sh
//! cargo test --release -p utf8gate-e2e --no-run   # builds the binary under test beside it
//! cargo run --release -p utf8gate-e2e --example ws_throughput
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use utf8gate_e2e::{Gateway, OP_TEXT, WsAnswer, WsClient, WsUpstream};

/// A valid NFC text of `size` bytes (cut at a character boundary), several scripts.
fn text(size: usize) -> String {
    let piece = "Grüße aus Köln, 日本語のテキスト, Ελληνικά, русский текст, עברית, हिन्दी ";
    let mut out = String::with_capacity(size + piece.len());
    while out.len() < size {
        out.push_str(piece);
    }
    let mut end = size;
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

/// Round trips per second of `count` messages of `message` to `addr`.
async fn round_trips(addr: SocketAddr, message: &[u8], count: usize) -> f64 {
    let (mut client, head) = WsClient::open(addr, &WsClient::handshake(addr, ""))
        .await
        .expect("handshake");
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    let started = Instant::now();
    for _ in 0..count {
        client.send(true, OP_TEXT, message).await.expect("send");
        let echo = client.recv(Duration::from_secs(10)).await.expect("echo");
        assert_eq!(echo.payload.len(), message.len());
    }
    count as f64 / started.elapsed().as_secs_f64()
}

/// nginx tunnelling the same upstream (`proxy_http_version 1.1` with `Upgrade` and
/// `Connection` passed on), if `/usr/sbin/nginx` is here: its address and the process.
fn nginx(upstream: SocketAddr) -> Option<(SocketAddr, std::process::Child, std::path::PathBuf)> {
    let binary = std::path::Path::new("/usr/sbin/nginx");
    if !binary.exists() {
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .ok()?
        .port();
    let dir = std::env::temp_dir().join(format!("utf8gate-ws-nginx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let d = dir.display();
    let conf = format!(
        "worker_processes 1;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
         server {{\n    listen 127.0.0.1:{port};\n    location / {{\n      proxy_pass http://{upstream};\n      \
         proxy_http_version 1.1;\n      proxy_set_header Upgrade $http_upgrade;\n      \
         proxy_set_header Connection \"upgrade\";\n      proxy_read_timeout 60s;\n    }}\n  }}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).ok()?;
    let child = std::process::Command::new(binary)
        .args(["-p", &d.to_string(), "-c", &format!("{d}/nginx.conf")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    for _ in 0..50 {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Some((addr, child, dir));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn reps(v: &[f64]) -> String {
    let each: Vec<String> = v.iter().map(|x| format!("{x:.0}")).collect();
    format!("{:.0} ({})", median(v), each.join(" "))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let upstream = WsUpstream::start(WsAnswer::Echo).await;
    let toml = "[websocket]\nmax_frame_bytes = \"1MiB\"\n";
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    let mut nginx = nginx(upstream.addr);
    println!(
        "| message | direct | nginx | utf8gate | utf8gate / nginx | utf8gate / direct | MB/s through utf8gate (both ways) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (size, count) in [(1024, 5000), (64 * 1024, 1000)] {
        let message = text(size);
        // Warm-up, then three reps, each: direct, nginx, utf8gate. Medians, every rep shown.
        round_trips(gw.proxy, message.as_bytes(), count / 10).await;
        let (mut direct, mut through, mut by_nginx) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..3 {
            direct.push(round_trips(upstream.addr, message.as_bytes(), count).await);
            if let Some((addr, _, _)) = &nginx {
                by_nginx.push(round_trips(*addr, message.as_bytes(), count).await);
            }
            through.push(round_trips(gw.proxy, message.as_bytes(), count).await);
        }
        let (d, t) = (median(&direct), median(&through));
        let n = (!by_nginx.is_empty()).then(|| median(&by_nginx));
        let mb = t * 2.0 * message.len() as f64 / 1e6;
        println!(
            "| {} KiB | {} | {} | {} | {} | {:.2} | {mb:.1} |",
            size / 1024,
            reps(&direct),
            if by_nginx.is_empty() {
                "-".to_string()
            } else {
                reps(&by_nginx)
            },
            reps(&through),
            n.map_or("-".to_string(), |n| format!("{:.2}", t / n)),
            t / d
        );
    }
    if let Some((_, child, dir)) = nginx.as_mut() {
        // TERM, so that the master stops its worker too (a KILLed master leaves it running).
        let pid = child.id().to_string();
        let _ = std::process::Command::new("kill").arg(&pid).status();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(dir);
    }
}
