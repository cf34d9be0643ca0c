"""Sends N sequential keep-alive requests of one kind (get | json) to the proxy (for callgrind.sh);
with TLS=1 in the environment, over one TLS 1.3 connection (TLS_AES_256_GCM_SHA384, X25519, the
certificate not verified: a throwaway one)."""
import os
import socket
import ssl
import sys

port, n, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
SENTENCE = ("Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis. "
            "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. 我能吞下玻璃而不伤身体。 "
            "나는 유리를 먹을 수 있어요. Great job 👍🎉😀 ")
if kind in ("json", "json1m"):
    size = 16 * 1024 if kind == "json" else 1024 * 1024
    text = SENTENCE * (size // len(SENTENCE.encode()))
    body = ('{"text":"%s"}' % text).encode()
    req = (b"POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
else:
    req = b"GET /index.html?q=hello HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n"
s = socket.create_connection(("127.0.0.1", port))
if os.environ.get("TLS") == "1":
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    ctx.minimum_version = ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.set_ecdh_curve("X25519")
    s = ctx.wrap_socket(s)
for _ in range(n):
    s.sendall(req)
    buf = b""
    while b"\r\n\r\nok" not in buf:
        d = s.recv(65536)
        if not d:
            raise SystemExit("connection closed")
        buf += d
