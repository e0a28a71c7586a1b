"""SodaCL checks -> IR rules, each with Soda's own semantics (soda-core 3.x:
``soda/sodacl/sodacl_parser.py``, ``execution/metric/numeric_query_metric.py``,
``execution/query/duplicates_query.py``, ``execution/check/*``; docs/dialects.md,
"SodaCL checks files").

A check is a line (``- row_count > 0``) or a one-key mapping whose value holds its
configuration (``name``, ``filter``, ``fail``/``warn``, the missing and validity keys...).
A check assay cannot run as Soda would is an error at its line, never skipped.

This module reads a check's item and sends it to its kind: the counts of missing and
invalid values (:mod:`~assay.dialects.soda_validity`), the other metrics
(:mod:`~assay.dialects.soda_metrics`), schema and reference checks
(:mod:`~assay.dialects.soda_schema`), and the change of a metric over time (here); the
parts every kind shares are :mod:`~assay.dialects.soda_rule`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from assay.config.node import Node
from assay.dialects import soda_metrics, soda_schema, soda_user, soda_validity
from assay.dialects import soda_thresholds as th
from assay.dialects.soda_metrics import COLUMN_FNS, LENGTH_FNS
from assay.dialects.soda_rule import (
    KIND,
    Dataset,
    Entry,
    Zones,
    metric_rule,
    one_column,
    optional_str,
    threshold_text,
    zones_of,
)
from assay.dialects.soda_validity import COUNTS, MISSING_KEYS, VALID_KEYS
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.monitoring import Baseline, Change, OverTime
from assay.ir.rules import MetricCheck, Rule

METRIC_KEYS = frozenset(
    {"name", "filter", "fail", "warn", "identity", "attributes", "samples limit"}
)

_UNSUPPORTED_ON_SPARK = (
    "Soda's Spark data sources refuse it ('Unsupported metric'): its check is never evaluated"
)
REFUSED = {
    "distribution_difference": "distribution checks need a reference file and Soda Scientific",
    "valid_percent": "soda-core 3.x has no valid_percent: its scan logs 'Unsupported metric "
    "valid_percent' and never evaluates the check (its percentages are missing_percent, "
    "invalid_percent and duplicate_percent); write invalid_percent, or valid_count",
    **dict.fromkeys(
        ("percentile", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"),
        _UNSUPPORTED_ON_SPARK,
    ),  # fmt: skip
}

_METRIC = re.compile(
    r"^(?P<metric>[A-Za-z_$][^ <=>()\[\],]*)(?:\((?P<args>[^()]*)\))?(?: (?P<threshold>.+))?$"
)


def entry(item: Node, dataset: Dataset) -> Entry:
    """The check text and configuration of a list item (Soda's
    ``__parse_check_configuration``)."""
    if isinstance(item.value, str):
        return Entry(dataset.resolve(item, item.value).strip(), item, None)
    if isinstance(item.value, dict) and len(item.value) == 1:
        ((key, value),) = item.as_mapping().items()
        if value.value is not None and not isinstance(value.value, dict):
            raise value.error(
                f"the configuration of '{key}' must be a mapping, got {value.plain()!r}"
            )
        return Entry(dataset.resolve(item, key).strip(), item, value if value.value else None)
    raise item.error("a check is a line ('- row_count > 0') or a mapping with one key")


def is_soda(rule: Rule) -> bool:
    """Whether ``rule`` was read from a SodaCL checks file."""
    return rule.kind.startswith(KIND + ":")


def check_rule(item: Node, dataset: Dataset) -> Rule:
    """One Soda check as a rule; an error naming it when assay cannot run it as Soda does."""
    return check_rule_of(entry(item, dataset), dataset)


def check_rule_of(got: Entry, dataset: Dataset) -> Rule:
    """The rule of a check read from its list item."""
    if got.text == "schema":
        return soda_schema.schema(got, dataset)
    if got.text == "failed rows":
        return soda_metrics.failed_rows(got, dataset)
    if got.text.startswith("change "):
        return _change(got, dataset)
    if got.text == "group by":  # a file's are read by soda.py, a native entry's by embedded.py
        raise got.node.error("a group by is several rules, one per check")
    if got.text.startswith("row_count same as "):
        return soda_schema.row_count_same_as(got, dataset)
    if got.text == "group evolution" or got.text.startswith(
        ("anomaly ", "freshness using", "distribution_difference")
    ):
        raise got.node.error(
            f"Soda check '{got.text}' is not supported",
            hint="docs/dialects.md lists the SodaCL checks assay runs",
        )
    if got.text.startswith("values in "):
        return soda_schema.reference(got, dataset)
    found = _METRIC.match(got.text)
    if found is None:
        raise got.node.error(f"invalid Soda check '{got.text}'")
    return _metric_check_rule(got, found, dataset)


def _metric_check_rule(got: Entry, found: re.Match[str], dataset: Dataset) -> Rule:
    """The rule of a metric check (``row_count > 0``, ``missing_count(id) = 0``...)."""
    item = got.node
    metric = found.group("metric")
    args_text = found.group("args")
    args = tuple(a.strip() for a in args_text.split(",")) if args_text is not None else ()
    if any(not a for a in args):
        raise item.error(f"invalid Soda check '{got.text}': an empty argument")
    keys = _config_keys(got, metric)
    if keys.validity and metric not in COUNTS and metric not in (*COLUMN_FNS, *LENGTH_FNS):
        key, node = next(iter(keys.validity.items()))
        raise node.error(f"'{key}' on {metric}: Soda does not apply it there")
    if metric == "freshness":
        return soda_metrics.freshness(got, args, found.group("threshold"), dataset)
    if metric in REFUSED:
        raise item.error(f"Soda metric '{metric}' is not supported: {REFUSED[metric]}")
    if keys.user is not None:
        return soda_user.user_metric(
            got, metric, args, keys.user, found.group("threshold"), dataset
        )
    zones = zones_of(got, found.group("threshold"), dataset)
    if metric == "row_count":
        if args:
            raise item.error("row_count takes no column")
        return metric_rule(got, metric, RowCountMetric(), zones, (), dataset)
    if metric in COUNTS:
        name = one_column(got, metric, args)
        counted = soda_validity.counted(metric, name, keys.validity, got)
        rounded = metric.endswith("_percent")
        return metric_rule(
            got, metric, CountMetric(counted, percent=rounded), zones, (name,), dataset,
            rounded=rounded,
        )  # fmt: skip
    if metric in ("duplicate_count", "duplicate_percent"):
        return soda_metrics.duplicates(got, metric, args, zones, dataset)
    if metric in COLUMN_FNS or metric in LENGTH_FNS:
        return soda_metrics.statistic(got, metric, args, keys.validity, zones, dataset)
    raise item.error(
        f"Soda metric '{metric}' is not supported",
        hint="a user-defined metric needs '<name> expression' or '<name> query'; "
        "docs/dialects.md lists the metrics assay runs",
    )


# --- configuration keys ------------------------------------------------------------------


@dataclass(frozen=True)
class _Keys:
    validity: dict[str, Node]
    user: tuple[str, Node] | None
    """A user-defined metric's ``<name> expression`` or ``<name> query``: its key and node."""


