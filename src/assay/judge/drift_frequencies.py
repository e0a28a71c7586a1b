"""A categorical column's stored state for drift against history (pure): its value
counts, bounded, as JSON bytes (the metrics store's ``state``, measure ``frequencies``),
read back, combined over runs, and turned into the bins the drift methods compare.

The state keeps the ``bound`` most frequent values (ties by value) and sums the rest
into ``others`` (how many values, how many rows). Compared with another state, every
value kept by either side is a bin, and whatever either side left out is one ``others``
bin. With fewer distinct values than the bound on both sides the bins are the exact ones
and so is every statistic; past it the statistic is that of coarser bins, never above
the exact one for JS and chi-square without Yates' correction (f-divergences of the two
distributions: merging bins cannot raise one), nor for PSI and KL where no bin is empty
on a side (their 1e-5 floor of an empty share is not an f-divergence's; the tests found
none above on their samples).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

BOUND = 1000
"""The values a state keeps by default."""
OTHERS = "(others)"
"""The label of the bin of the values a state left out."""


class StateError(ValueError):
    """Bytes that are not a frequencies state."""


@dataclass(frozen=True, slots=True)
class Frequencies:
    """A side's counts: the values kept (label -> rows) and the rest summed."""

    counts: Mapping[str, float]
    others: float = 0.0
    others_values: int = 0

    @property
    def n(self) -> float:
        return math.fsum(self.counts.values()) + self.others


def encode(counts: Mapping[Any, int], bound: int = BOUND) -> bytes:
    """The state of a side's value counts (values as text; null is left out, counted
    apart as the rule counts it)."""
    ranked = sorted(((str(v), int(c)) for v, c in counts.items()), key=lambda p: (-p[1], p[0]))
    kept, rest = ranked[:bound], ranked[bound:]
    return orjson.dumps(
        {"values": kept, "others": [len(rest), sum(c for _, c in rest)]},
        option=orjson.OPT_SORT_KEYS,
    )


def encoded(kept: Sequence[tuple[str, int]], others_values: int, others_rows: int) -> bytes:
    """The state of counts already bounded (the table's aggregate kept the most frequent
    and summed the others), as :func:`encode` writes it."""
    ranked = sorted(((str(v), int(c)) for v, c in kept), key=lambda p: (-p[1], p[0]))
    return orjson.dumps(
        {"values": ranked, "others": [int(others_values), int(others_rows)]},
        option=orjson.OPT_SORT_KEYS,
    )


def decode(data: bytes) -> Frequencies:
    """A state read back."""
    try:
        found = orjson.loads(data)
        values = {str(v): float(c) for v, c in found["values"]}
        others_values, others = found["others"]
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise StateError(f"not a frequencies state: {e}") from None
    return Frequencies(values, float(others), int(others_values))


def combined(states: Sequence[Frequencies], average: bool = False) -> Frequencies:
    """Several runs' states as one reference: their counts summed, or with ``average``
    their shares averaged (each run counts alike, as rows of a run of 1)."""
    kept = [s for s in states if s.n]
    total: dict[str, float] = {}
    others = 0.0
    others_values = 0
    for s in kept:
        scale = 1.0 / (s.n * len(kept)) if average else 1.0
        for v, c in s.counts.items():
            total[v] = total.get(v, 0.0) + c * scale
        others += s.others * scale
        others_values = max(others_values, s.others_values)
    return Frequencies(total, others, others_values)


def bins(table: Frequencies, reference: Frequencies) -> tuple[list[str], list[float], list[float]]:
    """The labels and each side's counts over the same bins: every value kept by
    either side (a value one side left out moves, on both sides, to ``others``)."""
    both = sorted(set(table.counts) & set(reference.counts))
    only = sorted(set(table.counts) ^ set(reference.counts))
    moved = [v for v in only if (v in table.counts and reference.others_values)
             or (v in reference.counts and table.others_values)]  # fmt: skip
    labels = both + [v for v in only if v not in moved]
    t = [table.counts.get(v, 0.0) for v in labels]
    r = [reference.counts.get(v, 0.0) for v in labels]
    t_rest = table.others + sum(table.counts.get(v, 0.0) for v in moved)
    r_rest = reference.others + sum(reference.counts.get(v, 0.0) for v in moved)
    if t_rest or r_rest:
        labels, t, r = [*labels, OTHERS], [*t, t_rest], [*r, r_rest]
    return labels, t, r
