"""A decimal column compared with a literal of its type: the fast forms of
``emit.columns`` (a whole number sent as an integer, a fraction against a DECIMAL of at
most 15 digits compared as doubles) count the same rows as the plain decimal literal and
as Python's decimals, on values built to sit on, just under and just over each literal."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator
from decimal import Decimal, localcontext

import pytest
from pyspark.sql.connect import functions as F
from pyspark.sql.types import DecimalType, StructField, StructType

from assay.emit.columns import column
from assay.ir.expr import Col, Compare, InSet, Lit
from assay.ir.values import Op

pytestmark = pytest.mark.spark

TYPES = {
    "d15_2": ("decimal(15,2)", Decimal("0.01")),
    "d15_0": ("decimal(15,0)", Decimal(1)),
    "d15_15": ("decimal(15,15)", Decimal("1e-15")),
    "d18_4": ("decimal(18,4)", Decimal("0.0001")),
    "d38_18": ("decimal(38,18)", Decimal("1e-18")),
}
"""Column -> (type, its smallest step)."""

LITERALS = {
    "d15_2": ["-0.01", "0", "0.11", "50", "2100", "-9999999999999.99", "9999999999999.98",
              "1234567890123.45"],
    "d15_0": ["0", "-1", "999999999999999", "-999999999999999", "123456789012345"],
    "d15_15": ["0.1", "-0.999999999999999", "0.000000000000001", "0.333333333333333", "0"],
    "d18_4": ["0.1", "-12345678901234.5678", "99999999999999.9999", "7"],
    "d38_18": ["0.1", "0.100000000000000001", "-3", "12345678901234567890.123456789012345678"],
}  # fmt: skip

OPS = {Op.LT: operator.lt, Op.LE: operator.le, Op.EQ: operator.eq, Op.NE: operator.ne,
       Op.GE: operator.ge, Op.GT: operator.gt}  # fmt: skip


def _largest(kind: str) -> Decimal:
    precision, scale = _decimal(kind).precision, _decimal(kind).scale
    return Decimal(10) ** (precision - scale) - Decimal(10) ** -scale


def _values(name: str) -> list[Decimal | None]:
    """Each literal, a step under and over it (within the type), the type's extremes."""
    kind, step = TYPES[name]
    top = _largest(kind)
    found: set[Decimal] = {top, -top, Decimal(0), step, -step}
    for text in LITERALS[name]:
        for v in (Decimal(text) - step, Decimal(text), Decimal(text) + step):
            if -top <= v <= top:
                found.add(v)
    return [*sorted(found), None]


@pytest.fixture(autouse=True)
def _digits() -> Iterator[None]:
    """Python's decimals with room for DECIMAL(38,18) (the default context holds 28)."""
    with localcontext() as context:
        context.prec = 60
        yield


@pytest.fixture
def decimals(spark, _digits):
    rows = list(itertools.zip_longest(*(_values(n) for n in TYPES)))
    schema = StructType([StructField(n, _decimal(kind), True) for n, (kind, _) in TYPES.items()])
    return spark.createDataFrame(rows, schema), rows


def _decimal(kind: str) -> DecimalType:
    precision, scale = (int(x) for x in kind[len("decimal(") : -1].split(","))
    return DecimalType(precision, scale)


def test_each_fast_form_counts_what_the_plain_literal_and_python_count(decimals):
    df, rows = decimals
    fast, plain, expected = [], [], []
    for index, name in enumerate(TYPES):
        kind = TYPES[name][0]
        for text, op in itertools.product(LITERALS[name], OPS):
            value = Decimal(text)
            fast.append(F.count_if(column(Compare(op, Col(name), Lit(value, kind)))))
            plain_literal = F.lit(value).cast(kind)
            plain.append(F.count_if(OPS[op](F.col(name), plain_literal)))
            column_values = [r[index] for r in rows if r[index] is not None]
            expected.append(sum(1 for v in column_values if OPS[op](v, value)))
    row = df.agg(*fast, *plain).collect()[0]
    counts = list(row)
    assert counts[: len(fast)] == expected
    assert counts[len(fast) :] == expected


def test_membership_in_fractions_counts_what_the_plain_literals_and_python_count(decimals):
    df, rows = decimals
    fast, plain, expected = [], [], []
    for index, name in enumerate(TYPES):
        kind, step = TYPES[name]
        values = [Decimal(t) for t in LITERALS[name]]
        for members in (values, [v + step for v in values if abs(v + step) <= _largest(kind)]):
            fast.append(F.count_if(column(InSet(Col(name), tuple(members), kind))))
            plain.append(F.count_if(F.col(name).isin(*(F.lit(v).cast(kind) for v in members))))
            present = [r[index] for r in rows if r[index] is not None]
            expected.append(sum(1 for v in present if v in set(members)))
    counts = list(df.agg(*fast, *plain).collect()[0])
    assert counts[: len(fast)] == expected
    assert counts[len(fast) :] == expected


@pytest.mark.parametrize(
    ("name", "value", "as_doubles"),
    [
        ("d15_2", "50", False),  # a whole number: an integer cast to the type
        ("d15_2", "-0.01", True),  # a fraction, 15 digits: doubles
        ("d15_15", "0.333333333333333", True),
        ("d18_4", "0.1", False),  # 18 digits: the decimal literal
        ("d38_18", "0.1", False),  # not compact: the decimal literal
    ],
)
def test_a_fraction_is_compared_as_doubles_only_within_15_digits(name, value, as_doubles):
    kind = TYPES[name][0]
    text = str(column(Compare(Op.LT, Col(name), Lit(Decimal(value), kind))))
    assert (f"CAST({name} AS DOUBLE)" in text) is as_doubles, text
