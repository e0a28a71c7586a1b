"""Folded SQL conditions comparing DECIMAL arithmetic with a number, decided in doubles
where certain and as written elsewhere (:func:`assay.planner.decimal_doubles.in_doubles`),
give exactly what the condition gives as written, row by row, computed by Spark: on
values on, one unit under and over each bound (a quotient equal to the literal, a
product equal to it, 2100.5 between two cents), negative values and divisors, zero,
the largest and smallest values of DECIMAL(15,2), products of DECIMAL(18,6) of 13 digits
one millionth apart, and nulls; with ANSI mode off (a zero divisor is null) and on (a
zero divisor is Spark's error in both forms). Conditions over DECIMAL(38,18) columns,
whose arithmetic Spark types with precision loss, are left as written. Through the
executor, a suite of such SQL rules answers as with
``PlannerOptions(decimal_doubles=False)``."""

from __future__ import annotations

import dataclasses
import itertools
from decimal import Decimal

import pytest

from assay.config import load_suite
from assay.executor.run import run_suite
from assay.planner.cost import DEFAULT_OPTIONS
from assay.planner.decimal_doubles import in_doubles
from tests.helpers import Collect, write_config

pytestmark = pytest.mark.spark

SCHEMA = (
    "id long, a decimal(15,2), b decimal(15,2), d decimal(15,2), x decimal(18,6), "
    "y decimal(18,6), z decimal(10,4), w decimal(38,18)"
)
TYPES = {
    "a": "decimal(15,2)", "b": "decimal(15,2)", "d": "decimal(15,2)", "x": "decimal(18,6)",
    "y": "decimal(18,6)", "z": "decimal(10,4)", "w": "decimal(38,18)",
}  # fmt: skip
D = Decimal
PAIRS = [  # (a, b): quotients on, under and over 2100, 2100.5, -3 and 0
    ("2100.00", "1.00"), ("2100.01", "1.00"), ("2099.99", "1.00"), ("4200.00", "2.00"),
    ("4200.01", "2.00"), ("4199.99", "2.00"), ("210000.00", "100.00"), ("2100.50", "1.00"),
    ("4201.00", "2.00"), ("4201.01", "2.00"), ("-2100.00", "-1.00"), ("2100.00", "-1.00"),
    ("-2100.01", "-1.00"), ("-3.00", "1.00"), ("3.00", "-1.00"), ("-2.99", "1.00"),
    ("0.00", "1.00"), ("0.00", "-0.01"), ("9999999999999.99", "0.01"),
    ("-9999999999999.99", "0.01"), ("0.01", "9999999999999.99"), ("0.01", "0.01"),
    ("6300.00", "3.00"), ("6299.99", "3.00"), ("1.00", "1.00"), ("7.00", "0.00"),
    ("5.00", "2.00"), ("2.00", "5.00"), (None, "1.00"), ("1.00", None),
]  # fmt: skip
DISCOUNTS = ["1.00", "0.99", "1.01", "0.00", "-0.01", "2.00", "0.50", None, "1.00", "0.10"]
PRODUCTS = [  # (x, y, z): products around 10^12, quotients x / z around 3
    ("1000000.000001", "1000000.000000", "1.0000"), ("1000000.000000", "1000000.000000", "0.0001"),
    ("999999.999999", "1000000.000000", "-1.0000"), ("-1000000.000001", "1000000.000000", "3.0000"),
    ("3.000000", "1.000000", "1.0000"), ("3.000001", "1.000000", "1.0000"),
    ("2.999999", "1.000000", "1.0000"), ("999999999999.999999", "0.000001", "333333.3333"),
    (None, "1.000000", "1.0000"), ("0.000000", "0.000001", None),
]  # fmt: skip
CONDITIONS = [
    "a / b > 2100", "a / b >= 2100", "a / b < 2100", "a / b <= 2100", "a / b = 2100",
    "a / b <> 2100", "2100 < a / b", "2100 >= (a / b)", "a / b > -3", "a / b >= -3",
    "a / b > 2100.5", "a / b <= 2100.5", "a / b > 0", "a / b = 0", "(a / b) <> 1",
    "a * (1 - d) <= 0", "a * (1 - d) <= 1", "a * (1 - d) > 1.01", "a * (1 - d) = 0",
    "(a - b) * d >= 0", "a + b = 7", "a - b < -0.01", "a / (b - d) > 1", "a / (1 - d) <= 3",
    "x * y > 1000000000000", "x * y = 1000000000001", "x * y >= 1000000000000.000001",
    "x / z > 3", "x / z = 3", "x / z <= 3.000001", "x - y * 2 < 0.000001",
    "a / b > 1000000000000000", "a * b < -10000000000000000",
]  # fmt: skip
KEPT = ["w * 2 > 1", "w / w > 0", "w + 1 > 2", "a / w > 1", "a > 2100", "a / b > 1e3"]
"""Left as written: precision loss (DECIMAL(38,18)), no arithmetic, a double literal."""


