"""The CLI's console: stdout carries JSON lines only, stderr everything a person reads, and
every failure becomes its documented exit code without a traceback."""

from __future__ import annotations

import contextlib
import functools
import re
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer

from assay.errors import AssayError, EnvironmentFailure
from assay.report.jsonl import json_line

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


def streamed(debug: bool) -> Callable[[Any], None]:
    """What ``assay run`` does with each event: its JSON line on stdout, its error (if
    any) on stderr (:func:`said_error`)."""
    from assay.report.jsonl import JsonLinesSink

    return functools.partial(_stream, JsonLinesSink(), debug)


def _stream(stdout: Callable[[Any], None], debug: bool, event: Any) -> None:
    stdout(event)
    said_error(event, debug)


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
    except KeyboardInterrupt:
        err("interrupted")
        raise typer.Exit(130) from None
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
