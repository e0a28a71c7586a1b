"""The native ``compare`` entries (docs/compare.md): config nodes -> dataset comparisons.

Each entry is built under :meth:`Context.attempt`, so every error of every entry is
reported in one pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects.base import Context
from assay.errors import ConfigError
from assay.grammar import parse_threshold
from assay.ir.compare import (
    METRICS,
    CompareCheck,
    ComparisonSetting,
    DatasetComparison,
    NumericTolerance,
)
from assay.ir.suite import DEFAULT_SAMPLE_SIZE

ENTRY_KEYS = frozenset(
    {
        "name",
        "source",
        "target",
        "keys",
        "columns",
        "select_cols",
        "drop_cols",
        "source_filter",
        "target_filter",
        "tolerance",
        "column_tolerance",
        "ignore_case",
        "ignore_whitespace",
        "sample_size",
        "on_failure",
        "checks",
    }
)
TOLERANCE_KEYS = frozenset({"absolute", "relative"})
CHECK_KEYS = frozenset({"must_be", "warn"})
PLACES: dict[ComparisonSetting, str] = {
    "keys": "keys",
    "columns": "columns",
    "source.format": "source.format",
    "target.format": "target.format",
    "source_filter": "source_filter",
    "target_filter": "target_filter",
}
"""Where an entry's settings are written (its keys), for the errors that name them."""
_LABEL = re.compile(r"\s*([a-z_]+)\s*(?:\(\s*([^()]+?)\s*\))?\s*")
_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def comparisons(
    node: Node, ctx: Context, sample_size: int, on_failure: str, source_of: Callable
) -> list:
    """The valid comparisons of a ``compare`` list (errors go to ``ctx.errors``);
    ``source_of(entry, ctx)`` reads a side's source as the calling format does."""
    found = []
    for i, item in enumerate(node.as_list("a list of comparisons", non_empty=True)):
        built = ctx.attempt(_entry, item, i, ctx, sample_size, on_failure, source_of)
        if built is not None:
            found.append(built)
    return found


def _entry(
    node: Node, i: int, ctx: Context, sample_size: int, on_failure: str, source_of
) -> DatasetComparison:
    node.as_mapping("a comparison (a mapping with 'source', 'target' and 'keys')")
    node.check_keys(ENTRY_KEYS)
    errors: list[ConfigError] = []

    def attempt(build, *args):
        try:
            return build(*args)
        except ConfigError as e:
            errors.append(e)
            return None

    source = attempt(source_of, node, ctx)
    target_node = node.require("target")
    target = attempt(source_of, Node({"source": target_node}, target_node.origin), ctx)
    keys = attempt(p.column_list, node.require("keys"), "a list of key columns")
    columns = _optional(node, "columns", attempt)
    select_cols = _optional(node, "select_cols", attempt)
    drop = _optional(node, "drop_cols", attempt) or ()
    tolerance = attempt(_tolerance, node.get("tolerance")) if node.get("tolerance") else None
    per_column = _when(node, "column_tolerance", column_tolerances, attempt) or ()
    checks = _when(node, "checks", compare_checks, attempt) or ()
    flags = {k: attempt(_flag, node, k) for k in ("ignore_case", "ignore_whitespace")}
    size, mode = _run_settings(node, sample_size, on_failure, attempt, errors)
    filters = {
        k: attempt(node.require(k).as_str, "a SQL predicate") if node.get(k) else None
        for k in ("source_filter", "target_filter")
    }
    name = attempt(_name, node, i)
    if errors:
        from assay.errors import ConfigErrors

        raise ConfigErrors(errors)
    return DatasetComparison(
        name=name,
        source=source,
        target=target,
        keys=keys,
        origin=node.origin,
        columns=columns,
        select_cols=select_cols,
        drop_cols=drop,
        tolerance=tolerance or NumericTolerance(),
        column_tolerances=per_column,
        ignore_case=bool(flags["ignore_case"]),
        ignore_whitespace=bool(flags["ignore_whitespace"]),
        checks=checks,
        sample_size=size if size is not None else DEFAULT_SAMPLE_SIZE,
        on_failure=mode,  # type: ignore[arg-type]
        source_filter=filters["source_filter"],
        target_filter=filters["target_filter"],
        places=node.places(PLACES),
    )


