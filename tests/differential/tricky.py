"""Tricky tables for the differential tests: seeded, with the values rules get wrong.

Every table of a round has the same schema (:data:`COLUMNS`, odd names included) and is
drawn by ``random.Random(seed)`` from value pools full of edge cases: NULL, NaN, ±Infinity
and -0.0 in float and double columns, DECIMAL(38,18) extremes, bigint extremes, strings
with unicode, line separators (U+2028, U+2029, U+0085), CR/LF, leading and trailing
blanks, dates and timestamps at the ends of their ranges. A round holds a ``main`` table
(``rows`` rows), a one-row table, an empty one and an all-null one.

Knobs (environment variables, printed by the tests and repeated in every assertion):

- ``ASSAY_DIFF_SEED``: the seed of the first round (default :data:`DEFAULT_SEED`;
  ``random`` picks one from the clock).
- ``ASSAY_DIFF_ROUNDS``: rounds, each with its own seed ``seed + k`` (default 1).
- ``ASSAY_DIFF_ROWS``: rows of each ``main`` table (default 48).
- ``ASSAY_DIFF_VARIANTS``: rules generated per rule kind and column (default 2).
- ``ASSAY_DIFF_RULES``: at most this many rules on a ``main`` table, a third of it on the
  small ones (default 100; every rule kind is kept). Spark's analysis of a plan grows with
  its width, so this is what the run time follows.
- ``ASSAY_DIFF_SINGLES``: rules of each table also run alone, one per call (default 6).

Besides the seeded tables there is one fixed ``edge`` table (:data:`EDGE_ROWS`) with a
fixed set of rules aimed at known pitfalls (tests/differential/cases.py ``EDGE_RULES``).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import struct
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

DEFAULT_SEED = 20240607


@dataclass(frozen=True)
class Knobs:
    seed: int
    rounds: int
    rows: int
    variants: int
    rules: int
    singles: int

    def describe(self) -> str:
        return (
            f"ASSAY_DIFF_SEED={self.seed} ASSAY_DIFF_ROUNDS={self.rounds} "
            f"ASSAY_DIFF_ROWS={self.rows} ASSAY_DIFF_VARIANTS={self.variants} "
            f"ASSAY_DIFF_RULES={self.rules} ASSAY_DIFF_SINGLES={self.singles}"
        )


def knobs(environ: Mapping[str, str] = os.environ) -> Knobs:
    """The knobs set in ``environ`` (``knobs({})``: the defaults)."""
    seed_text = environ.get("ASSAY_DIFF_SEED", str(DEFAULT_SEED))
    seed = int(time.time()) if seed_text == "random" else int(seed_text)
    return Knobs(
        seed=seed,
        rounds=int(environ.get("ASSAY_DIFF_ROUNDS", "1")),
        rows=int(environ.get("ASSAY_DIFF_ROWS", "48")),
        variants=int(environ.get("ASSAY_DIFF_VARIANTS", "2")),
        rules=int(environ.get("ASSAY_DIFF_RULES", "100")),
        singles=int(environ.get("ASSAY_DIFF_SINGLES", "6")),
    )


def f32(x: float) -> float:
    """``x`` rounded to the nearest float (what a FLOAT column holds)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_text(x: float) -> str:
    """The shortest decimal text that reads back as the float ``x`` (``0.1`` for
    CAST(0.1 AS FLOAT), whose double value is 0.10000000149011612)."""
    for digits in range(1, 10):
        text = f"{x:.{digits}g}"
        try:
            if f32(float(text)) == x:
                return text
        except OverflowError:  # rounded past the largest float
            continue
    return repr(x)


D = Decimal
UTC = dt.timezone.utc
M38 = "99999999999999999999.999999999999999999"

# (name, Spark type): one column of each kind, four of them with odd names (a space, a
# dot, a backtick, non-ASCII letters).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "bigint"),
    ("i", "int"),
    ("b", "bigint"),
    ("f", "float"),
    ("dbl val", "double"),
    ("dec.38", "decimal(38,18)"),
    ("dx", "decimal(38,18)"),
    ("amt", "decimal(15,2)"),
    ("s", "string"),
    ("fmt`s", "string"),
    ("dátum", "date"),
    ("ts", "timestamp"),
    ("tn", "timestamp_ntz"),
    ("bo", "boolean"),
)

NAN, INF = float("nan"), float("inf")

