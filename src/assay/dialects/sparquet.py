"""A sparquet ``validations`` file -> one IR table (docs/dialects.md, "sparquet").

The file holds a ``validations`` block (and optionally the pipeline's ``name``); the table
it checks is given on the command line (``--source``: a catalog table or a path). The
block itself is read by :mod:`assay.dialects.validations`, which the native format shares.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.config.node import Node
from assay.dialects import sources, validations
from assay.dialects.base import Context, Dialect
from assay.ir.suite import Source, Table

NAME = "sparquet"
TOP_KEYS = frozenset({"validations", "name", "$schema"})
PIPELINE_KEYS = ("input", "inputs", "transformations", "output", "outputs", "source", "sources")


def matches(doc: Node) -> bool:
    """A mapping with a top-level ``validations`` block."""
    return isinstance(doc.value, dict) and "validations" in doc.value


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The one table a validations file checks; errors go to ``ctx.errors``."""
    mapping = doc.as_mapping("a mapping with 'validations'")
    before = len(ctx.errors)
    for key in mapping:
        if key in PIPELINE_KEYS:
            ctx.errors.append(
                mapping[key].error(
                    f"'{key}' is a pipeline step: assay runs only the validations block",
                    hint="remove it, and give the table to validate with --source "
                    "(a catalog table or a path)",
                )
            )
    ctx.attempt(doc.check_keys, TOP_KEYS | set(PIPELINE_KEYS))
    pipeline = ctx.attempt(_pipeline, doc, ctx)
    source = ctx.attempt(_source, doc, ctx)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", pipeline or "pipeline").strip("_.") or "pipeline"
    block_node = ctx.attempt(doc.require, "validations")
    if block_node is None:
        return ()
    found = validations.block(block_node, ctx, pipeline or name, 0)
    if len(ctx.errors) > before or source is None:
        return ()
    return (
        Table(
            name=name,
            source=source,
            rules=found.rules,
            origin=block_node.origin,
            outputs=found.outputs,
            hold_outputs=found.hold,
        ),
    )


def _pipeline(doc: Node, ctx: Context) -> str:
    """``--pipeline``, else the file's ``name``, else the file name without extension."""
    if ctx.options.pipeline:
        return ctx.options.pipeline
    node = doc.get("name")
    if node is not None:
        return node.as_str("a pipeline name")
    return Path(ctx.file).name.split(".")[0] or "pipeline"


def _source(doc: Node, ctx: Context) -> Source:
    return sources.command_line_source(
        doc,
        ctx.options,
        "a sparquet validations file checks the table given with --source",
        hint="pass --source db.table or --source path/to/data.parquet",
    )


DIALECT = Dialect(
    name=NAME,
    shape="a sparquet validations file (a mapping with 'validations': rules, on_failure...)",
    matches=matches,
    build=build,
)
