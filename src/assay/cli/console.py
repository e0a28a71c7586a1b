"""The CLI's console: stdout carries JSON lines only, stderr everything a person reads, and
every failure becomes its documented exit code without a traceback."""

from __future__ import annotations

import contextlib
import re
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer

from assay.errors import AssayError, EnvironmentFailure
from assay.report.jsonl import json_line
from assay.version import __version__

T = TypeVar("T")


def err(line: str) -> None:
    sys.stderr.write(line.rstrip("\n") + "\n")
    sys.stderr.flush()


def out(obj: dict[str, object]) -> None:
    sys.stdout.buffer.write(json_line(obj))
    sys.stdout.buffer.flush()


_PLACED = re.compile(r"(<command line>|\S+:\d+) \S+: ")
"""An error that starts with its place: ``checks.yaml:8 tables[1].source: ...``."""


def said_error(event: object, debug: bool) -> None:
    """The error of a table or comparison event on stderr, where a person reads it (with
    Spark's own words under ``--debug``); other events say nothing here."""
    from assay.report.comparison import ComparisonResult
    from assay.report.events import TableFinished

    if isinstance(event, TableFinished):
        what = f"table {event.table}"
    elif isinstance(event, ComparisonResult):
        what = f"comparison {event.comparison}"
    else:
        return
    if event.error is None:
        return
    if _PLACED.match(event.error):  # the error names its own place (the table's source)
        err(f"error: {event.error}")
    else:
        said = event.error if event.error.startswith(f"{what}:") else f"{what}: {event.error}"
        err(f"error: {event.origin}: {said}")
    if debug and event.detail:
        err(event.detail)


class RunStream:
    """What ``assay run`` and ``assay compare`` write: each event's JSON line on stdout
    (its error on stderr), and, when the run stops before its own summary (the server
    unreachable, an internal error, Ctrl-C, SIGTERM), a summary of what finished
    (:func:`stopped_summary`), so that stdout always ends with one."""

    def __init__(self, debug: bool) -> None:
        import datetime as dt
        import time

        from assay.report.jsonl import JsonLinesSink

        self._write = JsonLinesSink()
        self._debug = debug
        self._started = time.monotonic()
        self._started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")
        self._finished: list[Any] = []
        self._summarised = False
        self.why: str | None = None
        """Why the run stopped, as stderr said it."""

    def __call__(self, event: Any) -> None:
        from assay.cli.collector import resume
        from assay.report.comparison import ComparisonResult
        from assay.report.events import RunSummary, TableFinished

        resume()  # the start is over (assay.cli.collector)
        self._write(event)
        said_error(event, self._debug)
        if isinstance(event, RunSummary):
            self._summarised = True
        elif isinstance(event, (TableFinished, ComparisonResult)):
            self._finished.append(event)

    def watching(self, action: Callable[[], T]) -> T:
        """``action()``, remembering in words why it raised (then re-raised)."""
        try:
            return action()
        except typer.Exit:
            raise
        except KeyboardInterrupt as stop:
            self.why = stopped_by(stop)
            raise
        except AssayError as error:
            self.why = error.message
            raise
        except Exception as error:
            self.why = f"internal error: {type(error).__name__}: {error}"
            raise

    def stopped(self, code: int) -> None:
        """The summary of a run that ended with ``code`` before writing its own (none
        after a config mistake, exit 2: nothing ran)."""
        import time

        if self._summarised or code not in (3, SIGINT_EXIT, SIGTERM_EXIT):
            return
        elapsed = int((time.monotonic() - self._started) * 1000)
        why = self.why or f"exit {code}"
        self(stopped_summary(self._finished, code, why, elapsed, self._started_at))


