//! HAProxy (Debian's `haproxy`, 2.6) in front of utf8gate's proxy listener, as a TLS front
//! would be (without the TLS): `option forwardfor`, an `X-Forwarded-Proto` it sets, and its
//! source address in `listen.trusted_proxies`. Three loopback addresses keep the chain
//! readable: the client connects from 127.0.0.2, HAProxy connects to utf8gate from 127.0.0.3
//! (`source`), utf8gate listens on 127.0.0.1.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::Command;
use std::time::Duration;

use utf8gate_e2e::{
    Gateway, ProcessGroup, RawResponse, Recorded, ScratchDir, Upstream, exchange_from, free_port,
    front_tool, request,
};

use crate::support::*;

const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
const HAPROXY_SOURCE: &str = "127.0.0.3";

/// The configuration of docs/operations.md ("HAProxy"), on loopback ports. The proto is a
/// constant `https` here, where the front has no TLS, so that it differs from utf8gate's own
/// `http`; with TLS it is `http-request set-header X-Forwarded-Proto https if { ssl_fc }`.
fn config(listen: SocketAddr, gateway: SocketAddr) -> String {
    format!(
        "global\n    maxconn 64\n\n\
         defaults\n    mode http\n    timeout connect 5s\n    timeout client 10s\n    timeout server 10s\n\n\
         frontend web\n    bind {listen}\n    option forwardfor\n\
         \x20   http-request del-header X-Forwarded-For\n\
         \x20   http-request del-header X-Forwarded-Host\n\
         \x20   http-request del-header Forwarded\n\
         \x20   http-request set-header X-Forwarded-Proto https\n\
         \x20   default_backend utf8gate\n\n\
         backend utf8gate\n    server gate {gateway} source {HAPROXY_SOURCE}\n"
    )
}

async fn send(from: IpAddr, addr: SocketAddr, bytes: &[u8]) -> RawResponse {
    Box::pin(exchange_from(from, addr, bytes)).await
}

fn header<'a>(r: &'a Recorded, name: &str) -> &'a str {
    std::str::from_utf8(r.header(name).unwrap_or_default()).unwrap_or("(not UTF-8)")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn haproxy_in_front_gives_the_upstream_the_client_chain_and_proto() {
    let Some(bin) = front_tool(
        "haproxy",
        "HAPROXY_BIN",
        &["/usr/sbin/haproxy"],
        "REQUIRE_HAPROXY",
    ) else {
        return;
    };
    let upstream = Upstream::start().await;
    let toml = format!("[listen]\ntrusted_proxies = [\"{HAPROXY_SOURCE}/32\"]\n");
    let gw = Box::pin(Gateway::start(&toml, Some(&upstream.url()))).await;
    let dir = ScratchDir::new("haproxy");
    let listen: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
    let cfg = dir.write("haproxy.cfg", config(listen, gw.proxy).as_bytes());
    let check = Command::new(&bin)
        .arg("-c")
        .arg("-f")
        .arg(&cfg)
        .output()
        .expect("haproxy -c");
    assert!(
        check.status.success(),
        "haproxy -c: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let mut command = Command::new(&bin);
    command.arg("-db").arg("-f").arg(&cfg);
    let mut haproxy = ProcessGroup::spawn("haproxy", command, &dir.path().join("haproxy.log"));
    haproxy
        .wait_listening(listen, Duration::from_secs(10))
        .await;

    // Through HAProxy: a non-ASCII request, with forged forwarding headers that HAProxy drops
    // or overwrites (del-header, set-header, and forwardfor's own line).
    let target = "/caf%C3%A9/%D0%BC%D0%B8%D1%80?q=%CE%BA%CE%B1%CE%BB%CE%B7%CE%BC%CE%AD%CF%81%CE%B1";
    let body = "नमस्ते مرحبا 東京 👍".as_bytes();
    let forged: [(&str, &[u8]); 4] = [
        ("X-Forwarded-For", b"203.0.113.9"),
        ("X-Forwarded-Proto", b"gopher"),
        ("X-Forwarded-Host", b"evil.example"),
        ("Forwarded", b"for=203.0.113.9"),
    ];
    let mut headers = forged.to_vec();
    headers.push(("Content-Type", b"text/plain; charset=utf-8"));
    let response = send(CLIENT, listen, &request("POST", target, &headers, body)).await;
    assert_eq!(
        response.status,
        200,
        "{}\n{}",
        response.text(),
        haproxy.log()
    );
    let through = upstream
        .records()
        .pop()
        .expect("a request reached the upstream");
    assert_eq!(through.target, target);
    assert_eq!(through.body, body);
    assert_eq!(
        header(&through, "x-forwarded-for"),
        "127.0.0.2, 127.0.0.3",
        "client (from HAProxy's forwardfor), then HAProxy (appended by utf8gate)"
    );
    assert_eq!(
        header(&through, "x-forwarded-proto"),
        "https",
        "HAProxy's, kept"
    );
    assert_eq!(
        header(&through, "x-forwarded-host"),
        "e2e.test",
        "from Host"
    );
    assert_eq!(
        through.header("forwarded"),
        None,
        "none received, none added"
    );

    // An attack through HAProxy gets utf8gate's refusal, relayed.
    let before = upstream.count();
    let attack = send(
        CLIENT,
        listen,
        &request("GET", "/files/%c0%ae%c0%ae/etc/passwd", &[], b""),
    )
    .await;
    let verdict = assert_rejected(&attack, 400);
    assert!(
        kinds(&verdict).contains(&"overlong"),
        "{:?}",
        kinds(&verdict)
    );
    assert_eq!(upstream.count(), before);

    // The same client straight to utf8gate: not a trusted proxy, so every forged forwarding
    // header is replaced by what utf8gate saw itself.
    let response = send(CLIENT, gw.proxy, &request("POST", target, &headers, body)).await;
    assert_eq!(response.status, 200, "{}", response.text());
    let direct = upstream
        .records()
        .pop()
        .expect("a request reached the upstream");
    assert_eq!(direct.body, body);
    assert_eq!(header(&direct, "x-forwarded-for"), "127.0.0.2");
    assert_eq!(header(&direct, "x-forwarded-proto"), "http");
    assert_eq!(header(&direct, "x-forwarded-host"), "e2e.test");
    assert_eq!(
        header(&direct, "forwarded"),
        "for=127.0.0.2;proto=http;host=e2e.test"
    );
}
