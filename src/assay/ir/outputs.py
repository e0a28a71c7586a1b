"""What a run writes besides its JSON lines, and what it sets up before it: the IR of the
dialects' side effects (no pyspark here).

Table-level **outputs** are written by Spark after a table's verdicts (Metorikku's failed
rows, sparquet's report, row split and ``failed_rows`` sinks). Suite-level **views** are
temp views created before any table is read (Metorikku inputs and steps), **deferred
variables** are resolved once a session is open (data-validator ``sql`` and ``shell``
variables), and **reports** are client-side files, pipes and emails written after the run
(data-validator ``outputs``/``email``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from assay.ir.origin import UNKNOWN, Origin
from assay.ir.sources import Source

WRITE_MODES = ("append", "overwrite", "error", "errorifexists", "ignore")
"""Spark's save modes."""


@dataclass(frozen=True, slots=True)
class Sink:
    """Where Spark writes rows: ``df.write.format(format).options(...).mode(mode)
    .partitionBy(...)`` then ``.save(target)``, or ``.saveAsTable(target)`` when
    ``is_table``. ``mode`` ``None`` is Spark's default (error if the target exists)."""

    format: str
    target: str
    is_table: bool = False
    mode: str | None = None
    partition_by: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    origin: Origin = UNKNOWN


@dataclass(frozen=True, slots=True)
class FailedRows:
    """The rows failing rule ``rule_index`` (Metorikku ``CONFIG_FAILED_DF_PATH_PREFIX``),
    written only when the rule did not pass. For a rule without a row-level reading
    (``has_size``) that is the whole table."""

    rule_index: int
    sink: Sink


@dataclass(frozen=True, slots=True)
class SqlRows:
    """The rows a ``failed_rows`` SQL rule returns, written to ``sink`` (sparquet
    ``output``)."""

    rule_index: int
    query: str
    sink: Sink


@dataclass(frozen=True, slots=True)
class RowSplit:
    """sparquet ``validations.outputs``: rows breaking any of the row-level ``rules`` go to
    ``invalid``, the others to ``valid`` (a copy: the table is not changed)."""

    rules: tuple[int, ...]
    valid: Sink | None
    invalid: Sink | None


@dataclass(frozen=True, slots=True)
class RuleReport:
    """sparquet ``validations.report``: one row per rule of ``rules``; with ``history``, a
    native table's ``history:`` output: the same columns plus ``run_id``, ``table``,
    ``rule_index`` and ``location``, appended per run and never held by ``on_failure``."""

    pipeline: str
    rules: tuple[int, ...]
    sink: Sink
    history: bool = False


Output = FailedRows | SqlRows | RowSplit | RuleReport


# --- suite level ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class View:
    """A temp view created before any table is read, in suite order."""

    name: str
    source: Source
    origin: Origin


@dataclass(frozen=True, slots=True)
class DeferredVariable:
    """A variable resolved only when a run starts: ``sql`` (first column of the first row,
    on the session), ``shell`` (first line of stdout) or ``value`` (a template using one of
    those). ``text`` is as written; ``bindings`` are the values (known when the config was
    read) of the variables it refers to; the others are deferred ones defined before it."""

    name: str
    kind: Literal["sql", "shell", "value"]
    text: str
    origin: Origin
    bindings: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ReportFile:
    """The JSON report written to a local file after the run (``append``: one more line)."""

    path: str
    append: bool
    origin: Origin


@dataclass(frozen=True, slots=True)
class ReportPipe:
    """The JSON report piped to ``/bin/sh -c command`` after the run; ``env`` holds the
    variables the command refers to (passed as environment variables, never spliced into
    the command text)."""

    command: str
    ignore_error: bool
    env: tuple[tuple[str, str], ...]
    origin: Origin


@dataclass(frozen=True, slots=True)
class EmailReport:
    """The HTML report mailed after the run (on failure, or always with email-on-pass)."""

    smtp_host: str
    subject: str
    sender: str
    to: tuple[str, ...]
    cc: tuple[str, ...]
    bcc: tuple[str, ...]
    origin: Origin


Report = ReportFile | ReportPipe | EmailReport


def sinks_of(outputs: Iterable[Output]) -> list[Sink]:
    """Every sink a table's ``outputs`` may write (``explain`` lists them; no Spark)."""
    found: list[Sink] = []
    for output in outputs:
        if isinstance(output, RowSplit):
            found += [s for s in (output.valid, output.invalid) if s is not None]
        else:
            found.append(output.sink)
    return found
