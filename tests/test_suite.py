"""The test suite's own bookkeeping: the list of slow tests names real tests."""

from __future__ import annotations

import re

from conftest import ROOT, slow_test_ids


def test_every_listed_slow_test_exists() -> None:
    """A renamed or removed test must leave tests/slow_tests.txt too (else it runs by default)."""
    for test_id in sorted(slow_test_ids()):
        path, _, name = test_id.partition("::")
        function = re.sub(r"\[.*\]$", "", name)
        source = (ROOT / path).read_text()
        assert re.search(rf"^def {re.escape(function)}\(", source, re.M), test_id
