"""SodaCL checks -> IR rules, each with Soda's own semantics (soda-core 3.x:
``soda/sodacl/sodacl_parser.py``, ``execution/metric/numeric_query_metric.py``,
``execution/query/duplicates_query.py``, ``execution/check/*``; docs/dialects.md,
"SodaCL checks files").

A check is a line (``- row_count > 0``) or a one-key mapping whose value holds its
configuration (``name``, ``filter``, ``fail``/``warn``, the missing and validity keys...).
A check assay cannot run as Soda would is an error at its line, never skipped.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import soda_thresholds as th
from assay.dialects.soda_formats import FORMATS, NUMERIC_FORMATS
from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Scalar,
    Sql,
    all_of,
    any_of,
    is_true,
)
from assay.ir.metrics import (
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    RowCountMetric,
)
from assay.ir.monitoring import Baseline, Change, OverTime
from assay.ir.origin import Origin
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import (
    Check,
    MetricCheck,
    Rule,
    SchemaCheck,
    TypeFamily,
    TypeRequirement,
    UniqueCheck,
)
from assay.ir.sources import Source
from assay.ir.values import Comparison, Op, Threshold, Tolerance

KIND = "soda"
"""Every Soda check's rule kind is ``soda:<metric>`` (``soda:row_count``,
``soda:schema``...): :func:`is_soda` tells them apart from native rules."""

MISSING_KEYS = frozenset({"missing values", "missing format", "missing regex"})
VALID_KEYS = frozenset(
    {
        "valid values",
        "valid format",
        "valid regex",
        "valid min",
        "valid max",
        "valid length",
        "valid min length",
        "valid max length",
        "invalid values",
        "invalid format",
        "invalid regex",
    }
)
METRIC_KEYS = frozenset(
    {"name", "filter", "fail", "warn", "identity", "attributes", "samples limit"}
)
COUNTS = frozenset(
    {"missing_count", "missing_percent", "invalid_count", "invalid_percent", "valid_count"}
)
COLUMN_FNS = {"min": "min", "max": "max", "avg": "avg", "sum": "sum"}
_UNSUPPORTED_ON_SPARK = (
    "Soda's Spark data sources refuse it ('Unsupported metric'): its check is never evaluated"
)
REFUSED = {
    "duplicate_percent": "Soda's duplicate_percent is duplicated values per row, rounded; "
    "assay counts duplicated values only against an upper bound (duplicate_count)",
    "min_length": "assay has no aggregate of a column's lengths",
    "max_length": "assay has no aggregate of a column's lengths",
    "avg_length": "assay has no aggregate of a column's lengths",
    "distribution_difference": "distribution checks need a reference file and Soda Scientific",
    **dict.fromkeys(
        ("percentile", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp"),
        _UNSUPPORTED_ON_SPARK,
    ),  # fmt: skip
}

_METRIC = re.compile(
    r"^(?P<metric>[A-Za-z_$][^ <=>()\[\],]*)(?:\((?P<args>[^()]*)\))?(?: (?P<threshold>.+))?$"
)
_REFERENCE = re.compile(
    r"^values in (?:\((?P<many>[^)]*)\)|(?P<one>[^ ]+)) must (?P<neg>not )?exist in "
    r"(?P<target>[^ ]+) (?:\((?P<tmany>[^)]*)\)|(?P<tone>[^ ]+))$"
)


@dataclass(frozen=True)
class Dataset:
    """What a check needs of its dataset: how another dataset is read (reference
    checks), and Soda's ``${VAR}`` resolution."""

    resolve: Callable[[Node, str], str]
    source_of: Callable[[Node, str], Source]


