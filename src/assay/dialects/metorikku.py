"""Metorikku metric files (``steps`` with ``dq`` blocks) -> temp views and IR tables
(docs/dialects.md, "Metorikku").

Every step becomes a temp view named by its ``dataFrameName`` (created in order before any
table is read, so a step's SQL sees the inputs and the steps before it); every step with
a ``dq`` block becomes a table reading that view, whose rules are the native rules the
deequ operators map to (``metorikku_checks``). Inputs are bound with ``--input
NAME=SOURCE`` or by a job file (a subset of Metorikku's job config: ``metrics`` and
``inputs``).
"""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path

from assay.config.document import read_document
from assay.config.node import Node
from assay.dialects import sources
from assay.dialects.base import Context, Dialect
from assay.dialects.metorikku_checks import dq_check
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.outputs import FailedRows, Sink, View
from assay.ir.rules import (
    Rule,
)
from assay.ir.suite import CatalogSource, PathSource, Source, SqlSource, Table

NAME = "metorikku"
FAILED_DF_ENV = "CONFIG_FAILED_DF_PATH_PREFIX"
METRIC_KEYS = frozenset({"steps", "output"})
STEP_KEYS = frozenset(
    {"dataFrameName", "sql", "file", "classpath", "params", "dq", "checkpoint", "ignoreOnFailures"}
)
DQ_KEYS = frozenset({"level", "cacheDf", "checks"})
JOB_KEYS = frozenset({"metrics", "inputs"})
JOB_IGNORED = frozenset(
    {
        "appName", "logLevel", "showPreviewLines", "explain", "cacheOnPreview", "showQuery",
        "output", "outputs", "continueOnFailedStep", "instrumentation",
    }
)  # fmt: skip
INPUT_KEYS = frozenset({"file", "table"})
FILE_INPUT_KEYS = frozenset({"path", "format", "options"})


