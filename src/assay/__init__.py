"""spark-assay: data-quality checks compiled into one Spark plan per table.

Importing ``assay`` is cheap: nothing here imports pyspark, lark or orjson.
"""

from __future__ import annotations

__version__ = "0.1.0"


def register_rule(name, builder, **options):  # type: ignore[no-untyped-def]
    """Register a custom rule type: see :func:`assay.plugins.register_rule`."""
    from assay.plugins import register_rule as register

    register(name, builder, **options)


from assay.comparing import compare, run_comparison_job, run_comparison_job_from_dfs  # noqa: E402, F401
