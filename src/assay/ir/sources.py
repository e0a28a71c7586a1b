"""Where a table's rows come from: a catalog table, files, or a SQL query."""

from __future__ import annotations

from dataclasses import dataclass


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
