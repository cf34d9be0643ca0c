"""Worst-case bodies through the tower layer next to a clean body of the same size (8 MiB less
64 bytes, under the layer's 8 MiB limit): time per byte (3 reps, medians) and the app's peak
RSS (VmHWM), each case in a fresh crates/tower/examples/bench_app process.

usage: cargo build --release -p utf8gate-tower --example bench_app
       python3 bench/tower-hostile.py target/release/examples/bench_app
"""
import socket, subprocess, time, statistics, sys
app = sys.argv[1]
N = 8 * 1024 * 1024 - 64
words = "Αθήνα 東京 Привет مرحبا नमस्ते Zoë résumé plain ascii text ".encode()
cases = {
    "clean multilingual text": (words * (N // len(words) + 1))[:N],
    "one combining run (e + U+0301...)": b"e" + "\u0301".encode() * ((N - 1) // 2),
    "overlong pairs (C0 AE)": b"\xC0\xAE" * (N // 2),
    "lone surrogates (ED A0 80)": b"\xED\xA0\x80" * (N // 3),
    "JSON, one string of escapes": b'{"k":"' + b"\\u00e9" * ((N - 8) // 6) + b'"}',
}
def run(body, ctype):
    s = socket.create_connection(("127.0.0.1", 18193)); s.settimeout(120)
    head = b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (ctype, len(body))
    t = time.perf_counter(); s.sendall(head + body); data = b""
    while True:
        d = s.recv(65536)
        if not d: break
        data += d
    return time.perf_counter() - t, data.split(b" ")[1]
for name, body in cases.items():
    p = subprocess.Popen([app, "127.0.0.1:18193"]); time.sleep(0.4)
    ctype = b"application/json" if body.startswith(b"{") else b"text/plain; charset=utf-8"
    times = []
    for _ in range(3):
        t, status = run(body, ctype); times.append(t)
    hwm = [l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM")][0].split()[1]
    p.terminate(); p.wait()
    print(f"{name:38s} {len(body)} B  status {status.decode()}  " + " ".join(f"{t*1000:.0f}" for t in times) + f" ms  median {statistics.median(times)*1e9/len(body):.2f} ns/B  peak RSS {int(hwm)//1024} MiB")