def matches(doc: Node) -> bool:
    """A metric file (``steps`` whose entries have ``dataFrameName``) or a job file
    (``metrics``: a list of metric files)."""
    if not isinstance(doc.value, dict):
        return False
    steps = doc.value.get("steps")
    if steps is not None and isinstance(steps.value, list):
        return any(isinstance(s.value, dict) and "dataFrameName" in s.value for s in steps.value)
    metrics = doc.value.get("metrics")
    return metrics is not None and isinstance(metrics.value, list)


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The tables of a metric or job file; views go to ``ctx.views``, errors to
    ``ctx.errors``."""
    doc.as_mapping("a Metorikku metric file (a mapping with 'steps')")
    before = len(ctx.errors)
    if "steps" in doc.as_mapping() or "metrics" not in doc.as_mapping():
        metric_files = [(doc, ctx.base_dir)]
        _cli_inputs(ctx)
    else:
        metric_files = _job(doc, ctx)
    tables: list[Table] = []
    for metric, base in metric_files:
        tables += _metric(metric, base, ctx, len(tables))
    if not tables and len(ctx.errors) == before:
        ctx.errors.append(
            doc.error(
                "no step has a 'dq' block: there is nothing to check",
                hint="add 'dq: {checks: [...]}' to the steps to validate",
            )
        )
    return tuple(tables)


# --- inputs -------------------------------------------------------------------------------


def _cli_inputs(ctx: Context) -> None:
    for name, text in ctx.options.inputs.items():
        origin = Origin("<command line>", f"--input {name}")
        source = ctx.attempt(_cli_source, name, text, origin)
        if source is not None:
            ctx.views.append(View(name, source, origin))


def _cli_source(name: str, text: str, origin: Origin) -> Source:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ConfigError(f"--input {name}: the name must be a SQL identifier", origin=origin)
    try:
        kind, fmt, target = sources.source_of(text, f"--input {name}")
    except ConfigError as e:
        raise ConfigError(e.message, origin=origin, hint=e.hint) from None
    return CatalogSource(target) if kind == "table" else PathSource(fmt or "", (target,))


def _job(doc: Node, ctx: Context) -> list[tuple[Node, Path]]:
    """A job file: its ``inputs`` as views (then ``--input``), its ``metrics`` files."""
    mapping = doc.as_mapping()
    ctx.attempt(doc.check_keys, JOB_KEYS | JOB_IGNORED)
    inputs = doc.get("inputs")
    if inputs is not None:
        for name, node in (
            ctx.attempt(inputs.as_mapping, "a mapping of input name to input") or {}
        ).items():
            source = ctx.attempt(_job_input, name, node, ctx)
            if source is not None:
                ctx.views.append(View(name, source, node.origin))
    _cli_inputs(ctx)
    found: list[tuple[Node, Path]] = []
    for item in (
        ctx.attempt(partial(mapping["metrics"].as_list, non_empty=True), "a list of metric files")
        or []
    ):
        path = ctx.attempt(item.as_str, "a metric file path")
        if path is None:
            continue
        full = path if os.path.isabs(path) else str(ctx.base_dir / path)
        metric = ctx.attempt(_read_metric, full, item)
        if metric is not None:
            found.append((metric, Path(full).resolve().parent))
    return found


def _read_metric(path: str, item: Node) -> Node:
    if not os.path.isfile(path):
        raise item.error(f"metric file '{path}' does not exist")
    metric = read_document(path)
    if not isinstance(metric.value, dict) or "steps" not in metric.value:
        raise metric.error("expected a Metorikku metric file (a mapping with 'steps')")
    return metric


def _job_input(name: str, node: Node, ctx: Context) -> Source:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise node.error(f"input name '{name}' must be a SQL identifier")
    node.as_mapping("an input (a mapping with 'file' or 'table')")
    node.check_keys(INPUT_KEYS)
    kinds = [k for k in INPUT_KEYS if node.get(k) is not None]
    if len(kinds) != 1:
        raise node.error("an input needs exactly one of 'file' or 'table'")
    if kinds[0] == "table":
        return CatalogSource(node.require("table").as_str("a catalog table name"))
    file = node.require("file")
    file.as_mapping("a file input (a mapping with 'path')")
    file.check_keys(FILE_INPUT_KEYS)
    path_node = file.require("path")
    written = [p.strip() for p in path_node.as_str("a path").split(",") if p.strip()]
    paths = tuple(sources.resolve(p, ctx.base_dir) for p in written)
    fmt_node = file.get("format")
    if fmt_node is not None:
        fmt = fmt_node.as_str("a Spark data source format").strip().lower()
    else:
        formats = {sources.FORMATS.get(sources.extension(p)) for p in written}
        if len(formats) != 1 or None in formats:
            raise path_node.error(
                "cannot tell the data format from the file extension", hint="add 'format:'"
            )
        fmt = formats.pop()  # type: ignore[assignment]
    return PathSource(fmt, paths, sources.reader_options(file.get("options")))


# --- steps --------------------------------------------------------------------------------


def _metric(doc: Node, base: Path, ctx: Context, offset: int) -> list[Table]:
    ctx.attempt(doc.check_keys, METRIC_KEYS)
    steps_node = ctx.attempt(doc.require, "steps")
    items = (
        ctx.attempt(partial(steps_node.as_list, non_empty=True), "a list of steps")
        if steps_node
        else None
    )
    prefix = os.environ.get(FAILED_DF_ENV) or None
    tables: list[Table] = []
    for item in items or ():
        table = ctx.attempt(_step, item, base, ctx, prefix, ctx.table_offset + offset + len(tables))
        if table is not None:
            tables.append(table)
    return tables


def _step(item: Node, base: Path, ctx: Context, prefix: str | None, position: int) -> Table | None:
    item.as_mapping("a step (a mapping with 'dataFrameName' and 'sql')")
    item.check_keys(STEP_KEYS)
    name = item.require("dataFrameName").as_str("a DataFrame name")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise item.require("dataFrameName").error(
            f"dataFrameName '{name}' must be a SQL identifier (it names a temp view)"
        )
    for key in ("classpath", "params"):
        if item.get(key) is not None:
            raise item.require(key).error(
                f"'{key}': code steps (Scala classes) cannot run in assay; only SQL steps"
            )
    sql = _step_sql(item, base)
    ctx.views.append(View(name, SqlSource(sql), item.origin))
    dq = item.get("dq")
    if dq is None:
        return None
    dq.as_mapping("a dq block (a mapping with 'checks')")
    dq.check_keys(DQ_KEYS)
    step_level = dq.get("level")
    cache = dq.get("cacheDf")
    if cache is not None and cache.value is not None:
        cache.as_bool()
    checks = dq.require("checks").as_list("a list of checks", non_empty=True)
    rules: list[Rule] = []
    outputs: list[FailedRows] = []
    errors: list[ConfigError] = []
    for check in checks:
        try:
            rule, operator = dq_check(check, step_level)
        except ConfigError as e:
            for error in getattr(e, "errors", [e]):
                if str(error) not in map(str, errors):  # a bad step level is reported once
                    errors.append(error)
            continue
        if prefix is not None:
            target = os.path.join(os.path.abspath(prefix) if "://" not in prefix else prefix, name)
            sink = Sink(
                "parquet",
                f"{target.rstrip('/')}/{len(rules)}_{operator}",
                mode="overwrite",
                origin=check.origin,
            )
            outputs.append(FailedRows(len(rules), sink))
        rules.append(rule)
    ctx.errors.extend(errors)
    if errors:
        return None
    return Table(
        name=name,
        source=CatalogSource(name),
        rules=tuple(rules),
        origin=dq.origin,
        outputs=tuple(outputs),
    )


def _step_sql(item: Node, base: Path) -> str:
    given = [k for k in ("sql", "file") if item.get(k) is not None]
    if len(given) != 1:
        raise item.error("a step needs exactly one of 'sql' or 'file'")
    node = item.require(given[0])
    if given[0] == "sql":
        return node.as_str("a SQL query").strip().rstrip(";")
    path = node.as_str("a SQL file path")
    full = path if os.path.isabs(path) else str(base / path)
    try:
        return Path(full).read_text(encoding="utf-8").strip().rstrip(";")
    except OSError as e:
        raise node.error(f"cannot read SQL file '{full}': {e.strerror or e}") from None


DIALECT = Dialect(
    name=NAME,
    shape=(
        "a Metorikku metric file ('steps' with dataFrameName + sql, and 'dq' blocks) or job "
        "file ('metrics': metric files, 'inputs')"
    ),
    matches=matches,
    build=build,
)
