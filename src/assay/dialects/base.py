"""What every dialect front end gets and gives: a build context that collects errors.

A front end turns one parsed file into tables. It never stops at the first mistake:
each independent part (a variable, a table's source, a rule) is built under
:meth:`Context.attempt`, which records a :class:`ConfigError` and moves on, so one run of
``assay check`` lists every error of every file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

from assay.config.node import Node
from assay.errors import ConfigError, ConfigErrors
from assay.ir.compare import DatasetComparison
from assay.ir.monitoring import Monitoring
from assay.ir.outputs import DeferredVariable, Report, View
from assay.ir.suite import Table
from assay.options import RunOptions

T = TypeVar("T")


@dataclass(frozen=True)
class LoadOptions(RunOptions):
    """The run's options (:class:`~assay.options.RunOptions`) as the front ends get them,
    and ``for_run``: the suite is about to run, so what only a run needs (a sparquet
    ``--source``) is required.

    The front ends read ``allow_shell`` (data-validator ``shell`` variables and ``pipe``
    outputs), ``inputs`` (Metorikku input tables), ``source`` and ``pipeline`` (a sparquet
    validations file's table and pipeline name).
    """

    for_run: bool = False

    @classmethod
    def of(cls, options: RunOptions, *, for_run: bool) -> LoadOptions:
        """``options`` (a run's) as the front ends get them."""
        run = {f.name: getattr(options, f.name) for f in fields(RunOptions)}
        return cls(**run, for_run=for_run)


@dataclass
class Context:
    """The state a front end needs while building one file.

    ``base_dir`` is the absolute directory of the config file (relative data paths are
    resolved against it), ``variables`` the caller's overrides (CLI ``--var``),
    ``table_offset`` the suite position of this file's first table (for default names).
    The lists after ``errors`` collect what a file adds to the suite besides tables.
    """

    file: str
    base_dir: Path
    variables: Mapping[str, str] = field(default_factory=dict)
    table_offset: int = 0
    errors: list[ConfigError] = field(default_factory=list)
    options: LoadOptions = field(default_factory=LoadOptions)
    views: list[View] = field(default_factory=list)
    deferred: list[DeferredVariable] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    unresolved_rules: int = 0
    comparisons: list[DatasetComparison] = field(default_factory=list)
    monitoring: Monitoring | None = None
    """The file's ``metrics`` store (docs/monitoring.md)."""

    def attempt(self, build: Callable[..., T], *args: object) -> T | None:
        """``build(*args)``, or ``None`` after recording the ConfigError(s) it raised."""
        try:
            return build(*args)
        except ConfigErrors as e:
            self.errors.extend(e.errors)
        except ConfigError as e:
            self.errors.append(e)
        return None


@dataclass(frozen=True)
class Dialect:
    """A config format: how to recognise a document and how to build its tables.

    ``shape`` describes the recognised shape for the "expected ..." error when no
    dialect matches a document.
    """

    name: str
    shape: str
    matches: Callable[[Node], bool]
    build: Callable[[Node, Context], tuple[Table, ...]]
