"""The oracle: what every native rule must report, as plain Spark SQL written from
docs/rules.md and docs/config.md (never from assay's planner, emitter or dialects: this
module imports none of them, which tests/differential/test_rules.py checks).

One :class:`Oracle` per table collects the measures its rules need, and
:meth:`Oracle.query` returns ONE ``SELECT`` computing all of them over the table (after
the table's filter): ``count_if`` per row-level rule, aggregates per metric, one scalar
subquery per group-by (uniqueness, duplicates, distinct values) and per SQL rule.
:meth:`Oracle.expect` then judges each rule from the measures, in Python with exact
decimals: tolerances, thresholds, verdicts.

Decisions where the docs leave room (each marked DECISION below):

1. A literal compared with a column takes the column's type: against an integer or
   DECIMAL column a number is the exact decimal it is written as (``0.1`` is 0.1, not the
   double 0.1000000000000000055...; ``9223372036854775808`` against a bigint is just
   larger than every value), against FLOAT the float nearest to it (``CAST('0.1' AS
   FLOAT)``), against DOUBLE the double; against a string column a number or a boolean is
   its text (``1`` -> ``'1'``, ``2.5`` -> ``'2.5'``, ``true`` -> ``'true'``) and a date
   its ISO text; against a date/timestamp column a string is cast to the column's type.
2. Range bounds (``range``, ``range_check``, ``valid_min``/``valid_max``) given as
   strings are ISO dates/timestamps written as SQL ``DATE '...'``/``TIMESTAMP '...'``
   (docs: "exactly like SQL TIMESTAMP '...'"), and Spark compares them with the column.
3. Thresholds (``must_be``/``warn``) compare the measured value exactly with the
   threshold's decimal: a double as the decimal of its shortest repr, a FLOAT column's
   min/max as the double Spark returns (0.10000000149011612 for CAST(0.1 AS FLOAT)).
4. Percentages are the exact fraction 100 * count / rows (0 for no rows), judged
   exactly; the reported ``metric_value`` is compared with a relative tolerance of 1e-12
   (it is a double). ``has_uniqueness``'s uniqueness is deequ's double unique /
   considered, compared with ``fraction`` as a double (as deequ does).
5. ``has_uniqueness``'s ``failed_count`` ("non-unique rows") is the considered rows
   (not every listed column null) whose value occurs more than once among them; 0 when
   no row is considered.
6. A fraction tolerance ``f`` allows exactly ``Decimal(repr(f)) * rows`` failing rows, a
   percentage ``"p%"`` exactly ``p / 100 * rows``, an integer ``>= 1`` that many.
7. ``valid_format`` (only the formats below are covered): every format needs at least
   one character; ``decimal`` is ``[+-]?(digits(.digits*)?|.digits)`` (so ``1.`` is
   valid); ``hex`` accepts ``0x`` and ``0X``; ``credit_card`` groups are separated by
   single spaces or dashes; ``time`` hours are two digits 00-23, ``:60`` seconds invalid;
   dates must exist in the proleptic Gregorian calendar; ``email`` letters are ASCII.
8. ``column_max_check`` reports ``metric_value`` (the max) only for a numeric column,
   and then as a JSON number (null when not finite).
9. ``colstats``: ``count``, ``min``, ``max`` (as doubles) and ``mean`` (a decimal
   column's exact average, else a double) in ``details``; the result always passes.
10. ``freshness``: the clock's microseconds less ``unix_micros(CAST(max(c) AS
   TIMESTAMP))``, in seconds (a date is its midnight, a timestamp_ntz its wall-clock time,
   both in the session time zone), the clock read in Python when the answers are read
   (:meth:`Oracle.measured`: when its query ran, or its recorded answers were read, so
   the query's text and answers do not change with the time); compared with a tolerance
   of the time between then and assay's run.
11. An approximate percentile (``accuracy: N``) is not one number: docs/rules.md
   promises a value of the column (its numbers as doubles, NaN left out) whose rank is
   within floor(n / N + 1/2) of ceil(quantile * n) (at least 1), n the numbers. Any
   value at such a rank is right, and the verdict must be that value's.
12. deequ's analyzers (docs/rules.md): ``approx_distinct_count`` is the exact
   ``count(DISTINCT c)`` within ``max(2, ceil(4 * rsd * exact))`` (four standard errors,
   and a collision or two of a small count), each value judged as it is; ``count`` is
   ``count(c)``; ``compliance`` the exact fraction of the rows whose expression is true
   (no value without rows); ``correlation`` the sample covariance over the product of
   the sample standard deviations of the pairs with no null (no value when one is 0);
   ``entropy`` ``-sum(p ln p)`` over the non-null values' shares; ``mutual_information``
   deequ's own joins written in SQL. The last three are doubles computed by another
   formula than Spark's: equal within 1e-9 relative (and absolute near 0).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import time
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import Any

from tests.differential.drift_oracle import drift_value, values_sql

ROW_KINDS = frozenset(
    {
        "not_null", "unique", "range", "range_check", "regex", "string_regex_check",
        "accepted_values", "is_contained_in", "length", "string_length_check",
        "negative_check", "expression", "foreign_key",
    }
)  # fmt: skip
"""Row-level rule types: a failed-row count judged against a tolerance."""

SKETCH_KINDS = frozenset(
    {"approx_distinct_count", "count", "compliance", "correlation", "entropy",
     "mutual_information"}
)  # fmt: skip
"""deequ's analyzers beyond plain aggregates (DECISION 12)."""
TOLERANCE = 1e-9
"""How close a correlation, entropy or mutual information must be to the oracle's."""


