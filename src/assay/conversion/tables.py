"""A table of the IR as a native table: its source, settings and outputs, its rules (each
with where it came from), and a sparquet ``validations`` block as written; what a native
table cannot say is refused at its place."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from assay.conversion.documents import Documents, python
from assay.conversion.rules import Entry, Place, converted
from assay.errors import ConfigError, ConfigErrors
from assay.ir.outputs import FailedRows, RuleReport, Sink
from assay.ir.rules import Rule
from assay.ir.sources import CatalogSource, DataFrameSource, PathSource, Source, SqlSource
from assay.ir.suite import DEFAULT_SAMPLE_SIZE, Table

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class Commented:
    """A rule entry and the comment above it."""

    comment: str
    entry: Entry


@dataclass
class TableOut:
    """A native table: its keys before the rules, its rules, its validations block (the
    block's keys, then its rules)."""

    settings: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    """Comments above the table: what differs in the details of its results."""
    rules: list[Commented] = field(default_factory=list)
    block: dict[str, Any] | None = None
    block_rules: list[Commented] = field(default_factory=list)


@dataclass(frozen=True)
class Paths:
    """How a path is written: relative to the directory of the file written (``out``),
    or absolute when the converted config goes to stdout."""

    out: str | None

    def shown(self, path: str, base: str | None = None) -> str:
        """``path`` (relative to ``base`` when it is) as the converted file writes it."""
        if _SCHEME.match(path) and not path.startswith("file:"):
            return path
        full = path if os.path.isabs(path) or base is None else os.path.join(base, path)
        full = os.path.normpath(full)
        return os.path.relpath(full, self.out) if self.out is not None else full


def table_out(
    table: Table, docs: Documents, paths: Paths, file: str, inputs: dict[str, str]
) -> TableOut:
    """The native form of ``table``.

    Raises:
        ConfigErrors: every part of it the native format cannot say.
    """
    errors: list[ConfigError] = []
    settings: dict[str, Any] = {"name": table.name}
    try:
        settings["source"] = source_mapping(table.source, paths)
    except ConfigError as e:
        errors.append(ConfigError(e.message, table.place("source"), e.hint))
    if table.filter is not None:
        settings["filter"] = table.filter
    if table.keys:
        settings["keys"] = list(table.keys)
    notes = []
    if not table.keys and table.key_count:
        # samples only: which columns identify a failing row, and their order
        notes.append(
            f"{_located(table.place('keys'))}: the first {table.key_count} column(s) of the"
            " schema identified sample rows (numKeyCols); name them with keys: [...]"
        )
    size = table.sample_size if table.detail else 0
    if size != DEFAULT_SAMPLE_SIZE:
        settings["sample_size"] = size
    split = _block_start(table)
    own, block = table.rules[:split], table.rules[split:]
    policies = {r.on_failure for r in own}
    if policies == {"warn"}:
        settings["on_failure"] = "warn"
    elif policies - {"fail"}:
        errors.append(_refused(table, "on_failure", f"rules under {sorted(policies)}", None))
    out = TableOut(settings, notes=notes)
    positions: Counter[tuple[str, str]] = Counter()
    for rule in own:
        at = (rule.origin.file, rule.origin.path)
        place = Place(docs, file, inputs, positions[at])
        positions[at] += 1
        try:
            out.rules.append(Commented(comment(rule), converted(rule, place)))
        except ConfigError as e:
            errors.append(e)
    if block:
        _with_block(out, block, docs, paths, errors)
    errors += _outputs(table, settings, paths, bool(block))
    if errors:
        raise ConfigErrors(errors)
    return out


def _outputs(table: Table, settings: dict[str, Any], paths: Paths, block: bool) -> list:
    """The table's ``history`` (into ``settings``); what else it writes is its validations
    block's, or refused."""
    errors = []
    for output in table.outputs:
        if isinstance(output, RuleReport) and output.history:
            settings["history"] = sink_mapping(output.sink, paths)
        elif isinstance(output, FailedRows):
            errors.append(
                ConfigError(
                    "cannot be converted: Metorikku's failed rows (CONFIG_FAILED_DF_PATH_PREFIX)"
                    " have no native form",
                    output.sink.origin,
                    "write the failing rows with a validations block's outputs",
                )
            )
        elif not block:
            errors.append(ConfigError("cannot be converted: an output", table.origin))
    return errors


def _refused(table: Table, setting: str, what: str, hint: str | None) -> ConfigError:
    return ConfigError(
        f"cannot be converted: {what} (a native table has no such setting)",
        table.origin.child(setting),
        hint,
    )


def _block_path(rule: Rule) -> str | None:
    """The path of the sparquet validations block ``rule`` was read from, if any."""
    path = rule.origin.path
    found = re.match(r"^((?:tables\[\d+\]\.)?validations)\.rules\[\d+\]", path)
    return found.group(1) if found else None


def _block_start(table: Table) -> int:
    """Where the rules of a validations block start (they are the table's last)."""
    for i, rule in enumerate(table.rules):
        if _block_path(rule) is not None:
            return i
    return len(table.rules)


def _with_block(
    out: TableOut, block: tuple[Rule, ...], docs: Documents, paths: Paths, errors: list
) -> None:
    """The validations block as written, its paths made the converted file's."""
    first = block[0]
    where = _block_path(first)
    node = docs.node(first.origin.__class__(first.origin.file, where or ""))
    if where is None or node is None or any(_block_path(r) != where for r in block):
        errors.append(ConfigError("cannot be converted: the validations block", first.origin))
        return
    base = os.path.dirname(os.path.abspath(first.origin.file))
    mapping = python(node.plain())
    for key in ("report",):
        if isinstance(mapping.get(key), dict):
            mapping[key] = _sink_paths(mapping[key], paths, base)
    outputs = mapping.get("outputs")
    if isinstance(outputs, dict):
        mapping["outputs"] = {k: _sink_paths(v, paths, base) for k, v in outputs.items()}
    rules = mapping.pop("rules", [])
    out.block = mapping
    for i, entry in enumerate(rules):
        if isinstance(entry, dict) and isinstance(entry.get("output"), dict):
            entry = {**entry, "output": _sink_paths(entry["output"], paths, base)}
        origin = first.origin.__class__(first.origin.file, f"{where}.rules[{i}]")
        written = docs.node(origin)
        line = written.origin.line if written is not None else None
        shown = origin.__class__(origin.file, origin.path, line)
        out.block_rules.append(Commented(f"{_located(shown)}", entry))


def _sink_paths(sink: Any, paths: Paths, base: str) -> Any:
    """A sink mapping with its ``path`` as the converted file writes it (a table name,
    without ``/``, is kept)."""
    if not isinstance(sink, dict) or not isinstance(sink.get("path"), str):
        return sink
    path = sink["path"]
    if "/" not in path and not _SCHEME.match(path):
        return sink
    return {**sink, "path": paths.shown(path, base)}


def source_mapping(source: Source, paths: Paths) -> dict[str, Any]:
    """A native ``source``."""
    if isinstance(source, CatalogSource):
        return {"table": source.table}
    if isinstance(source, SqlSource):
        return {"sql": source.query}
    if isinstance(source, PathSource) and source.paths:
        shown = [paths.shown(p) for p in source.paths]
        mapping: dict[str, Any] = {"path": shown[0] if len(shown) == 1 else shown}
        mapping["format"] = source.format
        if source.options:
            mapping["options"] = dict(source.options)
        return mapping
    what = (
        "a DataFrame handed over in Python"
        if isinstance(source, DataFrameSource)
        else ("a source without a path")
    )
    raise ConfigError(f"cannot be converted: {what} has no native source")


def sink_mapping(sink: Sink, paths: Paths) -> dict[str, Any]:
    """A native output (``history``)."""
    mapping: dict[str, Any] = {"format": sink.format}
    mapping["path"] = sink.target if sink.is_table else paths.shown(sink.target)
    if sink.mode is not None:
        mapping["mode"] = sink.mode
    if sink.partition_by:
        mapping["partition_by"] = list(sink.partition_by)
    if sink.options:
        mapping["options"] = dict(sink.options)
    return mapping


def comment(rule: Rule) -> str:
    """Where a rule came from and what it says: ``checks.yml:9 checks for orders[1]:
    missing_count(email) = 0``."""
    said = rule.name
    if said is None:
        columns = f"({', '.join(rule.columns)})" if rule.columns else ""
        said = rule.kind + columns + (f" {rule.threshold}" if rule.threshold else "")
    return f"{_located(rule.origin)}: {said}"


def _located(origin: Any) -> str:
    file = origin.file
    if os.path.isabs(file):
        relative = os.path.relpath(file)
        file = relative if not relative.startswith("..") else file
    line = f":{origin.line}" if origin.line is not None else ""
    return f"{file}{line} {origin.path}".rstrip()
