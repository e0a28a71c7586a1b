"""Reading the sources a table's rules reference (``references``), before any scan.

Each referenced source is read once (an analysis RPC: its schema), its key columns are
checked against that schema (a missing one is a config error at the rule's
``references`` line), and a source that cannot be read is that rule's error alone: the
rest of the table still runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyspark.sql.connect.session import SparkSession

from assay.config.node import unknown_message
from assay.errors import ConfigError
from assay.executor import frames as bound
from assay.executor.spark_errors import spark_message
from assay.ir.references import Reference
from assay.ir.rules import Rule
from assay.ir.sources import Source
from assay.ir.suite import Table
from assay.planner.sqltext import render_source

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class ReadReferences:
    """The referenced sources read (by source), the rules whose source could not be
    read (rule index -> why), and the config errors of the rules' key columns."""

    frames: dict[Source, DataFrame] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    problems: tuple[ConfigError, ...] = ()


def read_references(spark: SparkSession, table: Table) -> ReadReferences:
    """Every source the table's rules reference, read and checked (analysis RPCs only)."""
    frames: dict[Source, DataFrame] = {}
    schemas: dict[Source, list[str]] = {}
    unreadable: dict[Source, str] = {}
    failed: dict[int, str] = {}
    problems: list[ConfigError] = []
    for index, rule in enumerate(table.rules):
        ref = rule.reference
        if ref is None:
            continue
        if ref.source not in frames and ref.source not in unreadable:
            try:
                df = bound.source_frame(spark, ref.source, None)
                schemas[ref.source] = [f.name for f in df.schema.fields]
                frames[ref.source] = df
            except Exception as exc:  # noqa: BLE001 - the rule's error, reported as it is
                unreadable[ref.source] = spark_message(exc, 3)
        if ref.source in unreadable:
            what = render_source(ref.source)
            failed[index] = f"cannot read the referenced source ({what}): {unreadable[ref.source]}"
            continue
        problems += _column_problems(rule, ref, schemas[ref.source])
    return ReadReferences(frames, failed, tuple(problems))


def _column_problems(rule: Rule, ref: Reference, names: list[str]) -> list[ConfigError]:
    """The key columns the referenced source lacks (as Spark resolves names: any case)."""
    known = {n.lower() for n in names}
    return [
        ConfigError(
            f"{rule.kind}: the referenced source ({render_source(ref.source)}) has no such"
            f" column: {unknown_message('column', column, names)}",
            origin=rule.place("references"),
        )
        for column in ref.columns
        if column.lower() not in known
    ]
