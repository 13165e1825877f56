"""The server: SudokuSolver's websocket protocol, a JSON API and a web page on one port.

- ``ws://HOST:PORT/``: the websocket the f-puzzles userscript of SudokuSolver connects
  to (:func:`websocket`), speaking its protocol: requests ``{nonce, command,
  dataType: "fpuzzles", data}``, replies ``{nonce, type, ...}``.
- ``POST /api/NAME``: the JSON API (:data:`~cpsudoku.serve.jobs.API_ENDPOINTS`), the
  statuses of the command line; ``count`` streams newline-delimited JSON.
- ``GET /``: the page (``cpsudoku/serve/static``).

No request reads or writes a file: every puzzle comes in the request body, and every
answer (a drawing, a certificate) goes back in the response.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from cpsudoku.serve.jobs import API_ENDPOINTS, WS_COMMANDS
from cpsudoku.serve.pool import WorkerPool


@dataclass(frozen=True)
class Limits:
    """Seconds each kind of request may run.

    The engines stop there; the job answers ``timeout`` or, on the websocket,
    ``invalid`` saying so.

    Attributes:
        interactive: true candidates, check, solve, step, solve path, and the API's
            solve, check, candidates, draw, explain, canon, show.
        count: count (websocket and API), estimate, certify.
    """

    interactive: float = 5.0
    count: float = 60.0

    def of(self, command: str) -> float:
        """The limit of a websocket command or API endpoint."""
        return self.count if command in ("count", "estimate", "certify") else self.interactive


#: True-candidate replies kept, keyed by the puzzle as read (see :func:`_tc_key`).
CACHE_SIZE = 1000


@dataclass
class ServerState:
    """What the server keeps between requests."""

    pool: WorkerPool
    limits: Limits = field(default_factory=Limits)
    cache: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    clients: int = 0


STATE: web.AppKey[ServerState] = web.AppKey("state", ServerState)

_STATIC = resources.files("cpsudoku.serve") / "static"

#: Keys of an f-puzzles cell that change as the solver fills the page in (marks,
#: colours, digits not given): no part of the puzzle true candidates are asked of.
_CELL_NOISE = ("centerPencilMarks", "cornerPencilMarks", "candidates", "c", "cArray", "highlight")
#: Keys of an f-puzzles object that say nothing of its rules.
_OBJ_NOISE = ("title", "author", "ruleset", "disabledlogic", "solution", "fogofwar", "foglight")


def _tc_key(data: str) -> str | None:
    """The cache key of a truecandidates request: the puzzle, its marks left out.

    None when the data cannot be read (the worker says why). The key keeps the
    givens, the given pencil marks, the regions and every rule key, and whether the
    counts are coloured; it drops what the solver's own replies change on the page.
    """
    from cpsudoku.serve.jobs import fpuzzles_data

    try:
        obj = fpuzzles_data(data)
    except ValueError:
        return None
    for key in _OBJ_NOISE:
        obj.pop(key, None)
    grid = obj.get("grid")
    if isinstance(grid, list):
        for row in grid:
            for cell in row if isinstance(row, list) else ():
                if not isinstance(cell, dict):
                    continue
                for key in _CELL_NOISE:
                    cell.pop(key, None)
                if not cell.get("given"):
                    cell.pop("value", None)
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _remember(state: ServerState, key: str, reply: dict[str, Any]) -> None:
    state.cache[key] = reply
    state.cache.move_to_end(key)
    while len(state.cache) > CACHE_SIZE:
        state.cache.popitem(last=False)


# ------------------------------------------------------------------ websocket


class _Job:
    """One websocket request being answered: its nonce, and whether it has its answer."""

    def __init__(self, nonce: object) -> None:
        self.nonce = nonce
        self.answered = False
        self.task: asyncio.Task[None] | None = None

    async def cancel(self, send: Any) -> None:
        """Stop the job; answer ``canceled`` unless it has its answer already."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        if not self.answered:
            self.answered = True
            await send({"nonce": self.nonce, "type": "canceled"})


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """SudokuSolver's f-puzzles protocol: one job per client, a new message cancels it.

    Every request gets one answer: its result, ``invalid``, or ``canceled`` (when a
    newer message or a ``cancel`` stopped it). A count's progress and an estimate's
    updates come before the answer.
    """
    state = request.app[STATE]
    ws = web.WebSocketResponse(max_msg_size=16 << 20, heartbeat=30)
    await ws.prepare(request)
    state.clients += 1
    job: _Job | None = None

    async def send(obj: dict[str, Any]) -> None:
        if not ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(json.dumps(obj, separators=(",", ":")))

    try:
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            if job is not None:
                await job.cancel(send)  # any new message cancels the client's running job
                job = None
            try:
                message = json.loads(msg.data)
            except json.JSONDecodeError:
                await send({"nonce": 0, "type": "invalid", "message": "the message is not JSON"})
                continue
            if not isinstance(message, dict):
                await send({"nonce": 0, "type": "invalid", "message": "the message is no object"})
                continue
            nonce = message.get("nonce", 0)
            command = message.get("command")
            if command == "cancel":
                await send({"nonce": nonce, "type": "canceled"})
                continue
            if message.get("dataType") != "fpuzzles":
                await send(
                    {
                        "nonce": nonce,
                        "type": "invalid",
                        "message": 'dataType must be "fpuzzles" (f-puzzles data, lz-string base64)',
                    }
                )
                continue
            if command not in WS_COMMANDS:
                await send(
                    {
                        "nonce": nonce,
                        "type": "invalid",
                        "message": f"unknown command {command!r}: one of "
                        f"{', '.join((*WS_COMMANDS, 'cancel'))}",
                    }
                )
                continue
            job = _Job(nonce)
            job.task = asyncio.ensure_future(
                _ws_job(state, send, job, str(command), message.get("data"))
            )
    finally:
        if job is not None and job.task is not None and not job.task.done():
            job.task.cancel()  # the client left: its job stops
        state.clients -= 1
    return ws


