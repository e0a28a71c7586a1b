"""The JSON Schema of the native format, generated from the rule catalogue.

``native.schema.json`` is derived, never edited: the rule types, their aliases, the keys
each accepts, the value of each key, what each type requires and its description come from
the declarations in :data:`assay.dialects.catalogue.RULES` (and the key vocabulary
:data:`~assay.dialects.rule_spec.KEY_VALUES`); the keys of the document, tables, sources
and variables from :mod:`assay.dialects.native`; named formats, operators, levels and
write modes from the modules that define them. Rewrite the file with::

    python -m assay.schema.generate

(``--check`` exits 1 when the committed file differs). A key the catalogue gains without
a kind here, or a kind left for a key it lost, stops the generation with an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from assay.dialects import compare, native, validations
from assay.dialects.catalogue import ALIASES
from assay.dialects.catalogue import RULES as _ALL_RULES
from assay.dialects.formats import FORMATS
from assay.dialects.native_rules import METRIC_KEYS
from assay.dialects.params import COMPARISON_OPERATORS
from assay.dialects.rule_spec import (
    COMMON_KEYS,
    KEY_VALUES,
    LEVELS,
    SCALAR,
    TEXT,
    Schema,
    any_of,
    one_of,
    ref,
    required,
)
from assay.dialects.targets import BESIDE_REFUSED
from assay.dialects.validity import VALIDITY_KEYS
from assay.ir.outputs import WRITE_MODES

# The catalogue's own rule types: custom types registered by a plugin loaded in this process
# are not part of the package's schema.
RULES = {kind: spec for kind, spec in _ALL_RULES.items() if not spec.custom}


PATH = Path(__file__).with_name("native.schema.json")
ID = "https://github.com/spark-assay/spark-assay/blob/main/src/assay/schema/native.schema.json"
COMMAND = "python -m assay.schema.generate"


# --- values shared by many keys -----------------------------------------------------------


VALUES: dict[str, Schema] = {
    "column": {"type": "string", "minLength": 1, "description": "A column name."},
    "columns": {
        "type": "array",
        "minItems": 1,
        "uniqueItems": True,
        "items": ref("column"),
        "description": "A non-empty list of column names, without duplicates.",
    },
    "count": {"type": "integer", "minimum": 0},
    "threshold": {
        "type": ["string", "number"],
        "description": (
            "A threshold: > 0, <= 10, = 0, != 0, between 10 and 20, not between 1 and 2,"
            " < 5%, <= 2h; a bare number means equality."
        ),
    },
    "tolerance": {
        "type": ["string", "number"],
        "description": (
            'Failing rows allowed: a count (10), a fraction (0.05) or a percentage ("5%").'
            " Default 0."
        ),
    },
    "bound": {
        "type": ["number", "string"],
        "description": "A number, or a date/timestamp (YAML date or ISO 8601 string).",
    },
    "column_bound": {
        "type": ["number", "string"],
        "description": (
            "A number, a date/timestamp, a string, or another column as `name (leading backtick)."
        ),
    },
    "length_bound": {
        "oneOf": [{"type": "integer"}, {"type": "string", "pattern": "^`"}],
        "description": "A length (an integer), or another integer column as `name.",
    },
    "values": {
        "type": "array",
        "minItems": 1,
        "items": {"type": SCALAR},
        "description": "A non-empty list of strings, numbers, booleans or dates (no null).",
    },
    "regex": {
        "type": "string",
        "minLength": 1,
        "description": "A Java regular expression (Spark's RLIKE), searched anywhere in the value.",
    },
    "operator": {"enum": list(COMPARISON_OPERATORS)},
    "format": {"enum": sorted(FORMATS), "description": "A named format (docs/rules.md)."},
    "level": {
        "enum": list(LEVELS),
        "default": "error",
        "description": "error: a failure fails the run; warn: a failure is only a warning.",
    },
    "rule_name": {**TEXT, "description": "A readable name shown in results."},
    "rule_code": {**TEXT, "description": "Your identifier for this rule, copied to results."},
    "targets": {
        "type": "array",
        "minItems": 1,
        "description": (
            "Expand this entry into one rule per target (each target's keys override the"
            " shared ones)."
        ),
    },
    "sample_size": {
        "type": "integer",
        "minimum": 0,
        "maximum": native.MAX_SAMPLE_SIZE,
        "description": "Sample failing rows shown per failed rule (default 5).",
    },
    "on_failure": {
        "enum": list(native.ON_FAILURE),
        "description": (
            "What failing rules do to the run: fail (default) fails it (exit 1); warn only"
            " reports them. Verdicts (passed, severity) are unchanged."
        ),
    },
}

# --- rule keys ----------------------------------------------------------------------------

_COMMON: dict[str, Schema] = {
    "type": {},  # each rule type's own enum, filled in by _rule
    "name": ref("rule_name"),
    "level": ref("level"),
    "code": ref("rule_code"),
}


def description(kind: str) -> str:
    """A rule type's description in the schema: its documentation, as plain text."""
    doc = RULES[kind].doc
    assert doc is not None  # checked by _check_coverage
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
        found.append(required("must_be"))
    if keys >= VALIDITY_KEYS:
        found.append(any_of(*sorted(VALIDITY_KEYS)))
    return found


