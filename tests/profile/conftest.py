"""Tricky data for the profile's tests: nulls, NaN, infinities, empty strings, unicode,
all-null columns, and an empty table of the same schema (parquet files, read as a table
reads them)."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from pathlib import Path

import pytest

SCHEMA = (
    "i INT, big BIGINT, d DOUBLE, inf DOUBLE, dec DECIMAL(20,4), s STRING, b BOOLEAN, "
    "day DATE, ts TIMESTAMP, none_s STRING, none_i INT, email STRING, cat STRING, id BIGINT, "
    "line INT"
)


def rows() -> list[tuple]:
    """40 rows: ``(id, line)`` is the key (4 lines per id), ``id`` alone is not."""
    # "\uff5a" sorts below "🙂x" by code point (UTF-8 bytes: Spark's order) and above it
    # by UTF-16 unit (Java's String order): a min or max taken in the wrong order shows
    strings = ["", "12", "-3.5e2", "2024-01-02", "true", "é", "日本語", "🙂x", None, " 7 ",
               "\uff5a", "NaN"]  # fmt: skip
    found = []
    for n in range(40):
        found.append(
            (
                None if n % 7 == 0 else (n * 37) % 23 - 11,
                n * 1_000_000_007 if n % 5 else None,
                math.nan if n % 9 == 0 else (None if n % 11 == 0 else n / 3 - 4),
                math.inf if n == 3 else (-math.inf if n == 4 else float(n)),
                Decimal(n * 1234) / Decimal(100) - Decimal("3.3333"),
                strings[n % len(strings)],
                None if n % 6 == 0 else n % 3 == 0,
                dt.date(2024, 1, 1) + dt.timedelta(days=n * 3),
                dt.datetime(2024, 5, 1, 12, 0) + dt.timedelta(hours=n * 7),
                None,
                None,
                None if n % 13 == 0 else f"user{n % 10}@example.com",
                ["red", "green", "blue", "ünïcode"][n % 4] if n % 8 else None,
                n // 4,
                n % 4,
            )
        )
    return found


@pytest.fixture(scope="module")
def tricky(spark, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "tricky.parquet"
    spark.createDataFrame(rows(), SCHEMA).coalesce(1).write.parquet(str(path))
    return path


@pytest.fixture(scope="module")
def empty(spark, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "empty.parquet"
    spark.createDataFrame([], SCHEMA).coalesce(1).write.parquet(str(path))
    return path
