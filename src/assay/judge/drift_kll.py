"""A column's distribution from KLL sketches (pure, standard library only): Spark's
``kll_sketch_agg_double`` bytes read back, combined over runs, and compared with the
drift methods' statistics, each with the error bound the sketches allow.

The bytes are Apache DataSketches' compact serialization of a ``KllDoublesSketch``
(Spark 4.1+ builds them with the Java library): an 8-byte preamble (preamble ints, serial
version, family 15, flags, ``k`` as a little-endian uint16, ``m``); an empty sketch ends
there, a single value follows as one double; otherwise ``n`` (uint64), ``min_k``
(uint16), the number of levels (uint8), one padding byte, the levels' offsets (uint32
each, the top's end left out), the minimum and maximum (doubles), then the retained
values, level by level. A value kept at level ``h`` stands for ``2^h`` values of the
column, so a sketch is a weighted sample whose total weight is ``n``.

Error: a sketch's normalized rank error (DataSketches'
``getNormalizedRankError(k, false)``, ``2.296 / k^0.9723``: 1.33% at Spark's default
``k = 200``) bounds, with 99% confidence, how far its CDF is from the column's at any
value; a sketch that never compacted (``n`` at most about ``k`` values: every value at
level 0) is exact. The KS statistic between two sketches is within the sum of their
bounds of the exact one (:func:`ks_bound`).
"""

from __future__ import annotations

import bisect
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, replace

FAMILY = 15
"""DataSketches' family id of KLL."""
_EMPTY, _SINGLE = 1, 4


class SketchError(ValueError):
    """Bytes that are not a KLL doubles sketch."""


@dataclass(frozen=True, slots=True)
class Sketch:
    """A KLL doubles sketch read back: ``n`` values of the column summarised by weighted
    values (sorted, with their weights), ``k``, and whether it is exact."""

    n: int
    k: int
    values: tuple[float, ...]
    weights: tuple[int, ...]
    low: float | None = None
    """The column's minimum (the sketch's preamble keeps it; None: no value)."""
    high: float | None = None
    """The column's maximum."""
    of: int = 0
    """The column's finite values when the sketch read a sample of them (0: ``n``, all)."""

    @property
    def size(self) -> int:
        """The column's values the sketch stands for."""
        return max(self.n, self.of)

    @property
    def exact(self) -> bool:
        """Every value kept at weight 1 and none left out by a sample: the sketch is the
        column's values."""
        return self.size == self.n and all(w == 1 for w in self.weights)

    @property
    def rank_error(self) -> float:
        """The bound on this sketch's CDF error (0 when exact): the sketch's own, and a
        sample's (:func:`sample_error`) when it read one."""
        own = 0.0 if all(w == 1 for w in self.weights) else rank_error(self.k)
        return own + (sample_error(self.n) if self.size > self.n else 0.0)


def rank_error(k: int) -> float:
    """DataSketches' normalized rank error of a KLL sketch of parameter ``k``
    (single-sided, 99% confidence)."""
    return 2.296 / k**0.9723


def sample_error(sample: int) -> float:
    """How far a Bernoulli sample's CDF of ``sample`` values is from the whole column's
    at any value, with 99% confidence (the Dvoretzky-Kiefer-Wolfowitz inequality,
    Massart's constant: ``sqrt(ln(2 / 0.01) / (2 sample))``; 0.0051 at 100,000)."""
    return math.sqrt(math.log(2 / 0.01) / (2 * max(1, sample)))


def read(data: bytes, of: float = 0) -> Sketch:
    """A sketch from its serialized bytes (a sketch of no value has ``n`` 0), standing
    for ``of`` values of the column when more than its own (it read a sample)."""
    found = _read(data)
    return replace(found, of=int(of)) if of > found.n else found


