"""Pairing of duplicated keys against plain SQL, on data where the two sides' types
differ (a number, a decimal, a date against strings), with NULLs, NaN, DECIMAL(38,18)
extremes and keys duplicated unevenly: every count of ``assay.compare`` equals what a
SQL query computes from the documented semantics (each side's rows of a key numbered in
the order of their values as compared, nulls first; the i-th rows pair; a pair matches
when its values, cast as Spark casts them to be compared, are null-safe equal).

The oracle is SQL text written from docs/compare.md and imports nothing of assay; the
target's values are the source's (written as strings, shuffled within each key) with
some changed, dropped and added, so most duplicated keys pair fully."""

from __future__ import annotations

import os
import random
from decimal import Decimal

import pytest

import assay

pytestmark = pytest.mark.spark

SEED = int(os.environ.get("ASSAY_COMPARE_SEED", "20240611"))

# (source type, target type, the type Spark compares them in, the source's values)
PAIRS = {
    "int-string": ("int", "string", "bigint", [0, 1, -1, 9, 10, 100, 2**31 - 1, None]),
    "string-bigint": ("string", "bigint", "bigint", ["9", "10", "-3", "0", None, "007"]),
    "decimal-string": (
        "decimal(38,18)",
        "string",
        "double",
        [
            Decimal("1.000000000000000001"),
            Decimal("9.5"),
            Decimal("10.25"),
            Decimal("-0.000000000000000001"),
            Decimal("99999999999999999999.999999999999999999"),
            None,
        ],
    ),
    "double-string": ("double", "string", "double", [float("nan"), 1.5, -0.0, 10.0, 9.0, None]),
    "date-string": ("date", "string", "date", ["2024-01-09", "2024-01-10", "1970-01-01", None]),
    "decimal-decimal": (
        "decimal(38,18)",
        "decimal(38,18)",
        "decimal(38,18)",
        [Decimal("1.000000000000000001"), Decimal("1.000000000000000002"), Decimal(0), None],
    ),
}


def _as_target(value, source_type: str, target_type: str):
    if value is None or target_type == source_type:
        return value
    if source_type == "date":
        y, m, d = value.split("-")
        return f"{int(y)}-{int(m)}-{int(d)}"  # '2024-1-9': a date only as compared
    if isinstance(value, float) and value != value:
        return "NaN"
    if target_type == "bigint":
        return int(value)
    return str(value)


def _sides(rng: random.Random, name: str) -> tuple[list[tuple], list[tuple]]:
    source_type, target_type, _, values = PAIRS[name]
    source, target = [], []
    for key in range(12):
        rows = [rng.choice(values) for _ in range(rng.choice((1, 2, 3, 4)))]
        copied = [_as_target(v, source_type, target_type) for v in rows]
        rng.shuffle(copied)
        if rng.random() < 0.2 and copied:
            copied.pop()  # a row missing in the target
        if rng.random() < 0.2:
            copied.append(_as_target(rng.choice(values), source_type, target_type))
        if rng.random() < 0.2 and copied:
            copied[0] = _as_target(rng.choice(values), source_type, target_type)
        k = None if key == 11 else key  # a null key (null-safe)
        source += [(k, v) for v in rows]
        target += [(k, v) for v in copied]
    return source, target


def _frame(spark, rows: list[tuple], spark_type: str):
    if spark_type == "date":
        import datetime as dt

        rows = [(k, None if v is None else dt.date.fromisoformat(v)) for k, v in rows]
    return spark.createDataFrame(rows, f"id int, v {spark_type}")


ORACLE = """
WITH s AS (
  SELECT id, v, row_number() OVER (
    PARTITION BY id ORDER BY CAST(v AS {t}) ASC NULLS FIRST, v ASC NULLS FIRST) AS rn
  FROM pairing_source),
t AS (
  SELECT id, v, row_number() OVER (
    PARTITION BY id ORDER BY CAST(v AS {t}) ASC NULLS FIRST, v ASC NULLS FIRST) AS rn
  FROM pairing_target),
pairs AS (SELECT s.rn AS s_rn, t.rn AS t_rn, CAST(s.v AS {t}) AS sv, CAST(t.v AS {t}) AS tv
          FROM s FULL OUTER JOIN t ON s.id <=> t.id AND s.rn = t.rn)
SELECT count_if(s_rn IS NOT NULL AND t_rn IS NOT NULL) AS compared,
       count_if(s_rn IS NOT NULL AND t_rn IS NOT NULL AND sv <=> tv) AS matched,
       count_if(t_rn IS NULL) AS missing_in_target,
       count_if(s_rn IS NULL) AS missing_in_source
FROM pairs
"""


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_duplicated_keys_pair_as_plain_sql_pairs_them(spark, name):
    source_type, target_type, compared_in, _ = PAIRS[name]
    rng = random.Random(f"{SEED}-{name}")
    source_rows, target_rows = _sides(rng, name)
    source = _frame(spark, source_rows, source_type)
    target = _frame(spark, target_rows, target_type)
    source.createOrReplaceTempView("pairing_source")
    target.createOrReplaceTempView("pairing_target")
    want = spark.sql(ORACLE.format(t=compared_in)).collect()[0].asDict()
    got = assay.compare(source, target, keys=["id"]).counts
    seen = {k: got[k] for k in want}
    context = f"seed {SEED}, {name}: {len(source_rows)} source rows, {len(target_rows)} target"
    assert seen == want, context
    assert want["matched"] > want["compared"] // 2, context  # the data pairs mostly
