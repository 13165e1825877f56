"""What every command shares: exit codes, PUZZLE arguments, common options, checks."""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cpsudoku.engines import DEFAULT_BACKEND, REGISTRY
from cpsudoku.model.errors import CpSudokuError, PuzzleError, WrongLengthError
from cpsudoku.model.links import is_link
from cpsudoku.model.result import Status

if TYPE_CHECKING:
    from cpsudoku.model.fpuzzles import FpuzzlesPuzzle
    from cpsudoku.model.puzzle import Puzzle


EXIT_OK, EXIT_UNSOLVABLE, EXIT_INVALID, EXIT_TIMEOUT = 0, 1, 2, 3


#: ``batch`` only: some records were invalid; some rows disagree with the input's
#: solution column or with the cross-checking backend.
EXIT_SOME_INVALID, EXIT_DISAGREEMENT = 4, 5


#: Stopped by Ctrl-C, by SIGTERM, or by a reader that closed the pipe (``| head``):
#: the codes a shell shows for a process ended by SIGINT, SIGTERM or SIGPIPE.
EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_BROKEN_PIPE = 130, 143, 141


#: The engine does not take a rule of the puzzle (status ``refused``): not invalid
#: input, not an answer; the message names the engines that take the rule.
EXIT_REFUSED = 6


EXIT_FOR_STATUS = {
    Status.UNIQUE: EXIT_OK,
    Status.MULTIPLE: EXIT_OK,
    Status.SOLVED: EXIT_OK,
    Status.UNSOLVABLE: EXIT_UNSOLVABLE,
    Status.INVALID: EXIT_INVALID,
    Status.TIMEOUT: EXIT_TIMEOUT,
    Status.REFUSED: EXIT_REFUSED,
}


STATUS_TEXT = {
    Status.UNIQUE: "unique: the only solution",
    Status.MULTIPLE: "multiple: solved, but another solution exists",
    Status.SOLVED: "solved (uniqueness not checked)",
    Status.UNSOLVABLE: "unsolvable: the puzzle has no solution",
    Status.INVALID: "invalid",
    Status.TIMEOUT: "timeout: the time limit ran out",
    Status.REFUSED: "refused",
}


#: A subcommand: its help line, the function adding its options, the function running
#: it (which returns the exit code).
Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]


class UsageError(CpSudokuError):
    """A command-line mistake reported with exit code 2."""


#: A PUZZLE argument ending like a file name (``.txt``, ``.sdk``), never like a
#: puzzle line ending in digits or empty cells.
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")


def read_puzzle_arg(arg: str, box: str | None = None, symbols: str | None = None) -> str:
    """PUZZLE as given: ``-`` is standard input, a file (or pipe) is read, else text.

    A file's bytes are read as every command reads datasets (a byte-order mark picks
    UTF-8, -16 or -32; a comment line may hold any bytes). A folder is a UsageError,
    and so is a missing file: an argument with a slash or a file suffix that names no
    file and is no puzzle either. Raises WrongLengthError with a pointer to ``batch``
    when the text is several whole puzzles, one per line (a dataset given to a
    one-puzzle command).
    """
    from cpsudoku.model.text import decode_text

    if arg == "-":
        stdin = getattr(sys.stdin, "buffer", None)  # None when replaced by a text stream
        data = stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")
        return _one_puzzle(decode_text(data, "standard input"), box, symbols)
    if is_link(arg):
        return arg  # a link is never a file name: parse reads it or says why not
    path = Path(arg)
    try:
        exists, folder = path.exists(), path.is_dir()
    except OSError:  # e.g. a 16x16 puzzle line: longer than a file name may be
        exists = folder = False
    if folder:
        raise UsageError(f"cannot read {arg}: it is a folder, not a puzzle file")
    if not exists:
        problem = _path_problem(arg, box, symbols)
        if problem is not None:
            raise UsageError(f"cannot read {arg}: no such file{problem}")
        if len(arg) < 16:  # shorter than a 4x4 grid: a word, not a puzzle, is likelier
            _short_puzzle(arg, box, symbols)
        return _one_puzzle(arg, box, symbols)
    try:  # a file, or a pipe such as a shell's <(...)
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {arg}: {exc.strerror or exc}") from None
    return _one_puzzle(decode_text(data, arg), box, symbols)


#: The help of every PUZZLE argument.
PUZZLE_HELP = (
    "puzzle text, a file holding one, - for stdin, JSON with its rules, or an f-puzzles "
    "or SudokuPad link"
)


def puzzle_arg(args: argparse.Namespace) -> str | Puzzle:
    """The PUZZLE argument: its text, or a Puzzle (``--symbols``, a setter's format).

    See :func:`puzzle_input`; a setter's notes are shown as warnings.
    """
    return puzzle_input(args).puzzle


