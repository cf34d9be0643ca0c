//! WebSocket through the proxy (RFC 6455): the handshake forwarded and the 101 relayed only with
//! the right accept key; text messages validated across fragments (1007) and checked by the
//! profile (1008), nothing of a failed message reaching the upstream; the base protocol's rules
//! (1002) and the limits (1009); upgrades that are not WebSocket refused; an upstream that does
//! not switch protocols relayed as HTTP. Raw frames both ways ([`WsClient`], [`WsUpstream`]).

use std::time::Duration;

use utf8gate_e2e::{
    Gateway, OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_TEXT, WS_KEY, WsAnswer, WsClient,
    WsFrame, WsUpstream, ws_accept,
};

mod ends;

const WITHIN: Duration = Duration::from_secs(10);

/// A gateway in front of a WebSocket upstream that answers `answer`, with `toml`.
async fn setup(answer: WsAnswer, toml: &str) -> (WsUpstream, Gateway) {
    let upstream = WsUpstream::start(answer).await;
    let gw = Gateway::start(toml, Some(&upstream.url())).await;
    (upstream, gw)
}

/// Opens a tunnel (asserting the 101) with `extra` handshake lines.
async fn open(gw: &Gateway, extra: &str) -> (WsClient, String) {
    let (client, head) = WsClient::open(gw.proxy, &WsClient::handshake(gw.proxy, extra))
        .await
        .expect("handshake");
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    (client, head)
}

/// The data frames the upstream received (no Close).
fn data_frames(upstream: &WsUpstream) -> Vec<WsFrame> {
    (upstream.frames().into_iter())
        .filter(|f| f.opcode != OP_CLOSE)
        .collect()
}

/// The next frame that is not a Pong.
async fn next(client: &mut WsClient) -> WsFrame {
    loop {
        let frame = client.recv(WITHIN).await.expect("a frame");
        if frame.opcode != 0xA {
            return frame;
        }
    }
}

