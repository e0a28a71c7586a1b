"""Every number of a profile against an independent plain Spark SQL query, on data built
to break them (nulls, NaN, infinities, empty strings, unicode, all-null columns, an empty
table), in both frequency modes; and the plans it costs, read from the Spark UI."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import assay
from assay.executor.profile import SAMPLE_SEED
from assay.profiling.plan import FORMATS, NUMBER, NUMERIC, ProfileOptions
from assay.report.events import json_number
from tests.dialects import recorded
from tests.differential import recorded_sql
from tests.helpers import validate_event
from tests.profile.conftest import SCHEMA, rows

pytestmark = pytest.mark.spark

QUANTILES = ProfileOptions().quantiles


_ORACLE: dict[str, list[dict[str, Any]]] = {}
RECORDING = Path(__file__).with_name("oracle.json")
TABLES: dict[str, str] = {}
"""The tables the oracle reads, by the SQL naming them (a parquet file of this session's
temporary folder, a view), and the name the recording knows them by."""


@pytest.fixture(autouse=True, scope="module")
def _time_zone(spark) -> Iterator[None]:
    """The session time zone the recorded answers hold (the session's own put back)."""
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", recorded_sql.TIMEZONE)
    yield
    spark.conf.set("spark.sql.session.timeZone", zone)


def table_of(spark, path: Path, name: str) -> str:
    """``path``'s parquet file as the oracle's queries name it (known as ``name``)."""
    del spark
    sql = f"parquet.`{path}`"
    TABLES[sql] = name
    return sql


def data_of(name: str) -> str:
    """What the table known as ``name`` holds: the rows the test writes, their types, and
    for the sample, how Spark draws it."""
    digest = recorded_sql.data_digest(SCHEMA, rows() if name != "empty" else [])
    if name == "sample":
        return f"{digest} sample(withReplacement=False, fraction=0.5, seed={SAMPLE_SEED})"
    return digest


def _key(text: str) -> tuple[str, dict[str, Any]]:
    """A query's case in the recording (its text with its tables' names, which tells
    the cases apart) and key: that text, the data, the oracle's code, the versions."""
    named = text
    used = []
    for sql, name in TABLES.items():
        if sql in named:
            named = named.replace(sql, f"<{name}>")
            used.append(name)
    return named, _inputs(named, sorted(used))


def _inputs(named: str, used: list[str]) -> dict[str, Any]:
    data = "; ".join(f"{name}: {data_of(name)}" for name in used)
    return {**recorded_sql.inputs(named, data), "code": recorded.sources(*ORACLE_CODE)}


def oracle(spark, text: str) -> list[dict[str, Any]]:
    """The rows of a plain SQL query, run once per module: every frequency mode is held
    against the same answers (the oracle reads the same file whatever mode is tested).
    Recorded in oracle.json by key (tests/differential/recorded_sql.py): run only when
    the query, the data, the oracle's code or the versions changed."""
    if text not in _ORACLE:
        case, key = _key(text)
        _ORACLE[text] = recorded_sql.rows(
            RECORDING, case, key, lambda: [r.asDict() for r in spark.sql(text).collect()]
        )
    return _ORACLE[text]


def q(name: str) -> str:
    return f"`{name}`"


def _parts(column: str, family: str) -> dict[str, str]:
    """The column's numbers as plain SQL aggregates, by name."""
    c = q(column)
    kept = f" FILTER (WHERE NOT isnan({c}))" if family == "fractional" else ""
    parts = {
        "row_count": "count(*)",
        "nulls": f"count_if({c} IS NULL)",
        "count": f"count({c})",
        "distinct_exact": f"count(DISTINCT {c})",
    }
    if family != "other":
        parts["distinct_approx"] = f"approx_count_distinct({c})"
        parts["min"], parts["max"] = f"min({c}){kept}", f"max({c}){kept}"
    if family == "fractional":
        parts["nan"] = f"count_if(isnan({c}))"
    if family in NUMERIC:
        parts.update(
            sum=f"sum({c}){kept}", mean=f"avg({c}){kept}", stddev=f"stddev_samp({c}){kept}"
        )
        array = ", ".join(map(str, QUANTILES))
        parts["quantiles"] = f"percentile_approx({c}, array({array}), 10000){kept}"
        # the histogram's range: the finite and infinite values, NaN and NULL left out
        double = f"CAST({c} AS DOUBLE)"
        parts["low"] = f"min({double}) FILTER (WHERE NOT isnan({double}))"
        parts["high"] = f"max({double}) FILTER (WHERE NOT isnan({double}))"
    if family == "string":
        parts.update(length_min=f"min(length({c}))", length_max=f"max(length({c}))",
                     length_mean=f"avg(length({c}))", empty=f"count_if({c} = '')")  # fmt: skip
        number = NUMBER.replace("\\", "\\\\")
        parts["parses_number"] = f"count_if({c} RLIKE '{number}')"
        parts["parses_boolean"] = f"count_if({c} RLIKE '^(true|false)$')"
        parts["parses_date"] = f"count_if(try_cast({c} AS DATE) IS NOT NULL)"
        for fmt, pattern in FORMATS.items():
            escaped = pattern.replace("\\", "\\\\")
            parts[f"format_{fmt}"] = f"count_if({c} RLIKE '{escaped}')"
    return parts


def expected(spark, table: str, events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every column's numbers by plain SQL over ``table`` (a FROM clause), by column: ONE
    query for all the columns (each column's aggregates as they would be alone)."""
    parts = [_parts(e["column"], e["family"]) for e in events]
    select = ", ".join(
        f"{sql} AS c{i}_{name}" for i, p in enumerate(parts) for name, sql in p.items()
    )
    row = oracle(spark, f"SELECT {select} FROM {table}")[0]
    return {
        e["column"]: {name: row[f"c{i}_{name}"] for name in p}
        for i, (e, p) in enumerate(zip(events, parts, strict=True))
    }


def grouped(spark, table: str, keys: dict[str, str]) -> dict[str, dict[Any, int]]:
    """Per name, the rows of ``table`` by the value of its SQL expression, NULL left out:
    ``SELECT key, count(*) ... GROUP BY key`` for every key at once, as grouping sets."""
    names = list(keys)
    if not names:
        return {}
    columns = ", ".join(f"{sql} AS k{i}" for i, sql in enumerate(keys.values()))
    flags = ", ".join(f"grouping(k{i}) AS g{i}" for i in range(len(names)))
    sets = ", ".join(f"(k{i})" for i in range(len(names)))
    found: dict[str, dict[Any, int]] = {name: {} for name in names}
    query = (
        f"SELECT {flags}, {', '.join(f'k{i}' for i in range(len(names)))}, count(*) AS n "
        f"FROM (SELECT {columns} FROM {table}) GROUP BY GROUPING SETS ({sets})"
    )
    for row in oracle(spark, query):
        for i, name in enumerate(names):
            if row[f"g{i}"] == 0 and row[f"k{i}"] is not None:
                found[name][row[f"k{i}"]] = row["n"]
    return found


def same(got: Any, want: Any) -> bool:
    """Equal as the JSON line writes it; a double computed by a floating-point aggregate
    (a mean, a standard deviation) equal to the last bits, which the order Spark adds in
    sets (plain SQL's own answer moves with the plan's shape)."""
    if isinstance(want, float) and math.isnan(want):
        return got is None
    if isinstance(want, float) and isinstance(got, float):
        return math.isclose(got, want, rel_tol=1e-12)
    if hasattr(want, "isoformat"):
        return got == want.isoformat()
    if isinstance(want, (int, float, Decimal)) and not isinstance(want, bool):
        return got == json_number(want)
    return got == want


def check_column(event: dict[str, Any], want: dict[str, Any]) -> None:
    rows, count = want["row_count"], want["count"]
    for name in ("row_count", "nulls", "count", "min", "max", "sum", "mean", "stddev", "nan",
                 "distinct_approx"):  # fmt: skip
        if name in want:
            assert same(event[name], want[name]), (event["column"], name, event[name], want)
    if event["distinct_exact"] is not None:
        assert event["distinct_exact"] == want["distinct_exact"]
    assert event["null_percent"] == (None if rows == 0 else 100 * want["nulls"] / rows)
    if "quantiles" in want:
        found = want["quantiles"]
        assert event["quantiles"] == (
            None
            if found is None
            else {f"{p:g}": json_number(v) for p, v in zip(QUANTILES, found, strict=True)}
        ), event["column"]
    if event["family"] == "string":
        lengths = event["lengths"]
        if count == 0:
            assert lengths is None
        else:
            assert lengths["min"] == want["length_min"] and lengths["max"] == want["length_max"]
            assert lengths["mean"] == json_number(want["length_mean"])
        assert event["empty"] == want["empty"]
        for what in ("number", "date", "boolean"):
            share = None if count == 0 else want[f"parses_{what}"] / count
            assert event["parses"][what] == share, (event["column"], what)
        for fmt in FORMATS:
            share = None if count == 0 else want[f"format_{fmt}"] / count
            assert event["formats"][fmt] == share, (event["column"], fmt)


def check_top_values(spark, table: str, events: list[dict[str, Any]]) -> None:
    """Every column's top values: its rows by value (NULL left out), most first."""
    events = [e for e in events if e["top_values"] is not None]
    counts = grouped(spark, table, {e["column"]: q(e["column"]) for e in events})
    for event in events:
        found = counts[event["column"]].items()
        want = sorted(((_plain(v), n) for v, n in found), key=lambda p: (-p[1], str(p[0])))
        assert [(t["value"], t["count"]) for t in event["top_values"]] == want, event["column"]
        assert event["frequencies_complete"] is True


def _plain(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return json_number(value) if isinstance(value, (float, Decimal)) else value


def check_histograms(
    spark, table: str, events: list[dict[str, Any]], wanted: dict[str, dict[str, Any]]
) -> None:
    """Every numeric column's ten bins over its finite range (NULL and NaN left out)."""
    buckets = {}
    for event in events:
        c, want = q(event["column"]), wanted[event["column"]]
        if event["family"] not in NUMERIC:
            assert event["histogram"] is None
            continue
        low, high = want["low"], want["high"]
        if low is None or not math.isfinite(low) or not math.isfinite(high):
            assert event["histogram"] is None, event["column"]
            continue
        width = (high - low) / 10
        double = f"CAST({c} AS DOUBLE)"
        bucket = "0" if width == 0 else f"least(floor(({double} - {low!r}) / {width!r}), 9)"
        kept = f"{c} IS NOT NULL AND NOT isnan({double})"  # least() skips a NULL
        buckets[event["column"]] = f"CASE WHEN {kept} THEN {bucket} END"
    counts = grouped(spark, table, buckets)
    for event in events:
        if event["column"] in buckets:
            found, want = counts[event["column"]], wanted[event["column"]]
            bins = event["histogram"]["bins"]
            assert [b["count"] for b in bins] == [found.get(i, 0) for i in range(10)]
            assert bins[0]["lowerBound"] == want["low"]
            assert bins[-1]["upperBound"] == want["high"]


def check_keys(spark, table: str, table_event: dict[str, Any]) -> None:
    """The candidate keys: the keys checked whose values are distinct and never NULL
    (ONE query for every key)."""
    rows, keys = table_event["row_count"], table_event["keys_checked"]
    parts = []
    for i, key in enumerate(keys):
        nulls = " OR ".join(f"{q(k)} IS NULL" for k in key)
        parts.append(f"count(DISTINCT {', '.join(map(q, key))}) AS d{i}, "
                     f"count_if({nulls}) AS n{i}")  # fmt: skip
    [found] = oracle(spark, f"SELECT {', '.join(parts)} FROM {table}")
    for i, key in enumerate(keys):
        unique = found[f"d{i}"] == rows and found[f"n{i}"] == 0
        assert (key in table_event["candidate_keys"]) is unique, key


ORACLE_CODE = (_parts, expected, grouped, check_top_values, check_histograms, check_keys)
"""The oracle's code: what its queries are built by (in the recording's key)."""


def profiled(spark, server, path, **given: Any) -> tuple[list[dict[str, Any]], int]:
    df = spark.read.parquet(str(path))
    before = server.sql_executions()
    result = assay.profile(df, name="tricky", **given)
    plans = server.sql_executions() - before
    for event in result.events:
        validate_event(event)
    return result.events, plans


SHAPES = {
    "top_k": {"frequencies": "top_k"},
    # the text statistics by value, from every text column's frequency table
    "group_by": {"frequencies": "group_by"},
    # ... by a scan of plan 2 for the columns with more than 2 distinct values
    "group_by_scanned": {"frequencies": "group_by", "low_cardinality": 2},
    # ... all in plan 1: the plain form
    "group_by_plain": {"frequencies": "group_by", "by_value": False},
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_number_equals_plain_sql(spark, server, tricky, shape):
    options = ProfileOptions(**SHAPES[shape])
    events, plans = profiled(spark, server, tricky, exact_distinct=True, options=options)
    table = table_of(spark, tricky, "tricky")
    *columns, summary = events
    assert summary["spark_plans"] == plans == 2
    assert len(columns) == 15
    wanted = expected(spark, table, columns)
    for event in columns:
        check_column(event, wanted[event["column"]])
    check_top_values(spark, table, columns)
    check_histograms(spark, table, columns, wanted)
    check_keys(spark, table, summary)
    assert ["id", "line"] in summary["candidate_keys"]
    assert {"day", "ts", "dec"} <= {k[0] for k in summary["candidate_keys"] if len(k) == 1}
    none = {e["column"]: e for e in columns}["none_s"]
    assert none["nulls"] == 40 and none["min"] is None and none["lengths"] is None
    assert none["top_values"] == [] and none["parses"] == {"number": None, "date": None,
                                                          "boolean": None}  # fmt: skip


def test_the_approximate_distinct_path_finds_the_same_keys(spark, server, tricky):
    events, plans = profiled(spark, server, tricky)
    summary = events[-1]
    assert plans == summary["spark_plans"] == 2
    check_keys(spark, table_of(spark, tricky, "tricky"), summary)
    assert ["id", "line"] in summary["candidate_keys"]
    assert all(e["distinct_exact"] is None for e in events[:-1])


def test_an_empty_table_is_one_plan_and_no_numbers(spark, server, empty):
    events, plans = profiled(spark, server, empty)
    *columns, summary = events
    assert plans == summary["spark_plans"] == 1
    assert summary["row_count"] == 0 and summary["candidate_keys"] == []
    table = table_of(spark, empty, "empty")
    wanted = expected(spark, table, columns)
    for event in columns:
        check_column(event, wanted[event["column"]])
        assert event["null_percent"] is None and event["histogram"] is None
        assert event["quantiles"] is None and event["mean"] is None


def test_a_sample_is_the_same_rows_in_every_branch(spark, server, tricky):
    events, _ = profiled(spark, server, tricky, sample=0.5, exact_distinct=True)
    df = spark.read.parquet(str(tricky)).sample(withReplacement=False, fraction=0.5,
                                                seed=SAMPLE_SEED)  # fmt: skip
    df.createOrReplaceTempView("tricky_sample")
    TABLES["tricky_sample"] = "sample"
    assert all(e["sample"] == 0.5 for e in events)
    wanted = expected(spark, "tricky_sample", events[:-1])
    for event in events[:-1]:
        check_column(event, wanted[event["column"]])
    assert events[-1]["row_count"] == df.count() < 40


@pytest.mark.parametrize(
    "values",
    [[5], [1, 1, 1, 2], list(range(20)), [3, 1, 2, 2, 2, 9, -4, 0], [7] * 3 + [8] * 97, [None, 4]],
    ids=["one", "ties", "twenty", "unordered", "skewed", "with_null"],
)
def test_quantiles_by_value_are_percentile_approx_on_data_it_keeps_whole(spark, values):
    """A whole number's quantiles from its frequency table equal Spark's
    ``percentile_approx`` wherever its summary keeps every value (here), including the
    edges it answers with the min and max and ranks that fall on a value's last row."""
    from collections import Counter

    from assay.profiling.second import nearest_rank

    quantiles = (0.00005, 0.0001, 0.05, 0.25, 0.5, 0.75, 0.95, 0.9999, 1.0)
    rows = ", ".join(f"({'NULL' if v is None else v})" for v in values)
    array = ", ".join(map(str, quantiles))
    [want] = spark.sql(
        f"SELECT percentile_approx(v, array({array}), 10000) FROM VALUES {rows} AS t(v)"
    ).collect()[0]
    counts = Counter(v for v in values if v is not None)
    present = [{"value": v, "n": n} for v, n in counts.items()]
    assert nearest_rank(present, quantiles, 10000) == want


def test_recording_is_current():
    """The recorded answers (oracle.json) are those of their queries over today's data,
    by today's oracle code and versions (no Spark). A query whose text changed (the
    profile's columns, its keys checked) is told stale by the test that runs it, which
    then runs it live."""
    found = json.loads(RECORDING.read_text())
    cases = {case: _inputs(case, sorted(re.findall(r"<(\w+)>", case))) for case in found}
    recorded.assert_current(RECORDING, cases, "the profile's plain-SQL oracle",
                            "tests/profile/test_differential.py")  # fmt: skip
