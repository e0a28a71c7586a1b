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
from assay.dialects.soda_user import over_dataset
from assay.dialects.soda_validity import kept
from assay.ir.expr import Sql, is_true
from assay.ir.metrics import (
    AggregateMetric,
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    GroupMetric,
    GroupStat,
)
from assay.ir.rules import MetricCheck, Rule, SqlCheck, TypeFamily, TypeRequirement, UniqueCheck
from assay.ir.values import Comparison, Op, Threshold, Tolerance

COLUMN_FNS = {"min": "min", "max": "max", "avg": "avg", "sum": "sum"}
LENGTH_FNS = {"min_length": "min", "max_length": "max", "avg_length": "avg"}
"""Soda's aggregates of a column's lengths (``MIN(LENGTH(x))``...)."""


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
    where = kept(name, validity)
    if metric in LENGTH_FNS:  # Spark's LENGTH: a string's characters (else the text's)
        metric_ir: object = AggregateMetric(LENGTH_FNS[metric], name, where=where, length=True)
        return metric_rule(
            got, metric, metric_ir, zones, (name,), dataset, requires=((name, "any"),)
        )
    metric_ir = ColumnMetric(COLUMN_FNS[metric], name)  # type: ignore[arg-type]
    requires: tuple[tuple[str, TypeFamily], ...] = ((name, "numeric"),)
    return metric_rule(
        got, metric, metric_ir, zones, (name,), dataset, requires=requires,
        where=where,
    )  # fmt: skip


def duplicates(
    got: Entry, metric: str, args: tuple[str, ...], zones: Zones, dataset: Dataset
) -> Rule:
    """Soda's duplicate_count: the distinct values (of rows with no null in the columns)
    that occur more than once; duplicate_percent: those per 100 rows (all the rows, nulls
    included), rounded to two decimals. A count judged by an upper bound is assay's
    uniqueness check (its samples the duplicated rows), any other zone a metric of the
    groups."""
    if not args:
        raise got.node.error(f"{metric} takes one or more columns")
    names = tuple(column_name(a) for a in args)
    requires: tuple[tuple[str, TypeFamily], ...] = tuple((n, "any") for n in names)
    allowed = _upper_allowed(zones.fail) if zones.fail is not None else None
    if metric == "duplicate_percent" or zones.warn is not None or allowed is None:
        percent = metric == "duplicate_percent"
        stat: GroupStat = "duplicated_values_percent" if percent else "duplicated_values"
        return metric_rule(
            got, metric, GroupMetric(names, stat), zones, names, dataset, rounded=percent,
            requires=requires,
        )  # fmt: skip
    tolerance = Tolerance("absolute", Decimal(allowed), str(allowed))
    check = UniqueCheck(names, tolerance=tolerance, counted="values", nulls="any")
    return rule_of(got, metric, check, names, dataset, requires, None, threshold_text(zones))


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
    """A failed rows check: the rows where its ``fail condition`` holds, or the rows its
    ``fail query`` returns (Soda runs the query as written and counts its rows), are
    counted (Soda: fails when any, or as its ``fail``/``warn`` say)."""
    if got.config is None:
        raise got.node.error("a 'failed rows' check needs a 'fail condition' or a 'fail query'")
    allowed = {"name", "fail condition", "fail query", "fail", "warn", "samples limit",
               "attributes"}  # fmt: skip
    for key, value in got.config.as_mapping().items():
        if key not in allowed:
            raise value.error(f"invalid 'failed rows' configuration '{key}'")
    if got.config.get("fail query") is not None:
        return _failed_rows_query(got, dataset)
    condition = optional_str(got, "fail condition", dataset)
    if not condition:
        raise got.node.error("a 'failed rows' check needs a 'fail condition' or a 'fail query'")
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


def _failed_rows_query(got: Entry, dataset: Dataset) -> Rule:
    """``fail query: SELECT * FROM orders WHERE ...``: the query over the checked dataset
    (its name read as the table, as a user-defined metric's query is); without ``fail``
    or ``warn``, a SQL rule of the rows it returns (fails when any; they are its
    samples), else its row count judged by the zones."""
    assert got.config is not None
    node = got.config.require("fail query")
    if got.config.get("fail condition") is not None:
        raise node.error("'fail query' beside 'fail condition': a check is one or the other")
    text = dataset.resolve(node, node.as_str("the query (SQL)")).strip().rstrip(";").strip()
    if not text:
        raise node.error("'fail query' is empty")
    query = over_dataset(text, dataset.name, node, one_value=False)
    if got.config.get("fail") is None and got.config.get("warn") is None:
        rule = rule_of(got, "failed_rows", SqlCheck(query, "failed_rows"), (), dataset,
                       threshold="fail when > 0")  # fmt: skip
    else:
        zones = zones_of(got, None, dataset)
        judged = metric_check(CountMetric(Sql("true")), zones)
        counted = f"SELECT count(*) FROM ({query}) AS _soda_failed_rows"
        check = SqlCheck(counted, mode="value", must=judged.must, warn=judged.warn)
        rule = rule_of(got, "failed_rows", check, (), dataset, threshold=threshold_text(zones))
    return dataclasses.replace(rule, places=(*rule.places, ("query", node.origin)))