def _read(data: bytes) -> Sketch:
    if len(data) < 8:
        raise SketchError(f"{len(data)} bytes: too short for a KLL sketch")
    pre_ints, version, family, flags, k = struct.unpack_from("<BBBBH", data, 0)
    if family != FAMILY:
        raise SketchError(f"family {family}, not KLL ({FAMILY})")
    if flags & _EMPTY:
        return Sketch(0, k, (), ())
    if flags & _SINGLE or version == 2:
        (value,) = struct.unpack_from("<d", data, 8)
        return Sketch(1, k, (value,), (1,), value, value)
    if pre_ints != 5 or len(data) < 20:
        raise SketchError(f"preamble of {pre_ints} ints: not a KLL doubles sketch")
    (n,) = struct.unpack_from("<Q", data, 8)
    levels = data[18]
    offsets = list(struct.unpack_from(f"<{levels}I", data, 20))
    low, high = struct.unpack_from("<dd", data, 20 + 4 * levels)
    start = 20 + 4 * levels + 16  # after the minimum and maximum
    count, rest = divmod(len(data) - start, 8)
    if rest or count <= 0:
        raise SketchError(f"{len(data)} bytes: not a whole number of values")
    items = struct.unpack_from(f"<{count}d", data, start)
    offsets.append(offsets[0] + count)
    pairs: list[tuple[float, int]] = []
    for level in range(levels):
        a, b = offsets[level] - offsets[0], offsets[level + 1] - offsets[0]
        pairs += [(v, 1 << level) for v in items[a:b]]
    pairs.sort()
    if sum(w for _, w in pairs) != n:
        raise SketchError(f"the values' weights do not add up to n = {n}")
    return Sketch(n, k, tuple(v for v, _ in pairs), tuple(w for _, w in pairs), low, high)


@dataclass(frozen=True, slots=True)
class Distribution:
    """A CDF from weighted values: the sorted distinct values and the share of the
    whole at or below each; ``error`` bounds how far it is from the exact one."""

    values: tuple[float, ...]
    cdf: tuple[float, ...]
    n: int
    error: float
    low: float | None = None
    """The smallest value of the column(s) summarised (the sketches' minimum)."""
    high: float | None = None

    def at(self, x: float) -> float:
        """The share of values at or below ``x``."""
        i = bisect.bisect_right(self.values, x)
        return self.cdf[i - 1] if i else 0.0


def distribution(sketches: Sequence[Sketch], average: bool = False) -> Distribution:
    """One sketch's CDF, or several's: their union (every value as often as the runs had
    it), or with ``average`` the mean of their CDFs (each run counts alike). The bound is
    the largest of theirs (an average or union of CDFs each within e of its truth is
    within e of theirs)."""
    kept = [s for s in sketches if s.n]
    if not kept:
        return Distribution((), (), 0, 0.0)
    weighted: dict[float, float] = {}
    for s in kept:
        scale = 1.0 / (s.n * len(kept)) if average else s.size / s.n
        for v, w in zip(s.values, s.weights, strict=True):
            weighted[v] = weighted.get(v, 0.0) + w * scale
    values = sorted(weighted)
    total = math.fsum(weighted.values())
    running, cdf = 0.0, []
    for v in values:
        running += weighted[v]
        cdf.append(running / total)
    cdf[-1] = 1.0
    n = sum(s.size for s in kept)
    lows = [s.low if s.low is not None else s.values[0] for s in kept]
    highs = [s.high if s.high is not None else s.values[-1] for s in kept]
    error = max(s.rank_error for s in kept)
    return Distribution(tuple(values), tuple(cdf), n, error, min(lows), max(highs))


def ks(table: Distribution, reference: Distribution) -> float:
    """The largest difference of the two CDFs (the two-sample KS statistic of the
    values the sketches stand for)."""
    points = sorted({*table.values, *reference.values})
    return max((abs(table.at(x) - reference.at(x)) for x in points), default=0.0)


def ks_bound(table: Distribution, reference: Distribution) -> float:
    """How far :func:`ks` can be from the exact statistic: the sum of the two CDFs'
    bounds (99% confidence each)."""
    return table.error + reference.error


def shares(d: Distribution, edges: Sequence[float]) -> list[float]:
    """Each bin's share, the bins ``[edges[i], edges[i + 1])`` (the last closed), as
    numpy.histogram cuts them; each within ``2 error`` of the exact share."""
    below = [_below(d, e) for e in edges[:-1]] + [1.0]
    return [max(0.0, b - a) for a, b in zip(below, below[1:], strict=False)]


def _below(d: Distribution, x: float) -> float:
    """The share strictly below ``x``."""
    i = bisect.bisect_left(d.values, x)
    return d.cdf[i - 1] if i else 0.0
