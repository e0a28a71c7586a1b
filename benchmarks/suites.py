"""Rule suites over TPC-H ``lineitem``, as data.

One deterministic, prefix-stable sequence of rules: the suite of size N is the first N
rules of :func:`cases`, so the 10-rule suite is part of the 50-rule suite, and so on.
Every rule exists twice, with the same meaning:

- as the native assay YAML mapping a user would write (``Case.yaml``);
- as Python callables for the baselines (``Case.agg`` for the hand-written single
  aggregate, ``Case.naive`` for one action per rule, ``Case.ok`` to judge the value).

The first block of 10 is hand-picked to hold one rule of every kind; every later block
of 10 has the same mix (2 not_null, 2 numeric range, 1 date range, 1 accepted_values,
1 regex, 2 metrics, and a SQL invariant or a length rule), with thresholds varied by the
block number so rules stay distinct. A few rules fail on purpose at any scale (marked
``expect_fail``), so the detail plan runs.

Only pyspark's Connect column functions are used (no session is needed to build them).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

TABLE = "lineitem"
COLUMNS = (
    "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
    "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
    "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment",
)
KEYS = ("l_orderkey", "l_linenumber")
SUITE_SIZES = (10, 50, 100, 300)

# Value ranges of TPC-H lineitem (the same at every scale factor).
NUMERIC = {  # column -> (min, max) of the data
    "l_quantity": (1, 50),
    "l_extendedprice": (900, 105000),
    "l_discount": (0, 0.10),
    "l_tax": (0, 0.08),
    "l_linenumber": (1, 7),
    "l_orderkey": (1, None),
    "l_partkey": (1, None),
    "l_suppkey": (1, None),
}
DATES = ("l_shipdate", "l_commitdate", "l_receiptdate")  # all within 1992-01-01..1998-12-31
ACCEPTED = {
    "l_returnflag": ["A", "N", "R"],
    "l_linestatus": ["F", "O"],
    "l_shipmode": ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"],
    "l_shipinstruct": ["COLLECT COD", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN"],
}
TEXT = ("l_comment", "l_shipinstruct", "l_shipmode", "l_returnflag", "l_linestatus")
TEXT_LENGTH = {  # column -> (min, max) length in the data
    "l_comment": (10, 43),
    "l_shipinstruct": (4, 17),
    "l_shipmode": (3, 7),
    "l_returnflag": (1, 1),
    "l_linestatus": (1, 1),
}


def _F():  # noqa: N802 - imported lazily: --compile-only never needs pyspark
    from pyspark.sql.connect import functions as F

    return F


# --- thresholds: one spec, rendered as assay text and judged in Python -----------------


@dataclass(frozen=True)
class Bound:
    """A ``must_be`` threshold: ``op`` in <, <=, =, >=, > or ``between``."""

    op: str
    value: float | int | Decimal
    high: float | int | Decimal | None = None

    @property
    def text(self) -> str:
        if self.op == "between":
            return f"between {self.value} and {self.high}"
        return f"{self.op} {self.value}"

    def holds(self, measured: Any) -> bool:
        if measured is None:
            return False
        m = Decimal(str(measured))
        lo = Decimal(str(self.value))
        if self.op == "between":
            return lo <= m <= Decimal(str(self.high))
        return {
            "<": m < lo, "<=": m <= lo, "=": m == lo, ">=": m >= lo, ">": m > lo,
        }[self.op]


# --- a rule, twice -----------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One rule as YAML (assay) and as Spark code (baselines).

    ``kind`` is ``row`` (a failing-row predicate), ``unique``, ``metric`` or ``sql``.
    ``agg()`` is the aggregate column of the hand-written single ``df.agg``; ``naive``
    runs the rule alone as one Spark action and returns the value ``ok`` judges.
    """

    yaml: dict[str, Any]
    kind: str
    ok: Callable[[Any], bool]
    agg: Callable[[], Any] | None = None
    naive: Callable[[Any, Any, str], Any] | None = None
    query: str | None = None
    expect_fail: bool = False
    note: str = field(default="", compare=False)

    @property
    def type(self) -> str:
        return str(self.yaml["type"])


def _row(rule: dict[str, Any], bad: Callable[[], Any], expect_fail: bool = False) -> Case:
    """A row-level rule: ``bad()`` is true for a failing row (null counts as passing)."""
    F = _F()
    return Case(
        yaml=rule,
        kind="row",
        ok=lambda v: v == 0,
        agg=lambda: F.count_if(bad()),
        naive=lambda df, spark, src: df.filter(bad()).count(),
        expect_fail=expect_fail,
    )


