"""``expect_column_values_to_match_strftime_format`` against Python's strptime itself:
a generated corpus of values (valid and broken dates, leap days, a second of 60, a year 0,
digits of other scripts, every kind of whitespace, letters in another case, values cut
short or run on) is judged by the expectation's failing-row condition on Spark, and each
verdict must be ``datetime.strptime``'s (what GX's Spark UDF calls); the translation's
directive patterns must be the running Python's."""

from __future__ import annotations

import _strptime
import datetime as dt
import json
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.config.document import read_document
from assay.dialects import great_expectations_strftime as strftime
from assay.dialects.great_expectations_more import MORE
from assay.emit.columns import column
from tests.dialects.helpers import errors, write

FORMATS = [
    "%Y-%m-%d",
    "%Y%m%d",
    "%d/%m/%Y",
    "%m-%d-%Y",
    "%Y-%d-%m",
    "%Y-%m-%dT%H:%M:%S",
    "%y %m %d %H%M%S.%f",
    "%d.%m %%",
    "%m%d",
    "at %H:%M",
]
_DIGITS = "0123456789"
_OTHER_DIGITS = ["\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
                 "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
                 "".join(chr(0x1D7CE + i) for i in range(10))]  # fmt: skip
_SPACES = [" ", "\t", "\u3000", "\x1c", "\n", "  ", "\u00a0", "\u200b"]


def _value(fmt: str, rnd: random.Random) -> str:
    """A value near ``fmt``: a date written by it, then perhaps broken."""
    when = dt.datetime(rnd.randint(1, 9999), rnd.randint(1, 12), rnd.randint(1, 28),
                       rnd.randint(0, 23), rnd.randint(0, 59), rnd.randint(0, 59),
                       rnd.randint(0, 999999))  # fmt: skip
    text = when.strftime(fmt)
    kind = rnd.randrange(12)
    if kind == 0:  # a day or month past its end, a leap day, a second of 60, a year 0
        text = text.replace(f"{when.day:02d}", rnd.choice(["29", "30", "31", "32", "00"]), 1)
        text = text.replace(f"{when.month:02d}", rnd.choice(["02", "04", "13", "2"]), 1)
    elif kind == 1:
        text = text.replace(f"{when.year:04d}", rnd.choice(["0000", "1900", "2000", "2024"]), 1)
    elif kind == 2:
        text = text.replace(f"{when.second:02d}", rnd.choice(["60", "61", "6", "59"]), 1)
    elif kind == 3:  # digits of another script
        other = rnd.choice(_OTHER_DIGITS)
        text = "".join(other[int(c)] if c.isdigit() and rnd.random() < 0.5 else c for c in text)
    elif kind == 4:
        text = text.replace(" ", rnd.choice(_SPACES))
    elif kind == 5:
        text = text.swapcase() if rnd.random() < 0.5 else text.replace("T", "t")
    elif kind == 6:
        text = text[: rnd.randrange(len(text) + 1)]
    elif kind == 7:
        text += rnd.choice([" ", "0", "Z", "\n", "1"])
    elif kind == 8:  # leading zeros dropped or spaces for zeros
        text = text.replace("0", rnd.choice(["", " "]), rnd.randint(1, 2))
    elif kind == 9:
        i = rnd.randrange(len(text) + 1)
        text = text[:i] + rnd.choice(_DIGITS + "-/: ") + text[i:]
    return text


def _python(value: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(value, fmt)
    except ValueError:
        return False
    return True


def test_the_directives_are_pythons():
    found = _strptime.TimeRE()
    assert {d: found[d] for d in strftime.DIRECTIVES} == strftime.DIRECTIVES


@pytest.mark.spark
def test_a_value_is_expected_exactly_when_pythons_strptime_accepts_it(spark, tmp_path):
    rnd = random.Random(20260)
    rows: list[dict[str, object]] = []
    for fmt in FORMATS:
        values = {_value(fmt, rnd) for _ in range(1500)}
        rows += [{"fmt": fmt, "v": v, "ok": _python(v, fmt)} for v in sorted(values)]
    path = tmp_path / "corpus.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    df = spark.read.parquet(str(path))
    build = MORE["expect_column_values_to_match_strftime_format"].build
    wrong: list[str] = []
    for fmt in FORMATS:
        doc = write(tmp_path, json.dumps({"column": "v", "strftime_format": fmt}), "k.json")
        mapped = build(read_document(doc))
        failing = column(mapped.check.failing)  # type: ignore[union-attr]
        found = df.where(df.fmt == fmt).select("v", "ok", failing.alias("failing")).collect()
        assert sum(not r.ok for r in found) > 50 and sum(r.ok for r in found) > 50, fmt
        wrong += [f"{fmt} {r.v!r}: Python {r.ok}" for r in found if r.ok == r.failing]
    assert not wrong, "\n".join(wrong[:30])


def _suite(tmp_path, fmt: str):
    doc = {"name": "s", "expectations": [{"type": "expect_column_values_to_match_strftime_format",
                                          "kwargs": {"column": "v", "strftime_format": fmt}}]}  # fmt: skip
    return write(tmp_path, json.dumps(doc, indent=1), "s.json")


@pytest.mark.parametrize(
    ("fmt", "said"),
    [
        ("%D", "%D is not supported"),
        ("%b %d", "%b is not supported"),
        ("%Y-%m-%d %Y", "%Y is given twice"),
        ("%Y %y", "%Y and %y both give the year"),
        ("%Y-%m-%", "a stray % ends the format"),
    ],
)
def test_a_format_assay_does_not_translate_is_refused_at_its_line(tmp_path, fmt, said):
    text = errors(_suite(tmp_path, fmt), source="t.parquet")
    assert "s.json:" in text and "strftime_format" in text and said in text