// =============================================================================================
// The handshake and clean messages
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handshake_is_forwarded_and_a_message_split_mid_character_is_echoed() {
    let (upstream, gw) = setup(WsAnswer::Echo, "").await;
    let extra = "Origin: http://app.example\r\nSec-WebSocket-Extensions: permessage-deflate\r\n";
    let (mut client, head) = open(&gw, extra).await;

    let head_lower = head.to_ascii_lowercase();
    let accept = format!("sec-websocket-accept: {}", ws_accept(WS_KEY)).to_ascii_lowercase();
    assert!(head_lower.contains(&accept), "{head}");
    assert!(head_lower.contains("upgrade: websocket"), "{head}");
    let sent = upstream.heads().remove(0).to_ascii_lowercase();
    for line in [
        "upgrade: websocket",
        "connection: upgrade",
        "sec-websocket-version: 13",
    ] {
        assert!(sent.contains(line), "{line}: {sent}");
    }
    assert!(sent.contains(&format!(
        "sec-websocket-key: {}",
        WS_KEY.to_ascii_lowercase()
    )));
    assert!(sent.contains("origin: http://app.example"), "{sent}");
    assert!(
        !sent.contains("sec-websocket-extensions"),
        "never offered upstream: {sent}"
    );

    let text = "Grüße, 日本語, Ελληνικά, עברית, العربية, हिन्दी, 🦀✓";
    let bytes = text.as_bytes();
    // Cuts inside "ü" (2 bytes) and inside "🦀" (4 bytes).
    let (a, b) = (3, bytes.len() - 5);
    client.send(false, OP_TEXT, &bytes[..a]).await.unwrap();
    client.send(true, OP_PING, b"between").await.unwrap();
    client
        .send(false, OP_CONTINUATION, &bytes[a..b])
        .await
        .unwrap();
    client
        .send(true, OP_CONTINUATION, &bytes[b..])
        .await
        .unwrap();
    let echo = next(&mut client).await;
    assert_eq!((echo.opcode, echo.fin, echo.masked), (OP_TEXT, true, false));
    assert_eq!(String::from_utf8(echo.payload).unwrap(), text);

    let binary = [0xFF, 0xFE, 0xC0, 0xAE, 0x00];
    client.send(true, OP_BINARY, &binary).await.unwrap();
    let echo = next(&mut client).await;
    assert_eq!(
        (echo.opcode, echo.payload),
        (OP_BINARY, binary.to_vec()),
        "binary unread"
    );

    client
        .send(true, OP_CLOSE, &1000u16.to_be_bytes())
        .await
        .unwrap();
    let close = next(&mut client).await;
    assert_eq!(close.close_code(), Some(1000));
    assert!(
        upstream.frames().iter().all(|f| f.masked),
        "frames upstream are masked"
    );

    let metrics = gw.metrics().await;
    let valid = r#"utf8gate_websocket_messages_total{direction="client",verdict="valid"}"#;
    assert!(metrics.value(valid) >= 1.0, "{}", metrics.text);
    assert!(metrics.value("utf8gate_websocket_opened_total") >= 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_h2c_upstream_the_handshake_still_goes_over_http1() {
    let (upstream, gw) = setup(WsAnswer::Echo, "[upstream]\nhttp2 = true\n").await;
    let (mut client, _) = open(&gw, "").await;
    client
        .send(true, OP_TEXT, "Привет".as_bytes())
        .await
        .unwrap();
    assert_eq!(next(&mut client).await.payload, "Привет".as_bytes());
    let head = upstream.heads().remove(0);
    assert!(head.starts_with("GET /chat HTTP/1.1\r\n"), "{head}");
}

// =============================================================================================
// Invalid text: 1007, and nothing of the message upstream
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_closes_with_1007_and_never_reaches_the_upstream() {
    let (upstream, gw) = setup(WsAnswer::Echo, "").await;
    let cases: [(&str, &[&[u8]]); 5] = [
        ("overlong C0 AE", &[b"dot \xC0\xAE"]),
        ("CESU-8 pair", &[b"pair \xED\xA0\xBD", b"\xED\xB8\x80"]),
        ("lone surrogate", &[b"lone \xED\xA0\x80 end"]),
        ("truncated at the end", &[b"cut \xF0\x9F", b"\xA6"]),
        ("invalid after a valid fragment", &[b"fine ", b"\xFF"]),
    ];
    for (name, pieces) in cases {
        let (mut client, _) = open(&gw, "").await;
        let last = pieces.len() - 1;
        for (i, piece) in pieces.iter().enumerate() {
            let opcode = if i == 0 { OP_TEXT } else { OP_CONTINUATION };
            let _ = client.send(i == last, opcode, piece).await;
        }
        let close = next(&mut client).await;
        assert_eq!(close.close_code(), Some(1007), "{name}: {close:?}");
    }
    let got = data_frames(&upstream);
    assert!(
        got.is_empty(),
        "the upstream received message bytes: {got:?}"
    );
    let closes: Vec<Option<u16>> = upstream.frames().iter().map(WsFrame::close_code).collect();
    assert!(closes.iter().all(|c| *c == Some(1007)), "{closes:?}");
    // A tunnel is counted closed once both its connections have ended.
    let closed = r#"utf8gate_websocket_closed_total{reason="invalid_utf8"}"#;
    let mut metrics = gw.metrics().await;
    for _ in 0..50 {
        if metrics.value(closed) >= 5.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        metrics = gw.metrics().await;
    }
    assert_eq!(metrics.value(closed), 5.0, "{}", metrics.text);
    let audit = gw.logs().iter().any(|l| {
        let l = String::from_utf8_lossy(l);
        l.contains("websocket tunnel closed") && l.contains("1007")
    });
    assert!(audit, "a log line per refused connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_finding_closes_with_1008_and_a_bad_close_reason_with_1007() {
    let (upstream, gw) = setup(WsAnswer::Echo, "").await;
    // Under `strict`, a NUL in a body is rejected: the tunnel closes with 1008.
    let (mut client, _) = open(&gw, "").await;
    client.send(true, OP_TEXT, b"nul\0byte").await.unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1008));
    // Text not in NFC would be normalized in a body; a message is never rewritten, so it is
    // sent on as it is.
    let (mut client, _) = open(&gw, "").await;
    client
        .send(true, OP_TEXT, "cafe\u{301}".as_bytes())
        .await
        .unwrap();
    assert_eq!(next(&mut client).await.payload, "cafe\u{301}".as_bytes());
    let sent_on = data_frames(&upstream).len();
    assert_eq!(sent_on, 1, "only the NFD message reached the upstream");

    let (mut client, _) = open(&gw, "").await;
    client
        .send(true, OP_CLOSE, b"\x03\xE8bye \xC0\xAE")
        .await
        .unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1007));
    assert_eq!(data_frames(&upstream).len(), 1, "nothing more");

    // In monitor mode the message is sent on (and logged); invalid UTF-8 never is.
    let (upstream, gw) = setup(WsAnswer::Echo, "[policy]\nprofile = \"monitor\"\n").await;
    let (mut client, _) = open(&gw, "").await;
    client.send(true, OP_TEXT, b"nul\0byte").await.unwrap();
    assert_eq!(next(&mut client).await.payload, b"nul\0byte");
    client.send(true, OP_TEXT, b"bad \xC0\xAE").await.unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1007));
    assert_eq!(data_frames(&upstream).len(), 1);
}

