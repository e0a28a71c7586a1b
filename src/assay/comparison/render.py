"""The text ``assay explain`` prints for dataset comparisons (pure, no schema needed)."""

from __future__ import annotations

from collections.abc import Sequence

from assay.comparison.judge import default_checks
from assay.comparison.plan import DIFFERING_KEYS_LIMIT
from assay.ir.compare import DatasetComparison, FrameRef, Side
from assay.ir.suite import CatalogSource, PathSource, SqlSource


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
    lines += _pairing(c)
    lines += _settings(c)
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


def _pairing(c: DatasetComparison) -> list[str]:
    """How the rows of the two sides are paired and counted: the windows, the join, the
    one aggregate (and spark-data-test's row checksum)."""
    null_safe = "<=>" if c.semantics == "native" else "="
    on = " AND ".join(f"s.{k} {null_safe} t.{k}" for k in c.keys)
    if c.columns is not None:
        cols = ", ".join(c.columns)
    elif c.semantics == "spark-data-test":
        cols = "every non-key column of the source"
    else:
        cols = "every non-key column both sides have"
    keys = ", ".join(c.keys)
    if c.semantics == "spark-data-test":
        window = f"row_number() over (partition by {keys})"
        join = f"full outer join on {on}: every source row with every target row of its key"
    else:
        window = f"row_number() over (partition by {keys} order by the compared values)"
        join = (
            f"full outer join on {on} AND s.row_number - t.row_number = 0: the i-th rows of"
            " a key pair, the others are missing on the other side (a key of one simple type"
            " on both sides as coalesce(k, d), isnull(k): the join reuses each side's window"
            " shuffle)"
        )
    lines = [
        f"  each side: {window}",
        f"  {join}",
        f"  one aggregate: rows per side, duplicate keys and rows per side, matched, missing"
        f" per side; per column ({cols}): count_if(mismatch), count_if(null vs value),"
        " max |s - t|",
    ]
    if c.semantics == "spark-data-test":
        lines.append(
            "  row checksum: concat_ws('', non-key columns) per side, compared after the join;"
            " matched keys: count_if(matched) of keys with one row per side +"
            " count(DISTINCT keys) of the duplicated keys' matched rows"
        )
    return lines


def _settings(c: DatasetComparison) -> list[str]:
    """What decides a match and the verdict: tolerances, string options, the checks."""
    lines = []
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
    checks = c.checks or default_checks(c)
    lines.append("  checks:")
    for check in checks:
        warn = f"; warn: {check.warn.text}" if check.warn is not None else ""
        lines.append(f"    {check.label}: {check.must.text}{warn}")
    return lines


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
