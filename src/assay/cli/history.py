"""``assay history``: list or export the series of the metrics store (docs/monitoring.md)."""

from __future__ import annotations

import csv
import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from assay.cli import options as opt
from assay.cli.console import guarded
from assay.errors import ConfigError

Configs = Annotated[
    Optional[list[Path]],  # noqa: UP045
    typer.Argument(
        help="Config files whose metrics store (and, without --table, tables) to read.",
        show_default=False,
    ),
]
Tables = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--table", help="Only this table's series (repeatable).", show_default=False),
]
Rules = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--rule",
        help="Only this rule's series: its identity, the 'rule.id' of its result (repeatable).",
        show_default=False,
    ),
]
Measures = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--measure",
        help="Only this measure: metric_value, failed_count, row_count, a comparison count, or "
        "schema: each table's columns, one line per run (repeatable).",
        show_default=False,
    ),
]
Last = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--last", min=1, help="The newest N runs of each series.", show_default=False),
]
Format = Annotated[
    str, typer.Option("--format", metavar="jsonl|csv", help="Output format on stdout.")
]


def history_command(
    configs: Configs = None,
    *,
    var: opt.Var = None,
    vars_: opt.Vars = None,
    metrics: opt.Metrics = None,
    metrics_table: opt.MetricsTable = None,
    table: Tables = None,
    rule: Rules = None,
    measure: Measures = None,
    tag: opt.Tag = None,
    last: Last = None,
    format: Format = "jsonl",  # noqa: A002 - the option's name
    remote: opt.Remote = None,
    debug: opt.Debug = False,
) -> None:
    """Print the stored values of the metrics store, one series after another, each
    oldest first: JSON lines (or CSV) on stdout."""
    from assay.monitoring.series import Selection

    def action() -> None:
        if format not in ("jsonl", "csv"):
            raise ConfigError(f"--format must be jsonl or csv, not {format!r}")
        variables = opt.variables(var, vars_)
        store, tables, tags = _store(configs or [], variables, metrics, metrics_table)
        wanted_tags = {**tags, **opt.parse_assignments(tag or [], "--tag")}
        selection = Selection(
            tuple(table or tables), tuple(rule or ()), tuple(measure or ()),
            tuple(sorted(wanted_tags.items())), last,
        )  # fmt: skip
        _print(_rows(store, selection, remote), format)

    guarded(debug, action)


def _store(
    configs: list[Path], variables: dict[str, str], metrics: Path | None, metrics_table: str | None
):
    """The store to read (the options', else the configs'), the configs' tables and tags."""
    from assay.api.suites import load
    from assay.api.watching import monitoring_of
    from assay.options import RunOptions

    if not configs and metrics is None and metrics_table is None:
        raise ConfigError("give a config with 'metrics', or --metrics FILE / --metrics-table NAME")
    options = RunOptions(metrics=None if metrics is None else str(metrics),
                         metrics_table=metrics_table)  # fmt: skip
    if configs:
        suite = load(configs, vars=variables, for_run=False)
        found = monitoring_of(suite, options)
        tables = tuple(t.name for t in suite.tables)
    else:
        from assay.ir.suite import Suite

        found, tables = monitoring_of(Suite(()), options), ()
    if found is None:
        raise ConfigError("the configs name no metrics store: give --metrics or --metrics-table")
    return found.store, tables, dict(found.tags)


def _rows(store, selection, remote: str | None) -> list[dict[str, Any]]:
    """The rows asked for; the lines skipped as not store rows are said on stderr, as
    ``assay run`` says them."""
    from assay.executor.metrics import stored

    if store.kind == "file":
        found, skipped = stored(None, store, selection)
    else:
        from assay.executor.session import open_session, quiet_pyspark_logging

        quiet_pyspark_logging()
        with open_session(remote) as handle:
            found, skipped = stored(handle.spark, store, selection)
    if skipped:
        sys.stderr.write(f"assay: warning: {skipped.sentence(store)}\n")
    return found


def _print(rows: list[dict[str, Any]], format: str) -> None:  # noqa: A002
    from assay.monitoring.records import NAMES

    if format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(NAMES), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            tags = ";".join(f"{k}={v}" for k, v in sorted((row.get("tags") or {}).items()))
            writer.writerow({**row, "tags": tags, "state": _base64(row.get("state"))})
        return
    import orjson

    from assay.monitoring.schemas import SCHEMA_MEASURE, SCHEMA_RULE, parse

    for row in rows:
        line = {name: row.get(name) for name in NAMES}
        line["state"] = _base64(row.get("state"))  # a state row's bytes, as the file holds them
        if (row.get("rule"), row.get("measure")) == (SCHEMA_RULE, SCHEMA_MEASURE):
            # a table's schema: its columns as JSON objects, not a text holding them
            line["columns"] = [dataclasses.asdict(c) for c in parse(row["columns"]) or ()]
        sys.stdout.write(orjson.dumps(line).decode() + "\n")


def _base64(state: bytes | None) -> str | None:
    import base64

    return None if state is None else base64.b64encode(state).decode("ascii")
