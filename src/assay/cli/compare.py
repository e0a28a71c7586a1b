"""``assay compare SOURCE TARGET --keys id``: a one-off comparison from a shell.

SOURCE and TARGET are catalog tables (``db.orders``) or paths (``data/a.parquet``,
format from the extension or ``--source-format`` / ``--target-format``, reader options
from ``--source-option`` / ``--target-option``). One ``comparison`` line and one
``summary`` line on stdout; exit codes as ``assay run``. A mistake is placed at the option
it was given in (``<command line> --keys``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as opt
from assay.cli.console import RunStream, err, summarised
from assay.cli.options import parse_assignments
from assay.errors import ConfigError, ConfigErrors
from assay.ir.compare import CompareCheck, ComparisonSetting, DatasetComparison, NumericTolerance
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
        help="METRIC THRESHOLD in the metric DSL, repeatable: 'missing_in_target < 5',"
        " 'mismatch_percent(price) < 0.1%' (default: 'unmatched = 0' and"
        " 'columns_missing_in_target = 0')",
    ),
]
SourceFilter = Annotated[
    str | None,
    typer.Option("--source-filter", help="Spark SQL predicate: only these SOURCE rows"),
]
TargetFilter = Annotated[
    str | None,
    typer.Option("--target-filter", help="Spark SQL predicate: only these TARGET rows"),
]
SelectCols = Annotated[
    str | None,
    typer.Option("--select-cols", help="Keep only these columns of both sides: id,price"),
]
DropCols = Annotated[
    str | None, typer.Option("--drop-cols", help="Remove these columns of both sides: loaded_at")
]
SourceFormat = Annotated[
    str | None, typer.Option("--source-format", help="Spark format of a SOURCE path")
]
TargetFormat = Annotated[
    str | None, typer.Option("--target-format", help="Spark format of a TARGET path")
]
SourceOption = Annotated[
    list[str] | None,
    typer.Option(
        "--source-option",
        help="Spark reader option KEY=VALUE of a SOURCE path, repeatable: header=true",
    ),
]
TargetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--target-option",
        help="Spark reader option KEY=VALUE of a TARGET path, repeatable: header=true",
    ),
]

COMMAND_LINE = "<command line>"
"""The file name of the places on the command line (``<command line> --keys``), and the
config file a run of ``assay compare`` records in its summary (``files``)."""
COMMAND = "assay compare"
"""What the summary of ``assay compare`` records as its config's dialect."""


def side(
    text: str,
    fmt: str | None,
    what: str,
    options: list[str] | None = None,
    flags: tuple[str, str] | None = None,
) -> CatalogSource | PathSource:
    """A table name, or a path when it has a separator, an extension Spark reads, a
    URI scheme, a ``--*-format``, or exists; ``options`` (``--*-option KEY=VALUE``) are
    the path's reader options. ``flags``: the names of the format and reader option
    flags (default ``--<what>-format``, ``--<what>-option``)."""
    from assay.dialects.sources import FORMATS, extension

    format_flag, option_flag = flags or (f"--{what}-format", f"--{what}-option")
    looks_like_path = "/" in text or "://" in text or Path(text).exists()
    ext = extension(text)
    reader = tuple(parse_assignments(options or [], option_flag).items())
    if fmt is None and not looks_like_path and ext not in FORMATS:
        if reader:
            raise ConfigError(
                f"{option_flag}: {what} {text!r} is a table name, and reader options apply "
                "only to a path",
                hint="a path has a '/' (./orders.csv) or an extension Spark reads",
            )
        return CatalogSource(text)
    if fmt is None:
        fmt = FORMATS.get(ext)
        if fmt is None:
            raise ConfigError(
                f"{what} {text!r}: cannot tell the data format from its extension",
                hint=f"give {format_flag} parquet|csv|json|orc|delta...",
            )
    path = text if "://" in text else str(Path(text).resolve())
    return PathSource(fmt, (path,), reader)


