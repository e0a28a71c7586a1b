"""A categorical column's bounded value counts for drift against history
(judge/drift_frequencies.py), pure: the state's bytes read back, runs combined, and the
statistics over its bins against scipy (the differential oracle, tests/differential/
drift_oracle.py) on the exact values: equal below the bound, never above past it."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from assay.judge.drift import chi_square, js, kl, psi
from assay.judge.drift_frequencies import (
    OTHERS,
    StateError,
    bins,
    combined,
    decode,
    encode,
)
from tests.differential.drift_oracle import drift_value

METHODS = {"psi": psi, "js": js, "kl": kl, "chi_square": lambda t, r: chi_square(t, r)[0]}


def _sample(seed: int, size: int, categories: int, skew: float) -> list[str]:
    rng = np.random.default_rng(seed)
    weights = np.arange(1, categories + 1, dtype=float) ** -skew
    drawn = rng.choice(categories, size=size, p=weights / weights.sum())
    return [f"c{v}" for v in drawn]


def _state(values: list[str], bound: int):
    return decode(encode(Counter(values), bound))


def test_round_trip_and_bad_bytes():
    state = _state(["a", "b", "b", "c", "c", "c"], 2)
    assert dict(state.counts) == {"c": 3.0, "b": 2.0}
    assert (state.others_values, state.others, state.n) == (1, 1.0, 6.0)
    with pytest.raises(StateError):
        decode(b"[1, 2]")


@pytest.mark.parametrize("method", sorted(METHODS))
def test_below_the_bound_every_statistic_is_scipys(method):
    table, reference = _sample(1, 3000, 12, 1.0), _sample(2, 2000, 14, 1.3)
    labels, t, r = bins(_state(table, 100), _state(reference, 100))
    assert OTHERS not in labels
    expected = drift_value({"method": method, "bins": "values"}, table, reference)
    assert METHODS[method](t, r) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_past_the_bound_never_above_the_exact_statistic(method):
    table, reference = _sample(3, 5000, 40, 0.8), _sample(4, 4000, 45, 1.1)
    exact = drift_value({"method": method, "bins": "values"}, table, reference)
    for bound in (3, 10, 30):
        labels, t, r = bins(_state(table, bound), _state(reference, bound))
        assert labels[-1] == OTHERS
        assert METHODS[method](t, r) <= exact * (1 + 1e-12), bound


def test_runs_combined():
    runs = [_sample(s, 1000, 8, 1.0) for s in (5, 6, 7)]
    states = [_state(v, 100) for v in runs]
    union = combined(states)
    assert dict(union.counts) == {k: float(c) for k, c in Counter(sum(runs, [])).items()}
    average = combined(states, average=True)
    for value in ("c0", "c3", "c7"):
        mean = np.mean([run.count(value) / len(run) for run in runs])
        assert average.counts[value] == pytest.approx(mean, rel=1e-12)
