"""Counts in messages: "1 record", "2 records", "1,000 classes".

Every summary line and message that puts a number before a noun goes through
:func:`count_of`, so a run of one record never says "1 records".
"""

from __future__ import annotations


def plural(noun: str) -> str:
    """The plural of an English noun of our messages: "record" -> "records".

    >>> plural("class"), plural("core"), plural("witness"), plural("duplicate")
    ('classes', 'cores', 'witnesses', 'duplicates')
    """
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def count_of(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one: "1 core", "2 cores", "12,345 records".

    Args:
        n: the count (written with thousands separators).
        noun: the singular; for a phrase, its first word is the one that changes
            ("duplicate dropped" -> "duplicates dropped").
        many: the plural (or plural phrase) when :func:`plural` of the first word is
            not it.

    >>> count_of(1, "duplicate dropped"), count_of(2, "duplicate dropped")
    ('1 duplicate dropped', '2 duplicates dropped')
    >>> count_of(0, "class kept"), count_of(1, "record")
    ('0 classes kept', '1 record')
    """
    if n == 1:
        return f"1 {noun}"
    if many is None:
        head, sep, rest = noun.partition(" ")
        many = plural(head) + sep + rest
    return f"{n:,} {many}"
