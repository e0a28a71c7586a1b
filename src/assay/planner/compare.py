"""Planning a dataset comparison (pure): which columns are compared and how, the names of
the one aggregate's outputs, the metrics read back from them, the verdicts of the checks,
and the text ``assay explain`` prints (docs/compare.md)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from assay.ir.compare import (
    DEFAULT_CHECK_METRIC,
    CompareCheck,
    ComparisonSetting,
    DatasetComparison,
    FrameRef,
    NumericTolerance,
    Side,
)
from assay.ir.suite import CatalogSource, PathSource, SqlSource
from assay.ir.values import Comparison, Op

Kind = Literal["numeric", "string", "other"]

_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")
_SDT_NUMERIC = frozenset(
    {"tinyint", "smallint", "int", "bigint", "float", "double", "decimal(10,0)"}
)
"""The types spark-data-test applies ``difference_tolerance`` to: its ``numeric_types``
list is compared with ``==``, so ``DecimalType()`` matches only ``decimal(10,0)``."""

COUNTS = (
    "source_rows",
    "target_rows",
    "pairs",
    "compared",
    "matched_pairs",
    "missing_in_target",
    "missing_in_source",
    "missing_keys_target",
    "missing_keys_source",
    "duplicate_keys_source",
    "duplicate_keys_target",
)
"""The aggregate's whole-comparison outputs (named, never by position)."""


DIFFERING_KEYS_LIMIT = 50_000
"""At most this many differing pairs (checksums differ) and one-side rows in a
spark-data-test job's dataset: the differing pairs' keys come back with the samples, so
each unmatched-rows write, and the row report's search for tolerated pairs, join only
those keys' rows instead of both whole sides (the client holds at most this many keys)."""


@dataclass(frozen=True, slots=True)
class ColumnPlan:
    """One compared non-key column: its aggregate outputs are ``c<i>_mismatched``,
    ``c<i>_nulls`` and, for numbers, ``c<i>_max_diff``."""

    index: int
    name: str
    kind: Kind
    source_type: str
    target_type: str
    tolerance: NumericTolerance
    sdt_numeric: bool = False
    bound: ToleranceBound | None = None
    """How a native numeric tolerance is evaluated for the two sides' types (``None``:
    exact, or not a numeric column): :func:`tolerance_bound`."""

    @property
    def slot(self) -> str:
        return f"c{self.index}"


@dataclass(frozen=True, slots=True)
class ComparePlan:
    """A comparison bound to both schemas: keys and compared columns as the sources
    spell them. ``checksum`` (spark-data-test) lists the columns of its row checksum."""

    comparison: DatasetComparison
    keys: tuple[str, ...]
    columns: tuple[ColumnPlan, ...]
    source_columns: tuple[str, ...]
    target_columns: tuple[str, ...]
    checksum: tuple[str, ...] = ()
    key_types: tuple[str | None, ...] = ()
    """Per key, the Spark type both sides share (``None`` when they differ): a shared type
    lets the null-safe join split into plain equalities the side windows partition by."""

    @property
    def sdt(self) -> bool:
        return self.comparison.semantics == "spark-data-test"

    def outputs(self) -> tuple[str, ...]:
        """Every output of the one aggregate, in order."""
        names = list(COUNTS)
        if self.sdt:
            names += ["matched_keys", "differing_pairs"]
        for c in self.columns:
            names += [f"{c.slot}_mismatched", f"{c.slot}_nulls"]
            if c.kind == "numeric":
                names.append(f"{c.slot}_max_diff")
        return tuple(names)


def kind_of(spark_type: str) -> Kind:
    """The comparison family of a Spark type (its ``simpleString``).

    >>> kind_of("decimal(12,2)"), kind_of("string"), kind_of("date")
    ('numeric', 'string', 'other')
    """
    if spark_type.startswith(_NUMERIC):
        return "numeric"
    if spark_type == "string" or spark_type.startswith(("varchar", "char")):
        return "string"
    return "other"