def _names(kind: str) -> list[str]:
    return [kind, *sorted(a for a, k in ALIASES.items() if k == kind)]


def _type(kind: str) -> Schema:
    names = _names(kind)
    return {"const": kind} if len(names) == 1 else {"enum": names}


def _params(kind: str) -> dict[str, Schema]:
    """The value schemas of a rule type's own keys."""
    keys = RULES[kind].keys
    own = RULES[kind].values
    return {k: own.get(k) or KEY_VALUES[k] for k in sorted(keys, key=_key_order)}


_ORDER = ("column", "columns", "must_be", "warn")


def _key_order(key: str) -> tuple[int, str]:
    return (_ORDER.index(key) if key in _ORDER else len(_ORDER), key)


def _merge(parts: list[Schema]) -> Schema:
    """Constraints as one schema: required keys merged, the rest under allOf."""
    required = [k for p in parts if list(p) == ["required"] for k in p["required"]]
    others = [p for p in parts if list(p) != ["required"]]
    merged: Schema = {"required": required} if required else {}
    if len(others) == 1 and not (set(others[0]) & set(merged)):
        merged.update(others[0])
    elif others:
        merged["allOf"] = others
    return merged


def _rule(kind: str) -> Schema:
    """One rule type: its keys, and (without ``targets``) what it requires. With
    ``targets`` the shared keys and each target's keys only need to be the type's: the
    merged rules are what the requirements apply to, which a schema cannot merge."""
    params = _params(kind)
    constraints = _implied(RULES[kind].keys, kind) + list(RULES[kind].requires)
    properties = {
        **_COMMON,
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


def _target(kind: str) -> Schema:
    return {
        "type": "object",
        "description": (
            f"One {kind} rule: these keys override the shared ones (no type, no targets)."
        ),
        "additionalProperties": False,
        "properties": {k: v for k, v in _COMMON.items() if k != "type"} | _params(kind),
    }


def _dispatch() -> Schema:
    """Any rule: its type names the schema it must satisfy."""
    every = sorted(RULES.keys() | ALIASES.keys())
    return {
        "type": "object",
        "required": ["type"],
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


# --- the document -------------------------------------------------------------------------

_SCALAR_MAP: Schema = {"type": "object", "additionalProperties": {"type": SCALAR}}

_SOURCE: dict[str, Schema] = {
    "table": {**TEXT, "description": "A catalog table or view."},
    "path": {
        "oneOf": [TEXT, {"type": "array", "minItems": 1, "items": TEXT}],
        "description": "File(s) or URI(s); relative paths are relative to the config file.",
    },
    "sql": {**TEXT, "description": "A SQL query."},
    "format": {**TEXT, "description": "Spark data source format (default: from the extension)."},
    "options": {**_SCALAR_MAP, "description": "Reader options."},
}

_TABLE: dict[str, Schema] = {
    "name": {
        "type": "string",
        "pattern": "^" + native._TABLE_NAME.pattern + "$",
        "description": "Unique in the suite; default: from the source.",
    },
    "source": ref("source"),
    "filter": {**TEXT, "description": "SQL predicate applied before every rule."},
    "keys": ref("columns", description="Key columns shown with sample rows."),
    "sample_size": ref("sample_size"),
    "on_failure": ref("on_failure"),
    "rules": {"type": "array", "minItems": 1, "items": ref("rule")},
    "validations": ref("validations"),
    "history": ref(
        "sink",
        description="Append every rule's verdict per run (the report's columns plus run_id, "
        "table, rule_index, location): read back by assay report --history.",
    ),
}

_TOLERANCE_OF_COMPARE: Schema = {
    "oneOf": [
        {"type": "number", "minimum": 0},
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "absolute": {"type": "number", "minimum": 0},
                "relative": {"type": "number", "minimum": 0},
            },
        },
    ],
    "description": "Numbers match when |source - target| <= absolute + relative * |target|.",
}

