"""Suites and tables: where the data comes from and which rules apply to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.ir.compare import DEFAULT_SAMPLE_SIZE, DatasetComparison, FrameRef
from assay.ir.incremental import Incremental
from assay.ir.monitoring import Monitoring
from assay.ir.origin import Origin
from assay.ir.outputs import DeferredVariable, Output, Report, View
from assay.ir.rules import Rule
from assay.ir.sources import CatalogSource, DataFrameSource, PathSource, Source, SqlSource

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_SAMPLE_SIZE",
    "CatalogSource",
    "DataFrameSource",
    "PathSource",
    "RunPolicy",
    "Source",
    "SqlSource",
    "Suite",
    "Table",
]


@dataclass(frozen=True, slots=True)
class Table:
    """A table to validate: source, optional row filter (a SQL predicate), key columns
    identifying a row in sample output, and its rules in config order.

    ``key_count`` takes the first N columns of the schema as keys when ``keys`` is empty
    (data-validator ``numKeyCols``). ``sample_size`` bounds sample rows per failed rule;
    ``detail`` turns the detail pass off entirely. ``outputs`` are written by Spark after
    the table's verdicts (see :mod:`assay.ir.outputs`), unless one of the rules listed in
    ``hold_outputs`` failed (sparquet ``on_failure: fail``).
    """

    name: str
    source: Source
    rules: tuple[Rule, ...]
    origin: Origin
    filter: str | None = None
    keys: tuple[str, ...] = ()
    key_count: int | None = None
    sample_size: int = DEFAULT_SAMPLE_SIZE
    detail: bool = True
    outputs: tuple[Output, ...] = ()
    hold_outputs: tuple[int, ...] = ()
    places: tuple[tuple[TableSetting, Origin], ...] = ()
    """Where the table's ``source``, ``filter`` and ``keys`` were written, under the
    dialect's own names (data-validator's ``keyColumns``); see :meth:`place`."""
    incremental: Incremental | None = None
    """Scanned by partitions, their states merged (docs/incremental.md)."""

    def place(self, setting: TableSetting) -> Origin:
        """Where ``setting`` was written: its own line when the dialect recorded it, else
        ``<table>.<setting>`` on the table's line."""
        for name, origin in self.places:
            if name == setting:
                return origin
        return self.origin.child(setting)


TableSetting = Literal["source", "filter", "keys"]


@dataclass(frozen=True, slots=True)
class RunPolicy:
    """What failed rules do to the run as a whole. Under ``fail`` (the default) a failed
    rule that blocks (:attr:`Rule.blocks`) makes the run exit 1; under ``warn`` none does:
    failures are reported and the run exits 0 (data-validator ``--exitErrorOnFail false``,
    a native config's ``on_failure: warn``). ``said`` is where it was set, as the summary
    line explains the exit code with it."""

    on_failure: Literal["fail", "warn"] = "fail"
    said: str = "the default policy"

    def blocks(self, rule: Rule) -> bool:
        """Whether a failure of ``rule`` fails the run."""
        return self.on_failure == "fail" and rule.blocks

    def waiver(self, rule: Rule) -> str | None:
        """Why a failure of ``rule`` does not fail the run (None when it does)."""
        return rule.waiver or (None if self.on_failure == "fail" else self.said)


DEFAULT_POLICY = RunPolicy()


@dataclass(frozen=True, slots=True)
class Suite:
    """Everything one run checks: tables, in config order.

    The dialects may add: ``views`` to create before any table is read, ``deferred``
    variables to resolve once a session is open (the tables were then built with
    placeholders and are rebuilt), client-side ``reports``, and ``dialects`` (the dialect
    of each file, in file order). ``unresolved_rules`` counts rules left out because they
    use a deferred variable (``assay check``). ``policy`` decides which failures fail the
    run.
    """

    tables: tuple[Table, ...]
    files: tuple[str, ...] = ()
    views: tuple[View, ...] = ()
    deferred: tuple[DeferredVariable, ...] = ()
    reports: tuple[Report, ...] = ()
    dialects: tuple[str, ...] = ()
    unresolved_rules: int = 0
    policy: RunPolicy = DEFAULT_POLICY
    comparisons: tuple[DatasetComparison, ...] = ()
    """Dataset comparisons (native ``compare`` entries, spark-data-test jobs)."""
    monitoring: Monitoring | None = None
    """The metrics store a native file names (``metrics``); the command line's wins."""

    def sources(self) -> tuple[Source, ...]:
        """Every source the run reads, once each, in config order: views, tables, the
        sources their rules reference, and the comparisons' sides (a caller's DataFrame
        included; SQL text is not read for the tables it names)."""
        found: dict[Source, None] = {}
        for view in self.views:
            found[view.source] = None
        for table in self.tables:
            found[table.source] = None
            for rule in table.rules:
                if rule.reference is not None:
                    found[rule.reference.source] = None
        for comparison in self.comparisons:
            for side in (comparison.source, comparison.target):
                if not isinstance(side, FrameRef):
                    found[side] = None
        return tuple(found)
