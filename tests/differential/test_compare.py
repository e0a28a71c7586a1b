"""Differential test of comparisons: ``assay.compare(...)`` against an independent
implementation of docs/compare.md's counts, in plain Python over the collected rows.

The oracle reads the documented semantics only: rows per side, compared pairs (a key's
i-th source row with its i-th target row, each side in the order of its compared values;
min(m, n) pairs per key, the other rows missing on the other side), matched / mismatched
pairs, duplicated keys and rows per side, the type differences, null-safe keys
(a null key part matches a null), and per column mismatches, null-versus-value
mismatches and the largest difference, with absolute and relative tolerances (exact for
integers and decimals, IEEE doubles between finite floats and doubles, the tolerance in
the column's type). It must not import the planner or the emitter (checked below).

The data is generated from a seed: NULL keys, keys duplicated on either side, composite
keys (int, bigint, string, date, DECIMAL(38,18), double with -0.0 and NaN), NaN, +-Inf,
-0.0, DECIMAL(38,18) extremes in 1e-18 steps around tolerance bounds, unicode strings,
empty sides. Both tables are built once per module (one parquet write per side); most
comparisons are batched: a call compares several scenarios at once, a scenario number
being the first key part, and the oracle sums the scenarios' counts; when a batch
disagrees, each of its scenarios is compared alone to name the one that differs.

Sizes come from the environment (docs/compare.md, "Testing"): ``ASSAY_COMPARE_SEED``,
``ASSAY_COMPARE_CASES`` (scenarios, default 240), ``ASSAY_COMPARE_BATCH`` (scenarios per
batched call, 16), ``ASSAY_COMPARE_ROWS`` (most rows per side and scenario, 8).
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import os
import random
import struct
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import assay

pytestmark = pytest.mark.spark

SEED = int(os.environ.get("ASSAY_COMPARE_SEED", "20240611"))
CASES = int(os.environ.get("ASSAY_COMPARE_CASES", "240"))
BATCH = int(os.environ.get("ASSAY_COMPARE_BATCH", "16"))
ROWS = int(os.environ.get("ASSAY_COMPARE_ROWS", "8"))

NAN, INF = float("nan"), float("inf")
MAX38 = Decimal("99999999999999999999.999999999999999999")

KEY_TYPES = {
    "k_i": "int",
    "k_b": "bigint",
    "k_s": "string",
    "k_dt": "date",
    "k_m": "decimal(38,18)",
    "k_d": "double",
}
# name: (source type, target type)
VALUE_TYPES = {
    "d": ("double", "double"),
    "f": ("float", "float"),
    "fd": ("float", "double"),
    "m": ("decimal(38,18)", "decimal(38,18)"),
    "c": ("decimal(10,2)", "decimal(10,2)"),
    "i": ("int", "int"),
    "b": ("bigint", "bigint"),
    "ic": ("int", "decimal(12,2)"),
    "md": ("decimal(38,18)", "double"),
    "s": ("string", "string"),
    "dt": ("date", "date"),
    "z": ("boolean", "boolean"),
}
EXACT_TYPES = ("int", "bigint")
FLOATING = ("float", "double")
STRINGS = [
    "a", "A", " a", "a ", " A ", "\ta", "a\u00a0", "Straße", "STRASSE", "straße", "ÄRGER",
    "ärger", "日本語", "😀", "", " ", "İstanbul", "i̇stanbul", "ΟΔΟΣ", "οδος", "Á", "A\u0301",
]  # fmt: skip
DATES = [dt.date(1970, 1, 1), dt.date(2000, 2, 29), dt.date(9999, 12, 31), dt.date(1900, 1, 1)]


def _scale(spark_type: str) -> int:
    return int(spark_type[:-1].split(",")[1]) if spark_type.startswith("decimal") else 0


def _range(spark_type: str) -> tuple[Decimal, Decimal]:
    """The smallest and largest value of an exact type."""
    if spark_type == "int":
        return Decimal(-(2**31)), Decimal(2**31 - 1)
    if spark_type == "bigint":
        return Decimal(-(2**63)), Decimal(2**63 - 1)
    p, s = (int(x) for x in spark_type[8:-1].split(","))
    top = Decimal("9" * (p - s) + ("." + "9" * s if s else ""))  # exact: no context
    return top.copy_negate(), top


# --- data -----------------------------------------------------------------------------------


@dataclass
class Call:
    """One ``assay.compare`` call: its keys and columns, tolerances, options and the
    scenarios it holds (several: the scenario number is the first key)."""

    index: int
    keys: list[str]
    columns: list[str]
    scenarios: list[int]
    tolerance: float = 0.0
    relative: float = 0.0
    column_tolerance: dict[str, Any] = field(default_factory=dict)
    ignore_case: bool = False
    ignore_whitespace: bool = False
    upper_target: bool = False
    explicit_columns: bool = False

    @property
    def batched(self) -> bool:
        return self.keys[0] == "scn"

    def tolerance_of(self, column: str) -> tuple[Decimal, Decimal]:
        """The (absolute, relative) tolerance of a column as the API receives them."""
        given = self.column_tolerance.get(column)
        if given is None:
            return Decimal(str(self.tolerance)), Decimal(str(self.relative))
        if isinstance(given, dict):
            return (
                Decimal(str(given.get("absolute", 0.0))),
                Decimal(str(given.get("relative", 0.0))),
            )
        return Decimal(str(given)), Decimal(0)

    def describe(self) -> str:
        return (
            f"call {self.index}: keys {self.keys}, columns {self.columns}, tolerance "
            f"{self.tolerance} relative {self.relative}, per column {self.column_tolerance}, "
            f"ignore_case {self.ignore_case}, ignore_whitespace {self.ignore_whitespace}, "
            f"scenarios {self.scenarios[:3]}{'...' if len(self.scenarios) > 3 else ''}"
        )


def _key_value(rng: random.Random, name: str) -> Any:
    if rng.random() < 0.2:
        return None
    kind = KEY_TYPES[name]
    if kind in ("int", "bigint"):
        return rng.choice([0, 1, 2, -1, 2**31 - 1] if kind == "int" else [0, 1, -(2**63), 2**53])
    if kind == "string":
        return rng.choice(["", "a", "A", "日本", " a", "😀"])
    if kind == "date":
        return rng.choice(DATES[:3])
    if kind == "decimal(38,18)":
        return rng.choice(
            [Decimal(0), MAX38, MAX38.copy_negate(), Decimal("1e-18"), Decimal("1.5")]
        )
    return rng.choice([0.0, -0.0, NAN, 1.5, -INF])


def _base(rng: random.Random, spark_type: str) -> Any:
    """A tricky value of a type (None: null)."""
    if rng.random() < 0.1:
        return None
    if spark_type == "double":
        return rng.choice(
            [0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.5, 100.0, 1e-300, 5e-324, 1e308, -1e308,
             1.7976931348623157e308, NAN, INF, -INF, rng.uniform(-1000, 1000)]
        )  # fmt: skip
    if spark_type == "float":
        return rng.choice(
            [0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 1.5, 3e38, -3e38, 1e-45, NAN, INF, -INF,
             rng.uniform(-1000, 1000)]
        )  # fmt: skip
    if spark_type == "string":
        return rng.choice(STRINGS)
    if spark_type == "date":
        return rng.choice(DATES)
    if spark_type == "boolean":
        return rng.choice([True, False])
    low, high = _range(spark_type)
    scale = _scale(spark_type)
    unit = Decimal(1).scaleb(-scale)
    with localcontext() as ctx:
        ctx.prec = 100
        value = rng.choice(
            [Decimal(0), high, low, unit, -unit, Decimal(1), Decimal(-1), Decimal("0.5"),
             Decimal("1.000000000000000001"), Decimal("12345678901234567890.123456789012345678"),
             Decimal(rng.randrange(-(10**12), 10**12)).scaleb(-rng.randint(0, scale)),
             Decimal(2**53 + 1)]
        )  # fmt: skip
        return _exact(value, spark_type, rng)


def _exact(value: Decimal, spark_type: str, rng: random.Random) -> Any:
    """``value`` rounded (down or up) to the type's scale and clamped to its range."""
    low, high = _range(spark_type)
    unit = Decimal(1).scaleb(-_scale(spark_type))
    with localcontext() as ctx:
        ctx.prec = 100
        value = max(min(value, high), low)
        value = value.quantize(unit, rounding=rng.choice([ROUND_FLOOR, ROUND_CEILING]))
        value = max(min(value, high), low)
    return int(value) if spark_type in EXACT_TYPES else value


