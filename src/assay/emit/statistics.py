"""What the server's optimizer knows about a source before any scan: its estimated size,
and whether a branch of the aggregate can read it column by column (one analysis RPC).

The cost model splits a large table's aggregate into branches that each read only the
columns they need (:mod:`assay.planner.cost`). That pays on a source whose scan prunes
columns and costs nothing more to repeat; on anything else every branch recomputes it
(parses a CSV again, repeats a join). A path or catalog source names its format, but a
DataFrame handed to ``assay.validate`` or a SQL source does not: its optimized plan does.
:func:`read_plan` reads Spark's ``explain("cost")`` text: the source is columnar when the
plan is projections, filters and unions over relations that prune columns (parquet, orc,
a cached frame, local rows), not columnar when anything else is in it (a join, an
aggregate, a window, a CSV or JSON file), and unknown when a leaf says no format (a
DataSource V2 relation: the source's own kind decides).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True, slots=True)
class ScanFacts:
    """The optimizer's view of a source: ``size_bytes`` (None: unknown) and ``columnar``
    (None: the plan does not say; see the module docstring)."""

    size_bytes: int | None = None
    columnar: bool | None = None


UNKNOWN = ScanFacts()

_SIZE = re.compile(r"sizeInBytes=([0-9.]+)\s*(B|KiB|MiB|GiB|TiB|PiB|EiB)")
_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
          "EiB": 2**60}  # fmt: skip
_NODE = re.compile(r"^[\s:|+\-]*([A-Za-z][A-Za-z0-9]*)(.*)$")
# a file relation prints ``Relation [cols] parquet, Statistics(...)`` (a catalog table
# ``Relation db.t[cols] parquet``): the format is the word after the column list
_FILE_FORMAT = re.compile(r"\]\s*([A-Za-z0-9_.]+)")
_PASS_THROUGH = frozenset({"Project", "Filter", "Union"})
_COLUMNAR_LEAVES = frozenset({"InMemoryRelation", "LocalRelation", "Range", "OneRowRelation"})
_COLUMNAR_FORMATS = frozenset({"parquet", "orc"})
_FORMATLESS_LEAVES = frozenset({"RelationV2", "DataSourceV2Relation", "StreamingRelationV2"})


def scan_facts(df: DataFrame) -> ScanFacts:
    """The server's size estimate and columnarity of ``df`` (an analysis RPC, no scan);
    :data:`UNKNOWN` when the server does not answer."""
    try:
        explain: Callable[..., str] = getattr(df, "_explain_string")  # noqa: B009
        text = explain(mode="cost")  # private, but the only way to read the statistics
    except Exception:  # noqa: BLE001 - the facts are optional
        return UNKNOWN
    return read_plan(text)


def read_plan(text: str) -> ScanFacts:
    """The facts in an ``explain("cost")`` text (pure; see the module docstring)."""
    optimized = _section(text, "== Optimized Logical Plan ==")
    sizes = [float(n) * _UNITS[u] for n, u in _SIZE.findall(optimized or text)]
    size = None if not sizes or max(sizes) >= 2**62 else int(max(sizes))
    return ScanFacts(size, _columnar(optimized) if optimized else None)


def _section(text: str, title: str) -> str | None:
    if title not in text:
        return None
    return text.split(title, 1)[1].split("\n== ", 1)[0]


def _columnar(plan: str) -> bool | None:
    verdicts: set[bool | None] = set()
    cached_at: int | None = None  # a cached relation prints the plan that filled it below
    for line in plan.splitlines():
        found = _NODE.match(line)
        if not found:
            continue
        depth = found.start(1)
        if cached_at is not None and depth > cached_at:
            continue
        cached_at = depth if found.group(1) == "InMemoryRelation" else None
        verdicts.add(_node_columnar(found.group(1), found.group(2)))
    if not verdicts or False in verdicts:
        return False
    return None if None in verdicts else True


def _node_columnar(name: str, rest: str) -> bool | None:
    """One node of the plan: columnar (True), recomputed by every branch (False), or a
    relation that names no format (None)."""
    if name in _PASS_THROUGH or name in _COLUMNAR_LEAVES:
        return True
    if name in _FORMATLESS_LEAVES:
        return None
    if name == "Relation":
        found = _FILE_FORMAT.search(rest)
        return bool(found) and found.group(1).lower() in _COLUMNAR_FORMATS  # type: ignore[union-attr]
    return False
