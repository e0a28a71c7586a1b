"""The KS p-value of ``drift`` (judge/drift_ks.py) against scipy's ``ks_2samp`` (pure:
no Spark). scipy is the oracle: ``ks_2samp(...).pvalue`` on real samples, and its
``kstwo.sf`` / exact lattice-path count on a grid of statistics and sizes.

- exact (both sizes <= 10000): every statistic ``h / lcm(n, m)`` of a grid over
  n, m in 1..50 (equal and unequal), and larger sizes, to 1e-12 relative (measured: 0,
  the same floating-point operations in the same order);
- the finite-n distribution (either size > 10000): ``kstwo.sf(d, n)`` for n from 141 to
  5e7 and d across every branch, to 1e-12 relative (measured worst 1.7e-13: above 10000
  values the one-sided Smirnov sum is taken in double-precision logarithms, cephes takes
  it in double-doubles).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from assay.judge.drift_ks import kolmogorov_n_sf, ks_2samp_p_value

BOUND = 1e-12


def _relative(a: float, b: float) -> float:
    if a == b:
        return 0.0
    return abs(a - b) / abs(b) if b else abs(a)


def _scipy(d: float, n: int, m: int) -> float:
    """ks_2samp's p-value for the statistic ``d`` of sizes n and m (its own code path,
    reached through samples that give exactly that statistic is impractical: the same
    steps it takes, through its public pieces)."""
    from scipy.stats._stats_py import _attempt_exact_2kssamp

    if max(n, m) <= 10000:
        ok, _, p = _attempt_exact_2kssamp(n, m, math.gcd(n, m), d, "two-sided")
        if ok:
            return float(np.clip(p, 0, 1))
    big, small = sorted([float(n), float(m)], reverse=True)
    return float(np.clip(stats.kstwo.sf(d, np.round(big * small / (big + small))), 0, 1))


def test_exact_grid_small_sizes():
    worst = 0.0
    for n in range(1, 51, 3):
        for m in range(1, 51, 2):
            lcm = n * m // math.gcd(n, m)
            for h in range(0, lcm + 1, max(1, lcm // 12)):
                d = h / lcm
                worst = max(worst, _relative(ks_2samp_p_value(d, n, m), _scipy(d, n, m)))
    assert worst <= BOUND, worst


@pytest.mark.parametrize("n, m", [(1000, 1000), (2000, 999), (3000, 4001), (10000, 100)])
def test_exact_larger_sizes(n, m):
    for d in (0.0, 0.004, 0.02, 0.05, 0.1, 0.2):
        assert _relative(ks_2samp_p_value(d, n, m), _scipy(d, n, m)) <= BOUND, d


def test_both_walks_of_the_band_give_the_same_bits():
    """The columns in Python and the anti-diagonals in numpy: every statistic of a few
    size pairs, bit for bit."""
    from assay.judge.drift_ks import _outside_inside_diagonals, _outside_inside_method

    for n, m in [(3, 7), (7, 3), (37, 50), (2, 9), (40, 41), (13, 39), (12, 18)]:
        g = math.gcd(n, m)
        for h in range(1, n * m // g + 1, max(1, n * m // g // 60)):
            assert _outside_inside_method(n, m, g, h) == _outside_inside_diagonals(n, m, g, h)


def test_the_largest_exact_case_is_quick():
    """10,000 against 9,999 values and a statistic of 0.6 (the whole band walked): scipy's
    number, in about a second (by columns in Python it took 50)."""
    assert ks_2samp_p_value(0.6, 10000, 9999) == _scipy(0.6, 10000, 9999)
    assert ks_2samp_p_value(0.2, 9999, 10000) == _scipy(0.2, 9999, 10000)


@pytest.mark.parametrize("n", [141, 500, 5000, 10001, 50000, 100000, 100001, 1000001, 50_000_000])
def test_finite_n_distribution(n):
    """Every branch of Simard and L'Ecuyer's choice: Ruben-Gambino's ends, Durbin's
    matrix, Pelz-Good, twice the Smirnov tail, the 0 beyond."""
    root = math.sqrt(n)
    xs = [0.4 / n, 0.8 / n, 1.0 / n, 3.0 / n, 0.3 / root, 0.9 / root, 1.2 / root]
    xs += [1.5 / root, 2.0 / root, 4.0 / root, 10.0 / root, 0.3, 0.6, 1 - 1 / n, 1.0]
    for x in xs:
        got, expected = kolmogorov_n_sf(n, x), float(stats.kstwo.sf(x, n))
        assert _relative(got, expected) <= BOUND, (x, got, expected)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 60, 140])
def test_finite_n_small(n):
    """n <= 140: Durbin's matrix, Pomeranz's recursion and the Smirnov tail."""
    for x in np.linspace(0.0, 1.0, 41):
        got, expected = kolmogorov_n_sf(n, float(x)), float(stats.kstwo.sf(x, n))
        # where scipy gives 1 - cdf, both lose the digits 1 - cdf loses (cdf near 1)
        assert abs(got - expected) <= BOUND * max(expected, 1e-3), (x, got, expected)


def test_samples_as_ks_2samp():
    """On samples: the statistic assay computes (the largest ECDF gap) and the p-value
    from it, as ks_2samp's, with ties, unequal sizes and both regimes."""
    rng = np.random.default_rng(11)
    cases = [
        (rng.normal(0, 1, 40), rng.normal(0.3, 1, 17)),
        (rng.integers(0, 4, 300).astype(float), rng.integers(0, 5, 200).astype(float)),
        (rng.normal(0, 1, 3000), rng.normal(0.05, 1, 3000)),
        (rng.normal(0, 1, 12000), rng.normal(0.02, 1, 900)),
        (rng.normal(0, 1, 20000), rng.normal(0.01, 1, 30000)),
    ]
    for a, b in cases:
        result = stats.ks_2samp(a, b)
        d = _ecdf_gap(a, b)
        assert abs(d - result.statistic) <= 1e-15
        got = ks_2samp_p_value(d, len(a), len(b))
        assert _relative(got, float(result.pvalue)) <= BOUND, (len(a), len(b))


def _ecdf_gap(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.sort(a), np.sort(b)
    every = np.concatenate([a, b])
    gap = np.searchsorted(a, every, side="right") / len(a)
    gap -= np.searchsorted(b, every, side="right") / len(b)
    return float(np.max(np.abs(gap)))
