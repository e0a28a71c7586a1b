"""DQX itself as the oracle: the same checks run by DQX's engine (databricks-labs-dqx,
``DQEngineCore.apply_checks_by_metadata`` on the test server's Spark Connect session) and
by assay on the same data, tricky on purpose (NULL, NaN, infinities, empty and blank
strings, unicode, dates and timestamps, empty arrays, an empty table). For every check:
assay's rule name is DQX's check name, and assay's failed count is the number of rows DQX
puts in ``_errors`` (``_warnings`` for ``criticality: warn``); an aggregate check fails
in assay exactly when DQX flags rows.

DQX's answers are recorded in ``oracle.json`` (tests/dialects/recorded.py), keyed by the
data, the checks, DQX's and pyspark's versions and ``_dqx_rows``' code: while the key
holds, only assay runs; when it does not, DQX runs live (the test warns that the
recording is stale, and ``test_recording_is_current`` fails until it is re-recorded with
``ASSAY_RECORD_ORACLES=1 python -m pytest tests/dialects/dqx/test_oracle.py``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.dialects import recorded
from tests.dialects.helpers import load, run
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("s", pa.string()),
        ("n", pa.int32()),
        ("x", pa.float64()),
        ("d", pa.date32()),
        ("t", pa.timestamp("us", tz="UTC")),
        ("a", pa.list_(pa.int32())),
        ("k", pa.string()),
        ("txt", pa.string()),
        ("j", pa.string()),
        ("w", pa.string()),
        ("u", pa.string()),
        ("v", pa.decimal128(10, 4)),
        *((name, pa.string()) for name in ("em", "url", "ip6", "cc", "c3", "cur", "lang", "sub",
                                           "nid")),
    ]
)  # fmt: skip
_T = dt.datetime(2025, 2, 24, 1, 0, tzinfo=dt.UTC)
ROWS: list[dict[str, Any]] = [
    {"id": 1, "s": "a", "n": 1, "x": 1.5, "d": dt.date(2025, 1, 1), "t": _T, "a": [1],
     "k": "k1", "txt": "2025-01-01", "j": '{"key1": 1}', "w": "Hello World",
     "u": "123e4567-e89b-12d3-a456-426614174000", "v": Decimal("1.5000")},
    {"id": 2, "s": "", "n": 10, "x": math.nan, "d": dt.date(2025, 2, 24), "t": None, "a": [],
     "k": "k1", "txt": "2025-13-01", "j": '{"key2": 2, "key1": null}', "w": "hello",
     "u": "00000000-0000-0000-0000-000000000000", "v": Decimal("2.2500")},
    {"id": 3, "s": None, "n": None, "x": None, "d": None, "t": _T.replace(year=2999), "a": None,
     "k": None, "txt": None, "j": None, "w": None,
     "u": None, "v": None},
    {"id": 4, "s": " ", "n": -3, "x": math.inf, "d": dt.date(2024, 12, 31),
     "t": _T.replace(hour=0), "a": [2, 3], "k": None, "txt": "not a date", "j": "not json",
     "w": "HELLO",
     "u": "123E4567-E89B-92D3-C456-426614174000", "v": Decimal("-0.0010")},
    {"id": 5, "s": "Ünï", "n": 2, "x": -0.0, "d": dt.date(2025, 2, 25), "t": _T, "a": [0],
     "k": "k2", "txt": "2025-02-24 01:00:00", "j": "[1, 2]", "w": " hello. world",
     "u": "not-a-uuid", "v": Decimal("100.0000")},
    {"id": 6, "s": "A", "n": 3, "x": -math.inf, "d": dt.date(2025, 1, 15), "t": _T,
     "a": [4], "k": "k2", "txt": "192.168.0.1", "j": "{}", "w": "Hello.  World",
     "u": "123e4567e89b12d3a456426614174000", "v": Decimal("3.1234")},
    {"id": 7, "s": "b", "n": 2, "x": 2.0, "d": dt.date(2025, 1, 15), "t": _T, "a": [5],
     "k": "k3", "txt": "256.1.1.1", "j": '{"a": {"key1": 1}}', "w": "ünï Ünï",
     "u": "123e4567-e89b-12d3-a456-4266141740001", "v": Decimal("0.0000")},
]  # fmt: skip
PORTED: dict[str, list[str | None]] = {
    "em": ["a+b@example.com", '"john..doe"@example.org', None, "ünï@example.com", " ",
           "user@[IPv6:2001:db8::1]", "a@b.c"],
    "url": ["https://user:pw@example.com:8080/p?q=1#f", "http://[::1]:80/", None, "example.com",
            "", "mailto:a@b.c", "http://ex ample.com"],
    "ip6": ["::1", "fe80::1%eth0", None, "::ffff:1.2.3.4", "", "2001:DB8::A", "1::2::3"],
    "cc": ["US", "us", None, "", "XK", "GB", " US"],
    "c3": ["840", "004", None, "4", "USA", "usa", "999"],
    "cur": ["USD", "usd", None, "XXX", "", "EURO", "ZWG"],
    "lang": ["en", "EN", None, "eng", "", "sh", "zz"],
    "sub": ["US-CA", "us-ca", None, "GB-ENG", "", "US-BY", "DE-BY"],
    "nid": ["123-45-6789", "123 45-6789", None, "AB123456C", "", "ABCPE1234F", "666-12-3456"],
}  # fmt: skip
"""Values for the checks ported from DQX's patterns, UDFs and ISO lists, by column."""
for _i, _row in enumerate(ROWS):
    _row.update({name: values[_i] for name, values in PORTED.items()})


