"""A plain-SQL oracle's rows recorded beside its test, keyed by the query and the data.

The differential tests' oracles (tests/differential/oracle.py, the profile's in
tests/profile/test_differential.py) are plain Spark SQL over generated data: the same
queries over the same rows give the same rows while Spark stays the same. Their rows are
kept in a JSON file beside the test through :func:`tests.dialects.recorded.answers` (the
DQX and GX oracles' recordings: the key, the stale warning, ``ASSAY_RECORD_ORACLES=1``),
each value tagged with its Python type where JSON would lose it, so that a recorded row
reads back exactly as ``Row.asDict()`` gave it: a ``Decimal`` with its scale, a date, a
timestamp, NaN and the infinities, ``-0.0``, an int apart from a float and a bool.

The key of a query (:func:`inputs`) is the digest of its SQL text, of the data it reads
(the rows as generated and their types), of pyspark's and pyarrow's versions (the server
is pyspark's own Spark) and of the session time zone the tests pin.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.dialects import recorded

TIMEZONE = "UTC"
"""The session time zone the recorded oracles run in (the machine's own on CI)."""


def data_digest(types: str, rows: Iterable[Any]) -> str:
    """The digest of a table as generated: its types (DDL) and each row's ``repr``."""
    text = "\n".join([types, *(repr(row) for row in rows)])
    return hashlib.sha256(text.encode()).hexdigest()


def environment() -> dict[str, str]:
    """What the answers depend on besides the query and the data: the versions."""
    return {**recorded.versions("pyspark", "pyarrow"), "timezone": TIMEZONE}


def inputs(query: str, data: str) -> dict[str, Any]:
    """A query's key inputs (``data``: :func:`data_digest` of every table it reads)."""
    return {"query": query, "data": data, "versions": environment()}


def encode(value: Any) -> Any:
    """``value`` as JSON holds it, its type tagged where JSON would lose it."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        if not math.isfinite(value) or (value == 0 and math.copysign(1, value) < 0):
            return {"$float": repr(value)}
        return value
    if type(value) is Decimal:
        return {"$decimal": str(value)}
    if type(value) is dt.datetime:
        return {"$datetime": value.isoformat()}
    if type(value) is dt.date:
        return {"$date": value.isoformat()}
    if type(value) is list:
        return [encode(v) for v in value]
    raise TypeError(f"{type(value).__name__} {value!r}: no recorded form")


_DECODE: dict[str, Callable[[str], Any]] = {
    "$float": float,
    "$decimal": Decimal,
    "$datetime": dt.datetime.fromisoformat,
    "$date": dt.date.fromisoformat,
}


def decode(value: Any) -> Any:
    if isinstance(value, dict):
        [(tag, text)] = value.items()
        return _DECODE[tag](text)
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types (NaN equal to NaN, -0.0 not to 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dt.datetime):
        return a == b and a.tzinfo == b.tzinfo
    if isinstance(a, Decimal):
        return a.as_tuple() == b.as_tuple()
    return bool(a == b)


def encode_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row (``Row.asDict()``) as recorded; refuses what would not read back the same."""
    found = {name: encode(value) for name, value in row.items()}
    back = decode_row(found)
    wrong = [n for n in row if not same(row[n], back[n])]
    assert not wrong, f"{wrong}: the recorded values would not read back as the query gave them"
    return found


def decode_row(row: dict[str, Any]) -> dict[str, Any]:
    return {name: decode(value) for name, value in row.items()}


def rows(
    path: Path, case: str, key: dict[str, Any], live: Callable[[], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """The query's rows (``Row.asDict()`` each): recorded under ``case`` when its key is
    ``key``'s digest, else ``live()`` (recorded as :func:`tests.dialects.recorded.answers`
    says)."""
    found = recorded.answers(path, case, key, lambda: {"rows": [encode_row(r) for r in live()]})
    return [decode_row(r) for r in found["rows"]]


def row(
    path: Path, case: str, key: dict[str, Any], live: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """The one row of an aggregate query, recorded one output per line (its diff reads
    output by output)."""
    found = recorded.answers(path, case, key, lambda: encode_row(live()))
    return decode_row(found)