async def _ws_job(state: ServerState, send: Any, job: _Job, command: str, data: object) -> None:
    """Run one websocket job, its messages sent as they come."""
    nonce = job.nonce
    key = _tc_key(data) if command == "truecandidates" and isinstance(data, str) else None
    if key is not None and key in state.cache:
        state.cache.move_to_end(key)
        job.answered = True
        await send({"nonce": nonce, **state.cache[key]})
        return
    limit = state.limits.of(command)

    async def on_message(msg: dict[str, Any]) -> None:
        if job.answered:
            return  # cancelled meanwhile: its answer was ``canceled``
        # A count's progress and an estimate's updates are not the answer.
        job.answered = msg.get("type") != "estimate" and not msg.get("inProgress")
        if (
            key is not None
            and msg.get("type") in ("truecandidates", "invalid")
            and not str(msg.get("message", "")).startswith("The time limit")
        ):
            _remember(state, key, dict(msg))  # before the worker's end: a newer message
            # may cancel the job as soon as the client has its answer
        await send({"nonce": nonce, **msg})

    outcome = await state.pool.run(
        {"ws": command, "data": data, "time_limit": limit}, on_message, limit
    )
    if job.answered:
        return
    job.answered = True
    if outcome == "timeout":
        message = f"The time limit of {limit:g} s ran out."
    elif outcome == "done":  # an estimate that ran to its time limit
        message = f"Stopped at the time limit of {limit:g} s."
    else:
        message = outcome
    await send({"nonce": nonce, "type": "invalid", "message": message})


# ----------------------------------------------------------------------- HTTP