def tolerances(tolerance: float, relative: float) -> NumericTolerance:
    """``--tolerance`` and ``--relative-tolerance``: each a finite number >= 0 (every
    wrong one named)."""
    wrong = [
        ConfigError(f"{option} must be a finite number >= 0, got {value}")
        for option, value in (("--tolerance", tolerance), ("--relative-tolerance", relative))
        if not math.isfinite(value) or value < 0
    ]
    if wrong:
        raise wrong[0] if len(wrong) == 1 else ConfigErrors(wrong)
    return NumericTolerance(Decimal(str(tolerance)), Decimal(str(relative)))


def command_line_places(
    source_format: str | None,
    target_format: str | None,
    columns: str | None,
    filters: tuple[str | None, str | None] = (None, None),
) -> tuple[tuple[ComparisonSetting, Origin], ...]:
    """Where the comparison's settings were given: ``--keys``, ``--columns``, each side's
    format (``--source-format``, else the SOURCE whose extension tells it) and filter."""
    found: list[tuple[ComparisonSetting, Origin]] = [("keys", Origin(COMMAND_LINE, "--keys"))]
    if columns is not None:
        found.append(("columns", Origin(COMMAND_LINE, "--columns")))
    for setting, given in zip(("source_filter", "target_filter"), filters, strict=True):
        if given is not None:
            option = "--" + setting.replace("_", "-")
            found.append((setting, Origin(COMMAND_LINE, option)))  # type: ignore[arg-type]
    found.append(
        ("source.format", Origin(COMMAND_LINE, "--source-format" if source_format else "SOURCE"))
    )
    found.append(
        ("target.format", Origin(COMMAND_LINE, "--target-format" if target_format else "TARGET"))
    )
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Narrowing:
    """What narrows both sides before comparing: rows (each side's filter) and columns
    (``--select-cols``, ``--drop-cols``, ``--columns``)."""

    columns: str | None = None
    select_cols: str | None = None
    drop_cols: str | None = None
    source_filter: str | None = None
    target_filter: str | None = None


def column_names(text: str | None, option: str) -> tuple[str, ...] | None:
    """A comma-separated list of columns (``None`` when the option is not given)."""
    if text is None:
        return None
    names = tuple(c.strip() for c in text.split(",") if c.strip())
    if not names:
        raise ConfigError(f"{option} needs at least one column")
    return names


def _predicate(text: str | None, option: str) -> str | None:
    if text is not None and not text.strip():
        raise ConfigError(f"{option} needs a Spark SQL predicate, got an empty one")
    return text


def comparison_of(
    source: CatalogSource | PathSource,
    target: CatalogSource | PathSource,
    keys: str,
    narrowing: Narrowing,
    tolerance: float,
    relative: float,
    ignore_case: bool,
    ignore_whitespace: bool,
    checks: list[str],
    sample_size: int | None,
    places: tuple[tuple[ComparisonSetting, Origin], ...] = (),
) -> DatasetComparison:
    """The comparison the command line describes (``places``: where its settings were
    given, :func:`command_line_places`)."""
    key_list = column_names(keys, "--keys") or ()
    n = narrowing
    return DatasetComparison(
        name="compare",
        source=source,
        target=target,
        keys=key_list,
        origin=Origin(COMMAND_LINE, "compare"),
        columns=column_names(n.columns, "--columns"),
        select_cols=column_names(n.select_cols, "--select-cols"),
        drop_cols=column_names(n.drop_cols, "--drop-cols") or (),
        source_filter=_predicate(n.source_filter, "--source-filter"),
        target_filter=_predicate(n.target_filter, "--target-filter"),
        tolerance=tolerances(tolerance, relative),
        ignore_case=ignore_case,
        ignore_whitespace=ignore_whitespace,
        checks=compare_checks_of(checks),
        sample_size=5 if sample_size is None else sample_size,
        places=places,
    )


_CHECK = re.compile(r"\s*([A-Za-z_]+\s*(?:\([^()]*\))?)\s*(.*)", re.DOTALL)