// =============================================================================================
// The base protocol and the limits
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unmasked_and_reserved_bit_frames_close_with_1002() {
    let (upstream, gw) = setup(WsAnswer::Echo, "").await;
    let (mut client, _) = open(&gw, "").await;
    client.write(&[0x81, 0x02, b'h', b'i']).await.unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1002));

    let (mut client, _) = open(&gw, "").await;
    // RSV1: a compressed frame, though no extension was negotiated.
    client.write(&[0xC1, 0x80, 0, 0, 0, 0]).await.unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1002));
    assert!(data_frames(&upstream).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_and_messages_over_the_limits_close_with_1009() {
    let toml = "[websocket]\nmax_frame_bytes = 512\nmax_message_bytes = 1024\n";
    let (upstream, gw) = setup(WsAnswer::Echo, toml).await;
    let (mut client, _) = open(&gw, "").await;
    client.send(true, OP_TEXT, &[b'a'; 600]).await.unwrap();
    assert_eq!(next(&mut client).await.close_code(), Some(1009));

    let (mut client, _) = open(&gw, "").await;
    for i in 0..3 {
        let opcode = if i == 0 { OP_TEXT } else { OP_CONTINUATION };
        let _ = client.send(i == 2, opcode, &[b'b'; 400]).await;
    }
    assert_eq!(next(&mut client).await.close_code(), Some(1009));
    assert!(data_frames(&upstream).is_empty());
}

// =============================================================================================
// Handshakes that do not open a tunnel
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_does_not_switch_is_relayed_as_http() {
    for status in [200u16, 426] {
        let (upstream, gw) = setup(WsAnswer::Status(status), "").await;
        let (mut client, head) = WsClient::open(gw.proxy, &WsClient::handshake(gw.proxy, ""))
            .await
            .unwrap();
        assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{head}");
        assert!(
            !head.to_ascii_lowercase().contains("upgrade: websocket"),
            "{head}"
        );
        client.skip("no upgrade here".len()).await.unwrap();
        // The connection is still HTTP: a second request is answered as one.
        let again = format!("GET /again HTTP/1.1\r\nHost: {}\r\n\r\n", gw.proxy);
        client.write(again.as_bytes()).await.unwrap();
        let head = client.http_head(WITHIN).await.unwrap();
        assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{head}");
        assert_eq!(upstream.heads().len(), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_accept_key_is_refused_with_502() {
    let (_upstream, gw) = setup(WsAnswer::WrongAccept, "").await;
    let (_, head) = WsClient::open(gw.proxy, &WsClient::handshake(gw.proxy, ""))
        .await
        .unwrap();
    assert!(head.starts_with("HTTP/1.1 502"), "{head}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_upgrades_and_malformed_handshakes_are_refused() {
    let (upstream, gw) = setup(WsAnswer::Echo, "").await;
    let h2c = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n",
        gw.proxy
    );
    let (_, head) = WsClient::open(gw.proxy, &h2c).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    let bad = [
        WsClient::handshake(gw.proxy, "").replace(WS_KEY, "c2hvcnQ="),
        WsClient::handshake(gw.proxy, "").replace("GET", "POST"),
        WsClient::handshake(gw.proxy, "Content-Length: 2\r\n").replace("\r\n\r\n", "\r\n\r\nhi"),
    ];
    for request in bad {
        let (_, head) = WsClient::open(gw.proxy, &request).await.unwrap();
        assert!(head.starts_with("HTTP/1.1 400"), "{request}: {head}");
    }
    // Another version: 426 with the one spoken here (RFC 6455 §4.2.2).
    let old = WsClient::handshake(gw.proxy, "").replace("Version: 13", "Version: 8");
    let (_, head) = WsClient::open(gw.proxy, &old).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 426"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("sec-websocket-version: 13"),
        "{head}"
    );
    assert!(upstream.heads().is_empty(), "{:?}", upstream.heads());
    // A handshake the profile rejects (an overlong in the query) is refused before the upstream.
    let rejected = WsClient::handshake(gw.proxy, "").replace("/chat", "/chat?room=%C0%AE");
    let (_, head) = WsClient::open(gw.proxy, &rejected).await.unwrap();
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert!(upstream.heads().is_empty());
}

// =============================================================================================
// The upstream's text, shutdown
// =============================================================================================

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_s_invalid_text_is_logged_by_default_and_refused_when_enforced() {
    let greeting: &[u8] = b"hello \xC0\xAE";
    let (_upstream, gw) = setup(WsAnswer::Greet(greeting), "").await;
    let (mut client, _) = open(&gw, "").await;
    let got = next(&mut client).await;
    assert_eq!(
        (got.opcode, got.payload.as_slice()),
        (OP_TEXT, greeting),
        "sent on"
    );
    let invalid = r#"utf8gate_websocket_messages_total{direction="server",verdict="invalid"}"#;
    assert_eq!(gw.metrics().await.value(invalid), 1.0);

    let toml = "[websocket]\nserver_text = \"enforce\"\n";
    let (_upstream, gw) = setup(WsAnswer::Greet(greeting), toml).await;
    let (mut client, _) = open(&gw, "").await;
    let got = next(&mut client).await;
    assert_eq!(got.close_code(), Some(1007), "{got:?}");
}