@dataclass(frozen=True)
class Entry:
    """One item of a ``checks for`` list: its check text, its configuration (or None)
    and the node of each."""

    text: str
    node: Node
    config: Node | None
    judged: bool = True
    """False for the metric of a change check: its zones judge the change, not the value."""


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
    item = got.node
    if got.text == "schema":
        return _schema(got, dataset)
    if got.text == "failed rows":
        return _failed_rows(got, dataset)
    if got.text.startswith("change "):
        return _change(got, dataset)
    if got.text in ("group by", "group evolution") or got.text.startswith(
        ("row_count same as", "anomaly ", "freshness using", "distribution_difference")
    ):
        raise item.error(
            f"Soda check '{got.text}' is not supported",
            hint="docs/dialects.md lists the SodaCL checks assay runs",
        )
    if got.text.startswith("values in "):
        return _reference(got, dataset)
    found = _METRIC.match(got.text)
    if found is None:
        raise item.error(f"invalid Soda check '{got.text}'")
    metric = found.group("metric")
    args_text = found.group("args")
    args = tuple(a.strip() for a in args_text.split(",")) if args_text is not None else ()
    if any(not a for a in args):
        raise item.error(f"invalid Soda check '{got.text}': an empty argument")
    keys = _config_keys(got, metric)
    if keys.validity and metric not in COUNTS and metric not in COLUMN_FNS:
        key, node = next(iter(keys.validity.items()))
        raise node.error(f"'{key}' on {metric}: Soda does not apply it there")
    if metric == "freshness":
        return _freshness(got, args, found.group("threshold"), dataset)
    if metric in REFUSED:
        raise item.error(f"Soda metric '{metric}' is not supported: {REFUSED[metric]}")
    if keys.expression is not None:
        raise keys.expression.error(
            f"'{metric} expression' (a user-defined metric) is not supported",
            hint="write the check as a 'failed rows' check with a 'fail condition', or as a "
            "native 'sql' rule",
        )
    zones = _zones(got, found.group("threshold"), dataset)
    if metric == "row_count":
        if args:
            raise item.error("row_count takes no column")
        return _metric_rule(got, metric, RowCountMetric(), zones, (), dataset)
    if metric in COUNTS:
        name = _one_column(got, metric, args)
        counted = _counted(metric, name, keys.validity, got)
        rounded = metric.endswith("_percent")
        return _metric_rule(
            got, metric, CountMetric(counted, percent=rounded), zones, (name,), dataset,
            rounded=rounded,
        )  # fmt: skip
    if metric == "duplicate_count":
        return _duplicates(got, args, zones, dataset)
    if metric in COLUMN_FNS:
        return _statistic(got, metric, args, keys.validity, zones, dataset)
    raise item.error(
        f"Soda metric '{metric}' is not supported",
        hint="a user-defined metric needs '<name> expression' or '<name> query', which assay "
        "does not run; docs/dialects.md lists the metrics assay runs",
    )


# --- configuration keys ------------------------------------------------------------------


@dataclass(frozen=True)
class _Keys:
    validity: dict[str, Node]
    expression: Node | None


def _config_keys(got: Entry, metric: str) -> _Keys:
    validity: dict[str, Node] = {}
    expression = None
    for key, value in (got.config.as_mapping() if got.config else {}).items():
        if key in MISSING_KEYS or key in VALID_KEYS:
            validity[key] = value
        elif key.endswith(" expression"):
            expression = value
        elif key.endswith((" query", " sql_file")) or key == "include null":
            raise value.error(f"Soda configuration '{key}' is not supported")
        elif key not in METRIC_KEYS:
            raise value.error(f"unknown Soda check configuration '{key}' for {metric}")
    return _Keys(validity, expression)


def _optional_str(got: Entry, key: str, dataset: Dataset) -> str | None:
    node = got.config.get(key) if got.config else None
    if node is None or node.value is None:
        return None
    return dataset.resolve(node, node.as_str(f"'{key}' (a string)")).strip()


def _places(got: Entry, *keys: str) -> tuple[tuple[str, Origin], ...]:
    if got.config is None:
        return ()
    places = []
    for key in keys:
        node = got.config.get(key)
        if node is not None:
            places.append(("filter" if key == "filter" else key, node.origin))
    return tuple(places)


# --- thresholds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Zones:
    """A check's fail and warn zones and the texts they were written as."""

    fail: th.Zone | None
    warn: th.Zone | None
    fail_text: str
    warn_text: str


