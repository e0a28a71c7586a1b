"""What a run sets up on the session before any table is read: temp views (Metorikku inputs
and steps) and the values of deferred variables (data-validator ``sql`` variables)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal

import sqlglot
from pyspark.sql.connect.session import SparkSession

from assay.emit import spark as emit
from assay.errors import AssayError, ConfigError, VariableError
from assay.executor.spark_errors import condition_of, spark_message, to_assay_error
from assay.ir.outputs import DeferredVariable, View
from assay.ir.sources import CatalogSource, Source, SqlSource


def create_views(spark: SparkSession, views: Sequence[View]) -> dict[str, AssayError]:
    """Create every view in order (each a command that analyzes, never scans); return the
    views that could not be created, by lower-cased name, with why.

    A view fails alone: one that reads a failed view (:func:`blocked_by`) is not tried
    and fails with the first one's error; the others are created. A step whose SQL does
    not analyze fails with a ``ConfigError`` (an unbound input names its fix), an input
    that cannot be read with a ``SparkFailure``.
    """
    failed: dict[str, AssayError] = {}
    for view in views:
        cause = blocked_by(view.source, failed)
        if cause is not None:
            failed[view.name.lower()] = cause
            continue
        try:
            emit.source_frame(spark, view.source, None).createOrReplaceTempView(view.name)
        except Exception as exc:  # noqa: BLE001 - classified below
            failed[view.name.lower()] = _view_error(exc, view)
    return failed


def blocked_by(source: Source, failed: Mapping[str, AssayError]) -> AssayError | None:
    """The error of a failed view that ``source`` reads (its name, or a table its SQL
    names), if any. SQL that does not parse here is tried on Spark, which reports it."""
    if not failed:
        return None
    if isinstance(source, CatalogSource):
        return failed.get(source.table.lower())
    if not isinstance(source, SqlSource):
        return None
    try:
        tree = sqlglot.parse_one(source.query, read="spark")
    except sqlglot.errors.ParseError:
        return None
    for table in tree.find_all(sqlglot.exp.Table):
        if not table.db and table.name.lower() in failed:
            return failed[table.name.lower()]
    return None


def _view_error(exc: Exception, view: View) -> AssayError:
    what = f"step {view.name}" if isinstance(view.source, SqlSource) else f"input {view.name}"
    condition = condition_of(exc) or ""
    if isinstance(view.source, SqlSource) and condition.startswith("TABLE_OR_VIEW_NOT_FOUND"):
        return ConfigError(
            f"{what}: its SQL reads a table that does not exist: {spark_message(exc, 3)}",
            origin=view.origin,
            hint="bind each input table with --input NAME=SOURCE (a catalog table or a "
            "path), or list it under 'inputs' in a job file",
        )
    return to_assay_error(exc, what, view.origin)


def sql_variable(spark: SparkSession):
    """A resolver for data-validator ``sql`` variables: the first column of the first row,
    as text."""

    def query(text: str, var: DeferredVariable) -> str:
        try:
            rows = spark.sql(text).limit(1).collect()
        except Exception as exc:  # noqa: BLE001
            err = to_assay_error(exc, f"variable '{var.name}': the query failed", var.origin)
            raise err from None
        if not rows:
            raise VariableError(
                f"variable '{var.name}': the query returned no row", origin=var.origin
            )
        return _text(rows[0][0], var)

    return query


def _text(value: object, var: DeferredVariable) -> str:
    if value is None:
        raise VariableError(
            f"variable '{var.name}': the query returned NULL",
            origin=var.origin,
            hint="coalesce() it in the query if a default is meant",
        )
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)
