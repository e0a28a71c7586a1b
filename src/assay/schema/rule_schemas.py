"""The JSON Schema of each rule type of the native format, from its declaration in
:data:`assay.dialects.catalogue.RULES`: its type names (with aliases), its keys and their
values, what it requires (with and without ``targets``), its description; and the
dispatch of a rule to its type's schema. :mod:`assay.schema.generate` assembles them.

A key's value schema shared by many rule types (:func:`shared_values`: ``anomaly``,
``change``, ``filter``, ``group_by``, ``must_be``, ``warn``...) is one entry of ``$defs``
that each type's keys refer to, not a copy in every type and target.
"""

from __future__ import annotations

from collections import Counter

from assay.dialects.catalogue import ALIASES
from assay.dialects.catalogue import RULES as _ALL_RULES
from assay.dialects.embedded import BESIDE
from assay.dialects.native_rules import METRIC_KEYS
from assay.dialects.rule_spec import (
    KEY_VALUES,
    OVER_TIME_KEYS,
    Schema,
    any_of,
    one_of,
    ref,
    required,
)
from assay.dialects.targets import BESIDE_REFUSED
from assay.dialects.validity import VALIDITY_KEYS

# The catalogue's own rule types: custom types registered by a plugin loaded in this process
# are not part of the package's schema.
RULES = {kind: spec for kind, spec in _ALL_RULES.items() if not spec.custom}

COMMON: dict[str, Schema] = {
    "type": {},  # each rule type's own enum, filled in by rule_schema
    "name": ref("rule_name"),
    "level": ref("level"),
    "code": ref("rule_code"),
    "scope": {
        "enum": ["table", "new"],
        "description": "On an incremental table: judged on the whole table (default) or on"
        " the partitions the run scans alone (docs/incremental.md).",
    },
}


def description(kind: str) -> str:
    """A rule type's description in the schema: its documentation, as plain text."""
    doc = RULES[kind].doc
    assert doc is not None  # checked by rule_problems
    nulls = "" if doc.nulls in ("—", "") else f" Nulls: {plain(doc.nulls)}."
    return f"Fails when {plain(doc.fails)}.{nulls}"


def plain(markdown: str) -> str:
    """Markdown of a table cell as plain text (no code spans, no emphasis)."""
    return markdown.replace("``", "").replace("`", "").replace("**", "")


def _implied(keys: frozenset[str], kind: str) -> list[Schema]:
    """Constraints the catalogue's key sets imply: one column or a list, a threshold,
    at least one validity option."""
    found: list[Schema] = []
    if {"column", "columns"} <= keys:
        found.append(one_of("column", "columns"))
    elif "column" in keys:
        found.append(required("column"))
    if keys >= METRIC_KEYS and kind != "row_count":
        found.append(any_of("must_be", *sorted(OVER_TIME_KEYS)))  # judged by one or both
    if keys >= VALIDITY_KEYS:
        found.append(any_of(*sorted(VALIDITY_KEYS)))
    return found


def _names(kind: str) -> list[str]:
    return [kind, *sorted(a for a, k in ALIASES.items() if k == kind)]


def type_schema(kind: str) -> Schema:
    names = _names(kind)
    return {"const": kind} if len(names) == 1 else {"enum": names}


SHARED_BY = 4
"""A key's shared value schema (``KEY_VALUES``) taken by at least this many rule types is
referred to (``{"$ref": "#/$defs/<key>"}``), unless it is a reference already."""


def shared_values() -> dict[str, Schema]:
    """The ``$defs`` entries of the keys many rule types share, each named by its key."""
    uses = Counter(k for spec in RULES.values() for k in spec.keys if k not in spec.values)
    return {
        k: KEY_VALUES[k]
        for k in sorted(uses, key=_key_order)
        if uses[k] >= SHARED_BY and list(KEY_VALUES[k]) != ["$ref"]
    }


