"""Dataset comparison (reconciliation by key): two sources, keys, how values are compared,
and thresholds on the reconciliation metrics (docs/compare.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from assay.ir.origin import Origin
from assay.ir.rules import OnFailure
from assay.ir.sources import Source
from assay.ir.values import Threshold

DEFAULT_SAMPLE_SIZE = 5
"""Sample rows kept per failed rule of a table, or per kind of difference of a
comparison, unless the config says otherwise. Defined here, the lower of the two modules
(a suite holds comparisons); :mod:`assay.ir.suite` re-exports it for tables."""

Semantics = Literal["native", "spark-data-test"]
"""How rows are matched and values compared: ``native`` (null-safe keys, tolerance
``|s - t| <= absolute + relative * |t|``, NaN equals NaN, null versus a value counted
apart) or ``spark-data-test`` (its equality keys, row checksum, ``difference_tolerance``
on its numeric types only; see docs/compare.md)."""


@dataclass(frozen=True, slots=True)
class FrameRef:
    """A side handed over as a DataFrame by a Python caller (``assay.compare``): the IR
    holds only its label; the run is given the frame."""

    label: str


Side = Source | FrameRef

ComparisonSetting = Literal[
    "keys", "columns", "source.format", "target.format", "source_filter", "target_filter"
]
"""The settings of a comparison whose own place an error names (:meth:`DatasetComparison.place`)."""


@dataclass(frozen=True, slots=True)
class NumericTolerance:
    """Two numbers match when ``|source - target| <= absolute + relative * |target|``."""

    absolute: Decimal = Decimal(0)
    relative: Decimal = Decimal(0)

    @property
    def exact(self) -> bool:
        """No tolerance: only equal numbers match."""
        return self.absolute == 0 and self.relative == 0


EXACT = NumericTolerance()


@dataclass(frozen=True, slots=True)
class CompareCheck:
    """A threshold on one reconciliation metric (``mismatch_percent(price): "< 0.1%"``);
    ``column`` for the per-column metrics, ``side`` for ``duplicate_keys(source)``."""

    metric: str
    must: Threshold
    origin: Origin
    column: str | None = None
    side: Literal["source", "target"] | None = None
    warn: Threshold | None = None

    @property
    def label(self) -> str:
        """The metric as written: ``mismatch_percent(price)``."""
        arg = self.column or self.side
        metric = self.metric.removesuffix("_column")
        return f"{metric}({arg})" if arg else metric


@dataclass(frozen=True, slots=True)
class SdtReports:
    """spark-data-test's four outputs of one job, under ``<output_dir>/<job_name>/``:
    written in ``format`` with ``options`` and, when ``partitions > 0``, that many
    partitions. Every dataset of the job shares the one instance (its reports are unions
    of the datasets', as spark-data-test writes them)."""

    job_name: str
    output_dir: str
    format: str = "parquet"
    options: tuple[tuple[str, str], ...] = ()
    partitions: int = -1
    origin: Origin | None = field(default=None, compare=False)

    @property
    def base(self) -> str:
        """The directory every report of the job is written under."""
        return f"{self.output_dir}/{self.job_name}"


@dataclass(frozen=True, slots=True)
class DatasetComparison:
    """Compare ``target`` against ``source`` row by row, matched on ``keys``.

    ``columns`` names the non-key columns compared (None: every column both sides have);
    ``select_cols`` / ``drop_cols`` narrow both sides first (spark-data-test's
    ``select_cols``/``drop_cols``). ``tolerance`` applies to numeric columns, overridden
    per column by ``column_tolerances``. ``ignore_case`` / ``ignore_whitespace`` apply to
    string columns. With no ``checks``, everything must match (``unmatched = 0``).
    """

    name: str
    source: Side
    target: Side
    keys: tuple[str, ...]
    origin: Origin
    columns: tuple[str, ...] | None = None
    select_cols: tuple[str, ...] | None = None
    drop_cols: tuple[str, ...] = ()
    tolerance: NumericTolerance = EXACT
    column_tolerances: tuple[tuple[str, NumericTolerance], ...] = ()
    ignore_case: bool = False
    ignore_whitespace: bool = False
    checks: tuple[CompareCheck, ...] = ()
    sample_size: int = DEFAULT_SAMPLE_SIZE
    on_failure: OnFailure = "fail"
    semantics: Semantics = "native"
    reports: SdtReports | None = None
    source_filter: str | None = None
    target_filter: str | None = None
    places: tuple[tuple[ComparisonSetting, Origin], ...] = ()
    """Where ``keys``, ``columns`` and each side's format were written, when the front end
    recorded it (a config's key, a command-line option); see :meth:`place`."""

    def place(self, setting: ComparisonSetting) -> Origin:
        """Where ``setting`` was written: its own place when recorded, else the
        comparison's origin."""
        for name, origin in self.places:
            if name == setting:
                return origin
        return self.origin

    def tolerance_of(self, column: str) -> NumericTolerance:
        """The tolerance of ``column`` (its own, else the comparison's)."""
        for name, tol in self.column_tolerances:
            if name.lower() == column.lower():
                return tol
        return self.tolerance


MetricArg = Literal["none", "column", "side"]

METRICS: dict[str, MetricArg] = {
    "source_rows": "none",
    "target_rows": "none",
    "compared": "none",
    "matched": "none",
    "mismatched": "none",
    "unmatched": "none",
    "unreconciled": "none",
    "missing_in_target": "none",
    "missing_in_source": "none",
    "matched_percent": "none",
    "mismatch_percent": "none",
    "duplicate_keys": "side",
    "duplicate_rows": "side",
    "columns_missing_in_target": "none",
    "columns_missing_in_source": "none",
    "type_differences": "none",
    "mismatched_column": "column",
    "mismatch_percent_column": "column",
    "null_mismatched": "column",
    "max_abs_diff": "column",
}
"""The reconciliation metrics a check may judge, and the argument each takes
(docs/compare.md). ``mismatched(col)`` and ``mismatch_percent(col)`` are stored as
``mismatched_column`` / ``mismatch_percent_column``: the same words without an argument
are the whole-row metrics."""

DEFAULT_CHECK_METRICS = ("unmatched", "columns_missing_in_target")
"""With no checks, a comparison passes when no row is unmatched (``unmatched = 0``) and
no column of the source is missing from the target (``columns_missing_in_target = 0``)."""
