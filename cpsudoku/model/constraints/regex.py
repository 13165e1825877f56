"""Regular expressions over a line's digits: a small parser, an NFA, a line's automaton.

The regular-expression line rule (:class:`~cpsudoku.model.constraints.lines.RegexLine`)
reads its line's digits as symbols (1-9, then A-Z for 10..35) and asks that they
match a pattern in full. The pattern language is the one setters' solvers take:

- a symbol (``1``..``9``, ``A``..``Z``, either case) matches that value;
- ``.`` matches any value; ``[...]`` any listed value, with ranges (``[1-4]``) and
  ``^`` first for the values not listed (``[^13]``);
- ``(...)`` groups, ``|`` separates alternatives (an empty alternative matches
  nothing at all: ``(1|)`` is "a 1 or nothing");
- ``*``, ``+``, ``?``, ``{m}``, ``{m,}`` and ``{m,n}`` repeat the atom before them.

Spaces are ignored. Anything else (``0``, a backslash, ``^`` or ``$`` outside a class,
a quantifier with nothing to repeat...) refuses the pattern, naming the place. Every
pattern accepted means the same under Python's :mod:`re` (upper-cased), which the
rule's own check of a grid uses, apart from this module.

A pattern compiles to a Thompson NFA (:func:`nfa`), and the NFA to a deterministic
automaton over the line (:func:`line_automaton`): the subset construction, with the
sets of NFA states as the automaton's states, explored only as deep as the line is
long.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cpsudoku.model.constraints.base import SYMBOLS
from cpsudoku.model.errors import RulesError

#: The longest pattern taken, and the deepest nesting of groups.
MAX_PATTERN = 10_000
MAX_DEPTH = 100


@dataclass(frozen=True)
class Values:
    """One value of a mask (bit ``d - 1`` for ``d``)."""

    mask: int


@dataclass(frozen=True)
class Concat:
    """The parts in order (none: the empty string)."""

    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Either:
    """One of the alternatives."""

    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    """A part repeated ``low`` to ``high`` times (``high`` None: without bound)."""

    part: Node
    low: int
    high: int | None


#: A parsed pattern: a tree of these.
Node = Values | Concat | Either | Repeat


def normalized(pattern: str) -> str:
    """The pattern as read: spaces removed, letters upper-cased."""
    return "".join(pattern.split()).upper()


def value_of(symbol: str) -> int:
    """The value a symbol stands for (``7`` -> 7, ``B`` -> 11); 0 when it is none."""
    return SYMBOLS.find(symbol.upper()) + 1


#: The repeats each one-character quantifier stands for.
_QUANTIFIERS: dict[str, tuple[int, int | None]] = {"*": (0, None), "+": (1, None), "?": (0, 1)}


class _Parser:
    """Recursive descent over a normalized pattern, on a grid of side ``n``."""

    def __init__(self, text: str, n: int) -> None:
        self.text = text
        self.n = n
        self.pos = 0
        self.depth = 0

    def fail(self, what: str) -> RulesError:
        return RulesError(f"the pattern {self.text!r}: {what} at character {self.pos + 1}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> Node:
        node = self.alternatives()
        if self.pos < len(self.text):
            char = self.peek()
            raise self.fail("an unmatched ')'" if char == ")" else f"an unexpected {char!r}")
        return node

    def alternatives(self) -> Node:
        options = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else Either(tuple(options))

    def sequence(self) -> Node:
        parts: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            parts.append(self.repeated())
        return parts[0] if len(parts) == 1 else Concat(tuple(parts))

    def repeated(self) -> Node:
        node = self.atom()
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            low, high = _QUANTIFIERS[char]
            node = Repeat(node, low, high)
        elif char == "{":
            low, high = self.bounds()
            node = Repeat(node, low, high)
        if self.peek() in ("*", "+", "?", "{"):
            raise self.fail("a quantifier with nothing to repeat (group it: '(1*)?')")
        return node

    def bounds(self) -> tuple[int, int | None]:
        start = self.pos
        end = self.text.find("}", start)
        if end < 0:
            raise self.fail("a '{' without its '}'")
        body = self.text[start + 1 : end]
        parts = body.split(",")
        ok = len(parts) in (1, 2) and parts[0].isdigit()
        if not ok or (len(parts) == 2 and parts[1] and not parts[1].isdigit()):
            raise self.fail(f"'{{{body}}}' is no repeat count ({{m}}, {{m,}} or {{m,n}})")
        low = int(parts[0])
        high: int | None = low if len(parts) == 1 else (int(parts[1]) if parts[1] else None)
        if high is not None and high < low:
            raise self.fail(f"'{{{body}}}' asks for at most fewer than at least")
        self.pos = end + 1
        return low, high

    def atom(self) -> Node:
        char = self.peek()
        if char == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.fail(f"groups nested deeper than {MAX_DEPTH}")
            self.pos += 1
            node = self.alternatives()
            if self.peek() != ")":
                raise self.fail("a '(' without its ')'")
            self.pos += 1
            self.depth -= 1
            return node
        if char == ".":
            self.pos += 1
            return Values((1 << self.n) - 1)
        if char == "[":
            return Values(self.members())
        if char in ("*", "+", "?", "{"):
            raise self.fail(f"{char!r} with nothing to repeat")
        self.pos += 1
        return Values(self.symbol_mask(char))

    def symbol_mask(self, char: str) -> int:
        value = value_of(char)
        if not value:
            self.pos -= 1
            raise self.fail(f"{char!r} is no digit (digits are 1-9, then A-Z)")
        return 1 << (value - 1) if value <= self.n else 0

    def members(self) -> int:
        self.pos += 1  # the '['
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        mask = 0
        empty = True
        while self.peek() != "]":
            if not self.peek():
                raise self.fail("a '[' without its ']'")
            first = value_of(self.peek())
            if not first:
                raise self.fail(f"{self.peek()!r} is no digit (digits are 1-9, then A-Z)")
            self.pos += 1
            last = first
            ahead = self.text[self.pos + 1 : self.pos + 2]
            if self.peek() == "-" and ahead not in ("", "]"):
                self.pos += 1
                last = value_of(self.peek())
                if not last:
                    raise self.fail(f"{self.peek()!r} is no digit (digits are 1-9, then A-Z)")
                if last < first:
                    raise self.fail("a range from a larger digit to a smaller")
                self.pos += 1
            for v in range(first, min(last, self.n) + 1):
                mask |= 1 << (v - 1)
            empty = False
        if empty:
            raise self.fail("an empty class '[]'")
        self.pos += 1  # the ']'
        return ((1 << self.n) - 1) & ~mask if negate else mask


@lru_cache(maxsize=1024)
def parse(pattern: str, n: int) -> Node:
    """The tree of a pattern on a grid of side ``n`` (values 1..n).

    Raises:
        RulesError: a malformed pattern (the message names the place), a grid too
            large for symbols, or a pattern too long.
    """
    if n > len(SYMBOLS):
        raise RulesError(
            f"a pattern reads digits as 1-9, A-Z: no symbol for values above {len(SYMBOLS)}"
        )
    text = normalized(pattern)
    if len(text) > MAX_PATTERN:
        raise RulesError(f"a pattern of {len(text)} characters is longer than {MAX_PATTERN:,}")
    return _Parser(text, n).parse()


# ---------------------------------------------------------------------------- the NFA


@dataclass(frozen=True)
class NFA:
    """A Thompson NFA: state 0 starts, ``final`` accepts.

    ``moves[s]`` are state ``s``'s ``(mask, target)`` moves on a value of the mask;
    ``empty[s]`` its moves on nothing.
    """

    moves: tuple[tuple[tuple[int, int], ...], ...]
    empty: tuple[tuple[int, ...], ...]
    final: int


class _Builder:
    def __init__(self) -> None:
        self.moves: list[list[tuple[int, int]]] = []
        self.empty: list[list[int]] = []

    def state(self) -> int:
        self.moves.append([])
        self.empty.append([])
        return len(self.moves) - 1

    def build(self, node: Node, start: int, end: int, longest: int) -> None:
        """Wire ``node`` between ``start`` and ``end`` (repeats cut at ``longest + 1``)."""
        if isinstance(node, Values):
            if node.mask:
                self.moves[start].append((node.mask, end))
        elif isinstance(node, Concat):
            here = start
            for part in node.parts:
                nxt = self.state()
                self.build(part, here, nxt, longest)
                here = nxt
            self.empty[here].append(end)
        elif isinstance(node, Either):
            for option in node.options:
                self.build(option, start, end, longest)
        else:
            # A line of L digits uses at most L non-empty copies: counts past L + 1
            # read the same on it (a part that can match nothing pads with empties).
            inner = node.part
            low = min(node.low, longest + 1)
            high = None if node.high is None else min(node.high, longest + 1)
            here = start
            for _ in range(low):
                nxt = self.state()
                self.build(inner, here, nxt, longest)
                here = nxt
            if high is None:  # a loop: any number more
                loop = self.state()
                self.empty[here].append(loop)
                back = self.state()
                self.build(inner, loop, back, longest)
                self.empty[back].append(loop)
                self.empty[loop].append(end)
            else:
                for _ in range(high - low):
                    self.empty[here].append(end)
                    nxt = self.state()
                    self.build(inner, here, nxt, longest)
                    here = nxt
                self.empty[here].append(end)


@lru_cache(maxsize=1024)
def nfa(pattern: str, n: int, longest: int) -> NFA:
    """The NFA of a pattern, for lines of at most ``longest`` digits."""
    tree = parse(pattern, n)
    builder = _Builder()
    start, final = builder.state(), builder.state()
    builder.build(tree, start, final, longest)
    return NFA(
        tuple(tuple(m) for m in builder.moves),
        tuple(tuple(e) for e in builder.empty),
        final,
    )


def _closure(machine: NFA, states: set[int]) -> set[int]:
    """The states reachable from ``states`` by moves on nothing."""
    out = set(states)
    todo = list(states)
    while todo:
        s = todo.pop()
        for t in machine.empty[s]:
            if t not in out:
                out.add(t)
                todo.append(t)
    return out


def _alive(machine: NFA) -> frozenset[int]:
    """The states from which the final state can still be reached."""
    back: list[list[int]] = [[] for _ in machine.moves]
    for s, moves in enumerate(machine.moves):
        for _, t in moves:
            back[t].append(s)
    for s, targets in enumerate(machine.empty):
        for t in targets:
            back[t].append(s)
    seen = {machine.final}
    todo = [machine.final]
    while todo:
        t = todo.pop()
        for s in back[t]:
            if s not in seen:
                seen.add(s)
                todo.append(s)
    return frozenset(seen)


@lru_cache(maxsize=1024)
def line_automaton(
    pattern: str, n: int, length: int
) -> tuple[tuple[tuple[int, ...], ...], frozenset[int]]:
    """The deterministic automaton of a pattern over a line of ``length`` digits.

    Returns the transitions and accepting states of an
    :class:`~cpsudoku.model.primitives.Automaton` (the cells are the caller's). A
    state is a set of NFA states (closed under moves on nothing, kept to those from
    which the final state is reachable); only the states reachable within the line's
    length are built.

    Raises:
        RulesError: a malformed pattern, or more states than an automaton may have.
    """
    from cpsudoku.model.primitives import automaton

    machine = nfa(pattern, n, length)
    alive = _alive(machine)

    def step(state: object, d: int) -> frozenset[int] | None:
        bit = 1 << (d - 1)
        reached = {t for s in state for mask, t in machine.moves[s] if mask & bit}  # type: ignore[attr-defined]
        nxt = frozenset(_closure(machine, reached) & alive)
        return nxt or None

    start = frozenset(_closure(machine, {0}) & alive)
    final = machine.final
    made = automaton(range(length), n, start, step, lambda state: final in state)  # type: ignore[arg-type,operator]
    return made.transitions, made.accepting