async def api(request: web.Request) -> web.StreamResponse:
    """``POST /api/NAME``: one JSON body in, JSON (or SVG, or NDJSON for count) out."""
    state = request.app[STATE]
    name = request.match_info["name"]
    if name not in API_ENDPOINTS:
        return _json_error(f"no endpoint /api/{name}: one of {', '.join(API_ENDPOINTS)}", 404)
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _json_error('the body must be JSON: {"puzzle": ..., options}', 400)
    if not isinstance(body, dict):
        return _json_error('the body must be a JSON object: {"puzzle": ..., options}', 400)
    limit = state.limits.of(name)
    job = {"api": name, "body": body, "time_limit": limit}
    if name == "count":
        return await _api_stream(request, state, job, limit)
    got: list[dict[str, Any]] = []

    async def keep(msg: dict[str, Any]) -> None:
        got.append(msg)

    outcome = await state.pool.run(job, keep, limit)
    if outcome == "timeout" or (outcome == "done" and not got):
        return web.json_response(
            {"status": "timeout", "error": f"time limit of {limit:g} s reached"}, status=200
        )
    if outcome != "done":
        return _json_error(outcome, 500)
    reply = got[-1]
    code = int(reply.pop("http", 200))
    if name == "draw" and code == 200:
        return web.Response(text=reply["svg"], content_type="image/svg+xml")
    return web.json_response(reply, status=code)


async def _api_stream(
    request: web.Request, state: ServerState, job: dict[str, Any], limit: float
) -> web.StreamResponse:
    """``count``: progress lines, then the count, as newline-delimited JSON."""
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def put(msg: dict[str, Any]) -> None:
        await queue.put(msg)

    async def work() -> str:
        try:
            return await state.pool.run(job, put, limit)
        finally:
            await queue.put(None)

    task = asyncio.ensure_future(work())
    first = await queue.get()
    if first is not None and first.get("http") == 400:
        first.pop("http")
        await task
        return web.json_response(first, status=400)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    try:
        msg = first
        while msg is not None:
            await response.write((json.dumps(msg) + "\n").encode())
            msg = await queue.get()
        outcome = await task
        if outcome == "timeout":
            line = {"status": "timeout", "error": f"time limit of {limit:g} s reached"}
            await response.write((json.dumps(line) + "\n").encode())
        elif outcome != "done":
            await response.write(
                (json.dumps({"status": "error", "error": outcome}) + "\n").encode()
            )
    finally:
        task.cancel()  # the client left: the count stops
    await response.write_eof()
    return response


def _json_error(message: str, code: int) -> web.Response:
    return web.json_response({"status": "invalid", "error": message}, status=code)


# ----------------------------------------------------------------------- page


async def root(request: web.Request) -> web.StreamResponse:
    """``/``: the websocket when asked to upgrade, else the page."""
    if request.headers.get("Upgrade", "").lower() == "websocket":
        return await websocket(request)
    return web.Response(
        text=(_STATIC / "index.html").read_text(encoding="utf-8"), content_type="text/html"
    )


async def static(request: web.Request) -> web.Response:
    """The page's script and style (package data; no file outside it is served)."""
    name = request.match_info["name"]
    types = {"app.js": "application/javascript", "style.css": "text/css"}
    if name not in types:
        raise web.HTTPNotFound()
    return web.Response(text=(_STATIC / name).read_text(encoding="utf-8"), content_type=types[name])


# ------------------------------------------------------------------------ app


def make_app(workers: int = 2, limits: Limits | None = None) -> web.Application:
    """The aiohttp application; its worker pool starts and stops with it."""
    app = web.Application(client_max_size=16 << 20)
    app[STATE] = ServerState(WorkerPool(workers), limits or Limits())
    app.router.add_get("/", root)
    app.router.add_get("/static/{name}", static)
    app.router.add_post("/api/{name}", api)
    app.cleanup_ctx.append(_pool_lifetime)
    return app


async def _pool_lifetime(app: web.Application) -> AsyncIterator[None]:
    pool = app[STATE].pool
    await pool.start()
    try:
        yield
    finally:
        await pool.close()


def serve(host: str, port: int, workers: int, limits: Limits) -> None:
    """Run the server until Ctrl-C or SIGTERM (workers stopped on the way out)."""
    print(
        f"cpsudoku serve: http://{host}:{port}/ (page and API), ws://{host}:{port}/ "
        "(f-puzzles userscript); Ctrl-C stops",
        file=sys.stderr,
    )
    web.run_app(make_app(workers, limits), host=host, port=port, print=None, handle_signals=True)
