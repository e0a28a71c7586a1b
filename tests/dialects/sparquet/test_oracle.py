"""Differential oracle: sparquet-cola 0.4.0 (the engine of sparquet's validations) and
assay run the same rules over the same data, and every rule's ``passed``, ``severity``,
``failed_count`` and ``metric_value`` must be equal.

sparquet-cola is pure PySpark DataFrame API, so it runs on the test server's Spark
Connect session once ``SPARK_CONNECT_MODE_ENABLED`` makes ``pyspark.sql.functions``
build Connect columns. Each dataset is a parquet file read by both; assay runs every
dataset in one suite (one table each, its rules in a ``validations`` block), so the whole
corpus is one assay run.

Where assay deliberately does not give sparquet-cola's answer (documented in
docs/dialects.md, "sparquet"), :func:`decided` gives assay's own expectation.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.dialects.helpers import load, run

pytestmark = pytest.mark.spark

UTC = dt.timezone.utc
NOW = dt.datetime.now(UTC).replace(microsecond=0)

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("k2", pa.string()),
        ("s", pa.string()),
        ("x", pa.float64()),
        ("n", pa.int32()),
        ("amount", pa.decimal128(10, 2)),
        ("d", pa.date32()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("cpf", pa.string()),
        ("cnpj", pa.string()),
        ("code", pa.string()),
    ]
)

MIXED = [
    # id: duplicates (1 x3, 2 x2) and two nulls; k2 pairs with id for composite keys
    {"id": 1, "k2": "a", "s": "ana@example.com", "x": 0.5, "n": 0, "amount": "10.00", "d": "2024-01-01",
         "ts": NOW - dt.timedelta(hours=2), "cpf": "12345678901", "cnpj": "12345678000199", "code": "N/A"},
    {"id": 1, "k2": "a", "s": "bad.example.com", "x": 1.5, "n": 5, "amount": "-3.50", "d": "2024-01-02",
         "ts": NOW - dt.timedelta(hours=30), "cpf": "123.456.789-01", "cnpj": "12.345.678/0001-99", "code": ""},
    {"id": 1, "k2": "b", "s": None, "x": None, "n": 10, "amount": None, "d": None, "ts": None,
         "cpf": "1234567890", "cnpj": "12.345.678/0001-9", "code": "A1"},
    {"id": 2, "k2": None, "s": "UPPER@EXAMPLE.COM", "x": float("nan"), "n": None, "amount": "0.00", "d": "2023-12-31",
         "ts": NOW - dt.timedelta(days=3), "cpf": "123.456.78901", "cnpj": None, "code": "0"},
    {"id": 2, "k2": None, "s": "x@y.z", "x": -1.0, "n": 7, "amount": "99999999.99", "d": "2024-02-29",
         "ts": NOW - dt.timedelta(minutes=5), "cpf": None, "cnpj": "1234567800019", "code": "ok"},
    {"id": None, "k2": None, "s": "", "x": 100.0, "n": -2, "amount": "1.25", "d": "2024-01-31",
         "ts": NOW - dt.timedelta(seconds=10), "cpf": "abcdefghijk", "cnpj": "12345678000199", "code": "A1"},
    {"id": None, "k2": None, "s": "  ", "x": 2.0, "n": 3, "amount": "5.00", "d": "2024-01-15",
         "ts": NOW - dt.timedelta(days=400), "cpf": "12345678901 ", "cnpj": "", "code": "None"},
    {"id": 3, "k2": "c", "s": "ünï@ex.com", "x": 0.0, "n": 1, "amount": "2.00", "d": "2024-01-10",
         "ts": NOW - dt.timedelta(hours=1), "cpf": "98765432100", "cnpj": "98.765.432/0001-00", "code": "1"},
]  # fmt: skip

ALL_NULL = [dict.fromkeys(SCHEMA.names) for _ in range(3)]

ONE_ROW = [MIXED[7]]


def _frame(rows: list[dict[str, Any]]) -> pa.Table:
    def cell(name: str, value: Any) -> Any:
        if value is None:
            return None
        if name == "amount":
            return Decimal(value)
        if name == "d":
            return dt.date.fromisoformat(value)
        return value

    columns = {n: [cell(n, r[n]) for r in rows] for n in SCHEMA.names}
    return pa.table(columns, schema=SCHEMA)


DATASETS = {"mixed": MIXED, "empty": [], "all_null": ALL_NULL, "one_row": ONE_ROW}

EMAIL = {"valid_format": "email"}

RULES: list[dict[str, Any]] = [
    # row-level
    {"type": "not_null", "columns": ["id"]},
    {"type": "not_null", "columns": ["id", "x", "s"]},
    {"type": "not_null", "column": "cpf"},
    {"type": "unique", "columns": ["id"]},
    {"type": "unique", "columns": ["id", "k2"]},
    {"type": "unique", "column": "cnpj"},
    {"type": "range", "column": "x", "min": 0, "max": 10},
    {"type": "range", "column": "x", "min": 0},
    {"type": "range", "column": "n", "max": 5},
    {"type": "range", "column": "amount", "min": 0, "max": 100},
    {"type": "range", "column": "d", "min": "2024-01-01", "max": "2024-01-31"},
    {"type": "regex", "column": "s", "pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"},
    {"type": "regex", "column": "cpf", "pattern": "^[0-9]{11}$"},
    {"type": "regex", "column": "code", "pattern": "A"},
    # row_count
    {"type": "row_count", "min": 1},
    {"type": "row_count", "min": 1, "max": 5},
    {"type": "row_count", "max": 100},
    {"type": "row_count", "must_be": ">= 0"},
    # sql
    {"type": "sql", "query": "SELECT COUNT(*) = 0 FROM _validation_df WHERE amount < 0",
     "error_message": "Negative amount found"},
    {"type": "sql", "query": "SELECT COUNT(*) > 0 FROM _validation_df"},
    {"type": "sql", "query": "SELECT COUNT(*) FROM _validation_df WHERE n > 100"},
    {"type": "sql", "query": "SELECT max(n) FROM _validation_df"},
    {"type": "sql", "query": "SELECT NULL"},
    {"type": "sql", "failed_rows": "SELECT * FROM _validation_df WHERE amount < 0"},
    {"type": "sql", "failed_rows": "SELECT id, n FROM _validation_df WHERE n > 100"},
    # schema
    {"type": "schema", "required_columns": ["id", "amount"], "forbidden_columns": ["_debug"],
     "column_types": {"id": "long", "amount": "decimal(12,4)", "s": "STRING", "n": "integer"}},
    {"type": "schema", "required_columns": ["ID", "zz"], "column_types": {"x": "float", "q": "int"}},
    {"type": "schema", "forbidden_columns": ["code"]},
    # column metrics
    {"type": "avg", "column": "amount", "must_be": "between 0 and 100"},
    {"type": "mean", "column": "n", "must_be": "> 0", "name": "mean n"},
    {"type": "avg", "column": "x", "must_be": "!= 0"},
    {"type": "avg", "column": "x", "must_be": "> 0"},
    {"type": "min", "column": "n", "must_be": ">= 0", "warn": "> 0"},
    {"type": "max", "column": "x", "must_be": "<= 100"},
    {"type": "max", "column": "x", "must_be": "not between 1 and 2"},
    {"type": "sum", "column": "n", "must_be": "= 24"},
    {"type": "sum", "column": "amount", "must_be": "<> 0"},
    {"type": "stddev", "column": "n", "must_be": "< 5", "warn": "< 1"},
    {"type": "stddev", "column": "x", "must_be": "<> 0"},
    # counted metrics
    {"type": "missing_count", "column": "s", "must_be": "= 0"},
    {"type": "missing_count", "column": "code", "missing_values": ["", "N/A", "None"], "must_be": "< 10", "warn": "= 0"},
    {"type": "missing_count", "column": "n", "missing_values": [0, 10], "must_be": "< 1"},
    {"type": "missing_count", "column": "x", "missing_values": [0, 2], "must_be": "< 10"},
    {"type": "missing_percent", "column": "s", "must_be": "< 5%", "name": "s rarely missing"},
    {"type": "missing_percent", "column": "id", "must_be": "< 50%", "warn": "= 0"},
    {"type": "invalid_count", "column": "s", **EMAIL, "must_be": "= 0"},
    {"type": "invalid_percent", "column": "s", **EMAIL, "must_be": "< 50 %", "warn": "< 1%"},
    {"type": "invalid_count", "column": "cpf", "valid_format": "cpf", "must_be": "= 0"},
    {"type": "invalid_count", "column": "cnpj", "valid_format": "CNPJ", "must_be": "= 0"},
    {"type": "invalid_count", "column": "code", "valid_values": ["A1", "ok"], "missing_values": ["", "None"], "must_be": "< 3"},
    {"type": "invalid_count", "column": "code", "invalid_values": ["0", "1"], "must_be": "= 0"},
    {"type": "invalid_count", "column": "n", "valid_min": 0, "valid_max": 7, "must_be": "= 0"},
    {"type": "invalid_count", "column": "cpf", "valid_length": 11, "must_be": "= 0"},
    {"type": "invalid_count", "column": "s", "valid_min_length": 3, "valid_max_length": 15, "must_be": "<= 1"},
    {"type": "invalid_count", "column": "n", "valid_regex": "^[0-9]$", "must_be": "= 0"},
    {"type": "invalid_count", "column": "s", "valid_regex": "@", **EMAIL, "must_be": "= 0"},
    # group metrics
    {"type": "duplicate_count", "columns": ["id"], "must_be": "= 0"},
    {"type": "duplicate_count", "columns": ["id", "k2"], "must_be": "< 10", "warn": "= 0"},
    {"type": "duplicate_percent", "column": "id", "must_be": "< 10%"},
    {"type": "duplicate_percent", "column": "cnpj", "must_be": "<= 100%"},
    {"type": "distinct_count", "column": "id", "must_be": ">= 4"},
    {"type": "distinct_count", "columns": ["id", "k2"], "must_be": "== 5"},
    # freshness
    {"type": "freshness", "column": "ts", "must_be": "< 1d"},
    {"type": "freshness", "column": "ts", "must_be": "<= 1W", "warn": "< 10 m"},
    {"type": "freshness", "column": "d", "must_be": "< 3650d"},
    # thresholds in sparquet's language
    {"type": "row_count", "must_be": "+8"},
    {"type": "row_count", "must_be": "BETWEEN 1 AND 1e3"},
    {"type": "sum", "column": "n", "must_be": "between 30 and 20"},
    {"type": "avg", "column": "x", "must_be": "nan"},
    {"type": "max", "column": "n", "must_be": "< inf"},
    {"type": "missing_percent", "column": "x", "must_be": "< .5e2%"},
    # targets
    {"type": "regex", "targets": [{"column": "cpf", "pattern": "^[0-9]{11}$"},
                                  {"column": "cnpj", "pattern": "^[0-9]{14}$"}]},
    {"type": "range", "min": 0, "targets": [{"column": "n", "max": 7}, {"column": "x", "max": 1}]},
]  # fmt: skip

ROWS = {name: len(rows) for name, rows in DATASETS.items()}


def decided(dataset: str, rule: dict[str, Any]) -> dict[str, Any]:
    """What assay reports instead of sparquet-cola's answer, where it deliberately differs.

    ``row_count`` with ``must_be``: sparquet-cola 0.4.0 runs it as its min/max row count
    check, which never reads ``must_be`` (so it always passes); assay judges the
    threshold, as sparquet's docs describe the rule, counting 1 failed like a failing
    min/max ``row_count``.
    """
    if rule["type"] == "row_count" and "must_be" in rule:
        from assay.grammar.sparquet import parse_sparquet_threshold
        from assay.ir.origin import Origin

        held = parse_sparquet_threshold(rule["must_be"], Origin("oracle")).holds(ROWS[dataset])
        return {
            "passed": held,
            "severity": "pass" if held else "fail",
            "failed_count": 0 if held else 1,
        }
    return {}


def _expand(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from sparquet_cola import expand_targets

    return expand_targets(rules)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("oracle")
    paths = {}
    # ages count from when the data is written, not from collection, which a long suite
    # runs minutes earlier (the 10-minute freshness warning then flipped between runs)
    shift = dt.datetime.now(UTC).replace(microsecond=0) - NOW
    for name, rows in DATASETS.items():
        path = folder / f"{name}.parquet"
        moved = [{**r, "ts": r["ts"] + shift} if r.get("ts") else r for r in rows]
        pq.write_table(_frame(moved), path)
        paths[name] = path
    return paths


def _cola(spark, path: Path, rules: list[dict[str, Any]], monkeypatch) -> list[dict[str, Any]]:
    from sparquet_cola import Cola

    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    try:
        results = Cola().run(spark.read.parquet(str(path)), rules)
    finally:
        monkeypatch.delenv("SPARK_CONNECT_MODE_ENABLED")
    return [
        {
            "rule_type": r.rule_type,
            "passed": r.passed,
            "severity": r.severity,
            "failed_count": r.failed_count,
            "metric_value": r.metric_value,
            "check_name": r.check_name,
        }
        for r in results
    ]


@pytest.fixture(scope="module")
def assay_results(spark, corpus, tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("oracle_config")
    tables = [
        {"name": name, "source": {"path": str(path)}, "validations": {"rules": RULES}}
        for name, path in corpus.items()
    ]
    config = folder / "oracle.json"
    config.write_text(json.dumps({"tables": tables}))
    got = run(spark, load(config))
    by_table: dict[str, list[dict[str, Any]]] = {name: [] for name in corpus}
    for result in got.results:
        by_table[result["table"]].append(result)
    assert got.summary["spark_plans"] <= 2 * len(corpus) + 2  # aggregate (+ samples) per table
    return by_table


def _same_number(a: Any, b: Any, freshness: bool) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if freshness and math.isfinite(a):
        # The two runs read the clock seconds apart; both count whole seconds.
        return abs(a - b) <= 120 and b == int(b)
    return a == b


@pytest.mark.parametrize("dataset", list(DATASETS))
def test_assay_reports_what_sparquet_cola_reports(
    spark, corpus, assay_results, dataset, monkeypatch
):
    rules = _expand(RULES)
    expected = _cola(spark, corpus[dataset], rules, monkeypatch)
    got = assay_results[dataset]
    assert len(got) == len(expected)
    problems = []
    for index, (rule, want, have) in enumerate(zip(rules, expected, got, strict=True)):
        want = {**want, **decided(dataset, rule)}
        mine = {
            "passed": have["passed"],
            "severity": have["severity"],
            "failed_count": have["failed_count"],
        }
        theirs = {k: want[k] for k in mine}
        metric_ok = _metric_ok(want["metric_value"], have["metric_value"], rule)
        if mine != theirs or not metric_ok:
            problems.append(
                f"[{index}] {json.dumps(rule)}\n    sparquet-cola: {theirs} metric "
                f"{want['metric_value']!r}\n    assay:         {mine} metric "
                f"{have['metric_value']!r} ({have['message']})"
            )
    assert not problems, f"{dataset}: {len(problems)} differences\n" + "\n".join(problems)


def _metric_ok(want: Any, have: Any, rule: dict[str, Any]) -> bool:
    if isinstance(want, float) and not math.isfinite(want):
        return have is None  # JSON has no NaN or infinity: assay writes null
    return _same_number(want, have, rule["type"] == "freshness")