@dataclass(frozen=True, slots=True)
class Unbound:
    """What is missing for one setting of a comparison (``None``: the comparison itself):
    the sentence, and a hint when the cause is a known one (a CSV read without its header)."""

    setting: ComparisonSetting | None
    message: str
    hint: str | None = None


class UnboundComparison(ValueError):
    """A comparison whose keys or columns are not on both sides: ``problems`` holds one
    :class:`Unbound` per setting at fault (the executor reports each as a config error at
    the place the setting was written)."""

    def __init__(self, problems: Sequence[Unbound]):
        self.problems = tuple(problems)
        super().__init__("; ".join(p.message for p in self.problems))


SHOWN_COLUMNS = 20
"""At most this many of a side's columns are named when a key or column is not among them."""
_UNNAMED = re.compile(r"_c\d+")
"""The names Spark gives the columns of a CSV file read without its header line."""


def _columns_read(names: Sequence[str]) -> str:
    """A side's columns as an error lists them.

    >>> _columns_read(["_c0", "_c1"]), _columns_read([])
    ('_c0, _c1', 'no columns')
    """
    if not names:
        return "no columns"
    shown = ", ".join(names[:SHOWN_COLUMNS])
    return shown if len(names) <= SHOWN_COLUMNS else f"{shown}, ... ({len(names)} columns)"


def _headerless_csv(side: Side, names: Sequence[str]) -> bool:
    """Whether ``side`` is a CSV path read without its header line (every column named
    ``_c<n>`` by Spark, no ``header`` option set to true)."""
    if not isinstance(side, PathSource) or side.format.lower() != "csv" or not names:
        return False
    header = any(k.lower() == "header" and v.strip().lower() == "true" for k, v in side.options)
    return not header and all(_UNNAMED.fullmatch(n) for n in names)


def _unbound(
    comparison: DatasetComparison,
    found: Sequence[tuple[ComparisonSetting | None, str, str]],
    names: Mapping[str, Sequence[str]],
) -> UnboundComparison:
    """The problems ``found`` (setting, side, sentence), one per setting: its sentences,
    then the columns of each side at fault, and the header hint when a side is a CSV read
    without its header line."""
    settings = dict.fromkeys(setting for setting, _, _ in found)
    read_from = {"source": comparison.source, "target": comparison.target}
    problems = []
    for setting in settings:
        mine = [(side, text) for s, side, text in found if s == setting]
        sides = dict.fromkeys(side for side, _ in mine)
        read = "; ".join(f"the {side} has {_columns_read(names[side])}" for side in sides)
        headerless = [side for side in sides if _headerless_csv(read_from[side], names[side])]
        hint = None
        if headerless:
            which = " and the ".join(headerless)
            what = "are CSV files" if len(headerless) > 1 else "is a CSV file"
            hint = (
                f"the {which} {what} read without a header line (Spark names the columns "
                "_c0, _c1...): read the header with the reader option header=true"
            )
        text = "; ".join(t for _, t in mine)
        problems.append(Unbound(setting, f"comparison {comparison.name}: {text} ({read})", hint))
    return UnboundComparison(problems)


