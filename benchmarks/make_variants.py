"""Make the generated variant datasets: minimal unique puzzles, one rule family each.

Each line of ``data/variants/FAMILY.jsonl`` is ``{"rules": ..., "puzzle": ...,
"solution": ...}`` (docs/puzzle.schema.json); ``classic.jsonl`` is made the same way
under the classic rules, for comparisons. Seeded: the same command gives the same
files.

    python benchmarks/make_variants.py                 # every family, 50 each
    python benchmarks/make_variants.py -n 200 jigsaw x classic --jobs 2
    python benchmarks/make_variants.py -n 6 x-sum chess --out /tmp/variants

Families are those of ``cpsudoku.generate.variants.ALL_FAMILIES``, each on its own
box shape (``DEFAULT_BOX``: 9x9 unless a minimal 9x9 puzzle takes too long to make).
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cpsudoku.generate.variants import ALL_FAMILIES, generate_variant

HERE = Path(__file__).parent
OUT = HERE / "data" / "variants"


def line(args: tuple[str, int]) -> str:
    """One puzzle of ``family``, seeded by its number, as a JSON line."""
    family, k = args
    made = generate_variant(family, seed=1000 * ALL_FAMILIES.index(family) + k)
    return json.dumps(
        {
            "rules": made.puzzle.rules.spec(),
            "puzzle": str(made.puzzle),
            "solution": str(made.solution),
        },
        separators=(",", ":"),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", default=list(ALL_FAMILIES))
    parser.add_argument("-n", type=int, default=50, help="puzzles per family")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(args.jobs) as pool:
        for family in args.families:
            lines = list(pool.map(line, [(family, k) for k in range(args.n)]))
            (args.out / f"{family}.jsonl").write_text("\n".join(lines) + "\n")
            print(f"{family}: {len(lines)} puzzles")


if __name__ == "__main__":
    main()
