"""``assay profile SOURCE`` and ``assay suggest SOURCE`` (docs/profile.md).

SOURCE is a catalog table (``db.orders``) or a path (format from the extension or
``--format``, reader options from ``--option``); ``--sql QUERY`` profiles a query instead.
``profile`` prints a ``profile_column`` line per column and a ``profile_table`` line
(``--html PATH`` also writes the page, ``--explain`` prints the plans without scanning);
``suggest`` prints a starter native config. Exit 0, 2 for a wrong command line or an
unreadable source (at its option), 3 when Spark fails.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from assay.cli import options as opt
from assay.cli.compare import COMMAND_LINE, column_names, side
from assay.cli.console import err, guarded
from assay.cli.console import out as _out
from assay.cli.options import parse_assignments
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.sources import CatalogSource, PathSource, Source, SqlSource

Source_ = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Argument(help="A table name (db.orders) or a path (data/orders.parquet).",
                   show_default=False),
]  # fmt: skip
Sql = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--sql", help="Profile this Spark SQL query instead of SOURCE.",
                 show_default=False),
]  # fmt: skip
ReaderFormat = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--format", help="Spark format of a SOURCE path (parquet, csv, json, ...).",
                 show_default=False),
]  # fmt: skip
ReaderOption = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--option", help="Reader option KEY=VALUE of a SOURCE path, repeatable: "
                 "header=true", show_default=False),
]  # fmt: skip
Columns = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--columns", help="Only these columns, comma-separated: id,price",
                 show_default=False),
]  # fmt: skip
Sample = Annotated[
    Optional[float],  # noqa: UP045
    typer.Option("--sample", help="Profile this fraction of the rows (0.1): every number "
                 "says it is of a sample.", show_default=False),
]  # fmt: skip
ExactDistinct = Annotated[
    bool, typer.Option("--exact-distinct", help="Also count distinct values exactly (a "
                       "group-by per column, in the same plan).")
]  # fmt: skip
Html = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--html", help="Also write the profile as an HTML page here.",
                 show_default=False),
]  # fmt: skip
Explain = Annotated[
    bool, typer.Option("--explain", help="Print the plans and why, without scanning.")
]
Name = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--name", help="The table's name in the config (default: the file's stem, "
                 "the table's name, or query).", show_default=False),
]  # fmt: skip
Keys = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--keys", help="The table's key columns, comma-separated: order_id (default: "
                 "the first key the profile confirms).", show_default=False),
]  # fmt: skip

FLAGS = ("--format", "--option")


@dataclass(frozen=True)
class Target:
    """What the command line profiles: its name, source, and where SOURCE was given."""

    name: str
    source: Source
    origin: Origin
    given: str | None = None
    """SOURCE as typed (a relative path stays relative in a suggested config)."""


def target(source: str | None, sql: str | None, fmt: str | None,
           options: list[str] | None) -> Target:  # fmt: skip
    """SOURCE or ``--sql``, exactly one of them."""
    if (source is None) == (sql is None):
        raise ConfigError("give SOURCE (a table or a path) or --sql QUERY, exactly one of them")
    if sql is not None:
        if fmt is not None or options:
            raise ConfigError("--format and --option apply to a SOURCE path, not to --sql")
        return Target("query", SqlSource(sql), Origin(COMMAND_LINE, "--sql"))
    assert source is not None
    found = side(source, fmt, "SOURCE", options, FLAGS)
    name = found.table if isinstance(found, CatalogSource) else Path(found.paths[0]).stem
    return Target(name, found, Origin(COMMAND_LINE, "SOURCE"), source)


def source_mapping(source: Source, given: str | None = None) -> dict[str, Any]:
    """The source as a native config's ``source`` mapping; a path as ``given`` when it
    was typed (relative stays relative), else as read."""
    if isinstance(source, CatalogSource):
        return {"table": source.table}
    if isinstance(source, SqlSource):
        return {"sql": source.query}
    assert isinstance(source, PathSource)
    found: dict[str, Any] = {"path": given or source.paths[0], "format": source.format}
    if source.options:
        found["options"] = dict(source.options)
    return found


def profile_options(columns: str | None, sample: float | None, exact: bool) -> Any:
    """The profile's options from the command line."""
    from assay.api.profiling import checked_sample
    from assay.profiling.plan import ProfileOptions

    fraction = None if sample is None else checked_sample(sample, "--sample")
    return ProfileOptions(
        columns=column_names(columns, "--columns"), sample=fraction, exact_distinct=exact
    )


def _profiled(found: Target, options: Any, remote: str | None, conf: list[str],
              explain: bool = False) -> Any:  # fmt: skip
    """Profile (or explain) on a session of ``remote`` (or an embedded server)."""
    from assay.executor import profile as run
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    server_conf = parse_assignments(conf, "--conf")
    with open_session(remote, server_conf=server_conf, inputs=[found.source]) as handle:
        profiled = run.read(handle.spark, found.name, found.source, found.origin)
        if explain:
            return run.explain(handle.spark, profiled, options)
        return run.profile(handle.spark, profiled, options, note=lambda m: err(f"assay: {m}"))


def profile_command(
    source: Source_ = None,
    *,
    sql: Sql = None,
    format: ReaderFormat = None,  # noqa: A002 - the option's name
    option: ReaderOption = None,
    columns: Columns = None,
    sample: Sample = None,
    exact_distinct: ExactDistinct = False,
    html: Html = None,
    explain: Explain = False,
    remote: opt.Remote = None,
    conf: opt.ServerConf = None,
    debug: opt.Debug = False,
) -> None:
    """Profile a table: one JSON line per column, then one for the table."""

    def action() -> None:
        found = target(source, sql, format, option)
        options = profile_options(columns, sample, exact_distinct)
        if explain:
            sys.stdout.write(_profiled(found, options, remote, conf or [], explain=True))
            return
        outcome = _profiled(found, options, remote, conf or [])
        for event in outcome.events:
            _out(event)
        if html is not None:
            from assay.report.files import atomic_write
            from assay.report.render import render_profile_html

            html.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(str(html), render_profile_html(outcome.events).encode())

    guarded(debug, action)


def suggest_command(
    source: Source_ = None,
    *,
    sql: Sql = None,
    format: ReaderFormat = None,  # noqa: A002 - the option's name
    option: ReaderOption = None,
    columns: Columns = None,
    sample: Sample = None,
    name: Name = None,
    keys: Keys = None,
    remote: opt.Remote = None,
    conf: opt.ServerConf = None,
    debug: opt.Debug = False,
) -> None:
    """Suggest a starter native config from a profile of the table (YAML on stdout)."""
    from assay.profiling.suggest import suggest_yaml, suggestion_warnings

    def action() -> None:
        found = target(source, sql, format, option)
        key_columns = column_names(keys, "--keys")
        if name is not None and not name.strip():
            raise ConfigError("--name must not be empty")
        outcome = _profiled(found, profile_options(columns, sample, False), remote, conf or [])
        try:
            warnings = suggestion_warnings(outcome.events, key_columns, keys or "")
        except ValueError as e:
            raise ConfigError(str(e)) from None
        text = suggest_yaml(
            outcome.events, source_mapping(found.source, found.given), name=name, keys=key_columns
        )
        for warning in warnings:
            err(f"assay: warning: {warning}")
        sys.stdout.write(text)

    guarded(debug, action)