def _zones(got: Entry, inline: str | None, dataset: Dataset, *, durations: bool = False) -> Zones:
    if not got.judged:
        return Zones(None, None, "", "")
    fail_node = got.config.get("fail") if got.config else None
    warn_node = got.config.get("warn") if got.config else None
    if inline is not None:
        if fail_node is not None or warn_node is not None:
            which = fail_node if fail_node is not None else warn_node
            raise which.error(  # type: ignore[union-attr]
                "a check with a threshold in its line ignores 'fail' and 'warn' in Soda",
                hint="keep either the threshold of the line or the 'fail:'/'warn:' keys",
            )
        try:
            passing = th.parse(inline, durations=durations)
        except th.ThresholdError as e:
            raise got.node.error(f"invalid threshold: {e}") from None
        return Zones(passing.inverse(), None, inline, "")
    fail = _when(fail_node, dataset, durations)
    warn = _when(warn_node, dataset, durations)
    if fail is None and warn is None:
        raise got.node.error(
            f"no threshold for the Soda check '{got.text}'",
            hint="write one in its line ('row_count > 0') or 'fail: when ...'/'warn: when ...'",
        )
    return Zones(
        fail[0] if fail else None, warn[0] if warn else None,
        fail[1] if fail else "", warn[1] if warn else "",
    )  # fmt: skip


def _when(node: Node | None, dataset: Dataset, durations: bool) -> tuple[th.Zone, str] | None:
    if node is None or node.value is None:
        return None
    text = dataset.resolve(node, node.as_str("'when <threshold>'")).strip()
    if not text.startswith("when "):
        raise node.error(f"expected 'when <threshold>', got {text!r}")
    try:
        return th.parse(text[len("when ") :].strip(), durations=durations), text
    except th.ThresholdError as e:
        raise node.error(f"invalid threshold: {e}") from None


def _shown(zones: Zones) -> str:
    parts = []
    if zones.fail_text and not zones.fail_text.startswith("when "):
        return zones.fail_text
    if zones.fail_text:
        parts.append(f"fail {zones.fail_text}")
    if zones.warn_text:
        parts.append(f"warn {zones.warn_text}")
    return "; ".join(parts)


def _metric_check(metric: object, zones: Zones, *, rounded: bool = False) -> MetricCheck:
    must: Threshold = th.ANY_VALUE
    if zones.fail is not None:
        inline = not zones.fail_text.startswith("when ")
        text = zones.fail_text if inline else th.describe(zones.fail)
        must = th.passing(zones.fail, text, rounded=rounded)
    warn = None
    if zones.warn is not None:
        text = th.describe(zones.warn)
        warn = th.passing(zones.warn, text, rounded=rounded)
    return MetricCheck(metric, must, warn)  # type: ignore[arg-type]


def _metric_rule(
    got: Entry,
    metric_name: str,
    metric: object,
    zones: Zones,
    columns: tuple[str, ...],
    dataset: Dataset,
    *,
    rounded: bool = False,
    requires: tuple[tuple[str, TypeFamily], ...] = (),
    where: Expr | None = None,
) -> Rule:
    check = _metric_check(metric, zones, rounded=rounded)
    return _rule(got, metric_name, check, columns, dataset, requires, where, _shown(zones))


def _rule(
    got: Entry,
    metric_name: str,
    check: Check,
    columns: tuple[str, ...],
    dataset: Dataset,
    requires: tuple[tuple[str, TypeFamily], ...] = (),
    where: Expr | None = None,
    threshold: str | None = None,
    params: tuple[tuple[str, object], ...] = (),
    type_checks: tuple[TypeRequirement, ...] = (),
) -> Rule:
    written = _optional_str(got, "filter", dataset)
    user = Sql(written) if written else None
    both = all_of(*(e for e in (user, where) if e is not None)) if user or where else None
    return Rule(
        kind=f"{KIND}:{metric_name}",
        check=check,
        origin=got.node.origin,
        columns=columns,
        name=_optional_str(got, "name", dataset) or got.text,
        threshold=threshold,
        requires=requires,
        params=(("check", got.text), *params),
        filter=both,
        places=_places(got, "filter"),
        type_checks=type_checks,
    )


# --- missing and valid values ---------------------------------------------------------------


def _one_column(got: Entry, metric: str, args: tuple[str, ...]) -> str:
    if len(args) != 1:
        raise got.node.error(f"{metric} takes one column, as {metric}(column)")
    return _column(args[0])


def _column(text: str) -> str:
    if len(text) > 1 and text[0] == text[-1] and text[0] in '"`':
        return text[1:-1]
    return text


