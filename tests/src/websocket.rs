//! WebSocket on loopback, written by hand from RFC 6455: [`WsUpstream`], an upstream that
//! answers the opening handshake as told and echoes every data frame it receives (recording
//! them), and [`WsClient`], a raw client that sends the exact frames a test needs (masked or
//! not, split anywhere). Every read has a deadline.

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// Opcodes (RFC 6455 §5.2).
pub const OP_CONTINUATION: u8 = 0x0;
/// Text frame.
pub const OP_TEXT: u8 = 0x1;
/// Binary frame.
pub const OP_BINARY: u8 = 0x2;
/// Close frame.
pub const OP_CLOSE: u8 = 0x8;
/// Ping frame.
pub const OP_PING: u8 = 0x9;

/// The `Sec-WebSocket-Key` every test client sends (RFC 6455 §1.3's example).
pub const WS_KEY: &str = "dGhlIHNhbXBsZSBub25jZQ==";

/// `Sec-WebSocket-Accept` for `key`.
pub fn ws_accept(key: &str) -> String {
    let mut sha1 = sha1_smol::Sha1::new();
    sha1.update(key.as_bytes());
    sha1.update(b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
    base64::engine::general_purpose::STANDARD.encode(sha1.digest().bytes())
}

/// One frame: FIN, opcode, payload (unmasked), and whether it came masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsFrame {
    /// FIN.
    pub fin: bool,
    /// The opcode.
    pub opcode: u8,
    /// The payload, unmasked.
    pub payload: Vec<u8>,
    /// It came masked.
    pub masked: bool,
}

impl WsFrame {
    /// The close code of a Close frame.
    pub fn close_code(&self) -> Option<u16> {
        match (self.opcode, &self.payload[..]) {
            (OP_CLOSE, [a, b, ..]) => Some(u16::from_be_bytes([*a, *b])),
            _ => None,
        }
    }
}