def plan_comparison(
    comparison: DatasetComparison,
    source_schema: Sequence[tuple[str, str]],
    target_schema: Sequence[tuple[str, str]],
) -> ComparePlan:
    """Bind ``comparison`` to the schemas of its two sides (after ``select_cols`` /
    ``drop_cols``).

    Raises:
        UnboundComparison: a key or a named column is missing on a side (every one listed).
    """
    src = {name.lower(): (name, kind) for name, kind in source_schema}
    tgt = {name.lower(): (name, kind) for name, kind in target_schema}
    sides = (("source", src), ("target", tgt))
    problems: list[tuple[ComparisonSetting | None, str, str]] = [
        ("keys", side, f"key '{k}' is not a column of the {side}")
        for k in comparison.keys
        for side, cols in sides
        if k.lower() not in cols
    ]
    keys = tuple(src[k.lower()][0] if k.lower() in src else k for k in comparison.keys)
    key_set = {k.lower() for k in keys}
    if comparison.columns is not None:
        wanted = [c for c in comparison.columns if c.lower() not in key_set]
        problems += [
            ("columns", side, f"column '{c}' is not a column of the {side}")
            for c in wanted
            for side, cols in sides
            if c.lower() not in cols
        ]
    elif comparison.semantics == "spark-data-test":
        # Its non-key columns are the source's, compared with the target's same names.
        wanted = [name for name, _ in source_schema if name.lower() not in key_set]
        problems += [
            (None, "target", f"column '{c}' of the source is not a column of the target")
            for c in wanted
            if c.lower() not in tgt
        ]
    else:
        wanted = [name for name, _ in source_schema if name.lower() not in key_set]
        wanted = [c for c in wanted if c.lower() in tgt]
    if problems:
        names = {
            "source": [name for name, _ in source_schema],
            "target": [name for name, _ in target_schema],
        }
        raise _unbound(comparison, problems, names)
    columns = tuple(
        _column(i, src[c.lower()], tgt[c.lower()], comparison) for i, c in enumerate(wanted)
    )
    checksum = tuple(c.name for c in columns) if comparison.semantics == "spark-data-test" else ()
    shared = [src[k.lower()][1] for k in keys]
    key_types = tuple(
        t if t == tgt[k.lower()][1] else None for k, t in zip(keys, shared, strict=True)
    )
    return ComparePlan(
        comparison,
        keys,
        columns,
        tuple(name for name, _ in source_schema),
        tuple(name for name, _ in target_schema),
        checksum,
        key_types,
    )


def _column(
    index: int, source: tuple[str, str], target: tuple[str, str], comparison: DatasetComparison
) -> ColumnPlan:
    name, s_type = source
    _, t_type = target
    s_kind, t_kind = kind_of(s_type), kind_of(t_type)
    kind: Kind = s_kind if s_kind == t_kind else "other"
    tolerance = comparison.tolerance_of(name)
    native = comparison.semantics == "native" and kind == "numeric" and not tolerance.exact
    return ColumnPlan(
        index,
        name,
        kind,
        s_type,
        t_type,
        tolerance,
        sdt_numeric=t_type in _SDT_NUMERIC,
        bound=tolerance_bound(s_type, t_type, tolerance) if native else None,
    )


# --- numeric tolerances -------------------------------------------------------------------
#
# A native tolerance admits a pair of numbers when |s - t| <= absolute + relative * |t|
# (docs/compare.md). Integers and decimals compare exactly, whatever their magnitude:
# in one decimal type when every term fits in 38 digits (``DecimalBound``), else as exact
# integer arithmetic on 16-digit limbs of the unscaled values (``LimbBound``). Floats and
# doubles compare in IEEE doubles between finite values (``FloatingBound``).

Arithmetic = Literal["decimal", "float", "double"]

_INTEGRAL_PRECISION = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 20}
_DECIMAL_TYPE = re.compile(r"decimal\((\d+),\s*(\d+)\)")
MAX_PRECISION = 38
"""Spark's widest decimal: an operation whose result type would be wider is rounded to
fewer fractional digits (``decimal(38,18) - decimal(38,18)`` is ``decimal(38,17)``)."""
LIMB_DIGITS = 16
LIMB = 10**LIMB_DIGITS


def exact_shape(spark_type: str) -> tuple[int, int] | None:
    """The ``(precision, scale)`` of an exact number type: a decimal's own, an integer's
    the decimal holding all its values; ``None`` for floats and doubles.

    >>> exact_shape("decimal(38,18)"), exact_shape("bigint"), exact_shape("double")
    ((38, 18), (20, 0), None)
    """
    if spark_type in _INTEGRAL_PRECISION:
        return _INTEGRAL_PRECISION[spark_type], 0
    m = _DECIMAL_TYPE.fullmatch(spark_type)
    return (int(m.group(1)), int(m.group(2))) if m else None


