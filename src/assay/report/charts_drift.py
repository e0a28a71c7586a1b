"""A drift result's chart (inline SVG geometry, as :mod:`assay.report.charts`): both
distributions side by side, one pair of bars per bin, the table's share beside the
reference's, from ``details.drift.distribution`` alone (docs/reports.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.report.charts import Bar, Chart, Label, Rect

WIDTH, HEIGHT, BASE, LEFT, TOP = 360.0, 132.0, 104.0, 4.0, 24.0


def distributions(drift: Mapping[str, Any]) -> Chart | None:
    """The table's and the reference's share of each bin (and of the bins summed as
    ``others``), heights relative to the largest share; None when a side has no value in
    the bins (nothing to draw)."""
    found = drift.get("distribution")
    if not isinstance(found, Mapping) or not found.get("bins"):
        return None
    bins: list[Mapping[str, Any]] = list(found["bins"])
    others = found.get("others")
    if isinstance(others, Mapping):
        label = f"{others.get('bins')} other bins"
        bins.append({"bin": label, "table": others["table"], "reference": others["reference"]})
    tables = [int(b.get("table") or 0) for b in bins]
    references = [int(b.get("reference") or 0) for b in bins]
    if not sum(tables) or not sum(references):
        return None
    t = [v / sum(tables) for v in tables]
    r = [v / sum(references) for v in references]
    top = max(*t, *r)
    step = (WIDTH - 2 * LEFT) / len(bins)
    bars = [
        _pair(i, b, (t[i], r[i]), (tables[i], references[i]), step, top) for i, b in enumerate(bins)
    ]
    return Chart(
        "drift",
        WIDTH,
        HEIGHT,
        "Distributions",
        (_legend(), *bars),
        _axis(bins, top),
    )


def _pair(
    i: int,
    b: Mapping[str, Any],
    shares: tuple[float, float],
    counts: tuple[int, int],
    step: float,
    top: float,
) -> Bar:
    x, width = LEFT + i * step, max((step - 2) / 2, 0.5)
    rects = []
    for side, (share, cls) in enumerate(zip(shares, ("d-table", "d-ref"), strict=True)):
        h = (BASE - TOP) * share / top
        rects.append(Rect(x + 1 + side * width, BASE - h, width, h, cls, ""))
    title = (
        f"{b.get('bin')}: table {_percent(shares[0])} ({counts[0]:,}), "
        f"reference {_percent(shares[1])} ({counts[1]:,})"
    )
    return Bar(tuple(rects), (), title)


def _legend() -> Bar:
    return Bar(
        (
            Rect(LEFT, 4, 9, 9, "d-table", ""),
            Rect(LEFT + 62, 4, 9, 9, "d-ref", ""),
        ),
        (
            Label(LEFT + 13, 9, "table", "start", "axis"),
            Label(LEFT + 75, 9, "reference", "start", "axis"),
        ),
        "table: this run's values; reference: the referenced source's",
    )


def _axis(bins: Sequence[Mapping[str, Any]], top: float) -> tuple[Label, ...]:
    first, last = str(bins[0].get("bin")), str(bins[-1].get("bin"))
    labels = [
        Label(WIDTH - LEFT, 12, f"max {_percent(top)}", "end", "axis"),
        Label(LEFT, HEIGHT - 14, _short(first, 28), "start", "axis"),
    ]
    if len(bins) > 1:
        labels.append(Label(WIDTH - LEFT, HEIGHT - 2, _short(last, 28), "end", "axis"))
    return tuple(labels)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _percent(share: float) -> str:
    return f"{share * 100:.2f}%"


def drift_text(drift: Mapping[str, Any]) -> str:
    """``details.drift`` as one line for people (its bins are the chart): the method's
    statistic and p-value, the threshold, each side's values compared and left out.

    >>> drift_text({"method": "psi", "statistic": 2.143350315, "p_value": None,
    ...     "threshold": "< 0.2", "bins": 4, "range": [1.0, 9.0],
    ...     "table": {"compared": 110, "null": 1, "nan": 0, "infinite": 0},
    ...     "reference": {"compared": 80, "null": 0, "nan": 0, "infinite": 0}}).split(" · ")
    ['psi 2.14335', 'must be < 0.2', '4 bins over [1, 9]', 'table 110 compared, 1 null', \
'reference 80 compared']
    """
    parts = [f"{drift.get('method')} {_number(drift.get('statistic'))}"]
    if drift.get("p_value") is not None:
        parts.append(f"p-value {_number(drift['p_value'])}")
    parts.append(f"must be {drift.get('threshold')}")
    span = drift.get("range")
    if drift.get("bins") == "values":
        parts.append("each value its own bin")
    elif isinstance(span, list) and None not in span:
        parts.append(f"{drift.get('bins')} bins over [{_number(span[0])}, {_number(span[1])}]")
    for side in ("table", "reference"):
        counts = drift.get(side) or {}
        left = [
            f"{counts[k]:,} {k.replace('nan', 'NaN')}"
            for k in ("null", "nan", "infinite")
            if counts.get(k)
        ]
        parts.append(", ".join([f"{side} {counts.get('compared', 0):,} compared", *left]))
    return " · ".join(parts)


def _number(value: Any) -> str:
    return "none" if value is None else f"{value:.6g}"