_COMPARE: dict[str, Schema] = {
    "name": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
    "source": ref("source"),
    "target": ref("source"),
    "keys": ref("columns"),
    "columns": ref("columns"),
    "select_cols": ref("columns"),
    "drop_cols": ref("columns"),
    "source_filter": TEXT,
    "target_filter": TEXT,
    "tolerance": ref("compare_tolerance"),
    "column_tolerance": {"type": "object", "additionalProperties": ref("compare_tolerance")},
    "ignore_case": {"type": "boolean"},
    "ignore_whitespace": {"type": "boolean"},
    "sample_size": ref("sample_size"),
    "on_failure": ref("on_failure"),
    "checks": {
        "type": "object",
        "description": "Reconciliation metric -> threshold, or {must_be, warn} (docs/compare.md).",
        "additionalProperties": {
            "oneOf": [
                ref("threshold"),
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["must_be"],
                    "properties": {"must_be": ref("threshold"), "warn": ref("threshold")},
                },
            ]
        },
    },
}

_TOP: dict[str, Schema] = {
    "$schema": {"type": "string", "description": "Ignored (for editors)."},
    "version": {"const": 1, "description": "Format version; only 1 exists."},
    "vars": {
        "type": "object",
        "propertyNames": {"pattern": "^" + native._VAR_NAME.pattern + "$"},
        "additionalProperties": ref("var"),
        "description": "Variables for $name / ${name} in strings under tables.",
    },
    "sample_size": ref("sample_size"),
    "on_failure": ref("on_failure"),
    "tables": {"type": "array", "minItems": 1, "items": ref("table")},
    "compare": {
        "type": "array",
        "minItems": 1,
        "items": ref("comparison"),
        "description": "Dataset comparisons by key (docs/compare.md).",
    },
}

_VAR: dict[str, Schema] = {
    "env": {**TEXT, "description": "Environment variable to read."},
    "default": {"type": SCALAR, "description": "Used when the environment variable is unset."},
}

_SINK: dict[str, Schema] = {
    "format": TEXT,
    "path": TEXT,
    "mode": {"enum": list(WRITE_MODES)},
    "partition_by": ref("columns"),
    "options": _SCALAR_MAP,
}

_BLOCK: dict[str, Schema] = {
    "on_failure": {"enum": list(validations.ON_FAILURE)},
    "rules": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["type"]}},
    "report": ref("sink"),
    "outputs": {
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {"valid": ref("sink"), "invalid": ref("sink")},
    },
}


def _structure() -> dict[str, Schema]:
    return {
        "var": {"oneOf": [{"type": SCALAR}, _object(_VAR, required=["env"])]},
        "source": _object(
            _SOURCE,
            description="Exactly one of table, path or sql.",
            oneOf=[required("table"), required("path"), required("sql")],
            dependentRequired={"format": ["path"], "options": ["path"]},
        ),
        "table": _object(
            _TABLE,
            required=["source"],
            anyOf=[required("rules"), required("validations")],
        ),
        "rule": _dispatch(),
        "sink": _object(
            _SINK,
            required=["format", "path"],
            description=(
                "Where Spark writes rows: a path (it has a '/' or a URI scheme) or a catalog"
                " table (db.table)."
            ),
        ),
        "validations": _object(
            _BLOCK,
            required=["rules"],
            description=(
                "A sparquet validations block (docs/dialects.md): its rules run with the"
                " table's; on_failure, report and outputs as in sparquet."
            ),
        ),
    }


