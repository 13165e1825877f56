"""The benchmark's datasets: the manifest (benchmarks/datasets.toml), and choosing from it."""

from __future__ import annotations

import csv
import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cpsudoku.datasets.records import read_records
from cpsudoku.model.errors import CpSudokuError


class BenchError(CpSudokuError, ValueError):
    """A bad benchmark request: unknown dataset, unreadable manifest."""


@dataclass(frozen=True, slots=True)
class Dataset:
    """One benchmark dataset from the manifest (or a file named on the command line)."""

    name: str
    path: Path
    tier: str = ""
    about: str = ""
    column: str | None = None
    min: float | None = None
    max: float | None = None
    default: bool = True

    def puzzles(self, limit: int | None = None) -> list[str]:
        """The dataset's puzzle strings (the rating band applied), at most ``limit``."""
        if self.column is None:
            out: list[str] = []
            for record in read_records(str(self.path)):
                if limit is not None and len(out) >= limit:
                    break
                out.append(record.puzzle)
            return out
        low = -math.inf if self.min is None else self.min
        high = math.inf if self.max is None else self.max
        out = []
        with self.path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if low <= float(row[self.column]) <= high:
                    out.append(row["puzzle"])
                    if limit is not None and len(out) >= limit:
                        break
        return out


def find_manifest(explicit: str | None = None) -> Path:
    """The manifest: ``explicit``, else ./benchmarks/datasets.toml, else next to the source."""
    candidates = (
        [Path(explicit)]
        if explicit
        else [
            Path("benchmarks") / "datasets.toml",
            Path(__file__).resolve().parents[2] / "benchmarks" / "datasets.toml",
        ]
    )
    for path in candidates:
        if path.is_file():
            return path
    looked = " and ".join(str(p.resolve()) for p in candidates)
    raise BenchError(
        f"no benchmark manifest at {looked}: the benchmark datasets come with the "
        "repository (a clone), not with the package; run from its root or pass --manifest FILE"
    )


def load_manifest(path: Path) -> list[Dataset]:
    """The datasets of a manifest, in its order (easy to hardest)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BenchError(f"cannot read the manifest {path}: {exc}") from None
    out = []
    for entry in data.get("dataset", []):
        out.append(
            Dataset(
                name=entry["name"],
                path=path.parent / entry["file"],
                tier=entry.get("tier", ""),
                about=entry.get("about", ""),
                column=entry.get("column"),
                min=entry.get("min"),
                max=entry.get("max"),
                default=entry.get("default", True),
            )
        )
    return out


def select_datasets(names: Sequence[str] | None, manifest: Sequence[Dataset]) -> list[Dataset]:
    """Datasets by manifest name or file path; the manifest's defaults when ``names`` is empty."""
    if not names:
        return [d for d in manifest if d.default]
    by_name = {d.name: d for d in manifest}
    out: list[Dataset] = []
    for name in names:
        if name in by_name:
            chosen = by_name[name]
        elif Path(name).is_file():
            chosen = Dataset(Path(name).stem, Path(name), "file")
        else:
            raise BenchError(
                f"unknown dataset {name!r}: not a file, and not one of: {', '.join(by_name)}"
            )
        if any(d.name == chosen.name for d in out):
            # Rows and report sections are keyed by the name: two sets under one name
            # would be measured and summed as one.
            raise BenchError(
                f"two datasets named {chosen.name!r} ({name!r} and one before it): "
                "name each set once, and rename files that share a name"
            )
        out.append(chosen)
    return out