REF_SCHEMA = pa.schema([("key", pa.string()), ("num", pa.int32())])
REF_ROWS = [{"key": "k1", "num": 1}, {"key": "k1", "num": 10}, {"key": "k2", "num": None},
            {"key": None, "num": 2}, {"key": "a", "num": 1}]  # fmt: skip


def _check(function: str, criticality: str = "error", **arguments: Any) -> dict[str, Any]:
    """A check; ``{"criticality": "warn", "filter": ..., **_check(...)}`` keeps its
    ``warn`` (an ``error`` check says nothing: DQX's default)."""
    check = {"check": {"function": function, "arguments": arguments}}
    return {"criticality": criticality, **check} if criticality != "error" else check


CHECKS: list[dict[str, Any]] = [
    _check("is_not_null", column="s"),
    _check("is_null", column="k"),
    _check("is_not_empty", column="s"),
    _check("is_not_empty", "warn", column="s", trim_strings=True),
    _check("is_not_null_and_not_empty", column="s"),
    _check("is_not_null_and_not_empty", column="s", trim_strings=True),
    _check("is_null_or_empty", column="s"),
    _check("is_empty", column="s", trim_strings=True),
    _check("is_in_list", column="n", allowed=[1, 2, 3]),
    _check("is_in_list", column="s", allowed=["'a'", "'b'"], case_sensitive=False),
    _check("is_in_list", column="s", allowed=["'a'", "'Ünï'"]),
    _check("is_not_in_list", column="n", forbidden=[10, -3]),
    _check("is_not_null_and_is_in_list", column="n", allowed=[1, 2, 3]),
    _check("is_not_null_and_not_empty_array", column="a"),
    _check("is_in_range", column="n", min_limit=1, max_limit=3),
    _check("is_in_range", column="x", min_limit=-1, max_limit=2.0),
    _check("is_in_range", column="n", min_limit=1, max_limit=3, allow_nulls=False),
    _check("is_in_range", column="d", min_limit="2025-01-01", max_limit="2025-02-24"),
    _check("is_in_range", column="n", min_limit="id", max_limit="id * 2"),
    _check("is_not_in_range", column="n", min_limit=1, max_limit=2),
    _check("is_not_less_than", column="x", limit=0),
    _check("is_not_less_than", column="d", limit="2025-01-01"),
    _check("is_not_greater_than", column="n", limit=2),
    _check("is_not_greater_than", column="t", limit="2025-02-24 00:30:00"),
    _check("is_equal_to", column="n", value=2),
    _check("is_not_equal_to", column="s", value="'a'"),
    _check("is_valid_date", column="txt"),
    _check("is_valid_date", column="txt", date_format="yyyy-MM-dd"),
    _check("is_valid_timestamp", column="txt"),
    _check("is_valid_timestamp", column="txt", timestamp_format="yyyy-MM-dd HH:mm:ss"),
    _check("is_not_in_future", column="t", offset=86400),
    _check("is_not_in_near_future", column="t", offset=10**10),
    _check("is_older_than_n_days", column="d", days=10),
    _check("is_older_than_n_days", column="d", days=10, negate=True),
    _check("is_older_than_col2_for_n_days", column1="d", column2="t", days=2),
    _check("regex_match", column="s", regex="^[a-z]+$"),
    _check("regex_match", column="s", regex="^[a-z]+$", negate=True),
    _check("sql_expression", expression="n > 1"),
    _check("sql_expression", expression="x > 1", negate=True, msg="x above one"),
    _check("sql_expression", expression="s = 'a'", columns=["s"]),
    _check("is_valid_ipv4_address", column="txt"),
    _check("is_ipv4_address_in_cidr", column="txt", cidr_block="192.168.0.0/16"),
    _check("is_ipv4_address_in_cidr", column="txt", cidr_block="192.168.0.1/32"),
    _check("is_ipv4_address_in_cidr", column="txt", cidr_block="0.0.0.0/0"),
    _check("has_num_decimal_places", column="x", limit=0),
    _check("has_num_decimal_places", column="txt", limit=1, allow_nulls=False),
    _check("has_num_decimal_places", column="v", limit=2),
    _check("has_num_decimal_places", column="v", limit="n"),
    _check("is_valid_json", column="j"),
    _check("is_valid_uuid", column="u"),
    _check("is_valid_uuid", column="u", strict=True),
    _check("has_json_keys", column="j", keys=["key1"]),
    _check("has_json_keys", column="j", keys=["key1", "key2"], require_all=False),
    _check("has_json_keys", column="j", keys=["key1", "key2"]),
    _check("has_valid_json_schema", column="j", schema="key1 INT"),
    _check("has_valid_json_schema", column="j", schema="key1 INT NOT NULL"),
    _check("has_valid_json_schema", column="j", schema="struct<key1:string not null, key2:int>"),
    _check("has_valid_json_schema", column="j", schema="key1 BOOLEAN, key2 STRING"),
    _check("has_valid_json_schema", column="j", schema="a STRUCT<key1: INT NOT NULL>"),
    _check("has_valid_json_schema", column="j", schema="a STRUCT<key1: INT NOT NULL> NOT NULL"),
    _check("has_valid_json_schema", column="s", schema="x ARRAY<INT>"),
    _check("has_valid_string_case", column="w", case="upper"),
    _check("has_valid_string_case", column="w", case="lower"),
    _check("has_valid_string_case", column="w", case="title"),
    _check("has_valid_string_case", column="w", case="sentence"),
    _check("is_valid_email", column="em"),
    _check("is_valid_url", column="url"),
    _check("is_valid_ipv6_address", column="ip6"),
    _check("is_valid_ipv6_address", column="txt"),
    _check("is_ipv6_address_in_cidr", column="ip6", cidr_block="::/0"),
    _check("is_ipv6_address_in_cidr", column="ip6", cidr_block="fe80::/10"),
    _check("is_ipv6_address_in_cidr", column="ip6", cidr_block="::ffff:0:0/96"),
    _check("is_ipv6_address_in_cidr", column="ip6", cidr_block="2001:db8::1/33"),
    _check("is_valid_country_code", column="cc"),
    _check("is_valid_country_code", column="cc", case_sensitive=False),
    _check("is_valid_country_code", column="c3", code_format="Alpha-3", case_sensitive=False),
    _check("is_valid_country_code", column="c3", code_format="numeric"),
    _check("is_valid_country_code", column="n", code_format="numeric"),
    _check("is_valid_currency_code", column="cur"),
    _check("is_valid_currency_code", column="cur", case_sensitive=False),
    _check("is_valid_currency_code", column="c3", code_format="NUMERIC"),
    _check("is_valid_language_code", column="lang"),
    _check("is_valid_language_code", column="lang", case_sensitive=False),
    _check("is_valid_language_code", column="lang", code_format="alpha-3"),
    _check("is_valid_subdivision_code", column="sub"),
    _check("is_valid_subdivision_code", column="sub", case_sensitive=False),
    _check("is_valid_subdivision_code", column="sub", country_column="cc"),
    _check("is_valid_subdivision_code", column="sub", country_column="cc", case_sensitive=False),
    _check("is_valid_national_id", column="nid"),
    _check("is_valid_national_id", column="nid", country="gb"),
    _check("is_valid_national_id", column="nid", country="IN"),
    _check("has_no_gaps_per_time_window", column="d", window_minutes=1440),
    _check("has_no_gaps_per_time_window", column="t", window_minutes=60),
    _check("has_no_gaps_per_time_window", column="d", window_minutes=1440, group_by=["k"]),
    _check("has_no_gaps_per_time_window", column="d", window_minutes=1440, trailing_gap=True),
    {"criticality": "warn", "filter": "n > 1",
     **_check("has_no_gaps_per_time_window", column="d", window_minutes=1440)},
    _check("is_data_fresh_per_time_window", column="t", window_minutes=60,
           min_records_per_window=4),
    _check("is_data_fresh_per_time_window", column="t", window_minutes=60,
           min_records_per_window=5),
    _check("is_data_fresh_per_time_window", column="t", window_minutes=60,
           min_records_per_window=1, lookback_windows=1),
    _check("is_data_fresh_per_time_window", column="t", window_minutes=60,
           min_records_per_window=4, row_filter="n > 1"),
    {"criticality": "warn", "filter": "id > 3",
     **_check("is_data_fresh_per_time_window", column="t", window_minutes=60,
              min_records_per_window=3)},
    _check("is_data_fresh_per_time_window", column="d", window_minutes=1440,
           min_records_per_window=2),
    _check("is_latitude", column="x"),
    _check("is_longitude", column="n"),
    _check("is_latitude", column="txt"),
    _check("is_in_distribution", column="s", distribution={"a": 0.5, "b": 0.2}, distance=0.3),
    _check("is_in_distribution", column="s", distribution={"a": 0.5, "b": 0.2}, distance=0.4),
    _check("is_in_distribution", column="s", distribution={"a": 0.3}, distance=0.02,
           case_sensitive=False),
    _check("is_in_distribution", column="k", distribution={"k1": 0.4, "k2": 0.4}, distance=0),
    _check("is_in_distribution", column="k", distribution={"k2": 0.5}, distance=0.1,
           row_filter="id > 2"),
    {"criticality": "warn", "filter": "id > 100",
     **_check("is_in_distribution", column="k", distribution={"k1": 1.0}, distance=0)},
    _check("has_no_outliers", column="n"),
    _check("has_no_outliers", column="x"),
    _check("has_no_outliers", column="v", row_filter="id > 1"),
    {"criticality": "warn", "filter": "id < 7", **_check("has_no_outliers", column="n")},
    _check("is_data_fresh", column="t", max_age_minutes=60),
    _check("is_data_fresh", column="t", max_age_minutes=30, base_timestamp="2025-02-24 01:00:00"),
    _check("is_data_fresh", column="d", max_age_minutes=1440, base_timestamp="2025-01-15"),
    {"criticality": "error", "check": {"function": "is_not_null", "for_each_column": ["n", "d"]}},
    {"criticality": "warn", "filter": "n > 1", **_check("is_not_null", column="s")},
    {"criticality": "error", "filter": "k IS NOT NULL", **_check("is_in_list", column="n",
                                                                  allowed=[1, 2])},
    _check("is_unique", columns=["k"]),
    _check("is_unique", columns=["k"], nulls_distinct=False),
    _check("is_unique", columns=["k", "n"]),
    {"criticality": "error", "filter": "id < 6", **_check("is_unique", columns=["k"])},
    _check("is_aggr_not_greater_than", column="*", aggr_type="count", limit=5),
    _check("is_aggr_not_less_than", column="*", aggr_type="count", limit=1),
    {"criticality": "error", "filter": "n > 2",
     **_check("is_aggr_not_less_than", column="*", aggr_type="count", limit=5)},
    _check("is_aggr_not_greater_than", column="n", aggr_type="count", limit=5),
    _check("is_aggr_not_less_than", column="n", aggr_type="sum", limit=100),
    _check("is_aggr_equal", column="n", aggr_type="max", limit=10),
    _check("is_aggr_not_equal", column="n", aggr_type="min", limit=-3),
    _check("is_aggr_not_greater_than", column="x", aggr_type="avg", limit=0),
    _check("is_aggr_not_greater_than", column="k", aggr_type="count_distinct", limit=2),
    _check("is_aggr_not_less_than", column="n", aggr_type="approx_count_distinct", limit=7),
    _check("is_aggr_not_greater_than", column="n > 1", aggr_type="count_if", limit=3),
    _check("is_aggr_not_greater_than", column="n", aggr_type="stddev", limit=3),
    _check("is_aggr_not_less_than", column="n", aggr_type="stddev_pop", limit=4),
    _check("is_aggr_equal", column="n", aggr_type="variance", limit=1),
    _check("is_aggr_not_equal", column="n", aggr_type="median", limit=2),
    _check("is_aggr_equal", column="n", aggr_type="mode", limit=2),
    _check("is_aggr_not_greater_than", column="n", aggr_type="skewness", limit=0),
    _check("is_aggr_not_greater_than", column="x", aggr_type="kurtosis", limit=0),
    _check("is_aggr_not_greater_than", column="n", aggr_type="percentile", limit=2,
           aggr_params={"percentile": 0.9}),
    _check("is_aggr_not_less_than", column="n", aggr_type="approx_percentile", limit=3,
           aggr_params={"percentile": 0.5, "accuracy": 100}),
    {"criticality": "warn", "filter": "id > 2",
     **_check("is_aggr_not_greater_than", column="k", aggr_type="count_distinct", limit=1)},
    _check("is_aggr_not_greater_than", column="*", aggr_type="count", group_by=["k"], limit=1),
    {"criticality": "warn", "filter": "id > 1", **_check("is_aggr_not_less_than", column="n",
                                                         group_by=["k"], limit=2)},
    _check("is_aggr_equal", column="n", group_by=["k", "s"], limit=1),
    _check("is_aggr_not_equal", column="n", group_by=["k"], limit=2),
    _check("foreign_key", columns=["k"], ref_columns=["key"], ref_df_name="ref"),
    _check("foreign_key", columns=["k", "n"], ref_columns=["key", "num"], ref_df_name="ref"),
    {"criticality": "warn", "filter": "n > 1",
     **_check("foreign_key", columns=["s"], ref_columns=["key"], ref_df_name="ref")},
    _check("foreign_key", columns=["k"], ref_columns=["key"], ref_df_name="ref", negate=True),
    _check("foreign_key", columns=["k", "n"], ref_columns=["key", "num"], ref_df_name="ref",
           negate=True),
    {"criticality": "warn", "filter": "n < 5",
     **_check("foreign_key", columns=["s"], ref_columns=["key"], ref_df_name="ref",
              negate=True)},
    _check("sql_query", query="SELECT count(*) > 3 AS condition FROM {{input_view}}"),
    _check("sql_query", query="SELECT sum(n) > 100 AS bad FROM {{ input_view }}",
           condition_column="bad", name="sum_n_small"),
    _check("sql_query", query="SELECT max(x) > 1 AS condition FROM {{input_view}} WHERE id > 100"),
    _check("sql_query", query="SELECT CAST(NULL AS BOOLEAN) AS condition", negate=True),
    {"criticality": "warn", "filter": "id < 3",
     **_check("sql_query", query="SELECT count(*) = 2 AS c FROM {{input_view}}",
              condition_column="c", negate=True)},
    {"criticality": "error", "filter": "id > 100",
     **_check("is_aggr_not_less_than", column="n", aggr_type="sum", limit=1)},
    # row_filter: DQX aggregates the rows it keeps and flags every row (the check's
    # filter, when both are written, replaces it)
    _check("is_aggr_not_less_than", column="*", aggr_type="count", limit=5, row_filter="n > 2"),
    _check("is_aggr_not_less_than", column="*", aggr_type="count", limit=1,
           row_filter="id > 100"),
    _check("is_aggr_not_greater_than", column="n", aggr_type="sum", limit=5,
           row_filter="id < 3"),
    _check("is_aggr_not_less_than", column="n", aggr_type="sum", limit=1, row_filter="id > 100"),
    _check("is_aggr_not_greater_than", column="x", aggr_type="avg", limit=1,
           row_filter="x = x"),
    _check("is_aggr_equal", column="k", aggr_type="count_distinct", limit=2,
           row_filter="id > 2"),
    {"criticality": "warn", "filter": "n > 2",
     **_check("is_aggr_not_less_than", column="*", aggr_type="count", limit=1,
              row_filter="id > 100")},
    _check("is_aggr_not_less_than", column="n", group_by=["k"], limit=1, row_filter="n > 1"),
    _check("is_aggr_not_greater_than", column="*", group_by=["k"], limit=0,
           row_filter="id > 5"),
    {"criticality": "warn", "filter": "id > 1",
     **_check("is_aggr_not_less_than", column="*", group_by=["k"], limit=1,
              row_filter="id > 100")},
    _check("is_unique", columns=["k"], row_filter="id < 6"),
    _check("foreign_key", columns=["s"], ref_columns=["key"], ref_df_name="ref",
           row_filter="n > 1"),
    _check("sql_query", query="SELECT count(*) = 2 AS c FROM {{input_view}}",
           condition_column="c", row_filter="id < 3"),
]  # fmt: skip