def arithmetic(source_type: str, target_type: str) -> Arithmetic:
    """Where a tolerance between two numeric types is evaluated: exactly when both are
    integers or decimals; else in doubles, the tolerance being a float when both sides
    are floats.

    >>> arithmetic("int", "decimal(12,2)"), arithmetic("float", "float")
    ('decimal', 'float')
    >>> arithmetic("float", "double"), arithmetic("decimal(38,18)", "double")
    ('double', 'double')
    """
    if exact_shape(source_type) and exact_shape(target_type):
        return "decimal"
    return "float" if source_type == target_type == "float" else "double"


@dataclass(frozen=True, slots=True)
class FloatingBound:
    """``abs(s - t) <= absolute + relative * abs(t)`` evaluated in IEEE doubles, for finite
    ``s`` and ``t`` only (a NaN or an infinity is within no tolerance of another value).
    The tolerance is written in ``literal_type``: with two float sides it is the float
    nearest to it (``CAST('0.1' AS FLOAT)``), widened to a double; else the double nearest."""

    absolute: Decimal
    relative: Decimal
    literal_type: Literal["float", "double"]


@dataclass(frozen=True, slots=True)
class DecimalBound:
    """``abs(s - t) <= absolute + relative * abs(t)`` exactly, in one decimal type: both
    sides and both terms are cast to ``decimal(precision, scale)``, which holds them, and
    the difference and the sum (one digit more) are at most 38 digits, so Spark rounds
    nothing. ``relative * abs(t)`` is computed as ``decimal(relative_type) *
    decimal(target)`` (its exact type fits too)."""

    precision: int
    scale: int
    absolute: Decimal
    relative: Decimal
    relative_type: tuple[int, int]
    target: tuple[int, int]


Term = tuple[int, Literal["x", "y"], int]
"""``(coefficient, value, limb)``: a coefficient limb times limb ``limb`` of X or Y."""


@dataclass(frozen=True, slots=True)
class LinearForm:
    """Whether ``kx * X + ky * Y + k0 >= 0``, for the unscaled magnitudes
    ``X = |s| * 10^s1`` and ``Y = |t| * 10^s2`` (integers below ``10^precision``).

    In base ``LIMB``: ``limbs[j]`` (least significant first) lists the products of a
    coefficient limb and a value limb landing in limb ``j``, and a constant limb; each
    such sum is below ``10^33`` in magnitude, so nothing carries. The sign of
    ``sum(limbs[j] * LIMB^j)`` is read from the top limb down: ``h = clamp(h * LIMB +
    limbs[j])`` with ``clamp`` bounding ``h`` to ``[-clamp, clamp]``. Once ``|h|``
    reaches ``clamp`` the lower limbs together are smaller than ``h``'s weight, so the
    sign is the total's, and it stays clamped; until then ``h`` is exact. Every value
    stays below ``10^38``: exact in ``decimal(38,0)``."""

    kx: int
    ky: int
    k0: int
    limbs: tuple[tuple[tuple[Term, ...], int], ...]
    clamp: int


@dataclass(frozen=True, slots=True)
class LimbBound:
    """``|s - t| <= a + r * |t|`` exactly for any two exact types, with ``x = |s|``,
    ``y = |t|``: when ``s`` and ``t`` have the same sign (or one is 0), ``|s - t| = |x - y|``
    and the bound holds when ``x <= (1 + r) * y + a`` and ``y <= x + r * y + a``; of
    opposite signs ``|s - t| = x + y``, within when ``x + y <= a + r * y``. No difference is
    computed, so nothing overflows; each inequality is a :class:`LinearForm`.
    ``source`` / ``target``: the exact types; ``value_limbs``: limbs of X and of Y."""

    source: tuple[int, int]
    target: tuple[int, int]
    value_limbs: tuple[int, int]
    same_sign: tuple[LinearForm, ...]
    opposite_sign: tuple[LinearForm, ...]


ToleranceBound = FloatingBound | DecimalBound | LimbBound


