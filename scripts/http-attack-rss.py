#!/usr/bin/env python3
"""Memory of the demo's HTTP server under stalled connections, on loopback.

Starts `frontend` (path given, or target/release/examples/frontend), opens N connections that
each send ~60 KiB of an unfinished request head and then stall, and prints the server's RSS
before the attack, while the connections are open, and after they are gone.

    python3 scripts/http-attack-rss.py [--binary PATH] [--connections 4000] [--head-kib 60]

Loopback only. The script raises its own descriptor limit to the hard limit to hold the
connections; the server keeps its own limit.
"""

import argparse
import resource
import socket
import subprocess
import sys
import time


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def open_connections(port, count, head_bytes):
    conns = []
    head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Filler: " + b"a" * head_bytes
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        try:
            s.sendall(head)
        except OSError:
            pass  # the server already closed it (over the cap): it still counts as an attempt
        conns.append(s)
    return conns


def still_open(conns):
    alive = 0
    for s in conns:
        s.setblocking(False)
        try:
            # Whatever the server answered (a 431), then the end or nothing yet.
            while s.recv(65536):
                pass
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/examples/frontend")
    parser.add_argument("--connections", type=int, default=4000)
    parser.add_argument("--head-kib", type=int, default=60)
    parser.add_argument("--hold", type=float, default=3.0, help="seconds to hold them open")
    parser.add_argument("--server-args", default="", help="extra flags for the frontend")
    args = parser.parse_args()

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    server = subprocess.Popen(
        [args.binary, "--listen", "127.0.0.1:0", "--speed", "20"] + args.server_args.split(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = server.stdout.readline().strip()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        time.sleep(2)
        before = rss_mib(server.pid)
        start = time.time()
        conns = open_connections(port, args.connections, args.head_kib * 1024)
        opened = time.time() - start
        time.sleep(args.hold)
        during = rss_mib(server.pid)
        alive = still_open(conns)
        for s in conns:
            s.close()
        time.sleep(3)
        after = rss_mib(server.pid)
        print(
            f"{args.binary}: {args.connections} connections x {args.head_kib} KiB unfinished heads "
            f"(opened in {opened:.1f} s, {alive} still open after {args.hold:.0f} s): "
            f"RSS {before:.0f} MiB before, {during:.0f} MiB during, {after:.0f} MiB 3 s after"
        )
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