class _Workspace:
    """What DQX's engine asks of a Databricks workspace client: nothing runs remotely."""

    class config:  # noqa: N801 - DQX reads ``ws.config._product_info``
        _product_info = ("dqx", "test")

    class clusters:  # noqa: N801
        @staticmethod
        def select_spark_version() -> str:
            return ""


def _named(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checks each with a name of its own (DQX adds up the rows of checks sharing a
    name); a ``for_each_column`` check is given as one check per column."""
    named: list[dict[str, Any]] = []
    for check in checks:
        inner = check["check"]
        for column in inner.get("for_each_column") or [None]:
            one = {**check, "check": {k: v for k, v in inner.items() if k != "for_each_column"}}
            if column is not None:
                one["check"]["arguments"] = {**inner.get("arguments", {}), "column": column}
            named.append({**one, "name": f"c{len(named)}"})
    return named


def _dqx_names(checks: list[dict[str, Any]]) -> list[str]:
    """DQX's default name of each check (``for_each_column`` expanded)."""
    from databricks.labs.dqx.checks_serializer import deserialize_checks

    return [rule.name for rule in deserialize_checks(checks)]


DQX_CHUNK = 20
"""Checks DQX applies at once. Each check's rows are its own (every check has a name of
its own), so the checks are applied in chunks: Spark's planning of DQX's one DataFrame
grows faster than its width (all checks at once took 125 s, chunks of 25 took 26 s, on
the same loaded server)."""


def _dqx_rows(spark, path: Path, checks: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per check name, the rows DQX puts in ``_errors`` and in ``_warnings``."""
    from databricks.labs.dqx import engine as dqx_engine

    engine = dqx_engine.DQEngineCore(_Workspace(), spark)  # type: ignore[arg-type]
    ref = spark.read.parquet(str(path.with_name("ref.parquet")))
    df = spark.read.parquet(str(path))
    found = {c["name"]: {"_errors": 0, "_warnings": 0} for c in checks}
    for start in range(0, len(checks), DQX_CHUNK):
        chunk = checks[start : start + DQX_CHUNK]
        checked = engine.apply_checks_by_metadata(df, chunk, ref_dfs={"ref": ref})
        for row in checked.select("_errors", "_warnings").collect():
            for column in ("_errors", "_warnings"):
                for item in row[column] or ():
                    found[item["name"]][column] += 1
    return found


def _write(base: Path, table: str) -> Path:
    """``table``'s rows in ``base/<table>/data.parquet``, the reference beside them."""
    path = base / table / "data.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(TABLES[table], schema=SCHEMA), path)
    pq.write_table(pa.Table.from_pylist(REF_ROWS, schema=REF_SCHEMA), path.with_name("ref.parquet"))
    return path


@pytest.fixture(scope="module")
def assay_results(spark, tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    """assay's results on every table of :data:`TABLES`, by table, from ONE run of a
    suite holding them all (each table the checks over its parquet file, as loaded
    alone): the run plans and runs its tables at once, as it does a config of several
    tables, where a run per table waited for each wide plan in turn."""
    base = tmp_path_factory.mktemp("dqx")
    file = base / "checks.json"
    file.write_text(json.dumps(_named(CHECKS), indent=2))
    suites = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
        for table in TABLES:
            path = _write(base, table)
            inputs = {"ref": str(path.with_name("ref.parquet"))}
            suites[table] = load(file, source=str(path), inputs=inputs, for_run=True)
        # every suite reads the same reference rows: the first one's view serves all
        tables = [dataclasses.replace(s.tables[0], name=t) for t, s in suites.items()]
        spark.conf.set("spark.sql.session.timeZone", TIMEZONE)
        sink = run(spark, dataclasses.replace(suites["tricky"], tables=tables))
    return {t: [r for r in sink.results if r["table"] == t] for t in TABLES}


RECORDING = Path(__file__).with_name("oracle.json")
TIMEZONE = "UTC"
TABLES = {"tricky": ROWS, "empty": []}


def _inputs(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What DQX's answers on ``rows`` depend on (the recording's key)."""
    return {
        "data": recorded.rows_digest(SCHEMA, rows),
        "ref": recorded.rows_digest(REF_SCHEMA, REF_ROWS),
        "checks": _named(CHECKS),
        "versions": recorded.versions("databricks-labs-dqx", "pyspark", "pyarrow"),
        "code": recorded.sources(_Workspace, _dqx_rows),
        "chunk": DQX_CHUNK,
        "timezone": TIMEZONE,
    }


def test_recording_is_current():
    cases = {table: _inputs(rows) for table, rows in TABLES.items()}
    recorded.assert_current(RECORDING, cases, "DQX", "tests/dialects/dqx/test_oracle.py")


@pytest.mark.parametrize("table", list(TABLES))
def test_assay_flags_the_rows_dqx_flags(spark, tmp_path, monkeypatch, assay_results, table):
    # DQX builds its conditions with pyspark.sql.functions, which build Spark Connect
    # columns only in Connect mode
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    path = _write(tmp_path, table)
    spark.conf.set("spark.sql.session.timeZone", TIMEZONE)
    named = _named(CHECKS)
    expected = recorded.answers(
        RECORDING, table, _inputs(TABLES[table]), lambda: _dqx_rows(spark, path, named)
    )
    results = assay_results[table]
    assert [r["rule"]["name"] for r in results] == [c["name"] for c in named]
    differ: list[str] = []
    for check, result in zip(named, results, strict=True):
        name, level = check["name"], result["severity"]
        what = f"{name} {check['check']['function']} {check['check']['arguments']}"
        assert level != "error", f"{what}: {result['message']}"
        counts = expected[name]
        flagged = counts["_errors"] + counts["_warnings"]
        validate_event(result)
        view = result["details"]["dqx"]
        warn = check.get("criticality") == "warn"
        assert view["column"] == ("_warnings" if warn else "_errors")
        if view["rows"] is not None and view["rows"] != counts[view["column"]]:
            differ.append(f"{what}: DQX puts {counts} rows, details.dqx {view}")
        if counts["_warnings"] and level != "warn":
            differ.append(f"{what}: DQX warns on {counts['_warnings']} rows, assay {level}")
        if view["rows"] is None:  # an aggregate: every row (of a group) or none
            if (flagged > 0) != (not result["passed"]):
                differ.append(f"{what}: DQX flags {flagged} rows, assay passed={result['passed']}")
        elif result["failed_count"] != flagged:
            differ.append(f"{what}: DQX flags {flagged} rows, assay {result['failed_count']}")
    assert not differ, "\n".join(differ)


def test_assay_names_checks_as_dqx_does(spark, tmp_path, monkeypatch):
    # DQX builds the time-window checks' conditions (current_timestamp()) in a session
    del spark
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    path = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist([], schema=SCHEMA), path)
    file = tmp_path / "checks.json"
    file.write_text(json.dumps(CHECKS))
    rules = load(file, source=str(path), inputs={"ref": str(path)}).tables[0].rules
    assert [r.name for r in rules] == _dqx_names(CHECKS)
