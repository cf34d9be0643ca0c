//! The proxy's keep-alive connections to the upstream: reused while idle, replaced when the
//! upstream closes them (before or as a request is sent), bounded by
//! `upstream.max_idle_connections` and `upstream.idle_timeout_seconds`. The upstream here is
//! a raw socket server that counts the connections it accepts and the requests it answers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use utf8gate_e2e::{Gateway, RawConn, exchange, get};

/// How the counting upstream ends its connections.
#[derive(Clone, Copy)]
enum Closing {
    /// Keeps them open for more requests.
    Never,
    /// Closes each after its first response, without saying so (no `Connection: close`),
    /// as an upstream whose keep-alive timeout just expired does.
    Silently,
    /// Answers with `Connection: close` and closes.
    Announced,
}

/// A loopback upstream answering `200 ok` to every request, counting connections and answers.
struct Counting {
    url: String,
    connections: Arc<AtomicUsize>,
    answers: Arc<AtomicUsize>,
}

impl Counting {
    async fn start(closing: Closing) -> Counting {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let connections = Arc::new(AtomicUsize::new(0));
        let answers = Arc::new(AtomicUsize::new(0));
        let (c, a) = (connections.clone(), answers.clone());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                c.fetch_add(1, Ordering::SeqCst);
                let answers = a.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    loop {
                        let Ok(n) = stream.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        head.extend_from_slice(&buf[..n]);
                        // GETs only: a request ends with its head.
                        while let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
                            head.drain(..end + 4);
                            let close = match closing {
                                Closing::Announced => "Connection: close\r\n",
                                _ => "",
                            };
                            let answer =
                                format!("HTTP/1.1 200 OK\r\n{close}Content-Length: 2\r\n\r\nok");
                            // Counted before it is written: the client may read the answer
                            // (and the test the count) before this task runs again.
                            answers.fetch_add(1, Ordering::SeqCst);
                            if stream.write_all(answer.as_bytes()).await.is_err() {
                                return;
                            }
                            if !matches!(closing, Closing::Never) {
                                return;
                            }
                        }
                    }
                });
            }
        });
        Counting {
            url,
            connections,
            answers,
        }
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    fn answers(&self) -> usize {
        self.answers.load(Ordering::SeqCst)
    }
}

/// Sends `n` GETs through the proxy one after another (each on a client connection of its
/// own, `pause` apart) and asserts each was answered by the upstream.
async fn send_sequentially(gw: &Gateway, n: usize, pause: Duration) {
    for i in 0..n {
        let response = exchange(gw.proxy, &get(&format!("/r{i}"))).await;
        assert_eq!(response.status, 200, "request {i}: {response:?}");
        assert_eq!(response.body, b"ok", "request {i}");
        tokio::time::sleep(pause).await;
    }
}

const ONE_THREAD: &str = "[listen]\nproxy_threads = 1\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_upstream_connections_are_reused() {
    let upstream = Counting::start(Closing::Never).await;
    let gw = Gateway::start(ONE_THREAD, Some(&upstream.url)).await;

    send_sequentially(&gw, 6, Duration::ZERO).await;

    assert_eq!(upstream.answers(), 6);
    assert_eq!(
        upstream.connections(),
        1,
        "one kept-alive connection serves them all"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_the_upstream_closed_silently_is_replaced_without_an_error() {
    let upstream = Counting::start(Closing::Silently).await;
    let gw = Gateway::start(ONE_THREAD, Some(&upstream.url)).await;

    // Back to back: the close may not have been seen when the next request is sent.
    send_sequentially(&gw, 5, Duration::ZERO).await;
    // With pauses: the close has been seen, the idle connection is skipped.
    send_sequentially(&gw, 3, Duration::from_millis(50)).await;

    assert_eq!(upstream.answers(), 8);
    assert_eq!(upstream.connections(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_the_upstream_announced_closing_is_not_reused() {
    let upstream = Counting::start(Closing::Announced).await;
    let gw = Gateway::start(ONE_THREAD, Some(&upstream.url)).await;

    send_sequentially(&gw, 4, Duration::ZERO).await;

    assert_eq!(upstream.answers(), 4);
    assert_eq!(upstream.connections(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_idle_connections_means_one_per_request() {
    let upstream = Counting::start(Closing::Never).await;
    let toml = format!("{ONE_THREAD}[upstream]\nmax_idle_connections = 0\n");
    let gw = Gateway::start(&toml, Some(&upstream.url)).await;

    send_sequentially(&gw, 3, Duration::ZERO).await;

    assert_eq!(upstream.answers(), 3);
    assert_eq!(upstream.connections(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_idle_longer_than_the_idle_timeout_is_not_reused() {
    let upstream = Counting::start(Closing::Never).await;
    let toml = format!("{ONE_THREAD}[upstream]\nidle_timeout_seconds = 0.2\n");
    let gw = Gateway::start(&toml, Some(&upstream.url)).await;

    send_sequentially(&gw, 2, Duration::ZERO).await;
    assert_eq!(upstream.connections(), 1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    send_sequentially(&gw, 1, Duration::ZERO).await;

    assert_eq!(upstream.answers(), 3);
    assert_eq!(upstream.connections(), 2);
}

/// Two proxy threads and four client connections opened one after the other, each used before
/// the next is opened: every thread serves two (the fewest-connections rule of
/// `listen::serve::balance`), which the upstream sees as one kept-alive connection per thread's
/// pool when the clients then take turns. Without the rule, the thread that wakes first may take
/// them all (one upstream connection), or three of four.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_connections_are_spread_evenly_over_the_proxy_threads() {
    let upstream = Counting::start(Closing::Never).await;
    let gw = Gateway::start("[listen]\nproxy_threads = 2\n", Some(&upstream.url)).await;
    let mut clients = Vec::new();
    for i in 0..4 {
        let mut conn = RawConn::connect(gw.proxy).await.unwrap();
        conn.write(&get(&format!("/open{i}"))).await.unwrap();
        let response = conn.read_response(Duration::from_secs(10)).await.unwrap();
        assert_eq!(response.status, 200, "client {i}: {response:?}");
        clients.push(conn);
    }
    for round in 0..3 {
        for (i, conn) in clients.iter_mut().enumerate() {
            conn.write(&get(&format!("/r{round}.{i}"))).await.unwrap();
            let response = conn.read_response(Duration::from_secs(10)).await.unwrap();
            assert_eq!(response.status, 200, "round {round}, client {i}");
        }
    }
    assert_eq!(upstream.answers(), 16);
    assert_eq!(
        upstream.connections(),
        2,
        "one upstream connection per proxy thread: two client connections on each thread"
    );
}

// New upstream connection tests go here.
