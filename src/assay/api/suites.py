"""Suites from what a Python caller has: config files, or rule dicts for a DataFrame.

Rule dicts are read exactly as the same rules in a native config file (through
:mod:`assay.dialects.native`), so every error names its place (``<rules> rules[2]``) as a
file's errors do, minus the line.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from assay.config.node import Node
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.ir.origin import Origin
from assay.ir.suite import DataFrameSource, RunPolicy, Suite
from assay.options import RunOptions, checked, takes_options

Config = str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Suite
"""What :func:`assay.run` checks: a config file, several, or a suite already loaded."""


class ReadConfigs(Sequence["str | os.PathLike[str]"]):
    """Config files (a sequence of their paths) with the trees of those already read: the
    load builds those trees rather than reading their files again (:func:`read_configs`).
    ``assay run`` reads each file once, tells a data-validator file from its tree (its
    status line) and hands the trees to the load, and to the reload that resolves deferred
    variables."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]], trees: Mapping[str, Node]):
        self.paths = tuple(paths)
        self.trees = dict(trees)
        """The parsed files by path as given (``os.fspath``)."""

    def __getitem__(self, index: Any) -> Any:
        return self.paths[index]

    def __len__(self) -> int:
        return len(self.paths)


def read_configs(paths: Iterable[str | os.PathLike[str]]) -> ReadConfigs:
    """The config files at ``paths``, each read and parsed once; a file that cannot be is
    left to the load, which reads it and says why, at its place."""
    from assay.config import read_document

    paths = tuple(paths)
    trees: dict[str, Node] = {}
    for path in paths:
        try:
            trees[os.fspath(path)] = read_document(path)
        except AssayError:
            continue
    return ReadConfigs(paths, trees)


RULES_FILE = "<rules>"
"""The file name results and errors give to rules passed as Python values."""

_ENTRY_POINTS = threading.Lock()
_entry_points_loaded = False


@takes_options("load")
def load(config: Config, *, for_run: bool = True, **options: Any) -> Suite:
    """The suite of ``config`` (files in any dialect), as ``assay run`` loads it.

    The options are the CLI's (``--var``, ``--dialect``, ``--sample-size``,
    ``--allow-shell``, ``--input``, ``--source``, ``--pipeline``, ``--plugin``,
    ``--exitErrorOnFail``), fields of :class:`~assay.options.RunOptions`;
    ``for_run=False`` loads as ``assay check`` does.

    Raises:
        ConfigErrors: every config error (``.errors``), each with file, line and path.
    """
    return load_with(config, RunOptions(**checked(load, options)), for_run=for_run)


def load_with(config: Config, options: RunOptions, *, for_run: bool = True) -> Suite:
    """:func:`load` with the options of a run as one object (what ``assay.run`` and the
    CLI pass down)."""
    if isinstance(config, Suite):
        suite = config
    else:
        from assay.dialects import load_suite
        from assay.dialects.base import LoadOptions

        load_plugins(options.plugins)
        paths = [config] if isinstance(config, (str, os.PathLike)) else list(config)
        suite = load_suite(
            paths,
            variables=options.vars,
            dialect=options.dialect,
            options=LoadOptions.of(options, for_run=for_run),
            trees=config.trees if isinstance(config, ReadConfigs) else None,
        )
    if options.sample_size is not None:
        tables = tuple(
            dataclasses.replace(t, sample_size=options.sample_size) for t in suite.tables
        )
        suite = dataclasses.replace(suite, tables=tables)
    if not options.exit_error_on_fail:
        suite = dataclasses.replace(suite, policy=RunPolicy("warn", "--exitErrorOnFail false"))
    return suite


def load_plugins(modules: Iterable[str]) -> None:
    """Import ``--plugin`` modules, and the ``assay.rules`` entry points once per process
    (their rule types register once)."""
    global _entry_points_loaded
    from assay.dialects import plugins

    with _ENTRY_POINTS:
        if not _entry_points_loaded:
            plugins.load_entry_points()
            _entry_points_loaded = True
    plugins.load_plugins(list(modules))


def rules_suite(
    rules: Sequence[Mapping[str, Any]],
    *,
    name: str = "dataframe",
    keys: Sequence[str] = (),
    sample_size: int | None = None,
    filter: str | None = None,  # noqa: A002 - the config key
    on_failure: Literal["fail", "warn"] = "fail",
    vars: Mapping[str, str] | None = None,  # noqa: A002
) -> Suite:
    """A one-table suite of native rules over a DataFrame bound when it runs.

    Raises:
        ConfigErrors: every error of every rule, located as ``<rules> rules[i]``.
    """
    from assay.dialects import native
    from assay.dialects.base import Context

    table: dict[str, Any] = {"name": name, "source": {"table": "<dataframe>"}, "rules": rules}
    table |= {"keys": list(keys)} if keys else {}
    table |= {"sample_size": sample_size} if sample_size is not None else {}
    table |= {"filter": filter} if filter is not None else {}
    table |= {"on_failure": on_failure} if on_failure != "fail" else {}
    origin = Origin(RULES_FILE)
    try:
        doc = Node({"tables": Node([node(table, origin)], origin)}, origin)
    except ConfigError as error:
        raise ConfigErrors([error]) from None
    ctx = Context(file=RULES_FILE, base_dir=Path.cwd(), variables=dict(vars or {}))
    tables = native.build(doc, ctx)
    if ctx.errors:
        raise ConfigErrors(ctx.errors)
    bound = tuple(dataclasses.replace(t, source=DataFrameSource("df")) for t in tables)
    return Suite(tables=bound, files=(RULES_FILE,), dialects=("native",))


def node(value: object, origin: Origin) -> Node:
    """A Python value as the config tree a reader would have built (origins without
    lines).

    Raises:
        ConfigError: a value a YAML or JSON file cannot hold (a key that is not a string,
            an object of another type).
    """
    if isinstance(value, Mapping):
        children = {}
        for key, child in value.items():
            if not isinstance(key, str):
                raise ConfigError(f"keys must be strings, got {key!r}", origin=origin)
            children[key] = node(child, origin.child(key))
        return Node(children, origin)
    if isinstance(value, (list, tuple)):
        return Node([node(child, origin.child(i)) for i, child in enumerate(value)], origin)
    if value is None or isinstance(value, (str, bool, int, float, dt.date)):
        return Node(value, origin)
    raise ConfigError(
        f"expected a value a config file can hold, got {type(value).__name__}", origin=origin
    )


def over_dataframe(suite: Suite, name: str | None, frame: str) -> Suite:
    """``suite`` with the table ``name`` (the only table when None) reading the DataFrame
    bound as ``frame``; the other tables are left out.

    Raises:
        ConfigErrors: no such table, or several tables and no ``name``.
    """
    tables = suite.tables
    if name is not None and len(tables) > 1:
        tables = tuple(t for t in tables if t.name == name)
    if len(tables) != 1:
        names = ", ".join(t.name for t in suite.tables)
        said = f"no table named {name!r}" if name is not None else "several tables"
        raise ConfigErrors(
            [ConfigError(f"{said} to check the DataFrame with (tables: {names})",
                         hint="pass name= to pick the table whose rules check it")]
        )  # fmt: skip
    table = dataclasses.replace(tables[0], source=DataFrameSource(frame))
    return dataclasses.replace(suite, tables=(table,))
