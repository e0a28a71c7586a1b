"""A drift rule against the metrics store's history, judged (pure): this run's KLL sketch
of the column against the sketches earlier runs stored (:mod:`assay.judge.drift_kll`),
each method's statistic between the two CDFs, with the error bound the sketches allow.

- ``ks``: the largest difference of the CDFs, within the sum of their rank-error bounds
  of the exact statistic; ``ks_p_value``: ``ks_2samp``'s p-value of that statistic for
  the two sides' sizes (an average of runs: their mean size);
- ``psi``, ``js``, ``kl``, ``chi_square`` (and ``_p_value``): over ``bins`` equal widths
  of the two sketches' range, each bin's share within twice its sketch's bound (the
  chi-square's counts: the shares times each side's values);
- ``wasserstein``: the area between the two CDFs (``sum |F - G| dx`` over the sketches'
  values), within the largest bound times the range.

A sketch that kept every value (at most about ``k`` values) is exact: its bound is 0; one
of a sample of the column (more than ``planner.drift.SAMPLE`` values) adds the sample's
bound (:func:`assay.judge.drift_kll.sample_error`) and stands for the column's values,
counted exactly (the state row's ``value``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from assay.ir.drift import DriftMetric, HistoryBaseline
from assay.ir.rules import MetricCheck, Rule
from assay.judge import drift_frequencies as frequencies
from assay.judge.drift import Counts, chi_square, details, js, kl, ks_p_value, psi
from assay.judge.drift import distribution as drawn_bins
from assay.judge.drift import drift_value as source_value
from assay.judge.drift_kll import Distribution, Sketch, distribution, ks, read, shares
from assay.judge.outcome import Number, Outcome, Values
from assay.planner.drift import sketch_of as sketch_measure

Stored = tuple[tuple[str, bytes, float], ...]
"""The states a rule is judged against: (run id, state bytes, the values it stands for),
oldest first."""


@dataclass(frozen=True, slots=True)
class HistoryDrift:
    """What a drift rule against history measured: its value (None: nothing stored, or
    no value on a side), the statistic, p-value and error bound, the two CDFs."""

    value: float | None
    statistic: float | None
    p_value: float | None
    bound: float | None
    """None: a categorical state past its bound (the statistic is that of coarser bins)."""
    table: Distribution
    reference: Distribution
    runs: tuple[str, ...]
    edges: tuple[float, ...] = ()
    table_shares: tuple[float, ...] = ()
    reference_shares: tuple[float, ...] = ()
    labels: tuple[str, ...] = ()
    """A categorical column's bins (its values kept, and the others)."""


def stored_states(metric: DriftMetric, values: Mapping[Any, Any]) -> Stored:
    """The states the run put beside the rule's sketch (none: a first run)."""
    found = values[sketch_measure(metric)]
    return tuple(found.get("stored", {}).get(metric.reference, ()))


def sketch_of(data: Any, of: Any = 0) -> Sketch:
    """A sketch from the aggregate's bytes (none: a sketch of no value), standing for
    ``of`` values (the column's, counted exactly) when it read a sample of them."""
    return read(bytes(data), float(of or 0)) if data is not None else Sketch(0, 0, (), ())