def _near(rng: random.Random, spark_type: str, t: Any, a: Decimal, r: Decimal) -> Any:
    """A source value around the target ``t``: equal, at the tolerance bound, one step
    (of the type's scale, or one double) inside or outside it, or anything else."""
    pick = rng.random()
    if t is None or pick < 0.15:
        return _base(rng, spark_type)
    if spark_type in ("string", "date", "boolean"):
        if spark_type == "string" and rng.random() < 0.5:
            return rng.choice([t.upper(), t.lower(), f" {t}", f"{t} ", f"\t{t}"])
        return t
    if spark_type in FLOATING:
        ft = float(t)
        if pick < 0.35 or not math.isfinite(ft):
            return ft
        bound = float(a) + float(r) * abs(ft)
        value = ft + rng.choice([1, -1]) * rng.choice([bound, bound, 2 * bound, 0.5 * bound])
        for _ in range(rng.choice([0, 0, 1, 2])):
            value = math.nextafter(value, rng.choice([INF, -INF]))
        return value
    if isinstance(t, float) and not math.isfinite(t):
        return _base(rng, spark_type)
    with localcontext() as ctx:
        ctx.prec = 120
        exact_t = Decimal(t)
        if pick < 0.35:
            return _exact(exact_t, spark_type, rng)
        bound = a + r * abs(exact_t)
        unit = Decimal(1).scaleb(-_scale(spark_type))
        steps = rng.choice([0, 1, -1, 1, -1, 2])
        delta = rng.choice([bound, bound, 2 * bound, unit, Decimal(0)]) + steps * unit
        return _exact(exact_t + rng.choice([1, -1]) * delta, spark_type, rng)