def _path_problem(arg: str, box: str | None, symbols: str | None) -> str | None:
    """Why ``arg``, which names no file, was taken for one; None when it was not.

    It was when it has a slash or a file suffix and is no puzzle when read as one
    (``....G`` may end a 16x16 line). Without a slash, and as long as a grid of 4x4
    or more, it may be a mistyped puzzle that ends like a suffix (``....Z``): the
    reason then also says where the text fails as a puzzle, so that neither reading
    is hidden. Otherwise it is ``""``.
    """
    from cpsudoku.model.forms import parse

    slash = "/" in arg or os.sep in arg
    if not (slash or _FILE_SUFFIX.search(arg)):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse(arg, box, check=False, symbols=symbols)
    except PuzzleError as exc:
        grid_sized = len(arg) >= 16 and math.isqrt(len(arg)) ** 2 == len(arg)
        return f"; read as a puzzle instead: {exc}" if grid_sized and not slash else ""
    return None


def _short_puzzle(arg: str, box: str | None, symbols: str | None) -> None:
    """Raise UsageError when a short argument that names no file is no puzzle either.

    ``cpsudoku solve nope`` is a mistyped file name or word, not a 2x2 grid with
    unknown symbols: the message says both readings failed.
    """
    from cpsudoku.model.forms import parse

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse(arg, box, check=False, symbols=symbols)
    except PuzzleError as exc:
        raise UsageError(f"cannot read {arg!r}: not a puzzle ({exc}) and no such file") from None


def _one_puzzle(text: str, box: str | None, symbols: str | None = None) -> str:
    """``text``, unless its lines are several puzzles rather than the rows of one.

    They are when each line is a puzzle on its own and either the whole text is no
    grid, or the lines are not its rows: a grid written one row per line has as many
    lines as each line has cells (four 4x4 puzzles, one per line, also make 64 cells,
    an 8x8 grid, but four lines of 16 cells are no grid's rows).
    """
    from cpsudoku.model.forms import GRID_HEADER, parse

    lines = [s for s in text.splitlines() if s.strip() and not s.lstrip().startswith("#")]
    if len(lines) < 2 or any(GRID_HEADER.match(line) for line in lines):
        return text  # parse reads one "Grid 01" puzzle and says when there are several
    error: WrongLengthError | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the puzzle is parsed again, and warns then
        try:
            parse(text, box, check=False, symbols=symbols)
        except WrongLengthError as exc:
            error = exc
        except PuzzleError:
            return text  # the command reports it, as for any other input
        try:
            cells = {parse(line, box, check=False, symbols=symbols).rules.cells for line in lines}
        except PuzzleError:
            cells = set()
    if cells and (error is not None or cells != {len(lines)}):
        raise WrongLengthError(
            f"the input holds {len(lines)} puzzles, one per line; this command takes one "
            f"puzzle, and 'cpsudoku batch' takes a file of many"
        )
    if error is not None:
        raise error
    return text


def check_time_limit_option(seconds: float | None) -> None:
    """Raise UsageError unless ``--time-limit`` is absent or a positive number of seconds."""
    if seconds is not None and not seconds > 0:  # NaN fails too
        raise UsageError(f"--time-limit must be a positive number of seconds, got {seconds}")


def add_backend_options(p: argparse.ArgumentParser) -> None:
    """Add ``--backend`` and ``--sat-solver``."""
    p.add_argument(
        "--backend",
        default=DEFAULT_BACKEND,
        metavar="NAME",
        help=f"engine, with optional variants as NAME:VARIANT (one of: "
        f"{', '.join(REGISTRY)}; default: {DEFAULT_BACKEND}, which in solve, count and "
        f"batch gives a puzzle the compiled engine takes to it first, within a node "
        f"budget; any other spec runs alone)",
    )
    p.add_argument(
        "--sat-solver",
        metavar="NAME",
        help="python-sat solver for the sat backend, e.g. cadical153, glucose4, minisat22 "
        "(the same as --backend sat:NAME)",
    )


def add_setter_options(p: argparse.ArgumentParser) -> None:
    """Add ``--include-filled``: how to read a setter's puzzle (f-puzzles, SudokuPad)."""
    p.add_argument(
        "--include-filled",
        action="store_true",
        help="in an f-puzzles or SudokuPad puzzle, keep digits filled in but not marked "
        "given as givens (f-puzzles' solvers leave them out, and so does cpsudoku by "
        "default)",
    )