def _near_threshold(rule: dict[str, Any], value: Any) -> bool:
    """A threshold within the oracle's tolerance of a double it computes otherwise."""
    if not isinstance(value, float) or not math.isfinite(value):
        return False
    text = " ".join(str(rule.get(k, "")) for k in ("must_be", "warn"))
    return any(
        abs(float(x) - value) <= 10 * TOLERANCE * (1 + abs(value))
        for x in re.findall(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", text)
    )


INTEGRAL = ("tinyint", "smallint", "int", "bigint")


def ident(name: str) -> str:
    """A column name as a Spark SQL identifier."""
    return "`" + name.replace("`", "``") + "`"


def sql_str(text: str) -> str:
    """A Spark SQL string literal holding exactly ``text``."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def family(spark_type: str) -> str:
    """``exact`` (integers, decimals), ``float``, ``double``, ``string``, ``date``,
    ``timestamp`` (with or without time zone), ``boolean``."""
    if spark_type in INTEGRAL or spark_type.startswith("decimal"):
        return "exact"
    if spark_type in ("float", "double", "string", "date", "boolean"):
        return spark_type
    if spark_type.startswith("timestamp"):
        return "timestamp"
    if spark_type.startswith(("varchar", "char")):
        return "string"
    raise ValueError(f"no oracle for columns of type {spark_type}")


def _number_text(value: int | float) -> str:
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return str(value)
    return format(Decimal(repr(value)), "f")


def _timestamp_text(value: dt.datetime) -> str:
    text = value.isoformat(sep=" ")
    return text.replace("+00:00", "Z") if value.tzinfo is not None else text


def _parse_iso(text: str) -> dt.date | dt.datetime:
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return dt.date.fromisoformat(text)
    return dt.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", text))


def literal(value: Any, spark_type: str) -> str:
    """``value`` (a config scalar) as SQL, typed for a column of ``spark_type``
    (DECISION 1). For an exact numeric column use :func:`compare`, which keeps the
    comparison exact where Spark's decimal widening would round."""
    kind = family(spark_type)
    if kind == "string":
        if isinstance(value, bool):
            return "'true'" if value else "'false'"
        if isinstance(value, (int, float)):
            return sql_str(str(value) if isinstance(value, int) else repr(value))
        if isinstance(value, (dt.date, dt.datetime)):
            return sql_str(value.isoformat())
        return sql_str(value)
    if isinstance(value, bool):
        return f"CAST({'true' if value else 'false'} AS {spark_type})"
    if kind == "exact":
        if isinstance(value, (int, float)):
            return f"{_number_text(value)}BD"
        return f"CAST({sql_str(str(value))} AS {spark_type})"
    if kind in ("float", "double"):
        text = (
            value
            if isinstance(value, str)
            else (str(value) if isinstance(value, int) else repr(value))
        )
        return f"CAST({sql_str(text)} AS {spark_type.upper()})"
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP {sql_str(_timestamp_text(value))}"
    if isinstance(value, dt.date):
        return f"DATE {sql_str(value.isoformat())}"
    return f"CAST({sql_str(str(value))} AS {spark_type})"


_INTEGER_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1), "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1), "bigint": (-(2**63), 2**63 - 1),
}  # fmt: skip


def _fraction(rule: dict[str, Any]) -> str:
    return "0.5" if rule["type"] == "median" else repr(float(rule["quantile"]))


def _percentile(c: str, fraction: str) -> str:
    """The exact percentile of ``c`` by its definition, not by Spark's ``percentile``: the
    non-null values as doubles, sorted (NaN last), at position (n - 1) * fraction, linear
    between the two nearest (the lower value alone at a whole position, or when the two
    are equal: the line between equal values is that value, where the weighted sum in
    doubles can round one unit off it)."""
    values = f"array_sort(filter(collect_list(CAST({c} AS DOUBLE)), v -> v IS NOT NULL))"
    pos = f"(size({values}) - 1) * {fraction}"
    lo, hi = (
        f"element_at({values}, CAST(floor({pos}) AS INT) + 1)",
        f"element_at({values}, CAST(ceil({pos}) AS INT) + 1)",
    )
    return (
        f"CASE WHEN size({values}) = 0 THEN NULL WHEN floor({pos}) = ceil({pos}) THEN {lo}"
        f" WHEN {lo} = {hi} THEN {lo}"
        f" ELSE (ceil({pos}) - {pos}) * {lo} + ({pos} - floor({pos})) * {hi} END"
    )


def _numbers(c: str) -> str:
    """The column's numbers as doubles, sorted, NaN ignored like null."""
    return f"array_sort(filter(collect_list(CAST({c} AS DOUBLE)), v -> v IS NOT NULL AND NOT isnan(v)))"


def _rank(c: str, fraction: str) -> str:
    """The target rank ceil(fraction * n), at least 1, of :func:`_numbers`."""
    return f"greatest(1, CAST(ceil(CAST({fraction} AS DOUBLE) * size({_numbers(c)})) AS INT))"


def _nearest_rank(c: str, fraction: str) -> str:
    """The value at the approximate percentile's target rank (DECISION 11): where the
    thresholds of a generated rule are put, not its only right answer."""
    values = _numbers(c)
    return f"CASE WHEN size({values}) = 0 THEN NULL ELSE element_at({values}, {_rank(c, fraction)}) END"


def _rank_window(c: str, fraction: str, accuracy: int) -> str:
    """Every value the approximate percentile may answer (DECISION 11): the values at
    ranks within floor(n / accuracy + 1/2) of the target rank, an empty array for no
    number (floor((2n + N) / 2N) in integers: no double rounds the bound)."""
    values, rank = _numbers(c), _rank(c, fraction)
    n = f"size({values})"
    error = f"CAST(({n} * 2 + {accuracy}) DIV ({accuracy} * 2) AS INT)"
    low = f"greatest(1, {rank} - {error})"
    high = f"least({n}, {rank} + {error})"
    return f"CASE WHEN {n} = 0 THEN array() ELSE slice({values}, {low}, {high} - {low} + 1) END"


