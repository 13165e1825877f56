"""``cpsudoku serve``: a local server for setters (the ``serve`` extra, aiohttp).

One port serves SudokuSolver's websocket protocol (so its f-puzzles userscript works
with cpsudoku unchanged), a JSON API with the command line's statuses, and a page to
paste a puzzle into. See :mod:`cpsudoku.serve.app` for the endpoints,
:mod:`cpsudoku.serve.pool` for how jobs run and are cancelled, and
:mod:`cpsudoku.serve.jobs` for what each request does.
"""