def not_null(*cols: str) -> Case:
    F = _F()
    rule = {"type": "not_null", "column": cols[0]} if len(cols) == 1 else {
        "type": "not_null", "columns": list(cols)}

    def bad() -> Any:
        out = F.col(cols[0]).isNull()
        for c in cols[1:]:
            out = out | F.col(c).isNull()
        return out

    return _row(rule, bad)


def range_(col: str, low: Any, high: Any, expect_fail: bool = False) -> Case:
    F = _F()
    rule: dict[str, Any] = {"type": "range", "column": col}
    if low is not None:
        rule["min"] = low
    if high is not None:
        rule["max"] = high

    def bad() -> Any:
        parts = []
        if low is not None:
            parts.append(F.col(col) < F.lit(low))
        if high is not None:
            parts.append(F.col(col) > F.lit(high))
        return parts[0] if len(parts) == 1 else parts[0] | parts[1]

    return _row(rule, bad, expect_fail)


def accepted(col: str, values: list[str], expect_fail: bool = False) -> Case:
    F = _F()
    rule = {"type": "accepted_values", "column": col, "values": list(values)}
    return _row(rule, lambda: ~F.col(col).isin(*values), expect_fail)


def regex(col: str, pattern: str, expect_fail: bool = False) -> Case:
    F = _F()
    rule = {"type": "regex", "column": col, "pattern": pattern}
    return _row(rule, lambda: F.col(col).isNull() | ~F.col(col).rlike(pattern), expect_fail)


def length(col: str, low: int | None, high: int | None, expect_fail: bool = False) -> Case:
    F = _F()
    rule: dict[str, Any] = {"type": "length", "column": col}
    if low is not None:
        rule["min"] = low
    if high is not None:
        rule["max"] = high

    def bad() -> Any:
        n = F.length(F.col(col))
        parts = []
        if low is not None:
            parts.append(n < low)
        if high is not None:
            parts.append(n > high)
        return parts[0] if len(parts) == 1 else parts[0] | parts[1]

    return _row(rule, bad, expect_fail)


def unique(*cols: str) -> Case:
    """No two rows share ``cols`` (rows with a null key are ignored).

    Hand-written: ``count_if(keys not null) - count(DISTINCT keys)`` in the big aggregate;
    naive: a group-by counting duplicated keys.
    """
    F = _F()

    def not_null() -> Any:
        out = F.col(cols[0]).isNotNull()
        for c in cols[1:]:
            out = out & F.col(c).isNotNull()
        return out

    def naive(df: Any, spark: Any, src: str) -> Any:
        groups = df.where(not_null()).groupBy(*cols).count()
        return groups.where(F.col("count") > 1).count()

    return Case(
        yaml={"type": "unique", "columns": list(cols)} if len(cols) > 1 else {
            "type": "unique", "column": cols[0]},
        kind="unique",
        ok=lambda v: v == 0,
        agg=lambda: F.count_if(not_null()) - F.count_distinct(*(F.col(c) for c in cols)),
        naive=naive,
    )


def metric(kind: str, col: str | None, bound: Bound, expect_fail: bool = False) -> Case:
    """avg/sum/min/max/distinct_count/duplicate_count/missing_count/missing_percent."""
    F = _F()
    c = F.col(col) if col else None

    def agg() -> Any:
        if kind in ("avg", "sum", "min", "max"):
            return getattr(F, kind)(c)
        if kind == "distinct_count":
            return F.count_distinct(c)
        if kind == "duplicate_count":  # only judged with "= 0": zero iff no duplicate
            return F.count(c) - F.count_distinct(c)
        if kind == "missing_count":
            return F.count_if(c.isNull())
        if kind == "missing_percent":
            return F.count_if(c.isNull()) * 100.0 / F.count(F.lit(1))
        raise ValueError(kind)

    rule: dict[str, Any] = {"type": kind, "column": col, "must_be": bound.text}
    return Case(
        yaml=rule,
        kind="metric",
        ok=bound.holds,
        agg=agg,
        naive=lambda df, spark, src: df.agg(agg()).collect()[0][0],
        expect_fail=expect_fail,
    )


def row_count(low: int, high: int | None = None) -> Case:
    F = _F()
    rule: dict[str, Any] = {"type": "row_count", "min": low}
    if high is not None:
        rule["max"] = high
    return Case(
        yaml=rule,
        kind="metric",
        ok=lambda v: v is not None and v >= low and (high is None or v <= high),
        agg=lambda: F.count(F.lit(1)),
        naive=lambda df, spark, src: df.count(),
    )


def sql(name: str, query: str, expect_fail: bool = False) -> Case:
    """A boolean SQL invariant over ``_validation_df`` (true means pass)."""

    def naive(df: Any, spark: Any, src: str) -> Any:
        return spark.sql(f"WITH _validation_df AS ({src}) {query}").collect()[0][0]

    return Case(
        yaml={"type": "sql", "name": name, "query": query},
        kind="sql",
        ok=lambda v: v is True,
        naive=naive,
        query=query,
        expect_fail=expect_fail,
    )


