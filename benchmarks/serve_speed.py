"""Round trips of ``cpsudoku serve``'s websocket, as the f-puzzles userscript makes them.

Starts a server (``python -m cpsudoku serve`` on a free port), then one client sends,
one request at a time, ``check`` (and ``truecandidates``, first and repeated) for
each puzzle: its f-puzzles JSON lz-string compressed to base64, with a nonce, as the
userscript sends it. Timed from the send to the final reply (the answer, never a
progress message). Prints the median and the 90th percentile per set.

    python benchmarks/serve_speed.py                   # 100 classic 9x9s + published variants
    taskset -c 0 python benchmarks/serve_speed.py      # one core
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import lzstring

ROOT = Path(__file__).resolve().parent.parent
_LZ = lzstring.LZString()


def _classic(path: Path, k: int) -> list[dict[str, Any]]:
    from cpsudoku.model.forms import parse
    from cpsudoku.model.fpuzzles import to_fpuzzles

    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if len(line) == 81:
            out.append(dict(to_fpuzzles(parse(line))))
        if len(out) == k:
            break
    return out


def _published(k: int) -> list[dict[str, Any]]:
    rows = (ROOT / "tests/data/published/fpuzzles.jsonl").read_text().splitlines()
    out = []
    for line in rows:
        obj = json.loads(line)["fpuzzles"]
        if obj.get("size") == 9:
            out.append(obj)
        if len(out) == k:
            break
    return out


async def _times(url: str, command: str, puzzles: list[dict[str, Any]]) -> list[float]:
    out = []
    nonce = 0
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        for fp in puzzles:
            nonce += 1
            data = _LZ.compressToBase64(json.dumps(fp))
            message = {"nonce": nonce, "command": command, "dataType": "fpuzzles", "data": data}
            start = time.perf_counter()
            await ws.send_str(json.dumps(message))
            while True:
                reply = json.loads((await ws.receive(timeout=120)).data)
                if reply["nonce"] == nonce and not reply.get("inProgress"):
                    break
            out.append(time.perf_counter() - start)
    return out


def _summary(name: str, times: list[float]) -> dict[str, Any]:
    times = sorted(times)
    return {
        "set": name,
        "puzzles": len(times),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1000, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100, help="puzzles per classic set")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "cpsudoku", "serve", "--port", str(port)]
    command += ["--workers", str(args.workers), "--time-limit", "60"]
    proc = subprocess.Popen(command)
    try:
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        url = f"ws://127.0.0.1:{port}/"
        sets = {
            "easy (kaggle)": _classic(ROOT / "benchmarks/data/easy_kaggle1m.txt", args.count),
            "hard (top95)": _classic(ROOT / "benchmarks/data/top95.txt", args.count),
            "published variants": _published(args.count),
        }
        rows = []
        for name, puzzles in sets.items():
            asyncio.run(_times(url, "check", puzzles[:3]))  # warm the workers
            rows.append(
                {"command": "check", **_summary(name, asyncio.run(_times(url, "check", puzzles)))}
            )
            tc = asyncio.run(_times(url, "truecandidates", puzzles))
            rows.append({"command": "truecandidates", **_summary(name, tc)})
            again = asyncio.run(_times(url, "truecandidates", puzzles))
            rows.append({"command": "truecandidates (repeat)", **_summary(name, again)})
        for row in rows:
            print(json.dumps(row))
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main()
