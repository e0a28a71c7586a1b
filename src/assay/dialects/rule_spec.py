"""What a rule type is, declared once: :class:`RuleSpec` (its builder, keys, aliases, the
JSON Schema of its values and its documentation), :class:`Built` (what a builder makes),
and the vocabulary the declarations share (:data:`KEY_VALUES`, the schema helpers).

The catalogue (:mod:`assay.dialects.catalogue`) is a list of these; the JSON Schema
(:mod:`assay.schema.generate`) and the rule tables of docs/rules.md and docs/config.md are
derived from it (``python -m assay.schema.generate``; a test checks they are current).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.config.node import Node
from assay.ir.rules import Check, Level, TypeFamily
from assay.monitoring.registry import STRATEGIES

Schema = dict[str, Any]

COMMON_KEYS = frozenset({"type", "name", "level", "code", "targets", "scope"})
"""Keys every rule accepts (``targets`` is expanded away before a rule is built)."""
LEVELS: tuple[Level, ...] = ("error", "warn")
FILTER_KEY = frozenset({"filter"})
"""A rule whose measures can be taken over some rows only (every row-level and metric
rule; not schema, sql or colstats)."""
OVER_TIME_KEYS = frozenset({"change", "anomaly"})
"""A measured rule judged against its own history too (docs/monitoring.md)."""
ROW_KEYS = frozenset({"tolerance"}) | FILTER_KEY | OVER_TIME_KEYS
"""What a row-level rule takes besides its columns."""
ONE_COLUMN = frozenset({"column"})
ONE_OR_MORE_COLUMNS = frozenset({"column", "columns"})


@dataclass(frozen=True, slots=True)
class Built:
    """What a builder contributes to a :class:`Rule` (the rest is common to all rules)."""

    check: Check
    columns: tuple[str, ...] = ()
    requires: tuple[tuple[str, TypeFamily], ...] = ()
    threshold: str | None = None


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """A rule type in the docs' words (Markdown): one row of the rule tables."""

    params: str
    """The keys it takes besides the common ones, and their forms."""
    fails: str
    """When it fails (for a row-level rule: when a row fails)."""
    nulls: str
    """What a null does."""
    columns: str
    """The column kinds it works on."""
    plan: str
    """Where it is computed: agg, group, hist, sql, schema."""


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """A rule type: its builder, the keys it accepts besides :data:`COMMON_KEYS`, its other
    names, the schema of its values where it differs from :data:`KEY_VALUES`, what it
    requires beyond what its keys imply, and its documentation."""

    build: Callable[[Node], Built]
    keys: frozenset[str]
    custom: bool = False
    """Registered from Python (:mod:`assay.dialects.plugins`), not built in."""
    aliases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    """Rules of this type (under its name or an alias: every alias has one), in YAML flow
    style, that pass on the sample table of tests/integration/test_catalogue_fused.py
    (``ROWS``): every example runs there, fused into one plan and alone."""
    doc: RuleDoc | None = None
    """None only for a custom type (a plugin's)."""
    values: Mapping[str, Schema] = field(default_factory=dict)
    requires: tuple[Schema, ...] = ()

    @property
    def row_level(self) -> bool:
        """Whether every row passes or fails (it takes a ``tolerance``)."""
        return "tolerance" in self.keys


# --- schema vocabulary ------------------------------------------------------------------


def ref(name: str, **extra: Any) -> Schema:
    """A reference to ``#/$defs/<name>``, with ``extra`` keywords beside it."""
    return {"$ref": f"#/$defs/{name}", **extra}


def required(*keys: str) -> Schema:
    """Every one of ``keys`` is present."""
    return {"required": list(keys)}


def any_of(*keys: str) -> Schema:
    """At least one of ``keys`` is present."""
    return {"anyOf": [required(k) for k in keys]}


def one_of(a: str, b: str) -> Schema:
    """Exactly one of ``a`` and ``b`` is present."""
    return {
        "oneOf": [
            {**required(a), "not": required(b)},
            {**required(b), "not": required(a)},
        ]
    }


TEXT: Schema = {"type": "string", "minLength": 1}
RUNS: dict[str, Schema] = {
    "min_runs": {"type": "integer", "minimum": 1, "description": "Earlier runs needed to judge."},
    "too_little": {"enum": ["pass", "fail"], "default": "pass"},
}
_KINDS: dict[str, Schema] = {
    "number": {"type": "number"},
    "optional number": {"type": ["number", "null"]},
    "integer": {"type": "integer"},
    "boolean": {"type": "boolean"},
    "text": {"type": "string"},
}