def judged(metric: DriftMetric, values: Mapping[Any, Any]) -> HistoryDrift:
    """The rule's statistic between this run's sketch and the stored ones."""
    baseline = metric.reference
    assert isinstance(baseline, HistoryBaseline)
    stored = stored_states(metric, values)
    if metric.bins is None:
        return categorical(metric, values[sketch_measure(metric)], stored, baseline)
    measured = values[sketch_measure(metric)]
    now = sketch_of(measured["sketch"], measured.get("values"))
    t = distribution([now])
    r = distribution([read(b, n) for _, b, n in stored], average=not baseline.last)
    runs = tuple(run for run, *_ in stored)
    none = HistoryDrift(None, None, None, 0.0, t, r, runs)
    if not stored or t.n == 0 or r.n == 0:
        return none
    n, m = t.n, max(1, round(r.n / len(stored)) if not baseline.last else r.n)
    method = metric.method
    if method in ("ks", "ks_p_value"):
        d = ks(t, r)
        p = ks_p_value(d, n, m)
        value = p if method == "ks_p_value" else d
        return HistoryDrift(value, d, p, t.error + r.error, t, r, runs)
    if method == "wasserstein":
        w, span = wasserstein(t, r)
        return HistoryDrift(w, w, None, max(t.error, r.error) * span, t, r, runs)
    edges = _edges(t, r, metric.bins or 10)
    if not edges:
        return none
    st, sr = shares(t, edges), shares(r, edges)
    bound = 2 * max(t.error, r.error)
    if method in ("chi_square", "chi_square_p_value"):
        statistic, p = chi_square([s * n for s in st], [s * m for s in sr])  # type: ignore[misc]
        value = p if method.endswith("p_value") else statistic
        return HistoryDrift(value, statistic, p, bound, t, r, runs, edges, tuple(st), tuple(sr))
    statistic = {"psi": psi, "js": js, "kl": kl}[method](st, sr)  # type: ignore[arg-type]
    return HistoryDrift(statistic, statistic, None, bound, t, r, runs, edges, tuple(st), tuple(sr))


def categorical(
    metric: DriftMetric, found: Mapping[str, Any], stored: Stored, baseline: HistoryBaseline
) -> HistoryDrift:
    """A categorical column's statistic between this run's value counts and the stored
    ones (:mod:`assay.judge.drift_frequencies`): exact while both sides kept every value."""
    kept = {str(row["v"]): float(row["n"]) for row in found["kept"] or ()}
    t = frequencies.Frequencies(kept, float(found["others_rows"]), int(found["others_values"]))
    r = frequencies.combined([frequencies.decode(b) for _, b, _ in stored], not baseline.last)
    n, runs = t.n, tuple(run for run, *_ in stored)
    sizes = [frequencies.decode(b).n for _, b, _ in stored]
    m = r.n if baseline.last else math.fsum(sizes) / max(1, len(sizes))
    sides = Distribution((), (), round(n), 0.0), Distribution((), (), round(m), 0.0)
    if not stored or n == 0 or r.n == 0:
        return HistoryDrift(None, None, None, 0.0, *sides, runs)
    labels, tc, rc = frequencies.bins(t, r)
    rc = [c * m / r.n for c in rc]  # an average's shares as counts of its mean run
    exact = t.others_values == 0 and r.others_values == 0
    bound = 0.0 if exact else None
    st, sr = tuple(c / n for c in tc), tuple(c / m for c in rc)
    if metric.method.startswith("chi_square"):
        statistic, p = chi_square(tc, rc)  # type: ignore[arg-type]
        value = p if metric.method.endswith("p_value") else statistic
        return HistoryDrift(value, statistic, p, bound, *sides, runs, (), st, sr, tuple(labels))
    statistic = {"psi": psi, "js": js, "kl": kl}[metric.method](tc, rc)  # type: ignore[arg-type]
    return HistoryDrift(statistic, statistic, None, bound, *sides, runs, (), st, sr, tuple(labels))


def _edges(t: Distribution, r: Distribution, bins: int) -> tuple[float, ...]:
    """``bins`` equal widths of both sides' range (the sketches keep each column's exact
    minimum and maximum), as numpy.linspace cuts it (none
    when a double cannot cut it); one value alone: ``[value - 0.5, value + 0.5]``."""
    low = min(t.values[0] if t.low is None else t.low, r.values[0] if r.low is None else r.low)
    high = max(
        t.values[-1] if t.high is None else t.high, r.values[-1] if r.high is None else r.high
    )
    if low == high:
        low, high = low - 0.5, high + 0.5
    step = (high - low) / bins
    edges = tuple([i * step + low for i in range(bins)] + [high])
    if not all(math.isfinite(e) for e in edges) or any(
        a >= b for a, b in zip(edges, edges[1:], strict=False)
    ):
        return ()
    return edges


