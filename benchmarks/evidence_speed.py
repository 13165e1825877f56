"""Speed of the evidence features, one process, one core.

- Certificates on a puzzle file: generation alone (solve + formula + fresh CaDiCaL
  proof), generation with the in-process dratify check (what ``certify`` does), the
  files written too, and ``check_certificate`` on the written folders (hashes,
  solution, CNF against the plain encoder, proof); puzzles per second of each, and
  the median milliseconds of each part, so it shows which part dominates.
- True candidates of 17-clue puzzles: median and 90th percentile milliseconds, and
  solver calls per puzzle.
- With ``--sums N`` instead: certificates of the first N generated little-killer, arrow
  and sandwich puzzles (``data/variants``), one at a time: median and max seconds of
  ``certify`` (solve, proof, dratify check, files) and of ``check_certificate`` (which
  checks the sums' clauses under their declared meanings), per family.
- With ``--variants N`` instead: the same for every bundled variant set
  (``data/variants/*.jsonl``, N puzzles spread evenly over each file), the killer
  sample (``data/killer_krazydad.csv``) and one hand-made killer of big cages, cages
  without sums and little killers (:func:`big_killer`, the case that took 36 s to
  check before the cages' clauses were checked by their digit sets); ``--family``
  picks some of them. The target is every check under 2 s.

Puzzles are parsed before the clock starts; wall time (``perf_counter``). The VM this
was measured on varies by about 25% between runs: run it twice and report the range.

Examples::

    python benchmarks/evidence_speed.py                     # forum_hardest_1106, clue17
    python benchmarks/evidence_speed.py --limit 300 --file top1465.txt
    python benchmarks/evidence_speed.py --sums 10          # the sum families only
    python benchmarks/evidence_speed.py --variants 5       # every variant set, 5 each
    python benchmarks/evidence_speed.py --variants 1 --family big-killer
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cpsudoku.evidence import certify, check_certificate, make_certificate, true_candidates
from cpsudoku.evidence.certificate import write_certificate
from cpsudoku.evidence.provenance import now, provenance
from cpsudoku.model.forms import parse
from cpsudoku.model.puzzle import Puzzle

DATA = Path(__file__).resolve().parent / "data"


def load(name: str, limit: int) -> list[Puzzle]:
    path = Path(name) if Path(name).exists() else DATA / name
    lines = [s for s in path.read_text().splitlines() if s.strip() and not s.startswith("#")]
    return [parse(s) for s in lines[:limit]]


def certificates(puzzles: list[Puzzle]) -> None:
    # Warm-up: imports, the cached rule clauses.
    make_certificate(puzzles[0])
    t0 = time.perf_counter()
    for p in puzzles:
        make_certificate(p, check=False)
    gen = time.perf_counter() - t0
    parts: dict[str, list[float]] = {"solve": [], "prove": [], "check": []}
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        for k, p in enumerate(puzzles):
            cert = make_certificate(p)
            if not cert.checked:
                raise SystemExit(f"proof rejected: {cert.verdict}")
            for key, value in cert.seconds.items():
                parts[key].append(value)
            write_certificate(cert, Path(tmp) / str(k))
        both = time.perf_counter() - t0
        t0 = time.perf_counter()
        for k in range(len(puzzles)):
            report = check_certificate(Path(tmp) / str(k))
            if not report.ok:
                raise SystemExit(f"certificate rejected: {report.reasons}")
        check = time.perf_counter() - t0
    n = len(puzzles)
    print(f"certificates, {n} puzzles:")
    print(f"  generation alone (solve, formula, proof)  {n / gen:7.1f} /s")
    print(f"  certify (+ dratify check, files written)  {n / both:7.1f} /s")
    print(f"  check-certificate (plain encoder, proof)  {n / check:7.1f} /s")
    print(
        "  median ms per part of certify: "
        + ", ".join(f"{k} {statistics.median(v) * 1000:.1f}" for k, v in parts.items())
    )


def candidates(puzzles: list[Puzzle]) -> None:
    true_candidates(puzzles[0])
    times, calls = [], []
    for p in puzzles:
        found = true_candidates(p)
        if not found.unique:
            raise SystemExit("a 17-clue puzzle came out not unique")
        times.append(found.seconds)
        calls.append(found.calls)
    times.sort()
    print(f"true candidates, {len(puzzles)} 17-clue puzzles:")
    print(
        f"  median {statistics.median(times) * 1000:.2f} ms, "
        f"90th percentile {times[int(0.9 * (len(times) - 1))] * 1000:.2f} ms, "
        f"max {times[-1] * 1000:.2f} ms, median {statistics.median(calls):.0f} solver calls"
    )


SUM_FAMILIES = ("little-killer", "arrow", "sandwich")


def sums(limit: int) -> None:
    for family in SUM_FAMILIES:
        lines = (DATA / "variants" / f"{family}.jsonl").read_text().splitlines()[:limit]
        rows = [json.loads(line) for line in lines]
        puzzles = [parse(json.dumps({"rules": r["rules"], "puzzle": r["puzzle"]})) for r in rows]
        made, checked, clauses = [], [], []
        with tempfile.TemporaryDirectory() as tmp:
            for k, p in enumerate(puzzles):
                t0 = time.perf_counter()
                cert = certify(p, Path(tmp) / str(k))
                t1 = time.perf_counter()
                report = check_certificate(Path(tmp) / str(k))
                t2 = time.perf_counter()
                if not (cert.checked and report.ok):
                    raise SystemExit(f"{family} #{k}: {cert.verdict} {report.reasons}")
                made.append(t1 - t0)
                checked.append(t2 - t1)
                clauses.append(cert.cnf.count(" 0\n"))
        print(
            f"{family}, {len(puzzles)} puzzles ({statistics.median(clauses):.0f} clauses): "
            f"certify median {statistics.median(made):.2f} s, max {max(made):.2f} s; "
            f"check-certificate median {statistics.median(checked):.2f} s, "
            f"max {max(checked):.2f} s"
        )


def spread(items: list[str], limit: int) -> list[str]:
    """``limit`` items spread evenly over ``items`` (the first, then every k-th)."""
    if limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(k * step)] for k in range(limit)]


#: :func:`big_killer`'s cage map (one letter per cage, row by row), its solution, the
#: cages left without a sum, its little killers' lines and its givens (cell: value).
BIG_KILLER_MAP = "AAAABBBCCAAAABBCCCADDDBBCCEFFDDGGGEEFFDHHGGEEFFHHHIIIEJJJHPPIIEJLLKKKMMELLLKOOMME"
BIG_KILLER_GRID = (
    "549381267218765934637249815325894671891673542764512398456927183972138456183456729"
)
BIG_KILLER_NO_SUM = "DEGHJMO"
BIG_KILLER_LINES = (
    [0, 10, 20, 30, 40, 50, 60, 70, 80],
    [8, 16, 24, 32, 40, 48, 56],
    [45, 55, 65, 75],
)
BIG_KILLER_GIVENS = {2: 9, 11: 8, 21: 2, 29: 5, 30: 8, 42: 5, 47: 4, 51: 3, 73: 8, 76: 5}


def big_killer() -> Puzzle:
    """A killer of 15 cages (7 without sums, two of 9 cells) and 3 little killers.

    The shape of the certificate that once took 36 s to check: cages across boxes,
    two of 9 cells (one without its sum), seven with no sum at all, three little
    killers on diagonals; sums read off a solution, ten givens make it unique.
    """
    values = [int(ch) for ch in BIG_KILLER_GRID]
    constraints: list[dict[str, object]] = []
    for letter in sorted(set(BIG_KILLER_MAP)):
        cells = [i for i, ch in enumerate(BIG_KILLER_MAP) if ch == letter]
        spec: dict[str, object] = {"kind": "cage", "cells": cells}
        if letter not in BIG_KILLER_NO_SUM:
            spec["sum"] = sum(values[i] for i in cells)
        constraints.append(spec)
    for line in BIG_KILLER_LINES:
        constraints.append(
            {"kind": "little-killer", "cells": line, "sum": sum(values[i] for i in line)}
        )
    text = "".join(str(BIG_KILLER_GIVENS.get(i, ".")) for i in range(81))
    rules = {"size": 9, "box": "3x3", "constraints": constraints}
    return parse(json.dumps({"rules": rules, "puzzle": text}))


def variant_sets(limit: int) -> dict[str, list[Puzzle]]:
    """Up to ``limit`` puzzles of each bundled variant set, by family name."""
    from cpsudoku.datasets.records import read_records

    out: dict[str, list[Puzzle]] = {}
    for path in sorted((DATA / "variants").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        texts = [json.dumps({"rules": r["rules"], "puzzle": r["puzzle"]}) for r in rows]
        out[path.stem] = [parse(t) for t in spread(texts, limit)]
    krazydad = [r.puzzle for r in read_records(str(DATA / "killer_krazydad.csv"))]
    out["killer_krazydad"] = [parse(t) for t in spread(krazydad, limit)]
    out["big-killer"] = [big_killer()]
    return out


def variants(limit: int, families: list[str]) -> None:
    """Certify and check a sample of every variant set; median and max seconds each.

    Wall time, and the check's CPU time too (``process_time``: on a shared machine the
    wall time also counts the other processes' turns).
    """
    every = variant_sets(limit)
    unknown = sorted(set(families) - set(every))
    if unknown:
        raise SystemExit(f"no variant set {unknown[0]!r}; there are: {', '.join(every)}")
    worst = worst_cpu = 0.0
    for family, puzzles in every.items():
        if families and family not in families:
            continue
        made, checked, cpu = [], [], []
        with tempfile.TemporaryDirectory() as tmp:
            for k, p in enumerate(puzzles):
                t0 = time.perf_counter()
                cert = certify(p, Path(tmp) / str(k))
                t1, c1 = time.perf_counter(), time.process_time()
                report = check_certificate(Path(tmp) / str(k))
                t2, c2 = time.perf_counter(), time.process_time()
                if not (cert.checked and report.ok):
                    raise SystemExit(f"{family} #{k}: {cert.verdict} {report.reasons}")
                made.append(t1 - t0)
                checked.append(t2 - t1)
                cpu.append(c2 - c1)
        worst, worst_cpu = max(worst, max(checked)), max(worst_cpu, max(cpu))
        print(
            f"{family:<16} {len(puzzles):>3} puzzles: certify median "
            f"{statistics.median(made):5.2f} s, max {max(made):5.2f} s; check-certificate "
            f"median {statistics.median(checked):5.2f} s, max {max(checked):5.2f} s "
            f"(CPU median {statistics.median(cpu):5.2f} s, max {max(cpu):5.2f} s)",
            flush=True,
        )
    print(f"slowest check: {worst:.2f} s, {worst_cpu:.2f} s CPU (target: under 2 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default="forum_hardest_1106.txt")
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--candidates-file", default="clue17_royle.txt")
    parser.add_argument("--candidates-limit", type=int, default=500)
    parser.add_argument("--sums", type=int, default=0, metavar="N")
    parser.add_argument("--variants", type=int, default=0, metavar="N")
    parser.add_argument("--family", action="append", default=[], metavar="NAME")
    args = parser.parse_args()
    started = now()
    if args.variants:
        variants(args.variants, args.family)
    elif args.sums:
        sums(args.sums)
    else:
        certificates(load(args.file, args.limit))
        candidates(load(args.candidates_file, args.candidates_limit))
    meta = provenance(
        engine="sat (solution), cadical153 (proof), minisat22 (candidates)",
        parameters=vars(args),
        input_path=DATA / args.file,
        started=started,
    )
    print(
        f"cpsudoku {meta['cpsudoku']} ({meta['commit']}), python-sat "
        f"{meta['versions']['python-sat']}, dratify {meta['versions']['dratify']}, "
        f"{meta['machine']['cpu']}, {meta['machine']['cores']} cores"
    )


if __name__ == "__main__":
    main()
