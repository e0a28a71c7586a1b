"""Numeric tolerances on the real server: NaN, infinities, -0.0 and nulls against the
decided semantics; decimals compared exactly (and without overflow) at DECIMAL(38,18)
extremes, both exact formulations against each other and against Python fractions; the
tolerance written in the column's type; negative tolerances refused."""

from __future__ import annotations

import json
import random
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

import assay
from assay.comparison.tolerance import DecimalBound, LimbBound, tolerance_bound
from assay.emit import compare_tolerance as emit
from assay.errors import ConfigError, ConfigErrors
from assay.ir.compare import NumericTolerance
from tests.helpers import assay_cli as run_cli

pytestmark = pytest.mark.spark

NAN, INF = float("nan"), float("inf")
MAX = "99999999999999999999.999999999999999999"  # the largest DECIMAL(38,18)


def _columns(result) -> dict:
    return {c["column"]: c for c in result.columns}


def test_nan_and_infinity_are_within_no_tolerance_of_a_number(spark):
    source = spark.createDataFrame([(1, 1.0), (2, 5.0), (3, NAN)], "id int, v double")
    target = spark.createDataFrame([(1, NAN), (2, INF), (3, 7.0)], "id int, v double")
    result = assay.compare(source, target, keys=["id"], tolerance=0.01, sample_size=0)
    assert (result.counts["matched"], result.counts["mismatched"]) == (0, 3)
    relative = assay.compare(
        spark.createDataFrame([(1, 1.0), (2, -1e308)], "id int, v double"),
        spark.createDataFrame([(1, INF), (2, -INF)], "id int, v double"),
        keys=["id"],
        relative_tolerance=0.5,
        tolerance=1e308,
        sample_size=0,
    )
    assert relative.counts["mismatched"] == 2  # r * |Inf| is Inf, yet never within


# (source, target, matched with tolerance 0.5 absolute + 0.5 relative)
SPECIAL = [
    (NAN, NAN, True),  # Spark's NaN = NaN
    (INF, INF, True),
    (-INF, -INF, True),
    (INF, -INF, False),
    (1.0, INF, False),
    (INF, 1.0, False),
    (-INF, 3e38, False),
    (NAN, 1.0, False),
    (1.0, NAN, False),
    (NAN, INF, False),
    (-0.0, 0.0, True),
    (0.0, -0.0, True),
    (None, None, True),
    (None, 1.0, False),
    (NAN, None, False),
    (1.0, 1.4, True),  # 0.4 <= 0.5 + 0.7
    (1.0, 3.5, False),  # 2.5 > 0.5 + 1.75
]


@pytest.mark.parametrize("spark_type", ["double", "float"])
@pytest.mark.parametrize("tolerance", [None, (0.5, 0.5)])
def test_special_values_per_pair(spark, spark_type, tolerance):
    rows = [(i, s, t) for i, (s, t, _) in enumerate(SPECIAL)]
    source = spark.createDataFrame([(i, s) for i, s, _ in rows], f"id int, v {spark_type}")
    target = spark.createDataFrame([(i, t) for i, _, t in rows], f"id int, v {spark_type}")
    absolute, relative = tolerance or (0.0, 0.0)
    mismatched = set()
    for i, (s, t, within) in enumerate(SPECIAL):
        same = s == t or (s is not None and t is not None and s != s and t != t) or s is t
        if not (within if tolerance else same):
            mismatched.add(i)
    result = assay.compare(
        source,
        target,
        keys=["id"],
        tolerance=absolute,
        relative_tolerance=relative,
        sample_size=100,
    )
    got = {s["key"]["id"] for s in result.samples["mismatched"]}
    assert got == mismatched
    column = _columns(result)["v"]
    assert column["null_mismatched"] == 2
    assert column["max_abs_diff"] is None  # a NaN or an infinite difference


