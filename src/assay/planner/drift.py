"""The distribution of a column beside a referenced source's (a ``drift`` rule's
measure), as ONE branch of the table's aggregate plan (pure; its Spark frame is
:mod:`assay.emit.drift`, the statistics :mod:`assay.judge.drift`).

The table's values (the rows a rule's filter keeps) and the referenced side's are
unioned, each row marked with its side, and grouped by value: each distinct value once,
with its rows on each side. Everything else is computed over those groups, in one line
of operators (no group is read twice, so Spark scans each source once):

- numeric bins: the union's finite range ``[low, high]`` (windows over all the groups),
  cut in ``bins`` equal widths exactly as ``numpy.histogram(values, bins, (low, high))``
  cuts it (the last bin closed; a value on an inner edge in the bin it opens), a null,
  a NaN and an infinity each in a bin of its own (``-1``, ``-2``, ``-3``), left out of
  every statistic and counted;
- categories (``bins`` None): each value is its own bin, a null in a bin of its own;
- sorted (``ordered``: KS, Wasserstein): the groups' running counts in value order
  (a window over the distinct values sorted), giving each side's empirical CDF at every
  value, hence the exact two-sample KS statistic (the largest difference) and the
  Wasserstein distance (the differences weighted by the gap to the next value).

Then the groups are summed per bin, and one row holds the bins and the two sorted
statistics. Every distribution against the same referenced source (and filter) is one
branch (:mod:`assay.planner.drift_plan`): each side read once, its columns stacked as
(column, value) rows, the windows partitioned by column (each column's sort of its
distinct values), each rule's bins cut from its column's groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from assay.ir.drift import DriftMetric, HistoryBaseline
from assay.ir.expr import And, Expr
from assay.ir.sources import Source
from assay.planner.kinds import MeasureKind, read, where_text
from assay.planner.sqltext import quote, render_source

NULL_BIN, NAN_BIN, INFINITE_BIN = -1, -2, -3
"""The numeric bins of the values no statistic reads: null, NaN, an infinity."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """The counts of ``column``'s values (where ``where`` holds) and of the referenced
    ``source``'s ``reference_column``, per bin (see the module's docstring), with the
    exact KS statistic and Wasserstein distance when ``ordered``."""

    column: str
    source: Source
    reference_column: str
    bins: int | None = 10
    ordered: bool = False
    where: Expr | None = None


DRIFT_OUTPUTS = ("bins", "low", "high", "ks", "wasserstein")
"""Named outputs of a :class:`Distribution`: the bins (a list of ``(bin, table rows,
referenced rows)``, the bin a number, or the value itself for categories), the union's
finite range, and (when ``ordered``) the KS statistic and the Wasserstein distance."""


def distribution_of(metric: DriftMetric) -> Distribution:
    """The measure of a drift metric (planned and judged by the same key)."""
    assert not isinstance(metric.reference, HistoryBaseline)
    return Distribution(
        metric.column,
        metric.reference.source,
        metric.reference.columns[0],
        metric.bins,
        metric.ordered,
    )


def render_distribution(m: Distribution) -> str:
    """A :class:`Distribution` measure as ``explain`` shows it."""
    bins = "its values" if m.bins is None else f"{m.bins} equal-width bins of the finite range"
    sorted_ = ", sorted: KS and Wasserstein" if m.ordered else ""
    return (
        f"distribution of {quote(m.column)}{where_text(m)} and {quote(m.reference_column)}"
        f" OF {render_source(m.source)} over {bins}{sorted_}"
    )


DRIFT_KIND = MeasureKind(
    lambda m: "drift",
    render_distribution,
    lambda m: read(m, m.column),
    outputs=DRIFT_OUTPUTS,
    scan=False,
    reference=True,
)

KLL_K = 200
"""The KLL sketch's ``k`` (Spark's default): a CDF within 1.33% (99% confidence)."""

SAMPLE = 100_000
"""The values a sketch is taken from, about, at most: above it the sketches read a
Bernoulli sample of the rows (each column's sample of about this many values at least),
whose CDF is within ``sqrt(ln(200) / (2 s))`` of the column's (DKW, 99%; 0.0051 at
100,000 values), added to the sketch's own bound. The counts stay exact."""


@dataclass(frozen=True, slots=True)
class Sketch:
    """A drift rule's measure against history, in the table's one plan: the KLL sketch
    of ``column``'s finite values cast to double (``kll_sketch_agg_double(CAST(column AS
    DOUBLE), k)``, Spark 4.1+), over a sample of about ``sample`` of them when there are
    more (:data:`SAMPLE`), and its finite values, nulls, NaN and infinities counted
    exactly (the last three left out of every statistic, as against a source)."""

    column: str
    k: int = KLL_K
    where: Expr | None = None
    sample: int = SAMPLE
    expected: int = 0
    """The finite values the newest stored run counted (0: none known): with it, the
    sampling rate is ``sample / expected`` and the sketch's read and the counts are
    independent; without, an exact count sets the rate first."""
    counted: bool = False
    """Whether its counts ride in another scan branch of the plan (a
    :class:`SketchCounts` there, :func:`assay.planner.drift_plan.counted_beside`): its
    own branch then reads only the sample."""


