#!/usr/bin/env python3
"""Exporter under abusive clients: scrape latency (p50/p99/max), failures and RSS of
`gpuvet exporter` (8-GPU fixture, fake NVML) and prometheus-node-exporter in the same run, with
  - no other clients (baseline),
  - 100 slow-loris clients trickling request headers one byte per 100 ms,
  - 300 idle connections that never send a byte,
  - 16 clients flooding 4.2 MB request headers, reconnecting when dropped.
A scraper on one kept-alive connection measures each scrape while the abuse runs; the abusive
clients run in a separate process, so they never hold the scraper's interpreter lock.

  bench/exporter_abuse_bench.py [BUILD_DIR]   (default build/rel: cmake -B build/rel
      -DCMAKE_BUILD_TYPE=Release && cmake --build build/rel --target gpuvet fake_nvml)
Env: SCRAPES (default 300 per scenario), NODE_EXPORTER (default /usr/bin/prometheus-node-exporter).
"""
import http.client
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/rel")
GPUVET = os.path.join(BUILD, "gpuvet")
FAKE = os.path.join(BUILD, "tests/fake_nvml/libnvidia-ml.so.1")
FIX = os.path.join(ROOT, "tests/fixtures/healthy-8gpu")
NODE_EXPORTER = os.environ.get("NODE_EXPORTER", "/usr/bin/prometheus-node-exporter")
SCRAPES = int(os.environ.get("SCRAPES", "300"))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start_gpuvet():
    env = dict(os.environ, GPUVET_FAKE_NVML_SCENARIO=os.path.join(FIX, "nvml.json"))
    argv = [GPUVET, "exporter", "--listen", "127.0.0.1:0", "--root", os.path.join(FIX, "root"),
            "--nvml-lib", FAKE]
    if os.path.exists(os.path.join(FIX, "kernel.log")):
        argv += ["--kernel-log", os.path.join(FIX, "kernel.log")]
    p = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"listening on http://[^ ]*:(\d+)/metrics", line)
    if not m:
        sys.exit(f"gpuvet exporter did not start: {line}")
    threading.Thread(target=p.stderr.read, daemon=True).start()
    return p, int(m.group(1))


def start_node_exporter():
    port = free_port()
    p = subprocess.Popen([NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return p, port
        except OSError:
            time.sleep(0.1)
    sys.exit("node_exporter did not start")


class Abuse:
    """Runs one kind of abusive client until stop()."""

    def __init__(self, kind, port):
        self.kind, self.port, self.stop_flag = kind, port, False
        self.threads = []
        if kind == "trickle100":
            self.threads = [threading.Thread(target=self.trickle, args=(100,))]
        elif kind == "idle300":
            self.threads = [threading.Thread(target=self.idle, args=(300,))]
        elif kind == "headers16x4MB":
            self.threads = [threading.Thread(target=self.flood) for _ in range(16)]
        for t in self.threads:
            t.daemon = True
            t.start()
        time.sleep(1.0 if kind != "none" else 0)

    def connect(self):
        try:
            return socket.create_connection(("127.0.0.1", self.port), timeout=2)
        except OSError:
            return None

    def trickle(self, n):
        header = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: "
        socks, sent = [None] * n, [0] * n
        while not self.stop_flag:
            for i in range(n):
                if socks[i] is None:
                    socks[i], sent[i] = self.connect(), 0
                if socks[i] is None:
                    continue
                b = header[sent[i]:sent[i] + 1] if sent[i] < len(header) else b"a"
                try:
                    socks[i].send(b)
                    sent[i] += 1
                except OSError:
                    socks[i].close()
                    socks[i] = None
            time.sleep(0.1)
        for s in socks:
            if s:
                s.close()

    def idle(self, n):
        socks = [self.connect() for _ in range(n)]
        while not self.stop_flag:
            for i, s in enumerate(socks):
                dead = s is None
                if s is not None:
                    s.setblocking(False)
                    try:
                        dead = s.recv(1, socket.MSG_PEEK) == b""
                    except BlockingIOError:
                        pass
                    except OSError:
                        dead = True
                if dead:
                    if s is not None:
                        s.close()
                    socks[i] = self.connect()
            time.sleep(0.5)
        for s in socks:
            if s:
                s.close()

    def flood(self):
        blob = b"a" * (4200 * 1024)
        while not self.stop_flag:
            s = self.connect()
            if s is None:
                time.sleep(0.05)
                continue
            try:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Flood: " + blob + b"\r\n\r\n")
                s.recv(4096)
            except OSError:
                pass
            s.close()

    def stop(self):
        self.stop_flag = True
        for t in self.threads:
            t.join(timeout=5)


def abuse_process(kind, port, stop_event, ready_event):
    abuse = Abuse(kind, port)
    ready_event.set()
    stop_event.wait()
    abuse.stop()


def start_abuse(kind, port):
    stop, ready = multiprocessing.Event(), multiprocessing.Event()
    proc = multiprocessing.Process(target=abuse_process, args=(kind, port, stop, ready))
    proc.start()
    ready.wait(30)

    def finish():
        stop.set()
        proc.join(10)
        if proc.is_alive():
            proc.kill()
    return finish


def scrape(port, n, pid):
    lat, failures, peak = [], 0, 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for i in range(n):
        t0 = time.perf_counter()
        try:
            conn.request("GET", "/metrics")
            r = conn.getresponse()
            body = r.read()
            if r.status != 200 or not body:
                failures += 1
        except (OSError, http.client.HTTPException):
            failures += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        lat.append((time.perf_counter() - t0) * 1000)
        if i % 20 == 0:
            peak = max(peak, rss_kib(pid))
        time.sleep(0.01)
    conn.close()
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))]
    return q(0.5), q(0.99), lat[-1], failures, peak


def main():
    for path in (GPUVET, FAKE, NODE_EXPORTER):
        if not os.path.exists(path):
            sys.exit(f"missing {path} (see the header of this script)")
    targets = [("gpuvet", *start_gpuvet()), ("node_exporter", *start_node_exporter())]
    time.sleep(1)
    print(f"{'scenario':<16} {'target':<14} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'fail':>5} {'RSS peak KiB':>12} {'RSS after':>10}")
    try:
        for kind in ("none", "trickle100", "idle300", "headers16x4MB"):
            for name, proc, port in targets:
                finish = start_abuse(kind, port)
                p50, p99, mx, fail, peak = scrape(port, SCRAPES, proc.pid)
                finish()
                time.sleep(0.5)
                print(f"{kind:<16} {name:<14} {p50:8.2f} {p99:8.2f} {mx:8.1f} {fail:5d} "
                      f"{peak:12d} {rss_kib(proc.pid):10d}", flush=True)
    finally:
        for _, proc, _ in targets:
            proc.terminate()
            proc.wait(timeout=5)


if __name__ == "__main__":
    main()
