"""Loading a suite: config files -> one validated :class:`~assay.ir.Suite`, or every error.

This is the only file I/O before a run. Nothing here talks to Spark.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from assay.config.document import read_document
from assay.config.node import Node
from assay.dialects import registry
from assay.dialects.base import Context, Dialect, LoadOptions
from assay.dialects.patterns import pattern_problems
from assay.errors import ConfigError, ConfigErrors
from assay.ir.monitoring import Monitoring
from assay.ir.suite import Suite, Table


def load_suite(
    paths: Sequence[str | os.PathLike[str]],
    *,
    variables: Mapping[str, str] | None = None,
    dialect: str | None = None,
    options: LoadOptions | None = None,
    trees: Mapping[str, Node] | None = None,
) -> Suite:
    """Read every config file and build one suite with their tables, in file order.

    ``variables`` override (and may add to) each file's ``vars``; ``dialect`` forces a
    format instead of detecting it per file; ``options`` carries the command line's other
    inputs to the front ends; ``trees`` the files the caller read, by path as given (the
    others are read here). ``Suite.files`` lists the paths as given.

    Raises:
        ConfigErrors: every config error of every file (``.errors``, in file order), even
            when there is only one; nothing is returned unless the whole suite is valid.
    """
    try:
        forced = registry.get(dialect) if dialect is not None else None
    except ConfigError as e:
        raise ConfigErrors([e]) from None
    errors: list[ConfigError] = []
    if not paths:
        errors.append(ConfigError("no config file given"))
    tables: list[Table] = []
    contexts: list[Context] = []
    names: list[str] = []
    for path in paths:
        ctx = Context(
            file=os.fspath(path),
            base_dir=Path(path).resolve().parent,
            variables=dict(variables or {}),
            table_offset=len(tables),
            errors=errors,
            options=options or LoadOptions(),
        )
        first_error = len(errors)
        found, name = _load_file(ctx, forced, (trees or {}).get(ctx.file))
        errors.extend(pattern_problems(found))
        tables.extend(found)
        contexts.append(ctx)
        names.append(name)
        errors[first_error:] = sorted(errors[first_error:], key=_line)
    _check_unique_names(tables, errors)
    monitoring = _one_store(contexts, errors)
    if errors:
        raise ConfigErrors(errors, valid=_valid_tables(tables, contexts, errors))
    return Suite(
        tables=tuple(tables),
        files=tuple(os.fspath(p) for p in paths),
        views=tuple(dict.fromkeys(v for c in contexts for v in c.views)),  # --input: once
        deferred=tuple(d for c in contexts for d in c.deferred),
        reports=tuple(r for c in contexts for r in c.reports),
        dialects=tuple(names),
        unresolved_rules=sum(c.unresolved_rules for c in contexts),
        comparisons=tuple(x for c in contexts for x in c.comparisons),
        monitoring=monitoring,
    )


def _valid_tables(
    tables: list[Table], contexts: list[Context], errors: list[ConfigError]
) -> tuple[Table, ...]:
    """The tables of an invalid suite that hold no error (a dialect drops most such
    tables); none when a file declares views, deferred tables or comparisons, which
    tables may need."""
    if any(c.views or c.deferred or c.comparisons for c in contexts):
        return ()
    bad = [e.origin for e in errors if e.origin is not None]
    return tuple(t for t in tables if not any(o.within(t.origin) for o in bad))


def _one_store(contexts: list[Context], errors: list[ConfigError]) -> Monitoring | None:
    """The run's metrics store: the files that name one name the same."""
    found = [c.monitoring for c in contexts if c.monitoring is not None]
    for other in found[1:]:
        if other.store != found[0].store or other.tags != found[0].tags:
            first = f"{found[0].store} at {found[0].store.origin}"
            said = f"a second metrics store ({other.store}; the first is {first})"
            errors.append(ConfigError(f"{said}: a run appends to one store", other.store.origin))
    return found[0] if found else None


def _load_file(
    ctx: Context, forced: Dialect | None, tree: Node | None = None
) -> tuple[tuple[Table, ...], str]:
    """The valid tables of one file (``tree``: as the caller read it, None: read here) and
    its dialect's name; errors go to ``ctx.errors``."""
    doc = tree if tree is not None else ctx.attempt(read_document, ctx.file)
    if doc is None:
        return (), ""
    dialect = forced or ctx.attempt(_detected, doc)
    if dialect is None:
        return (), ""
    return ctx.attempt(dialect.build, doc, ctx) or (), dialect.name


def _line(error: ConfigError) -> int:
    """Sort key: errors of one file in line order (file-level errors first)."""
    return error.origin.line or 0 if error.origin is not None else 0


def _detected(doc: Node) -> Dialect:
    return registry.get(registry.detect(doc))


def _check_unique_names(tables: list[Table], errors: list[ConfigError]) -> None:
    """Table names identify results: a second table with a name already used is an error."""
    seen: dict[str, Table] = {}
    for table in tables:
        first = seen.setdefault(table.name, table)
        if first is not table:
            errors.append(
                ConfigError(
                    f"duplicate table name '{table.name}' (first used at {first.origin})",
                    origin=table.origin,
                    hint="give one of the tables a different 'name'",
                )
            )
