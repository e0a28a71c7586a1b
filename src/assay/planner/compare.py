"""Planning a dataset comparison (pure): which columns are compared and how, the names of
the one aggregate's outputs, the metrics read back from them, the verdicts of the checks,
and the text ``assay explain`` prints (docs/compare.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from assay.ir.compare import (
    DEFAULT_CHECK_METRIC,
    CompareCheck,
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


class UnboundComparison(ValueError):
    """A comparison whose keys or columns are not on both sides (the executor reports it as
    a config error at the comparison's origin)."""


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
    problems = [
        f"key '{k}' is not a column of the {side}"
        for k in comparison.keys
        for side, cols in (("source", src), ("target", tgt))
        if k.lower() not in cols
    ]
    keys = tuple(src[k.lower()][0] if k.lower() in src else k for k in comparison.keys)
    key_set = {k.lower() for k in keys}
    if comparison.columns is not None:
        wanted = [c for c in comparison.columns if c.lower() not in key_set]
        problems += [
            f"column '{c}' is not a column of the {side}"
            for c in wanted
            for side, cols in (("source", src), ("target", tgt))
            if c.lower() not in cols
        ]
    elif comparison.semantics == "spark-data-test":
        # Its non-key columns are the source's, compared with the target's same names.
        wanted = [name for name, _ in source_schema if name.lower() not in key_set]
        problems += [
            f"column '{c}' of the source is not a column of the target"
            for c in wanted
            if c.lower() not in tgt
        ]
    else:
        wanted = [name for name, _ in source_schema if name.lower() not in key_set]
        wanted = [c for c in wanted if c.lower() in tgt]
    if problems:
        raise UnboundComparison(f"comparison {comparison.name}: " + "; ".join(problems))
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
    return ColumnPlan(
        index,
        name,
        kind,
        s_type,
        t_type,
        comparison.tolerance_of(name),
        sdt_numeric=t_type in _SDT_NUMERIC,
    )


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