def _params(kind: str) -> dict[str, Schema]:
    """The value schemas of a rule type's own keys: its own, else a shared key's (by
    reference when many types share it)."""
    keys = RULES[kind].keys
    own = RULES[kind].values
    shared = shared_values()
    return {
        k: own.get(k) or (ref(k) if k in shared else KEY_VALUES[k])
        for k in sorted(keys, key=_key_order)
    }


_ORDER = ("column", "columns", "must_be", "warn")


def _key_order(key: str) -> tuple[int, str]:
    return (_ORDER.index(key) if key in _ORDER else len(_ORDER), key)


def _merge(parts: list[Schema]) -> Schema:
    """Constraints as one schema: required keys merged, the rest under allOf."""
    # a key required twice (implied by another key and declared) is listed once: JSON
    # Schema wants a required list of unique names
    required = list(
        dict.fromkeys(k for p in parts if list(p) == ["required"] for k in p["required"])
    )
    others = [p for p in parts if list(p) != ["required"]]
    merged: Schema = {"required": required} if required else {}
    if len(others) == 1 and not (set(others[0]) & set(merged)):
        merged.update(others[0])
    elif others:
        merged["allOf"] = others
    return merged


def rule_schema(kind: str) -> Schema:
    """One rule type: its keys, and (without ``targets``) what it requires. With
    ``targets`` the shared keys and each target's keys only need to be the type's: the
    merged rules are what the requirements apply to, which a schema cannot merge."""
    params = _params(kind)
    constraints = _implied(RULES[kind].keys, kind) + list(RULES[kind].requires)
    properties = {
        **COMMON,
        "type": ref(f"type_{kind}"),
        **params,
        "targets": ref("targets", items=ref(f"target_{kind}")),
    }
    refused = [k for k in BESIDE_REFUSED if k in properties]
    return {
        "type": "object",
        "description": description(kind),
        "additionalProperties": False,
        "required": ["type"],
        "properties": properties,
        "if": required("targets"),
        "then": {"not": required(*refused) if len(refused) == 1 else any_of(*refused)},
        "else": _merge(constraints),
    }


def target_schema(kind: str) -> Schema:
    return {
        "type": "object",
        "description": (
            f"One {kind} rule: these keys override the shared ones (no type, no targets)."
        ),
        "additionalProperties": False,
        "properties": {k: v for k, v in COMMON.items() if k != "type"} | _params(kind),
    }


WORDED = tuple(BESIDE)
"""The keys of a rule written in a dialect's words (:mod:`assay.dialects.embedded`)."""


def dispatch() -> Schema:
    """Any rule: its type names the schema it must satisfy; a rule in a dialect's words
    (docs/config.md) is its dialect's to check."""
    every = sorted(RULES.keys() | ALIASES.keys())
    return {
        "type": "object",
        "anyOf": [required("type"), *(required(key) for key in WORDED)],
        "properties": {
            "type": {
                "enum": every,
                "description": "The rule type (docs/rules.md lists every type and alias).",
            }
        },
        "allOf": [
            {
                "if": {**required("type"), "properties": {"type": ref(f"type_{kind}")}},
                "then": ref(f"rule_{kind}"),
            }
            for kind in RULES
        ],
    }


def rule_problems() -> list[str]:
    """What stops the generation in the rule types: a key without a value kind, values
    for keys a type does not take, a type without its doc, a value kind no rule uses."""
    problems = []
    for kind, spec in RULES.items():
        missing = sorted(k for k in spec.keys if k not in KEY_VALUES and k not in spec.values)
        if missing:
            problems.append(
                f"rule {kind}: no value kind for {', '.join(missing)} (add it to KEY_VALUES)"
            )
        stale = sorted(set(spec.values) - spec.keys)
        if stale:
            problems.append(f"rule {kind}: its values name keys it does not take: {stale}")
        if spec.doc is None:
            problems.append(f"rule {kind}: no doc (declare its RuleDoc)")
    used = {k for spec in RULES.values() for k in spec.keys}
    if set(KEY_VALUES) - used:
        problems.append(f"KEY_VALUES has keys no rule takes: {sorted(set(KEY_VALUES) - used)}")
    return problems
