#!/usr/bin/env python3
"""The server's own time for a `clada mcp` file_read call, without the SDK.

Drives `clada mcp` one call at a time over pipes (the next request is sent
when the answer to the last has been read) and, the same way, a floor: a
Python server that answers each call with the bytes clada answered the
first one with. Both run pinned to one core with this client (taskset), so
what the machine's other load and cross-core wake-ups add moves little:
clada's median minus the floor's is clada's own time a call.

  tools/bench-mcp-pingpong.py CLADA_BIN [CALLS]     (default 3000 calls)

Prints the medians and the difference. `--serve-floor REPLIES` is the floor
itself (run by this script).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "pingpong", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(i):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "file_read", "arguments": {"path": "f.txt"}}}


def line(m):
    return (json.dumps(m) + "\n").encode()


def serve_floor(replies_path):
    with open(replies_path) as f:
        init, result = json.load(f)
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        m = json.loads(raw)
        if "id" not in m:
            continue
        body = json.dumps(init if m.get("method") == "initialize" else result, separators=(",", ":"))
        out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(m["id"]).encode() + b',"result":' + body.encode() + b"}\n")
        out.flush()


def median_us(cmd, calls):
    p = subprocess.Popen(["taskset", "-c", "0"] + cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=0)
    reader = os.fdopen(p.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)
    p.stdin.write(line(INIT))
    reader.readline()
    p.stdin.write(line(INITIALIZED))
    lat = []
    for i in range(1, calls + 1):
        t = time.perf_counter()
        p.stdin.write(line(call(i)))
        answer = json.loads(reader.readline())
        lat.append(time.perf_counter() - t)
        if answer.get("id") != i or "result" not in answer or answer["result"].get("isError"):
            sys.exit(f"bench-mcp-pingpong: call {i} was not answered with a result: {answer}")
    p.stdin.close()
    p.wait()
    return statistics.median(lat[calls // 10:]) * 1e6


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--serve-floor":
        serve_floor(sys.argv[2])
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    clada = os.path.abspath(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    os.sched_setaffinity(0, {0})
    with tempfile.TemporaryDirectory(prefix="clada-pingpong-") as root:
        with open(os.path.join(root, "f.txt"), "w") as f:
            f.write("x" * 1023 + "\n")  # 1 KB
        server = [clada, "mcp", "--root", root, "--no-git"]
        first = subprocess.run(server, input=line(INIT) + line(INITIALIZED) + line(call(1)),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        answers = [json.loads(l) for l in first.decode().splitlines()]
        replies = os.path.join(root, "replies.json")
        with open(replies, "w") as f:
            json.dump([answers[0]["result"], answers[1]["result"]], f)
        floor = [sys.executable, os.path.abspath(__file__), "--serve-floor", replies]
        rounds = []
        for _ in range(3):
            rounds.append((median_us(server, calls), median_us(floor, calls)))
    for c, fl in rounds:
        print(f"clada {c:7.1f} us   floor (same bytes) {fl:7.1f} us   clada's own {c - fl:6.1f} us")
    own = statistics.median(c - fl for c, fl in rounds)
    print(f"clada's own time a call (median of {len(rounds)} rounds of {calls}): {own:.1f} us")


if __name__ == "__main__":
    main()
