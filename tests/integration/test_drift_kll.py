"""KLL sketches for drift against history (judge/drift_kll.py): Spark's
``kll_sketch_agg_double`` bytes read back in pure Python, held against the Apache
DataSketches library's own reading of them (the ``datasketches`` package, a test
oracle) and Spark's ``kll_sketch_get_n_double`` / ``kll_sketch_get_rank_double``; then
the statistics between sketches against scipy and numpy on the exact samples, within the
stated bound (and the error measured, printed with ``-s``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from assay.judge.drift_kll import distribution, ks, ks_bound, rank_error, read, shares

pytestmark = pytest.mark.spark
datasketches = pytest.importorskip("datasketches")


def _sketches(spark, samples: dict[str, np.ndarray], k: int) -> dict[str, bytes]:
    """Each sample's sketch, built by Spark in one aggregate."""
    from pyspark.sql.connect import functions as F

    frames = [
        spark.createDataFrame([(name, float(v)) for v in values], "s string, x double")
        for name, values in samples.items()
    ]
    union = frames[0]
    for f in frames[1:]:
        union = union.unionByName(f)
    rows = union.groupBy("s").agg(F.kll_sketch_agg_double("x", k).alias("b")).collect()
    return {r["s"]: bytes(r["b"]) for r in rows}


SAMPLES = {
    "one": np.array([2.5]),
    "five": np.array([3.0, 1.0, 2.0, 2.0, 9.0]),
    "normal": np.random.default_rng(1).normal(0, 1, 20000),
    "shifted": np.random.default_rng(2).normal(0.1, 1, 30000),
    "tied": np.random.default_rng(3).integers(0, 7, 25000).astype(float),
    "tied2": np.random.default_rng(4).integers(0, 8, 15000).astype(float),
}


@pytest.fixture(scope="module")
def sketches(spark) -> dict[int, dict[str, bytes]]:
    return {k: _sketches(spark, SAMPLES, k) for k in (50, 200, 2000)}


def test_read_as_datasketches_and_spark_read_them(spark, sketches):
    from pyspark.sql.connect import functions as F

    kll = datasketches.kll_doubles_sketch
    for k, found in sketches.items():
        for name, data in found.items():
            ours, theirs = read(data), kll.deserialize(data)
            assert (ours.n, ours.k, len(ours.values)) == (theirs.n, k, theirs.num_retained)
            d = distribution([ours])
            points = sorted(set(ours.values))[:: max(1, len(ours.values) // 50)]
            for x in points:
                assert d.at(x) == pytest.approx(theirs.get_rank(x, True), abs=1e-12)
            assert ours.exact == (len(SAMPLES[name]) == len(ours.values))
    data = sketches[200]["normal"]
    frame = spark.createDataFrame([(bytearray(data),)], "b binary")
    row = frame.select(
        F.kll_sketch_get_n_double("b").alias("n"),
        F.kll_sketch_get_rank_double("b", F.lit(0.5)).alias("r"),
    ).first()
    assert row["n"] == 20000
    assert distribution([read(data)]).at(0.5) == pytest.approx(row["r"], abs=1e-12)


def test_empty_and_bad_bytes():
    from assay.judge.drift_kll import SketchError

    empty = read(bytes.fromhex("02010f01c8000800"))
    assert empty.n == 0 and distribution([empty]).n == 0
    with pytest.raises(SketchError, match="family"):
        read(bytes.fromhex("02010f01c8000800").replace(b"\x0f", b"\x07", 1))
    with pytest.raises(SketchError, match="short"):
        read(b"\x05\x01")


@pytest.mark.parametrize("k", [50, 200, 2000])
def test_ks_within_the_bound_of_scipy(sketches, k):
    worst = 0.0
    for a, b in (("normal", "shifted"), ("tied", "tied2"), ("normal", "normal")):
        ta, tb = distribution([read(sketches[k][a])]), distribution([read(sketches[k][b])])
        exact = stats.ks_2samp(SAMPLES[a], SAMPLES[b]).statistic
        got = ks(ta, tb)
        assert abs(got - exact) <= ks_bound(ta, tb), (a, b, got, exact)
        worst = max(worst, abs(got - exact))
    print(f"k={k}: worst KS error {worst:.4g}, bound {2 * rank_error(k):.4g}")


def test_runs_combined_within_the_bound(sketches):
    """Three runs' sketches as one reference: their union (scipy on the values
    concatenated) and their average CDF (numpy's ECDFs averaged)."""
    runs = [read(sketches[200][n]) for n in ("normal", "shifted", "tied")]
    values = [SAMPLES[n] for n in ("normal", "shifted", "tied")]
    union = distribution(runs)
    everything = np.concatenate(values)
    exact = stats.ks_2samp(everything, SAMPLES["tied2"]).statistic
    table = distribution([read(sketches[200]["tied2"])])
    assert abs(ks(union, table) - exact) <= ks_bound(union, table)
    average = distribution(runs, average=True)
    for x in (-1.0, 0.0, 0.5, 2.0, 3.0, 6.0):
        mean = np.mean([np.mean(v <= x) for v in values])
        assert abs(average.at(x) - mean) <= average.error, x


def test_binned_shares_within_twice_the_bound(sketches):
    for name in ("normal", "tied"):
        d = distribution([read(sketches[200][name])])
        lo, hi = float(SAMPLES[name].min()), float(SAMPLES[name].max())
        edges = np.linspace(lo, hi, 11)
        expected = np.histogram(SAMPLES[name], bins=10, range=(lo, hi))[0] / len(SAMPLES[name])
        got = shares(d, list(edges))
        assert max(abs(g - e) for g, e in zip(got, expected, strict=True)) <= 2 * d.error