@dataclass(frozen=True, slots=True)
class SketchCounts:
    """A :class:`Sketch`'s exact counts (its ``nulls``, ``nan``, ``infinite`` and
    ``values`` outputs, under the sketch's slot name) as generated-code ``count_if``
    columns of a scan branch that reads its column anyway (the plan's form of them when
    the sampling rate is known: :func:`assay.planner.drift_plan.counted_beside`)."""

    sketch: Sketch


SKETCH_OUTPUTS = ("sketch", "nulls", "nan", "infinite", "values")
"""Named outputs of a :class:`Sketch`: its bytes, the values left out, the finite values
it stands for (more than the sketch's own ``n`` when it read a sample). The run adds
``stored``: the states earlier runs stored, by baseline (:func:`stored_states`)."""


def render_sketch(m: Sketch) -> str:
    """A :class:`Sketch` measure as ``explain`` shows it: where its counts are made and
    what sets its sampling rate."""
    sketch = (
        f"kll_sketch_agg_double(CAST({quote(m.column)} AS DOUBLE), {m.k}){where_text(m)}"
        f" over a sample of about {m.sample:,} values when there are more"
    )
    if m.counted:
        return f"{sketch} (rate {m.sample:,}/{m.expected:,} stored; counted in a scan branch)"
    if m.expected:
        return f"{sketch} (rate {m.sample:,}/{m.expected:,} stored), its values counted here"
    return (
        f"{sketch}, its values counted first (the rate); with a count stored by an earlier"
        " run, counted in a scan branch reading the column instead"
    )


def render_sketch_counts(m: SketchCounts) -> str:
    """A :class:`SketchCounts` as ``explain`` shows it."""
    counted = f"{quote(m.sketch.column)}'s nulls, NaN, infinities and finite values"
    return f"count_if of {counted}{where_text(m.sketch)} (its sketch's counts)"


SKETCH_KIND = MeasureKind(
    lambda m: "kll",
    render_sketch,
    lambda m: read(m, m.column),
    outputs=SKETCH_OUTPUTS,
    apart=lambda m: True,  # an object aggregate: a scan branch of its own
)


VALUES_KEPT = 1000
"""The values a categorical column's stored state keeps (its most frequent)."""


@dataclass(frozen=True, slots=True)
class ValueCounts:
    """A categorical drift rule's measure against history, a group-by branch of the
    table's aggregate: ``column``'s values (as text) and their rows, the ``bound`` most
    frequent kept (ties by value), the others summed, the nulls counted."""

    column: str
    bound: int = VALUES_KEPT
    where: Expr | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.column,)


SKETCH_COUNTS_KIND = MeasureKind(
    lambda m: "kll",
    render_sketch_counts,
    lambda m: read(m.sketch, m.sketch.column),
    outputs=SKETCH_OUTPUTS[1:],
)
"""Outputs under the sketch's slot name: the counts of :data:`SKETCH_OUTPUTS`."""


VALUE_COUNTS_OUTPUTS = ("kept", "others_values", "others_rows", "nulls")
"""Named outputs of a :class:`ValueCounts`: the kept ``(v, n)`` pairs, how many values and
rows the others are, the null rows."""

VALUE_COUNTS_KIND = MeasureKind(
    lambda m: "counts",
    lambda m: f"the {m.bound} most frequent values of {quote(m.column)}{where_text(m)}",
    lambda m: read(m, m.column),
    outputs=VALUE_COUNTS_OUTPUTS,
    scan=False,
)


def sketch_of(metric: DriftMetric) -> Sketch | ValueCounts:
    """The measure of a drift metric against history: a number's sketch, a category's
    bounded value counts."""
    return Sketch(metric.column) if metric.bins is not None else ValueCounts(metric.column)


def _drift_measures(metric: DriftMetric) -> tuple[Any, ...]:
    if isinstance(metric.reference, HistoryBaseline):
        return (sketch_of(metric),)
    return (distribution_of(metric),)


DriftMeasure = Distribution | Sketch | SketchCounts | ValueCounts
"""The drift measures (members of :data:`assay.planner.measures.Measure`)."""

DRIFT_KINDS = {
    Distribution: DRIFT_KIND,
    Sketch: SKETCH_KIND,
    SketchCounts: SKETCH_COUNTS_KIND,
    ValueCounts: VALUE_COUNTS_KIND,
}


def _filtered(m: Any, c: Expr) -> Any:
    if isinstance(m, SketchCounts):
        return SketchCounts(_filtered(m.sketch, c))
    return replace(m, where=c if m.where is None else And((c, m.where)))


DRIFT_FILTERED: dict[type, Callable[[Any, Expr], Any]] = dict.fromkeys(DRIFT_KINDS, _filtered)
"""The drift measures' entries of :data:`assay.planner.measures.MEASURE_KINDS` and
``FILTERED`` (a filter kept as measures' ``where``)."""

DRIFT_MEASURES: dict[type, Callable[[Any], tuple[Any, ...]]] = {DriftMetric: _drift_measures}
"""The drift metric's entry of :data:`assay.planner.measures.METRIC_MEASURES`."""
