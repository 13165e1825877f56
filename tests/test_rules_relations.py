"""Pair rules and indexers: as stated, against brute force, and read from f-puzzles.

Each kind is checked twice over, apart from each other. Its own check of a complete
grid (what the verifier runs) is held to the rule written out here from its
statement, on every 4x4 grid and on a sample of 6x6 grids; its primitives (what the
engines solve) are held to that check by brute force (:mod:`rulecheck`): every engine
must count as many grids as there are. Random instances take their parameters from a
random grid, so that some are satisfiable and some are not.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, GRIDS_4X4, LATIN_4X4
from hypothesis import given, settings
from hypothesis import strategies as st
from rulecheck import check_4x4, check_6x6, keeps, neighbours, random_grid_6x6, rules_of

from cpsudoku import Status
from cpsudoku.engines import create_backend, native_built
from cpsudoku.model.constraints import KINDS, SYMBOLS, constraint_from_spec
from cpsudoku.model.errors import RulesError
from cpsudoku.model.exchange import to_exchange
from cpsudoku.model.fpuzzles import read_fpuzzles, to_fpuzzles
from cpsudoku.model.puzzle import Puzzle
from cpsudoku.model.rules import Rules
from cpsudoku.model.verify import solution_problems

Grid = Sequence[int]
Spec = dict[str, Any]

#: The kinds this family adds.
NEW_KINDS = (
    "chess",
    "taxicab",
    "self-taxicab",
    "diagonal-non-consecutive",
    "knightmare",
    "sum-dot",
    "clone",
    "minimum",
    "maximum",
    "row-indexer",
    "column-indexer",
    "box-indexer",
)

#: A 4x4 jigsaw (regions in reading order), for box indexers over regions.
JIGSAW_4X4 = ((0, 1, 4, 8), (2, 3, 7, 11), (5, 6, 9, 10), (12, 13, 14, 15))


def _boxes(n: int, rows: int, cols: int) -> list[list[int]]:
    """The boxes of an n x n grid, each in reading order."""
    return [
        [(br + r) * n + bc + c for r in range(rows) for c in range(cols)]
        for br in range(0, n, rows)
        for bc in range(0, n, cols)
    ]


# ------------------------------------------------------------------ the rules as stated


def _apart(i: int, j: int, n: int) -> tuple[int, int]:
    """|row difference|, |column difference| of cells i and j."""
    return abs(i // n - j // n), abs(i % n - j % n)


@lru_cache(maxsize=8)
def _pairs(n: int) -> list[tuple[int, int]]:
    """Every pair of cells, each once."""
    return [(i, j) for i in range(n * n) for j in range(i + 1, n * n)]


@lru_cache(maxsize=8)
def _orthogonal(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n * n) for j in range(i + 1, n * n) if sum(_apart(i, j, n)) == 1]


def _allows(mark: str, value: int, a: int, b: int) -> bool:
    """What a mark of a kind and value lets its two cells hold, as setters state it."""
    if mark == "kropki-white":
        return abs(a - b) == value
    if mark == "kropki-black":
        return a == value * b or b == value * a
    return a + b == value


_MARK_DEFAULTS = {"kropki-white": 1, "kropki-black": 2, "x": 10, "v": 5, "sum-dot": 5}


def _stated(
    spec: Spec, g: Grid, n: int, regions: Sequence[Sequence[int]], specs: list[Spec]
) -> bool:
    """Whether grid ``g`` keeps the rule ``spec`` (cells as indices), from its statement."""
    kind = spec["kind"]
    every = range(n * n)
    pairs = _pairs(n)
    if kind == "chess":
        offsets = {tuple(sorted((abs(a), abs(b)))) for a, b in spec["offsets"]}
        digits = set(spec.get("values", range(1, n + 1)))
        listed = set(spec.get("cells", every))
        return not any(
            tuple(sorted(_apart(i, j, n))) in offsets
            and (i in listed or j in listed)
            and g[i] == g[j]
            and g[i] in digits
            for i, j in pairs
        )
    if kind == "taxicab":
        return not any(sum(_apart(i, j, n)) == spec["distance"] and g[i] == g[j] for i, j in pairs)
    if kind == "self-taxicab":
        return not any(g[i] == g[j] == sum(_apart(i, j, n)) for i, j in pairs)
    if kind == "diagonal-non-consecutive":
        return not any(_apart(i, j, n) == (1, 1) and abs(g[i] - g[j]) == 1 for i, j in pairs)
    if kind == "knightmare":
        sums = set(spec.get("sums", (5, 15)))
        return not any(sorted(_apart(i, j, n)) == [1, 2] and g[i] + g[j] in sums for i, j in pairs)
    if kind in _MARK_DEFAULTS:
        a, b = spec["cells"]
        return _allows(kind, spec.get("value", _MARK_DEFAULTS[kind]), g[a], g[b])
    if kind == "negative":
        mark = spec["of"]
        values = spec.get("values", [_MARK_DEFAULTS[mark]])
        exempt = set(spec.get("exempt", [mark])) | {mark}
        marked = {frozenset(s["cells"]) for s in specs if s["kind"] in exempt}
        return not any(
            frozenset((i, j)) not in marked and any(_allows(mark, v, g[i], g[j]) for v in values)
            for i, j in _orthogonal(n)
        )
    if kind == "clone":
        return all(g[a] == g[b] for a, b in zip(spec["cells"], spec["clones"], strict=True))
    if kind in ("minimum", "maximum"):
        listed = set(spec["cells"])
        below = kind == "minimum"
        return all(
            (g[i] < g[j]) if below else (g[i] > g[j])
            for i in listed
            for j in every
            if sum(_apart(i, j, n)) == 1 and j not in listed
        )
    if kind == "row-indexer":  # r c holds v: row v of column c holds r
        return all(g[(g[i] - 1) * n + i % n] == i // n + 1 for i in spec["cells"])
    if kind == "column-indexer":  # r c holds v: column v of row r holds c
        return all(g[i // n * n + g[i] - 1] == i % n + 1 for i in spec["cells"])
    if kind == "box-indexer":  # position p holds v: position v of the box holds p
        for i in spec["cells"]:
            region = next((sorted(r) for r in regions if i in r), None)
            if region is not None and g[region[g[i] - 1]] != region.index(i) + 1:
                return False
        return True
    raise AssertionError(f"no statement for {kind}")


def stated(specs: list[Spec], g: Grid, n: int, regions: Sequence[Sequence[int]]) -> bool:
    """Whether grid ``g`` keeps every rule of ``specs``, from their statements."""
    return all(_stated(spec, g, n, regions, specs) for spec in specs)


def assert_as_stated(rules: Rules, specs: list[Spec], grids: Sequence[Grid], regions: Any) -> None:
    """Each rule's own check (the verifier's) says of every grid what its statement says."""
    for g in grids:
        assert keeps(rules, g) == stated(specs, g, rules.n, regions), (specs, g)


# ------------------------------------------------------------------ random instances


def _some(rng: random.Random, items: Sequence[Any], most: int) -> list[Any]:
    return rng.sample(list(items), rng.randint(1, min(most, len(items))))


def _chess(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    offsets = [[rng.randint(0, 3), rng.randint(1, 3)] for _ in range(rng.randint(1, 2))]
    spec: Spec = {"kind": "chess", "offsets": [[a * rng.choice((1, -1)), b] for a, b in offsets]}
    if rng.random() < 0.5:
        spec["values"] = _some(rng, range(1, n + 1), 3)
    if rng.random() < 0.5:
        spec["cells"] = _some(rng, range(n * n), 5)
    return [spec]


def _taxicab(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    return [{"kind": "taxicab", "distance": rng.randint(1, 2 * n - 2)}]


def _plain(kind: str) -> Callable[[random.Random, int, Grid], list[Spec]]:
    return lambda rng, n, g: [{"kind": kind}]


def _knightmare(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    if rng.random() < 0.2:
        return [{"kind": "knightmare"}]
    made = {
        g[i] + g[j] for i in range(n * n) for j in range(n * n) if sorted(_apart(i, j, n)) == [1, 2]
    }
    free = [s for s in range(2, 2 * n + 1) if s not in made] if rng.random() < 0.6 else []
    return [{"kind": "knightmare", "sums": _some(rng, free or range(2, 2 * n + 1), 3)}]


def _sum_dots(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    out: list[Spec] = []
    for _ in range(rng.randint(1, 3)):
        a, b = neighbours(rng, n)
        value = g[a] + g[b] if rng.random() < 0.7 else rng.randint(3, 2 * n - 1)
        out.append({"kind": "sum-dot", "cells": [a, b], "value": value})
    if rng.random() < 0.6:
        negative: Spec = {"kind": "negative", "of": "sum-dot"}
        if rng.random() < 0.8:
            negative["values"] = _some(rng, range(3, 2 * n), 2)
        out.append(negative)
    return out


def _negative_k(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    """Kropki negatives of differences and ratios other than 1 and 2, with dots of them."""
    mark = rng.choice(["kropki-white", "kropki-black"])
    values = rng.choice([[3], [2, 3], [1, 3], [3, 4]])
    out: list[Spec] = []
    for _ in range(rng.randint(0, 3)):
        a, b = neighbours(rng, n)
        for v in values:
            if _allows(mark, v, g[a], g[b]):
                out.append({"kind": mark, "cells": [a, b], "value": v})
                break
    exempt = [mark] if rng.random() < 0.5 else ["kropki-white", "kropki-black"]
    out.append({"kind": "negative", "of": mark, "values": values, "exempt": exempt})
    return out


def _clones(rng: random.Random, n: int, g: Grid) -> list[Spec]:
    sources, clones = [], []
    for _ in range(rng.randint(1, 3)):
        a = rng.randrange(n * n)
        same = [b for b in range(n * n) if b != a and g[b] == g[a]]
        b = (
            rng.choice(same)
            if same and rng.random() < 0.75
            else rng.choice([b for b in range(n * n) if b != a])
        )
        sources.append(a)
        clones.append(b)
    return [{"kind": "clone", "cells": sources, "clones": clones}]


def _extrema(kind: str) -> Callable[[random.Random, int, Grid], list[Spec]]:
    def make(rng: random.Random, n: int, g: Grid) -> list[Spec]:
        cells = _some(rng, range(n * n), 3)
        if rng.random() < 0.6:  # cells that are extremes in g, so that g may keep the rule
            near = {i: [j for j in range(n * n) if sum(_apart(i, j, n)) == 1] for i in range(n * n)}
            extreme = [
                i
                for i in range(n * n)
                if all((g[i] < g[j]) if kind == "minimum" else (g[i] > g[j]) for j in near[i])
            ]
            cells = _some(rng, extreme, 3) if extreme else cells
        return [{"kind": kind, "cells": cells}]

    return make


def _indexers(kind: str, regions: Sequence[Sequence[int]] = ()) -> Callable[..., list[Spec]]:
    def make(rng: random.Random, n: int, g: Grid) -> list[Spec]:
        boxes = regions or _boxes(n, *_BOX[n])
        holding = [
            i for i in range(n * n) if _stated({"kind": kind, "cells": [i]}, g, n, boxes, [])
        ]
        cells = _some(rng, holding, 4) if holding and rng.random() < 0.7 else []
        if not cells or rng.random() < 0.3:
            cells = list(dict.fromkeys([*cells, rng.randrange(n * n)]))
        return [{"kind": kind, "cells": cells}]

    return make


_BOX = {4: (2, 2), 6: (2, 3)}

#: Random instances of each kind (and of the negative rules they bring).
MAKERS: dict[str, Callable[[random.Random, int, Grid], list[Spec]]] = {
    "chess": _chess,
    "taxicab": _taxicab,
    "self-taxicab": _plain("self-taxicab"),
    "diagonal-non-consecutive": _plain("diagonal-non-consecutive"),
    "knightmare": _knightmare,
    "sum-dot": _sum_dots,
    "negative-k": _negative_k,
    "clone": _clones,
    "minimum": _extrema("minimum"),
    "maximum": _extrema("maximum"),
    "row-indexer": _indexers("row-indexer"),
    "column-indexer": _indexers("column-indexer"),
    "box-indexer": _indexers("box-indexer"),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), givens=st.integers(0, 3))
def test_on_4x4_every_engine_counts_as_brute_force_and_the_check_is_the_statement(
    name: str, seed: int, givens: int
) -> None:
    rng = random.Random(seed)
    specs = MAKERS[name](rng, 4, GRIDS_4X4[rng.randrange(len(GRIDS_4X4))])
    rules = rules_of(4, "2x2", specs)
    assert_as_stated(rules, specs, GRIDS_4X4, _boxes(4, 2, 2))
    check_4x4(rules, givens, seed)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), givens=st.integers(0, 2))
def test_box_indexers_follow_a_jigsaws_regions(seed: int, givens: int) -> None:
    rng = random.Random(seed)
    pool = [g for g in LATIN_4X4 if all(len({g[i] for i in r}) == 4 for r in JIGSAW_4X4)]
    specs = _indexers("box-indexer", JIGSAW_4X4)(rng, 4, pool[rng.randrange(len(pool))])
    rules = rules_of(4, "", specs, regions=[list(r) for r in JIGSAW_4X4])
    assert_as_stated(rules, specs, pool, JIGSAW_4X4)
    check_4x4(rules, givens, seed)


def _grid_keeping(rules: Rules, rng: random.Random) -> tuple[int, ...] | None:
    """A complete grid keeping ``rules`` (sat, from one random given), or None."""
    n = rules.n
    with create_backend("sat") as engine:
        for _ in range(8):
            cells = [0] * (n * n)
            cells[rng.randrange(n * n)] = rng.randint(1, n)
            found = engine.solve(Puzzle(rules, tuple(cells)))
            if found.solution is not None:
                return found.solution.cells
    return None


#: Kinds whose meaning depends on the grid's side, or that need bigger grids to hold.
SIDE_KINDS = (
    "self-taxicab",
    "knightmare",
    "chess",
    "row-indexer",
    "column-indexer",
    "box-indexer",
)


@pytest.mark.parametrize("name", SIDE_KINDS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), blanks=st.integers(8, 16))
def test_on_6x6_every_engine_counts_completions_as_brute_force(
    name: str, seed: int, blanks: int
) -> None:
    rng = random.Random(seed)
    grid = random_grid_6x6(seed)
    specs = MAKERS[name](rng, 6, grid)
    rules = rules_of(6, "2x3", specs)
    if name == "self-taxicab":  # no random grid keeps it: one that does (72 do)
        grid = _grid_keeping(rules, rng) or grid
    samples = [grid, *(random_grid_6x6(seed + k) for k in range(1, 30))]
    assert_as_stated(rules, specs, samples, _boxes(6, 2, 3))
    check_6x6(rules, grid, blanks, seed)


# ------------------------------------------------------------------ known facts


def test_the_miracle_rules_leave_72_grids() -> None:
    # anti-king, anti-knight and non-consecutive on a blank 9x9: exactly 72 solutions
    rules = rules_of(
        9, "3x3", [{"kind": k} for k in ("anti-king", "anti-knight", "non-consecutive")]
    )
    with create_backend("sat") as engine:
        assert engine.count(Puzzle(rules, (0,) * 81), limit=100).count == 72


def test_self_taxicab_leaves_no_4x4_grid_and_72_6x6_grids() -> None:
    for size, box, expected in ((4, "2x2", 0), (6, "2x3", 72)):
        rules = rules_of(size, box, [{"kind": "self-taxicab"}])
        for spec in ("sat", "cpsat"):
            with create_backend(spec) as engine:
                found = engine.count(Puzzle(rules, (0,) * size**2), limit=100)
                assert found.count == expected, (size, spec)


def test_chess_moves_and_taxicab_distances_relate_the_cells_anti_king_and_kin_do() -> None:
    def related(spec: Spec, n: int = 6) -> set[frozenset[int]]:
        rules = rules_of(n, "2x3", [spec])
        return {frozenset(pair) for p in rules.primitives for pair in p.pairs}  # type: ignore[attr-defined]

    assert related({"kind": "chess", "offsets": [[1, 1], [0, 1]]}) == related({"kind": "anti-king"})
    assert related({"kind": "chess", "offsets": [[2, -1]]}) == related({"kind": "anti-knight"})
    orthogonal = {frozenset(pair) for pair in _orthogonal(6)}
    assert related({"kind": "taxicab", "distance": 1}) == orthogonal
    assert related({"kind": "diagonal-non-consecutive"}) == related(
        {"kind": "chess", "offsets": [[1, 1]]}
    )


# ------------------------------------------------------------------ JSON


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"kind": "chess", "offsets": []}, "at least one offset"),
        ({"kind": "chess", "offsets": [[0, 0]]}, "moves nowhere"),
        ({"kind": "chess", "offsets": [[1, 2, 3]]}, "two whole numbers"),
        ({"kind": "chess", "offsets": [[1, 9]]}, "not one of"),
        ({"kind": "chess", "offsets": [[1, 2]], "values": [0]}, "values"),
        ({"kind": "chess", "offsets": [[1, 2]], "cells": [0, 0]}, "twice"),
        ({"kind": "chess", "offsets": [[1, 2]], "piece": "knight"}, "takes no 'piece'"),
        ({"kind": "taxicab"}, "whole number"),
        ({"kind": "taxicab", "distance": 0}, "not one of"),
        ({"kind": "taxicab", "distance": 17}, "not one of"),
        ({"kind": "self-taxicab", "distance": 3}, "takes no 'distance'"),
        ({"kind": "diagonal-non-consecutive", "cells": [0]}, "takes no 'cells'"),
        ({"kind": "knightmare", "sums": []}, "none given"),
        ({"kind": "knightmare", "sums": [1]}, "not one of"),
        ({"kind": "sum-dot", "cells": [0, 1], "value": 0}, "positive whole number"),
        ({"kind": "sum-dot", "cells": [0, 1, 2]}, "takes 2 cells"),
        ({"kind": "negative", "of": "sum-dot", "values": [0]}, "positive whole numbers"),
        ({"kind": "clone", "cells": [0, 1], "clones": [40]}, "one clone per cell"),
        ({"kind": "clone", "cells": [3], "clones": [3]}, "with itself"),
        ({"kind": "clone", "cells": [0]}, "must be a list"),
        ({"kind": "minimum", "cells": [0, 0]}, "twice"),
        ({"kind": "maximum", "cells": []}, "no cells"),
        ({"kind": "row-indexer", "cells": ["r1c1", "r1c1"]}, "twice"),
        ({"kind": "column-indexer", "cells": ["r10c1"]}, "not a cell"),
        ({"kind": "box-indexer", "cells": [0], "box": 1}, "takes no 'box'"),
    ],
)
def test_malformed_specs_are_refused_naming_the_problem(spec: Spec, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules.from_spec({"size": 9, "box": "3x3", "constraints": [spec]})


@pytest.mark.parametrize("kind", NEW_KINDS)
def test_each_kind_reads_its_example_back_from_its_spec(kind: str) -> None:
    rules = Rules.classic(3, 3).with_constraints(constraint_from_spec(KINDS[kind].example, 9))
    assert Rules.from_spec(rules.spec()) == rules
    assert KINDS[kind].family == ("indexers" if kind.endswith("indexer") else "relations")


def test_specs_keep_their_parameters_and_drop_defaults() -> None:
    rules = Rules.from_spec(
        {
            "size": 9,
            "box": "3x3",
            "constraints": [
                {"kind": "chess", "offsets": [[2, -1], [-1, 2], [3, 0]], "values": [9, 1, 1]},
                {"kind": "knightmare", "sums": [5, 15]},
                {"kind": "sum-dot", "cells": ["r1c1", "r1c2"], "value": 5},
                {"kind": "negative", "of": "sum-dot"},
                {"kind": "clone", "cells": ["r1c1", "r1c1"], "clones": ["r5c5", "r9c9"]},
            ],
        }
    )
    assert rules.spec()["constraints"] == [
        {"kind": "chess", "offsets": [[0, 3], [1, 2]], "values": [1, 9]},
        {"kind": "knightmare"},
        {"kind": "sum-dot", "cells": [0, 1]},
        {"kind": "negative", "of": "sum-dot"},
        {"kind": "clone", "cells": [0, 0], "clones": [40, 80]},
    ]


def test_every_rule_names_every_cell_its_primitives_use() -> None:
    # The encoders fix the values a rule's cells cannot hold from the rule's cells: a
    # clone that named only its first cells let sat drop a given on a clone (and
    # answer with a grid the verifier then refused).
    specs = [KINDS[k].example for k in NEW_KINDS] + [
        {"kind": "chess", "offsets": [[1, 2]], "cells": ["r5c5"]},
        {"kind": "minimum", "cells": ["r1c1", "r1c2"]},
    ]
    for spec in specs:
        rule = Rules.classic(3, 3).with_constraints(constraint_from_spec(spec, 9)).constraints[0]
        used = {i for p in rule.compile(9) for i in p.cells}
        assert used <= set(rule.cells), spec
    rules = rules_of(6, "2x3", [{"kind": "clone", "cells": [6], "clones": [34]}])
    puzzle = Puzzle(rules, tuple(6 if i == 34 else 0 for i in range(36)))
    for spec in ("sat", "sat:reduced", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            found = engine.solve(puzzle)
            assert found.status is Status.MULTIPLE
            assert found.solution is not None
            assert found.solution.cells[6] == 6


def test_the_verifier_names_the_rule_a_grid_breaks() -> None:
    grid = [int(ch) for ch in "1234341221434321"]
    for spec, words in (
        ({"kind": "clone", "cells": [0], "clones": [5]}, "clone"),
        ({"kind": "minimum", "cells": [5]}, "minimum"),
        ({"kind": "row-indexer", "cells": [1]}, "r1c2 holds 2, so r2c2 should hold 1"),
        ({"kind": "self-taxicab"}, "self-taxicab"),
    ):
        rules = rules_of(4, "2x2", [spec])
        problems = solution_problems(Puzzle(rules, (0,) * 16), Puzzle(rules, tuple(grid)))
        assert any(words in p for p in problems), (spec, problems)


def test_the_json_schema_takes_every_spec_of_the_family() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent.parent / "docs" / "puzzle.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    constraints = [KINDS[k].example for k in NEW_KINDS] + [
        {"kind": "negative", "of": "sum-dot", "values": [7, 11], "exempt": ["sum-dot", "x"]},
        {"kind": "negative", "of": "kropki-white", "values": [3], "exempt": ["kropki-black"]},
        {"kind": "kropki-white", "cells": [0, 1], "value": 3},
        {"kind": "chess", "offsets": [[1, 2]], "cells": [40]},
    ]
    rules = Rules.from_spec({"size": 9, "box": "3x3", "constraints": constraints})
    for spec in (rules.spec(), {"size": 9, "box": "3x3", "constraints": constraints}):
        validator.validate({"rules": spec, "puzzle": "." * 81})
    bad = {"size": 9, "box": "3x3", "constraints": [{"kind": "taxicab"}]}
    assert not validator.is_valid({"rules": bad, "puzzle": ""})


def test_the_exchange_format_refuses_a_negative_it_cannot_say_by_name() -> None:
    rules = rules_of(4, "2x2", [{"kind": "negative", "of": "sum-dot"}])
    with pytest.raises(RulesError, match="no negative rule of sum-dot"):
        to_exchange(Puzzle(rules, (0,) * 16))


def test_the_compiled_engine_takes_every_relation() -> None:
    if not native_built():
        pytest.skip("the compiled engine is not built")
    from cpsudoku.engines import backend_class

    native = backend_class("native")
    takes = [
        {"kind": "chess", "offsets": [[1, 3]]},
        {"kind": "taxicab", "distance": 3},
        {"kind": "self-taxicab"},  # a relation per distance, not one that only differs
        {"kind": "knightmare"},
    ]
    for spec in takes:
        assert native.refusal(rules_of(4, "2x2", [spec])) is None, spec


# ------------------------------------------------------------------ f-puzzles


def _fpuzzles(size: int, givens: str, **keys: Any) -> dict[str, Any]:
    """An f-puzzles object as the editor writes one: a grid of cells, then rule keys."""
    grid = [
        [
            {"value": int(ch), "given": True} if ch != "." else {}
            for ch in givens[r * size : (r + 1) * size]
        ]
        for r in range(size)
    ]
    return {"size": size, "title": "", "author": "", "grid": grid, **keys}


def _cells(*names: str) -> list[str]:
    return list(names)


#: Small puzzles written by hand in f-puzzles' JSON, with their one solution.
SMALL = {
    "clone": (
        "......3.1...5.......3.1...2...16....",
        "654321321654516243243516432165165432",
        {
            "clone": [
                {
                    "cells": _cells("R1C1", "R1C2", "R2C1"),
                    "cloneCells": _cells("R5C5", "R5C6", "R6C5"),
                },
                {"cells": ["R3C3"], "cloneCells": ["R3C3"]},  # a cell with itself: skipped
            ]
        },
    ),
    "minimum, maximum": (
        "..5...4.....6..1..13................",
        "325641416352654123132465563214241536",
        {
            "minimum": [{"cell": "R2C2"}, {"cell": "R5C5"}, {"cell": "R5C4"}],
            "maximum": [{"cell": "R2C5"}, {"cell": "R5C2"}],
        },
    ),
    "rowindexer": (
        "..2...............34..5....5.....3..",
        "532416461235215643346152123564654321",
        {"rowindexer": [{"cells": [f"R1C{c}" for c in range(1, 7)]}]},
    ),
    "columnindexer": (
        "...2.....1.............6.3..........",
        "156243423165361452542316634521215634",
        {
            "columnindexer": [
                {"cells": [f"R{r}C1" for r in range(1, 7)]},
                {"cells": [f"R{r}C6" for r in range(1, 7)]},
            ]
        },
    ),
    "boxindexer": (
        ".....1......4...6.......1.5....6....",
        "623541541632412365356214135426264153",
        {
            "boxindexer": [
                {"cells": _cells("R1C1", "R1C2", "R1C3", "R2C1", "R2C2", "R2C3")},
                {"cells": _cells("R5C4", "R6C6")},
            ]
        },
    ),
}


@pytest.mark.parametrize("key", sorted(SMALL))
def test_a_hand_written_fpuzzles_puzzle_is_read_solved_and_written_back(key: str) -> None:
    givens, solution, keys = SMALL[key]
    read = read_fpuzzles(_fpuzzles(6, givens, **keys))
    puzzle = read.puzzle
    assert {c.kind for c in puzzle.rules.constraints} <= set(NEW_KINDS)
    for spec in ("sat", "cpsat", "backtrack"):
        with create_backend(spec) as engine:
            found = engine.solve(puzzle)
            assert found.status is Status.UNIQUE, spec
            assert found.solution is not None
            assert "".join(map(str, found.solution.cells)) == solution, spec
    written = to_fpuzzles(puzzle)
    again = read_fpuzzles(json.loads(json.dumps(written))).puzzle
    assert again.rules.spec() == puzzle.rules.spec()
    assert again.cells == puzzle.cells


def test_fpuzzles_reads_the_items_of_a_key_as_one_set() -> None:
    read = read_fpuzzles(
        _fpuzzles(
            9,
            "." * 81,
            rowindexer=[{"cells": ["R1C1", "R1C2"]}, {"cells": ["R1C2", "R9C9"]}],
            minimum=[{"cell": "R5C5"}, {"cell": "R5C6"}],
            clone=[{"cells": ["R1C1", "R2C2"], "cloneCells": ["R1C1", "R5C5"]}],
        )
    )
    assert read.puzzle.rules.spec()["constraints"] == [
        {"kind": "row-indexer", "cells": [0, 1, 80]},
        {"kind": "minimum", "cells": [40, 41]},
        {"kind": "clone", "cells": [10], "clones": [40]},
    ]


def test_fpuzzles_refuses_a_clone_of_uneven_lists_and_two_sets_of_minimum_cells() -> None:
    with pytest.raises(RulesError, match="clone 0 has 2 cells and 1 cloneCells"):
        read_fpuzzles(
            _fpuzzles(9, "." * 81, clone=[{"cells": ["R1C1", "R1C2"], "cloneCells": ["R5C5"]}])
        )
    rules = rules_of(
        9, "3x3", [{"kind": "minimum", "cells": [0]}, {"kind": "minimum", "cells": [80]}]
    )
    with pytest.raises(RulesError, match="one set of minimum cells"):
        to_fpuzzles(Puzzle(rules, (0,) * 81))
    rules = rules_of(9, "3x3", [{"kind": "taxicab", "distance": 2}])
    with pytest.raises(RulesError, match="no key"):
        to_fpuzzles(Puzzle(rules, (0,) * 81))


def test_a_box_indexer_reads_a_jigsaws_regions_from_fpuzzles() -> None:
    obj = _fpuzzles(4, "." * 16, boxindexer=[{"cells": ["R1C1"]}])
    for k, region in enumerate(JIGSAW_4X4):
        for i in region:
            obj["grid"][i // 4][i % 4]["region"] = k
    puzzle = read_fpuzzles(obj).puzzle
    pool = [g for g in LATIN_4X4 if all(len({g[i] for i in r}) == 4 for r in JIGSAW_4X4)]
    # r1c1 is position 1 of its region r1c1 r1c2 r2c1 r3c1: its digit v says position
    # v of that region holds 1
    spec = {"kind": "box-indexer", "cells": [0]}
    expected = sum(stated([spec], g, 4, JIGSAW_4X4) for g in pool)
    with create_backend("sat") as engine:
        assert engine.count(puzzle, limit=1000).count == expected > 0
    written = to_fpuzzles(puzzle)
    assert read_fpuzzles(written).puzzle.rules == puzzle.rules


PUBLISHED = DATA / "published" / "fpuzzles.jsonl"
#: The f-puzzles keys of this family.
KEYS = {"clone", "minimum", "maximum", "rowindexer", "columnindexer", "boxindexer"}


def _published() -> list[dict[str, Any]]:
    if not PUBLISHED.exists():
        return []
    records = [json.loads(line) for line in PUBLISHED.read_text().splitlines() if line.strip()]
    return [r for r in records if KEYS & set(r["keys"]) and r.get("keys_cover_rules", True)]


@pytest.mark.skipif(not PUBLISHED.exists(), reason="the published puzzles are not in this checkout")
@pytest.mark.parametrize("record", _published(), ids=lambda r: r["id"])
def test_published_puzzles_with_these_keys_have_their_published_solution(
    record: dict[str, Any],
) -> None:
    obj = record["fpuzzles"]
    obj = json.loads(obj) if isinstance(obj, str) else obj
    with create_backend("sat") as engine:
        found = engine.solve(read_fpuzzles(obj).puzzle)
        assert found.status is Status.UNIQUE
        assert found.solution is not None
        assert "".join(SYMBOLS[v - 1] for v in found.solution.cells) == record["solution"]
        swapped = {"rowindexer": "columnindexer", "columnindexer": "rowindexer"}
        if swapped.keys() & obj.keys():  # read the other way, it is another puzzle
            other = {swapped.get(k, k): v for k, v in obj.items()}
            wrong = engine.solve(read_fpuzzles(other).puzzle)
            assert wrong.status is not Status.UNIQUE or wrong.solution != found.solution