@dataclass
class PuzzleInput:
    """A PUZZLE argument as read: its text, or a setter's puzzle with what came with it.

    Attributes:
        puzzle: the text to parse, or the Puzzle of a setter's format.
        setter: the f-puzzles (or SudokuPad) reading: notes, stored solution, title.
    """

    puzzle: str | Puzzle
    setter: FpuzzlesPuzzle | None = None

    def check_answer(self, solution: Puzzle | None) -> None:
        """Warn when the puzzle's stored solution is not the answer found."""
        stored = self.setter.solution if self.setter is not None else None
        if stored is None or solution is None or tuple(solution.cells) == stored:
            return
        n = solution.n
        wrong = [i for i, (a, b) in enumerate(zip(solution.cells, stored, strict=True)) if a != b]
        where = ", ".join(f"r{i // n + 1}c{i % n + 1}" for i in wrong[:5])
        more = f" and {len(wrong) - 5} more" if len(wrong) > 5 else ""
        warn(
            f"the puzzle's stored solution differs from the answer at {where}{more}: "
            "either the stored solution is wrong, or a rule is not read as the setter "
            "meant (run 'cpsudoku show' to see the rules as read)"
        )


def warn(message: str) -> None:
    """One warning line on stderr."""
    print(f"cpsudoku: warning: {message}", file=sys.stderr)


def puzzle_input(args: argparse.Namespace) -> PuzzleInput:
    """The PUZZLE argument read, a setter's format becoming its Puzzle.

    f-puzzles JSON or a link is read here (``--include-filled``), its notes shown as
    warnings; other text is left to ``parse`` (parsed here with ``--symbols``).
    """
    from cpsudoku.model.fpuzzles import read_fpuzzles_text

    text = read_puzzle_arg(args.puzzle, args.box, args.symbols)
    setter = read_fpuzzles_text(text, include_filled=getattr(args, "include_filled", False))
    if setter is None:
        if args.symbols is not None:
            from cpsudoku.model.forms import parse

            return PuzzleInput(parse(text, args.box, check=False, symbols=args.symbols))
        return PuzzleInput(text)
    for note in setter.notes:
        warn(note)
    return PuzzleInput(setter.puzzle, setter)


def add_box_options(p: argparse.ArgumentParser) -> None:
    """Add ``--box`` and ``--symbols``, which say how to read a puzzle's text."""
    p.add_argument(
        "--box",
        metavar="RxC",
        help="box shape, e.g. 2x3 for 6x6 grids (default: inferred from the size)",
    )
    p.add_argument(
        "--symbols",
        metavar="ABC",
        help="the symbols of the values 1..N in order, e.g. 0123456789ABCDEF for a 16x16 "
        "written in hex digits (then . _ - * are empty cells); solutions are written with "
        "them too (default: 1-9 then A-Z, and 0 is empty)",
    )


def backend_spec(args: argparse.Namespace) -> str:
    """The backend spec named on the command line, with ``--sat-solver`` appended.

    Raises:
        UsageError: ``--sat-solver`` was given for a backend other than ``sat``.
    """
    spec = str(args.backend)
    solver = getattr(args, "sat_solver", None)
    if solver:
        if spec.split(":")[0] != "sat":
            raise UsageError(f"--sat-solver applies to the sat backend only, not to {spec!r}")
        spec = f"{spec}:{solver}"
    return spec


def refuse_overwrite(source: str, output: str | None) -> None:
    """Raise UsageError when ``output`` is the file ``source`` (writing would destroy it)."""
    if not output or output == "-" or source == "-":
        return
    try:
        same = os.path.samefile(source, output)
    except OSError:  # one of them does not exist (yet): not the same file
        return
    if same:
        raise UsageError(
            f"the output {output} is the input file, which writing would destroy; "
            "write to another file"
        )


def add_force_option(p: argparse.ArgumentParser) -> None:
    """Add ``--force``: write over an output file that already holds something."""
    p.add_argument(
        "--force",
        action="store_true",
        help="write over OUTPUT when it already exists and is not empty (refused otherwise)",
    )


def refuse_existing_output(path: str | None, force: bool, instead: str = "") -> None:
    """Raise UsageError when writing ``path`` would replace what it holds, unless ``force``.

    Every command that writes a dataset keeps this one rule: an existing output that
    is not empty (a file of some size, a folder with something in it, as a Parquet
    output is) is written over only with ``--force``. Standard output, ``/dev/null``,
    a pipe and other files that are not regular hold nothing to lose. ``instead``
    names the command's other ways on (``--resume``), for the message.
    """
    if force or not path or path == "-":
        return
    try:
        st = os.stat(path)
    except OSError:  # not there (yet), or not reachable: opening it will say
        return
    if stat.S_ISREG(st.st_mode):
        full = st.st_size > 0
    elif stat.S_ISDIR(st.st_mode):
        with os.scandir(path) as entries:
            full = any(entries)
    else:
        return
    if full:
        raise UsageError(
            f"{path} already exists and is not empty, and is left as it is: give --force "
            f"to write over it{instead}, or name another output"
        )


def split_names(values: Sequence[str] | None) -> list[str]:
    """Names given as repeated words and/or comma-separated lists."""
    return [n for v in values or () for n in v.split(",") if n]
