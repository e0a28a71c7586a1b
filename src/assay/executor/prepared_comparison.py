"""A comparison bound to its sides' frames: what :mod:`assay.executor.compare` prepares
and measures, and :mod:`assay.executor.sdt_reports` writes spark-data-test's reports from.

Its own module so that both import it and neither imports the other back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.comparison.plan import ComparePlan
from assay.ir.compare import DatasetComparison

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass
class PreparedComparison:
    """A comparison bound to its sides' frames and schemas (analysis RPCs only)."""

    comparison: DatasetComparison
    plan: ComparePlan
    source: DataFrame
    target: DataFrame
    pairs: DataFrame | None = None
    totals: dict[str, Any] | None = None
    columns: list[dict[str, Any]] = field(default_factory=list)
    differing_rows: int = 0
    """spark-data-test's pairs whose checksums differ plus the rows of one side only."""
    differing_keys: list[tuple[Any, ...]] | None = None
    """The keys of spark-data-test's pairs whose checksums differ, when the samples plan
    brought them."""
