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

Each rule type's schema is :mod:`assay.schema.rule_schemas`', the document's around the
rules :mod:`assay.schema.document`'s; here are the values shared by many keys, the
assembly of the file and its writing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from assay.dialects import native
from assay.dialects.formats import FORMATS
from assay.dialects.params import COMPARISON_OPERATORS
from assay.dialects.rule_spec import LEVELS, SCALAR, TEXT, Schema, ref
from assay.schema.document import TOP, comparisons, document_problems, structure
from assay.schema.rule_schemas import (
    RULES,
    rule_problems,
    rule_schema,
    shared_values,
    target_schema,
    type_schema,
)

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


def _check_coverage() -> None:
    """Every key the code accepts has a schema here, and nothing else does."""
    problems = rule_problems() + document_problems()
    if problems:
        raise SystemExit("cannot generate the schema:\n  " + "\n  ".join(problems))


def schema() -> Schema:
    """The native format's JSON Schema (draft 2020-12)."""
    _check_coverage()
    defs: dict[str, Schema] = {**VALUES, **structure()}
    defs.update(comparisons())
    shared = shared_values()
    clashes = sorted(set(shared) & set(defs))
    if clashes:
        raise SystemExit(f"cannot generate the schema: $defs named twice: {clashes}")
    defs.update(shared)
    for kind in RULES:
        defs[f"type_{kind}"] = type_schema(kind)
    for kind in RULES:
        defs[f"rule_{kind}"] = rule_schema(kind)
        defs[f"target_{kind}"] = target_schema(kind)
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
        "properties": TOP,
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
