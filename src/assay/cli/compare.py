"""``assay compare SOURCE TARGET --keys id``: a one-off comparison from a shell.

SOURCE and TARGET are catalog tables (``db.orders``) or paths (``data/a.parquet``,
format from the extension or ``--source-format`` / ``--target-format``). One
``comparison`` line and one ``summary`` line on stdout; exit codes as ``assay run``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as opt
from assay.cli.console import err, guarded
from assay.cli.options import parse_assignments
from assay.errors import ConfigError
from assay.ir.compare import CompareCheck, DatasetComparison, NumericTolerance
from assay.ir.origin import Origin
from assay.ir.suite import CatalogSource, PathSource, Suite

Keys = Annotated[str, typer.Option("--keys", help="Key columns, comma-separated: id,day")]
Columns = Annotated[
    str | None, typer.Option("--columns", help="Non-key columns to compare (default: all common)")
]
Tolerance = Annotated[
    float, typer.Option("--tolerance", help="Absolute numeric tolerance: |s - t| <= this")
]
Relative = Annotated[
    float, typer.Option("--relative-tolerance", help="Relative tolerance, times |target|")
]
IgnoreCase = Annotated[bool, typer.Option("--ignore-case", help="Compare strings ignoring case")]
IgnoreSpace = Annotated[
    bool, typer.Option("--ignore-whitespace", help="Trim strings before comparing")
]
Check = Annotated[
    list[str] | None,
    typer.Option(
        "--check",
        help="METRIC=THRESHOLD, repeatable: 'missing_in_target== 0',"
        " 'mismatch_percent(price)=< 0.1%' (default: 'unmatched== 0')",
    ),
]
SourceFormat = Annotated[
    str | None, typer.Option("--source-format", help="Spark format of a SOURCE path")
]
TargetFormat = Annotated[
    str | None, typer.Option("--target-format", help="Spark format of a TARGET path")
]


def side(text: str, fmt: str | None, what: str) -> CatalogSource | PathSource:
    """A table name, or a path when it has a separator, an extension Spark reads, a
    URI scheme, a ``--*-format``, or exists."""
    from assay.dialects.sources import FORMATS, extension

    looks_like_path = "/" in text or "://" in text or Path(text).exists()
    ext = extension(text)
    if fmt is None and not looks_like_path and ext not in FORMATS:
        return CatalogSource(text)
    if fmt is None:
        fmt = FORMATS.get(ext)
        if fmt is None:
            raise ConfigError(
                f"{what} {text!r}: cannot tell the data format from its extension",
                hint=f"give --{what}-format parquet|csv|json|orc|delta...",
            )
    path = text if "://" in text else str(Path(text).resolve())
    return PathSource(fmt, (path,))


def comparison_of(
    source: CatalogSource | PathSource,
    target: CatalogSource | PathSource,
    keys: str,
    columns: str | None,
    tolerance: float,
    relative: float,
    ignore_case: bool,
    ignore_whitespace: bool,
    checks: list[str],
    sample_size: int | None,
) -> DatasetComparison:
    """The comparison the command line describes."""
    from assay.config.node import Node
    from assay.dialects.compare import compare_checks

    origin = Origin("<command line>", "compare")
    key_list = tuple(k.strip() for k in keys.split(",") if k.strip())
    if not key_list:
        raise ConfigError("--keys needs at least one column")
    found: tuple[CompareCheck, ...] = ()
    if checks:
        mapping = parse_assignments(checks, "--check")
        node = Node(
            {k: Node(v, origin.child(k)) for k, v in mapping.items()}, origin.child("checks")
        )
        found = compare_checks(node)
    try:
        tol = NumericTolerance(Decimal(str(tolerance)), Decimal(str(relative)))
    except InvalidOperation:
        raise ConfigError("--tolerance must be a number") from None
    return DatasetComparison(
        name="compare",
        source=source,
        target=target,
        keys=key_list,
        origin=origin,
        columns=tuple(c.strip() for c in columns.split(",") if c.strip()) if columns else None,
        tolerance=tol,
        ignore_case=ignore_case,
        ignore_whitespace=ignore_whitespace,
        checks=found,
        sample_size=5 if sample_size is None else sample_size,
    )


def compare(
    source: Annotated[str, typer.Argument(help="Source: a table name or a path")],
    target: Annotated[str, typer.Argument(help="Target: a table name or a path")],
    *,
    keys: Keys,
    columns: Columns = None,
    tolerance: Tolerance = 0.0,
    relative_tolerance: Relative = 0.0,
    ignore_case: IgnoreCase = False,
    ignore_whitespace: IgnoreSpace = False,
    check: Check = None,
    source_format: SourceFormat = None,
    target_format: TargetFormat = None,
    sample_size: opt.SampleSize = None,
    remote: opt.Remote = None,
    conf: opt.ServerConf = None,
    debug: opt.Debug = False,
) -> None:
    """Compare TARGET with SOURCE by key: one JSON line with every count, then a summary."""

    def action() -> int:
        comparison = comparison_of(
            side(source, source_format, "source"),
            side(target, target_format, "target"),
            keys,
            columns,
            tolerance,
            relative_tolerance,
            ignore_case,
            ignore_whitespace,
            check or [],
            sample_size,
        )
        return _run(Suite(tables=(), comparisons=(comparison,)), remote, conf or [], debug)

    raise typer.Exit(guarded(debug, action))


def _run(suite: Suite, remote: str | None, conf: list[str], debug: bool) -> int:
    from assay.executor.run import run_suite
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.report.jsonl import JsonLinesSink

    quiet_pyspark_logging()
    sink = JsonLinesSink()

    def tee(event) -> None:
        sink(event)
        error = getattr(event, "error", None)
        if error is not None and hasattr(event, "comparison"):
            err(f"error: comparison {event.comparison}: {error}")
            if debug and event.detail:
                err(event.detail)

    server_conf = parse_assignments(conf, "--conf")
    with open_session(remote, server_conf=server_conf) as handle:
        summary = run_suite(
            suite, handle.spark, tee, server=f"the Spark Connect server at {handle.url}"
        )
    if summary.exit_code != 0:
        err(f"assay: {summary.exit_reason}")
    return summary.exit_code


def explain_comparisons(suite: Suite, format: str) -> None:
    """``assay explain``'s part for the suite's comparisons (text, or one ``plan`` line
    per comparison with ``--format json``)."""
    import sys

    from assay.cli.console import out as _out
    from assay.planner.compare import render_comparison, render_comparisons

    if not suite.comparisons:
        return
    if format == "json":
        for c in suite.comparisons:
            _out(
                {
                    "event": "plan",
                    "comparison": c.name,
                    "spark_plans": 1,
                    "detail_plan": True,
                    "plan": render_comparison(c),
                }
            )
    else:
        sys.stdout.write("\n" + render_comparisons(suite.comparisons))
