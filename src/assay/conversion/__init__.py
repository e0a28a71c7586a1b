"""``assay convert``: the native config that loads to the same suite as any supported
file (docs/dialects.md, "Migrating for good: assay convert").

The files are loaded as ``assay check`` loads them; each table becomes a native table,
each rule a native rule type when one gives the same IR rule, else the rule in its
dialect's words (:mod:`assay.dialects.embedded`), a sparquet validations block as
written. The text is loaded back and compared with the original suite, apart from
origins, before it is returned: what the native format cannot say is a config error at
its place in the original file, and nothing is written.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.config.document import parse_text
from assay.conversion.documents import Documents
from assay.conversion.rules import stripped
from assay.conversion.tables import Paths, table_out
from assay.conversion.text import document
from assay.dialects import native, sources
from assay.dialects.base import Context, LoadOptions
from assay.dialects.load import load_suite
from assay.errors import ConfigError, ConfigErrors
from assay.ir.monitoring import Monitoring
from assay.ir.suite import Suite, Table
from assay.version import __version__

__all__ = ["convert_files"]


def convert_files(
    paths: Sequence[str | os.PathLike[str]],
    *,
    variables: Mapping[str, str] | None = None,
    dialect: str | None = None,
    options: LoadOptions | None = None,
    out: str | os.PathLike[str] | None = None,
) -> str:
    """The native config of the suite ``paths`` load to (with ``variables``, ``dialect``
    and the binding ``options``: ``source``, ``inputs``, ``pipeline``...); relative paths
    in it are relative to ``out``'s directory (absolute when ``out`` is None).

    Raises:
        ConfigErrors: the files' own errors, or every construct that cannot be converted,
            each at its place in the original file.
    """
    options = options or LoadOptions()
    suite = load_suite(paths, variables=variables, dialect=dialect, options=options)
    _refuse_suite_parts(suite)
    file = os.path.abspath(out) if out is not None else os.path.abspath("converted.yaml")
    where = Paths(os.path.dirname(file) if out is not None else None)
    inputs = {name: _resolved(name, text) for name, text in options.inputs.items()}
    docs, tables, errors = Documents(), [], []
    for table in suite.tables:
        try:
            tables.append(table_out(table, docs, where, file, inputs))
        except ConfigErrors as e:
            errors += e.errors
    if errors:
        raise ConfigErrors(errors)
    text = document(_header(suite, variables, options), _top(suite, where), tables)
    _verify(text, file, suite)
    return text


def _resolved(name: str, text: str) -> str:
    kind, _, target = sources.source_of(text, f"--input {name}")
    return target


def _refuse_suite_parts(suite: Suite) -> None:
    """What a native file cannot hold: views, deferred variables, client-side reports,
    comparisons."""
    errors = [
        ConfigError(
            f"cannot be converted: the view '{v.name}' (a Metorikku input or step) is created"
            " before any table; a native config reads sources, it creates no views",
            v.origin,
            "write the step's query as a native table's source: {sql: ...}",
        )
        for v in suite.views
    ]
    errors += [
        ConfigError(
            f"cannot be converted: the {d.kind} variable '{d.name}' is known only when a run "
            "starts",
            d.origin,
            f"pass its value: --var {d.name}=VALUE",
        )
        for d in suite.deferred
    ]
    errors += [
        ConfigError(
            "cannot be converted: a report the client writes after the run",
            r.origin,
            "use the command line's reports instead (--jsonReport, --htmlReport)",
        )
        for r in suite.reports
    ]
    errors += [
        ConfigError("cannot be converted: dataset comparisons are not converted", c.origin)
        for c in suite.comparisons
    ]
    if errors:
        raise ConfigErrors(errors)


def _header(suite: Suite, variables: Mapping[str, str] | None, options: LoadOptions) -> list[str]:
    lines = [f"Converted by assay {__version__} (assay convert) from:"]
    lines += [f"  {f} ({d})" for f, d in zip(suite.files, suite.dialects, strict=False)]
    given = [f"--source {options.source}"] if options.source else []
    given += [f"--input {k}={v}" for k, v in sorted(options.inputs.items())]
    given += [f"--pipeline {options.pipeline}"] if options.pipeline else []
    if variables:
        given.append("variables " + ", ".join(sorted(variables)) + " (their values written)")
    if given:
        lines.append("with " + " ".join(given))
    lines.append("It loads to the same tables and rules (docs/dialects.md, assay convert).")
    return lines


def _top(suite: Suite, where: Paths) -> dict[str, Any]:
    if suite.monitoring is None:
        return {}
    store = suite.monitoring.store
    metrics: dict[str, Any] = (
        {"table": store.location, "format": store.format}
        if store.kind == "table"
        else {"path": where.shown(store.location)}
    )
    if suite.monitoring.tags:
        metrics["tags"] = dict(suite.monitoring.tags)
    return {"metrics": metrics}


def _comparable(table: Table) -> Table:
    """What must be equal: all but ``key_count`` (which columns identify a sample row,
    noted in the file), ``detail: false`` being ``sample_size: 0``."""
    size = table.sample_size if table.detail else 0
    return stripped(
        dataclasses.replace(table, key_count=None, sample_size=size, detail=True, places=())
    )


def _verify(text: str, file: str, suite: Suite) -> None:
    """The converted text loads to the original suite, apart from origins."""
    ctx = Context(file=file, base_dir=Path(file).parent)
    doc = parse_text(text, file, "yaml")
    tables = native.build(doc, ctx)
    if ctx.errors:
        raise ConfigErrors(ctx.errors)
    errors = []
    for original, back in zip(suite.tables, tables, strict=False):
        a, b = _comparable(original), _comparable(back)
        if a != b:
            fields = [
                f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)
            ]
            errors.append(
                ConfigError(
                    "cannot be converted: the converted table loads to other " + ", ".join(fields),
                    original.origin,
                )
            )
    if len(tables) != len(suite.tables) or not _same_store(suite.monitoring, ctx.monitoring):
        errors.append(ConfigError("cannot be converted: the converted file loads to another suite"))
    if errors:
        raise ConfigErrors(errors)


def _same_store(a: Monitoring | None, b: Monitoring | None) -> bool:
    return stripped(a) == stripped(b)