def _exact_range(spark_type: str) -> tuple[Decimal, Decimal, int]:
    """The smallest and largest value of an exact numeric type, and its scale."""
    if spark_type in _INTEGER_RANGES:
        lo, hi = _INTEGER_RANGES[spark_type]
        return Decimal(lo), Decimal(hi), 0
    p, s = (int(x) for x in re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", spark_type).groups())
    with localcontext() as ctx:
        ctx.prec = 100
        hi = Decimal(10) ** (p - s) - Decimal(1).scaleb(-s)
    return -hi, hi, s


def compare(c: str, op: str, value: Any, spark_type: str, is_bound: bool = False) -> str:
    """SQL for ``c <op> value`` (``op`` one of < <= > >= = <>), three-valued (null
    when ``c`` is null), the value typed for the column (DECISION 1, 2).

    Against an exact numeric column the comparison is exact: Spark would widen
    DECIMAL(38,18) and a literal such as 1e20 or 1e-20 to a common type of at most 38
    digits and round one of them, so a value out of the column's range or with more
    decimals than its scale is resolved here, and the rest compared in the column's own
    type."""
    if is_bound and isinstance(value, str) and family(spark_type) != "string":
        value = _parse_iso(value)
    if family(spark_type) != "exact" or isinstance(value, (str, bool)):
        return f"({c} {op} {literal(value, spark_type)})"
    with localcontext() as ctx:
        ctx.prec = 100
        exact = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
        lo, hi, scale = _exact_range(spark_type)
        constant: bool | None = None
        if exact > hi:
            constant = op in ("<", "<=", "<>")
        elif exact < lo:
            constant = op in (">", ">=", "<>")
        else:
            step = Decimal(1).scaleb(-scale)
            if exact.quantize(step, rounding=ROUND_FLOOR) != exact:
                if op in ("=", "<>"):
                    constant = op == "<>"
                elif op in ("<", "<="):
                    op, exact = "<=", exact.quantize(step, rounding=ROUND_FLOOR)
                else:
                    op, exact = ">=", exact.quantize(step, rounding=ROUND_CEILING)
        if constant is not None:
            return f"(CASE WHEN {c} IS NULL THEN NULL ELSE {str(constant).upper()} END)"
        return f"({c} {op} CAST({sql_str(format(exact, 'f'))} AS {spark_type}))"


def bound(c: str, op: str, value: Any, spark_type: str) -> str:
    """A range bound: numbers as :func:`compare`, ISO strings as dates/timestamps
    (DECISION 2), strings against a string column as strings."""
    return compare(c, op, value, spark_type, is_bound=True)


def in_list(column: str, values: list[Any], spark_type: str) -> str:
    """``column IN (values)`` as the OR of typed equalities (three-valued like IN)."""
    return "(" + " OR ".join(compare(ident(column), "=", v, spark_type) for v in values) + ")"


def other_column(value: Any) -> str | None:
    """The column a `` `other `` bound names, else None."""
    if isinstance(value, str) and value.startswith("`"):
        return value[1:-1] if len(value) > 2 and value.endswith("`") else value[1:]
    return None


# --- named formats (docs/rules.md "Named formats"), as SQL over a non-null value --------

_DIGIT = "[0-9]"
_IPV4_PART = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"
_NUMBER = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)"
FORMAT_REGEX = {
    "integer": r"[+-]?[0-9]+",
    "positive_integer": r"\+?0*[1-9][0-9]*",
    "negative_integer": r"-0*[1-9][0-9]*",
    "decimal": rf"[+-]?{_NUMBER}",
    "percentage": rf"[+-]?{_NUMBER} ?%",
    "alphanumeric": "[A-Za-z0-9]+",
    "alpha": "[A-Za-z]+",
    "hex": "(0[xX])?[0-9A-Fa-f]+",
    "cep": "[0-9]{5}-?[0-9]{3}",
    "zip": "[0-9]{5}(-[0-9]{4})?",
    "uuid": "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "time": "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?",
    "ipv4": rf"({_IPV4_PART}\.){{3}}{_IPV4_PART}",
    "email": rf"{_ATOM}(\.{_ATOM})*@({_LABEL}\.)+[A-Za-z]{{2,}}",
    "date": "[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "date_us": "[0-9]{2}/[0-9]{2}/[0-9]{4}",
    "date_eu": "[0-9]{2}/[0-9]{2}/[0-9]{4}",
    "cpf": "([0-9]{11}|[0-9]{3}\\.[0-9]{3}\\.[0-9]{3}-[0-9]{2})",
    "credit_card": "[0-9]+([ -][0-9]+)*",
}
FORMATS = frozenset(FORMAT_REGEX) | {"boolean"}
"""The formats the oracle covers (cnpj, timestamp, phone, url, ipv6, ip are not)."""


def _exists(year: str, month: str, day: str) -> str:
    """SQL: the date of these integer expressions exists (proleptic Gregorian; pure
    arithmetic: Spark may evaluate it before the regex that guards it)."""
    leap = f"(({year} % 4 = 0 AND {year} % 100 <> 0) OR {year} % 400 = 0)"
    days = (
        f"CASE WHEN {month} IN (1, 3, 5, 7, 8, 10, 12) THEN 31 WHEN {month} IN (4, 6, 9, 11) "
        f"THEN 30 WHEN {month} = 2 THEN CASE WHEN {leap} THEN 29 ELSE 28 END END"
    )
    # the month's range first: a CASE without a branch is NULL, and NULL would make an
    # impossible date neither valid nor invalid
    return f"({year} >= 1 AND {month} >= 1 AND {month} <= 12 AND {day} >= 1 AND {day} <= {days})"


def _part(c: str, start: int, length: int) -> str:
    return f"try_cast(substring({c}, {start}, {length}) AS INT)"


