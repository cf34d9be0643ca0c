"""Sends N sequential keep-alive requests of one kind (get | json) to the proxy (for callgrind.sh)."""
import socket
import sys

port, n, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
SENTENCE = ("Voix ambiguë d’un cœur qui, au zéphyr, préfère les jattes de kiwis. "
            "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. 我能吞下玻璃而不伤身体。 "
            "나는 유리를 먹을 수 있어요. Great job 👍🎉😀 ")
if kind == "json":
    text = SENTENCE * (16 * 1024 // len(SENTENCE.encode()))
    body = ('{"text":"%s"}' % text).encode()
    req = (b"POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
else:
    req = b"GET /index.html?q=hello HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n"
s = socket.create_connection(("127.0.0.1", port))
for _ in range(n):
    s.sendall(req)
    buf = b""
    while b"\r\n\r\nok" not in buf:
        d = s.recv(65536)
        if not d:
            raise SystemExit("connection closed")
        buf += d