def _run_settings(
    node: Node, sample_size: int, on_failure: str, attempt, errors: list[ConfigError]
) -> tuple[int | None, str | None]:
    """The entry's ``sample_size`` and ``on_failure``, else the suite's (``None`` for one
    in error, whose error is in ``errors``)."""
    own_sample = node.get("sample_size")
    size = (
        attempt(lambda: own_sample.as_int("a sample size", minimum=0, maximum=1000))
        if own_sample is not None
        else sample_size
    )
    policy = node.get("on_failure")
    mode = attempt(policy.as_str, "'fail' or 'warn'") if policy is not None else on_failure
    if policy is not None and mode not in ("fail", "warn"):
        errors.append(policy.error(f"expected 'fail' or 'warn', got '{mode}'"))
    return size, mode


def _when(node: Node, key: str, build, attempt):
    child = node.get(key)
    return attempt(build, child) if child is not None else None


def _optional(node: Node, key: str, attempt) -> tuple[str, ...] | None:
    child = node.get(key)
    return attempt(p.column_list, child) if child is not None else None


def _flag(node: Node, key: str) -> bool:
    child = node.get(key)
    return child.as_bool() if child is not None else False


def _name(node: Node, i: int) -> str:
    child = node.get("name")
    if child is None:
        return f"compare_{i}"
    name = child.as_str("a comparison name")
    if not _NAME.fullmatch(name):
        raise child.error(
            f"invalid comparison name '{name}': use letters, digits, '_', '.' and '-'"
        )
    return name


def _decimal(node: Node, what: str) -> Decimal:
    value = Decimal(str(node.as_number(what)))
    if value < 0:
        raise node.error(f"{what} must not be negative, got {node.value}")
    return value


def _tolerance(node: Node) -> NumericTolerance:
    """A number (absolute) or ``{absolute: ..., relative: ...}``."""
    if not isinstance(node.value, dict):
        return NumericTolerance(absolute=_decimal(node, "an absolute tolerance"))
    node.check_keys(TOLERANCE_KEYS)
    found = {
        k: _decimal(node.require(k), f"an {k} tolerance" if k[0] in "aeiou" else f"a {k} tolerance")
        if node.get(k) is not None
        else Decimal(0)
        for k in TOLERANCE_KEYS
    }
    return NumericTolerance(absolute=found["absolute"], relative=found["relative"])


def column_tolerances(node: Node) -> tuple[tuple[str, NumericTolerance], ...]:
    mapping = node.as_mapping("a mapping of column to tolerance")
    return tuple((name, _tolerance(child)) for name, child in mapping.items())


def parse_label(label: str, node: Node) -> tuple[str, str | None, str | None]:
    """``mismatch_percent(price)`` -> (metric, column, side), checked against
    :data:`~assay.ir.compare.METRICS`."""
    m = _LABEL.fullmatch(label)
    names = sorted({k.removesuffix("_column") for k in METRICS})
    if m is None:
        raise node.error(f"invalid metric '{label}'", hint="e.g. mismatch_percent(price)")
    metric, arg = m.group(1), m.group(2)
    if arg is not None and metric in ("mismatched", "mismatch_percent"):
        metric += "_column"
    kind = METRICS.get(metric)
    if kind is None:
        from assay.config.node import unknown_message

        raise node.error(unknown_message("metric", metric, names))
    if kind == "none" and arg is not None:
        raise node.error(f"metric '{metric}' takes no argument")
    if kind != "none" and arg is None:
        what = "a column" if kind == "column" else "a side: source or target"
        raise node.error(f"metric '{metric}' needs {what}: {metric}(...)")
    if kind == "side":
        if arg not in ("source", "target"):
            raise node.error(f"{metric}: expected source or target, got '{arg}'")
        return metric, None, arg
    return metric, arg, None


def compare_checks(node: Node) -> tuple[CompareCheck, ...]:
    """``metric: threshold`` or ``metric: {must_be: ..., warn: ...}``."""
    found = []
    for label, child in node.as_mapping("a mapping of metric to threshold").items():
        metric, column, side = parse_label(label, child)
        if isinstance(child.value, dict):
            child.check_keys(CHECK_KEYS)
            must_node, warn_node = child.require("must_be"), child.get("warn")
        else:
            must_node, warn_node = child, None
        must = parse_threshold(must_node.value, must_node.origin)  # type: ignore[arg-type]
        warn = (
            parse_threshold(warn_node.value, warn_node.origin)  # type: ignore[arg-type]
            if warn_node is not None
            else None
        )
        found.append(
            CompareCheck(metric, must, child.origin, column=column, side=side, warn=warn)  # type: ignore[arg-type]
        )
    return tuple(found)
