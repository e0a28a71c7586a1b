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
from assay.ir.references import ForeignKeyCheck, Reference
from assay.ir.rules import Rule
from assay.ir.sources import Source
from assay.ir.suite import Table
from assay.judge.preflight import Schema, family_of
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


def read_references(spark: SparkSession, table: Table, schema: Schema = ()) -> ReadReferences:
    """Every source the table's rules reference, read and checked (analysis RPCs only):
    its key columns exist, and compare with the table's (``schema``: the table's
    columns and Spark types)."""
    frames: dict[Source, DataFrame] = {}
    schemas: dict[Source, list[tuple[str, str]]] = {}
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
                schemas[ref.source] = [
                    (f.name, f.dataType.simpleString()) for f in df.schema.fields
                ]
                frames[ref.source] = df
            except Exception as exc:  # noqa: BLE001 - the rule's error, reported as it is
                unreadable[ref.source] = spark_message(exc, 3)
        if ref.source in unreadable:
            what = render_source(ref.source)
            failed[index] = f"cannot read the referenced source ({what}): {unreadable[ref.source]}"
            continue
        missing = _column_problems(rule, ref, [n for n, _ in schemas[ref.source]])
        problems += missing or _type_problems(rule, schema, schemas[ref.source])
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


COMPARED_FAMILIES = ("numeric", "string", "temporal", "boolean")
"""The kinds of Spark types a foreign key compares with each other: any two numbers
(integers, decimals, floating point), any two strings, dates and timestamps, booleans."""


def comparable(ours: str, theirs: str) -> bool:
    """Whether a key column of type ``ours`` can be matched with a referenced column of
    type ``theirs`` by Spark's ``=`` without a cast that fails at run time: the same
    type, a NULL column (``void``), or both of one family of :data:`COMPARED_FAMILIES`.
    A string against a number, a date or a boolean is not: Spark's ANSI mode casts the
    string, and the first one that is not such a value fails the whole plan.

    >>> comparable("int", "decimal(10,2)"), comparable("date", "timestamp")
    (True, True)
    >>> comparable("bigint", "string"), comparable("string", "date")
    (False, False)
    """
    a, b = ours.lower().strip(), theirs.lower().strip()
    if a == b or "void" in (a, b):
        return True
    for family in COMPARED_FAMILIES:
        if family in family_of(a):
            return family in family_of(b)
    return False


def _type_problems(
    rule: Rule, schema: Schema, referenced: list[tuple[str, str]]
) -> list[ConfigError]:
    """The key columns whose type cannot be compared with their referenced column's."""
    check = rule.check
    if not isinstance(check, ForeignKeyCheck) or not schema:
        return []
    ours = {n.lower(): t for n, t in schema}
    theirs = {n.lower(): t for n, t in referenced}
    ref = check.lookup.reference
    placed = dict(rule.places)
    where = placed.get("references.columns") or placed.get("references.column")
    where = where or rule.place("references")
    return [
        ConfigError(
            f"{rule.kind}: {column} ({ours[column.lower()]}) cannot be compared with the"
            f" referenced column {other} ({theirs[other.lower()]}) of"
            f" {render_source(ref.source)}: {_why(ours[column.lower()], theirs[other.lower()])}",
            origin=where,
        )
        for column, other in zip(check.lookup.columns, ref.columns, strict=True)
        if column.lower() in ours and not comparable(ours[column.lower()], theirs[other.lower()])
    ]


def _why(ours: str, theirs: str) -> str:
    strings = [t for t in (ours, theirs) if "string" in family_of(t)]
    if len(strings) == 1:
        other = family_of(theirs if strings[0] == ours else ours)
        what = next((w for f, w in _WORDS.items() if f in other), "that type")
        return (
            f"Spark would cast each string to {what} and fail the plan on the first that is"
            " not one; give both sides one kind of type (a `sql:` reference can CAST its key)"
        )
    return "Spark has no comparison between them; give both sides one kind of type"


_WORDS = {"numeric": "a number", "temporal": "a date or timestamp", "boolean": "a boolean"}