def check_option(item: str) -> tuple[str, str]:
    """One ``--check``: the metric and its threshold, in the metric DSL of a config
    (``missing_in_target < 5``, ``mismatch_percent(price) < 0.1%``). The older
    ``METRIC=THRESHOLD`` (``missing_in_target=< 5``, ``unmatched== 0``) still reads: a
    ``=`` right after the metric that leaves a valid threshold is that separator.

    >>> check_option("missing_in_target < 5"), check_option("unmatched=<= 1")
    (('missing_in_target', '< 5'), ('unmatched', '<= 1'))
    """
    from assay.grammar import parse_threshold

    found = _CHECK.fullmatch(item)
    if found is None or not found.group(2).strip():
        raise ConfigError(
            f"--check {item!r} must look like METRIC THRESHOLD",
            hint="e.g. --check 'missing_in_target < 5' or --check 'mismatch_percent(price) < 0.1%'",
        )
    label, rest = found.group(1).strip(), found.group(2).strip()
    if not rest.startswith("="):
        return label, rest
    try:
        parse_threshold(rest, Origin(COMMAND_LINE, "--check"))
    except ConfigError:
        return label, rest[1:].strip()  # METRIC=THRESHOLD (its error, if any, is that one's)
    return label, rest


def compare_checks_of(items: list[str]) -> tuple[CompareCheck, ...]:
    """The ``--check METRIC THRESHOLD`` items, each placed at its option
    (``<command line> --check mismatch_percent(price)``)."""
    from assay.config.node import Node
    from assay.dialects.compare import compare_checks

    if not items:
        return ()
    mapping = dict(check_option(item) for item in items)
    node = Node(
        {k: Node(v, Origin(COMMAND_LINE, f"--check {k}")) for k, v in mapping.items()},
        Origin(COMMAND_LINE, "--check"),
    )
    return compare_checks(node)


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
    source_filter: SourceFilter = None,
    target_filter: TargetFilter = None,
    select_cols: SelectCols = None,
    drop_cols: DropCols = None,
    source_format: SourceFormat = None,
    target_format: TargetFormat = None,
    source_option: SourceOption = None,
    target_option: TargetOption = None,
    sample_size: opt.SampleSize = None,
    remote: opt.Remote = None,
    conf: opt.ServerConf = None,
    debug: opt.Debug = False,
) -> None:
    """Compare TARGET with SOURCE by key: one JSON line with every count, then a summary."""

    def action(stream: RunStream) -> int:
        comparison = comparison_of(
            side(source, source_format, "source", source_option),
            side(target, target_format, "target", target_option),
            keys,
            Narrowing(columns, select_cols, drop_cols, source_filter, target_filter),
            tolerance,
            relative_tolerance,
            ignore_case,
            ignore_whitespace,
            check or [],
            sample_size,
            command_line_places(
                source_format, target_format, columns, (source_filter, target_filter)
            ),
        )
        suite = Suite(tables=(), comparisons=(comparison,), files=(COMMAND_LINE,),
                      dialects=(COMMAND,))  # fmt: skip
        return _run(suite, remote, conf or [], stream)

    raise typer.Exit(summarised(debug, action))


def _run(suite: Suite, remote: str | None, conf: list[str], stream: RunStream) -> int:
    from assay.executor.run import run_suite
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    server_conf = parse_assignments(conf, "--conf")
    with open_session(remote, server_conf=server_conf, inputs=suite.sources()) as handle:
        summary = run_suite(
            suite,
            handle.spark,
            stream,
            server=f"the Spark Connect server at {handle.url}",
            server_url=handle.url,
        )
    if summary.exit_code != 0:
        err(f"assay: {summary.exit_reason}")
    return summary.exit_code


def explain_comparisons(suite: Suite, format: str) -> None:
    """``assay explain``'s part for the suite's comparisons (text, or one ``plan`` line
    per comparison with ``--format json``)."""
    import sys

    from assay.api.explaining import PLAN_SCHEMA_VERSION
    from assay.cli.console import out as _out
    from assay.comparison.render import render_comparison, render_comparisons
    from assay.planner.plan_json import comparison_json

    if not suite.comparisons:
        return
    if format == "json":
        for c in suite.comparisons:
            _out(
                {
                    "event": "plan",
                    "schema_version": PLAN_SCHEMA_VERSION,
                    "comparison": c.name,
                    "spark_plans": 1,
                    "detail_plan": True,
                    "plan": comparison_json(c),
                    "text": render_comparison(c),
                }
            )
    else:
        sys.stdout.write("\n" + render_comparisons(suite.comparisons))
