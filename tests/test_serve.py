"""cpsudoku serve: SudokuSolver's websocket protocol, the JSON API, cancellation, load.

A real server on a free port (its own event loop in a thread, its real worker
processes); clients send what SudokuSolver's f-puzzles userscript sends: the puzzle's
f-puzzles JSON, lz-string compressed to base64, with a nonce.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")
lzstring = pytest.importorskip("lzstring")

from aiohttp import web  # noqa: E402

from cpsudoku import cli  # noqa: E402
from cpsudoku.evidence.candidates import true_candidates  # noqa: E402
from cpsudoku.model.forms import parse  # noqa: E402
from cpsudoku.model.fpuzzles import read_fpuzzles, to_fpuzzles  # noqa: E402
from cpsudoku.model.puzzle import Puzzle  # noqa: E402
from cpsudoku.model.verify import is_solution  # noqa: E402
from cpsudoku.serve.app import STATE, Limits, make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "tests" / "data" / "published" / "fpuzzles.jsonl"

#: A classic 9x9 with one solution, and the same with one given removed (8 solutions).
UNIQUE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SEVERAL = "53..7....6..195....9.....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
#: Givens that do not clash, yet r2c9 can hold nothing but 9 and no cell of row 1 can.
NONE = "12345678.........9" + "." * 63


def compress(obj: dict[str, Any]) -> str:
    """The userscript's ``data``: f-puzzles JSON, lz-string compressed to base64."""
    return str(lzstring.LZString().compressToBase64(json.dumps(obj)))


def fp_of(text: str) -> dict[str, Any]:
    """The f-puzzles object of a puzzle (givens marked given)."""
    return dict(to_fpuzzles(parse(text, check=False)))


def published(index: int = 0) -> dict[str, Any]:
    rows = [json.loads(line) for line in PUBLISHED.read_text(encoding="utf-8").splitlines()]
    return dict(rows[index]["fpuzzles"])


def spec_fp(constraints: list[dict[str, Any]], cells: str) -> dict[str, Any]:
    spec = {"rules": {"size": 9, "box": "3x3", "constraints": constraints}, "puzzle": cells}
    return dict(to_fpuzzles(parse(json.dumps(spec), check=False)))