def wasserstein(t: Distribution, r: Distribution) -> tuple[float, float]:
    """The area between the two CDFs (scipy's ``wasserstein_distance`` of the values the
    sketches stand for), and the range it spans."""
    points = sorted({*t.values, *r.values})
    area = math.fsum(
        abs(t.at(a) - r.at(a)) * (b - a) for a, b in zip(points, points[1:], strict=False)
    )
    return area, points[-1] - points[0]


def history_details(
    metric: DriftMetric, values: Mapping[Any, Any], threshold: str
) -> dict[str, Any]:
    """``details.drift`` of a rule against history: the method, statistic, p-value,
    threshold, whether exact and the error bound, the runs compared, each side's counts
    and the bins that moved most."""
    found = judged(metric, values)
    measured = values[sketch_measure(metric)]
    left = {k: measured.get(o, 0) for k, o in (("null", "nulls"), ("nan", "nan"),
                                                ("infinite", "infinite"))}  # fmt: skip
    baseline = metric.reference
    assert isinstance(baseline, HistoryBaseline)
    moved: list[dict[str, Any]] = []
    labels = list(found.labels) or _labels(found.edges)
    t, r = found.table_shares, found.reference_shares
    order = sorted(range(len(labels)), key=lambda i: -abs(t[i] - r[i]))
    for i in order[:5]:
        moved.append({"bin": labels[i], "table_share": found.table_shares[i],
                      "reference_share": found.reference_shares[i]})  # fmt: skip
    return {
        "method": metric.method,
        "statistic": found.statistic,
        "p_value": found.p_value,
        "threshold": threshold,
        "bins": metric.bins if metric.bins is not None else "values",
        "range": [found.edges[0], found.edges[-1]] if found.edges else None,
        "exact": found.bound == 0.0 if found.runs else None,  # None: a first run
        "error_bound": found.bound,
        "reference_runs": list(found.runs),
        "history": baseline.text(),
        "table": {"compared": found.table.n, **{k: int(v or 0) for k, v in left.items()}},
        "reference": {"compared": found.reference.n},
        "moved": moved,
        "distribution": _drawn(found, labels),
    }


def _drawn(found: HistoryDrift, labels: Sequence[str]) -> dict[str, Any]:
    """``distribution``, as against a source (the report draws it): each bin's values
    on each side, estimated from the shares (a sketch's, or an average's)."""
    t = tuple(round(s * found.table.n) for s in found.table_shares)
    r = tuple(round(s * found.reference.n) for s in found.reference_shares)
    return drawn_bins(Counts(tuple(labels), t, r, {}))


def _labels(edges: Sequence[float]) -> list[str]:
    last = len(edges) - 2
    return [
        f"[{a:.6g}, {b:.6g}{']' if i == last else ')'}"
        for i, (a, b) in enumerate(zip(edges, edges[1:], strict=False))
    ]


def drift_value(metric: DriftMetric, values: Values, rows: int) -> Number | None:
    """The number a drift rule judges (``judge.evaluate.METRIC_VALUES``), against a
    source or against history."""
    if metric.historical:
        return judged(metric, values).value
    return source_value(metric, values, rows)


def with_drift(judged_by: Callable[..., Outcome]) -> Callable[..., Outcome]:
    """A metric judge whose drift rules' outcomes carry ``details.drift``."""

    def judge(rule: Rule, check: Any, values: Values, rows: int) -> Outcome:
        outcome = judged_by(rule, check, values, rows)
        metric = check.metric if isinstance(check, MetricCheck) else None
        if isinstance(metric, DriftMetric) and outcome.severity != "error":
            said = (
                history_details(metric, values, check.must.text)
                if metric.historical
                else details(check, values)
            )
            return replace(outcome, details={**(outcome.details or {}), "drift": said})
        return outcome

    return judge


DRIFT_VALUES: dict[type, Callable[[Any, Values, int], Number | None]] = {DriftMetric: drift_value}
"""The drift metric's entry of :data:`assay.judge.evaluate.METRIC_VALUES`."""