# fmt: off
POOLS: dict[str, list[Any]] = {
    "i": [0, 1, -1, 2, 7, 42, -42, 100, 2147483647, -2147483648],
    "b": [0, 1, -1, 3, -5, 10**12, 2**53 + 1, 9223372036854775807, -9223372036854775808],
    "f": [f32(x) for x in (NAN, INF, -INF, -0.0, 0.0, 0.1, 0.2, 0.5, 1.0, -1.0, 1.5,
                            -2.5, 3.4028234663852886e38, 1.401298464324817e-45, 16777216.0,
                            100.0)],
    "dbl val": [NAN, INF, -INF, -0.0, 0.0, 0.1, 0.2, 0.30000000000000004, 1.0, -1.0, 2.5,
                1e308, -1e308, 5e-324, 9007199254740992.0, 1e-7, 123.456],
    # |value| < 1e15, so sum and avg (DECIMAL(38,22): 16 integer digits) never overflow
    "dec.38": [D(x) for x in ("0", "0.1", "0.100000000000000001", "0.099999999999999999",
                              "0.000000000000000001", "-0.000000000000000001", "1.5",
                              "-1.5", "123456789012.123456789012345678",
                              "-999999999999999.999999999999999999", "42", "0.3")],
    # the extremes of DECIMAL(38,18): Spark's own sum/avg overflow on them (ANSI), so the
    # generator gives this column no sum/avg rule when a round's values would overflow
    "dx": [D(x) for x in (M38, "-" + M38, "0", "0.000000000000000001", "-1",
                          "12345678901234567890.123456789012345678", "0.5")],
    # a DECIMAL Spark holds as a long (at most 18 digits), compared in doubles against a
    # fraction (at most 15): cents on, under and over the bounds, and the type's extremes
    "amt": [D(x) for x in ("0", "0.01", "-0.01", "0.09", "0.1", "0.11", "0.3", "1.5", "-1.5",
                           "42", "2100", "2099.99", "9999999999999.99", "-9999999999999.99")],
    "s": ["", " ", "a", "A", "abc", "ABC", "Abc", "true", " true ", "Y\n", "\ttrue",
          "N\r\n", "yes", "No", "1", "0", "2", "1.0", "ünïcödé", "日本語", "\u2028",
          "x\u2029y", "a\u0085", "line\nbreak", "crlf\r\n", " lead", "trail ", "tab\t",
          "\ttab", "a|b", "B", "AB", "xA", "Bx", "😀", "e\u0301", "NULL", "N/A", "null",
          "-5", "+7", "50%", "b$", "^a", "[x]"],
    # values aimed at the named formats (valid, almost valid, invalid)
    "fmt`s": ["true", "FALSE", " true ", "Y\n", "\ttrue", "N\r\n", "yes", "NO", "t", "F",
              "1", "0", "2", "truee", "+5", "-0", "007", "-12", "12a", "1.5", "-.5", ".5",
              "1e5", "50%", "12.5 %", "5  %", "-3%",
              "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-42661417400",
              "2024-02-29", "2023-02-29", "2024-13-01", "2024-04-31", "31/12/2024",
              "12/31/2024", "02/30/2024", "29/02/2023", "23:59", "24:00", "12:30:45.123",
              "9:30", "00:00:00", "192.168.0.1", "256.1.1.1", "01.2.3.4", "0.0.0.0",
              "a.b@example.com", "a..b@example.com", "x@y", "user+tag@sub.example.co",
              "529.982.247-25", "52998224725", "111.111.111-11", "529.982.247-24",
              "4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111",
              "4111111111111112", "378282246310005", "01310-100", "01310100", "1310-100",
              "12345", "12345-6789", "1234", "0x1F", "deadBEEF", "0xG1", "ff", "abc",
              "ABCdef", "ab1", "", " ", "ünï", "12345\n", "a1\u2028"],
    "dátum": [dt.date(1970, 1, 1), dt.date(2024, 2, 29), dt.date(1, 1, 1),
              dt.date(9999, 12, 31), dt.date(2000, 1, 1), dt.date(2024, 1, 1),
              dt.date(2023, 12, 31), dt.date(1969, 12, 31)],
    "ts": [dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(2024, 1, 1, tzinfo=UTC),
           dt.datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
           dt.datetime(2023, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
           dt.datetime(2000, 2, 29, 12, tzinfo=UTC), dt.datetime(1900, 1, 1, tzinfo=UTC),
           dt.datetime(2100, 6, 15, 8, 30, tzinfo=UTC)],
    "tn": [dt.datetime(1970, 1, 1), dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 0, 0, 1),
           dt.datetime(2023, 12, 31, 23, 59, 59, 999999), dt.datetime(2000, 2, 29, 12),
           dt.datetime(1900, 1, 1), dt.datetime(2100, 6, 15, 8, 30)],
    "bo": [True, False],
}
# fmt: on
NULL_SHARE = {"id": 0.0, "bo": 0.2}
"""The chance of a NULL per column (default 0.12); ``id`` is a key and never null in
``main``."""