def _generate() -> tuple[list[Call], list[dict], list[dict]]:
    rng = random.Random(SEED)
    calls: list[Call] = []
    source: list[dict] = []
    target: list[dict] = []
    scenario = 0
    single = max(3, min(CASES // 30, 20))  # calls of one scenario, without the scenario key
    while scenario < CASES:
        index = len(calls)
        n = 1 if index < single else min(BATCH, CASES - scenario)
        keys = rng.sample(list(KEY_TYPES), rng.choice([1, 1, 2, 3]))
        columns = rng.sample(list(VALUE_TYPES), rng.randint(1, 7))
        tolerances = [0.0, 0.0, 0.01, 0.5, 1.0, 1e-18, 0.1, 2.5]
        call = Call(
            index,
            (["scn"] if index >= single else []) + keys,
            columns,
            list(range(scenario, scenario + n)),
            tolerance=rng.choice(tolerances),
            relative=rng.choice([0.0, 0.0, 0.001, 0.5, 2.0, 1e-18]),
            ignore_case=rng.random() < 0.3,
            ignore_whitespace=rng.random() < 0.3,
            upper_target=rng.random() < 0.2,
            explicit_columns=rng.random() < 0.3,
        )
        for c in columns:
            if rng.random() < 0.3:
                call.column_tolerance[c] = rng.choice(
                    [0.0, 1e-18, 0.01, {"absolute": 0.0, "relative": 0.1}, {"relative": 1e-18},
                     {"absolute": 1.0, "relative": 0.5}]
                )  # fmt: skip
        calls.append(call)
        empty = {0: "source", 1: "target", 2: "both"}.get(index)  # the first calls
        for scn in call.scenarios:
            pool = [{k: _key_value(rng, k) for k in keys} for _ in range(rng.randint(1, 5))]
            n_source = 0 if empty in ("source", "both") else rng.randint(0, ROWS)
            n_target = 0 if empty in ("target", "both") else rng.randint(0, ROWS)
            tgt_rows = []
            for _ in range(n_target):
                key = (
                    rng.choice(pool)
                    if rng.random() < 0.9
                    else {k: _key_value(rng, k) for k in keys}
                )
                row = {"call": index, "scn": scn, **key}
                for c in columns:
                    row[c] = _base(rng, VALUE_TYPES[c][1])
                tgt_rows.append(row)
            for _ in range(n_source):
                key = rng.choice(pool)
                row = {"call": index, "scn": scn, **key}
                partners = [t for t in tgt_rows if all(_same_key(t[k], key[k]) for k in keys)]
                partner = rng.choice(partners) if partners else None
                for c in columns:
                    a, r = call.tolerance_of(c)
                    t_value = partner[c] if partner is not None else None
                    row[c] = _near(rng, VALUE_TYPES[c][0], t_value, a, r)
                source.append(row)
            if n_source and rng.random() < 0.2:  # a row copied twice: one too many
                source.append(dict(rng.choice(source[-n_source:])))
            target.extend(tgt_rows)
        scenario += n
    return calls, source, target


def _schema(side: int) -> str:
    parts = ["call int", "scn int"]
    parts += [f"{k} {t}" for k, t in KEY_TYPES.items()]
    parts += [f"{c} {types[side]}" for c, types in VALUE_TYPES.items()]
    return ", ".join(parts)


def _cell(value: Any, spark_type: str) -> Any:
    if value is None:
        return None
    if spark_type in FLOATING:
        return float(value)
    if spark_type.startswith("decimal"):
        return Decimal(value)
    return value


def _table(rows: list[dict], side: int) -> list[tuple]:
    names = ["call", "scn", *KEY_TYPES, *VALUE_TYPES]
    types = ["int", "int", *KEY_TYPES.values(), *(t[side] for t in VALUE_TYPES.values())]
    return [tuple(_cell(row.get(n), t) for n, t in zip(names, types, strict=True)) for row in rows]


@dataclass
class Data:
    calls: list[Call]
    source: Any
    target: Any
    source_rows: list[dict]
    target_rows: list[dict]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> Iterator[Data]:
    # A few rows per call: one shuffle partition spares tasks (the plans are the same).
    partitions = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    try:
        yield _data(spark, tmp_path_factory)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", partitions)


def _data(spark, tmp_path_factory) -> Data:
    calls, source, target = _generate()
    base = tmp_path_factory.mktemp("diff_compare")
    frames = []
    for side, rows in ((0, source), (1, target)):
        path = str(base / f"side{side}")
        spark.createDataFrame(_table(rows, side), _schema(side)).write.parquet(path)
        frames.append(spark.read.parquet(path))
    collected = [[r.asDict() for r in frame.collect()] for frame in frames]
    print(
        f"\ncomparison differential test: seed {SEED}, {CASES} scenarios in {len(calls)} "
        f"calls (batches of {BATCH}), at most {ROWS} rows per side and scenario; "
        f"{len(collected[0])} source rows, {len(collected[1])} target rows"
    )
    return Data(calls, frames[0], frames[1], collected[0], collected[1])


# --- the oracle: docs/compare.md in plain Python --------------------------------------------


def _same_key(a: Any, b: Any) -> bool:
    return _key_part(a) == _key_part(b)


def _key_part(value: Any) -> Any:
    """A key part as null-safe SQL equality sees it: null equals null; for doubles NaN
    equals NaN and -0.0 equals 0.0 (Spark's equality)."""
    if isinstance(value, float):
        if value != value:
            return ("NaN",)
        return 0.0 if value == 0 else value
    return value


def _kind(source_type: str, target_type: str) -> str:
    numeric = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")
    if source_type.startswith(numeric) and target_type.startswith(numeric):
        return "numeric"
    if source_type == target_type == "string":
        return "string"
    return "other"


def _float32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _nearest_float32(value: Decimal) -> float:
    """The float nearest to a decimal (ties to even), as Spark casts '0.1' to FLOAT."""
    guess = _float32(float(value))
    bits = struct.unpack("<I", struct.pack("<f", guess))[0]
    around = [guess]
    for step in (1, -1):
        if 0 <= bits + step < 0x7F800000:
            around.append(struct.unpack("<f", struct.pack("<I", bits + step))[0])
    exact = Fraction(value)

    def rank(candidate: float) -> tuple[Fraction, int]:
        raw = struct.unpack("<I", struct.pack("<f", candidate))[0]
        return abs(Fraction(candidate) - exact), raw & 1

    return min(around, key=rank)


def _equal(s: Any, t: Any, source_type: str, target_type: str) -> bool:
    """Null-safe equality after Spark's coercion (a float side makes both doubles)."""
    if s is None or t is None:
        return s is None and t is None
    if _kind(source_type, target_type) == "numeric":
        if source_type in FLOATING or target_type in FLOATING:
            fs, ft = float(s), float(t)
            return fs == ft or (fs != fs and ft != ft)
        return Fraction(s) == Fraction(t)
    return s == t


def _within(s: Any, t: Any, source_type: str, target_type: str, a: Decimal, r: Decimal) -> bool:
    """|s - t| <= a + r * |t|: exact for integers and decimals; else in IEEE doubles,
    finite values only, the tolerance the nearest float when both sides are floats."""
    if source_type not in FLOATING and target_type not in FLOATING:
        fs, ft = Fraction(s), Fraction(t)
        return abs(fs - ft) <= Fraction(a) + Fraction(r) * abs(ft)
    fs, ft = float(s), float(t)
    if not (math.isfinite(fs) and math.isfinite(ft)):
        return False
    if source_type == target_type == "float":
        la, lr = _nearest_float32(a), _nearest_float32(r)
    else:
        la, lr = float(a), float(r)
    return abs(fs - ft) <= la + lr * abs(ft)


STATS: Counter[str] = Counter()
"""What the oracle decided (printed: the data reaches the cases it is meant to)."""


def _column_verdict(call: Call, column: str, s: Any, t: Any) -> tuple[bool, bool, float | None]:
    """(mismatched, null against a value, |s - t| or None) of one pair's column."""
    source_type, target_type = VALUE_TYPES[column]
    kind = _kind(source_type, target_type)
    null_mismatch = (s is None) != (t is None)
    if kind == "string" and s is not None and t is not None:
        if call.ignore_whitespace:
            s, t = s.strip(" "), t.strip(" ")  # Spark's trim: spaces only
        if call.ignore_case:
            s, t = s.lower(), t.lower()
    same = _equal(s, t, source_type, target_type)
    a, r = call.tolerance_of(column)
    if not same and kind == "numeric" and (a or r) and not null_mismatch:
        same = s is not None and _within(s, t, source_type, target_type, a, r)
        STATS[f"tolerance {'admits' if same else 'refuses'}"] += 1
    if kind == "numeric" and any(isinstance(v, float) and not math.isfinite(v) for v in (s, t)):
        STATS["NaN or infinity"] += 1
    if null_mismatch:
        STATS["null against a value"] += 1
    diff = None
    if kind == "numeric" and s is not None and t is not None:
        if _exact_difference(source_type, target_type):
            diff = float(abs(Fraction(s) - Fraction(t)))
        elif _equal(s, t, source_type, target_type):
            diff = 0.0
        else:
            diff = abs(float(s) - float(t))
    return not same, null_mismatch, diff


def _exact_difference(source_type: str, target_type: str) -> bool:
    """Whether max_abs_diff is exact: two integer or decimal sides whose difference fits
    in 38 digits (integers count as DECIMAL(10,0) and DECIMAL(20,0))."""
    if source_type in FLOATING or target_type in FLOATING:
        return False
    shapes = [
        (int(t[8:-1].split(",")[0]), _scale(t))
        if t.startswith("decimal")
        else ({"int": 10, "bigint": 20}[t], 0)
        for t in (source_type, target_type)
    ]
    whole = max(p - s for p, s in shapes)
    scale = max(s for _, s in shapes)
    return whole + scale + 1 <= 38


def _order_part(value: Any) -> tuple:
    """A value as Spark orders it ascending with nulls first: NaN above every number,
    -0.0 equal to 0.0, strings by code point (UTF-8 byte order)."""
    if value is None:
        return (0,)
    if isinstance(value, float) and value != value:
        return (1, 1)
    return (1, 0, value)


def _pairing_order(call: Call, row: dict) -> tuple:
    """docs/compare.md: a key's rows are numbered by the compared columns' values as they
    are compared (strings trimmed / lower-cased when asked), then as read."""
    compared = []
    if call.ignore_case or call.ignore_whitespace:
        for c in call.columns:
            if _kind(*VALUE_TYPES[c]) != "string":
                continue
            v = row[c]
            if v is not None and call.ignore_whitespace:
                v = v.strip(" ")
            if v is not None and call.ignore_case:
                v = v.lower()
            compared.append(_order_part(v))
    return (*compared, *(_order_part(row[c]) for c in call.columns))


def _pair_up(call: Call, src_rows: list[dict], tgt_rows: list[dict]) -> list[tuple[dict, dict]]:
    """The pairs of one key: the i-th row of each side, both in pairing order."""
    src = sorted(src_rows, key=lambda r: _pairing_order(call, r))
    tgt = sorted(tgt_rows, key=lambda r: _pairing_order(call, r))
    return list(zip(src, tgt, strict=False))  # the rows beyond the shorter side are missing


def oracle(call: Call, source: list[dict], target: list[dict]) -> dict:
    """The counts docs/compare.md defines, from the rows of both sides."""
    groups: dict[tuple, list[list[dict]]] = {}
    for side, rows in ((0, source), (1, target)):
        for row in rows:
            key = tuple(_key_part(row[k]) for k in call.keys)
            groups.setdefault(key, [[], []])[side].append(row)
    counts = dict.fromkeys(["compared", "matched", "missing_in_target", "missing_in_source"], 0)
    duplicates = {"source": 0, "target": 0}
    duplicate_rows = {"source": 0, "target": 0}
    per_column = {c: {"mismatched": 0, "null_mismatched": 0, "diffs": []} for c in call.columns}
    for src_rows, tgt_rows in groups.values():
        duplicates["source"] += len(src_rows) > 1
        duplicates["target"] += len(tgt_rows) > 1
        duplicate_rows["source"] += max(len(src_rows) - 1, 0)
        duplicate_rows["target"] += max(len(tgt_rows) - 1, 0)
        counts["missing_in_target"] += max(len(src_rows) - len(tgt_rows), 0)
        counts["missing_in_source"] += max(len(tgt_rows) - len(src_rows), 0)
        if len(src_rows) > 1 and len(tgt_rows) > 1 and len(src_rows) != len(tgt_rows):
            STATS["keys duplicated on both sides, unevenly"] += 1
        for s_row, t_row in _pair_up(call, src_rows, tgt_rows):
            counts["compared"] += 1
            STATS["pairs"] += 1
            matched = True
            for c in call.columns:
                mismatched, null_mismatch, diff = _column_verdict(call, c, s_row[c], t_row[c])
                per_column[c]["mismatched"] += mismatched
                per_column[c]["null_mismatched"] += null_mismatch
                if diff is not None:
                    per_column[c]["diffs"].append(diff)
                matched = matched and not mismatched
            counts["matched"] += matched
    n_source, n_target = len(source), len(target)
    compared, matched = counts["compared"], counts["matched"]
    mismatched = compared - matched
    larger = max(n_source, n_target)
    totals = {
        "source_rows": n_source,
        "target_rows": n_target,
        "compared": compared,
        "matched": matched,
        "mismatched": mismatched,
        "missing_in_target": counts["missing_in_target"],
        "missing_in_source": counts["missing_in_source"],
        "unmatched": counts["missing_in_target"] + counts["missing_in_source"] + mismatched,
        "unreconciled": n_source + n_target - 2 * matched,
        "duplicate_keys": duplicates,
        "duplicate_rows": duplicate_rows,
        "matched_percent": 100.0 if larger == 0 else 100.0 * matched / larger,
        "mismatch_percent": 0.0 if compared == 0 else 100.0 * mismatched / compared,
        "columns_missing_in_target": 0,  # both sides have every column
        "columns_missing_in_source": 0,
        "type_differences": sum(VALUE_TYPES[c][0] != VALUE_TYPES[c][1] for c in call.columns),
    }
    # The identities that make a loss visible: every row is paired or missing.
    assert totals["source_rows"] == compared + totals["missing_in_target"]
    assert totals["target_rows"] == compared + totals["missing_in_source"]
    assert totals["unreconciled"] >= 0
    columns = []
    for c in call.columns:
        found = per_column[c]
        diffs = found["diffs"]
        largest = None
        if diffs and all(math.isfinite(d) for d in diffs):
            largest = max(diffs)
        columns.append(
            {
                "column": c,
                "mismatched": found["mismatched"],
                "null_mismatched": found["null_mismatched"],
                "max_abs_diff": largest,
                "mismatch_percent": 0.0 if not compared else 100.0 * found["mismatched"] / compared,
            }
        )
    return {"counts": totals, "columns": columns}


# --- assay ----------------------------------------------------------------------------------


def _frames(data: Data, call: Call, scenario: int | None = None):
    from pyspark.sql.connect import functions as F  # noqa: N812

    keys = call.keys if scenario is None else [k for k in call.keys if k != "scn"]
    names = keys + call.columns
    chosen = []
    for frame in (data.source, data.target):
        rows = frame.where(F.col("call") == call.index)
        if scenario is not None:
            rows = rows.where(F.col("scn") == scenario)
        chosen.append(rows.select(*names))
    source, target = chosen
    if call.upper_target:  # columns are matched by name, case-insensitively
        target = target.select(*(F.col(n).alias(n.upper()) for n in names))
    return source, target, keys


def _assay(data: Data, call: Call, scenario: int | None = None) -> dict:
    source, target, keys = _frames(data, call, scenario)
    result = assay.compare(
        source,
        target,
        keys=keys,
        columns=call.columns if call.explicit_columns else None,
        tolerance=call.tolerance,
        relative_tolerance=call.relative,
        column_tolerance=call.column_tolerance or None,
        ignore_case=call.ignore_case,
        ignore_whitespace=call.ignore_whitespace,
        sample_size=0,  # counts only: one Spark plan per call
        name=f"call{call.index}",
    )
    assert result.error is None, f"{call.describe()}: {result.message}"
    assert result.spark_plans == 1
    return {"counts": result.counts, "columns": list(result.columns)}


def _differences(got: dict, want: dict) -> list[str]:
    found = []
    for name, value in want["counts"].items():
        mine = got["counts"].get(name)
        same = mine == pytest.approx(value) if isinstance(value, float) else mine == value
        if not same:
            found.append(f"{name}: assay {mine}, oracle {value}")
    if [c["column"] for c in got["columns"]] != [c["column"] for c in want["columns"]]:
        return [*found, f"columns: assay {got['columns']}, oracle {want['columns']}"]
    for mine, theirs in zip(got["columns"], want["columns"], strict=True):
        for name, value in theirs.items():
            other = mine[name]
            if isinstance(value, float):
                same = other is not None and other == pytest.approx(value, rel=1e-9, abs=0)
            else:
                same = other == value
            if not same:
                found.append(f"{theirs['column']}.{name}: assay {other}, oracle {value}")
    return found


def _rows(rows: list[dict], call: Call, scenario: int | None) -> list[dict]:
    return [
        r for r in rows if r["call"] == call.index and (scenario is None or r["scn"] == scenario)
    ]


def _diagnose(data: Data, call: Call) -> str:
    """Each scenario of a batch alone: the first that differs, with its rows."""
    for scenario in call.scenarios:
        alone = Call(**{**call.__dict__, "keys": [k for k in call.keys if k != "scn"]})
        src, tgt = _rows(data.source_rows, call, scenario), _rows(data.target_rows, call, scenario)
        wrong = _differences(_assay(data, call, scenario), oracle(alone, src, tgt))
        if wrong:
            names = alone.keys + call.columns
            shown = [
                f"  {side} {tuple(r[n] for n in names)}"
                for side, rows in (("source", src), ("target", tgt))
                for r in rows
            ]
            return f"scenario {scenario} alone: {wrong}\n" + "\n".join(shown)
    return "no scenario differs alone"


def test_comparisons_count_as_the_documented_semantics(data):
    start = time.monotonic()
    failures = []
    for call in data.calls:
        src, tgt = _rows(data.source_rows, call, None), _rows(data.target_rows, call, None)
        wrong = _differences(_assay(data, call), oracle(call, src, tgt))
        if wrong:
            detail = _diagnose(data, call) if call.batched else ""
            failures.append(f"{call.describe()}\n  {wrong}\n{detail}")
            if len(failures) >= 3:
                break
    elapsed = time.monotonic() - start
    print(f"{len(data.calls)} calls ({CASES} scenarios) compared in {elapsed:.1f} s; {dict(STATS)}")
    assert not failures, f"seed {SEED}:\n" + "\n\n".join(failures)


def test_the_oracle_is_independent_of_the_planner_and_the_emitter():
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
            imported.update(f"{node.module}.{alias.name}" for alias in node.names)
    forbidden = [
        m for m in imported if m.startswith(("assay.planner", "assay.emit", "assay.executor"))
    ]
    assert forbidden == []
    assert "assay" in imported