def stopped_summary(
    finished: list[Any], code: int, why: str, elapsed_ms: int, started_at: str | None = None
) -> Any:
    """The summary of a run stopped early (exit ``code``: 3, 130 or 143) for ``why``:
    the totals of the tables and comparisons reported before (a table the stop cut short
    is reported, as an error, when its plan was interrupted).

    >>> s = stopped_summary([], 143, "terminated (SIGTERM)", 5).to_dict()
    >>> s["status"], s["exit_code"], s["stopped"], s["tables"]
    ('ERROR', 143, 'SIGTERM', 0)
    >>> s["exit_reason"]
    'exit 143: terminated (SIGTERM) before any table was reported'
    """
    import uuid

    from assay.report.comparison import ComparisonResult
    from assay.report.events import RunSummary, TableFinished

    tables = [e for e in finished if isinstance(e, TableFinished)]
    compared = [e for e in finished if isinstance(e, ComparisonResult)]
    done = len(tables) + len(compared)
    noun = "table or comparison" if done == 1 else "tables and comparisons"
    after = f"with {done} {noun} reported" if done else "before any table was reported"
    signal = {SIGINT_EXIT: "SIGINT", SIGTERM_EXIT: "SIGTERM"}.get(code, "error")
    ids = [e.run_id for e in finished]
    return RunSummary(
        run_id=ids[0] if ids else uuid.uuid4().hex[:12],
        tables=len(tables),
        rules=sum(t.rules for t in tables),
        failed=sum(t.failed for t in tables) + sum(c.severity == "fail" for c in compared),
        warned=sum(t.warned for t in tables) + sum(c.severity == "warn" for c in compared),
        errors=sum(t.errors for t in tables) + sum(c.severity == "error" for c in compared),
        spark_plans=sum(e.spark_plans for e in finished),
        elapsed_ms=elapsed_ms,
        exit_code=code,
        failed_tables=tuple(t.table for t in tables if not t.passed),
        blocking=sum(t.blocking for t in tables) + sum(c.blocking for c in compared),
        exit_reason=f"exit {code}: {why.splitlines()[0] if why else why} {after}",
        comparisons=len(compared),
        failed_comparisons=tuple(c.comparison for c in compared if not c.passed),
        started_at=started_at,
        assay_version=__version__,
        stopped=signal,
    )


def summarised(debug: bool, action: Callable[[RunStream], T]) -> T:
    """:func:`guarded` for a command that runs a suite: ``action`` streams its events
    to the :class:`RunStream` it is given, which ends stdout with a summary however the
    run ends."""
    stream = RunStream(debug)
    try:
        return guarded(debug, lambda: stream.watching(lambda: action(stream)))
    except typer.Exit as exit_:
        stream.stopped(exit_.exit_code)
        raise


def fail(error: AssayError) -> NoReturn:
    label = "config error" if error.exit_code == 2 else "error"
    for line in str(error).splitlines() or [error.message]:
        err(f"{label}: {line}" if not line.startswith(" ") else line)
    raise typer.Exit(error.exit_code)


def guarded(debug: bool, action: Callable[[], T]) -> T:
    """Run ``action``; AssayError -> its exit code, anything else -> exit 3 (no traceback
    unless --debug)."""
    try:
        return action()
    except AssayError as error:
        fail(error)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "pyspark":
            raise
        fail(
            EnvironmentFailure(
                "pyspark is not installed, so there is no Spark client to run with",
                hint="pip install 'spark-assay[embedded]' (a local Spark server) or "
                "'spark-assay[remote]' (the thin client, with --remote sc://host:15002)",
            )
        )
    except KeyboardInterrupt as stop:
        err(stopped_by(stop))
        raise typer.Exit(exit_code_of(stop)) from None
    except BrokenPipeError:
        stdout_closed()
    except typer.Exit:
        raise
    except Exception as error:  # noqa: BLE001 - the boundary: never a raw traceback
        if debug:
            traceback.print_exc(file=sys.stderr)
        err(f"internal error: {type(error).__name__}: {error}")
        err("  hint: rerun with --debug for the traceback, and report it")
        raise typer.Exit(3) from None


class Terminated(KeyboardInterrupt):
    """SIGTERM (what ``timeout`` and schedulers send), raised in the main thread as Ctrl-C's
    ``KeyboardInterrupt`` is, so that it takes the same road: the running Spark operations
    interrupted, the session released, the summary written; exit 143."""


SIGINT_EXIT, SIGTERM_EXIT = 130, 143
"""128 + the signal's number, what a shell reports for a program the signal ended."""


def exit_code_of(stop: KeyboardInterrupt) -> int:
    return SIGTERM_EXIT if isinstance(stop, Terminated) else SIGINT_EXIT


def stopped_by(stop: KeyboardInterrupt) -> str:
    """What stopped the command, in words (stderr, the summary's ``exit_reason``)."""
    return "terminated (SIGTERM)" if isinstance(stop, Terminated) else "interrupted (SIGINT)"


def on_sigterm() -> None:
    """From now on the first SIGTERM raises :class:`Terminated` in the main thread (a
    second one ends the process at once, as a signal's default does)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def terminated(signum: int, _frame: object) -> None:
        signal.signal(signum, signal.SIG_DFL)
        raise Terminated

    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGTERM, terminated)


BROKEN_PIPE_EXIT = 141
"""The exit code when the reader of stdout went away (``assay explain c.yaml | head``):
128 + SIGPIPE, what a shell reports for a program the signal ended."""


def stdout_closed() -> NoReturn:
    """The reader of stdout closed it: stop quietly (no traceback, no message), with
    stdout pointed at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    raise typer.Exit(BROKEN_PIPE_EXIT)
