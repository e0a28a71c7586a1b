"""A SodaCL checks file (soda-core 3.x: ``checks for orders:`` sections, dataset filters
``filter orders [daily]:``) -> one IR table per dataset (docs/dialects.md, "SodaCL checks
files").

A checks file names its datasets but not where their data is: each is the catalog table
of its name, or the source given on the command line (``--source orders=path``, or
``--source path`` for a file of one dataset; ``--input name=path`` for several), or the
native table that binds the file with ``sodacl: checks.yml``. ``${VAR}`` is read as Soda
reads it: the environment first, then the run's variables (``--var``), then ``NOW``.
Checks are mapped by :mod:`assay.dialects.soda_checks`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from assay.config.document import read_document
from assay.config.node import Node
from assay.dialects import soda_checks, soda_group, sources
from assay.dialects.base import Context, Dialect
from assay.dialects.soda_rule import Dataset
from assay.errors import ConfigError
from assay.ir.expr import Expr, Sql, all_of
from assay.ir.metrics import SqlMetric
from assay.ir.rules import MetricCheck, Rule, SchemaCheck, SqlCheck
from assay.ir.suite import CatalogSource, PathSource, Source, Table

NAME = "sodacl"
_CHECKS = re.compile(r"^checks for (?P<name>[^ \[\]]+)(?: \[(?P<part>[^\]]+)\])?$")
_FILTER = re.compile(r"^filter (?P<name>[^ \[\]]+) \[(?P<part>[^\]]+)\]$")
_FOR_EACH = re.compile(r"^for each (?:dataset|table) [^ ]+$")
_VARIABLE = re.compile(r"\$\{\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\}")
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
SECTIONS = ("checks for ", "filter ")
REFUSED_SECTIONS = {
    "configurations for ": "column configurations sections",
    "for each column ": "'for each column' sections (soda-core 3.x has none: its scan "
    "raises NotImplementedError for them)",
    "automated monitoring": "automated monitoring",
    "profile columns": "profiling",
    "discover datasets": "dataset discovery",
    "discover tables": "dataset discovery",
    "sample datasets": "dataset samples",
    "checks": "data source checks",
    "variables": "a 'variables' section",
}


def matches(doc: Node) -> bool:
    """A mapping with a ``checks for <dataset>`` or ``for each dataset`` section."""
    if not isinstance(doc.value, dict) or not doc.value:
        return False
    return any(_CHECKS.match(str(key)) or _FOR_EACH.match(str(key)) for key in doc.value)


@dataclass
class _Reading:
    """The state of one file's reading: its datasets' rules in file order, and the
    partition filters its ``filter`` sections declare."""

    ctx: Context
    now: str
    rules: dict[str, list[Rule]] = field(default_factory=dict)
    origins: dict[str, Node] = field(default_factory=dict)
    filters: dict[tuple[str, str], Expr] = field(default_factory=dict)
    checked: frozenset[str] = frozenset()
    """The datasets the file's sections check (a plain ``--source`` is the data of the
    one dataset of a file that checks one)."""

    def resolve(self, node: Node, text: str) -> str:
        """``text`` with Soda's ``${VAR}`` replaced: the environment, then ``--var``, then
        ``NOW`` (the run's start, UTC)."""
        if "${" not in text:
            return text

        def value(found: re.Match[str]) -> str:
            name = found.group("name")
            if name in os.environ:
                return os.environ[name]
            if name in self.ctx.variables:
                return str(self.ctx.variables[name])
            if name == "NOW":
                return self.now
            raise node.error(
                f"undefined variable ${{{name}}}",
                hint="set it in the environment or pass --var "
                f"{name}=VALUE (Soda would read it as empty)",
            )

        resolved = _VARIABLE.sub(value, text)
        if "${" in resolved:
            raise node.error(
                f"{text!r}: only ${{NAME}} variables are supported, not Jinja expressions"
            )
        return resolved

    def source_of(self, node: Node, name: str) -> Source:
        return dataset_source(name, node, self.ctx, alone=self.checked == {name})


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """One table per dataset the file checks, in the order of their first section."""
    reading = read_checks(doc, ctx)
    tables = []
    text = ctx.options.source
    if text is not None and not _named(text) and len(reading.checked) > 1:
        ctx.errors.append(
            doc.error(
                f"--source {text}: the file checks {', '.join(sorted(reading.checked))}",
                hint="give each dataset's data with --source NAME=... or --input NAME=...",
            )
        )
        return ()
    for dataset, rules in reading.rules.items():
        origin_node = reading.origins[dataset]
        alone = reading.checked == {dataset}
        source = ctx.attempt(dataset_source, dataset, origin_node, ctx, alone)
        if source is None:
            continue
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset).strip("_.") or "dataset"
        tables.append(
            Table(name=name, source=source, rules=tuple(rules), origin=origin_node.origin)
        )
    return tuple(tables)


