"""What a run returns to Python: the events of ``assay run``, as frozen typed objects.

A :class:`Result` holds every event the CLI would print, in the order it would print
them; ``to_json_lines()`` is byte for byte what ``assay run`` writes on stdout (run ids
and timings aside). :class:`ResultStream` hands the rule results over as each table
finishes.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from assay.errors import AssayError, ChecksFailed, SparkFailure
from assay.report.events import Event, RuleResult, RunSummary, TableFinished
from assay.report.jsonl import json_line


@dataclass(frozen=True)
class Result:
    """The outcome of one run: its summary, table lines and rule results.

    ``passed`` and ``status`` are what the verdicts say (``PASS``, ``FAIL``, ``ERROR``),
    ``exit_code`` what the run's policy makes of them, as the CLI exits: a failure waived
    by ``on_failure: warn`` or ``level: warn`` leaves ``passed`` false and ``exit_code`` 0.
    """

    summary: RunSummary
    events: tuple[Event, ...]
    """Every event in stream order (each table's results, then its table line; the
    summary last): the tables as they finished, or in config order with
    ``order="config"``."""
    exit_code: int
    """The CLI's exit code: 0 passed (warnings and waived failures allowed), 1 a failed
    rule fails the run, 3 a rule could not be evaluated or a report was not written."""
    report_problems: tuple[str, ...] = ()
    """Reports (``--jsonReport``, outputs, email...) that could not be written."""

    @property
    def passed(self) -> bool:
        """No rule failed with severity ``fail`` and none errored (warnings allowed)."""
        return self.summary.passed

    @property
    def status(self) -> str:
        """``PASS``, ``FAIL`` or ``ERROR``, as the summary line says."""
        return self.summary.status

    @property
    def exit_reason(self) -> str:
        """The exit code explained in one sentence."""
        return self.summary.exit_reason

    @property
    def run_id(self) -> str:
        """The id every event of this run carries."""
        return self.summary.run_id

    @property
    def tables(self) -> tuple[TableFinished, ...]:
        """One line per table, in stream order (as the tables finished, or in config
        order with ``order="config"``)."""
        return tuple(e for e in self.events if isinstance(e, TableFinished))

    @property
    def results(self) -> tuple[RuleResult, ...]:
        """Every rule's result, grouped by table in stream order (see :attr:`tables`),
        each table's in config order."""
        return tuple(e for e in self.events if isinstance(e, RuleResult))

    def __iter__(self) -> Iterator[RuleResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __bool__(self) -> bool:
        """True when the run passed as the CLI exits 0 (``exit_code == 0``: warnings and
        waived failures allowed), so ``if not result:`` is "the run failed" -- not "no
        results", which the length alone would say."""
        return self.exit_code == 0

    def table(self, name: str) -> TableFinished:
        """The line of the table ``name``.

        Raises:
            KeyError: the run has no such table (the message lists the tables it has).
        """
        for t in self.tables:
            if t.table == name:
                return t
        names = ", ".join(repr(t.table) for t in self.tables) or "none"
        raise KeyError(f"no table {name!r} in this run (its tables: {names})")

    def failures(self) -> tuple[RuleResult, ...]:
        """Results of severity ``fail`` (failed rules whose failure is an error)."""
        return tuple(r for r in self.results if r.severity == "fail")

    def warnings(self) -> tuple[RuleResult, ...]:
        """Results of severity ``warn`` (a metric's own warn threshold, or a failed rule
        of level warn)."""
        return tuple(r for r in self.results if r.severity == "warn")

    def errors(self) -> tuple[RuleResult, ...]:
        """Results of rules that could not be evaluated (severity ``error``)."""
        return tuple(r for r in self.results if r.severity == "error")

    def blocking(self) -> tuple[RuleResult, ...]:
        """Failed results that fail the run (the reason of exit code 1)."""
        return tuple(r for r in self.results if r.blocking)

    def raise_for_failures(self) -> Result:
        """Raise unless the run's exit code is 0; else return the result itself.

        Raises:
            SparkFailure: a rule or table could not be evaluated, or a report could not
                be written (exit code 3); the message names each table's error.
            ChecksFailed: failed rules fail the run (exit code 1); ``.failures`` lists
                them, and so does the message.
        """
        if self.exit_code == 3:
            errors = [f"table {t.table}: {t.error}" for t in self.tables if t.error]
            failed = {t.table for t in self.tables if t.error}
            errors += [
                f"table {r.table}: {r.rule_type} ({r.origin.path}): {r.message}"
                for r in self.errors()
                if r.table not in failed
            ]
            errors += [f"report: {p}" for p in self.report_problems]
            raise SparkFailure("\n".join([self.exit_reason, *errors]))
        if self.exit_code != 0:
            raise ChecksFailed(self.blocking())
        return self

    def to_dicts(self) -> list[dict[str, Any]]:
        """Every event as the JSON object of its line."""
        return [e.to_dict() for e in self.events]

    def to_json_lines(self) -> str:
        """Every event as ``assay run`` prints it: one JSON object per line."""
        return b"".join(json_line(d) for d in self.to_dicts()).decode()


@dataclass
class _Done:
    result: Result | None = None
    error: BaseException | None = None


@dataclass
class ResultStream:
    """Rule results as each table finishes, while the run goes on in a worker thread.

    Iterate it for the results; :attr:`result` is the whole :class:`Result` (it waits for
    the run, consuming what was not iterated). An exception of the run (a config error,
    a server that cannot be reached) is raised by the iteration or by :attr:`result`.
    """

    _start: Callable[[Callable[[Event], None]], Result] = field(repr=False)
    _queue: queue.Queue[RuleResult | _Done] = field(default_factory=queue.Queue, repr=False)
    _done: _Done | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        thread = threading.Thread(target=self._work, name="assay-run", daemon=True)
        self._thread = thread
        thread.start()

    def _work(self) -> None:
        def sink(event: Event) -> None:
            if isinstance(event, RuleResult):
                self._queue.put(event)

        try:
            self._queue.put(_Done(result=self._start(sink)))
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            self._queue.put(_Done(error=error))

    def __iter__(self) -> Iterator[RuleResult]:
        return self

    def __next__(self) -> RuleResult:
        if self._done is None:
            item = self._queue.get()
            if isinstance(item, RuleResult):
                return item
            self._done = item
            self._thread.join()
        if self._done.error is not None:
            error, self._done.error = self._done.error, None
            raise error
        raise StopIteration

    @property
    def result(self) -> Result:
        """The run's :class:`Result`, once it has finished."""
        for _ in self:
            pass
        assert self._done is not None
        if self._done.result is None:
            raise AssayError("the run failed (its error was raised by the iteration)")
        return self._done.result