def _config_keys(got: Entry, metric: str) -> _Keys:
    """A metric check's configuration, read as Soda's parser reads its keys."""
    validity: dict[str, Node] = {}
    user = None
    for key, value in (got.config.as_mapping() if got.config else {}).items():
        if key in MISSING_KEYS or key in VALID_KEYS:
            validity[key] = value
        elif key in ("failed rows query", "failed rows sql_file"):
            raise value.error(
                f"Soda configuration '{key}' is not supported",
                hint="Soda runs it for sample rows only; assay samples no rows of a query",
            )
        elif key.endswith("sql_file") or key == "include null":
            raise value.error(f"Soda configuration '{key}' is not supported")
        elif key.endswith(("expression", "query")):
            if user is not None:
                raise value.error(f"'{key}' beside '{user[0]}': a metric is one or the other")
            user = (key, value)
        elif key not in METRIC_KEYS:
            raise value.error(f"unknown Soda check configuration '{key}' for {metric}")
    return _Keys(validity, user)


_CHANGE = re.compile(
    r"^change (?:(?P<fn>avg|min|max) last (?P<runs>\d+) |(?P<week>same day last week ))?"
    r"(?P<percent>percent )?for (?P<check>.+)$"
)
CHANGED = frozenset(
    {"row_count", "missing_count", "invalid_count", "valid_count", "duplicate_count",
     *COLUMN_FNS, *LENGTH_FNS}
)  # fmt: skip
"""The metrics whose change assay judges as Soda does: their value as measured (Soda's
percentages are rounded before their change is taken, which assay's store does not)."""


def _change(got: Entry, dataset: Dataset) -> Rule:
    """Soda's change over time (``change for row_count < 50``, ``change avg last 7 for
    ...``): the metric's value minus the last stored value (or the avg, min or max of the
    last N), judged by the check's zones; assay's store holds the history
    (docs/monitoring.md), Soda Cloud's does for Soda."""
    found = _CHANGE.match(got.text)
    if found is None:
        raise got.node.error(f"invalid change check '{got.text}'")
    if found.group("week"):
        raise got.node.error("'same day last week' is not supported")
    if found.group("percent"):
        raise got.node.error(
            "a change in percent is not supported: Soda divides by the signed baseline and "
            "does not evaluate it from 0, assay divides by its absolute value",
        )
    inner = dataclasses.replace(got, text=found.group("check"))
    metric = _METRIC.match(inner.text)
    if metric is None or metric.group("metric") not in CHANGED:
        raise got.node.error(
            f"the change of '{found.group('check')}' is not supported",
            hint="assay judges the change of " + ", ".join(sorted(CHANGED)),
        )
    zones = zones_of(inner, metric.group("threshold"), dataset)
    args = metric.group("args")
    text = metric.group("metric") + (f"({args})" if args is not None else "")
    plain = dataclasses.replace(inner, text=text, config=_withoutzones_of(got), judged=False)
    rule = check_rule_of(plain, dataset)
    assert isinstance(rule.check, MetricCheck)
    must = th.ANY_VALUE if zones.fail is None else th.passing(zones.fail, _zone_text(zones))
    warn = None if zones.warn is None else th.passing(zones.warn, th.describe(zones.warn))
    runs = int(found.group("runs") or 1)
    baseline = Baseline(found.group("fn") or "last", runs)  # type: ignore[arg-type]
    over = OverTime(Change(baseline, must, warn), min_runs=1, origin=got.node.origin)
    return dataclasses.replace(
        rule,
        check=dataclasses.replace(rule.check, must=th.ANY_VALUE, warn=None),
        name=optional_str(got, "name", dataset) or got.text,
        threshold=f"change {threshold_text(zones)}",
        params=(("check", got.text),),
        over_time=over,
    )


def _zone_text(zones: Zones) -> str:
    assert zones.fail is not None
    return zones.fail_text if not zones.fail_text.startswith("when ") else th.describe(zones.fail)


def _withoutzones_of(got: Entry) -> Node | None:
    """The configuration without ``fail``/``warn`` (a change's zones are its own)."""
    if got.config is None:
        return None
    kept = {k: v for k, v in got.config.as_mapping().items() if k not in ("fail", "warn")}
    return dataclasses.replace(got.config, value=kept)