def read_checks(doc: Node, ctx: Context, only: str | None = None) -> _Reading:
    """The rules of every ``checks for`` section (errors to ``ctx.errors``); with
    ``only``, of that dataset alone."""
    now = dt.datetime.now(tz=dt.timezone.utc).isoformat()
    reading = _Reading(ctx, now)
    mapping = ctx.attempt(doc.as_mapping, "a SodaCL checks file (a mapping of sections)")
    if mapping is None:
        return reading
    reading.checked = frozenset(_checked(mapping, reading))
    for header, content in mapping.items():  # filters first: a section may name one above
        found = _FILTER.match(header)
        if found:
            ctx.attempt(_filter_section, reading, found, content)
    for header, content in mapping.items():
        if _FILTER.match(header):
            continue
        if _FOR_EACH.match(header):
            ctx.attempt(_for_each_section, reading, content, only)
            continue
        found = _CHECKS.match(header)
        if found is None:
            ctx.attempt(_refuse_section, header, content)
            continue
        dataset = reading.resolve(content, found.group("name"))
        if only is not None and dataset != only:
            continue
        ctx.attempt(_checks_section, reading, dataset, found.group("part"), content)
    return reading


def _checked(mapping: dict[str, Node], reading: _Reading) -> set[str]:
    """The datasets the file's sections name (errors are its sections' own, later)."""
    named: list[tuple[str, Node]] = []
    for header, content in mapping.items():
        found = _CHECKS.match(header)
        if found:
            named.append((found.group("name"), content))
        elif _FOR_EACH.match(header) and isinstance(content.value, dict):
            listed = content.get("datasets") or content.get("tables")
            if listed is not None and isinstance(listed.value, list):
                named.extend((str(item.value), item) for item in listed.value)
    names = set()
    for name, node in named:
        try:
            names.add(reading.resolve(node, name).strip())
        except ConfigError:
            names.add(name)
    return names


def _refuse_section(header: str, content: Node) -> None:
    for start, what in REFUSED_SECTIONS.items():
        if header == start.strip() or header.startswith(start):
            raise content.error(
                f"SodaCL {what} ('{header}') are not supported",
                hint="docs/dialects.md lists the SodaCL sections assay runs",
            )
    raise content.error(f"invalid SodaCL section header '{header}'")


def _filter_section(reading: _Reading, found: re.Match[str], content: Node) -> None:
    """``filter orders [daily]: {where: <SQL>}``: a partition filter its sections apply to
    every check (row counts and percentages counted over the rows it keeps)."""
    content.as_mapping("a filter (a mapping with 'where')")
    content.check_keys({"where"})
    where = content.require("where")
    text = reading.resolve(where, where.as_str("a SQL predicate"))
    reading.filters[(found.group("name"), found.group("part"))] = Sql(text.strip())


def _for_each_section(reading: _Reading, content: Node, only: str | None) -> None:
    """``for each dataset T: {datasets: [a, b], checks: [...]}``: the checks, for each
    dataset named (Soda's ``include``/``exclude`` and ``%`` patterns, which select from
    the data source's tables, are refused: assay reads the datasets it is given)."""
    content.as_mapping("a mapping with 'datasets' and 'checks'")
    content.check_keys({"datasets", "tables", "checks"})
    names_node = content.get("datasets") or content.require("tables")
    checks = content.require("checks")
    for item in names_node.as_list("a list of dataset names", non_empty=True):
        name = reading.resolve(item, item.as_str("a dataset name")).strip()
        if name.startswith(("include ", "exclude ")) or any(c in name for c in "%*."):
            raise item.error(
                f"'{name}': dataset patterns and data source prefixes are not supported",
                hint="list the datasets by name",
            )
        if only is None or name == only:
            _checks_section(reading, name, None, checks)