def _values(node: Node, key: str) -> tuple[Scalar, ...]:
    items = node.as_list(f"'{key}' (a list of values)")
    values = tuple(item.value for item in items)
    strings = all(isinstance(v, str) for v in values)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if not (strings or numbers):
        raise node.error(f"only strings or only numbers are allowed in '{key}'")
    return values  # type: ignore[return-value]


def _format(node: Node, key: str) -> str:
    name = node.as_str(f"'{key}' (a format name)")
    if name not in FORMATS:
        raise node.error(
            f"Soda format '{name}' is not supported",
            hint="Soda's formats: " + ", ".join(sorted(FORMATS)),
        )
    return FORMATS[name]


def _missing(name: str, validity: dict[str, Node]) -> Expr:
    """Soda's ``build_missing_condition``: NULL, or a missing value, format or regex."""
    col = Col(name)
    clauses: list[Expr] = [IsNull(col)]
    if "missing values" in validity:
        clauses.append(InSet(col, _values(validity["missing values"], "missing values")))
    if "missing format" in validity:
        clauses.append(Matches(col, _format(validity["missing format"], "missing format")))
    if "missing regex" in validity:
        clauses.append(Matches(col, validity["missing regex"].as_str("a regular expression")))
    return any_of(*clauses)


def _valid(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_valid_condition``: every valid key holds (None: none given)."""
    col = Col(name)
    clauses: list[Expr] = []
    if "valid values" in validity:
        clauses.append(InSet(col, _values(validity["valid values"], "valid values")))
    fmt = validity.get("valid format")
    if fmt is not None:
        clauses.append(Matches(col, _format(fmt, "valid format")))
    if "valid regex" in validity:
        clauses.append(Matches(col, validity["valid regex"].as_str("a regular expression")))
    for key, op in (
        ("valid length", Op.EQ),
        ("valid min length", Op.GE),
        ("valid max length", Op.LE),
    ):
        if key in validity:
            n = validity[key].as_int(f"'{key}' (an integer)")
            clauses.append(Compare(op, Length(col), Lit(n)))
    for key, op in (("valid min", Op.GE), ("valid max", Op.LE)):
        if key in validity:
            if fmt is not None and fmt.value in NUMERIC_FORMATS:
                raise validity[key].error(
                    f"'{key}' with the numeric format '{fmt.value}': Soda compares the text "
                    "cast to a number, which assay does not",
                )
            number = validity[key].as_number(f"'{key}' (a number)")
            clauses.append(Compare(op, col, Lit(float(number))))
    return all_of(*clauses) if clauses else None


def _invalid(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_invalid_condition``: any invalid value, format or regex."""
    col = Col(name)
    clauses: list[Expr] = []
    if "invalid values" in validity:
        clauses.append(InSet(col, _values(validity["invalid values"], "invalid values")))
    if "invalid format" in validity:
        clauses.append(Matches(col, _format(validity["invalid format"], "invalid format")))
    if "invalid regex" in validity:
        clauses.append(Matches(col, validity["invalid regex"].as_str("a regular expression")))
    return any_of(*clauses) if clauses else None


def _counted(metric: str, name: str, validity: dict[str, Node], got: Entry) -> Expr:
    """The rows a missing or invalid count counts, as Soda's SQL (a ``COUNT(CASE WHEN``:
    a condition that is NULL is not counted)."""
    missing = _missing(name, validity)
    if metric.startswith("missing"):
        return is_true(missing)
    if metric == "valid_count":
        return _kept(name, validity) or is_true(Not(missing))
    valid, invalid = _valid(name, validity), _invalid(name, validity)
    if valid is None and invalid is None:
        raise got.node.error(
            f"{metric}({name}) without a 'valid ...' or 'invalid ...' configuration: Soda "
            "counts nothing (it warns that this makes no sense)",
        )
    bad = (
        any_of(Not(valid), invalid) if valid is not None and invalid is not None
        else Not(valid) if valid is not None else invalid
    )  # fmt: skip
    return is_true(all_of(Not(missing), bad))  # type: ignore[arg-type]


def _kept(name: str, validity: dict[str, Node]) -> Expr | None:
    """Soda's ``build_non_missing_and_valid_condition`` (None without a missing or validity
    key: the aggregate reads every value, its nulls ignored)."""
    if not validity:
        return None
    missing = _missing(name, validity)
    valid, invalid = _valid(name, validity), _invalid(name, validity)
    if valid is not None:
        return is_true(all_of(Not(missing), valid))
    if invalid is not None:
        return is_true(all_of(Not(missing), Not(invalid)))
    return is_true(Not(missing))


# --- the other metrics ---------------------------------------------------------------------


def _statistic(
    got: Entry,
    metric: str,
    args: tuple[str, ...],
    validity: dict[str, Node],
    zones: Zones,
    dataset: Dataset,
) -> Rule:
    name = _one_column(got, metric, args)
    fmt = validity.get("valid format")
    if fmt is not None and fmt.value in NUMERIC_FORMATS:
        raise fmt.error(
            f"{metric} with the numeric format '{fmt.value}': Soda aggregates the text "
            "cast to a number, which assay does not"
        )
    metric_ir = ColumnMetric(COLUMN_FNS[metric], name)  # type: ignore[arg-type]
    requires: tuple[tuple[str, TypeFamily], ...] = ((name, "numeric"),)
    return _metric_rule(
        got, metric, metric_ir, zones, (name,), dataset, requires=requires,
        where=_kept(name, validity),
    )  # fmt: skip


def _duplicates(got: Entry, args: tuple[str, ...], zones: Zones, dataset: Dataset) -> Rule:
    """Soda's duplicate_count: the distinct values (of rows with no null in the columns)
    that occur more than once. assay counts them for a uniqueness check, judged by an
    upper bound."""
    if not args:
        raise got.node.error("duplicate_count takes one or more columns")
    names = tuple(_column(a) for a in args)
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
    return _rule(got, "duplicate_count", check, names, dataset, requires, None, _shown(zones))


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


def _freshness(got: Entry, args: tuple[str, ...], inline: str | None, dataset: Dataset) -> Rule:
    """Soda's freshness: now (the scan's time, UTC) minus the column's newest value (a
    timestamp without a zone read as UTC) fails when above the fail threshold."""
    if len(args) != 1:
        raise got.node.error(
            "freshness takes one column: assay's now is the server's clock (Soda's NOW), "
            "another now variable is not supported"
        )
    name = _column(args[0])
    zones = _zones(got, inline, dataset, durations=True)
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
    return _rule(
        got, "freshness", check, (name,), dataset, ((name, "temporal"),), None,
        _shown(zones), type_checks=(requirement,),
    )  # fmt: skip


def _duration(seconds: float | None) -> str:
    total = int(seconds or 0)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "m"), (secs, "s")) if v]
    return "".join(parts) or "0s"


