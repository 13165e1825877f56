"""Make the generated variant datasets: minimal unique puzzles, one rule family each.

Each line of ``FAMILY.jsonl`` is ``{"rules": ..., "puzzle": ..., "solution": ...}``
(docs/puzzle.schema.json); ``classic.jsonl`` is made the same way under the classic
rules, for comparisons. Puzzle k of a family comes from its own seed, and every
uniqueness check runs to its end (no time limit), so a puzzle depends on its seed
alone, not on the machine, its load or the engine that checks it: the same command
gives the same files, byte for byte, anywhere (with the same cpsudoku and python-sat).

The files go to a new folder, ``variants-out/`` unless ``--out DIR`` names another;
an existing file is never written over without ``--force``. The bundled sets
(``benchmarks/data/variants/``, 100 puzzles of each region family and ``classic``, 50
of each other family: the default counts) were made by

    python benchmarks/make_variants.py --out benchmarks/data/variants --force --jobs 2

except two groups of files this command does not remake. ``little-killer.jsonl`` is
the set first made, at commit 6c925bd (cpsudoku 0.1.0, 2026-11-25), by that commit's
``python benchmarks/make_variants.py`` (every family, 50 each, written into
``benchmarks/data/variants``): the same seeds as here, but each uniqueness check on
the ``sat`` engine stopped at 0.25 s, a clue kept when its check ran out. Its lines
therefore depend on the speed of the machine that made them, and no command remakes
them byte for byte; every puzzle in it is unique all the same (a kept clue keeps the
puzzle unique; the variant-set tests solve each one), though not always minimal. Made
without a limit, as here, its first uniqueness checks run for many minutes each (more
than 4 minutes of CPU for the first puzzle on the compiled engine, unfinished). And
the 6 puzzles of each of the rule vocabulary's families were made with ``-n 6`` and
the generator's time-limited checks, not yet made again without them. A few sets, or
other counts, are made by e.g.

    python benchmarks/make_variants.py -n 50 thermometer sandwich
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cpsudoku.generate.variants import ALL_FAMILIES, VOCABULARY_FAMILIES, generate_variant

HERE = Path(__file__).parent

#: Where the files go unless ``--out`` says otherwise: a new folder, never the bundled sets.
DEFAULT_OUT = Path("variants-out")

#: The bundled sets, written only when named with ``--out`` (and ``--force``).
BUNDLED = HERE / "data" / "variants"

#: Puzzles per family unless ``-n`` is given: the counts of the bundled sets.
COUNTS = {"classic": 100, "jigsaw": 100, "x": 100, "windoku": 100}
COUNTS.update(dict.fromkeys(VOCABULARY_FAMILIES, 6))  # the vocabulary's small sets
DEFAULT_COUNT = 50

#: The engine that checks each family's clue removals, the fastest measured on it.
#: Checks without a time limit give the same answer whichever engine runs them, so the
#: choice changes the time taken, never the files; except where a solver completes the
#: grid itself (anti-knight, anti-king, non-consecutive: the solution it finds first),
#: which keep ``sat``.
CHECKERS = {
    "classic": "native",
    "jigsaw": "native",
    "x": "native",
    "windoku": "native",
    "disjoint": "native",
    "killer": "native",
    "renban": "native",
    "even-odd": "native",
}
DEFAULT_CHECKER = "cpsat"
SOLVER_GRIDS = ("anti-knight", "anti-king", "non-consecutive")


def checker(family: str) -> str | None:
    """The engine that checks ``family`` (see :data:`CHECKERS`); None: the generator's own.

    The rule vocabulary's families keep the generator's choice
    (:data:`cpsudoku.generate.variants.DEFAULT_ENGINE`), which also completes their grids.
    """
    if family in SOLVER_GRIDS:
        return "sat"
    if family in VOCABULARY_FAMILIES:
        return None
    return CHECKERS.get(family, DEFAULT_CHECKER)


def seed_of(family: str, k: int) -> int:
    """Puzzle ``k``'s seed: its family's place in ``ALL_FAMILIES`` times 1000, plus ``k``."""
    return 1000 * ALL_FAMILIES.index(family) + k


def line(args: tuple[str, int]) -> str:
    """Puzzle ``k`` of ``family`` as a JSON line."""
    family, k = args
    made = generate_variant(
        family, seed=seed_of(family, k), backend=checker(family), check_limit=None
    )
    return json.dumps(
        {
            "rules": made.puzzle.rules.spec(),
            "puzzle": str(made.puzzle),
            "solution": str(made.solution),
        },
        separators=(",", ":"),
    )


def make(families: list[str], out: Path, count: int | None, jobs: int) -> list[Path]:
    """Write ``FAMILY.jsonl`` into ``out`` for each family; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with ProcessPoolExecutor(jobs) as pool:
        for family in families:
            n = count if count is not None else COUNTS.get(family, DEFAULT_COUNT)
            start = time.perf_counter()
            lines = list(pool.map(line, [(family, k) for k in range(n)]))
            path = out / f"{family}.jsonl"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            written.append(path)
            seconds = time.perf_counter() - start
            print(f"{path}: {len(lines)} puzzles in {seconds:.1f} s", flush=True)
    return written


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and write the sets; 2 on a usage error."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "families", nargs="*", default=list(ALL_FAMILIES), metavar="FAMILY",
        help=f"families to make (default: all): {', '.join(ALL_FAMILIES)}",
    )  # fmt: skip
    parser.add_argument(
        "-n", type=int, metavar="N",
        help=f"puzzles per family (default: {DEFAULT_COUNT}; 100 for "
        f"{', '.join(COUNTS)}, as bundled)",
    )  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1, metavar="J", help="processes (default 1)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
        help=f"folder of the files (default: {DEFAULT_OUT}/; the bundled sets are "
        f"{BUNDLED.relative_to(HERE.parent)})",
    )  # fmt: skip
    parser.add_argument("--force", action="store_true", help="write over files that exist in DIR")
    args = parser.parse_args(argv)
    unknown = [f for f in args.families if f not in ALL_FAMILIES]
    if unknown:
        parser.error(f"unknown family {unknown[0]!r}; choose from: {', '.join(ALL_FAMILIES)}")
    if args.n is not None and args.n < 1:
        parser.error(f"-n must be at least 1, got {args.n}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    existing = [args.out / f"{f}.jsonl" for f in args.families]
    existing = [p for p in existing if p.exists()]
    if existing and not args.force:
        print(
            f"make_variants.py: {existing[0]} exists"
            + (f" (and {len(existing) - 1} more)" if len(existing) > 1 else "")
            + "; name another --out DIR, or add --force to write over it",
            file=sys.stderr,
        )
        return 2
    make(args.families, args.out, args.n, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
