"""Where a table's rows come from: a catalog table, files, a SQL query, or a DataFrame
the caller hands over."""

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


@dataclass(frozen=True, slots=True)
class DataFrameSource:
    """A DataFrame the caller hands over when the suite runs (``assay.validate``): the
    IR holds only its name, the run binds it (:mod:`assay.executor.frames`), so the IR
    stays free of pyspark and a suite can be planned and explained without it.

    SQL rules read it as ``_validation_df`` through :attr:`sql_name`, which the run binds
    to the DataFrame's plan (no temp view).
    """

    name: str
    """An identifier (letters, digits, ``_``), unique within the run."""

    @property
    def sql_name(self) -> str:
        """The name SQL text uses for the DataFrame until the run binds it."""
        return f"_assay_frame_{self.name}"


Source = CatalogSource | PathSource | SqlSource | DataFrameSource