class Server:
    """A real server in a thread: ``url``, ``ws_url`` and its ``state`` (the pool)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0
        self.app: web.Application | None = None
        self.runner: web.AppRunner | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start())
        self.ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        self.app = make_app(2, self.limits)
        self.runner = web.AppRunner(self.app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        sock = site._server.sockets[0]  # type: ignore[union-attr]
        self.port = sock.getsockname()[1]

    def start(self) -> Server:
        self.thread.start()
        assert self.ready.wait(60), "the server did not start"
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def pool(self) -> Any:
        assert self.app is not None
        return self.app[STATE].pool

    def stop(self) -> None:
        assert self.runner is not None
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server(Limits(interactive=3.0, count=4.0)).start()
    yield s
    pids = s.pool.pids()
    s.stop()
    for pid in pids:  # no worker outlives the server
        assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but not reaped yet: look at its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


async def _exchange(
    url: str, messages: list[dict[str, Any]], until: int, timeout: float = 30
) -> list[dict[str, Any]]:
    """Send ``messages``; collect replies until one final reply has come for nonce ``until``."""
    got: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        for m in messages:
            await ws.send_str(json.dumps(m))
        deadline = time.monotonic() + timeout
        while True:
            msg = await ws.receive(timeout=max(deadline - time.monotonic(), 0.01))
            assert msg.type is aiohttp.WSMsgType.TEXT, msg
            reply = json.loads(msg.data)
            got.append(reply)
            if reply.get("nonce") == until and _final(reply):
                return got


def _final(reply: dict[str, Any]) -> bool:
    return reply.get("type") != "estimate" and not reply.get("inProgress")


def ask(server: Server, command: str, obj: dict[str, Any] | str, nonce: int = 1) -> list[dict]:
    data = obj if isinstance(obj, str) else compress(obj)
    message = {"nonce": nonce, "command": command, "dataType": "fpuzzles", "data": data}
    return asyncio.run(_exchange(server.ws_url, [message], nonce))


# ------------------------------------------------------------- websocket


@pytest.mark.parametrize("text", [SEVERAL, UNIQUE])
def test_truecandidates_are_the_engines(server: Server, text: str) -> None:
    replies = ask(server, "truecandidates", fp_of(text), nonce=7)
    assert len(replies) == 1
    reply = replies[0]
    assert reply["nonce"] == 7
    assert reply["type"] == "truecandidates"
    counts = reply["solutionsPerCandidate"]
    assert len(counts) == 81 * 9
    expected = true_candidates(parse(text), backend="cpsat")
    got = [sum(1 << d for d in range(9) if counts[i * 9 + d]) for i in range(81)]
    assert tuple(got) == expected.masks
    assert set(counts) <= {0, 1}  # cap 1: every true candidate reported as 1


def test_truecandidates_of_a_published_variant(server: Server) -> None:
    fp = published(0)
    reply = ask(server, "truecandidates", fp)[0]
    puzzle = read_fpuzzles(fp).puzzle
    expected = true_candidates(puzzle)
    n = puzzle.n
    counts = reply["solutionsPerCandidate"]
    assert [sum(1 << d for d in range(n) if counts[i * n + d]) for i in range(n * n)] == list(
        expected.masks
    )


def test_truecandidates_repeat_is_cached_and_ignores_marks(server: Server) -> None:
    fp = fp_of(SEVERAL)
    first = ask(server, "truecandidates", fp, nonce=1)[0]
    marked = json.loads(json.dumps(fp))
    marked["grid"][0][1]["centerPencilMarks"] = [1, 2]  # what the page writes back
    marked["title"] = "renamed"
    start = time.perf_counter()
    again = ask(server, "truecandidates", marked, nonce=2)[0]
    assert time.perf_counter() - start < 2
    assert again["nonce"] == 2
    assert again["solutionsPerCandidate"] == first["solutionsPerCandidate"]


def test_truecandidates_coloured_counts(server: Server) -> None:
    fp = fp_of(SEVERAL)
    fp["truecandidatesoptions"] = ["colored"]  # the userscript's "Solution Count" setting
    reply = ask(server, "truecandidates", fp)[0]
    assert reply["type"] == "truecandidates", reply
    counts = reply["solutionsPerCandidate"]
    expected = true_candidates(parse(SEVERAL))
    assert [sum(1 << d for d in range(9) if counts[i * 9 + d]) for i in range(81)] == list(
        expected.masks
    )
    assert max(counts) == 8  # 8 solutions: a value all of them hold counts 8 (the cap)
    assert any(1 < c < 8 for c in counts)


def test_truecandidates_without_solution_is_invalid(server: Server) -> None:
    reply = ask(server, "truecandidates", fp_of(NONE))[0]
    assert reply == {"nonce": 1, "type": "invalid", "message": "No solutions found."}


def test_solve_gives_a_verified_solution(server: Server) -> None:
    reply = ask(server, "solve", fp_of(SEVERAL))[0]
    assert reply["type"] == "solved"
    solution = Puzzle(parse(SEVERAL).rules, tuple(reply["solution"]))
    assert is_solution(parse(SEVERAL), solution)


def test_solve_without_solution_is_invalid(server: Server) -> None:
    assert ask(server, "solve", fp_of(NONE))[0]["type"] == "invalid"


@pytest.mark.parametrize(("text", "count"), [(UNIQUE, 1), (SEVERAL, 2), (NONE, 0)])
def test_check_counts_to_two(server: Server, text: str, count: int) -> None:
    replies = ask(server, "check", fp_of(text))
    assert replies[-1] == {"nonce": 1, "type": "count", "count": count, "inProgress": False}


def test_count_is_exact_with_progress(server: Server) -> None:
    replies = ask(server, "count", fp_of("." * 16))
    assert replies[-1] == {"nonce": 1, "type": "count", "count": 288, "inProgress": False}
    for r in replies[:-1]:
        assert r["type"] == "count"
        assert r["inProgress"] is True


def test_count_streams_progress_then_says_the_time_ran_out(server: Server) -> None:
    replies = ask(server, "count", fp_of("." * 81))
    progress = [r for r in replies if r.get("inProgress")]
    assert progress, "no progress message"
    counts = [r["count"] for r in progress]
    assert counts == sorted(counts)
    last = replies[-1]
    assert last["type"] == "invalid"
    assert "time limit" in last["message"]
    assert "at least" in last["message"]


def test_solvepath_solves_a_classic_by_logic(server: Server) -> None:
    reply = ask(server, "solvepath", fp_of(UNIQUE))[0]
    assert reply["type"] == "logical"
    assert reply["isValid"] is True
    assert reply["message"].rstrip().endswith("Solved!")
    values = [c["value"] for c in reply["cells"]]
    assert is_solution(parse(UNIQUE), Puzzle(parse(UNIQUE).rules, tuple(values)))


def test_step_fills_candidates_first_then_takes_one_step(server: Server) -> None:
    fp = fp_of(UNIQUE)
    first = ask(server, "step", fp)[0]
    assert first["type"] == "logical"
    assert first["message"].strip() == "Initial candidates."
    # The userscript imports the cells as centre marks and asks again.
    for i, cell in enumerate(first["cells"]):
        r, c = divmod(i, 9)
        if not cell["value"]:
            fp["grid"][r][c]["centerPencilMarks"] = cell["candidates"]
    second = ask(server, "step", fp, nonce=2)[0]
    assert second["nonce"] == 2
    text = second["message"].strip()
    assert text
    assert text != "Initial candidates."
    assert len(text.splitlines()) == 1
    filled = sum(1 for c in second["cells"] if c["value"])
    marks = sum(len(c.get("candidates") or []) for c in second["cells"])
    before = sum(len(c.get("candidates") or []) for c in first["cells"])
    assert filled > sum(1 for v in UNIQUE if v != ".") or marks < before


def test_solvepath_says_when_the_rules_are_beyond_the_rater(server: Server) -> None:
    reply = ask(server, "solvepath", published(0))[0]
    assert reply["type"] == "logical"
    assert "not available for these rules" in reply["message"]
    assert len(reply["cells"]) == 81


@pytest.mark.parametrize(
    "data",
    [
        "",
        "not lz-string at all",
        compress({"size": 9}),
        str(lzstring.LZString().compressToBase64("[1,2]")),
    ],
)
def test_malformed_data_is_invalid_with_a_message(server: Server, data: str) -> None:
    reply = ask(server, "truecandidates", data)[0]
    assert reply["type"] == "invalid"
    assert reply["nonce"] == 1
    assert reply["message"]


def test_unknown_rule_key_is_invalid_naming_it(server: Server) -> None:
    fp = fp_of(UNIQUE)
    fp["nonsense-rule"] = [{"cells": ["R1C1"]}]
    reply = ask(server, "check", fp)[0]
    assert reply["type"] == "invalid"
    assert "nonsense-rule" in reply["message"]


def test_clashing_givens_are_invalid_naming_them(server: Server) -> None:
    reply = ask(server, "truecandidates", fp_of("55" + "." * 79))[0]
    assert reply["type"] == "invalid"
    assert "appears twice in row 1" in reply["message"]


def test_estimate_streams_sudokusolvers_fields(server: Server) -> None:
    replies = ask(server, "estimate", fp_of(SEVERAL))
    estimates = [r for r in replies if r["type"] == "estimate"]
    assert estimates, replies
    # It runs until cancelled, as SudokuSolver's does, or until the server's time limit.
    assert all(r["type"] == "estimate" for r in replies[:-1]), replies
    assert replies[-1]["type"] == "estimate" or "time limit" in replies[-1]["message"]
    last = estimates[-1]
    fields = {"estimate", "stderr", "iterations", "ci95_lower", "ci95_upper", "relErrPercent"}
    assert fields <= set(last)
    assert last["ci95_lower"] <= 8 <= last["ci95_upper"]  # the puzzle has 8 solutions


def test_not_json_and_unknown_commands_are_invalid(server: Server) -> None:
    async def go() -> list[dict[str, Any]]:
        async with aiohttp.ClientSession() as session, session.ws_connect(server.ws_url) as ws:
            await ws.send_str("{not json")
            a = json.loads((await ws.receive(timeout=10)).data)
            await ws.send_str(json.dumps({"nonce": 3, "command": "dance", "dataType": "fpuzzles"}))
            b = json.loads((await ws.receive(timeout=10)).data)
            await ws.send_str(json.dumps({"nonce": 4, "command": "check", "dataType": "sudokupad"}))
            c = json.loads((await ws.receive(timeout=10)).data)
            return [a, b, c]

    a, b, c = asyncio.run(go())
    assert a["type"] == "invalid"
    assert b["type"] == "invalid"
    assert b["nonce"] == 3
    assert "dance" in b["message"]
    assert c["type"] == "invalid"
    assert c["nonce"] == 4
    assert "dataType" in c["message"]


def _long_count(nonce: int) -> dict[str, Any]:
    return {
        "nonce": nonce,
        "command": "count",
        "dataType": "fpuzzles",
        "data": compress(fp_of("." * 81)),
    }


def test_cancel_stops_the_running_job(server: Server) -> None:
    killed = server.pool.killed

    async def go() -> list[dict[str, Any]]:
        got = []
        async with aiohttp.ClientSession() as session, session.ws_connect(server.ws_url) as ws:
            await ws.send_str(json.dumps(_long_count(1)))
            first = json.loads((await ws.receive(timeout=10)).data)
            assert first["inProgress"] is True  # the count is running
            await ws.send_str(json.dumps({"nonce": 2, "command": "cancel"}))
            while len([g for g in got if g["type"] == "canceled"]) < 2:
                got.append(json.loads((await ws.receive(timeout=10)).data))
        return got

    got = asyncio.run(go())
    canceled = {g["nonce"] for g in got if g["type"] == "canceled"}
    assert canceled == {1, 2}
    assert not [g for g in got if g["type"] == "count" and not g["inProgress"]]
    _wait(lambda: server.pool.killed > killed)  # the worker running it was killed


def test_a_second_message_cancels_the_first(server: Server) -> None:
    second = {
        "nonce": 2,
        "command": "check",
        "dataType": "fpuzzles",
        "data": compress(fp_of(UNIQUE)),
    }
    replies = asyncio.run(_exchange(server.ws_url, [_long_count(1), second], 2))
    by_nonce: dict[int, list[str]] = {}
    for r in replies:
        by_nonce.setdefault(r["nonce"], []).append(r["type"])
    assert by_nonce[2] == ["count"]
    assert replies[-1] == {"nonce": 2, "type": "count", "count": 1, "inProgress": False}
    assert by_nonce[1] == ["canceled"]  # cancelled before it ever ran: no kill needed


def test_a_second_message_stops_the_running_first(server: Server) -> None:
    killed = server.pool.killed
    second = {
        "nonce": 2,
        "command": "check",
        "dataType": "fpuzzles",
        "data": compress(fp_of(UNIQUE)),
    }

    async def go() -> list[dict[str, Any]]:
        got = []
        async with aiohttp.ClientSession() as session, session.ws_connect(server.ws_url) as ws:
            await ws.send_str(json.dumps(_long_count(1)))
            got.append(json.loads((await ws.receive(timeout=10)).data))
            assert got[0]["inProgress"] is True  # the count is running
            await ws.send_str(json.dumps(second))
            while not (got[-1]["nonce"] == 2 and got[-1]["type"] == "count"):
                got.append(json.loads((await ws.receive(timeout=10)).data))
        return got

    got = asyncio.run(go())
    assert [g["type"] for g in got if g["nonce"] == 1][-1] == "canceled"
    assert got[-1] == {"nonce": 2, "type": "count", "count": 1, "inProgress": False}
    _wait(lambda: server.pool.killed > killed)


def test_disconnect_cancels_the_job(server: Server) -> None:
    killed = server.pool.killed

    async def go() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(server.ws_url) as ws:
            await ws.send_str(json.dumps(_long_count(1)))
            assert json.loads((await ws.receive(timeout=10)).data)["inProgress"]

    asyncio.run(go())
    _wait(lambda: server.pool.killed > killed)


def _wait(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_inputs_that_hang_other_solvers_answer_in_time(server: Server) -> None:
    nabner = spec_fp(
        [{"kind": "nabner", "cells": ["r1c1", "r2c2", "r3c3", "r4c4", "r5c5"]}], "." * 81
    )
    start = time.perf_counter()
    reply = ask(server, "truecandidates", nabner)[0]
    assert time.perf_counter() - start < server.limits.interactive + 3
    assert reply["type"] == "truecandidates"
    counts = reply["solutionsPerCandidate"]
    assert [d + 1 for d in range(9) if counts[d]] == [1, 3, 5, 7, 9]  # r1c1 on the line
    half = ["r4c1", "r3c1", "r2c1", "r1c1", "r1c2", "r1c3", "r1c4", "r1c5", "r2c4", "r2c3"]
    half += ["r3c2", "r3c3"]
    line = half + [f"r{7 - int(c[1])}c{7 - int(c[3])}" for c in reversed(half)]
    palindrome = spec_fp([{"kind": "palindrome", "cells": line}], "." * 80 + "1")
    for command in ("solve", "truecandidates", "check"):
        start = time.perf_counter()
        reply = ask(server, command, palindrome)[-1]
        assert time.perf_counter() - start < server.limits.interactive + 3
        assert reply["type"] in ("solved", "truecandidates", "count"), reply


def test_short_load_loses_no_reply(server: Server) -> None:
    spec = importlib.util.spec_from_file_location(
        "serve_load", ROOT / "benchmarks" / "serve_load.py"
    )
    assert spec is not None
    assert spec.loader is not None
    load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load)
    report = asyncio.run(load.run_load(server.ws_url, clients=3, seconds=3.0))
    assert report["requests"] > 0
    assert report["lost"] == 0
    assert report["stale"] == 0
    assert report["answered"] > 0


# ------------------------------------------------------------------ HTTP


def post(server: Server, name: str, body: Any) -> tuple[int, Any, str]:
    async def go() -> tuple[int, Any, str]:
        async with aiohttp.ClientSession() as session:
            data = body if isinstance(body, str) else json.dumps(body)
            async with session.post(f"{server.url}/api/{name}", data=data) as r:
                text = await r.text()
                return r.status, r.content_type, text

    return asyncio.run(go())


def post_json(server: Server, name: str, body: Any) -> tuple[int, Any]:
    code, kind, text = post(server, name, body)
    assert kind == "application/json", text
    return code, json.loads(text)


@pytest.mark.parametrize(
    ("text", "status"), [(UNIQUE, "unique"), (SEVERAL, "multiple"), (NONE, "unsolvable")]
)
def test_api_solve_and_check_speak_the_cli_statuses(server: Server, text: str, status: str) -> None:
    code, got = post_json(server, "solve", {"puzzle": text})
    assert code == 200
    assert got["status"] == status
    code, got = post_json(server, "check", {"puzzle": text})
    assert code == 200
    assert got["status"] == status


def test_api_takes_links_and_json_objects(server: Server) -> None:
    from cpsudoku.model.fpuzzles import fpuzzles_link

    fp = published(0)
    code, got = post_json(server, "solve", {"puzzle": fpuzzles_link(fp)})
    assert code == 200
    assert got["status"] == "unique"
    code, got = post_json(server, "show", {"puzzle": fp})
    assert code == 200
    assert got["title"]
    assert len(got["lines"]) > 2


def test_api_candidates(server: Server) -> None:
    code, got = post_json(server, "candidates", {"puzzle": SEVERAL})
    assert code == 200
    assert got["status"] == "multiple"
    expected = true_candidates(parse(SEVERAL))
    assert got["candidates"] == [list(expected.values(i)) for i in range(81)]


def test_api_count_streams_ndjson(server: Server) -> None:
    code, kind, text = post(server, "count", {"puzzle": "." * 16, "limit": 0})
    assert code == 200
    assert kind == "application/x-ndjson"
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[-1]["count"] == 288
    assert lines[-1]["complete"] is True
    assert lines[-1]["status"] == "multiple"


def test_api_explain_draw_certify_canon(server: Server) -> None:
    code, got = post_json(server, "explain", {"puzzle": NONE})
    assert code == 200
    assert got["status"] == "unsolvable"
    assert got["lines"]
    assert "<svg" in got["svg"]
    code, got = post_json(server, "explain", {"puzzle": SEVERAL})
    assert code == 200
    assert got["status"] == "multiple"
    assert got["differ"]
    code, kind, svg = post(server, "draw", {"puzzle": SEVERAL, "candidates": True})
    assert code == 200
    assert kind == "image/svg+xml"
    assert 'class="candidate"' in svg
    code, got = post_json(server, "certify", {"puzzle": UNIQUE})
    assert code == 200
    assert got["certified"] is True
    assert got["zip"]
    code, got = post_json(server, "certify", {"puzzle": SEVERAL})
    assert code == 200
    assert got["certified"] is False
    assert got["status"] == "multiple"
    code, got = post_json(server, "canon", {"puzzle": UNIQUE})
    assert code == 200
    assert len(got["canonical"]) == 81


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("solve", {"puzzle": "12"}),
        ("solve", {}),
        ("solve", [1, 2]),
        ("solve", "{broken"),
        ("check", {"puzzle": "55" + "." * 79}),
        ("candidates", {"puzzle": UNIQUE, "cap": -1}),
        ("count", {"puzzle": UNIQUE, "limit": "many"}),
        ("count", {"puzzle": "zz"}),
        ("draw", {"puzzle": "https://f-puzzles.com/?load=garbage"}),
        ("solve", {"puzzle": UNIQUE, "backend": "nonesuch"}),
        ("solve", {"puzzle": UNIQUE, "time_limit": -1}),
        ("draw", {"puzzle": UNIQUE, "highlight": ["r10c1"]}),
        ("draw", {"puzzle": UNIQUE, "highlight": "r1c1"}),
    ],
)
def test_api_bad_input_is_400_with_a_message(server: Server, name: str, body: Any) -> None:
    code, got = post_json(server, name, body)
    assert code == 400
    assert got["status"] == "invalid"
    assert got["error"]
    assert "Traceback" not in got["error"]


def test_api_draw_highlights_the_cells_named(server: Server) -> None:
    code, got = post_json(server, "explain", {"puzzle": SEVERAL})
    code, _, svg = post(server, "draw", {"puzzle": SEVERAL, "highlight": got["cells"]})
    assert code == 200
    assert svg.count('class="highlight"') == len(got["cells"]) == len(got["differ"])
    assert 'class="solved"' not in svg  # highlighting alone fills in nothing


def test_api_unknown_endpoint_is_404(server: Server) -> None:
    code, got = post_json(server, "dance", {"puzzle": UNIQUE})
    assert code == 404
    assert "dance" in got["error"]


def test_page_and_its_files_are_served(server: Server) -> None:
    async def go() -> list[tuple[int, str]]:
        out = []
        async with aiohttp.ClientSession() as session:
            for path in ("/", "/static/app.js", "/static/style.css", "/static/../app.py"):
                async with session.get(server.url + path) as r:
                    out.append((r.status, await r.text()))
        return out

    (a, page), (b, _), (c, _), (d, _) = asyncio.run(go())
    assert a == b == c == 200
    assert "<textarea" in page
    assert d == 404


# ------------------------------------------------------------------- CLI


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--port", "70000"],
        ["serve", "--workers", "0"],
        ["serve", "--time-limit", "0"],
    ],
)
def test_serve_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    assert "cpsudoku: error:" in capsys.readouterr().err


def test_serve_on_a_port_in_use_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "cpsudoku: error:" in err
    assert "address already in use" in err.lower()
    assert "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_command_runs_and_leaves_no_process(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cpsudoku", "serve", "--port", str(port), "--host", "127.0.0.2"],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        url = f"http://127.0.0.2:{port}"

        async def check() -> dict[str, Any]:
            async with aiohttp.ClientSession() as session:
                for _ in range(300):
                    try:
                        async with session.post(f"{url}/api/check", json={"puzzle": UNIQUE}) as r:
                            return dict(await r.json())
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.1)
            raise AssertionError("the server never answered")

        assert asyncio.run(check())["status"] == "unique"
        children = _children(proc.pid)
        assert len(children) == 2  # the two workers
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert "warning" in err
    assert "127.0.0.2" in err
    for pid in children:
        _wait(lambda pid=pid: not _alive(pid))


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(entry.name))
    return out