def test_max_abs_diff_ignores_equal_nans_and_infinities_and_nulls(spark):
    schema = "id int, v double"
    source = spark.createDataFrame([(1, NAN), (2, INF), (3, 1.0), (4, None), (5, None)], schema)
    target = spark.createDataFrame([(1, NAN), (2, INF), (3, 1.25), (4, 2.0), (5, None)], schema)
    column = _columns(assay.compare(source, target, keys=["id"], sample_size=0))["v"]
    assert (column["mismatched"], column["max_abs_diff"]) == (2, 0.25)
    nulls = source.where("id > 3")
    column = _columns(assay.compare(nulls, nulls, keys=["id"], sample_size=0))["v"]
    assert column["max_abs_diff"] is None  # no pair of two values


def test_max_abs_diff_of_decimals_is_exact(spark):
    schema = "id int, amount decimal(12,2), n bigint"
    source = spark.createDataFrame([(1, Decimal("30.01"), 2**62), (2, None, 2**53 + 1)], schema)
    target = spark.createDataFrame([(1, Decimal("30.00"), -(2**62)), (2, None, 2**53)], schema)
    by = _columns(assay.compare(source, target, keys=["id"], sample_size=0))
    assert by["amount"]["max_abs_diff"] == 0.01  # not 0.010000000000001563 (doubles)
    assert by["n"]["max_abs_diff"] == float(2**63)
    checked = assay.compare(
        source, target, keys=["id"], checks={"max_abs_diff(amount)": "<= 0.01"}, sample_size=0
    )
    assert checked.passed


def _decimals(spark, pairs, spark_type="decimal(38,18)"):
    source = spark.createDataFrame(
        [(i, None if s is None else Decimal(s)) for i, (s, _) in enumerate(pairs)],
        f"id int, v {spark_type}",
    )
    target = spark.createDataFrame(
        [(i, None if t is None else Decimal(t)) for i, (_, t) in enumerate(pairs)],
        f"id int, v {spark_type}",
    )
    return source, target


def _mismatched_ids(result) -> set[int]:
    return {s["key"]["id"] for s in result.samples["mismatched"]}


def test_decimal_38_18_tolerances_are_exact_and_never_overflow(spark):
    pairs = [
        ("1.000000000000000001", "0"),  # |diff| = 1 + 1e-18 > 1
        ("1.000000000000000000", "0"),  # = 1: within
        (MAX, "-" + MAX),  # |diff| ~ 2e20, beyond DECIMAL(38,18)
        ("-" + MAX, MAX),
        (MAX, MAX),
        ("-" + MAX, "-" + MAX),
        (MAX, "99999999999999999998.999999999999999999"),  # exactly 1 apart
        (MAX, "99999999999999999998.999999999999999998"),  # 1 + 1e-18 apart
        ("0.000000000000000001", "-0.000000000000000001"),  # 2e-18: within 1
        ("-0.5", "0.5"),  # opposite signs, 1 apart
        ("-0.500000000000000001", "0.5"),
    ]
    source, target = _decimals(spark, pairs)
    result = assay.compare(source, target, keys=["id"], tolerance=1, sample_size=100)
    assert result.error is None, result.message
    assert _mismatched_ids(result) == {0, 2, 3, 7, 10}
    exact = assay.compare(source, target, keys=["id"], sample_size=100)
    assert _mismatched_ids(exact) == {0, 1, 2, 3, 6, 7, 8, 9, 10}
    tiny = assay.compare(source, target, keys=["id"], tolerance=1e-18, sample_size=100)
    assert _mismatched_ids(tiny) == {0, 1, 2, 3, 6, 7, 8, 9, 10}  # 8: 2e-18 > 1e-18
    relative = assay.compare(
        source, target, keys=["id"], relative_tolerance=2, sample_size=100
    )  # |s - t| <= 2 |t|: only 10 (1 + 1e-18 > 2 * 0.5) and those of t = 0 are not
    assert _mismatched_ids(relative) == {0, 1, 10}


def test_decimal_relative_tolerance_in_1e_18_steps(spark):
    # |s - t| <= 1e-18 + 1e-18 * |t| around t = 1: the bound is 2e-18 exactly
    t = "1.000000000000000000"
    pairs = [(f"1.00000000000000000{d}", t) for d in range(5)]
    pairs += [(f"0.99999999999999999{d}", t) for d in range(10)]
    source, target = _decimals(spark, pairs)
    result = assay.compare(
        source, target, keys=["id"], tolerance=1e-18, relative_tolerance=1e-18, sample_size=100
    )
    within = {
        i for i, (s, t) in enumerate(pairs) if abs(Decimal(s) - Decimal(t)) <= Decimal("2e-18")
    }
    assert _mismatched_ids(result) == set(range(len(pairs))) - within
    assert within == {0, 1, 2, 13, 14}


