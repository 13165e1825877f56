"""Load on ``cpsudoku serve``: websocket clients sending true candidates with edits.

Each client does what the f-puzzles userscript does while "True Candid." is on: every
edit (a given added, removed or changed) sends ``truecandidates`` with a new nonce;
quick edits follow each other before the answer comes (the older request is then
cancelled by the newer one). After each burst of edits the client waits for the
answer to its latest nonce. The run stops by itself after ``--seconds``.

Counted: requests sent; final replies (true candidates, ``invalid``, ``canceled``);
**lost** requests (no final reply by the end); **stale** replies (a second final
reply for one nonce, or a reply to a nonce never sent); the latency of the answers to
the latest nonce; and, when the script starts the server itself, the memory (RSS) of
the server and its workers before and after, and the processes left once it stops.

    python benchmarks/serve_load.py                  # 20 clients, 30 s, own server
    python benchmarks/serve_load.py --url ws://127.0.0.1:4545/ --clients 5 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import lzstring

#: A classic with one solution; edits take givens from its solution (sometimes a
#: wrong digit, which has no solution: an ``invalid`` answer).
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"

_LZ = lzstring.LZString()


def _fpuzzles(cells: list[int]) -> dict[str, Any]:
    grid = []
    for r in range(9):
        row = []
        for c in range(9):
            v = cells[r * 9 + c]
            row.append({"value": v, "given": True} if v else {})
        grid.append(row)
    return {"size": 9, "grid": grid}


def _message(nonce: int, cells: list[int]) -> str:
    data = _LZ.compressToBase64(json.dumps(_fpuzzles(cells)))
    return json.dumps(
        {"nonce": nonce, "command": "truecandidates", "dataType": "fpuzzles", "data": data}
    )


async def _client(
    url: str, seconds: float, seed: int, report: dict[str, Any], latencies: list[float]
) -> None:
    rng = random.Random(seed)
    solution = [int(ch) for ch in SOLUTION]
    cells = [v if rng.random() < 0.3 else 0 for v in solution]
    sent: dict[int, float] = {}
    finals: dict[int, int] = {}
    nonce = 0
    end = time.monotonic() + seconds
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:

        async def read_until(target: int, timeout: float) -> bool:
            deadline = time.monotonic() + timeout
            while finals.get(target, 0) == 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                try:
                    msg = await ws.receive(timeout=left)
                except TimeoutError:
                    return False
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    return False
                reply = json.loads(msg.data)
                got = reply.get("nonce")
                if got not in sent:
                    report["stale"] += 1
                    continue
                finals[got] = finals.get(got, 0) + 1
                if finals[got] > 1:
                    report["stale"] += 1
                kind = reply.get("type")
                report[kind] = report.get(kind, 0) + 1
                if got == target and kind != "canceled":
                    latencies.append(time.monotonic() - sent[got])
            return True

        while time.monotonic() < end:
            for _ in range(rng.choice((1, 1, 2, 3))):
                wrong = [k for k in range(81) if cells[k] and cells[k] != solution[k]]
                roll = rng.random()
                if wrong and roll < 0.7:  # a setter takes a wrong digit out again
                    cells[rng.choice(wrong)] = 0
                    roll = 1.0
                i = rng.randrange(81)
                if roll < 0.5:
                    cells[i] = solution[i]
                elif roll < 0.95:
                    cells[i] = 0
                elif roll < 1.0:
                    cells[i] = rng.randint(1, 9)
                nonce += 1
                sent[nonce] = time.monotonic()
                report["requests"] += 1
                await ws.send_str(_message(nonce, cells))
                await asyncio.sleep(rng.choice((0.0, 0.02, 0.05)))
            if not await read_until(nonce, 30.0):
                break
        # Every request must have had its final reply: drain what is still coming.
        last = max(sent, default=0)
        if last:
            await read_until(last, 30.0)
        deadline = time.monotonic() + 2.0
        while any(finals.get(k, 0) == 0 for k in sent) and time.monotonic() < deadline:
            try:
                msg = await ws.receive(timeout=deadline - time.monotonic())
            except TimeoutError:
                break
            if msg.type is not aiohttp.WSMsgType.TEXT:
                break
            reply = json.loads(msg.data)
            got = reply.get("nonce")
            if got in sent:
                finals[got] = finals.get(got, 0) + 1
                if finals[got] > 1:
                    report["stale"] += 1
    report["lost"] += sum(1 for k in sent if finals.get(k, 0) == 0)


async def run_load(url: str, clients: int = 20, seconds: float = 30.0) -> dict[str, Any]:
    """Run ``clients`` clients against ``url`` for ``seconds``; the counts as a dict."""
    report: dict[str, Any] = {"requests": 0, "lost": 0, "stale": 0}
    latencies: list[float] = []
    start = time.monotonic()
    await asyncio.gather(
        *(_client(url, seconds, seed, report, latencies) for seed in range(clients))
    )
    report["seconds"] = round(time.monotonic() - start, 2)
    report["answered"] = report.get("truecandidates", 0)
    if latencies:
        latencies.sort()
        report["latency_ms_median"] = round(statistics.median(latencies) * 1000, 1)
        report["latency_ms_p95"] = round(latencies[int(0.95 * (len(latencies) - 1))] * 1000, 1)
    return report


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid and stat[0] != "Z":
                out.append(int(entry.name))
    return out


def _total_rss(pid: int) -> int:
    return _rss_kib(pid) + sum(_rss_kib(c) for c in _children(pid))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="a running server's websocket (default: start one)")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=2, help="workers of the server started")
    args = ap.parse_args()
    proc = None
    url = args.url
    if url is None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cpsudoku",
                "serve",
                "--port",
                str(port),
                "--workers",
                str(args.workers),
            ]
        )
        url = f"ws://127.0.0.1:{port}/"
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        time.sleep(1.0)
    before = _total_rss(proc.pid) if proc else None
    report = asyncio.run(run_load(url, args.clients, args.seconds))
    if proc is not None:
        time.sleep(1.0)
        report["rss_kib_before"] = before
        report["rss_kib_after"] = _total_rss(proc.pid)
        children = _children(proc.pid)
        proc.terminate()
        proc.wait(30)
        time.sleep(0.5)
        report["children_left"] = sum(1 for c in children if Path(f"/proc/{c}").exists())
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
