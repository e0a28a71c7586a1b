"""A drift rule's statistic from its measure's counts (pure), and the result's
``details.drift``.

Each definition is a named tool's, computed as it computes it (docs/rules.md, drift):

- ``psi``: Soda's distribution check (``PSIAlgorithm``): shares of the bins, an empty
  bin's share 0 replaced by 1e-5 (not renormalised), ``sum((t - r) ln(t / r))``;
- ``kl``: ``scipy.stats.entropy(t, r)`` (as Great Expectations'
  ``expect_column_kl_divergence_to_be_less_than``, the table's shares against the
  reference's) over the same 1e-5-floored shares (scipy renormalises them), natural log;
- ``js``: ``scipy.spatial.distance.jensenshannon(t, r)``: the Jensen-Shannon
  *distance* (the square root of the divergence), natural log; empty bins need no floor;
- ``chi_square`` (and ``_p_value``): ``scipy.stats.chi2_contingency`` of the 2 x k
  table of counts (the table's row, the reference's), Yates' correction when it has
  one degree of freedom as scipy applies it; bins empty on both sides are left out;
- ``ks`` (and ``_p_value``): the exact two-sample statistic, ``scipy.stats.ks_2samp``'s,
  from the sorted values; its p-value ``ks_2samp``'s default (``method='auto'``): exact
  up to 10000 values a side, else ``kstwo.sf(D, round(n m / (n + m)))``;
- ``wasserstein``: ``scipy.stats.wasserstein_distance`` of the two samples, exact.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.ir.drift import DriftMetric
from assay.ir.rules import MetricCheck
from assay.judge.drift_ks import ks_2samp_p_value
from assay.judge.drift_pvalues import chi2_sf
from assay.judge.outcome import Number, Values
from assay.planner.drift import INFINITE_BIN, NAN_BIN, NULL_BIN, distribution_of

EMPTY_SHARE = 1e-5
"""The share an empty bin counts for in PSI and KL (Soda's ``PSIAlgorithm``:
``small_num = 10**-5`` added where a share is 0)."""

MOVED = 5
"""The bins ``details.drift.moved`` lists: those whose shares differ most."""

DRAWN = 50
"""The bins ``details.drift.distribution`` lists at most (every numeric bin up to 50;
categories: the 50 with the most values of both sides, the rest summed in ``others``)."""


@dataclass(frozen=True, slots=True)
class Counts:
    """A drift measure's counts: the compared bins (labels, the table's rows, the
    reference's), per side the rows left out (null, NaN, infinite) and the finite values
    in no bin (a range wider than a double has none: KS and Wasserstein still compare
    them)."""

    labels: tuple[str, ...]
    table: tuple[int, ...]
    reference: tuple[int, ...]
    left_out: Mapping[str, tuple[int, int]]
    unbinned: tuple[int, int] = (0, 0)

    @property
    def sizes(self) -> tuple[int, int]:
        """The compared values of each side."""
        return sum(self.table) + self.unbinned[0], sum(self.reference) + self.unbinned[1]

    @property
    def binned(self) -> bool:
        """Whether both sides have values in the bins."""
        return sum(self.table) > 0 and sum(self.reference) > 0


def counts(metric: DriftMetric, stats: Mapping[str, Any]) -> Counts:
    """The bins of the measure's outputs, numeric bins all present (empty ones 0) and
    in order, categories sorted by value."""
    found = {_key(b): (int(b["t"]), int(b["r"])) for b in stats["bins"] or ()}
    left = {
        "null": found.pop(None if metric.bins is None else NULL_BIN, (0, 0)),
        "nan": found.pop(NAN_BIN, (0, 0)) if metric.bins is not None else (0, 0),
        "infinite": found.pop(INFINITE_BIN, (0, 0)) if metric.bins is not None else (0, 0),
    }
    if metric.bins is None:
        keys: list[Any] = sorted(found, key=_order)
        labels = [str(k) for k in keys]
    else:
        keys = list(range(metric.bins))
        labels = _edges(stats.get("low"), stats.get("high"), metric.bins)
    unbinned = found.pop(None, (0, 0)) if metric.bins is not None else (0, 0)
    pairs = [found.get(k, (0, 0)) for k in keys]
    table, reference = tuple(t for t, _ in pairs), tuple(r for _, r in pairs)
    return Counts(tuple(labels), table, reference, left, unbinned)


def _key(b: Any) -> Any:
    return b["v"] if "v" in b.asDict() else b["i"]


def _order(value: Any) -> tuple[str, Any]:
    return (type(value).__name__, value)


def _edges(low: float | None, high: float | None, bins: int) -> list[str]:
    """``[a, b)`` per bin (the last ``[a, b]``), the edges as numpy.linspace gives them."""
    if low is None or high is None:
        return [str(i) for i in range(bins)]
    step = (high - low) / bins
    edges = [i * step + low for i in range(bins)] + [high]
    return [
        f"[{edges[i]:.6g}, {edges[i + 1]:.6g}{']' if i == bins - 1 else ')'}" for i in range(bins)
    ]


def distinct_edges(low: float | None, high: float | None, bins: int | None) -> bool:
    """Whether ``bins`` equal widths of ``[low, high]`` have increasing edges in doubles
    (numpy.histogram's condition: a range overflowing a double, or too narrow for so
    many bins, has none); categories always do."""
    if bins is None or low is None or high is None:
        return True
    if not math.isfinite(high - low):
        return False  # numpy refuses 2+ such bins and overflows an index on 1: none
    step = (high - low) / bins
    edges = [i * step + low for i in range(bins)] + [high]
    return all(math.isfinite(e) for e in edges) and all(
        a < b for a, b in zip(edges, edges[1:], strict=False)
    )


def shares(values: Sequence[int], floor: bool) -> list[float]:
    """Each bin's share of the side's values (an empty one ``EMPTY_SHARE`` when ``floor``)."""
    n = sum(values)
    out = [v / n for v in values]
    return [s if s != 0 or not floor else s + EMPTY_SHARE for s in out]


def psi(t: Sequence[int], r: Sequence[int]) -> float:
    """Population stability index over the bins (Soda's)."""
    p, q = shares(t, True), shares(r, True)
    return math.fsum((a - b) * math.log(a / b) for a, b in zip(p, q, strict=True))


def kl(t: Sequence[int], r: Sequence[int]) -> float:
    """``scipy.stats.entropy(p, q)`` of the floored shares (renormalised as scipy does)."""
    p, q = _normalised(shares(t, True)), _normalised(shares(r, True))
    return math.fsum(_rel_entr(a, b) for a, b in zip(p, q, strict=True))


def js(t: Sequence[int], r: Sequence[int]) -> float:
    """``scipy.spatial.distance.jensenshannon(p, q)``: the Jensen-Shannon distance."""
    p, q = _normalised([float(v) for v in t]), _normalised([float(v) for v in r])
    m = [(a + b) / 2.0 for a, b in zip(p, q, strict=True)]
    left = math.fsum(_rel_entr(a, c) for a, c in zip(p, m, strict=True))
    right = math.fsum(_rel_entr(b, c) for b, c in zip(q, m, strict=True))
    return math.sqrt((left + right) / 2.0)


def _normalised(values: Sequence[float]) -> list[float]:
    total = math.fsum(values)
    return [v / total for v in values]


def _rel_entr(x: float, y: float) -> float:
    """``scipy.special.rel_entr``."""
    if x > 0 and y > 0:
        return x * math.log(x / y)
    return 0.0 if x == 0 and y >= 0 else math.inf


def chi_square(t: Sequence[int], r: Sequence[int]) -> tuple[float, float]:
    """``scipy.stats.chi2_contingency([t, r])``'s statistic and p-value (bins empty on
    both sides left out; Yates' correction at one degree of freedom)."""
    kept = [(a, b) for a, b in zip(t, r, strict=True) if a or b]
    dof = len(kept) - 1
    if dof <= 0:
        return 0.0, 1.0
    rows = (sum(a for a, _ in kept), sum(b for _, b in kept))
    n = rows[0] + rows[1]
    terms = []
    for column in kept:
        total = column[0] + column[1]
        for observed, row in zip(column, rows, strict=True):
            expected = row * total / n
            o = float(observed)
            if dof == 1:  # Yates: each count moved half a unit toward its expected
                diff = expected - o
                o += math.copysign(min(0.5, abs(diff)), diff) if diff else 0.0
            terms.append((o - expected) ** 2 / expected)
    statistic = math.fsum(terms)
    return statistic, chi2_sf(statistic, dof)


def ks_p_value(statistic: float, n: int, m: int) -> float:
    """The KS statistic's p-value as ``scipy.stats.ks_2samp`` gives it by default: exact
    up to 10000 values a side, else the finite-n Kolmogorov distribution
    (``judge/drift_ks.py``)."""
    return ks_2samp_p_value(statistic, n, m)


@dataclass(frozen=True, slots=True)
class Drift:
    """What a drift rule measured: its value (None: nothing to compare), the
    statistic and p-value behind it, and the counts."""

    value: float | None
    statistic: float | None
    p_value: float | None
    counts: Counts


def measured(metric: DriftMetric, stats: Mapping[str, Any]) -> Drift:
    """The rule's statistic (and p-value) from its measure's outputs."""
    found = counts(metric, stats)
    n, m = found.sizes
    if n == 0 or m == 0:
        return Drift(None, None, None, found)
    t, r = found.table, found.reference
    method = metric.method
    if method in ("chi_square", "chi_square_p_value"):
        if not distinct_edges(stats.get("low"), stats.get("high"), metric.bins):
            return Drift(None, None, None, found)
        statistic, p = chi_square(t, r)
        return Drift(p if method.endswith("p_value") else statistic, statistic, p, found)
    if method in ("ks", "ks_p_value"):
        statistic = float(stats["ks"] or 0.0)
        p = ks_p_value(statistic, n, m)
        return Drift(p if method == "ks_p_value" else statistic, statistic, p, found)
    if method == "wasserstein":
        statistic = float(stats["wasserstein"] or 0.0)
        return Drift(statistic, statistic, None, found)
    if not distinct_edges(stats.get("low"), stats.get("high"), metric.bins):
        return Drift(None, None, None, found)  # numpy.histogram refuses such bins too
    statistic = _BINNED[method](t, r)
    return Drift(statistic, statistic, None, found)


_BINNED: dict[str, Callable[[Sequence[int], Sequence[int]], float]] = {
    "psi": psi,
    "kl": kl,
    "js": js,
}


def drift_value(metric: DriftMetric, values: Values, rows: int) -> Number | None:
    """The number a drift rule against a source judges (``judge.drift_history.drift_value``
    dispatches)."""
    return measured(metric, values[distribution_of(metric)]).value


def details(check: MetricCheck, values: Values) -> dict[str, Any]:
    """``details.drift``: the method, statistic, p-value, threshold, the sides' counts
    and the bins that moved most."""
    metric = check.metric
    assert isinstance(metric, DriftMetric)
    stats = values[distribution_of(metric)]
    drift = measured(metric, stats)
    found = drift.counts
    n, m = found.sizes
    moved = []
    if found.binned:
        p, q = shares(found.table, False), shares(found.reference, False)
        order = sorted(range(len(p)), key=lambda i: -abs(p[i] - q[i]))[:MOVED]
        moved = [
            {"bin": found.labels[i], "table_share": p[i], "reference_share": q[i]} for i in order
        ]
    return {
        "method": metric.method,
        "statistic": drift.statistic,
        "p_value": drift.p_value,
        "threshold": check.must.text,
        "bins": metric.bins if metric.bins is not None else "values",
        "range": [stats.get("low"), stats.get("high")] if metric.bins is not None else None,
        "table": _side(n, found.left_out, 0),
        "reference": _side(m, found.left_out, 1),
        "moved": moved,
        "distribution": distribution(found),
    }


def distribution(found: Counts) -> dict[str, Any]:
    """Every bin's counts on each side (the report draws both distributions from them):
    at most :data:`DRAWN` bins in their order, the others summed."""
    order = range(len(found.labels))
    kept = set(order)
    if len(found.labels) > DRAWN:
        kept = set(sorted(order, key=lambda i: -(found.table[i] + found.reference[i]))[:DRAWN])
    bins = [
        {"bin": found.labels[i], "table": found.table[i], "reference": found.reference[i]}
        for i in order
        if i in kept
    ]
    left = [i for i in order if i not in kept]
    others = None
    if left:
        others = {
            "bins": len(left),
            "table": sum(found.table[i] for i in left),
            "reference": sum(found.reference[i] for i in left),
        }
    return {"bins": bins, "others": others}


def _side(compared: int, left_out: Mapping[str, tuple[int, int]], side: int) -> dict[str, int]:
    return {"compared": compared, **{k: v[side] for k, v in left_out.items()}}