def exact_difference(source_type: str, target_type: str) -> tuple[int, int] | None:
    """The ``(precision, scale)`` both sides are cast to for ``max_abs_diff`` in exact
    decimals: their difference then takes one more digit, which must fit in 38; ``None``
    when it does not (or a side is a float or double): the difference is taken in doubles.

    >>> exact_difference("decimal(12,2)", "int"), exact_difference("double", "int")
    ((12, 2), None)
    >>> exact_difference("decimal(38,18)", "decimal(38,18)") is None  # 39 digits
    True
    """
    shapes = exact_shape(source_type), exact_shape(target_type)
    if shapes[0] is None or shapes[1] is None:
        return None
    whole = max(p - s for p, s in shapes)  # type: ignore[misc]
    scale = max(s for _, s in shapes)  # type: ignore[misc]
    return (whole + scale, scale) if whole + scale + 1 <= MAX_PRECISION else None


def _decimal_scale(value: Fraction) -> int:
    """The fractional digits of a decimal value held as a fraction."""
    d, twos, fives = value.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    assert d == 1, value
    return max(twos, fives)


def _as_decimal(value: Fraction) -> Decimal:
    """A decimal fraction as a ``Decimal``, exactly (a string: no context rounding)."""
    scale = _decimal_scale(value)
    unscaled = value * 10**scale
    return Decimal(f"{unscaled.numerator}E-{scale}")


def _digits(n: int) -> int:
    """Decimal digits of the integer ``n`` (0 has none)."""
    return len(str(abs(n))) if n else 0


def _signed_limbs(k: int) -> list[int]:
    """``k`` in base ``LIMB``, least significant first, every limb of ``k``'s sign."""
    sign, m, found = (-1 if k < 0 else 1), abs(k), []
    while m:
        found.append(sign * (m % LIMB))
        m //= LIMB
    return found