# --- the sequence ------------------------------------------------------------------------


def _first_block() -> list[Case]:
    """Ten rules, one of every kind users write; the length rule fails (comments reach 43)."""
    return [
        not_null("l_orderkey"),
        range_("l_quantity", 1, 50),
        accepted("l_returnflag", ACCEPTED["l_returnflag"]),
        regex("l_shipmode", "^[A-Z]+( [A-Z]+)*$"),
        unique(*KEYS),
        length("l_comment", 10, 40, expect_fail=True),
        row_count(1),
        metric("avg", "l_extendedprice", Bound("between", 30000, 45000)),
        sql("receipt after ship",
            "SELECT count(*) = 0 FROM _validation_df WHERE l_receiptdate < l_shipdate"),
        range_("l_shipdate", dt.date(1992, 1, 1), dt.date(1998, 12, 31)),
    ]


def _not_null_sequence() -> Iterator[Case]:
    """Every column alone (l_orderkey is in the first block), then pairs, triples..."""
    for c in COLUMNS[1:]:
        yield not_null(c)
    for width in range(2, len(COLUMNS) + 1):
        for combination in itertools.combinations(COLUMNS, width):
            yield not_null(*combination)


NUMERIC_STEP = {  # how far each variation widens a range
    "l_quantity": 1, "l_extendedprice": 100, "l_discount": Decimal("0.01"),
    "l_tax": Decimal("0.01"), "l_linenumber": 1, "l_orderkey": 1, "l_partkey": 1, "l_suppkey": 1,
}


def _numeric_range(i: int) -> Case:
    cols = list(NUMERIC)
    col = cols[i % len(cols)]
    low, high = NUMERIC[col]
    step = i // len(cols) + 1
    unit = NUMERIC_STEP[col]
    if i % 13 == 5 and high is not None:  # an upper bound the data exceeds
        return range_(col, low, _num(Decimal(str(high)) - unit), expect_fail=True)
    if high is None:
        return range_(col, low - step + 1, None) if step % 2 else range_(col, low, 10 ** 9 + step)
    return range_(col, _num(low - unit * step), _num(Decimal(str(high)) + unit * step))


def _num(x: Decimal | int) -> float | int:
    """YAML-friendly: ints stay ints, decimals become floats with their digits."""
    return x if isinstance(x, int) else (int(x) if x == int(x) else float(x))


def _date_range(i: int) -> Case:
    col = DATES[i % len(DATES)]
    step = i // len(DATES) + 1
    low = dt.date(1992, 1, 1) - dt.timedelta(days=step)
    high = dt.date(1998, 12, 31) + dt.timedelta(days=step)
    if i % 11 == 7:  # a window that cuts off the first month of data
        return range_(col, dt.date(1992, 2, 1), high, expect_fail=True)
    return range_(col, low, high)


def _accepted(i: int) -> Case:
    cols = list(ACCEPTED)
    col = cols[(i + 1) % len(cols)]  # l_returnflag is in the first block
    values = ACCEPTED[col]
    if i % 9 == 4:  # one legitimate value missing from the list
        return accepted(col, [*values[1:], f"X{i}"], expect_fail=True)
    return accepted(col, [*values, f"X{i}"])  # an extra value keeps the rule distinct


_PATTERNS = {
    "l_comment": lambda n: f"^[A-Za-z0-9 ,.;:!?'-]{{1,{n}}}$",
    "l_shipinstruct": lambda n: "^[A-Z]+( [A-Z]+){0,%d}$" % (n - 41),
    "l_shipmode": lambda n: "^[A-Z]{2,%d}( AIR)?$" % (n - 37),
    "l_returnflag": lambda n: "^[ANR]{1,%d}$" % (n - 43),
    "l_linestatus": lambda n: "^(F|O){1,%d}$" % (n - 43),
}


