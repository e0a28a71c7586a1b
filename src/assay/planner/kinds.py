"""Measure kinds: what the pure layers know of one kind of measure
(:class:`MeasureKind`), and the helpers their entries share (the registry itself is
:data:`assay.planner.measures.MEASURE_KINDS`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay.ir.expr import columns_of
from assay.planner.sqltext import render_expr


@dataclass(frozen=True, slots=True)
class MeasureKind:
    """Everything the pure layers know of one kind of measure: the suffix of its slot
    names, how ``explain`` renders it, the columns it reads (the cost model groups slots
    by them), its named outputs (empty: one value under the slot's own name; else one
    output ``<slot>_<name>`` each, read back as a mapping), and whether a scan aggregate
    computes it (else a group-by of its own). How it is emitted to Spark lives in
    :mod:`assay.emit.spark` (the only module that builds plans), which refuses to import
    when a kind registered here has no emitter there."""

    suffix: Callable[[Any], str]
    render: Callable[[Any], str]
    columns: Callable[[Any], tuple[str, ...]]
    outputs: tuple[str, ...] = ()
    scan: bool = True
    apart: Callable[[Any], bool] = lambda m: False
    """Whether Spark computes the measure as an object aggregate (no generated code): one
    such function turns the whole aggregate into an ``ObjectHashAggregate`` whose every
    other expression is interpreted (a percentile made a 100-rule scan of TPC-H SF1 about
    3x slower), so these get a scan branch of their own."""
    reference: bool = False
    """Computed by a branch over a referenced source (:mod:`assay.planner.references`),
    not by a scan or group-by of the table."""


OBJECT_AGGREGATES = frozenset(
    {"percentile", "percentile_approx", "approx_percentile", "approx_count_distinct",
     "approx_top_k"}
)  # fmt: skip
"""Aggregate functions Spark runs without generated code: ``TypedImperativeAggregate``
(the percentiles, ``approx_top_k``) and ``ImperativeAggregate`` (``approx_count_distinct``'s
HyperLogLog++), either of which turns a generated aggregate into an interpreted one."""


def where_text(m: Any) -> str:
    return f" FILTER (WHERE {render_expr(m.where)})" if m.where is not None else ""


def read(m: Any, *columns: str) -> tuple[str, ...]:
    """The columns a measure reads: its own, then those of its ``where``."""
    extra = sorted(set(columns_of(m.where)) - set(columns)) if m.where is not None else []
    return (*columns, *extra)
