"""The JSON Schema of the native document around its rules: the top-level keys, tables,
sources, variables, sinks, sparquet validations blocks and dataset comparisons, each
checked against the keys the code accepts (:mod:`assay.dialects.native`,
:mod:`assay.dialects.validations`, :mod:`assay.dialects.compare`)."""

from __future__ import annotations

from typing import Any

from assay.dialects import compare, native, over_time, validations
from assay.dialects.rule_spec import COMMON_KEYS, SCALAR, TEXT, Schema, ref, required
from assay.ir.outputs import WRITE_MODES
from assay.schema.rule_schemas import COMMON, dispatch

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
    "expectations": {
        **TEXT,
        "description": "A Great Expectations suite (JSON) run on this table, relative to the"
        " config file (docs/dialects.md).",
    },
    "sodacl": {
        **TEXT,
        "description": "A SodaCL checks file run on this table (its one dataset, or the one"
        " named as the table), relative to the config file (docs/dialects.md).",
    },
    "dqx": {
        **TEXT,
        "description": "A DQX checks file (YAML or JSON) run on this table, relative to the"
        " config file (docs/dialects.md).",
    },
    "history": ref(
        "sink",
        description="Append every rule's verdict per run (the report's columns plus run_id, "
        "table, rule_index, location): read back by assay report --history.",
    ),
    "incremental": {
        "type": "object",
        "additionalProperties": False,
        "required": ["by"],
        "properties": {"by": {"type": "string", "minLength": 1}},
        "description": "Scan only the partitions (values of the column 'by') new or changed"
        " since the states the metrics store holds, and judge each rule on the whole table"
        " by merging them (docs/incremental.md).",
    },
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

TOP: dict[str, Schema] = {
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
    "metrics": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "table": {**TEXT, "description": "A Spark catalog table (created when missing)."},
            "path": {**TEXT, "description": "A JSON-lines file (relative: beside this file)."},
            "format": {"enum": list(over_time.STORE_FORMATS)},
            "tags": {"type": "object", "additionalProperties": {"type": SCALAR}},
        },
        "oneOf": [{"required": ["table"]}, {"required": ["path"]}],
        "description": "The metrics store every run appends its measured values to and rules"
        " with change or anomaly read their history from (docs/monitoring.md).",
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


def structure() -> dict[str, Schema]:
    return {
        "var": {"oneOf": [{"type": SCALAR}, _object(_VAR, required=["env"])]},
        "source": _object(
            _SOURCE,
            description="Exactly one of table, path or sql.",
            oneOf=[required("table"), required("path"), required("sql")],
            dependentRequired={"format": ["path"], "options": ["path"]},
        ),
        "reference": _object(
            {
                **_SOURCE,
                "column": ref("column", description="The referenced key column."),
                "columns": ref("columns", description="The referenced key columns, in order."),
            },
            description="A foreign key's referenced side: exactly one of table, path or sql,"
            " and the referenced key column(s), matched in order with the rule's.",
            oneOf=[required("table"), required("path"), required("sql")],
            anyOf=[required("column"), required("columns")],
            dependentRequired={"format": ["path"], "options": ["path"]},
        ),
        "table": _object(
            _TABLE,
            required=["source"],
            anyOf=[
                required("rules"),
                required("validations"),
                required("expectations"),
                required("sodacl"),
                required("dqx"),
            ],
        ),
        "rule": dispatch(),
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


def comparisons() -> dict[str, Schema]:
    """The definitions of a comparison and of its tolerance."""
    return {
        "compare_tolerance": _TOLERANCE_OF_COMPARE,
        "comparison": {
            "type": "object",
            "additionalProperties": False,
            "required": ["source", "target", "keys"],
            "properties": _COMPARE,
        },
    }


def document_problems() -> list[str]:
    """The parts of the document whose keys here differ from the keys the code accepts."""
    problems = []
    for what, given, code in (
        ("top-level", TOP, native.TOP_KEYS),
        ("table", _TABLE, native.TABLE_KEYS),
        ("source", _SOURCE, native.SOURCE_KEYS),
        ("variable", _VAR, native.VAR_KEYS),
        ("sink", _SINK, validations.SINK_KEYS),
        ("comparison", _COMPARE, compare.ENTRY_KEYS),
        ("validations", _BLOCK, validations.BLOCK_KEYS),
        ("rule", COMMON, COMMON_KEYS - {"targets"}),
    ):
        if set(given) != set(code):
            problems.append(f"{what} keys differ from the code's: {sorted(set(given) ^ set(code))}")
    return problems