def format_valid(name: str, c: str) -> str:
    """SQL true exactly when the non-null string ``c`` has the format ``name``."""
    if name == "boolean":
        # what Spark casts to a boolean, exactly
        return f"(try_cast({c} AS BOOLEAN) IS NOT NULL)"
    anchored = f"({c} RLIKE {sql_str(chr(92) + 'A' + FORMAT_REGEX[name] + chr(92) + 'z')})"
    if name == "date":
        return f"({anchored} AND {_exists(_part(c, 1, 4), _part(c, 6, 2), _part(c, 9, 2))})"
    if name == "date_us":
        return f"({anchored} AND {_exists(_part(c, 7, 4), _part(c, 1, 2), _part(c, 4, 2))})"
    if name == "date_eu":
        return f"({anchored} AND {_exists(_part(c, 7, 4), _part(c, 4, 2), _part(c, 1, 2))})"
    if name == "cpf":
        digits = f"regexp_replace({c}, '[^0-9]', '')"
        d = [f"try_cast(substring({digits}, {k}, 1) AS INT)" for k in range(1, 12)]
        first = " + ".join(f"{d[k]} * {10 - k}" for k in range(9))
        second = " + ".join(f"{d[k]} * {11 - k}" for k in range(10))
        return (
            f"({anchored} AND (({first}) * 10) % 11 % 10 = {d[9]}"
            f" AND (({second}) * 10) % 11 % 10 = {d[10]}"
            f" AND NOT {digits} RLIKE '^(.)\\\\1*$')"
        )
    if name == "credit_card":
        digits = f"regexp_replace({c}, '[^0-9]', '')"
        # Luhn: from the right, every second digit doubled (minus 9 above 9)
        luhn = (
            f"aggregate(sequence(1, length({digits})), CAST(0 AS BIGINT), (acc, k) -> acc + CASE WHEN k % 2 = 0 "
            f"THEN (try_cast(substring(reverse({digits}), k, 1) AS INT) * 2) % 10 + "
            f"(try_cast(substring(reverse({digits}), k, 1) AS INT) * 2) DIV 10 "
            f"ELSE try_cast(substring(reverse({digits}), k, 1) AS INT) END) % 10 = 0"
        )
        return f"({anchored} AND length({digits}) BETWEEN 13 AND 19 AND {luhn})"
    return anchored


# --- thresholds, tolerances ---------------------------------------------------------------

