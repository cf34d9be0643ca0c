"""A keep-alive HTTP/1.1 upstream on loopback answering every request with `ok` (for callgrind.sh)."""
import socket
import sys
import threading

port = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(64)


def serve(c):
    buf = b""
    while True:
        d = c.recv(65536)
        if not d:
            return
        buf += d
        while True:
            i = buf.find(b"\r\n\r\n")
            if i < 0:
                break
            n = 0
            for line in buf[:i].decode("latin-1").lower().split("\r\n"):
                if line.startswith("content-length:"):
                    n = int(line.split(":")[1])
            if len(buf) < i + 4 + n:
                break
            buf = buf[i + 4 + n:]
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