def _checks_section(reading: _Reading, dataset: str, part: str | None, content: Node) -> None:
    items = content.as_list("a list of checks")
    where = None
    if part is not None:
        where = reading.filters.get((dataset, part))
        if where is None:
            raise content.error(
                f"filter not declared: [{part}]",
                hint=f"declare it in a section 'filter {dataset} [{part}]:' with 'where:'",
            )
    reading.origins.setdefault(dataset, content)
    rules = reading.rules.setdefault(dataset, [])
    ds = Dataset(reading.resolve, reading.source_of, dataset, reading.filters)
    for item in items:
        if isinstance(item.value, dict) and list(item.value) == ["attributes"]:
            continue  # Soda Cloud's dataset attributes: nothing to run
        if isinstance(item.value, dict) and list(item.value) == ["group by"]:
            # Soda runs a group by's query as written: no partition filter
            grouped = reading.ctx.attempt(soda_group.group_rules, soda_checks.entry(item, ds), ds)
            rules.extend(grouped or ())
            continue
        rule = reading.ctx.attempt(_partitioned, item, ds, where, part)
        if rule is not None:
            rules.append(rule)


def _partitioned(item: Node, ds: Dataset, where: Expr | None, part: str | None) -> Rule:
    """The rule of a check of a section, over the rows of its partition (``where``)."""
    rule = soda_checks.check_rule(item, ds)
    if where is None or isinstance(rule.check, (SchemaCheck, SqlCheck)):
        # a user-defined metric's query (SqlCheck) runs as written: Soda's metric of a
        # query has no partition
        return rule
    if isinstance(rule.check, MetricCheck) and isinstance(rule.check.metric, SqlMetric):
        raise item.error(
            f"a user-defined metric's expression in the partition [{part}] is not supported: "
            "Soda computes it over the partition's rows, assay over the dataset's",
            hint="write the partition's condition inside the expression",
        )
    return _with_filter(rule, all_of(where, rule.filter) if rule.filter is not None else where)


def _with_filter(rule: Rule, where: Expr) -> Rule:
    return dataclasses.replace(rule, filter=where)


def _named(text: str) -> bool:
    """Whether a ``--source`` value is ``NAME=SOURCE``."""
    bound, sep, _ = text.partition("=")
    return bool(sep) and bool(_TABLE_NAME.fullmatch(bound.strip()))


def dataset_source(name: str, node: Node, ctx: Context, alone: bool = False) -> Source:
    """Where a dataset's data is: ``--input name=...``, ``--source name=...``, ``--source
    ...`` (``alone``: the one dataset of a file that checks one), else the catalog table
    ``name``."""
    given = ctx.options.inputs.get(name)
    where = f"--input {name}"
    text = ctx.options.source
    if given is None and text is not None:
        if _named(text):
            bound, _, target = text.partition("=")
            if bound.strip() == name:
                given, where = target, f"--source {name}"
        elif alone:
            given, where = text, "--source"
    if given is None:
        if not _TABLE_NAME.fullmatch(name):
            raise node.error(
                f"dataset '{name}' is not a table name",
                hint=f"give its data with --source {name}=path/or/table",
            )
        return CatalogSource(name)
    try:
        kind, fmt, target = sources.source_of(given, where)
    except ConfigError as e:
        raise ConfigError(e.message, origin=node.origin, hint=e.hint) from None
    return CatalogSource(target) if kind == "table" else PathSource(fmt or "", (target,))


def bound_checks(node: Node, ctx: Context, table: str) -> tuple[Rule, ...]:
    """The rules of the SodaCL checks file a native table names under ``sodacl`` (a path,
    relative to the config file): its one dataset's, or those of the dataset named as the
    table."""
    path = Path(node.as_str("the path of a SodaCL checks file"))
    full = path if path.is_absolute() else ctx.base_dir / path
    try:
        doc = read_document(full)
    except ConfigError as e:
        raise node.error(f"cannot read the checks file {path}: {e.message}", hint=e.hint) from None
    if not matches(doc):
        raise node.error(
            f"{path} is not a SodaCL checks file", hint="expected sections 'checks for <dataset>:'"
        )
    reading = read_checks(doc, ctx)
    distinct = list(reading.origins)
    only = distinct[0] if len(distinct) == 1 else table
    if only not in distinct:
        raise node.error(
            f"{path} checks {', '.join(distinct)}: none is named as the table '{table}'",
            hint="bind a checks file of one dataset, or name the table as its dataset",
        )
    return tuple(reading.rules.get(only, ()))


DIALECT = Dialect(
    name=NAME,
    shape="a SodaCL checks file (a mapping with 'checks for <dataset>' sections)",
    matches=matches,
    build=build,
)
