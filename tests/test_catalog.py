"""Every rule kind is described, has a JSON example that reads, and is in the README."""

from __future__ import annotations

from conftest import ROOT

from cpsudoku.model.constraints import KINDS, constraint_from_spec
from cpsudoku.model.constraints.catalog import END, FAMILIES, START, rules_table
from cpsudoku.model.rules import Rules


def test_every_kind_has_a_family_a_meaning_and_an_example_that_reads() -> None:
    for kind, cls in KINDS.items():
        assert cls.family in FAMILIES, kind
        assert cls.meaning, kind
        assert cls.example.get("kind") == kind, kind
        rule = constraint_from_spec(cls.example, 9)
        assert rule.kind == kind
        # it makes rules (a doppelganger's grid has no boxes of its own)
        base = Rules.classic(1, 9) if kind == "doppelganger" else Rules.classic(3, 3)
        base.with_constraints(rule).spec()


def test_the_readme_holds_the_table_of_rules() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split(START, 1)[1].split(END, 1)[0]
    assert table.strip() == rules_table().strip(), (
        "README's table of rules is stale: python -m cpsudoku.model.constraints.catalog "
        "--update README.md"
    )