_UNITS = {"": 1, "%": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_NUM = r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([%smhdw]?)"
_CMP_RE = re.compile(rf"^\s*(<=|>=|!=|<>|==|=|<|>)?\s*{_NUM}\s*$")
_BETWEEN_RE = re.compile(rf"^\s*(not\s+)?between\s+{_NUM}\s+and\s+{_NUM}\s*$", re.I)


def _num(text: str, unit: str) -> Fraction:
    return Fraction(Decimal(text)) * _UNITS[unit]


def holds(threshold: str, value: Any) -> bool:
    """Whether the measured ``value`` (exact: Decimal, int, Fraction, float) satisfies a
    ``must_be``/``warn`` threshold (docs/config.md "Thresholds")."""
    v = _exact(value)
    if v is None:
        return False
    m = _BETWEEN_RE.match(threshold)
    if m:
        low, high = Fraction(_num(m.group(2), m.group(3))), Fraction(_num(m.group(4), m.group(5)))
        inside = low <= v <= high if not isinstance(v, float) else float(low) <= v <= float(high)
        return not inside if m.group(1) else inside
    m = _CMP_RE.match(threshold)
    if not m:
        raise ValueError(f"the oracle cannot read the threshold {threshold!r}")
    op = m.group(1) or "="
    t = Fraction(_num(m.group(2), m.group(3)))
    if isinstance(v, float):  # +-infinity
        t = float(t)  # type: ignore[assignment]
    return _compare(op, v, t)


def _compare(op: str, a: Any, b: Any) -> bool:
    return {
        "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
        "=": a == b, "==": a == b, "!=": a != b, "<>": a != b,
    }[op]  # fmt: skip


def _exact(value: Any) -> Fraction | float | None:
    """An exact rational for a finite number, ``±inf`` as a float, None for no value or
    NaN (a NaN metric fails, docs/rules.md "NaN")."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return value
        return Fraction(Decimal(repr(value)))
    if isinstance(value, Decimal):
        return Fraction(value)
    return Fraction(value)


def allowance(tolerance: Any, rows: int) -> Fraction:
    """Failing rows a tolerance allows (DECISION 6)."""
    if tolerance is None:
        return Fraction(0)
    if isinstance(tolerance, str):
        return Fraction(Decimal(tolerance.strip().rstrip("%").strip())) / 100 * rows
    if isinstance(tolerance, int):
        return Fraction(tolerance)
    if tolerance < 1:
        return Fraction(Decimal(repr(tolerance))) * rows
    return Fraction(Decimal(repr(tolerance)))


# --- the oracle ---------------------------------------------------------------------------


@dataclass
class Expected:
    """What assay must report for one rule."""

    passed: bool
    severity: str
    failed_count: int | None
    row_count: int
    metric_value: Any
    """None, an int, a Decimal (compared exactly), a Fraction or float (relative 1e-12),
    or ``("seconds", Fraction)`` for freshness (compared within the elapsed time)."""
    details: dict[str, Any] | None = None
    fragile: bool = False
    """The verdict sits exactly on a boundary of a double computed by a sum or an
    interpolation: a different (legal) summation order or formula may flip it."""
    tolerance: float | None = None
    """A double the oracle computes by another formula (a correlation, an entropy): equal
    within ``tolerance * (1 + |value|)``; a threshold that close makes it fragile."""
    alternatives: dict[Any, tuple[bool, str]] | None = None
    """An approximate answer: every value assay may report (its ``metric_value``), with
    the ``passed`` and ``severity`` each must come with; ``metric_value`` above is then
    the exact answer, where the generated thresholds sit."""


@dataclass
class _Measure:
    """How to read one rule's measure from the query's row."""

    kind: str
    aliases: dict[str, str] = field(default_factory=dict)
    """role -> output column of the query"""


class Oracle:
    """The measures of one table's rules, as ONE SQL query, and the verdicts."""

    def __init__(self, types: dict[str, str]) -> None:
        self.types = types
        self._outputs: dict[str, str] = {}  # SQL expression -> alias
        self._measures: dict[str, _Measure] = {}
        self._group_outputs: dict[tuple[tuple[str, ...], str], str] = {}

    # -- building the query --

    def _out(self, expression: str) -> str:
        if expression not in self._outputs:
            self._outputs[expression] = f"o{len(self._outputs)}"
        return self._outputs[expression]

    def add(self, rule: dict[str, Any]) -> str:
        """Register ``rule``'s measure; return its key (rules differing only in their
        tolerance or threshold share it)."""
        key = measure_key(rule)
        if key not in self._measures:
            self._measures[key] = self._measure(rule)
        return key

    def _gout(self, cols: list[str], stat: str) -> str:
        """A statistic of the groups of ``cols`` (see :meth:`query`)."""
        key = (tuple(cols), stat)
        if key not in self._group_outputs:
            self._group_outputs[key] = f"g{len(self._group_outputs)}"
        return self._group_outputs[key]

    def query(self, view: str, where: str | None = None) -> str:
        """ONE query computing every registered measure over ``view`` (after
        ``where``): the row tests and aggregates in one aggregate over the rows, cross
        joined with one aggregate over ``GROUPING SETS`` holding every group-by (each set
        told apart by its ``grouping_id()``), and the SQL rules as scalar subqueries."""
        outputs = ["count(*) AS n"] + [f"{e} AS {a}" for e, a in self._outputs.items()]
        filtered = f" WHERE {where}" if where else ""
        head = f"WITH w AS (SELECT * FROM {view}{filtered}), _validation_df AS (SELECT * FROM w) "
        rows = f"SELECT {', '.join(outputs)} FROM w"
        if not self._group_outputs:
            return head + rows
        names = list(dict.fromkeys(c for cols, _ in self._group_outputs for c in cols))
        sets = list(dict.fromkeys(cols for cols, _ in self._group_outputs))
        stats = []
        for (cols, stat), alias in self._group_outputs.items():
            # grouping_id(): bit (m-1-j) set when names[j] is not grouped in this set
            gid = sum(1 << (len(names) - 1 - j) for j, c in enumerate(names) if c not in cols)
            complete = " AND ".join(f"{ident(c)} IS NOT NULL" for c in cols)
            all_null = " AND ".join(f"{ident(c)} IS NULL" for c in cols)
            if stat == "dup_rows":  # rows (no null key) sharing their value with another
                e = f"coalesce(sum(CASE WHEN gid = {gid} AND {complete} AND k > 1 THEN k END), 0)"
            elif stat == "distinct":  # distinct values without a null
                e = f"count_if(gid = {gid} AND {complete})"
            else:  # unique: values (not all null) held by exactly one row
                e = f"count_if(gid = {gid} AND NOT ({all_null}) AND k = 1)"
            stats.append(f"{e} AS {alias}")
        grouping = ", ".join("(" + ", ".join(ident(c) for c in cols) + ")" for cols in sets)
        groups = (
            f"SELECT grouping_id() AS gid, {', '.join(ident(c) for c in names)}, count(*) AS k "
            f"FROM w GROUP BY GROUPING SETS ({grouping})"
        )
        return (
            f"{head}SELECT * FROM ({rows}) CROSS JOIN (SELECT {', '.join(stats)} FROM ({groups}))"
        )

    def _col(self, rule: dict[str, Any]) -> tuple[str, str, str]:
        name = rule["column"]
        return name, ident(name), self.types[name]

    def _columns(self, rule: dict[str, Any]) -> list[str]:
        return list(rule["columns"]) if "columns" in rule else [rule["column"]]

    def _measure(self, rule: dict[str, Any]) -> _Measure:
        kind = rule["type"]
        m = _Measure(kind)
        if kind == "foreign_key":
            m.aliases["failed"] = self._out(self._unmatched(rule))
            return m
        if kind == "row_count_match":
            ref = rule["references"]["sql"]
            m.aliases["ref_rows"] = self._out(f"(SELECT count(*) FROM ({ref}) AS _ref)")
            return m
        if kind == "drift":  # both sides' values, measured in Python (drift_oracle)
            ours, theirs = values_sql(rule)
            m.aliases["table"], m.aliases["reference"] = self._out(ours), self._out(theirs)
            return m
        if kind in ROW_KINDS:
            if kind == "unique":
                m.aliases["failed"] = self._gout(self._columns(rule), "dup_rows")
            else:
                m.aliases["failed"] = self._out(f"count_if({self._failing(rule)})")
            return m
        if kind in ("row_count", "has_size"):
            return m
        if kind in ("min", "max", "avg", "sum", "stddev", "column_sum_check"):
            fn = {"stddev": "stddev_samp", "column_sum_check": "sum"}.get(kind, kind)
            m.aliases["value"] = self._out(f"{fn}({self._col(rule)[1]})")
            return m
        if kind in ("percentile", "median"):
            c, fraction = self._col(rule)[1], _fraction(rule)
            if "accuracy" not in rule:
                m.aliases["value"] = self._out(_percentile(c, fraction))
                return m
            m.aliases["value"] = self._out(_nearest_rank(c, fraction))
            m.aliases["window"] = self._out(_rank_window(c, fraction, int(rule["accuracy"])))
            return m
        if kind in ("missing_count", "missing_percent"):
            m.aliases["count"] = self._out(f"count_if({self._missing(rule)})")
            return m
        if kind in ("invalid_count", "invalid_percent"):
            m.aliases["count"] = self._out(
                f"count_if(NOT ({self._missing(rule)}) AND ({self._invalid(rule)}))"
            )
            return m
        if kind in ("duplicate_count", "duplicate_percent", "distinct_count"):
            stat = "distinct" if kind == "distinct_count" else "dup_rows"
            m.aliases["count"] = self._gout(self._columns(rule), stat)
            return m
        if kind == "has_uniqueness":
            cols = self._columns(rule)
            considered = " AND ".join(f"{ident(c)} IS NULL" for c in cols)
            # deequ: rows where every listed column is null are dropped; nulls among
            # values group as equal values (GROUP BY does both)
            m.aliases["unique"] = self._gout(cols, "unique")
            m.aliases["considered"] = self._out(f"count_if(NOT ({considered}))")
            return m
        if kind == "freshness":
            c = self._col(rule)[1]
            # the clock is read in Python (DECISION 10): the query's answer stays the same
            m.aliases["max_micros"] = self._out(f"unix_micros(CAST(max({c}) AS TIMESTAMP))")
            return m
        if kind == "column_max_check":
            name, c, t = self._col(rule)
            m.aliases["value"] = self._out(f"max({c})")
            m.aliases["equal"] = self._out(compare(f"max({c})", "=", rule["value"], t))
            return m
        if kind == "colstats":
            name, c, t = self._col(rule)
            m.aliases["count"] = self._out(f"count({c})")
            m.aliases["min"] = self._out(f"CAST(min({c}) AS DOUBLE)")
            m.aliases["max"] = self._out(f"CAST(max({c}) AS DOUBLE)")
            mean = f"avg({c})" if t.startswith("decimal") else f"CAST(avg({c}) AS DOUBLE)"
            m.aliases["mean"] = self._out(mean)
            return m
        if kind in SKETCH_KINDS:
            m.aliases["value"] = self._out(self._sketch(rule))
            return m
        if kind == "sql":
            if "query" in rule:
                m.aliases["value"] = self._out(f"({rule['query']})")
            else:
                m.aliases["rows"] = self._out(f"(SELECT count(*) FROM ({rule['failed_rows']}))")
            return m
        raise ValueError(f"no oracle for rule type {kind}")

    def _sketch(self, rule: dict[str, Any]) -> str:
        """deequ's analyzers by their definitions (DECISION 12)."""
        kind = rule["type"]
        if kind == "approx_distinct_count":
            return f"count(DISTINCT {self._col(rule)[1]})"
        if kind == "count":
            return f"count({self._col(rule)[1]})"
        if kind == "compliance":
            return f"count_if(({rule['expression']}))"
        if kind == "correlation":  # Pearson: covariance over the product of deviations
            x, y = (ident(c) for c in rule["columns"])
            both = f"{x} IS NOT NULL AND {y} IS NOT NULL"
            xs, ys = (f"CASE WHEN {both} THEN CAST({c} AS DOUBLE) END" for c in (x, y))
            return f"try_divide(covar_samp({xs}, {ys}), stddev_samp({xs}) * stddev_samp({ys}))"
        if kind == "entropy":
            c = self._col(rule)[1]
            return (
                f"(SELECT -sum((k / t) * ln(k / t)) FROM (SELECT count(*) AS k FROM w"
                f" WHERE {c} IS NOT NULL GROUP BY {c}) CROSS JOIN (SELECT count(*) AS t FROM w"
                f" WHERE {c} IS NOT NULL))"
            )
        # mutual information as deequ computes it: the pairs' counts over the rows with a
        # value in either column, the marginals summed from them and joined on the value
        # (an equi-join: a null value joins nothing)
        a, b = (ident(c) for c in rule["columns"])
        return (
            f"(WITH f AS (SELECT {a} AS a, {b} AS b, count(*) AS k FROM w WHERE {a} IS NOT NULL"
            f" OR {b} IS NOT NULL GROUP BY {a}, {b}), fa AS (SELECT a, sum(k) AS ka FROM f"
            " GROUP BY a), fb AS (SELECT b, sum(k) AS kb FROM f GROUP BY b), t AS (SELECT"
            " sum(k) AS n FROM f) SELECT sum((k / n) * ln((k / n) / ((ka / n) * (kb / n))))"
            " FROM f JOIN fa ON f.a = fa.a JOIN fb ON f.b = fb.b CROSS JOIN t)"
        )

    def _unmatched(self, rule: dict[str, Any]) -> str:
        """Rows of ``w`` whose key has no null and that no referenced row equals (a
        correlated NOT EXISTS, not an anti join against distinct keys); negated, that some
        referenced row equals (EXISTS: each row once, however many rows it equals)."""
        ref = rule["references"]
        cols = self._columns(rule)
        refs = list(ref["columns"]) if "columns" in ref else [ref["column"]]
        keyed = " AND ".join(f"_o.{ident(c)} IS NOT NULL" for c in cols)
        match = " AND ".join(
            f"_r.{ident(r)} = _o.{ident(c)}" for c, r in zip(cols, refs, strict=True)
        )
        exists = "EXISTS" if rule.get("negate") else "NOT EXISTS"
        return (
            f"(SELECT count(*) FROM w AS _o WHERE {keyed} AND {exists}"
            f" (SELECT 1 FROM ({ref['sql']}) AS _r WHERE {match}))"
        )

    def _failing(self, rule: dict[str, Any]) -> str:
        """SQL true for a failing row of a row-level rule (null counts as passing)."""
        kind = rule["type"]
        if kind == "not_null":
            return " OR ".join(f"{ident(c)} IS NULL" for c in self._columns(rule))
        if kind == "expression":  # docs/rules.md: false or null fails
            return f"NOT coalesce(({rule['expression']}), false)"
        name, c, t = self._col(rule)
        if kind == "range":
            strict = rule.get("inclusive") is False
            parts = []
            if rule.get("min") is not None:
                parts.append(bound(c, "<=" if strict else "<", rule["min"], t))
            if rule.get("max") is not None:
                parts.append(bound(c, ">=" if strict else ">", rule["max"], t))
            return " OR ".join(parts)
        if kind == "range_check":
            inclusive = rule.get("inclusive") is True
            parts = []
            for key, loose, strict in (("min_value", "<", "<="), ("max_value", ">", ">=")):
                if rule.get(key) is None:
                    continue
                other = other_column(rule[key])
                op = loose if inclusive else strict
                if other is not None:
                    parts.append(f"({c} {op} {ident(other)})")
                else:
                    parts.append(bound(c, op, rule[key], t))
            return " OR ".join(parts)
        if kind == "regex":
            return f"{c} IS NULL OR NOT ({c} RLIKE {sql_str(rule['pattern'])})"
        if kind == "string_regex_check":
            return f"NOT ({c} RLIKE {sql_str(rule['regex'])})"
        if kind in ("accepted_values", "is_contained_in"):
            values = rule["values"] if kind == "accepted_values" else rule["allowed_values"]
            return f"NOT ({in_list(name, values, t)})"
        if kind in ("length", "string_length_check"):
            lo_key, hi_key = ("min", "max") if kind == "length" else ("min_length", "max_length")
            parts = []
            for key, op in ((lo_key, "<"), (hi_key, ">")):
                if rule.get(key) is None:
                    continue
                other = other_column(rule[key])
                side = ident(other) if other is not None else str(int(rule[key]))
                parts.append(f"length({c}) {op} {side}")
            return " OR ".join(parts)
        if kind == "negative_check":
            return compare(c, "<", 0, t)
        raise ValueError(kind)

    def _missing(self, rule: dict[str, Any]) -> str:
        name, c, t = self._col(rule)
        if rule.get("missing_values"):
            return f"({c} IS NULL OR {in_list(name, rule['missing_values'], t)})"
        return f"{c} IS NULL"

    def _invalid(self, rule: dict[str, Any]) -> str:
        """SQL true for a non-missing value failing at least one validity option."""
        name, c, t = self._col(rule)
        fails = []
        if rule.get("valid_values") is not None:
            fails.append(f"NOT ({in_list(name, rule['valid_values'], t)})")
        if rule.get("invalid_values") is not None:
            fails.append(f"({in_list(name, rule['invalid_values'], t)})")
        if rule.get("valid_format") is not None:
            fails.append(f"NOT {format_valid(rule['valid_format'], c)}")
        if rule.get("valid_regex") is not None:
            fails.append(f"NOT ({c} RLIKE {sql_str(rule['valid_regex'])})")
        if rule.get("valid_min") is not None:
            fails.append(bound(c, "<", rule["valid_min"], t))
        if rule.get("valid_max") is not None:
            fails.append(bound(c, ">", rule["valid_max"], t))
        if rule.get("valid_min_length") is not None:
            fails.append(f"length({c}) < {int(rule['valid_min_length'])}")
        if rule.get("valid_max_length") is not None:
            fails.append(f"length({c}) > {int(rule['valid_max_length'])}")
        if rule.get("valid_length") is not None:
            fails.append(f"length({c}) <> {int(rule['valid_length'])}")
        return " OR ".join(fails)

    # -- reading the answers --

    def measured(self, row: dict[str, Any], now: float | None = None) -> dict[str, Any]:
        """The measures by key from the query's row (``n`` under ``"n"``); ``now``, the
        clock freshness is measured at (seconds since the epoch; the time of the call when
        not given: when the query ran or its recorded answer was read)."""
        micros = round((time.time() if now is None else now) * 10**6)
        out: dict[str, Any] = {"n": row["n"]}
        for key, m in self._measures.items():
            out[key] = {role: row[alias] for role, alias in m.aliases.items()}
            if m.kind == "freshness":
                last = out[key]["max_micros"]
                out[key]["micros"] = None if last is None else micros - last
        return out

    def metric(self, rule: dict[str, Any], measured: dict[str, Any]) -> Any:
        """The measured metric of a metric rule (before judging), for generating
        thresholds; None for row-level rules."""
        kind = rule["type"]
        got = measured[measure_key(rule)]
        n = measured["n"]
        if kind in ("row_count", "has_size"):
            return n
        if kind in (
            "min",
            "max",
            "avg",
            "sum",
            "stddev",
            "column_sum_check",
            "percentile",
            "median",
        ):
            return got["value"]
        if kind in ("missing_count", "invalid_count", "duplicate_count", "distinct_count"):
            return got["count"]
        if kind in ("missing_percent", "invalid_percent", "duplicate_percent"):
            return Fraction(100 * got["count"], n) if n else Fraction(0)
        if kind == "has_uniqueness":
            considered = got["considered"]
            return got["unique"] / considered if considered else None
        if kind == "freshness":
            micros = got["micros"]
            return None if micros is None else Fraction(micros, 10**6)
        if kind == "column_max_check":
            return got["value"]
        if kind == "compliance":
            return Fraction(got["value"], n) if n else None
        if kind in SKETCH_KINDS:
            return got["value"]
        if kind == "drift":
            return drift_value(rule, got["table"], got["reference"])
        if kind == "row_count_match":  # no value against an empty referenced side
            return Fraction(100 * n, got["ref_rows"]) if got["ref_rows"] else None
        return None

    def failed(self, rule: dict[str, Any], measured: dict[str, Any]) -> int | None:
        """Failing rows of a row-level rule (None for metrics)."""
        if rule["type"] in ROW_KINDS:
            return measured[measure_key(rule)]["failed"]
        return None

    def expect(self, rule: dict[str, Any], measured: dict[str, Any]) -> Expected:
        """What assay must report for ``rule`` given the measures of its table."""
        kind = rule["type"]
        n = measured["n"]
        got = measured[measure_key(rule)]
        if kind in ROW_KINDS:
            failed = got["failed"]
            passed = failed <= allowance(rule.get("tolerance"), n)
            return Expected(passed, _severity(passed), failed, n, None)
        value = self.metric(rule, measured)
        if kind in ("row_count", "has_size"):
            if kind == "has_size":
                passed = _compare(rule["operator"], n, rule["size"])
                return Expected(passed, _severity(passed), None, n, n)
            if "must_be" in rule:
                return self._judged(rule, n, None, n, n)
            low = rule.get("min", rule.get("min_num_rows", 0))
            high = rule.get("max")
            passed = low <= n and (high is None or n <= high)
            return Expected(passed, _severity(passed), None, n, n)
        if kind in ("percentile", "median") and "accuracy" in rule and got["window"]:
            # DECISION 11: any value within the documented rank error, judged as it is
            expected = self._judged(rule, value, None, n, _json(value))
            expected.alternatives = {
                v: (e.passed, e.severity)
                for v in got["window"]
                for e in (self._judged(rule, v, None, n, _json(v)),)
            }
            return expected
        if kind in ("min", "max", "avg", "sum", "stddev", "percentile", "median"):
            return self._judged(rule, value, None, n, _json(value))
        if kind == "approx_distinct_count":  # DECISION 12: within the sketch's error
            width = max(2, math.ceil(4 * float(rule.get("rsd", 0.05)) * value))
            expected = self._judged(rule, value, None, n, value)
            expected.alternatives = {
                v: (e.passed, e.severity)
                for v in range(max(0, value - width), value + width + 1)
                for e in (self._judged(rule, v, None, n, v),)
            }
            return expected
        if kind in ("count", "compliance"):
            failed = got["value"] if kind == "count" else None
            return self._judged(rule, value, failed, n, value)
        if kind in SKETCH_KINDS:
            expected = self._judged(rule, value, None, n, _json(value))
            expected.tolerance = TOLERANCE
            expected.fragile = _near_threshold(rule, value)
            return expected
        if kind == "row_count_match":
            return self._judged(rule, value, None, n, value)
        if kind == "drift":  # numpy's bins and scipy's statistics, summed otherwise
            expected = self._judged(rule, value, None, n, value)
            expected.tolerance = TOLERANCE
            expected.fragile = _near_threshold(rule, value)
            return expected
        if kind in ("missing_count", "invalid_count", "duplicate_count"):
            return self._judged(rule, value, got["count"], n, value)
        if kind == "distinct_count":
            return self._judged(rule, value, None, n, value)
        if kind in ("missing_percent", "invalid_percent", "duplicate_percent"):
            return self._judged(rule, value, got["count"], n, value)
        if kind == "has_uniqueness":
            # DECISION 5: failed_count = considered rows that are not unique
            failed = got["considered"] - got["unique"]
            fraction = float(rule.get("fraction", 1.0))
            passed = value is not None and _compare(rule.get("operator", "=="), value, fraction)
            return Expected(passed, _severity(passed), failed, n, value)
        if kind == "freshness":
            e = self._judged(rule, value, None, n, None)
            e.metric_value = ("seconds", value)
            return e
        if kind == "column_sum_check":
            v = _exact(value)
            inclusive = rule.get("inclusive") is True
            passed = v is not None
            if passed and rule.get("min_value") is not None:
                low = _bound_number(rule["min_value"], v)
                passed = v >= low if inclusive else v > low
            if passed and rule.get("max_value") is not None:
                high = _bound_number(rule["max_value"], v)
                passed = v <= high if inclusive else v < high
            return Expected(passed, _severity(passed), None, n, _json(value),
                            fragile=_fragile(rule, value))  # fmt: skip
        if kind == "column_max_check":
            passed = got["equal"] is True
            numeric = family(self.types[rule["column"]]) in ("exact", "float", "double")
            # DECISION 8: metric_value is the max for a numeric column only
            return Expected(passed, _severity(passed), None, n, _json(value) if numeric else None)
        if kind == "colstats":
            details = {k: got[k] for k in ("count", "min", "max", "mean")}
            return Expected(True, "pass", None, n, None, details=details)
        if kind == "sql":
            if "query" in rule:
                passed = got["value"] is True
                return Expected(passed, _severity(passed), None, n, None)
            rows = got["rows"]
            return Expected(rows == 0, _severity(rows == 0), rows, n, None)
        raise ValueError(kind)

    def _judged(self, rule: dict[str, Any], value: Any, failed: int | None, n: int,
                metric: Any) -> Expected:  # fmt: skip
        passed = holds(rule["must_be"], value)
        severity = _severity(passed)
        if passed and rule.get("warn") is not None and not holds(rule["warn"], value):
            severity = "warn"
        return Expected(passed, severity, failed, n, metric, fragile=_fragile(rule, value))


def _bound_number(value: int | float, like: Any) -> Any:
    exact = Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)
    return float(exact) if isinstance(like, float) else exact


