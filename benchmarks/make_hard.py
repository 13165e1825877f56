"""Write benchmarks/data/variants/hard.jsonl: the hard-variant set (``variant:hard``).

Published puzzles where sums decide (the hardest known killers, long sum lines,
little killers and sandwiches with few clues) and puzzles known to have no solution.
Each is taken from the Interactive Sudoku Solver's collections (sigh/
Interactive-Sudoku-Solver, MIT: ``data/collections.js`` @ac97d2c298eb and
``data/killers.js`` @04c38d3dde71), where the puzzle is written in that solver's text
formats, or from the published puzzles already bundled (tests/data/published/). Each
ISS text is turned into an f-puzzles object here and read by cpsudoku's own f-puzzles
reader; each row stores the rules as :meth:`Rules.spec` writes them, as the other
variant sets do. benchmarks/data/README.md gives every row's source.

Row fields: ``id``, ``rules``, ``puzzle``, ``expect`` (``unique``, ``unsolvable`` or
``multiple``), ``solution`` (for ``unique``), ``solution_from`` (``published``, or
``computed``: the source gives none; ``sat`` and ``cpsat`` agree on it, uniqueness
checked), ``fast`` (the tests solve it on ``sat``: ``FAST``) and ``native`` (the
compiled engine is quick on it, tested too: ``NATIVE``). A row expected
``unsolvable`` or ``multiple`` says what its source says of it (the unsolvable ones are
named so there; the sandwich snipe's second solution is in tests/data/published/
README.md: ``SOURCE_SAYS``), or else what ``sat`` and ``cpsat`` both find.

Run from the repository root::

    python benchmarks/make_hard.py          # writes the set; computed solutions are
                                            # found by sat and checked by cpsat
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cpsudoku.model.fpuzzles import read_fpuzzles
from cpsudoku.model.puzzle import Puzzle

ROOT = Path(__file__).parent.parent
OUT = ROOT / "benchmarks" / "data" / "variants" / "hard.jsonl"
PUBLISHED = ROOT / "tests" / "data" / "published" / "fpuzzles.jsonl"
N = 9

#: (id, ISS text, published solution or None, expected status, title).
#: Killers in ISS's short form (one character a cell: a cage's sum at its head, ``<``
#: ``^`` ``>`` ``v`` ``` ` ``` point at the cell whose cage this one joins) or long form
#: (``3x3:[d]:k:`` then per cell sum*256+cage id; ``d`` adds both diagonals).
ISS: list[tuple[str, str, str | None, str, str]] = [
    # data/killers.js HARD_KILLERS (the "tarek" list, rcbroughton.co.uk forum t=434).
    (
        "tarek-01",
        "G<<L<K<L<^G>^>^E^^>^IJ<G^<G^>^^I^<>^HC<C^<B^N^^G^<>^>^^E^<DF<^PG^<>^^J<^^<H<<>^>^",
        "432851769786239415159467823263974581971583642548612397397148256614725938825396174",
        "unique",
        "tarek 1",
    ),
    (
        "tarek-04",
        "G<<P<N<H<^N>^>^E^^>^GH<B^<K^>^^I^<>^IC<G^<C^L^^A^<>^>^^C^<EK<^KJ^<>^^I<^^<D<<>^>^",
        "149623875268957314537481296981534627423769158675812943812345769756198432394276581",
        "unique",
        "tarek 4",
    ),
    (
        "tarek-06",
        "L<<Q<J<G<^N>^>^J^^>^C8<H^<F^>^^I^<>^FC<D^<I^L^^H^<>^>^^E^<AG<^PG^<>^^I<^^<G<<>^>^",
        "179836452456972318382514976791265834864193527523487691238651749947328165615749283",
        "unique",
        "tarek 6",
    ),
    (
        "tarek-08",
        "N<<K<H<I<^I>^>^J^^>^CL<C^<L^>^^G^<>^9H<G^<C^J^^I^<>^>^^G^<IF<^LK^<>^^K<^^<7<<>^>^",
        "726389514835412976491675823247831659583967142169254738312798465678543291954126387",
        "unique",
        "tarek 8",
    ),
    (
        "tarek-09",
        "A<H<MA<A<^P<<^N<<^E^E<^L<^E^^^^^^^^^M<<9<K<<<G^N<^F<SB^<^^L^^^^I<E>^>>^D^^^<^F<>^",
        "258976431394218576671354829836497215729165348145823967963782154582641793417539682",
        "unique",
        "tarek 9",
    ),
    (
        "tarek-10",
        "E<8<ID<E<^N<<^L<<^A^Q<^K<^D^^^^^^^^^L<<G<I<<<K^C<^O<FB^<^^N^^^^M<C>^>>^K^^^<^B<>^",
        "285319476437586291169742835924657318578431962316298754893164527652873149741925683",
        "unique",
        "tarek 10",
    ),
    (
        "tarek-13",
        "C<5<KD<I<^O<<^P<<^F^R<^C<^9^^^^^^^^^K<<H<I<<<A^X<^Q<IB^>^^I^^^^I<^>^>>^J^^6<^B<>^",
        "193287645257346189684951237916835472835472961742169853369714528528693714471528396",
        "unique",
        "tarek 13",
    ),
    (
        "tarek-17",
        "E<8<KF<F<^T<<^J<<^6^O<^F<^F^^^^^^^^^D<<E<R<<<A^W<^J<P9^>^^N^^^^N<^>^>>^E^^9<^7<>^",
        "247139685893456712165287439578943126416528397329671548782364951954712863631895274",
        "unique",
        "tarek 17",
    ),
    (
        "tarek-22",
        "B<7<JF<B<^T<<^V<<^A^L<^R<^8^^^^^^^^^G<<M0^C<<AS>^OF<SB^^^^^^^^^H^<<^>>^E^<9<^8<>^",
        "735286941189435276462971583623718495547629318891354762274863159316597824958142637",
        "unique",
        "tarek 22",
    ),
    (
        "tarek-24",
        "D<C<OF<C<^K<<^R<<^7^P<^N<^A^^^^^^^^^C<<N0^C<<DV>^EI<NF^^^^^^^^^E^<<^>>^I^<A<^7<>^",
        "259317864673584912418962753346295187921678345587431629835149276194726538762853491",
        "unique",
        "tarek 24",
    ),
    # data/collections.js, "Extreme killers" (forum.enjoysudoku.com "killing with flowers").
    (
        "wecoc-1",
        "3x3::k:6150:6150:6401:6401:6401:6658:6658:6658:6658:6150:6401:6401:5123:4868:4868:4868:6661:6658:6150:5120:5120:5123:5123:5123:4868:6661:6661:6150:5120:5127:3336:2313:2313:5130:5130:6661:6155:5120:5127:3336:0000:1299:5130:5134:6661:6155:5127:5127:4367:4367:1299:5130:5134:6672:6155:6155:5393:5138:5138:5138:5134:5134:6672:6156:6155:5393:5393:5393:5138:6413:6413:6672:6156:6156:6156:6156:6413:6413:6413:6672:6672:",
        "821376945795481362634529718183654297956712834247893156519267483478135629362948571",
        "unique",
        "Wecoc #1",
    ),
    (
        "wecoc-1-mod-a",
        "3x3::k:6144:6144:6401:6401:6401:6658:6658:6658:6658:6144:6401:6401:5123:4868:4868:4868:6661:6658:6144:5126:5126:5123:5123:5123:4868:6661:6661:6144:5126:5127:3336:2313:2313:5130:5130:6661:6155:5126:5127:3336:1555:1555:5130:5133:6661:6155:5127:5127:4366:4366:1555:5130:5133:6671:6155:6155:5392:5137:5137:5137:5133:5133:6671:6162:6155:5392:5392:5392:5137:6412:6412:6671:6162:6162:6162:6162:6412:6412:6412:6671:6671:",
        "821376945795481362634529718183654297956712834247893156519267483478135629362948571",
        "unique",
        "Wecoc #1 mod A",
    ),
    (
        "wecoc-2",
        "3x3::k:2561:5122:5122:6403:6403:6403:6403:2820:2820:2561:5122:5122:6403:5125:5125:5125:5126:5126:6410:5129:6408:6408:6408:5125:6407:5126:5126:6410:5129:5129:6408:6407:6407:6407:6415:6415:6410:5129:6411:6408:524:6413:6407:5134:6415:6410:6410:6411:6411:6411:6413:5134:5134:6415:5397:5397:6411:5139:6413:6413:6413:5134:6415:5397:5397:5139:5139:5139:6418:5137:5137:2832:2580:2580:6418:6418:6418:6418:5137:5137:2832:",
        "863145792247869315591372486126987543739524168485631279672493851358716924914258637",
        "unique",
        "Wecoc #2",
    ),
    (
        "tarek-unsolvable-41",
        "3x3::k:7168:7168:4866:4866:4866:6149:6149:6149:5128:4873:7168:7168:7168:4866:4866:6149:5128:5128:4873:4873:5908:5908:5908:5908:4888:5128:6682:4873:7196:5908:6174:4888:4888:4888:5128:6682:7196:7196:8230:6174:6174:6174:4888:6682:6682:7196:6190:8230:8230:8230:6174:7475:6682:4917:7196:6190:8230:7475:7475:7475:7475:4917:4917:6190:6190:5697:5442:5442:7236:7236:7236:4917:6190:5697:5697:5697:5442:5442:5442:7236:7236:",
        "283197546967542813415368729591726384876439152324851967149275638752683491638914275",
        "unique",
        "tarek unsolvable #41",
    ),
    (
        "killer-0-cage-hard",
        "Z<<<<W<<<^0<<>^X<T>^j>>>^>^c^^<<>>^T^<<<^>>>^^S<<^<<0^>^L<<<^^<^>^U<>>^Q>>>^>>>>^",
        "458723196936185274271496583392547618867931452514268739783612945645379821129854367",
        "unique",
        "Killer sudoku, with 0 cage, hard",
    ),
    # data/collections.js HS_KILLERS ("human solvable zero", forum.enjoysudoku.com t33357).
    (
        "hs-killer-1",
        "3x3:d:k:3841:7705:7705:7705:7705:7705:26:3847:3847:3841:27:3846:3846:3846:7705:4361:3847:3848:3841:3843:4621:4876:28:4361:4361:4619:3848:29:3843:4621:4876:4876:5395:5395:4619:3848:3844:3843:4621:4114:4114:5395:4619:30:3850:3844:4878:4880:31:4114:3605:3605:3850:3850:3844:4878:4880:4880:4372:3350:3605:4632:32:4367:4878:33:4625:4372:3350:3350:4632:4632:4367:4367:4625:4625:4372:34:4375:4375:4375:",
        "875329146312674958469815372146298735253746819798153624687432591521987463934561287",
        "unique",
        "HS killer 1",
    ),
    (
        "hs-killer-3",
        "3x3::k:3595:3595:3844:3844:3090:3336:3336:2575:2575:3595:4620:4620:3348:3090:5:5648:5648:2575:3350:4620:4620:3348:3090:23:5648:5648:3841:3350:2581:24:3348:25:26:27:2579:3841:28:2581:29:30:4625:4625:4625:2579:31:3843:2581:32:33:34:35:36:2579:3335:3843:4878:4878:37:38:39:4618:4618:3335:3341:4878:4878:40:41:42:4618:4618:3593:3341:3341:3334:3334:43:3842:3842:3593:3593:",
        "279648531581739426463251798956483217128975643734162859812597364697324185345816972",
        "unique",
        "HS killer 3",
    ),
    (
        "hs-killer-9",
        "3x3:d:k:26:27:3585:3586:3587:3588:4360:5129:5642:28:3585:3586:3587:3588:4360:5129:5642:29:3585:3586:3587:3588:4360:5129:5642:30:31:32:3585:3586:3587:3588:4360:5129:5642:33:2578:2578:2578:34:35:36:4633:4633:4633:37:4632:7191:6934:4373:5396:5651:2577:38:39:40:4632:7191:6934:4373:5396:5651:2577:41:4632:7191:6934:4373:5396:5651:2577:42:4632:7191:6934:4373:43:5396:5651:2577:44:",
        "894637125725418369316259487952143678163872594478965231631784952589321746247596813",
        "unique",
        "HS killer 9",
    ),
    # data/collections.js "Long sums" (CTC discord: pill arrows whose shaft runs 32 cells).
    (
        "long-sums-1",
        ".PillArrow~2~R7C4~R7C5~R8C5~R8C6~R9C6~R9C7~R9C8~R9C9~R8C9~R7C9~R7C8~R6C8~R6C9~R5C9~R5C8~R5C7~R4C7~R4C8~R4C9~R3C9~R3C8~R3C7~R3C6~R2C6~R2C5~R2C4~R3C4~R4C4~R4C3~R5C3~R5C2~R6C2~R7C2~R7C1.AntiKing.",
        "231869574457321689896475321672198453913547268548236917125984736364712895789653142",
        "unique",
        "Long sums 1",
    ),
    (
        "long-sums-2",
        ".PillArrow~2~R6C5~R5C5~R4C5~R4C4~R5C4~R5C3~R5C2~R6C2~R6C3~R7C3~R7C4~R8C4~R9C4~R9C5~R8C5~R7C5~R7C6~R8C6~R8C7~R7C7~R6C7~R5C7~R5C8~R4C8~R4C9~R3C9~R2C9~R2C8~R3C8~R3C7~R2C7~R2C6~R3C6~R3C5.DisjointSets.",
        "123465987965873421478921635859316742634297518712584396591638274386742159247159863",
        "unique",
        "Long sums 2",
    ),
    (
        "long-sums-3",
        ".PillArrow~2~R1C9~R1C8~R1C7~R1C6~R1C5~R2C4~R2C3~R2C2~R2C1~R3C1~R4C1~R4C2~R5C2~R5C1~R6C1~R6C2~R7C2~R7C1~R8C1~R8C2~R8C3~R7C3~R7C4~R6C4~R6C3~R5C3~R5C4~R5C5~R6C5~R7C5~R7C6~R6C6~R6C7~R6C8.",
        "765432198432198765198765432219876543543219876876543219654321987321987654987654321",
        "unique",
        "Long sums 3",
    ),
    # data/collections.js, little killers and sandwiches.
    (
        "little-killer-slow",
        ".LittleKiller~20~R1C4.LittleKiller~10~R1C5.LittleKiller~21~R1C6.LittleKiller~5~R2C9.LittleKiller~12~R3C9.LittleKiller~13~R8C1.LittleKiller~16~R7C1.LittleKiller~31~R9C3.LittleKiller~15~R9C4.LittleKiller~16~R9C5",
        None,
        "unique",
        "Little killer, slow",
    ),
    (
        "x-sum-little-killer",
        ".LittleKiller~23~R1C1.LittleKiller~12~R2C9.LittleKiller~23~R3C9.LittleKiller~25~R5C9.LittleKiller~12~R7C1.LittleKiller~25~R1C6.~R7C2_2~R7C8_5.XSum~C1~25~23.XSum~C5~12~25.XSum~C9~23~12",
        "562831974837429165941576238195384726286715349473692581329168457758943612614257893",
        "unique",
        "X-Sum little killer",
    ),
    (
        "little-killer-snipe-12",
        ".LittleKiller~12~R1C3.LittleKiller~12~R1C2.LittleKiller~12~R1C5.LittleKiller~12~R5C1.LittleKiller~12~R6C1.LittleKiller~12~R7C1.LittleKiller~12~R8C1.LittleKiller~12~R9C3.LittleKiller~12~R9C7.LittleKiller~12~R5C9.LittleKiller~12~R3C9.LittleKiller~12~R2C9",
        None,
        "unique",
        "Little killer snipe, all 12",
    ),
    (
        "little-killer-snipe-48",
        ".LittleKiller~48~R1C1.LittleKiller~48~R8C9.LittleKiller~48~R7C9.LittleKiller~48~R1C9.LittleKiller~48~R9C2.LittleKiller~48~R9C3.LittleKiller~48~R9C4",
        None,
        "unique",
        "Little killer snipe, all 48",
    ),
    (
        "zero-little-killer",
        ".LittleKiller~49~R1C9.LittleKiller~49~R1C8.LittleKiller~49~R9C2.LittleKiller~49~R9C3.LittleKiller~49~R7C9.LittleKiller~49~R1C1.LittleKiller~49~R2C1.LittleKiller~49~R3C1.",
        None,
        "unsolvable",
        "Zero solution: Little Killer",
    ),
    (
        "sandwich-partial-slow",
        ".Sandwich~8~C1.Sandwich~4~C2.Sandwich~17~C3.Sandwich~3~C7.Sandwich~10~C8.Sandwich~25~C9.Sandwich~4~R1.Sandwich~33~R2.Sandwich~17~R4.Sandwich~16~R7.",
        None,
        "multiple",
        "Sandwich, partial, slow",
    ),
    (
        "sandwich-snipe-18",
        ".Sandwich~18~C1.Sandwich~18~C2.Sandwich~18~C3.Sandwich~18~R1.Sandwich~18~R2.Sandwich~18~R3.Sandwich~18~R4.Sandwich~18~R5.Sandwich~18~R6.Sandwich~18~C4.Sandwich~18~C5.Sandwich~18~C7.Sandwich~18~C9.",
        None,
        "multiple",
        "Sandwich snipe 18",
    ),
    (
        "zero-renban",
        ".Renban~R7C2~R8C1~R9C2~R8C3.Renban~R7C5~R8C6~R9C5~R8C4.Renban~R8C7~R9C8~R8C9~R7C8.Renban~R6C8~R5C9~R4C8~R5C7.Renban~R3C2~R2C1~R1C2~R2C3.Renban~R3C5~R2C4~R1C5~R2C6.Renban~R2C7~R1C8~R2C9~R3C8.Renban~R5C4~R4C5~R5C6~R6C5.Renban~R4C2~R5C1~R6C2~R5C3.",
        None,
        "unsolvable",
        "Zero solution: Renban",
    ),
]

#: Rows whose status their source states (no engine here needs to decide it).
SOURCE_SAYS = {"zero-little-killer", "zero-renban", "sandwich-snipe-18"}

#: Bundled published puzzles (tests/data/published/fpuzzles.jsonl ids) in the set.
FROM_PUBLISHED: list[tuple[str, str]] = [
    ("iss-3-digit-pill-arrow", "3-digit-pill-arrow"),
    ("iss-triple-digits", "triple-digits"),
    ("iss-hailstone---little-killer", "hailstone-little-killer"),
    ("iss-disjoint-little-killer", "disjoint-little-killer"),
    ("iss-little-killer-2", "little-killer-2"),
]

#: Rows ``sat`` answers in about a tenth of a CPU second (the tests solve them).
FAST = {
    "tarek-01", "tarek-04", "tarek-10", "hs-killer-3", "3-digit-pill-arrow",
    "little-killer-snipe-12", "little-killer-2", "x-sum-little-killer",
}  # fmt: skip

#: Rows the compiled engine answers in a few hundredths of a CPU second (tested too).
NATIVE = {
    "tarek-06", "tarek-10", "tarek-22", "hs-killer-1", "hs-killer-3",
    "triple-digits", "3-digit-pill-arrow", "x-sum-little-killer",
    "little-killer-snipe-12", "sandwich-partial-slow", "zero-little-killer",
}  # fmt: skip


def rc(text: str) -> tuple[int, int]:
    """(row, column), 0-based, of an ISS cell name such as ``R3C7``."""
    m = re.fullmatch(r"[Rr](\d)[Cc](\d)", text)
    if not m:
        raise ValueError(f"not a cell: {text!r}")
    return int(m[1]) - 1, int(m[2]) - 1


def name(r: int, c: int) -> str:
    """The f-puzzles name of a cell (0-based in, 1-based out; outside clues at 0/10)."""
    return f"R{r + 1}C{c + 1}"


def _sum_of(ch: str) -> int | None:
    if "0" <= ch <= "9":  # 0: a cage without a sum (its digits differ), as ISS reads it
        return int(ch)
    if "A" <= ch <= "Z":
        return ord(ch) - ord("A") + 10
    if "a" <= ch <= "j":
        return ord(ch) - ord("a") + 36
    return None


def short_killer(text: str) -> list[tuple[int, list[int]]]:
    """Cages (sum, cells) of ISS's short killer form (sum 0: no sum given)."""
    step = {"v": N, "^": -N, "<": -1, ">": 1, "`": -N - 1}
    heads = []
    for i in range(N * N):
        j = i
        while text[j] in step:
            j += step[text[j]]
        heads.append(j)
    cages: dict[int, list[int]] = {}
    for i, h in enumerate(heads):
        cages.setdefault(h, []).append(i)
    return [(s, cells) for h, cells in cages.items() if (s := _sum_of(text[h])) is not None]


