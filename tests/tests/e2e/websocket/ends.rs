//! How tunnels end: the server stopping, the idle timeout, the tunnel cap, the lifetime.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_server_closes_its_tunnels_with_1001() {
    let (_upstream, mut gw) = setup(WsAnswer::Echo, "").await;
    let (mut client, _) = open(&gw, "").await;
    client
        .send(true, OP_TEXT, "before".as_bytes())
        .await
        .unwrap();
    assert_eq!(next(&mut client).await.payload, b"before");

    gw.shutdown();
    let close = next(&mut client).await;
    assert_eq!(close.close_code(), Some(1001), "{close:?}");
    assert!(gw.stop(WITHIN).await, "exited cleanly after its tunnels");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_tunnels_close_with_1001_and_the_tunnel_cap_answers_503() {
    let toml = "[websocket]\nidle_timeout_seconds = 0.5\nmax_tunnels = 1\n";
    let (_upstream, gw) = setup(WsAnswer::Echo, toml).await;
    let (mut client, _) = open(&gw, "").await;
    let (_, second) = WsClient::open(gw.proxy, &WsClient::handshake(gw.proxy, ""))
        .await
        .unwrap();
    assert!(second.starts_with("HTTP/1.1 503"), "{second}");
    let close = next(&mut client).await;
    assert_eq!(close.close_code(), Some(1001), "{close:?}");
    // The tunnel's place is free again once it has ended.
    let mut reopened = None;
    for _ in 0..50 {
        let (c, head) = WsClient::open(gw.proxy, &WsClient::handshake(gw.proxy, ""))
            .await
            .unwrap();
        if head.starts_with("HTTP/1.1 101") {
            reopened = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reopened.is_some(), "the cap was not released");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_tunnel_closes_with_1001_at_the_end_of_its_lifetime() {
    let toml = "[websocket]\nmax_lifetime_seconds = 1.0\n";
    let (_upstream, gw) = setup(WsAnswer::Echo, toml).await;
    let (mut client, _) = open(&gw, "").await;
    let start = std::time::Instant::now();
    // A message every 100 ms: never idle, still closed after its second.
    let close = loop {
        client
            .send(true, OP_TEXT, "ping Ω".as_bytes())
            .await
            .unwrap();
        let frame = next(&mut client).await;
        if frame.opcode == OP_CLOSE {
            break frame;
        }
        assert!(start.elapsed() < Duration::from_secs(5), "never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(close.close_code(), Some(1001), "{close:?}");
    assert!(start.elapsed() >= Duration::from_millis(900));
}

// New WebSocket tests go here.