def _severity(passed: bool) -> str:
    return "pass" if passed else "fail"


def _json(value: Any) -> Any:
    """A measured number as JSON can hold it: no NaN, no infinity."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, (dt.date, str)):
        return None
    return value


def _fragile(rule: dict[str, Any], value: Any) -> bool:
    """A double from a sum (avg, sum, stddev) or an interpolation (an exact percentile)
    judged on a threshold equal to it."""
    if not isinstance(value, float) or rule["type"] in ("min", "max"):
        return False
    if not math.isfinite(value):
        return False
    text = " ".join(str(rule.get(k, "")) for k in ("must_be", "warn", "min_value", "max_value"))
    for number in re.findall(r"[+-]?\d+(?:\.\d+)?", text):
        if abs(float(number) - value) <= abs(value) * 1e-9:
            return True
    return False


def measure_key(rule: dict[str, Any]) -> str:
    """What a rule measures: the rule without its tolerance/threshold keys."""
    judged = {"tolerance", "must_be", "warn", "name", "level", "code", "fraction", "operator",
              "size", "min_num_rows"}  # fmt: skip
    if rule["type"] in ("column_sum_check",):
        judged |= {"min_value", "max_value", "inclusive"}
    if rule["type"] == "row_count":
        judged |= {"min", "max"}
    kept = {k: v for k, v in rule.items() if k not in judged}
    return repr(sorted((k, repr(v)) for k, v in kept.items()))
