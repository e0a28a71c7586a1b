"""One IR rule as a native rule entry that loads to the same rule: a native rule type
when one says what the rule means, else the rule in its dialect's words
(:mod:`assay.dialects.embedded`); each candidate is built back and compared, the first
equal one is kept, and a rule none reproduces is refused at its place."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from assay.config.document import parse_text
from assay.config.node import Node
from assay.conversion.documents import Documents, python
from assay.dialects.catalogue import RULES, build_rule
from assay.dialects.data_validator.checks import CHECKS
from assay.dialects.embedded import BESIDE
from assay.dialects.great_expectations_map import EXPECTATIONS
from assay.errors import ConfigError, ConfigErrors
from assay.ir.expr import And, Sql
from assay.ir.origin import UNKNOWN, Origin
from assay.ir.rules import Rule

Entry = dict[str, Any]


@dataclass(frozen=True)
class Place:
    """What converting a rule needs besides the rule: the original files, the file being
    written, the ``--input`` sources (resolved), the rule's position among the rules of
    its original entry."""

    docs: Documents
    file: str
    inputs: Mapping[str, str]
    position: int = 0


def stripped(value: Any) -> Any:
    """``value`` with every origin replaced by one placeholder (what "the same IR apart
    from origins" compares)."""
    if isinstance(value, Origin):
        return UNKNOWN
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: stripped(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return type(value)(**fields)
    if isinstance(value, tuple):
        return type(value)(stripped(v) for v in value) if type(value) is tuple else value
    if isinstance(value, frozenset):
        return frozenset(stripped(v) for v in value)
    return value


def same_rule(a: Rule, b: Rule) -> bool:
    """Equal apart from origins, their parameters included (a rule's identity in the
    metrics store is read from them)."""
    return stripped(a) == stripped(b) and dict(a.params) == dict(b.params)


def differences(a: Rule, b: Rule) -> list[str]:
    """The fields in which two rules differ (apart from origins)."""
    found = [
        f.name
        for f in dataclasses.fields(a)
        if f.name not in ("origin", "places")
        and stripped(getattr(a, f.name)) != stripped(getattr(b, f.name))
    ]
    return found if found or dict(a.params) == dict(b.params) else ["params"]


def built(entry: Entry, file: str) -> Rule:
    """The rule a native entry loads to, read back from its YAML text."""
    text = yaml.safe_dump([entry], sort_keys=False, allow_unicode=True)
    (node,) = parse_text(text, file, "yaml").as_list()
    return build_rule(node)


def native_entry(rule: Rule) -> Entry:
    """The rule as a native rule type: its kind and the parameters it was built from."""
    entry: Entry = {"type": rule.kind}
    if rule.name is not None:
        entry["name"] = rule.name
    if rule.level != "error":
        entry["level"] = rule.level
    if rule.code is not None:
        entry["code"] = rule.code
    if rule.scope != "table":
        entry["scope"] = rule.scope
    entry.update((k, python(v)) for k, v in rule.params)
    return entry


def worded_entries(
    rule: Rule, docs: Documents, inputs: Mapping[str, str], position: int
) -> Iterator[Entry]:
    """The rule in its dialect's words: its entry in the original file, under the key of
    the dialect that reads it."""
    if rule.kind in _DV_TYPES:
        yield {"data_validator": _dv_words(rule)}
    node = docs.node(rule.origin)
    if node is None:
        return
    for key in _keys(rule):
        written = _soda_group(docs, rule.origin) if key == "sodacl" else None
        if written is None:
            written = _narrowed(key, rule, node, position)
        entry: Entry = {key: written}
        if "inputs" in BESIDE[key] and rule.reference is not None:
            entry["inputs"] = dict(inputs)
        if key == "sodacl" and (filters := _soda_partitions(docs, rule.origin, written)):
            entry["filters"] = filters
        yield entry
        if key == "sodacl" and rule.filter is not None:
            where = rule.filter.items[0] if isinstance(rule.filter, And) else rule.filter
            if isinstance(where, Sql):
                yield {**entry, "filter": where.text}


_DV_TYPES = {native: (dv, {n: w for w, n in keys.items()}) for dv, (native, keys) in CHECKS.items()}
"""Each native type a data-validator check is read as -> the check's type and its keys
in data-validator's words."""


def _dv_words(rule: Rule) -> Entry:
    """A data-validator check from the rule's parameters (its variables substituted)."""
    dv, words = _DV_TYPES[rule.kind]
    return {"type": dv, **{words.get(k, k): python(v) for k, v in rule.params}}


def _keys(rule: Rule) -> tuple[str, ...]:
    if rule.kind in EXPECTATIONS:
        return ("great_expectations",)
    if rule.kind.startswith("soda:"):
        return ("sodacl",)
    if rule.kind.startswith("dqx:"):
        return ("dqx",)
    return ("data_validator", "metorikku")


def _narrowed(key: str, rule: Rule, node: Node, position: int) -> Any:
    """The original entry, narrowed to this rule: a DQX check run for several columns
    given only this rule's, a Metorikku check given the level it got from its step."""
    written = python(node.plain())
    if key == "metorikku" and isinstance(written, dict) and len(written) == 1:
        ((operator, params),) = written.items()
        if isinstance(params, dict):
            return {operator: {**params, "level": rule.level}}
    if key == "dqx" and isinstance(written, dict):
        check = written.get("check")
        each = check.get("for_each_column") if isinstance(check, dict) else None
        if isinstance(check, dict) and isinstance(each, list):
            return {**written, "check": {**check, "for_each_column": [each[position]]}}
    return written


_GROUP_CHECK = ".group by.checks["


def _soda_group(docs: Documents, origin: Origin) -> Any:
    """A SodaCL check inside a ``group by`` (its metric named by the group's query): the
    ``group by`` entry around it, with this check alone; None for any other check."""
    head, found, rest = origin.path.partition(_GROUP_CHECK)
    if not found:
        return None
    outer = docs.node(dataclasses.replace(origin, path=head))
    written = python(outer.plain()) if outer is not None else None
    if not isinstance(written, dict):
        return None
    group = written.get("group by")
    if not isinstance(group, dict) or not isinstance(group.get("checks"), list):
        return None
    index = int(rest.split("]", 1)[0])
    return {**written, "group by": {**group, "checks": [group["checks"][index]]}}


def _soda_partitions(docs: Documents, origin: Origin, written: Any) -> dict[str, str]:
    """The SodaCL file's partition filters (``filter twin [big]:`` sections) a check names
    (``row_count same as twin [big]``), by their name, for the entry's ``filters``."""
    root = docs.node(dataclasses.replace(origin, path=""))
    if root is None or not isinstance(root.value, dict):
        return {}
    text = yaml.safe_dump(written, sort_keys=False, allow_unicode=True)
    found = {}
    for key, section in root.value.items():
        name = key.removeprefix("filter ").strip()
        if key.startswith("filter ") and "[" in name and name in text:
            where = (
                python(section.plain()).get("where") if isinstance(section.value, dict) else None
            )
            if isinstance(where, str):
                found[name] = where
    return found


def converted(rule: Rule, at: Place) -> Entry:
    """The first entry that loads to ``rule`` (the ``position``-th rule of its entry in
    the original file).

    Raises:
        ConfigError: at the rule's place, when none does, saying why.
    """
    reasons: list[str] = []
    worded = worded_entries(rule, at.docs, at.inputs, at.position)
    native = (native_entry(rule),) if rule.kind in RULES else ()
    for entry in (*native, *worded):
        try:
            back = dataclasses.replace(built(entry, at.file), on_failure=rule.on_failure)
        except (ConfigError, ConfigErrors) as e:
            first = e.errors[0] if isinstance(e, ConfigErrors) else e
            reasons.append(f"{_how(entry)}: {first.message}")
            continue
        if same_rule(back, rule):
            return entry
        reasons.append(f"{_how(entry)} differs in {', '.join(differences(back, rule))}")
    raise ConfigError(
        f"{rule.kind} cannot be converted: " + "; ".join(reasons),
        origin=rule.origin,
        hint="no native rule type and no reading of its dialect loads to this rule",
    )


def _how(entry: Entry) -> str:
    if "type" in entry:
        return f"as the native type {entry['type']}"
    return f"in {next(iter(entry)).replace('_', '-')}'s words"