@dataclass
class Table:
    """One generated table: rows as Python values, in :data:`COLUMNS` order."""

    name: str
    seed: int
    rows: list[tuple[Any, ...]]
    filter: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ddl(self) -> str:
        return ", ".join(f"{quote(n)} {t}" for n, t in COLUMNS)

    @property
    def types(self) -> dict[str, str]:
        return dict(COLUMNS)

    def values(self, column: str) -> list[Any]:
        """The column's non-null values."""
        k = [n for n, _ in COLUMNS].index(column)
        return [r[k] for r in self.rows if r[k] is not None]

    def describe(self) -> str:
        return f"table {self.name} (seed {self.seed}, {len(self.rows)} rows)"


def quote(name: str) -> str:
    """A column name as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


FILTERS = [
    "`id` % 3 <> 0 OR `s` IS NULL",
    "`dbl val` IS NULL OR `dbl val` >= 0",
    "`i` > 0 OR `fmt``s` LIKE '%1%'",
    "NOT (`bo` <=> false)",
]


def make_round(seed: int, rows: int) -> list[Table]:
    """The tables of one round: main, one, empty, nulls."""
    rng = random.Random(seed)
    main = [_row(rng, k + 1) for k in range(rows)]
    one = [_row(rng, 1)]
    nulls = [tuple(None for _ in COLUMNS) for _ in range(3)]
    filt = rng.choice(FILTERS)
    return [
        Table(f"main_{seed}", seed, main, filt),
        Table(f"one_{seed}", seed, one, filt),
        Table(f"empty_{seed}", seed, [], filt),
        Table(f"nulls_{seed}", seed, nulls, filt),
    ]


def _row(rng: random.Random, ident: int) -> tuple[Any, ...]:
    values: list[Any] = []
    for name, _ in COLUMNS:
        if name == "id":
            values.append(ident)
        elif rng.random() < NULL_SHARE.get(name, 0.12):
            values.append(None)
        else:
            values.append(rng.choice(POOLS[name]))
    return tuple(values)


# The fixed edge table: every column's max and min chosen so that known pitfalls show.
# f: max is CAST(0.1 AS FLOAT) (twice), no NaN; dec.38: max 0.100000000000000001, 0.1
# below it; b: both bigint extremes; s: values telling ^A|B$ from ^(A|B)$; fmt`s: what
# CAST(... AS BOOLEAN) accepts with blanks around it; amt: cents around 0.1, a null, the
# type's largest value.
# fmt: off
EDGE_ROWS: list[tuple[Any, ...]] = [
    (1, 1, 9223372036854775807, f32(0.1), -0.0, D("0.100000000000000001"), D(M38), D("0.11"), "AB",
     " true ", dt.date(2024, 2, 29), dt.datetime(2024, 1, 1, tzinfo=UTC),
     dt.datetime(2024, 1, 1), True),
    (2, 2, -9223372036854775808, -0.0, 0.1, D("0.1"), D("-" + M38), D("0.09"), "xB", "Y\n",
     dt.date(1970, 1, 1), dt.datetime(1970, 1, 1, tzinfo=UTC), dt.datetime(1970, 1, 1), False),
    (3, None, 0, None, NAN, D("-0.000000000000000001"), D("0.000000000000000001"), D("-0.01"), "Ax",
     "\ttrue", None, None, None, None),
    (4, -1, 1, -INF, INF, D("-1.5"), D("12345678901234567890.123456789012345678"),
     D("9999999999999.99"), "1",
     "N\r\n", dt.date(1, 1, 1), dt.datetime(2100, 6, 15, 8, 30, tzinfo=UTC),
     dt.datetime(2100, 6, 15, 8, 30), True),
    (5, 0, None, f32(0.1), None, None, None, None, None, "maybe", dt.date(9999, 12, 31), None,
     None, None),
    (6, 7, 5, -2.5, 0.0, D("0.099999999999999999"), D("0"), D("0.1"),
     "x\u2028", "yes",
     dt.date(2023, 12, 31), dt.datetime(2023, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
     dt.datetime(2023, 12, 31, 23, 59, 59, 999999), False),
]
# fmt: on


def edge_table() -> Table:
    return Table("edge", 0, EDGE_ROWS, "`id` <> 3")
