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

Puzzles are parsed before the clock starts; wall time (``perf_counter``). The VM this
was measured on varies by about 25% between runs: run it twice and report the range.

Examples::

    python benchmarks/evidence_speed.py                     # forum_hardest_1106, clue17
    python benchmarks/evidence_speed.py --limit 300 --file top1465.txt
    python benchmarks/evidence_speed.py --sums 10          # the sum families only
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default="forum_hardest_1106.txt")
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--candidates-file", default="clue17_royle.txt")
    parser.add_argument("--candidates-limit", type=int, default=500)
    parser.add_argument("--sums", type=int, default=0, metavar="N")
    args = parser.parse_args()
    started = now()
    if args.sums:
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
