"""spark-assay: data-quality checks compiled into one Spark plan per table.

The Python API (docs/api.md)::

    import assay

    result = assay.validate(df, [{"type": "not_null", "column": "id"}], keys=["id"])
    for failed in (r for r in result if not r.passed):
        print(failed.rule_type, failed.message)

``assay.session()`` is a Spark Connect session on an embedded local server (stopped
with the session); ``assay.compare(source_df, target_df, keys=[...])`` compares two
DataFrames by key; ``assay.history(metrics=...)`` is the metrics store as a DataFrame.

Importing ``assay`` is cheap: nothing here imports pyspark, lark or orjson; each name
below is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.version import __version__ as __version__

if TYPE_CHECKING:
    from assay.api import (
        Result,
        ResultStream,
        explain,
        history,
        iter_run,
        iter_validate,
        load,
        profile,
        rules_suite,
        run,
        session,
        validate,
    )
    from assay.api.comparing import compare, run_comparison_job, run_comparison_job_from_dfs
    from assay.api.converting import convert
    from assay.dialects.validator_functions import (
        ValidatorResult,
        register_validator,
        unregister_validator,
    )
    from assay.errors import (
        AssayError,
        ChecksFailed,
        ConfigError,
        ConfigErrors,
        SparkFailure,
        UnsupportedSession,
    )
    from assay.report.events import RuleResult, RunSummary, TableFinished

_LAZY = {
    "Result": "assay.api",
    "ResultStream": "assay.api",
    "explain": "assay.api",
    "history": "assay.api",
    "iter_run": "assay.api",
    "iter_validate": "assay.api",
    "load": "assay.api",
    "profile": "assay.api",
    "rules_suite": "assay.api",
    "run": "assay.api",
    "session": "assay.api",
    "validate": "assay.api",
    "compare": "assay.api.comparing",
    "convert": "assay.api.converting",
    "run_comparison_job": "assay.api.comparing",
    "run_comparison_job_from_dfs": "assay.api.comparing",
    "AssayError": "assay.errors",
    "ChecksFailed": "assay.errors",
    "ConfigError": "assay.errors",
    "ConfigErrors": "assay.errors",
    "SparkFailure": "assay.errors",
    "UnsupportedSession": "assay.errors",
    "RuleResult": "assay.report.events",
    "RunSummary": "assay.report.events",
    "TableFinished": "assay.report.events",
    "ValidatorResult": "assay.dialects.validator_functions",
    "register_validator": "assay.dialects.validator_functions",
    "unregister_validator": "assay.dialects.validator_functions",
}

__all__ = [
    "AssayError",
    "ChecksFailed",
    "ConfigError",
    "ConfigErrors",
    "Result",
    "ResultStream",
    "RuleResult",
    "RunSummary",
    "SparkFailure",
    "TableFinished",
    "UnsupportedSession",
    "ValidatorResult",
    "compare",
    "convert",
    "explain",
    "history",
    "iter_run",
    "iter_validate",
    "load",
    "profile",
    "register_rule",
    "register_validator",
    "rules_suite",
    "run",
    "run_comparison_job",
    "run_comparison_job_from_dfs",
    "session",
    "unregister_validator",
    "validate",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


def register_rule(name, builder, **options):  # type: ignore[no-untyped-def]
    """Register a custom rule type: see :func:`assay.dialects.plugins.register_rule`."""
    from assay.dialects.plugins import register_rule as register

    register(name, builder, **options)
