"""Suites and tables: where the data comes from and which rules apply to it."""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.origin import Origin
from assay.ir.rules import Rule


@dataclass(frozen=True, slots=True)
class CatalogSource:
    """A table or view in the session's catalog (``db.table``)."""

    table: str


@dataclass(frozen=True, slots=True)
class PathSource:
    """Files read with ``spark.read.format(format).options(...).load(paths)``.

    ``paths`` may be empty for formats that need none (data-validator ``loadData`` omitted).
    """

    format: str
    paths: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SqlSource:
    """The result of a SQL query."""

    query: str


Source = CatalogSource | PathSource | SqlSource

DEFAULT_SAMPLE_SIZE = 5


@dataclass(frozen=True, slots=True)
class Table:
    """A table to validate: source, optional row filter (a SQL predicate), key columns
    identifying a row in sample output, and its rules in config order.

    ``key_count`` takes the first N columns of the schema as keys when ``keys`` is empty
    (data-validator ``numKeyCols``). ``sample_size`` bounds sample rows per failed rule;
    ``detail`` turns the detail pass off entirely.
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


@dataclass(frozen=True, slots=True)
class Suite:
    """Everything one run checks: tables, in config order."""

    tables: tuple[Table, ...]
    files: tuple[str, ...] = ()
