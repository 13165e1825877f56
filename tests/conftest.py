"""Shared fixtures: bundled data, small-grid helpers and a batch runner."""

from __future__ import annotations

import csv
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from itertools import permutations
from pathlib import Path

import pytest

from cpsudoku.cli import main
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Region, Rules

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).parent.parent

#: A command line run with some packages made unimportable, as if not installed;
#: it prints which of the blocked packages were loaded all the same.
_BLOCKED_RUN = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("blocked for this test: " + name)
        return None
BLOCKED = set(sys.argv[1].split(","))
sys.meta_path.insert(0, Block())
from cpsudoku.cli import main
code = main(sys.argv[2:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
print("LOADED", loaded)
sys.exit(code)
"""


#: What :func:`run_unbuilt` runs first: the named compiled extension cannot be imported.
_UNBUILT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            raise ModuleNotFoundError("not built", name=name)
sys.meta_path.insert(0, Block())
"""


def run_python(
    script: str,
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run the Python ``script`` with ``args`` in a new interpreter, its output captured."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


def run_unbuilt(module: str, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (Python, from the repository root) as if the compiled extension
    ``module`` (a dotted name) had not been built."""
    return run_python(_UNBUILT.format(module=module) + textwrap.dedent(script), timeout=120)


def asan_library() -> str | None:
    """The AddressSanitizer runtime gcc links against, or None without gcc or it."""
    if not shutil.which("gcc"):
        return None
    path = subprocess.run(
        ["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True
    ).stdout.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


def run_under_asan(
    source: Path, module: str, script: str, args: list[str], root: Path
) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with the package copied under ``root`` and ``module`` (a dotted
    name) built from ``source`` with AddressSanitizer; fails the test if it reports."""
    shutil.copytree(ROOT / "cpsudoku", root / "cpsudoku", ignore=shutil.ignore_patterns("*.so"))
    *package, name = module.split(".")
    target = root.joinpath(*package) / (name + sysconfig.get_config_var("EXT_SUFFIX"))
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        [
            *("gcc", "-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"),
            *("-shared", "-fPIC", f"-I{include}", str(source), "-o", str(target)),
        ],
        check=True,
        timeout=300,
    )
    env = {
        **os.environ,
        "LD_PRELOAD": asan_library() or "",
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
        "PYTHONPATH": str(root),
    }
    done = run_python(script, *args, cwd=root, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "AddressSanitizer" not in done.stderr
    return done


def run_blocked(blocked: set[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``cpsudoku ARGS`` in a subprocess where the ``blocked`` packages cannot be imported."""
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, ",".join(sorted(blocked)), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def read_lines(name: str, limit: int | None = None) -> list[str]:
    """Puzzle lines of a bundled test file (comments and blank lines skipped)."""
    lines = [
        line.strip()
        for line in (DATA / name).read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return lines[:limit]


def read_csv(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="") as fh:
        return list(csv.DictReader(fh))


def run_batch(src: Path, out: Path, *args: str, code: int = 0) -> list[dict[str, str]]:
    """Run ``cpsudoku batch SRC -o OUT --quiet ARGS``, check its exit code, read OUT's rows.

    The code is batch's: 0 every record decided, 3 some timed out, 4 some invalid, 5
    some disagree with the input's solution column or the cross-check.
    """
    assert main(["batch", str(src), "-o", str(out), "--quiet", *args]) == code
    with out.open(newline="") as fh:
        return list(csv.DictReader(fh))


def random_grid(g: Rules, rng: random.Random) -> Puzzle:
    """A valid complete grid: the pattern solution, shuffled by symmetries."""
    n, br, bc = g.n, g.box_rows, g.box_cols

    def pattern(r: int, c: int) -> int:
        return (bc * (r % br) + r // br + c) % n

    bands = rng.sample(range(n // br), n // br)
    rows = [b * br + r for b in bands for r in rng.sample(range(br), br)]
    stacks = rng.sample(range(n // bc), n // bc)
    cols = [s * bc + c for s in stacks for c in rng.sample(range(bc), bc)]
    symbols = rng.sample(range(1, n + 1), n)
    return Puzzle(g, tuple(symbols[pattern(r, c)] for r in rows for c in cols))


#: Sudoku X: the classic rules plus both main diagonals.
X = Rules.classic(3, 3).with_extra(
    Region("diagonal", tuple(i * 9 + i for i in range(9))),
    Region("anti-diagonal", tuple(i * 9 + 8 - i for i in range(9))),
)


def x_puzzle() -> Puzzle:
    """A Sudoku X puzzle with one solution under X rules and several without them.

    Made deterministically: the oracle's first X grid, then clues removed in cell
    order while the X puzzle stays unique.
    """
    from cpsudoku.engines import create_backend

    oracle = create_backend("backtrack")
    cells = list(oracle.search(Puzzle(X, (0,) * 81), 1, None).solutions[0])
    for i in range(81):
        kept = cells[i]
        cells[i] = 0
        if oracle.count(Puzzle(X, tuple(cells)), limit=2).count != 1:
            cells[i] = kept
    return Puzzle(X, tuple(cells))


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261123)


def _latin_squares_4x4() -> list[tuple[int, ...]]:
    """Every Latin square of order 4, by brute force over row permutations (no solver)."""
    rows = list(permutations(range(1, 5)))
    return [
        g
        for a in rows
        for b in rows
        for c in rows
        for d in rows
        if all(len({(g := a + b + c + d)[r * 4 + k] for r in range(4)}) == 4 for k in range(4))
    ]


#: The 576 Latin squares of order 4 and the 288 of them whose 2x2 boxes hold each value
#: once (every 4x4 Sudoku grid), both checked here by hand, apart from the model.
LATIN_4X4 = _latin_squares_4x4()
GRIDS_4X4 = [
    g
    for g in LATIN_4X4
    if all(
        len({g[(br + dr) * 4 + bc + dc] for dr in (0, 1) for dc in (0, 1)}) == 4
        for br in (0, 2)
        for bc in (0, 2)
    )
]


# ------------------------------------------------------------------ the slow tests

#: Test ids run only with ``-m slow`` (see the file's header).
SLOW_TESTS = ROOT / "tests" / "slow_tests.txt"


def slow_test_ids() -> set[str]:
    """The ids listed in :data:`SLOW_TESTS` (comments and blank lines skipped)."""
    lines = SLOW_TESTS.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the listed tests ``slow``: the default run leaves them out (pyproject.toml)."""
    slow = slow_test_ids()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