def _failed_rows(got: Entry, dataset: Dataset) -> Rule:
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
    condition = _optional_str(got, "fail condition", dataset)
    if not condition:
        raise got.node.error("a 'failed rows' check needs a 'fail condition'")
    counted = is_true(Sql(condition))
    fail_node, warn_node = got.config.get("fail"), got.config.get("warn")
    if fail_node is None and warn_node is None:
        zones = Zones(th.Zone(gt=0.0), None, "fail when > 0", "")
        check = MetricCheck(CountMetric(counted), Comparison(Op.EQ, Decimal(0), "= 0"))
    else:
        zones = _zones(got, None, dataset)
        check = _metric_check(CountMetric(counted), zones)
    rule = _rule(got, "failed_rows", check, (), dataset, (), None, _shown(zones))
    places = (("expression", got.config.require("fail condition").origin),)
    return dataclasses.replace(rule, places=rule.places + places)


def _schema(got: Entry, dataset: Dataset) -> Rule:
    """Soda's schema check: ``fail``/``warn`` with ``when required column missing``,
    ``when forbidden column present`` and ``when wrong column type`` (names compared as
    written)."""
    if got.config is None:
        raise got.node.error("a schema check needs 'fail' or 'warn' validations")
    levels = {}
    for key, value in got.config.as_mapping().items():
        if key in ("fail", "warn"):
            levels[key] = value
        elif key not in ("name", "attributes"):
            raise value.error(f"invalid schema check configuration '{key}'")
    if len(levels) != 1:
        raise got.node.error(
            "a schema check with both 'fail' and 'warn' is not supported: write two schema checks"
            if levels
            else "a schema check needs 'fail' or 'warn' validations"
        )
    ((level, node),) = levels.items()
    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    for key, value in node.as_mapping(f"the {level} validations (a mapping)").items():
        if key == "when required column missing":
            required = tuple(_column(i.as_str("a column name")) for i in value.as_list("a list"))
        elif key == "when forbidden column present":
            forbidden = tuple(_column(i.as_str("a column name")) for i in value.as_list("a list"))
            if any(any(ch in c for ch in "%*") for c in forbidden):
                raise value.error("forbidden column patterns (% or *) are not supported")
        elif key == "when wrong column type":
            mapping = value.as_mapping("a mapping of column to type")
            types = tuple((_column(c), _type(t)) for c, t in mapping.items())
        else:
            raise value.error(
                f"schema validation '{key}' is not supported",
                hint="assay runs 'when required column missing', 'when forbidden column "
                "present' and 'when wrong column type'",
            )
    check = SchemaCheck(required=required, forbidden=forbidden, types=types, case_sensitive=True)
    rule = _rule(got, "schema", check, (), dataset)
    if level == "warn":
        rule = dataclasses.replace(rule, level="warn")
    return rule


