"""A SodaCL check's parts and the rule it becomes (soda-core 3.x; docs/dialects.md,
"SodaCL checks files"): its list item (:class:`Entry`), what it needs of its dataset
(:class:`Dataset`), its fail and warn zones (:class:`Zones`, read from its line or from
``fail: when ...``/``warn: when ...``), its column arguments, and the rule every kind of
check is written as (:func:`rule_of`, :func:`metric_rule`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from assay.config.node import Node
from assay.dialects import soda_thresholds as th
from assay.ir.expr import Expr, Sql, all_of
from assay.ir.origin import Origin
from assay.ir.rules import Check, MetricCheck, Rule, TypeFamily, TypeRequirement
from assay.ir.sources import Source
from assay.ir.values import Threshold

KIND = "soda"
"""Every Soda check's rule kind is ``soda:<metric>`` (``soda:row_count``,
``soda:schema``...): :func:`is_soda` tells them apart from native rules."""


@dataclass(frozen=True)
class Dataset:
    """What a check needs of its dataset: how another dataset is read (reference
    checks), and Soda's ``${VAR}`` resolution."""

    resolve: Callable[[Node, str], str]
    source_of: Callable[[Node, str], Source]
    name: str = ""
    """The dataset's name (a user-defined metric's query names it)."""
    filters: Mapping[tuple[str, str], Expr] = field(default_factory=dict)
    """The file's partition filters by dataset and name (``filter orders [daily]``)."""


@dataclass(frozen=True)
class Entry:
    """One item of a ``checks for`` list: its check text, its configuration (or None)
    and the node of each."""

    text: str
    node: Node
    config: Node | None
    judged: bool = True
    """False for the metric of a change check: its zones judge the change, not the value."""


def optional_str(got: Entry, key: str, dataset: Dataset) -> str | None:
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


def zones_of(got: Entry, inline: str | None, dataset: Dataset, *, durations: bool = False) -> Zones:
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


def threshold_text(zones: Zones) -> str:
    parts = []
    if zones.fail_text and not zones.fail_text.startswith("when "):
        return zones.fail_text
    if zones.fail_text:
        parts.append(f"fail {zones.fail_text}")
    if zones.warn_text:
        parts.append(f"warn {zones.warn_text}")
    return "; ".join(parts)


def metric_check(metric: object, zones: Zones, *, rounded: bool = False) -> MetricCheck:
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


def metric_rule(
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
    check = metric_check(metric, zones, rounded=rounded)
    return rule_of(
        got, metric_name, check, columns, dataset, requires, where, threshold_text(zones)
    )


def rule_of(
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
    written = optional_str(got, "filter", dataset)
    user = Sql(written) if written else None
    both = all_of(*(e for e in (user, where) if e is not None)) if user or where else None
    return Rule(
        kind=f"{KIND}:{metric_name}",
        check=check,
        origin=got.node.origin,
        columns=columns,
        name=optional_str(got, "name", dataset) or got.text,
        threshold=threshold,
        requires=requires,
        params=(("check", got.text), *params),
        filter=both,
        places=_places(got, "filter"),
        type_checks=type_checks,
    )


def one_column(got: Entry, metric: str, args: tuple[str, ...]) -> str:
    if len(args) != 1:
        raise got.node.error(f"{metric} takes one column, as {metric}(column)")
    return column_name(args[0])


def column_name(text: str) -> str:
    if len(text) > 1 and text[0] == text[-1] and text[0] in '"`':
        return text[1:-1]
    return text
