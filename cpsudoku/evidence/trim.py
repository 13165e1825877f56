"""Backward trimming of a DRUP proof: keep the lemmas the empty clause needs.

CaDiCaL logs every clause it learns; the empty clause rests on a fraction of them.
dratify checks forward (every lemma, in order: docs/design.md), so a certificate's
check costs one unit propagation per lemma written, needed or not. :func:`trim`
replays the proof once, as drat-trim's backward mode does in two passes: forward,
each lemma's reverse unit propagation to a conflict, noting the clauses that
conflict rests on (the conflict clause, the reasons of the literals it implied, and
the reasons behind the literals fixed at the root); then backward from the empty
clause, marking what the marked lemmas rest on. The proof keeps the marked lemmas
(and the deletions of clauses it keeps), the formula the marked clauses.

This runs on the writing side (``certify``) and is trusted by nothing: the trimmed
proof is checked by dratify against the trimmed formula like any other, and each of
its lemmas is reverse-unit-propagation implied by clauses it keeps, so a lemma found
by a forward check stays checkable forward (unit propagation over more clauses still
reaches the conflict). A step it cannot show (a lemma that is not RUP, a proof
without the empty clause) gives None, and the proof stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

Clause = tuple[int, ...]

_TRUE, _FALSE = 1, 2


def _code(x: int) -> int:
    """A DIMACS literal as an index: ``2 v`` for ``v``, ``2 v + 1`` for ``-v``."""
    return 2 * x if x > 0 else -2 * x + 1


def trim(clauses: Sequence[Clause], proof: str) -> tuple[list[int], str] | None:
    """The formula clauses and the proof lines the refutation needs.

    Args:
        clauses: the formula (DIMACS literals).
        proof: a text DRUP proof of its unsatisfiability (one step a line).

    Returns:
        (the indices of the clauses needed, ascending; the trimmed proof text), or
        None when a lemma is not implied by unit propagation or the proof never
        derives the empty clause.
    """
    steps: list[tuple[bool, list[int]]] = []
    for line in proof.splitlines():
        line = line.strip()
        if not line or line[0] == "c":
            continue
        deletion = line[0] == "d"
        lits = [int(t) for t in (line[1:] if deletion else line).split()]
        if not lits or lits[-1] != 0 or 0 in lits[:-1]:
            return None  # not one step a line: left as it is
        steps.append((deletion, lits[:-1]))
    top = max((abs(x) for c in clauses for x in c), default=0)
    top = max([top, *(abs(x) for _, lits in steps for x in lits)])
    return _Replay(top, clauses).run(steps)


class _Replay:
    """The forward pass: a two-watched-literal propagator that keeps reasons."""

    def __init__(self, top: int, clauses: Sequence[Clause]) -> None:
        self.val = bytearray(2 * top + 2)
        self.reason = [-1] * (top + 1)  # the clause that implied a variable, -1: assumed
        self.root = bytearray(top + 1)  # 1: fixed at the root
        self.trail: list[int] = []
        self.watches: list[list[int]] = [[] for _ in range(2 * top + 2)]
        self.lits: list[list[int]] = []
        self.alive: list[bool] = []
        self.by_key: dict[tuple[int, ...], list[int]] = {}
        self.formula = len(clauses)
        self.conflict = -1  # a clause false at the root, once there is one
        self.uses: list[tuple[list[int], list[int]]] = []  # per clause: clauses, root vars
        for c in clauses:
            self.add([_code(x) for x in dict.fromkeys(c)])

    # -- the clause store --------------------------------------------------------------

    def add(self, lits: list[int]) -> int:
        """Store a clause; a unit (at the root) is propagated there."""
        h = len(self.lits)
        val = self.val
        lits = sorted(lits, key=lambda c: val[c] == _FALSE)  # free or true ones first
        self.lits.append(lits)
        self.alive.append(True)
        self.uses.append(([], []))
        self.by_key.setdefault(tuple(sorted(lits)), []).append(h)
        if len(lits) >= 2:
            self.watches[lits[0]].append(h)
            self.watches[lits[1]].append(h)
        if self.conflict >= 0 or any(val[c] == _TRUE for c in lits):
            return h
        free = [c for c in lits if val[c] != _FALSE]
        if not free:
            self.conflict = h
        elif len(free) == 1:
            mark = len(self.trail)
            self.assign(free[0], h)
            stop = self.propagate(mark)
            if stop >= 0:
                self.conflict = stop
            for c in self.trail[mark:]:
                self.root[c >> 1] = 1
        return h

    def delete(self, lits: list[int]) -> int:
        """Delete a live copy of the clause: its handle, or -1 when ignored.

        Ignored: no live copy, a unit (as dratify ignores them), or a clause that fixed
        a literal at the root (kept, as dratify keeps the literal).
        """
        if len(lits) <= 1:
            return -1
        handles = self.by_key.get(tuple(sorted(_code(x) for x in dict.fromkeys(lits))))
        while handles:
            h = handles[-1]
            if not self.alive[h]:
                handles.pop()
                continue
            if any(self.reason[c >> 1] == h and self.root[c >> 1] for c in self.lits[h]):
                return -1
            handles.pop()
            self.alive[h] = False
            return h
        return -1

    # -- propagation -------------------------------------------------------------------

    def assign(self, c: int, why: int) -> None:
        self.val[c] = _TRUE
        self.val[c ^ 1] = _FALSE
        self.reason[c >> 1] = why
        self.trail.append(c)

    def propagate(self, head: int) -> int:
        """Unit propagation from trail position ``head``: a conflict clause, or -1."""
        val, watches, lits_of, alive, trail = (
            self.val,
            self.watches,
            self.lits,
            self.alive,
            self.trail,
        )
        while head < len(trail):
            false = trail[head] ^ 1
            head += 1
            ws = watches[false]
            i = j = 0
            n = len(ws)
            while i < n:
                h = ws[i]
                i += 1
                if not alive[h]:
                    continue
                lits = lits_of[h]
                if lits[0] == false:
                    lits[0], lits[1] = lits[1], false
                first = lits[0]
                if val[first] == _TRUE:
                    ws[j] = h
                    j += 1
                    continue
                for k in range(2, len(lits)):
                    if val[lits[k]] != _FALSE:
                        lits[1], lits[k] = lits[k], false
                        watches[lits[1]].append(h)
                        break
                else:
                    ws[j] = h
                    j += 1
                    if val[first] == _FALSE:
                        while i < n:
                            ws[j] = ws[i]
                            i += 1
                            j += 1
                        del ws[j:]
                        return h
                    self.assign(first, h)
            del ws[j:]
        return -1

    def backtrack(self, size: int) -> None:
        val, trail = self.val, self.trail
        for c in trail[size:]:
            val[c] = 0
            val[c ^ 1] = 0
        del trail[size:]

    def analyse(self, conflict: int) -> tuple[list[int], list[int]]:
        """The clauses a conflict rests on above the root, and the root variables it uses."""
        used = [conflict]
        roots: list[int] = []
        seen = {conflict}
        seen_var: set[int] = set()
        k = 0
        while k < len(used):
            for c in self.lits[used[k]]:
                v = c >> 1
                if v in seen_var:
                    continue
                seen_var.add(v)
                if self.root[v]:
                    roots.append(v)
                    continue
                why = self.reason[v]
                if why >= 0 and why not in seen:
                    seen.add(why)
                    used.append(why)
            k += 1
        return used, roots

    def rup(self, lits: list[int]) -> tuple[list[int], list[int]] | None:
        """What the clause's reverse unit propagation rests on; None when it is not RUP."""
        if self.conflict >= 0:
            return self.analyse(self.conflict)
        val = self.val
        mark = len(self.trail)
        out: tuple[list[int], list[int]] | None = None
        for x in lits:
            c = _code(x)
            if val[c] == _TRUE:  # true at the root
                out = ([], [c >> 1])
                break
            if val[c] == 0:
                self.assign(c ^ 1, -1)
        if out is None:
            stop = self.propagate(mark)
            if stop >= 0:
                out = self.analyse(stop)
        self.backtrack(mark)
        return out

    # -- the two passes ----------------------------------------------------------------

    def run(self, steps: list[tuple[bool, list[int]]]) -> tuple[list[int], str] | None:
        lines: list[tuple[int, bool, list[int]]] = []  # (clause, deletion, literals)
        empty = None
        for deletion, lits in steps:
            if deletion:
                h = self.delete(lits)
                if h >= 0:
                    lines.append((h, True, lits))
                continue
            why = self.rup(lits)
            if why is None:
                return None
            if not lits:
                empty = why
                break
            h = self.add([_code(x) for x in dict.fromkeys(lits)])
            self.uses[h] = why
            lines.append((h, False, lits))
        if empty is None:
            return None
        needed = bytearray(len(self.lits))
        root_done = bytearray(len(self.root))
        stack: list[int] = []

        def need(why: tuple[list[int], list[int]]) -> None:
            for h in why[0]:
                if not needed[h]:
                    needed[h] = 1
                    stack.append(h)
            roots = list(why[1])
            while roots:  # a root literal rests on its reason, and on the root literals
                v = roots.pop()  # that made the reason unit
                if root_done[v]:
                    continue
                root_done[v] = 1
                h = self.reason[v]
                if h < 0:
                    continue
                if not needed[h]:
                    needed[h] = 1
                    stack.append(h)
                roots.extend(w for c in self.lits[h] if self.root[w := c >> 1] and w != v)

        need(empty)
        while stack:
            need(self.uses[stack.pop()])
        kept = [k for k in range(self.formula) if needed[k]]
        out = []
        for h, deletion, lits in lines:
            if needed[h]:
                body = " ".join(map(str, lits))
                out.append(f"d {body} 0" if deletion else f"{body} 0")
        out.append("0")
        return kept, "\n".join(out) + "\n"
