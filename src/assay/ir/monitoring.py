"""Watching a table over time: where measured values are kept (a metrics store), and how
a rule is judged against its own history (a change threshold, an anomaly strategy).

A run appends every measured value to the store (docs/monitoring.md); a rule with
``change`` or ``anomaly`` is judged, after its own check, against the values it had in
earlier runs, read once per run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from assay.ir.origin import Origin
from assay.ir.values import Threshold

StoreKind = Literal["table", "file"]
BaselineFn = Literal["last", "avg", "min", "max", "median"]
TooLittle = Literal["pass", "fail"]


@dataclass(frozen=True, slots=True)
class MetricsStore:
    """Where a run's measured values are appended and history is read from.

    ``table``: a table of the Spark catalog, written and read by the server (``format``
    when the run creates it: ``parquet`` partitioned by run, or ``delta``/``iceberg``);
    ``file``: a JSON-lines file on the client's file system.
    """

    kind: StoreKind
    location: str
    format: str = "parquet"
    origin: Origin | None = None

    def __str__(self) -> str:
        return f"table {self.location}" if self.kind == "table" else f"file {self.location}"


@dataclass(frozen=True, slots=True)
class Monitoring:
    """A run's metrics store, the tags its values are stored (and history matched) with,
    and the time they are stored under (None: when the run starts)."""

    store: MetricsStore
    tags: tuple[tuple[str, str], ...] = ()
    run_time: str | None = None
    """ISO 8601; for backfills and tests (``--run-time``)."""
    full: bool = False
    """``--full``: incremental tables scan every partition, their states rebuilt
    (docs/incremental.md)."""


@dataclass(frozen=True, slots=True)
class Baseline:
    """What the current value is compared with: the last earlier run's value
    (``last``), or an aggregate of the last ``runs`` earlier runs' values."""

    fn: BaselineFn = "last"
    runs: int = 1

    @property
    def text(self) -> str:
        return "the last run" if self.fn == "last" else f"the {self.fn} of the last {self.runs}"


@dataclass(frozen=True, slots=True)
class Change:
    """The change from the baseline must satisfy ``must`` (and ``warn``): in percent of
    the baseline when the threshold is written in percent, else as a difference."""

    baseline: Baseline
    must: Threshold
    warn: Threshold | None = None

    @property
    def runs(self) -> int:
        return self.baseline.runs


@dataclass(frozen=True, slots=True)
class AnomalyDetection:
    """One of Deequ's anomaly detection strategies, by its assay name, with its
    parameters (validated when the config is read): the current value must not be an
    anomaly of the series made of the last ``window`` earlier values and itself."""

    strategy: str
    params: tuple[tuple[str, object], ...] = ()
    window: int = 100


@dataclass(frozen=True, slots=True)
class OverTime:
    """A rule's judging against its history, after its own check: a change threshold,
    an anomaly strategy, or both. With fewer earlier values than it needs (``min_runs``
    when given, else the change's window; never fewer than the strategy can flag with)
    the rule is judged by ``too_little`` (pass, with a note saying how many are
    missing)."""

    change: Change | None = None
    anomaly: AnomalyDetection | None = None
    min_runs: int | None = None
    too_little: TooLittle = "pass"
    origin: Origin | None = field(default=None, compare=False)

    @property
    def runs(self) -> int:
        """The most earlier runs this judging reads."""
        windows = [self.min_runs or 1]
        if self.change is not None:
            windows.append(self.change.runs)
        if self.anomaly is not None:
            windows.append(self.anomaly.window)
        return max(windows)


SchemaChange = Literal["added", "removed", "retyped", "reordered"]
SCHEMA_CHANGES: tuple[SchemaChange, ...] = ("added", "removed", "retyped", "reordered")
"""The kinds of change of a table's schema between two runs: a column added, a column
removed, a column's type changed, the columns kept in another order."""
ReorderedBy = Literal["relative", "index"]


@dataclass(frozen=True, slots=True)
class SchemaChangeCheck:
    """The table's schema against the one the metrics store recorded for it in the last
    run before this one (``schema_change``; docs/monitoring.md#schema-changes): it fails
    on a change of a kind in ``fail_when``, warns on one in ``warn_when``; a change of
    another kind is reported and passes. Judged without a scan, from the schema.

    ``order``: ``relative``, a kept column is reordered when the columns kept are in
    another order (the fewest moved columns are named); ``index``, when its index differs
    (Soda's ``column index change``: a column added or removed before it moves it too).
    """

    fail_when: tuple[SchemaChange, ...] = SCHEMA_CHANGES
    warn_when: tuple[SchemaChange, ...] = ()
    order: ReorderedBy = "relative"