def _object(properties: dict[str, Schema], **extra: Any) -> Schema:
    head: Schema = {"type": "object", "additionalProperties": False}
    if "description" in extra:
        head["description"] = extra.pop("description")
    if "required" in extra:
        head["required"] = extra.pop("required")
    return {**head, "properties": properties, **extra}


def _check_coverage() -> None:
    """Every key the code accepts has a schema here, and nothing else does."""
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
    for what, given, code in (
        ("top-level", _TOP, native.TOP_KEYS),
        ("table", _TABLE, native.TABLE_KEYS),
        ("source", _SOURCE, native.SOURCE_KEYS),
        ("variable", _VAR, native.VAR_KEYS),
        ("sink", _SINK, validations.SINK_KEYS),
        ("comparison", _COMPARE, compare.ENTRY_KEYS),
        ("validations", _BLOCK, validations.BLOCK_KEYS),
        ("rule", _COMMON, COMMON_KEYS - {"targets"}),
    ):
        if set(given) != set(code):
            problems.append(f"{what} keys differ from the code's: {sorted(set(given) ^ set(code))}")
    if problems:
        raise SystemExit("cannot generate the schema:\n  " + "\n  ".join(problems))


def schema() -> Schema:
    """The native format's JSON Schema (draft 2020-12)."""
    _check_coverage()
    defs: dict[str, Schema] = {**VALUES, **_structure()}
    defs["compare_tolerance"] = _TOLERANCE_OF_COMPARE
    defs["comparison"] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["source", "target", "keys"],
        "properties": _COMPARE,
    }
    for kind in RULES:
        defs[f"type_{kind}"] = _type(kind)
    for kind in RULES:
        defs[f"rule_{kind}"] = _rule(kind)
        defs[f"target_{kind}"] = _target(kind)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": ID,
        "title": "spark-assay native config",
        "description": (
            f"Data-quality checks for Spark tables. See docs/config.md. Generated by {COMMAND}"
            " from the rule catalogue: do not edit."
        ),
        "type": "object",
        "additionalProperties": False,
        "anyOf": [{"required": ["tables"]}, {"required": ["compare"]}],
        "patternProperties": {
            "^" + native.EXTENSION: {"description": "Ignored: a place for YAML anchors."}
        },
        "properties": _TOP,
        "$defs": defs,
    }


# --- writing ------------------------------------------------------------------------------

WIDTH = 100


def dumps(value: Any, indent: int = 0, used: int = 0) -> str:
    """JSON with a value on one line when it fits in :data:`WIDTH` columns (``used`` of
    them are taken by the key before it), else one member per line: short, diffable,
    and stable (keys keep their order)."""
    flat = json.dumps(value, ensure_ascii=False)
    if used + len(flat) <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        flats = [json.dumps(v, ensure_ascii=False) for v in value]
        if all(len(f) <= WIDTH // 3 for f in flats):
            items = _packed(flats, pad)  # short items (an enum, say): several per line
        else:
            items = [pad + dumps(v, indent + 2, indent + 3) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = []
    for k, v in value.items():
        key = f"{pad}{json.dumps(k, ensure_ascii=False)}: "
        items.append(key + dumps(v, indent + 2, len(key) + 1))
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def _packed(flats: list[str], pad: str) -> list[str]:
    lines = [pad + flats[0]]
    for f in flats[1:]:
        if len(lines[-1]) + len(f) + 3 <= WIDTH:
            lines[-1] += ", " + f
        else:
            lines.append(pad + f)
    return lines


def text() -> str:
    """The file's content."""
    return dumps(schema()) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema and the docs' rule tables (:mod:`assay.schema.rule_tables`), or
    with ``--check`` exit 1 when a committed one differs."""
    from assay.schema import rule_tables

    args = sys.argv[1:] if argv is None else argv
    wanted = text()
    if args == ["--check"]:
        stale = [str(p) for p in rule_tables.stale()]
        if PATH.read_text(encoding="utf-8") != wanted:
            stale.insert(0, str(PATH))
        for name in stale:
            print(f"{name} is out of date: run {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    if args:
        print(f"usage: {COMMAND} [--check]", file=sys.stderr)
        return 2
    PATH.write_text(wanted, encoding="utf-8")
    print(f"wrote {PATH}", file=sys.stderr)
    for doc in rule_tables.write():
        print(f"wrote {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