def linear_form(kx: int, ky: int, k0: int, x_limbs: int, y_limbs: int) -> LinearForm:
    """The limb layout of ``kx * X + ky * Y + k0 >= 0`` (X, Y of that many limbs).

    >>> f = linear_form(-1, 3, 10**20, 2, 2)
    >>> [len(terms) for terms, _ in f.limbs], [k for _, k in f.limbs], f.clamp
    ([2, 2], [0, 10000], 6)
    """
    terms: dict[int, list[Term]] = {}
    for coefficient, value, n in ((kx, "x", x_limbs), (ky, "y", y_limbs)):
        for m, c in enumerate(_signed_limbs(coefficient)):
            if c:
                for i in range(n):
                    terms.setdefault(m + i, []).append((c, value, i))  # type: ignore[arg-type]
    constant = dict(enumerate(_signed_limbs(k0)))
    top = max([*terms, *constant], default=-1) + 1
    limbs = tuple((tuple(terms.get(j, ())), constant.get(j, 0)) for j in range(top))
    widest = max(
        (sum(abs(c) for c, _, _ in ts) * (LIMB - 1) + abs(k) for ts, k in limbs), default=0
    )
    kappa = max(1, -(-widest // (LIMB - 1)))
    clamp = kappa + 1
    assert clamp * LIMB + widest < 10**MAX_PRECISION, (kx, ky, k0)
    return LinearForm(kx, ky, k0, limbs, clamp)


def tolerance_bound(
    source_type: str, target_type: str, tolerance: NumericTolerance, limbs: bool = False
) -> ToleranceBound:
    """How ``|s - t| <= absolute + relative * |t|`` is evaluated for these types.

    The constants are first reduced without changing any verdict: an absolute tolerance
    above every possible ``|s - t|`` to that bound, a relative one admitting every pair
    with ``t != 0`` to the least that does, and the absolute one rounded down to the
    scale of ``|s - t| - relative * |t|`` (which it is compared with). ``limbs``: the limb
    formulation even where one decimal type would do (the tests compare the two).

    >>> b = tolerance_bound("decimal(12,2)", "decimal(12,2)", NumericTolerance(Decimal("0.005")))
    >>> b.precision, b.scale, b.absolute  # 0.005 admits what 0 does between cents
    (12, 2, Decimal('0'))
    >>> b = tolerance_bound("decimal(38,18)", "decimal(38,18)", NumericTolerance(Decimal(1)))
    >>> type(b).__name__, b.value_limbs, len(b.same_sign), len(b.opposite_sign)
    ('LimbBound', (3, 3), 2, 1)
    """
    arith = arithmetic(source_type, target_type)
    if arith != "decimal":
        literal: Literal["float", "double"] = "float" if arith == "float" else "double"
        return FloatingBound(tolerance.absolute, tolerance.relative, literal)
    (p1, s1), (p2, s2) = exact_shape(source_type), exact_shape(target_type)  # type: ignore[misc]
    mx, my = 10 ** (p1 - s1), 10 ** (p2 - s2)  # |s| < mx, |t| < my
    a, r = Fraction(tolerance.absolute), Fraction(tolerance.relative)
    a = min(a, Fraction(mx + my))  # |s - t| < mx + my: a larger a admits the same pairs
    # r * |t| >= |s| + |t| for every t != 0 (|t| >= 10^-s2) once r >= mx * 10^s2 + 1
    r = min(r, Fraction(mx * 10**s2 + 1))
    scale = max(s1, s2, s2 + _decimal_scale(r))
    # |s - t| - r * |t| is a multiple of 10^-scale: comparing it with a or with a rounded
    # down to that scale is the same
    a = Fraction(math.floor(a * 10**scale), 10**scale)
    r_scale = _decimal_scale(r)
    r_precision = max(_digits(int(r * 10**r_scale)), r_scale, 1)
    whole = max(p1 - s1, p2 - s2, _digits(math.floor(a)), _digits(math.floor(r * my)))
    fits = whole + scale + 1 <= MAX_PRECISION and (r == 0 or r_precision + p2 + 1 <= MAX_PRECISION)
    if fits and not limbs:
        return DecimalBound(
            whole + scale, scale, _as_decimal(a), _as_decimal(r), (r_precision, r_scale), (p2, s2)
        )
    nx, ny = -(-(p1 + 1) // LIMB_DIGITS), -(-(p2 + 1) // LIMB_DIGITS)  # + a leading "0."
    ux, uy, k0 = 10 ** (scale - s1), Fraction(10 ** (scale - s2)), a * 10**scale

    def form(sign_x: int, ry: Fraction) -> LinearForm:
        ky = ry * uy
        assert ky.denominator == 1 and k0.denominator == 1
        return linear_form(sign_x * ux, int(ky), int(k0), nx, ny)

    same = [form(-1, 1 + r)]  # x <= (1 + r) * y + a
    if r < 1:  # y <= x + r * y + a (always, when r >= 1)
        same.append(form(1, r - 1))
    opposite = (form(-1, r - 1),)  # x + y <= a + r * y
    return LimbBound((p1, s1), (p2, s2), (nx, ny), tuple(same), opposite)


# --- metrics and verdicts -----------------------------------------------------------------

Number = int | float


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """One check's verdict: ``severity`` pass / warn / fail (``passed`` unless fail)."""

    check: CompareCheck
    value: Number | None
    severity: Literal["pass", "warn", "fail"]
    message: str

    @property
    def passed(self) -> bool:
        return self.severity != "fail"

    def to_dict(self) -> dict[str, Any]:
        threshold = self.check.must.text
        if self.check.warn is not None:
            threshold += f"; warn: {self.check.warn.text}"
        return {
            "metric": self.check.label,
            "threshold": threshold,
            "value": self.value,
            "passed": self.passed,
            "severity": self.severity,
            "message": self.message,
        }


def counts(plan: ComparePlan, row: Mapping[str, Any]) -> dict[str, Any]:
    """The whole-comparison metrics from the aggregate's row (the event's ``counts``)."""
    n = {k: int(row.get(k) or 0) for k in COUNTS}
    if plan.sdt:
        # spark-data-test's numbers: matched and missing are counted by key.
        matched = int(row.get("matched_keys") or 0)
        missing_t, missing_s = n["missing_keys_target"], n["missing_keys_source"]
    else:
        matched = n["matched_pairs"]
        missing_t, missing_s = n["missing_in_target"], n["missing_in_source"]
    mismatched = n["compared"] - n["matched_pairs"]
    larger = max(n["source_rows"], n["target_rows"])
    return {
        "source_rows": n["source_rows"],
        "target_rows": n["target_rows"],
        "compared": n["compared"],
        "matched": matched,
        "mismatched": mismatched,
        "missing_in_target": missing_t,
        "missing_in_source": missing_s,
        "unmatched": missing_t + missing_s + mismatched,
        "unreconciled": n["source_rows"] + n["target_rows"] - 2 * matched,
        "duplicate_keys": {
            "source": n["duplicate_keys_source"],
            "target": n["duplicate_keys_target"],
        },
        "matched_percent": 100.0 if larger == 0 else 100.0 * matched / larger,
        "mismatch_percent": _percent(mismatched, n["compared"]),
    }


def column_counts(plan: ComparePlan, row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per compared column: mismatches, null-versus-value mismatches, the largest
    absolute difference of numbers, and the mismatch percent of compared rows."""
    compared = int(row.get("compared") or 0)
    found = []
    for c in plan.columns:
        mismatched = int(row.get(f"{c.slot}_mismatched") or 0)
        diff = row.get(f"{c.slot}_max_diff") if c.kind == "numeric" else None
        found.append(
            {
                "column": c.name,
                "mismatched": mismatched,
                "null_mismatched": int(row.get(f"{c.slot}_nulls") or 0),
                "max_abs_diff": _finite(diff),
                "mismatch_percent": _percent(mismatched, compared),
            }
        )
    return found


def _percent(count: int, of: int) -> float:
    return 0.0 if of == 0 else 100.0 * count / of


def _finite(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return number if number == number and abs(number) != float("inf") else None


def metric(check: CompareCheck, totals: Mapping[str, Any], per_column: Sequence[Mapping]) -> Any:
    """The value ``check`` judges."""
    if check.side is not None:
        return totals["duplicate_keys"][check.side]
    if check.column is not None:
        entry = next(c for c in per_column if c["column"].lower() == check.column.lower())
        field = {"mismatched_column": "mismatched", "mismatch_percent_column": "mismatch_percent"}
        return entry[field.get(check.metric, check.metric)]
    return totals[check.metric]


def default_check(comparison: DatasetComparison) -> CompareCheck:
    """What a comparison with no checks must satisfy: no unmatched row."""
    return CompareCheck(
        DEFAULT_CHECK_METRIC, Comparison(Op.EQ, Decimal(0), "= 0"), comparison.origin
    )


def judge(
    comparison: DatasetComparison, totals: Mapping[str, Any], per_column: Sequence[Mapping]
) -> list[CheckOutcome]:
    """Every check's verdict (the default check when there is none)."""
    outcomes = []
    for check in comparison.checks or (default_check(comparison),):
        value = metric(check, totals, per_column)
        shown = f"{check.label} = {_fmt(value)}"
        if value is None:
            outcomes.append(
                CheckOutcome(check, None, "fail", f"{check.label} has no value (no numbers)")
            )
        elif not check.must.holds(value):
            outcomes.append(
                CheckOutcome(check, value, "fail", f"{shown}; must be {check.must.text}")
            )
        elif check.warn is not None and not check.warn.holds(value):
            outcomes.append(
                CheckOutcome(check, value, "warn", f"{shown}; warn unless {check.warn.text}")
            )
        else:
            outcomes.append(
                CheckOutcome(check, value, "pass", f"{shown}; must be {check.must.text}")
            )
    return outcomes


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def differs(totals: Mapping[str, Any]) -> bool:
    """Whether something differs, so that samples are worth a second plan."""
    return bool(totals["mismatched"] or totals["missing_in_target"] or totals["missing_in_source"])


# --- explain ------------------------------------------------------------------------------


def describe_source(source: Side) -> str:
    """A source in one line."""
    if isinstance(source, CatalogSource):
        return f"table {source.table}"
    if isinstance(source, SqlSource):
        return f"sql {source.query!r}"
    if isinstance(source, PathSource):
        return f"{source.format} {', '.join(source.paths)}"
    if isinstance(source, FrameRef):
        return source.label
    return str(source)


def render_comparison(comparison: DatasetComparison) -> str:
    """The comparison's plan as ``assay explain`` prints it (no schema needed)."""
    c = comparison
    null_safe = "<=>" if c.semantics == "native" else "="
    on = " AND ".join(f"s.{k} {null_safe} t.{k}" for k in c.keys)
    if c.columns is not None:
        cols = ", ".join(c.columns)
    elif c.semantics == "spark-data-test":
        cols = "every non-key column of the source"
    else:
        cols = "every non-key column both sides have"
    lines = [
        f"comparison {c.name} ({c.semantics})  spark plans: 1 (+1 for samples when rows differ)",
        f"  source: {describe_source(c.source)}"
        + (f" (filter: {c.source_filter})" if c.source_filter else ""),
        f"  target: {describe_source(c.target)}"
        + (f" (filter: {c.target_filter})" if c.target_filter else ""),
    ]
    if c.select_cols is not None or c.drop_cols:
        lines.append(
            f"  columns kept: {', '.join(c.select_cols) if c.select_cols else 'all'}"
            + (f"; dropped: {', '.join(c.drop_cols)}" if c.drop_cols else "")
        )
    lines += [
        f"  each side: row_number() over (partition by {', '.join(c.keys)})",
        f"  full outer join on {on}"
        + (
            ""
            if c.semantics == "spark-data-test"
            else " (a key of one simple type on both sides as coalesce(k, d), isnull(k):"
            " the join reuses each side's window shuffle)"
        ),
        f"  one aggregate: rows per side, duplicate keys per side, matched, missing per side;"
        f" per column ({cols}): count_if(mismatch), count_if(null vs value), max |s - t|",
    ]
    if c.semantics == "spark-data-test":
        lines.append(
            "  row checksum: concat_ws('', non-key columns) per side, compared after the join;"
            " matched keys: count_if(matched) of keys with one row per side +"
            " count(DISTINCT keys) of the duplicated keys' matched rows"
        )
    tol = c.tolerance
    if not tol.exact or c.column_tolerances:
        per = ", ".join(f"{n}: {t.absolute}+{t.relative}*|t|" for n, t in c.column_tolerances)
        lines.append(
            f"  numeric tolerance: |s - t| <= {tol.absolute} + {tol.relative} * |t|"
            + (f"; {per}" if per else "")
        )
    if c.ignore_case or c.ignore_whitespace:
        said = [
            w for w, on_ in (("case", c.ignore_case), ("whitespace", c.ignore_whitespace)) if on_
        ]
        lines.append(f"  strings: ignoring {' and '.join(said)}")
    checks = c.checks or (default_check(c),)
    lines.append("  checks:")
    for check in checks:
        warn = f"; warn: {check.warn.text}" if check.warn is not None else ""
        lines.append(f"    {check.label}: {check.must.text}{warn}")
    lines.append(
        f"  samples (only when rows differ; limit {c.sample_size} per column and per side):"
        " one pass over the pairs, row_number() over (partition by branch order by keys)"
    )
    if c.reports is not None:
        r = c.reports
        lines.append(
            f"  writes ({r.format} under {r.base}): overall_test_report, col_lvl_test_report,"
            " row_lvl_test_report (one plan each, per job), unmatched_rows/<dataset>/<column>"
            " (one plan per column with mismatches; over the differing keys' rows only when"
            f" at most {DIFFERING_KEYS_LIMIT:,} rows differ)"
        )
    return "\n".join(lines)


def render_comparisons(comparisons: Sequence[DatasetComparison]) -> str:
    """Every comparison's plan, and the Spark plans they submit when nothing differs."""
    if not comparisons:
        return ""
    jobs = {c.reports for c in comparisons if c.reports is not None}
    writes = f" (+3 report writes per spark-data-test job: {len(jobs)})" if jobs else ""
    blocks = [render_comparison(c) for c in comparisons]
    n = len(comparisons)
    total = (
        f"{n} comparison{'s' if n != 1 else ''}, {n} Spark plans when the datasets match{writes}"
    )
    return "\n\n".join(blocks) + "\n\n" + total + "\n"
