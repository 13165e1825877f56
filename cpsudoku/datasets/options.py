"""How records are solved: one options value, checked once, sent to every worker."""

from __future__ import annotations

from dataclasses import dataclass

from cpsudoku.engines import DEFAULT_BACKEND, check_spec
from cpsudoku.engines.base import check_time_limit
from cpsudoku.model.forms import symbols_geometry
from cpsudoku.model.rules import Rules, as_rules


@dataclass(frozen=True, slots=True)
class SolveOptions:
    """Everything a worker needs to solve records; sent once per worker process.

    Build it with :meth:`checked`, which refuses a bad value before any work starts
    (the command line, :func:`cpsudoku.solve_many` and the Dask functions all do).
    ``rules`` travels as the value itself, whole: every region and constraint reaches
    every worker process and cluster task.

    Attributes:
        backend: the engine spec.
        unique: prove uniqueness (False: stop at the first solution, status ``solved``).
        time_limit: seconds per record; None for no limit.
        rules: the rules of every record, when its text alone does not say them (a box
            shape, a jigsaw, extra regions...); None: the classic rules of its size.
        verify_with: a second engine that solves every record too; disagreements go
            to the error column.
        presolve: let the whole-array logic pass decide what it can first.
        symbols: the symbols of the values 1..n, as :func:`cpsudoku.parse` takes them;
            solutions are written with them too.
        native_budget: search nodes the compiled engine's bulk pass spends on a puzzle
            before the engine takes it; None for the default
            (:func:`cpsudoku.datasets.solving.native_budget`).
        witnesses: add the evidence columns; ``solution2`` holds a second verified
            solution of every ``multiple`` record.
        certify: a folder for one certificate per ``unique`` record (one zip archive
            per chunk), named in the ``certificate`` column; implies ``witnesses``.
        canon: add the ``canonical`` column (each puzzle's canonical form), last.
    """

    backend: str = DEFAULT_BACKEND
    unique: bool = True
    time_limit: float | None = None
    rules: Rules | None = None
    verify_with: str | None = None
    presolve: bool = True
    symbols: str | None = None
    native_budget: int | None = None
    witnesses: bool = False
    certify: str | None = None
    canon: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        """The output's columns: evidence ones with witnesses or certify, canonical last."""
        from cpsudoku.datasets.rows import CANONICAL, COLUMNS, EVIDENCE_OUTPUT_COLUMNS

        base = EVIDENCE_OUTPUT_COLUMNS if self.witnesses or self.certify else COLUMNS
        return (*base, CANONICAL) if self.canon else base

    @classmethod
    def checked(
        cls,
        backend: str = DEFAULT_BACKEND,
        *,
        unique: bool = True,
        time_limit: float | None = None,
        box: str | Rules | None = None,
        verify_with: str | None = None,
        presolve: bool = True,
        symbols: str | None = None,
        witnesses: bool = False,
        certify: str | None = None,
        canon: bool = False,
    ) -> SolveOptions:
        """Options checked whole: a mistake fails here, not in a worker after hours.

        Raises:
            UnknownBackendError: an unknown engine or variant (of either engine).
            BackendUnavailableError: an engine whose solver is not installed.
            BoxShapeError: a box that is no box shape.
            PuzzleError: symbols that are no alphabet, or do not fit the box.
            ValueError: a NaN time limit.
        """
        check_spec(backend)
        if verify_with is not None:
            check_spec(verify_with)
        if time_limit is not None:
            check_time_limit(time_limit)
            # A limit already spent leaves no time for the pass either: every status is
            # then ``timeout``, with the pass or without, as the engine alone would say.
            presolve = presolve and time_limit > 0
        rules = as_rules(box)
        if symbols is not None:
            symbols_geometry(symbols, rules)
        return cls(
            backend,
            unique,
            time_limit,
            rules,
            verify_with,
            presolve,
            symbols,
            witnesses=witnesses or certify is not None,
            certify=certify,
            canon=canon,
        )