def test_integers_compare_exactly_beyond_double_precision(spark):
    # 2^53 + 1 and 2^53 are one double: within 0.5 only as doubles
    source = spark.createDataFrame([(1, 2**53 + 1), (2, 2**62)], "id int, v bigint")
    target = spark.createDataFrame([(1, 2**53), (2, -(2**62))], "id int, v bigint")
    result = assay.compare(source, target, keys=["id"], tolerance=0.5, sample_size=100)
    assert _mismatched_ids(result) == {1, 2}
    assert result.error is None


def test_the_tolerance_takes_the_columns_type(spark):
    schema = "id int, f float, d double, m decimal(10,1)"
    source = spark.createDataFrame([(1, 0.2, 0.3, Decimal("0.3"))], schema)
    target = spark.createDataFrame([(1, 0.1, 0.2, Decimal("0.2"))], schema)
    by = _columns(assay.compare(source, target, keys=["id"], tolerance=0.1, sample_size=0))
    # 0.2f - 0.1f is the float 0.1 (0.10000000149...): within CAST(0.1 AS FLOAT)
    assert by["f"]["mismatched"] == 0
    assert by["m"]["mismatched"] == 0  # the decimal 0.1: 0.3 - 0.2 is 0.1
    assert by["d"]["mismatched"] == 0  # 0.3 - 0.2 is 0.09999999999999998 in doubles
    widened = assay.compare(
        source.selectExpr("id", "cast(f as double) f"),
        target.selectExpr("id", "cast(f as double) f"),
        keys=["id"],
        tolerance=0.1,
        sample_size=0,
    )
    assert _columns(widened)["f"]["mismatched"] == 1  # the same values, above the double 0.1
    off = spark.createDataFrame([(1, 1.1, 1.1, Decimal("1.1"))], schema)
    one = spark.createDataFrame([(1, 1.0, 1.0, Decimal("1.0"))], schema)
    by = _columns(assay.compare(off, one, keys=["id"], tolerance=0.1, sample_size=0))
    # doubles: 1.1 - 1.0 is 0.10000000000000009; floats: 0.10000002384 > the float 0.1
    assert (by["f"]["mismatched"], by["d"]["mismatched"], by["m"]["mismatched"]) == (1, 1, 0)


# --- both exact formulations against fractions ----------------------------------------------

TYPES = [
    ("decimal(38,18)", "decimal(38,18)"),
    ("decimal(12,2)", "decimal(12,2)"),
    ("decimal(38,0)", "decimal(38,0)"),
    ("decimal(10,4)", "decimal(38,18)"),
    ("bigint", "decimal(20,2)"),
    ("int", "int"),
]
TOLERANCES = [
    (Decimal(0), Decimal("0.001")),
    (Decimal("0.01"), Decimal(0)),
    (Decimal("1"), Decimal("0.5")),
    (Decimal("1E-18"), Decimal("1E-18")),
    (Decimal("123.456"), Decimal("2.5")),
]


def _value(rng: random.Random, spark_type: str, near: Decimal | None) -> Decimal | int:
    with localcontext() as ctx:
        ctx.prec = 80  # 38 digits and more, exactly
        return _pick(rng, spark_type, near)


def _pick(rng: random.Random, spark_type: str, near: Decimal | None) -> Decimal | int:
    if spark_type in ("int", "bigint"):
        p, s = (10, 0) if spark_type == "int" else (19, 0)
        biggest = Decimal(2**31 - 1 if spark_type == "int" else 2**63 - 1)
    else:
        p, s = (int(x) for x in spark_type[8:-1].split(","))
        biggest = Decimal(10) ** (p - s) - Decimal(1).scaleb(-s)
    unit = Decimal(1).scaleb(-s)
    pick = rng.random()
    if near is not None and pick < 0.5:  # around the other side, in steps of its scale
        value = near + rng.choice([0, 1, -1, 2, -2, 10**6, -(10**6)]) * unit
    elif pick < 0.7:
        value = rng.choice([biggest, -biggest, Decimal(0), unit, -unit])
    else:
        digits = rng.randint(0, p)
        value = Decimal(rng.randrange(10**digits)).scaleb(-s) * rng.choice([1, -1])
    value = max(min(value, biggest), -biggest)
    return int(value) if spark_type in ("int", "bigint") else value.quantize(unit)