/// A frame's bytes, masked with `mask` if given.
pub fn ws_frame(fin: bool, opcode: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut out = vec![if fin { 0x80 } else { 0 } | opcode];
    let m = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => out.push(m | n as u8),
        n if n <= 0xFFFF => {
            out.push(m | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(m | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    match mask {
        Some(key) => {
            out.extend_from_slice(&key);
            out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        }
        None => out.extend_from_slice(payload),
    }
    out
}

/// Reads one frame from `stream` (with `buf` holding what was read past the last one).
async fn read_frame(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<WsFrame> {
    loop {
        if let Some((frame, used)) = parse(buf) {
            buf.drain(..used);
            return Ok(frame);
        }
        let mut chunk = [0u8; 8192];
        match stream.read(&mut chunk).await? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn parse(buf: &[u8]) -> Option<(WsFrame, usize)> {
    let (b0, b1) = (*buf.first()?, *buf.get(1)?);
    let masked = b1 & 0x80 != 0;
    let (len, mut at) = match b1 & 0x7F {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => (
            u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    let key: Option<[u8; 4]> = match masked {
        true => Some(buf.get(at..at + 4)?.try_into().ok()?),
        false => None,
    };
    at += if masked { 4 } else { 0 };
    let mut payload = buf.get(at..at + len)?.to_vec();
    if let Some(key) = key {
        payload
            .iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b ^= key[i % 4]);
    }
    let frame = WsFrame {
        fin: b0 & 0x80 != 0,
        opcode: b0 & 0x0F,
        payload,
        masked,
    };
    Some((frame, at + len))
}

/// Reads an HTTP head (up to the blank line) into text; what follows stays in `rest`.
async fn read_head(stream: &mut TcpStream, rest: &mut Vec<u8>) -> io::Result<String> {
    loop {
        if let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
            let head: Vec<u8> = rest.drain(..end + 4).collect();
            return Ok(String::from_utf8_lossy(&head).into_owned());
        }
        if rest.len() > 64 * 1024 {
            return Err(io::ErrorKind::InvalidData.into());
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => rest.extend_from_slice(&chunk[..n]),
        }
    }
}

/// How [`WsUpstream`] answers a handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsAnswer {
    /// `101` with the right accept key, then an echo of every data frame.
    Echo,
    /// This status, a short body, and the connection kept as HTTP.
    Status(u16),
    /// `101` with an accept key for another key.
    WrongAccept,
    /// [`WsAnswer::Echo`], after sending a text frame of these bytes first.
    Greet(&'static [u8]),
}

/// What [`WsUpstream`] received.
#[derive(Debug, Default)]
pub struct WsSeen {
    /// Each request head, as text.
    pub heads: Vec<String>,
    /// Each frame, in order.
    pub frames: Vec<WsFrame>,
}

/// A WebSocket upstream on loopback.
pub struct WsUpstream {
    /// Its address.
    pub addr: SocketAddr,
    seen: Arc<Mutex<WsSeen>>,
    task: JoinHandle<()>,
}

impl WsUpstream {
    /// Binds 127.0.0.1:0 and answers every connection as `answer` says.
    pub async fn start(answer: WsAnswer) -> WsUpstream {
        WsUpstream::serve(answer, None).await
    }

    /// [`WsUpstream::start`], and a request without `Upgrade` for `GET /page` answers `html`
    /// (`text/html; charset=utf-8`), `GET /wait` the same once a Close frame was received (at
    /// most 20 s), any other 404: a browser's page that opens the socket.
    pub async fn start_with_page(answer: WsAnswer, html: String) -> WsUpstream {
        WsUpstream::serve(answer, Some(Arc::new(html))).await
    }

    async fn serve(answer: WsAnswer, page: Option<Arc<String>>) -> WsUpstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let seen: Arc<Mutex<WsSeen>> = Arc::default();
        let shared = seen.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (seen, page) = (shared.clone(), page.clone());
                tokio::spawn(async move {
                    let served = serve(stream, answer, seen, page);
                    let _ = tokio::time::timeout(Duration::from_secs(60), served).await;
                });
            }
        });
        WsUpstream { addr, seen, task }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The request heads received so far.
    pub fn heads(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .heads
            .clone()
    }

    /// The frames received so far.
    pub fn frames(&self) -> Vec<WsFrame> {
        self.seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .frames
            .clone()
    }
}

impl Drop for WsUpstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(
    mut stream: TcpStream,
    answer: WsAnswer,
    seen: Arc<Mutex<WsSeen>>,
    page: Option<Arc<String>>,
) -> io::Result<()> {
    let mut rest = Vec::new();
    loop {
        let head = read_head(&mut stream, &mut rest).await?;
        if let Some(html) = page
            .as_ref()
            .filter(|_| !head.contains("upgrade: websocket"))
        {
            if head.starts_with("GET /wait ") {
                // Answered once a Close frame came (or after 20 s): a page that loads it in
                // a frame has its load event, and a browser's DOM dump, after its socket.
                let closed = || {
                    let seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                    seen.frames.iter().any(|f| f.opcode == OP_CLOSE)
                };
                crate::poll_until(Duration::from_secs(20), closed).await;
            }
            let reply = match head.starts_with("GET /page ") || head.starts_with("GET /wait ") {
                true => format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\r\n{html}",
                    html.len()
                ),
                false => "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_string(),
            };
            stream.write_all(reply.as_bytes()).await?;
            continue;
        }
        let key = (head.lines())
            .find_map(|l| l.strip_prefix("sec-websocket-key: "))
            .unwrap_or_default()
            .to_string();
        seen.lock()
            .unwrap_or_else(|e| e.into_inner())
            .heads
            .push(head);
        let accept = match answer {
            WsAnswer::Status(status) => {
                let body = "no upgrade here";
                let reply = format!(
                    "HTTP/1.1 {status} Other\r\ncontent-length: {}\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n{body}",
                    body.len()
                );
                stream.write_all(reply.as_bytes()).await?;
                continue;
            }
            WsAnswer::Echo | WsAnswer::Greet(_) => ws_accept(&key),
            WsAnswer::WrongAccept => ws_accept("AAAAAAAAAAAAAAAAAAAAAA=="),
        };
        let reply = format!(
            "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: {accept}\r\n\r\n"
        );
        stream.write_all(reply.as_bytes()).await?;
        if let WsAnswer::Greet(text) = answer {
            stream
                .write_all(&ws_frame(true, OP_TEXT, text, None))
                .await?;
        }
        loop {
            let frame = read_frame(&mut stream, &mut rest).await?;
            seen.lock()
                .unwrap_or_else(|e| e.into_inner())
                .frames
                .push(frame.clone());
            match frame.opcode {
                OP_CLOSE => {
                    let echo = ws_frame(true, OP_CLOSE, &frame.payload, None);
                    stream.write_all(&echo).await?;
                    return Ok(());
                }
                OP_PING => {
                    stream
                        .write_all(&ws_frame(true, 0xA, &frame.payload, None))
                        .await?
                }
                _ => {
                    let echo = ws_frame(frame.fin, frame.opcode, &frame.payload, None);
                    stream.write_all(&echo).await?;
                }
            }
        }
    }
}

/// A raw WebSocket client connection.
pub struct WsClient {
    stream: TcpStream,
    rest: Vec<u8>,
}

/// The client's mask key.
const MASK: [u8; 4] = [0x37, 0xFA, 0x21, 0x3D];

impl WsClient {
    /// Sends `head` (a whole request head) to `addr` and reads the response head; the
    /// connection is returned with it, whatever the status.
    pub async fn open(addr: SocketAddr, head: &str) -> io::Result<(WsClient, String)> {
        let mut stream = TcpStream::connect(addr).await?;
        stream.write_all(head.as_bytes()).await?;
        let mut rest = Vec::new();
        let response =
            tokio::time::timeout(Duration::from_secs(10), read_head(&mut stream, &mut rest))
                .await
                .map_err(|_| io::Error::from(io::ErrorKind::TimedOut))??;
        Ok((WsClient { stream, rest }, response))
    }

    /// A WebSocket handshake for `/chat` with `extra` header lines (each ending in CRLF).
    pub fn handshake(host: SocketAddr, extra: &str) -> String {
        format!(
            "GET /chat HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n"
        )
    }

    /// Writes raw bytes.
    pub async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Sends one masked frame.
    pub async fn send(&mut self, fin: bool, opcode: u8, payload: &[u8]) -> io::Result<()> {
        self.write(&ws_frame(fin, opcode, payload, Some(MASK)))
            .await
    }

    /// The next frame, within `within`.
    pub async fn recv(&mut self, within: Duration) -> io::Result<WsFrame> {
        tokio::time::timeout(within, read_frame(&mut self.stream, &mut self.rest))
            .await
            .map_err(|_| io::Error::from(io::ErrorKind::TimedOut))?
    }

    /// Reads what follows as an HTTP response head (the connection stayed HTTP).
    pub async fn http_head(&mut self, within: Duration) -> io::Result<String> {
        tokio::time::timeout(within, read_head(&mut self.stream, &mut self.rest))
            .await
            .map_err(|_| io::Error::from(io::ErrorKind::TimedOut))?
    }

    /// Drops `n` bytes already read or still to come (a body of known length).
    pub async fn skip(&mut self, n: usize) -> io::Result<()> {
        while self.rest.len() < n {
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk).await? {
                0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                k => self.rest.extend_from_slice(&chunk[..k]),
            }
        }
        self.rest.drain(..n);
        Ok(())
    }
}