def _regex(i: int) -> Case:
    col = TEXT[i % len(TEXT)]
    n = 44 + i // len(TEXT)
    if col == "l_comment" and i % 3 == 0:  # comments are up to 43 characters
        return regex(col, _PATTERNS[col](38 - (i // 15) % 30), expect_fail=True)
    return regex(col, _PATTERNS[col](n))


def _length(i: int) -> Case:
    col = TEXT[i % len(TEXT)]
    low, high = TEXT_LENGTH[col]
    step = i // len(TEXT)
    return length(col, max(0, low - step), high + 1 + step)


def _metric(i: int) -> Case:
    step = i // 12 + 1
    pick = i % 12
    if pick == 0:
        return metric("avg", "l_quantity", Bound("between", 25 - step, 26 + step))
    if pick == 1:
        return metric("min", "l_discount", Bound(">=", -step + 1))
    if pick == 2:
        return metric("max", "l_tax", Bound("<=", round(0.08 + 0.01 * step, 2)))
    if pick == 3:
        return metric("sum", "l_quantity", Bound(">", step - 1))
    if pick == 4:
        return row_count(step, 10 ** 10 + step)
    if pick == 5:  # the data reaches 0.10
        return metric("max", "l_discount", Bound("<=", round(0.09 - 0.01 * (step - 1), 2)),
                      expect_fail=True)
    if pick == 6:
        return metric("min", "l_extendedprice", Bound(">", 800 - step))
    if pick == 7:
        return metric("distinct_count", ["l_linestatus", "l_returnflag", "l_shipmode"][step % 3],
                      Bound("<=", 10 + step))
    if pick == 8:
        return metric("missing_count", COLUMNS[step % len(COLUMNS)], Bound("<=", step - 1))
    if pick == 9:
        return metric("avg", "l_discount", Bound("between", 0.04, round(0.06 + 0.01 * step, 2)))
    if pick == 10:
        return metric("missing_percent", COLUMNS[(step + 5) % len(COLUMNS)], Bound("<", step))
    return metric("max", "l_quantity", Bound("<=", 50 + step))


def _sql(i: int) -> Case:
    pick, step = i % 6, i // 6
    v = "_validation_df"
    if pick == 0:
        return sql("ship within 30 days of receipt",
                   f"SELECT count(*) = 0 FROM {v} WHERE datediff(l_receiptdate, l_shipdate) > {30 + step}")
    if pick == 1:
        return sql("committed before shipping",
                   f"SELECT count(*) = 0 FROM {v} WHERE l_commitdate < l_shipdate - {step}",
                   expect_fail=True)
    if pick == 2:
        return sql("unit price in range",
                   f"SELECT count(*) = 0 FROM {v} WHERE l_extendedprice / l_quantity > {2100 + step}")
    if pick == 3:
        return sql("discounted price positive",
                   f"SELECT count(*) = 0 FROM {v} WHERE l_extendedprice * (1 - l_discount) <= {step}")
    if pick == 4:
        return sql("few return flags", f"SELECT count(DISTINCT l_returnflag) <= {3 + step} FROM {v}")
    return sql("line numbers small", f"SELECT max(l_linenumber) <= {7 + step} FROM {v}")


def cases() -> Iterator[Case]:
    """Every rule of the benchmark, in suite order (infinite; thresholds vary by block)."""
    yield from _first_block()
    not_nulls = _not_null_sequence()
    for b in itertools.count(1):
        yield next(not_nulls)
        yield _numeric_range(2 * b - 2)
        yield _date_range(b - 1)
        yield _accepted(b - 1)
        yield _regex(b - 1)
        yield next(not_nulls)
        yield _metric(2 * b - 2)
        yield _numeric_range(2 * b - 1)
        yield _metric(2 * b - 1)
        yield _sql(b // 2) if b % 2 == 0 else _length(b // 2)


def suite(n: int) -> list[Case]:
    """The first ``n`` rules."""
    return list(itertools.islice(cases(), n))


# --- YAML --------------------------------------------------------------------------------


def config(path: str, cases_: list[Case], *, name: str = TABLE, filter_: str | None = None,
           ) -> dict[str, Any]:
    """A native assay config of one table."""
    return {"version": 1, "tables": [table(path, cases_, name=name, filter_=filter_)]}


def table(path: str, cases_: list[Case], *, name: str = TABLE, filter_: str | None = None,
          ) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "source": {"path": str(path)}, "keys": list(KEYS)}
    if filter_:
        out["filter"] = filter_
    out["rules"] = [dict(c.yaml) for c in cases_]
    return out


def dump(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)


def write_suite(directory: Path, data_path: str, n: int) -> Path:
    """Write the N-rule suite over ``data_path`` as ``suite_<N>.yaml``; return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    out = directory / f"suite_{n}.yaml"
    header = (f"# {n} rules over TPC-H lineitem, generated by benchmarks/suites.py "
              "(prefix-stable: edit the generator, not this file)\n")
    out.write_text(header + dump(config(data_path, suite(n))), encoding="utf-8")
    return out


def describe(cases_: list[Case]) -> dict[str, int]:
    """Rules per type (for the JSON output)."""
    counts: dict[str, int] = {}
    for c in cases_:
        counts[c.type] = counts.get(c.type, 0) + 1
    return counts


if __name__ == "__main__":  # print the 10-rule suite
    print(dump(config("lineitem.parquet", suite(10))))
