//! [`Relay`]: a TCP relay on loopback between a front proxy and utf8gate that passes bytes
//! both ways unchanged and keeps what the front sent, so that a test can read what utf8gate
//! was asked ([`http_targets`] of HTTP/1.1 checks, [`grpc_messages`] of gRPC checks).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The bytes each connection's client sent, one buffer per connection, in accept order.
type Sent = Arc<Mutex<Vec<Arc<Mutex<Vec<u8>>>>>>;

/// A relay listening on 127.0.0.1:0 to one target; its tasks end when it is dropped.
pub struct Relay {
    /// Where the front proxy connects.
    pub addr: SocketAddr,
    sent: Sent,
    task: JoinHandle<()>,
}

impl Relay {
    /// Binds 127.0.0.1:0 and relays every connection to `to`.
    pub async fn start(to: SocketAddr) -> Relay {
        let socket = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind the relay: {e}"));
        let addr = socket
            .local_addr()
            .unwrap_or_else(|e| panic!("the relay's address: {e}"));
        let sent: Sent = Arc::default();
        let kept = Arc::clone(&sent);
        let task = tokio::spawn(async move {
            // Dropping the set (the relay's task aborted) aborts every connection's task.
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((client, _)) = socket.accept().await {
                let buffer = Arc::new(Mutex::new(Vec::new()));
                lock(&kept).push(Arc::clone(&buffer));
                connections.spawn(relay(client, to, buffer));
            }
        });
        Relay { addr, sent, task }
    }

    /// What the client side sent on each connection so far.
    pub fn sent(&self) -> Vec<Vec<u8>> {
        lock(&self.sent).iter().map(|b| lock(b).clone()).collect()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One connection: client to `to` (recorded) and back, until either side closes.
async fn relay(client: TcpStream, to: SocketAddr, record: Arc<Mutex<Vec<u8>>>) {
    let Ok(server) = TcpStream::connect(to).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let up = async {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = client_read.read(&mut buf).await {
            if n == 0 {
                break;
            }
            // Kept before it is passed on: whatever answer the test sees, what was asked is
            // already here.
            lock(&record).extend_from_slice(&buf[..n]);
            if server_write.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = server_write.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
        let _ = client_write.shutdown().await;
    };
    tokio::join!(up, down);
}

/// The request targets of the HTTP/1.1 requests in a keep-alive `stream`, read one after the
/// other: the head up to its blank line, then the body its `Content-Length` or chunked
/// framing says (trailers are not read: the fronts send none). Stops at the first thing that
/// is not a request.
pub fn http_targets(stream: &[u8]) -> Vec<Vec<u8>> {
    let mut targets = Vec::new();
    let mut rest = stream;
    while let Some(end) = find(rest, b"\r\n\r\n") {
        let head = &rest[..end];
        rest = &rest[end + 4..];
        let mut lines = head
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
        let Some(target) = lines
            .next()
            .and_then(|l| l.strip_suffix(b" HTTP/1.1"))
            .and_then(|l| l.splitn(2, |&b| b == b' ').nth(1))
        else {
            break;
        };
        targets.push(target.to_vec());
        let mut length = 0;
        let mut chunked = false;
        for line in lines {
            let text = String::from_utf8_lossy(line).to_ascii_lowercase();
            if let Some(v) = text.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            } else if text.starts_with("transfer-encoding:") && text.contains("chunked") {
                chunked = true;
            }
        }
        if !chunked {
            rest = rest.get(length..).unwrap_or_default();
            continue;
        }
        // Chunks: a hexadecimal size line, the data and CRLF, until the size 0 and CRLF.
        while let Some(eol) = find(rest, b"\r\n") {
            let size = std::str::from_utf8(&rest[..eol]).ok();
            let size =
                size.and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok());
            let Some(size) = size else {
                return targets;
            };
            rest = rest.get(eol + 2 + size + 2..).unwrap_or_default();
            if size == 0 {
                break;
            }
        }
    }
    targets
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The gRPC messages the client sent in an HTTP/2 (h2c, prior knowledge) `stream`: the DATA
/// frames of each stream joined in stream order, split at the 5-byte gRPC prefixes
/// (uncompressed messages only). Frames are read as RFC 9113 §4.1 writes them; padding is
/// removed.
pub fn grpc_messages(stream: &[u8]) -> Vec<Vec<u8>> {
    const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let Some(mut rest) = stream.strip_prefix(PREFACE) else {
        return Vec::new();
    };
    let mut streams: Vec<(u32, Vec<u8>)> = Vec::new();
    while rest.len() >= 9 {
        let length = usize::from(rest[0]) << 16 | usize::from(rest[1]) << 8 | usize::from(rest[2]);
        let (kind, flags) = (rest[3], rest[4]);
        let id = u32::from_be_bytes([rest[5] & 0x7F, rest[6], rest[7], rest[8]]);
        let Some(payload) = rest.get(9..9 + length) else {
            break;
        };
        rest = &rest[9 + length..];
        if kind != 0 {
            continue;
        }
        let payload = match flags & 0x8 {
            0 => payload,
            _ => {
                let pad = usize::from(*payload.first().unwrap_or(&0));
                payload
                    .get(1..payload.len().saturating_sub(pad))
                    .unwrap_or_default()
            }
        };
        match streams.iter_mut().find(|(s, _)| *s == id) {
            Some((_, data)) => data.extend_from_slice(payload),
            None => streams.push((id, payload.to_vec())),
        }
    }
    let mut messages = Vec::new();
    for (_, data) in streams {
        let mut data = data.as_slice();
        while data.len() >= 5 && data[0] == 0 {
            let length = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
            let Some(message) = data.get(5..5 + length) else {
                break;
            };
            messages.push(message.to_vec());
            data = &data[5 + length..];
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_found_in_a_keep_alive_stream() {
        let stream = b"GET /authz/envoy//x HTTP/1.1\r\nhost: a\r\nContent-Length: 3\r\n\r\nabc\
                       POST /authz/envoy/a%2Fb?q=1 HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n\
                       2\r\nGE\r\n0\r\n\r\n\
                       GET /authz/envoy/ HTTP/1.1\r\n\r\n";
        assert_eq!(
            http_targets(stream),
            [
                b"/authz/envoy//x".to_vec(),
                b"/authz/envoy/a%2Fb?q=1".to_vec(),
                b"/authz/envoy/".to_vec()
            ]
        );
    }

    #[test]
    fn grpc_messages_are_joined_across_data_frames() {
        let mut stream = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        // SETTINGS (ignored), then one message of 4 bytes split over two DATA frames, the
        // second padded.
        stream.extend([0, 0, 0, 4, 0, 0, 0, 0, 0]);
        stream.extend([0, 0, 6, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 4, b'a']);
        stream.extend([0, 0, 5, 0, 0x8, 0, 0, 0, 1, 1, b'b', b'c', b'd', 0xFF]);
        assert_eq!(grpc_messages(&stream), [b"abcd".to_vec()]);
    }
}