SODA_TYPE_ALIASES = {
    "character varying": "string",
    "varchar": "string",
    "text": "string",
    "integer": "int",
    "decimal": "double",
    "timestamptz": "timestamp",
}
"""The expected types Soda's ``spark_df`` data source also accepts for another Spark type
(``SCHEMA_CHECK_TYPES_MAPPING``: a ``double`` column passes ``decimal``)."""


def _type(node: Node) -> str:
    """An expected column type, lowercased as Soda compares it; Soda's aliases refused."""
    written = node.as_str("a type").strip().lower()
    if written in SODA_TYPE_ALIASES:
        raise node.error(
            f"type '{written}': Soda on Spark also accepts a {SODA_TYPE_ALIASES[written]} "
            "column for it, which assay does not",
            hint="write the column's Spark type name (string, int, bigint, double, "
            "decimal(10,2), timestamp...)",
        )
    return written


def _reference(got: Entry, dataset: Dataset) -> Rule:
    found = _REFERENCE.match(got.text)
    if found is None:
        raise got.node.error(f"invalid reference check '{got.text}'")
    if found.group("neg"):
        raise got.node.error("'must not exist in' is not supported")
    sources = (found.group("many") or found.group("one") or "").split(",")
    targets = (found.group("tmany") or found.group("tone") or "").split(",")
    names = tuple(_column(s.strip()) for s in sources)
    target_names = tuple(_column(t.strip()) for t in targets)
    if len(names) != 1 or len(target_names) != 1:
        raise got.node.error(
            "a reference check of several columns is not supported: Soda counts a row with "
            "some null key columns as missing, assay's foreign key passes it"
        )
    if got.config is not None:
        for key, value in got.config.as_mapping().items():
            if key not in ("name", "attributes", "samples limit"):
                raise value.error(f"invalid reference check configuration '{key}'")
    target = dataset.source_of(got.node, found.group("target"))
    check = ForeignKeyCheck(Lookup(names, Reference(target, target_names)))
    return _rule(got, "reference", check, names, dataset, ((names[0], "any"),))


_CHANGE = re.compile(
    r"^change (?:(?P<fn>avg|min|max) last (?P<runs>\d+) |(?P<week>same day last week ))?"
    r"(?P<percent>percent )?for (?P<check>.+)$"
)
CHANGED = frozenset({"row_count", "missing_count", "invalid_count", "valid_count", *COLUMN_FNS})
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
    zones = _zones(inner, metric.group("threshold"), dataset)
    args = metric.group("args")
    text = metric.group("metric") + (f"({args})" if args is not None else "")
    plain = dataclasses.replace(inner, text=text, config=_without_zones(got), judged=False)
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
        name=_optional_str(got, "name", dataset) or got.text,
        threshold=f"change {_shown(zones)}",
        params=(("check", got.text),),
        over_time=over,
    )


def _zone_text(zones: Zones) -> str:
    assert zones.fail is not None
    return zones.fail_text if not zones.fail_text.startswith("when ") else th.describe(zones.fail)


def _without_zones(got: Entry) -> Node | None:
    """The configuration without ``fail``/``warn`` (a change's zones are its own)."""
    if got.config is None:
        return None
    kept = {k: v for k, v in got.config.as_mapping().items() if k not in ("fail", "warn")}
    return dataclasses.replace(got.config, value=kept)
