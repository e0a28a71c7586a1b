"""The metrics store of a run, from its config and options, and the store read back
(docs/monitoring.md). Nothing here needs Spark but :func:`history` of a table store."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from assay.errors import ConfigError, ConfigErrors
from assay.ir.monitoring import MetricsStore, Monitoring
from assay.ir.rules import Rule
from assay.ir.suite import Suite
from assay.monitoring.records import parse_time
from assay.monitoring.series import watched
from assay.options import RunOptions
from assay.planner.incremental import refusals

if TYPE_CHECKING:
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.session import SparkSession


def monitoring_of(suite: Suite, options: RunOptions) -> Monitoring | None:
    """The run's metrics store: the command line's (``--metrics`` or ``--metrics-table``)
    or the config's, with the config's tags and the command line's (winning). Raises the
    rules an incremental table cannot merge (docs/incremental.md) first: ``assay check``
    and a run say them before any Spark work."""
    if options.metrics and options.metrics_table:
        raise ConfigErrors([ConfigError("give --metrics (a file) or --metrics-table, not both")])
    refused = [ConfigError(said, origin, hint=hint) for table in suite.tables
               for said, origin, hint in refusals(table)]  # fmt: skip
    if refused:  # rules an incremental table cannot merge: before any Spark work (and check)
        raise ConfigErrors(refused)
    found = suite.monitoring
    if options.metrics:
        found = Monitoring(MetricsStore("file", os.path.abspath(options.metrics)))
    elif options.metrics_table:
        found = Monitoring(MetricsStore("table", options.metrics_table))
    if found is None:
        if options.tags or options.run_time:
            said = "--tag" if options.tags else "--run-time"
            raise ConfigErrors([ConfigError(f"{said} needs a metrics store (--metrics)")])
        unstored = [_without_store(rule) for table in suite.tables for rule in table.rules
                    if watched(rule)]  # fmt: skip
        unstored += [ConfigError(
            "incremental: the table's partitions' states live in the metrics store, and this"
            " run has none", table.incremental.origin,
            hint="add 'metrics: {path: metrics.jsonl}' (or {table: NAME}) to the config, or"
            " give --metrics FILE / --metrics-table NAME")
            for table in suite.tables if table.incremental is not None]  # fmt: skip
        if unstored:
            raise ConfigErrors(unstored)
        return None
    tags = {**dict(suite.monitoring.tags if suite.monitoring else ()), **options.tags}
    if options.run_time is not None:
        try:
            parse_time(options.run_time)
        except ValueError:
            raise ConfigErrors([ConfigError(
                f"--run-time: '{options.run_time}' is not an ISO 8601 time"
                " (e.g. 2024-01-31T06:00:00Z)")]) from None  # fmt: skip
    return Monitoring(found.store, tuple(sorted(tags.items())), options.run_time, options.full)


def _without_store(rule: Rule) -> ConfigError:
    """A rule judged over time in a run that has no metrics store to read its history
    from: it would pass, unjudged, run after run."""
    over = rule.over_time
    key = rule.kind if over is None else "change" if over.change is not None else "anomaly"
    return ConfigError(
        f"{key}: judged over time, the rule needs a metrics store to read its history"
        " from, and this run has none (it would pass unjudged run after run)",
        rule.origin,
        hint="add 'metrics: {path: metrics.jsonl}' (or {table: NAME}) to the config, or"
        " give --metrics FILE / --metrics-table NAME (metrics= / metrics_table= in Python)",
    )


def history(
    metrics: str | None = None,
    *,
    metrics_table: str | None = None,
    spark: SparkSession | None = None,
) -> DataFrame:
    """The metrics store as a DataFrame of its columns (docs/monitoring.md#the-store):
    ``metrics``, a JSON-lines file (its rows sent to ``spark``), or ``metrics_table``, a
    catalog table read by ``spark``.

    Raises:
        ConfigErrors: neither or both stores given, or no session.
    """
    from assay.executor.metrics import read_all

    if (metrics is None) == (metrics_table is None):
        raise ConfigErrors([ConfigError("give metrics (a file) or metrics_table, one of them")])
    if spark is None:
        raise ConfigErrors([ConfigError("a session is needed: assay.history(..., spark=...)")])
    if metrics is not None:
        return read_all(spark, MetricsStore("file", os.path.abspath(metrics)))
    return read_all(spark, MetricsStore("table", str(metrics_table)))