def anomaly_schema(name: str) -> Schema:
    """The mapping form of anomaly strategy ``name``: its parameters and the window."""
    params = {k: _KINDS[kind] for k, kind in STRATEGIES[name].params.items()}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["strategy"],
        "properties": {
            "strategy": {"const": name},
            "window": {"type": "integer", "minimum": 1, "description": "Earlier runs read."},
            **RUNS,
            **params,
        },
    }


SCALAR = ["string", "number", "boolean"]

KEY_VALUES: dict[str, Schema] = {
    "column": ref("column"),
    "columns": ref("columns"),
    "tolerance": ref("tolerance"),
    "group_by": {
        "oneOf": [
            {**TEXT},
            {"type": "array", "items": {**TEXT}, "minItems": 1, "uniqueItems": True},
        ],
        "description": "Judge the metric for every group of equal values of these columns (a"
        " null is a value): the rule fails when any group fails; its samples are the failing"
        " groups with their values.",
    },
    "filter": {
        **TEXT,
        "description": "A SQL predicate: only the rows where it is true are checked (null"
        " excludes a row), on top of the table's filter.",
    },
    "must_be": ref("threshold", description="Must hold, else the rule fails."),
    "warn": ref("threshold", description="The rule warns when must_be holds and this does not."),
    "min": ref("bound", description="Lowest allowed value."),
    "max": ref("bound", description="Highest allowed value."),
    "inclusive": {"type": "boolean", "default": True, "description": "Whether the bounds pass."},
    "pattern": ref("regex"),
    "regex": ref("regex"),
    "values": ref("values", description="The accepted values."),
    "allowed_values": ref("values", description="The allowed values."),
    "missing_values": ref("values", description="Values counted as missing, besides null."),
    "valid_values": ref("values", description="A value not in this list is invalid."),
    "invalid_values": ref("values", description="A value in this list is invalid."),
    "valid_format": ref("format"),
    "valid_regex": ref("regex"),
    "valid_min": ref("bound", description="A value below is invalid (inclusive)."),
    "valid_max": ref("bound", description="A value above is invalid (inclusive)."),
    "valid_min_length": ref("count", description="A shorter string is invalid."),
    "valid_max_length": ref("count", description="A longer string is invalid."),
    "valid_length": ref("count", description="A string of another length is invalid."),
    "min_value": ref("column_bound", description="Lower bound."),
    "max_value": ref("column_bound", description="Upper bound."),
    "min_length": ref("length_bound", description="Shortest allowed length."),
    "max_length": ref("length_bound", description="Longest allowed length."),
    "min_num_rows": {
        "type": "integer",
        "minimum": 1,
        "description": "data-validator rowCount: at least this many rows (like min).",
    },
    "required_columns": ref("columns", description="Columns that must exist."),
    "forbidden_columns": ref("columns", description="Columns that must not exist."),
    "column_types": {
        "type": "object",
        "minProperties": 1,
        "additionalProperties": TEXT,
        "description": (
            "column -> Spark type name (long, integer, decimal(p,s)... are accepted aliases)"
        ),
    },
    "query": {**TEXT, "description": "A query over _validation_df returning one boolean."},
    "failed_rows": {
        **TEXT,
        "description": "A query returning the offending rows; failed_count is their number.",
    },
    "error_message": {"type": "string", "description": "Shown when the rule fails."},
    "value": {"type": SCALAR, "description": "The value max(column) must equal."},
    "size": ref("count", description="The row count compared with operator."),
    "operator": ref("operator"),
    "fraction": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0},
    "change": {
        "type": "object",
        "additionalProperties": False,
        "required": ["must_be"],
        "properties": {
            "vs": {
                "type": "string",
                "pattern": r"(?i)^\s*(last|(avg|min|max|median)\s+of\s+(the\s+)?last\s+[0-9]+)"
                r"\s*$",
                "default": "last",
                "description": "last, or avg/min/max/median of last N (runs).",
            },
            "must_be": ref(
                "threshold",
                description="The change must hold this: in % of the"
                " baseline when written in %, else as a difference.",
            ),  # fmt: skip
            "warn": ref("threshold"),
            **RUNS,
        },
        "description": "Judge the rule's value against earlier runs' (docs/monitoring.md).",
    },
    "anomaly": {
        "oneOf": [
            {"enum": sorted(STRATEGIES)},
            *(anomaly_schema(name) for name in sorted(STRATEGIES)),
        ],
        "description": "One of Deequ's anomaly detection strategies over the rule's earlier"
        " values (docs/monitoring.md).",
    },
}
"""The value of each rule key, whatever the rule (a rule's own ``values`` override it)."""
