"""The frequencies of a column's values (or of two columns' pairs of values), as one
group-by branch of the table's aggregate plan: what entropy and mutual information are
computed from (deequ's ``FrequencyBasedAnalyzer``), pure.

The rows where at least one of the columns is not null are grouped by their values (a
null being a value), ``n`` rows each; one aggregate over the groups then sums, with
``N`` the rows and over the groups with no null, ``n ln n`` and ``n (ln n1 + ln n2)``
(``n_i`` the rows whose value of column i is the group's, a window over the groups).
The judge finishes the arithmetic, so no sum needs ``N`` before it is known::

    entropy            = ln N - sum(n ln n) / N
    mutual information = (sum(n ln n) + P ln N - sum(n ln nx) - sum(n ln ny)) / N

(``P`` the rows of the groups with no null), both exactly deequ's sums of ``p ln p``
rewritten, with ``p = n / N``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.ir.expr import Expr
from assay.ir.metrics import FrequencyMetric
from assay.planner.kinds import MeasureKind, read, where_text
from assay.planner.sqltext import quote


@dataclass(frozen=True, slots=True)
class Frequencies:
    """The frequencies of the values of ``columns`` over the rows where at least one is
    not null (and ``where`` holds): see the module's docstring."""

    columns: tuple[str, ...]
    where: Expr | None = None


FREQUENCY_OUTPUTS = ("groups", "rows", "paired", "n_log_n", "n_log_marginals")
"""Named outputs of a :class:`Frequencies` measure: the groups with no null, the rows
(N), the rows of the groups with no null (P), ``sum(n ln n)`` and ``sum(n sum_i ln n_i)``
over those groups."""

FREQUENCIES_KIND = MeasureKind(
    lambda m: "frequencies",
    lambda m: (
        f"frequencies of ({', '.join(map(quote, m.columns))}): "
        + ", ".join(FREQUENCY_OUTPUTS)
        + where_text(m)
    ),
    lambda m: read(m, *m.columns),
    outputs=FREQUENCY_OUTPUTS,
    scan=False,
)


def frequencies_of(metric: FrequencyMetric) -> Frequencies:
    """The measure of a frequency metric (planned and judged by the same key)."""
    return Frequencies(metric.columns)


def frequency_value(metric: FrequencyMetric, stats: Mapping[str, Any]) -> float | None:
    """Entropy or mutual information from the measure's outputs; None without rows (or,
    for mutual information, without a pair with no null), as deequ has no value then."""
    rows = int(stats["rows"] or 0)
    paired = int(stats["paired"] or 0)
    if rows == 0 or paired == 0:
        return None
    n_log_n = float(stats["n_log_n"] or 0.0)
    if metric.stat == "entropy":
        if int(stats["groups"] or 0) == 1:
            return 0.0  # one value: exactly 0, not ln N - N ln N / N rounded
        return _snapped(math.log(rows) - n_log_n / rows, math.log(rows), floor=True)
    marginals = float(stats["n_log_marginals"] or 0.0)
    scale = (abs(n_log_n) + paired * math.log(rows) + abs(marginals)) / rows
    return _snapped((n_log_n + paired * math.log(rows) - marginals) / rows, scale)


CANCELLATION = 1e-12
"""The sums' rounding relative to their size (doubles carry about 1e-16): a difference
that small is 0 (independent columns give 0, as deequ's per-pair terms ln 1 do)."""


def _snapped(value: float, scale: float, floor: bool = False) -> float:
    """``value`` computed as a difference of terms of size ``scale``: 0 within their
    rounding (and never below 0 when ``floor``: an entropy)."""
    if abs(value) <= CANCELLATION * scale:
        return 0.0
    return max(0.0, value) if floor else value