def long_killer(text: str) -> tuple[list[tuple[int, list[int]]], bool]:
    """Cages of ISS's long killer form, and whether it adds both diagonals."""
    parts = text.split(":")
    cages: dict[int, tuple[int, list[int]]] = {}
    for i, v in enumerate(int(p) for p in parts[3 : 3 + N * N]):
        if v // 256:
            cages.setdefault(v % 256, (v // 256, []))[1].append(i)
    return list(cages.values()), parts[1] == "d"


def little_killer(total: int, start: str) -> dict[str, Any]:
    """An f-puzzles little killer from ISS's start cell (direction by the side it is on)."""
    r, c = rc(start)
    if c == 0 and r < N - 1:
        d, key = (1, 1), "DR"
    elif c == N - 1 and 0 < r < N - 1:
        d, key = (-1, -1), "UL"
    elif r == 0 and c > 0:
        d, key = (1, -1), "DL"
    else:
        d, key = (-1, 1), "UR"
    cells = []
    while 0 <= r < N and 0 <= c < N:
        cells.append(name(r, c))
        r, c = r + d[0], c + d[1]
    r0, c0 = rc(start)
    return {
        "cell": f"R{r0 - d[0] + 1}C{c0 - d[1] + 1}",
        "cells": cells,
        "direction": key,
        "value": str(total),
    }


def outside(where: str, first: bool) -> str:
    """The f-puzzles clue cell of an ISS row/column clue (``R4``/``C7``), front or back."""
    k = int(where[1:])
    edge = 0 if first else N + 1
    return f"R{k}C{edge}" if where[0] in "Rr" else f"R{edge}C{k}"


def to_fpuzzles(text: str, title: str) -> dict[str, Any]:
    """The f-puzzles object of an ISS puzzle (the few rule kinds this set uses)."""
    obj: dict[str, Any] = {
        "size": N,
        "title": title,
        "grid": [[{} for _ in range(N)] for _ in range(N)],
    }

    def add(key: str, item: Any) -> None:
        obj.setdefault(key, []).append(item)

    def cages(found: list[tuple[int, list[int]]]) -> None:
        for total, cells in found:
            cage: dict[str, Any] = {"cells": [name(*divmod(i, N)) for i in cells]}
            if total:
                cage["value"] = str(total)
            add("killercage", cage)

    if re.fullmatch(r"[0-9A-Za-j<>^v`]{81}", text):
        cages(short_killer(text))
        return obj
    if text.startswith("3x3:"):
        found, diagonals = long_killer(text)
        cages(found)
        if diagonals:
            obj["diagonal+"] = obj["diagonal-"] = True
        return obj
    for item in text.split("."):
        kind, *args = item.split("~") if item else ("",)
        if not item:
            continue
        if kind == "":
            for given in args:
                cell, value = given.split("_")
                r, c = rc(cell)
                obj["grid"][r][c] = {"value": int(value), "given": True}
        elif kind == "Cage":
            add("killercage", {"cells": args[1:], "value": args[0]})
        elif kind == "LittleKiller":
            add("littlekillersum", little_killer(int(args[0]), args[1]))
        elif kind == "PillArrow":
            k = int(args[0])
            pill = sorted(args[1 : 1 + k], key=rc)  # its digits read in reading order, as ISS
            add("arrow", {"cells": pill, "lines": [args[k:]]})
        elif kind == "Arrow":
            add("arrow", {"cells": args[:1], "lines": [args]})
        elif kind == "Sandwich":
            add("sandwichsum", {"cell": outside(args[1], True), "value": args[0]})
        elif kind == "XSum":
            for first, value in ((True, args[1]), (False, args[2] if len(args) > 2 else "")):
                if value:
                    add("xsum", {"cell": outside(args[0], first), "value": value})
        elif kind == "Renban":
            add("renban", {"lines": [args]})
        elif kind == "AntiKing":
            obj["antiking"] = True
        elif kind == "DisjointSets":
            obj["disjointgroups"] = True
        else:
            raise ValueError(f"ISS rule {kind!r} is not converted here")
    return obj


def row(pid: str, puzzle: Puzzle, expect: str, solution: str | None, source: str) -> dict[str, Any]:
    """One line of the set."""
    out: dict[str, Any] = {
        "id": pid,
        "rules": puzzle.rules.spec(),
        "puzzle": str(puzzle),
        "expect": expect,
    }
    if solution is not None:
        out["solution"] = solution
        out["solution_from"] = source
    out["fast"] = pid in FAST
    if pid in NATIVE:
        out["native"] = True
    return out


def checked(puzzle: Puzzle, expect: str) -> str | None:
    """The status ``expect`` confirmed by ``sat`` and ``cpsat`` (uniqueness checked);
    for ``unique``, the solution they agree on."""
    from cpsudoku.engines import create_backend

    answers = []
    for engine in ("sat", "cpsat"):
        backend = create_backend(engine)
        try:
            result = backend.solve(puzzle, time_limit=600)
        finally:
            backend.close()
        if result.status.value != expect:
            raise SystemExit(f"{engine}: {result.status.value}, not {expect}")
        answers.append(result.solution.line() if expect == "unique" and result.solution else None)
    if answers[0] != answers[1]:
        raise SystemExit("sat and cpsat disagree")
    return answers[0]


def main() -> None:
    rows = []
    published = {json.loads(line)["id"]: json.loads(line) for line in PUBLISHED.open()}
    old = {r["id"]: r for r in map(json.loads, OUT.open())} if OUT.exists() else {}
    for pid, text, solution, expect, title in ISS:
        read = read_fpuzzles(to_fpuzzles(text, title))
        source = "published"
        if solution is None and pid not in SOURCE_SAYS:  # none given: both engines agree
            if pid not in old:
                print(f"checking {pid} ({expect}) on sat and cpsat", flush=True)
                solution = checked(read.puzzle, expect)
            else:
                solution = old[pid].get("solution")
            source = "computed"
        rows.append(row(pid, read.puzzle, expect, solution, source))
    for pub_id, pid in FROM_PUBLISHED:
        record = published[pub_id]
        fp = record["fpuzzles"]
        read = read_fpuzzles(json.loads(fp) if isinstance(fp, str) else fp)
        rows.append(row(pid, read.puzzle, "unique", record["solution"], "published"))
    OUT.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    print(f"{len(rows)} rows -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
