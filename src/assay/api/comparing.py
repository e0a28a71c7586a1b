"""Dataset comparison from Python: ``assay.compare(source_df, target_df, keys=[...])``,
and spark-data-test's entry points with their signatures, so its users replace one import
(docs/compare.md).

Importing this module is cheap: pyspark is imported when a function runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from assay.ir.compare import DatasetComparison, FrameRef, NumericTolerance
from assay.ir.origin import Origin


def _node(value: Any, origin: Origin) -> Any:
    from assay.config.node import Node

    if isinstance(value, Mapping):
        return Node({str(k): _node(v, origin.child(str(k))) for k, v in value.items()}, origin)
    if isinstance(value, (list, tuple)):
        return Node([_node(v, origin.child(i)) for i, v in enumerate(value)], origin)
    return Node(value, origin)


def compare(
    source_df: Any,
    target_df: Any,
    keys: Sequence[str],
    *,
    columns: Sequence[str] | None = None,
    select_cols: Sequence[str] | None = None,
    drop_cols: Sequence[str] = (),
    source_filter: str | None = None,
    target_filter: str | None = None,
    tolerance: float = 0.0,
    relative_tolerance: float = 0.0,
    column_tolerance: Mapping[str, float | Mapping[str, float]] | None = None,
    ignore_case: bool = False,
    ignore_whitespace: bool = False,
    checks: Mapping[str, str | Mapping[str, str]] | None = None,
    sample_size: int = 5,
    name: str = "compare",
) -> Any:
    """Compare ``target_df`` with ``source_df`` by ``keys`` (Spark Connect DataFrames):
    the :class:`~assay.report.comparison.ComparisonResult` of one aggregate plan (plus
    one samples plan when rows differ). ``checks`` as in a config's ``compare`` entry
    (``{"mismatch_percent(price)": "< 0.1%"}``); without, every row must match and every
    source column be in the target. ``*_filter``: Spark SQL predicates on a side's rows.

    Raises:
        ConfigError: a key, column or check is wrong.
    """
    from assay.dialects.compare import column_tolerances, compare_checks
    from assay.executor.compare import prepare_all, run_comparison
    from assay.ir.suite import RunPolicy

    origin = Origin("<python>", "compare")
    found = compare_checks(_node(dict(checks), origin.child("checks"))) if checks else ()
    per_column = column_tolerance and column_tolerances(
        _node(dict(column_tolerance), origin.child("column_tolerance"))
    )
    comparison = DatasetComparison(
        name=name,
        source=FrameRef("source_df"),
        target=FrameRef("target_df"),
        keys=tuple(keys),
        origin=origin,
        columns=tuple(columns) if columns is not None else None,
        select_cols=tuple(select_cols) if select_cols is not None else None,
        drop_cols=tuple(drop_cols),
        source_filter=source_filter,
        target_filter=target_filter,
        tolerance=NumericTolerance(Decimal(str(tolerance)), Decimal(str(relative_tolerance))),
        column_tolerances=per_column or (),
        ignore_case=ignore_case,
        ignore_whitespace=ignore_whitespace,
        checks=found,
        sample_size=sample_size,
    )
    frames = {"source_df": source_df, "target_df": target_df}
    (prepared,) = prepare_all(source_df.sparkSession, [comparison], frames)
    result, _ = run_comparison(prepared, "python", RunPolicy())
    return result


def run_comparison_job(spark: Any, config: Mapping[str, Any] | Any) -> list[Any]:
    """spark-data-test's ``run_comparison_job(spark, config)``: the same four reports,
    with the same values, from its config dict (or its ``ComparisonJobConfig``);
    returns the datasets' comparison events. Relative paths are the working directory's.

    Raises:
        ConfigErrors: the config is wrong.
    """
    from assay.dialects import spark_data_test
    from assay.dialects.base import Context
    from assay.errors import ConfigErrors
    from assay.executor.compare import prepare_all, run_comparisons
    from assay.ir.suite import RunPolicy

    if not isinstance(config, Mapping):
        import dataclasses

        config = dataclasses.asdict(config)
    ctx = Context(file="<python>", base_dir=Path.cwd())
    ctx.attempt(spark_data_test.build, _node(dict(config), Origin("<python>")), ctx)
    if ctx.errors:
        raise ConfigErrors(ctx.errors)
    results: list[Any] = []
    prepared = prepare_all(spark, ctx.comparisons)
    run_comparisons(spark, prepared, "python", results.append, RunPolicy())
    return results


def run_comparison_job_from_dfs(
    spark: Any,
    job_name: str,
    source_df: Any,
    target_df: Any,
    params: Mapping[str, Any] | Any,
    output_config: Mapping[str, Any] | Any,
) -> Any:
    """spark-data-test's ``run_comparison_job_from_dfs``: one dataset, given as frames."""
    import dataclasses

    from assay.dialects import spark_data_test
    from assay.dialects.base import Context
    from assay.errors import ConfigErrors
    from assay.executor.compare import prepare_all, run_comparisons
    from assay.ir.suite import RunPolicy

    as_dict = lambda v: dict(v) if isinstance(v, Mapping) else dataclasses.asdict(v)  # noqa: E731
    config = {
        "job_name": job_name,
        "dataset_configs": [
            {
                "params": as_dict(params),
                "source_config": {"path": "<source_df>"},
                "target_config": {"path": "<target_df>"},
            }
        ],
        "output_config": as_dict(output_config),
    }
    ctx = Context(file="<python>", base_dir=Path.cwd())
    ctx.attempt(spark_data_test.build, _node(config, Origin("<python>")), ctx)
    if ctx.errors:
        raise ConfigErrors(ctx.errors)
    comparison = dataclasses.replace(
        ctx.comparisons[0], source=FrameRef("source_df"), target=FrameRef("target_df")
    )
    results: list[Any] = []
    frames = {"source_df": source_df, "target_df": target_df}
    prepared = prepare_all(spark, [comparison], frames)
    run_comparisons(spark, prepared, "python", results.append, RunPolicy())
    return results[0]