def _within(s: Decimal, t: Decimal, a: Decimal, r: Decimal) -> bool:
    fs, ft = Fraction(s), Fraction(t)
    return abs(fs - ft) <= Fraction(a) + Fraction(r) * abs(ft)


@pytest.mark.parametrize(("source_type", "target_type"), TYPES)
def test_both_exact_formulations_agree_with_fractions(spark, source_type, target_type):
    from pyspark.sql.connect import functions as F  # noqa: N812

    rng = random.Random(f"{source_type}/{target_type}")
    rows = []
    for _ in range(300):
        t = _value(rng, target_type, None)
        s = _value(rng, source_type, t)
        rows.append((s, t))
    rows += [(None, Decimal(1)), (Decimal(1), None), (None, None)]
    df = spark.createDataFrame(rows, f"s {source_type}, t {target_type}")
    columns, expected = [], {}
    for i, (a, r) in enumerate(TOLERANCES):
        tol = NumericTolerance(a, r)
        for limbs in (False, True):
            bound = tolerance_bound(source_type, target_type, tol, limbs=limbs)
            assert isinstance(bound, LimbBound if limbs else (DecimalBound, LimbBound))
            name = f"w{i}_{'limbs' if limbs else 'auto'}"
            columns.append(emit.within(F.col("s"), F.col("t"), bound).alias(name))
            expected[name] = [
                None if s is None or t is None else _within(s, t, a, r) for s, t in rows
            ]
    got = df.select(*columns).collect()
    for name, want in expected.items():
        wrong = [(rows[k], row[name]) for k, row in enumerate(got) if row[name] != want[k]]
        assert not wrong, (name, wrong[:5])


# --- negative tolerances ----------------------------------------------------------------------


def test_a_negative_tolerance_is_a_config_error(spark, server, tmp_path):
    frame = spark.createDataFrame([(1, 1.0)], "id int, v double")
    for kwargs in (
        {"tolerance": -0.1},
        {"relative_tolerance": -1},
        {"column_tolerance": {"v": {"relative": -0.5}}},
        {"tolerance": float("nan")},
    ):
        with pytest.raises((ConfigError, ConfigErrors)) as caught:
            assay.compare(frame, frame, keys=["id"], **kwargs)
        assert "must be a finite number >= 0" in str(caught.value) or "negative" in str(
            caught.value
        ), kwargs
    path = str(tmp_path / "side.parquet")
    frame.write.parquet(path)
    proc = run_cli(
        "compare", path, path, "--keys", "id", "--tolerance", "-1", "--remote", server.url
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "must be a finite number >= 0" in proc.stderr + proc.stdout
    config = tmp_path / "c.yaml"
    config.write_text(
        f"compare:\n  - source: {{path: '{path}'}}\n    target: {{path: '{path}'}}\n"
        "    keys: [id]\n    column_tolerance:\n      v: {absolute: -0.01}\n"
    )
    proc = run_cli("run", str(config), "--remote", server.url)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "c.yaml:6" in proc.stderr and "must not be negative" in proc.stderr
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(
            {
                "job_name": "neg",
                "dataset_configs": [
                    {
                        "params": {
                            "dataset_name": "d",
                            "primary_keys": ["id"],
                            "test_params": {"difference_tolerance": -1},
                        },
                        "source_config": {"path": path, "file_format": "parquet"},
                        "target_config": {"path": path, "file_format": "parquet"},
                    }
                ],
                "output_config": {"output_dir": str(tmp_path / "out")},
            }
        )
    )
    proc = run_cli("run", str(job), "--remote", server.url)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "must be a finite number >= 0" in proc.stderr + proc.stdout
