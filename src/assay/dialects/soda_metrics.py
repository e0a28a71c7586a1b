"""Soda's metric checks beyond the counts of missing and invalid values, each with Soda's
semantics (soda-core 3.x, ``execution/metric/*``, ``execution/check/*``): a column's
``min``/``max``/``avg``/``sum``, ``duplicate_count``, ``freshness``, and the ``failed
rows`` check of a ``fail condition``.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import soda_thresholds as th
from assay.dialects.soda_formats import NUMERIC_FORMATS
from assay.dialects.soda_rule import (
    Dataset,
    Entry,
    Zones,
    column_name,
    metric_check,
    metric_rule,
    one_column,
    optional_str,
    rule_of,
    threshold_text,
    zones_of,
)
from assay.dialects.soda_validity import kept
from assay.ir.expr import Sql, is_true
from assay.ir.metrics import ColumnMetric, CountMetric, FreshnessMetric
from assay.ir.rules import MetricCheck, Rule, TypeFamily, TypeRequirement, UniqueCheck
from assay.ir.values import Comparison, Op, Threshold, Tolerance

COLUMN_FNS = {"min": "min", "max": "max", "avg": "avg", "sum": "sum"}


def statistic(
    got: Entry,
    metric: str,
    args: tuple[str, ...],
    validity: dict[str, Node],
    zones: Zones,
    dataset: Dataset,
) -> Rule:
    name = one_column(got, metric, args)
    fmt = validity.get("valid format")
    if fmt is not None and fmt.value in NUMERIC_FORMATS:
        raise fmt.error(
            f"{metric} with the numeric format '{fmt.value}': Soda aggregates the text "
            "cast to a number, which assay does not"
        )
    metric_ir = ColumnMetric(COLUMN_FNS[metric], name)  # type: ignore[arg-type]
    requires: tuple[tuple[str, TypeFamily], ...] = ((name, "numeric"),)
    return metric_rule(
        got, metric, metric_ir, zones, (name,), dataset, requires=requires,
        where=kept(name, validity),
    )  # fmt: skip


def duplicates(got: Entry, args: tuple[str, ...], zones: Zones, dataset: Dataset) -> Rule:
    """Soda's duplicate_count: the distinct values (of rows with no null in the columns)
    that occur more than once. assay counts them for a uniqueness check, judged by an
    upper bound."""
    if not args:
        raise got.node.error("duplicate_count takes one or more columns")
    names = tuple(column_name(a) for a in args)
    if zones.warn is not None or zones.fail is None:
        raise got.node.error(
            "duplicate_count with a 'warn' zone is not supported: assay judges duplicated "
            "values by an upper bound only"
        )
    allowed = _upper_allowed(zones.fail)
    if allowed is None:
        raise got.node.error(
            f"duplicate_count {zones.fail_text}: assay judges duplicated values by an upper "
            "bound only ('= 0', '< 5', '<= 2', 'fail: when > 3')"
        )
    tolerance = Tolerance("absolute", Decimal(allowed), str(allowed))
    check = UniqueCheck(names, tolerance=tolerance, counted="values", nulls="any")
    requires: tuple[tuple[str, TypeFamily], ...] = tuple((n, "any") for n in names)
    return rule_of(
        got, "duplicate_count", check, names, dataset, requires, None, threshold_text(zones)
    )


def _upper_allowed(zone: th.Zone) -> int | None:
    """The most duplicated values a fail zone lets pass, when it is ``count > n`` or
    ``count >= n`` (a zone below zero never holds for a count); None otherwise."""
    lower_side = zone.lt is not None or zone.lte is not None
    if zone.split and lower_side:
        below = zone.lt if zone.lt is not None else zone.lte
        if (zone.lt is not None and below > 0) or (zone.lte is not None and below >= 0):  # type: ignore[operator]
            return None
    elif lower_side:
        return None
    if zone.gt is not None:
        allowed = int(zone.gt // 1)
    elif zone.gte is not None:
        allowed = int(-(-zone.gte // 1)) - 1
    else:
        return None
    return allowed if allowed >= 0 else None


def freshness(got: Entry, args: tuple[str, ...], inline: str | None, dataset: Dataset) -> Rule:
    """Soda's freshness: now (the scan's time, UTC) minus the column's newest value (a
    timestamp without a zone read as UTC) fails when above the fail threshold."""
    if len(args) != 1:
        raise got.node.error(
            "freshness takes one column: assay's now is the server's clock (Soda's NOW), "
            "another now variable is not supported"
        )
    name = column_name(args[0])
    zones = zones_of(got, inline, dataset, durations=True)
    for zone, text in ((zones.fail, zones.fail_text), (zones.warn, zones.warn_text)):
        if zone is not None and zone.seconds() is None:
            raise got.node.error(
                f"freshness {text}: Soda judges freshness by an upper bound ('< 1d', "
                "'fail: when > 6h')"
            )
    must: Threshold = th.ANY_VALUE
    if zones.fail is not None:
        seconds = zones.fail.seconds()
        must = Comparison(Op.LE, Decimal(repr(seconds)), f"<= {_duration(seconds)}", "seconds")  # type: ignore[arg-type]
    warn = None
    if zones.warn is not None:
        seconds = zones.warn.seconds()
        warn = Comparison(Op.LE, Decimal(repr(seconds)), f"<= {_duration(seconds)}", "seconds")  # type: ignore[arg-type]
    check = MetricCheck(FreshnessMetric(name), must, warn)
    requirement = TypeRequirement(
        name,
        frozenset({"timestamp", "timestamp_ntz"}),
        "Soda's freshness of {column} ({type}): Soda reads a date as its last instant; "
        "assay runs freshness on timestamps only",
    )
    return rule_of(
        got, "freshness", check, (name,), dataset, ((name, "temporal"),), None,
        threshold_text(zones), type_checks=(requirement,),
    )  # fmt: skip


def _duration(seconds: float | None) -> str:
    total = int(seconds or 0)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")) if v]
    return "".join(parts) or "0s"


def failed_rows(got: Entry, dataset: Dataset) -> Rule:
    """A failed rows check with a ``fail condition``: the rows where it holds are counted
    (Soda: fails when any, or as its ``fail``/``warn`` say)."""
    if got.config is None:
        raise got.node.error("a 'failed rows' check needs a 'fail condition'")
    allowed = {"name", "fail condition", "fail", "warn", "samples limit", "attributes"}
    for key, value in got.config.as_mapping().items():
        if key == "fail query":
            raise value.error(
                "'fail query' is not supported: assay runs a query over its own table only",
                hint="write the condition as 'fail condition', or the query as a native 'sql' rule",
            )
        if key not in allowed:
            raise value.error(f"invalid 'failed rows' configuration '{key}'")
    condition = optional_str(got, "fail condition", dataset)
    if not condition:
        raise got.node.error("a 'failed rows' check needs a 'fail condition'")
    counted = is_true(Sql(condition))
    fail_node, warn_node = got.config.get("fail"), got.config.get("warn")
    if fail_node is None and warn_node is None:
        zones = Zones(th.Zone(gt=0.0), None, "fail when > 0", "")
        check = MetricCheck(CountMetric(counted), Comparison(Op.EQ, Decimal(0), "= 0"))
    else:
        zones = zones_of(got, None, dataset)
        check = metric_check(CountMetric(counted), zones)
    rule = rule_of(got, "failed_rows", check, (), dataset, (), None, threshold_text(zones))
    places = (("expression", got.config.require("fail condition").origin),)
    return dataclasses.replace(rule, places=rule.places + places)
