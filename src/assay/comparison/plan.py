"""Planning a dataset comparison (pure): which columns are compared and how, and the names of
the one aggregate's outputs (docs/compare.md). The metrics read back from them and the
verdicts of the checks are ``judge``'s, the numeric tolerances ``tolerance``'s,
the text ``assay explain`` prints ``render``'s."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from assay.comparison.tolerance import ToleranceBound, tolerance_bound
from assay.ir.compare import ComparisonSetting, DatasetComparison, NumericTolerance, Side
from assay.ir.suite import PathSource

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
    "duplicate_rows_source",
    "duplicate_rows_target",
)
"""The aggregate's whole-comparison outputs (named, never by position)."""


@dataclass(frozen=True, slots=True)
class TypeDifference:
    """A column both sides have, of two different Spark types."""

    column: str
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class SchemaDiff:
    """The two sides' non-key columns (after ``select_cols`` / ``drop_cols``) set side by
    side: those of one side only, and those whose types differ. ``counted`` is whether a
    column of one side only counts in ``columns_missing_in_*`` (not when the comparison
    names its ``columns``: those not named are excluded, as dropped ones are)."""

    source_only: tuple[str, ...] = ()
    target_only: tuple[str, ...] = ()
    type_differences: tuple[TypeDifference, ...] = ()
    counted: bool = True

    def missing_in(self, side: Literal["source", "target"]) -> int:
        """Columns the other side has and ``side`` has not, as the metric counts them."""
        if not self.counted:
            return 0
        return len(self.target_only if side == "source" else self.source_only)

    def to_dict(self) -> dict[str, object]:
        return {
            "source_only": list(self.source_only),
            "target_only": list(self.target_only),
            "type_differences": [
                {"column": d.column, "source": d.source, "target": d.target}
                for d in self.type_differences
            ],
        }


def schema_diff(
    comparison: DatasetComparison,
    source_schema: Sequence[tuple[str, str]],
    target_schema: Sequence[tuple[str, str]],
    keys: Sequence[str],
) -> SchemaDiff:
    """The columns of one side only and the type differences (names matched
    case-insensitively, keys included in the type differences)."""
    key_set = {k.lower() for k in keys}
    src = {name.lower(): (name, t) for name, t in source_schema}
    tgt = {name.lower(): (name, t) for name, t in target_schema}
    return SchemaDiff(
        tuple(n for n, _ in source_schema if n.lower() not in tgt and n.lower() not in key_set),
        tuple(n for n, _ in target_schema if n.lower() not in src and n.lower() not in key_set),
        tuple(
            TypeDifference(name, t, tgt[name.lower()][1])
            for name, t in source_schema
            if name.lower() in tgt and tgt[name.lower()][1] != t
        ),
        counted=comparison.columns is None,
    )


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
    compared_as: str | None = None
    """The type both sides are cast to before they are compared and paired, when one is
    a string and the other is not (:func:`compared_type`); ``None``: each as read."""

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
    schema: SchemaDiff = SchemaDiff()
    """The columns of one side only and the type differences (the event's ``schema``)."""
    key_casts: tuple[str | None, ...] = ()
    """Per key, the type both sides' values are cast to before they are numbered and
    joined, when one side is a string and the other is not (:func:`compared_type`: the
    keys are matched as Spark compares them); ``None``: as read."""

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


_FROM_STRING = {
    "tinyint": "bigint",
    "smallint": "bigint",
    "int": "bigint",
    "bigint": "bigint",
    "float": "double",
    "double": "double",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "boolean": "boolean",
    "binary": "binary",
}
"""Where Spark's comparison of a string with a value of another type casts both: the
string to the other side's type, integers as ``bigint``, decimals and floats as
``double`` (its implicit coercion of ``s <=> t``, read from its analysed plans)."""


def compared_type(source_type: str, target_type: str) -> str | None:
    """The type Spark compares a string and a value of another type in (``None`` when
    the sides are not one string and one other simple type: each is compared and
    ordered as read, the orders agreeing).

    >>> compared_type("int", "string"), compared_type("string", "decimal(38,18)")
    ('bigint', 'double')
    >>> compared_type("date", "string"), compared_type("int", "double")
    ('date', None)
    """
    strings = [kind_of(t) == "string" for t in (source_type, target_type)]
    if strings[0] == strings[1]:
        return None
    other = target_type if strings[0] else source_type
    return "double" if other.startswith("decimal(") else _FROM_STRING.get(other)


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
    wanted, missing = _compared(comparison, source_schema, sides, {k.lower() for k in keys})
    problems += missing
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
    pairs = [(src[k.lower()][1], tgt[k.lower()][1]) for k in keys]
    native = comparison.semantics == "native"
    key_casts = tuple(compared_type(s, t) if native and s != t else None for s, t in pairs)
    key_types = tuple(s if s == t else cast for (s, t), cast in zip(pairs, key_casts, strict=True))
    return ComparePlan(
        comparison,
        keys,
        columns,
        tuple(name for name, _ in source_schema),
        tuple(name for name, _ in target_schema),
        checksum,
        key_types,
        schema_diff(comparison, source_schema, target_schema, keys),
        key_casts,
    )


def _compared(
    comparison: DatasetComparison,
    source_schema: Sequence[tuple[str, str]],
    sides: Sequence[tuple[str, Mapping[str, tuple[str, str]]]],
    key_set: set[str],
) -> tuple[list[str], list[tuple[ComparisonSetting | None, str, str]]]:
    """The non-key columns compared (as ``comparison`` or the source names them), and the
    problems (setting, side, sentence) of those not on a side where they must be."""
    tgt = dict(sides)["target"]
    problems: list[tuple[ComparisonSetting | None, str, str]] = []
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
    return wanted, problems


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
        compared_as=compared_type(s_type, t_type) if comparison.semantics == "native" else None,
    )
