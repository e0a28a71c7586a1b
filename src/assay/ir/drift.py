"""A column's distribution compared with a reference's (``drift``): the metric a rule
judges, the number it measures being the distance (or the test's p-value) between the
table's values of ``column`` and the referenced source's values of its column.

How the values are binned and each method's definition: :mod:`assay.planner.drift` (the
measure, one branch of the table's aggregate plan) and :mod:`assay.judge.drift` (the
statistics from the counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assay.ir.references import Reference

DriftMethod = Literal[
    "psi", "js", "kl", "ks", "ks_p_value", "wasserstein", "chi_square", "chi_square_p_value"
]

DRIFT_METHODS: tuple[DriftMethod, ...] = (
    "psi",
    "js",
    "kl",
    "ks",
    "ks_p_value",
    "wasserstein",
    "chi_square",
    "chi_square_p_value",
)

ORDERED_METHODS = frozenset({"ks", "ks_p_value", "wasserstein"})
"""The methods read from the sorted values themselves (exact, not from the bins): their
column is numeric, and the plan sorts the distinct values."""


@dataclass(frozen=True, slots=True)
class HistoryBaseline:
    """The reference of a drift rule judged against the metrics store's history: the
    column's distribution as earlier runs of the rule stored it (a KLL sketch of a
    number, the bounded value counts of a category). ``last``: the newest earlier run;
    ``runs``: the average of the newest ``runs`` (each counting alike); ``run_id``: that
    run's, pinned."""

    last: bool = True
    runs: int = 1
    run_id: str | None = None

    def text(self) -> str:
        """As the config writes it."""
        if self.run_id is not None:
            return f"{{history: {{run_id: {self.run_id}}}}}"
        return "{history: last}" if self.last else f"{{history: {{runs: {self.runs}}}}}"


@dataclass(frozen=True, slots=True)
class DriftMetric:
    """The distance between the distribution of the table's ``column`` and the
    referenced side's (``reference.columns[0]``), by ``method``; over ``bins``
    equal-width bins of the union's finite range (a number), or over the values
    themselves (``bins`` None: categories). No value when either side has no value to
    compare (only nulls, no rows)."""

    column: str
    reference: Reference | HistoryBaseline
    method: DriftMethod
    bins: int | None = 10

    @property
    def ordered(self) -> bool:
        """Whether the method reads the sorted values (KS, Wasserstein)."""
        return self.method in ORDERED_METHODS

    @property
    def historical(self) -> bool:
        """Whether the reference is the metrics store's history (not a source)."""
        return isinstance(self.reference, HistoryBaseline)