def _rows() -> list[tuple]:
    def dec(v: str | None) -> Decimal | None:
        return None if v is None else D(v)

    rows = []
    cycle = zip(itertools.cycle(DISCOUNTS), itertools.cycle(PRODUCTS))
    for i, ((a, b), (d, (x, y, z))) in enumerate(zip(PAIRS, cycle, strict=False)):
        w = None if i % 7 == 0 else D("1234567.000000000000000001") * (i - 3)
        rows.append((i, dec(a), dec(b), dec(d), dec(x), dec(y), dec(z), w))
    return rows


def _ansi(spark, on: bool):
    class Ansi:
        def __enter__(self):
            self.before = spark.conf.get("spark.sql.ansi.enabled")
            spark.conf.set("spark.sql.ansi.enabled", str(on).lower())

        def __exit__(self, *_):
            spark.conf.set("spark.sql.ansi.enabled", self.before)

    return Ansi()


def test_the_rewritten_conditions_are_the_ones_expected():
    assert all(in_doubles(c, TYPES) is not None for c in CONDITIONS)
    assert all(in_doubles(c, TYPES) is None for c in KEPT)


def test_decided_in_doubles_answers_as_written_row_by_row(spark):
    from pyspark.sql.connect import functions as F

    df = spark.createDataFrame(_rows(), SCHEMA)
    outputs = []
    for n, condition in enumerate(CONDITIONS):
        written, doubles = F.expr(condition), F.expr(in_doubles(condition, TYPES))  # type: ignore[arg-type]
        outputs.append(F.count_if(~written.eqNullSafe(doubles)).alias(f"d{n}"))
        outputs.append(F.count_if(written).alias(f"t{n}"))
    with _ansi(spark, False):
        row = df.agg(*outputs).collect()[0]
    differing = {c: row[f"d{n}"] for n, c in enumerate(CONDITIONS) if row[f"d{n}"]}
    assert differing == {}
    held = {c: row[f"t{n}"] for n, c in enumerate(CONDITIONS)}
    assert held["a / b = 2100"] == 5 and held["x * y = 1000000000001"] > 0
    assert 0 < held["a / b > 2100"] < len(PAIRS) and 0 < held["a * (1 - d) <= 0"] < len(PAIRS)


def test_under_ansi_mode_a_zero_divisor_is_sparks_error_in_both_forms(spark):
    from pyspark.errors import PySparkException
    from pyspark.sql.connect import functions as F

    df = spark.createDataFrame(_rows(), SCHEMA)
    clean = df.where("b <> 0 AND b <> d AND d <> 1")
    with _ansi(spark, True):
        for condition in ("a / b > 2100", "a / (b - d) > 1", "a / (1 - d) <= 3"):
            doubles = in_doubles(condition, TYPES)
            written = clean.agg(F.count_if(F.expr(condition))).collect()[0][0]
            assert clean.agg(F.count_if(F.expr(doubles))).collect()[0][0] == written  # type: ignore[arg-type]
            for form in (condition, doubles):
                with pytest.raises(PySparkException, match="DIVIDE_BY_ZERO"):
                    df.agg(F.count_if(F.expr(form))).collect()  # type: ignore[arg-type]


def _suite(tmp_path, data: str):
    v = "FROM _validation_df"
    conditions = [c for c in CONDITIONS if "(b - d)" not in c and "(1 - d)" not in c]
    rules = [f'{{type: sql, query: "SELECT count(*) = 0 {v} WHERE {c}"}}' for c in conditions]
    rules += [f'{{type: sql, query: "SELECT count(*) = 0 {v} WHERE {c}"}}' for c in KEPT]
    body = "\n".join(f"      - {r}" for r in rules)
    text = f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id]\n    rules:\n{body}\n"
    return load_suite([write_config(tmp_path, text)])


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("decimal_doubles") / "t.parquet")
    rows = [r for r in _rows() if r[2] != 0]  # no zero divisor: the suite runs under ANSI mode
    spark.createDataFrame(rows, SCHEMA).write.parquet(path)
    return path


def _answers(spark, suite, options) -> list[dict]:
    sink = Collect()
    run_suite(suite, spark, sink, options=options)
    keep = ("passed", "failed_count", "row_count", "error", "value")
    return [{k: r.get(k) for k in keep} for r in sink.results]


def test_a_suite_of_decimal_conditions_answers_as_written(server, data, tmp_path):
    from assay.executor.prepare import planned, read_source
    from assay.ir.expr import Sql, walk

    suite = _suite(tmp_path, data)
    plain = dataclasses.replace(DEFAULT_OPTIONS, decimal_doubles=False)
    doubles = _answers(server.spark, suite, DEFAULT_OPTIONS)
    assert doubles == _answers(server.spark, suite, plain)
    assert not any(r["error"] for r in doubles)
    assert {r["passed"] for r in doubles} == {True, False}

    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    plan, _ = planned(server.spark, table, *read, DEFAULT_OPTIONS)
    assert plan.aggregate is not None
    texts = [n.text for scan in plan.aggregate.scans for s in scan.slots
             for n in walk(getattr(s.form, "predicate", None) or Sql("")) if isinstance(n, Sql)]  # fmt: skip
    rewritten = [t for t in texts if t.startswith("CASE WHEN")]
    assert len(rewritten) == len(suite.tables[0].rules) - len(KEPT)
