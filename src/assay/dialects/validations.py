"""A sparquet ``validations`` block -> rules and outputs of one table.

Shared by the sparquet dialect (a file holding a ``validations`` block) and the native
format (a table may carry one). Rules are the native catalogue (sparquet's rule types are
native types), with ``targets`` expanded at parse time; ``on_failure`` decides what a
failing rule does:

- ``fail`` (default): a failure exits 1 and holds every write of the block (report, row
  split, ``failed_rows`` outputs);
- ``warn`` / ``skip``: a failure is reported as it is (``passed: false``, severity
  ``fail``, as in sparquet's report) but does not fail the run (exit 0), and everything
  is written.

The policy is the rules' ``on_failure``: it never changes a verdict.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects import sources
from assay.dialects.base import Context
from assay.dialects.catalogue import rule_type
from assay.dialects.sparquet_rules import build_sparquet_rule
from assay.dialects.targets import expand_targets
from assay.ir.outputs import WRITE_MODES, Output, RowSplit, RuleReport, Sink, SqlRows
from assay.ir.rules import OnFailure, Rule, SqlCheck

BLOCK_KEYS = frozenset({"on_failure", "rules", "report", "outputs"})
ON_FAILURE = ("fail", "warn", "skip")
SINK_KEYS = frozenset({"format", "path", "mode", "partition_by", "options"})
REPORT_COLUMNS = (
    "pipeline",
    "rule_type",
    "check_name",
    "severity",
    "passed",
    "failed_count",
    "metric_value",
    "message",
    "validated_at",
)
HISTORY_COLUMNS = (*REPORT_COLUMNS, "run_id", "table", "rule_index", "location")
"""A native ``history:`` output's columns: sparquet's report and where each row comes from."""


@dataclass(frozen=True)
class Block:
    """What a validations block adds to its table: rules (after the table's own), outputs
    (rule indices already counted from the table's first rule), and the rules whose
    failure holds the outputs (``on_failure: fail``)."""

    rules: tuple[Rule, ...]
    outputs: tuple[Output, ...]
    hold: tuple[int, ...]
    on_failure: OnFailure


def block(node: Node, ctx: Context, pipeline: str, first_index: int) -> Block:
    """Parse a ``validations`` block whose rules will start at table rule ``first_index``.

    Every error goes to ``ctx.errors``; rules with an error are left out (the caller drops
    the table when any error was recorded).
    """
    node.as_mapping("a validations block (a mapping with 'rules')")
    ctx.attempt(node.check_keys, BLOCK_KEYS)
    on_failure = ctx.attempt(_on_failure, node) or "fail"
    rules: list[Rule] = []
    sql_outputs: list[Output] = []
    rules_node = ctx.attempt(node.require, "rules")
    items = ctx.attempt(rules_node.as_list, "a list of rules") if rules_node is not None else None
    if items == [] and rules_node is not None:
        ctx.errors.append(
            rules_node.error(
                "expected at least one rule, got an empty list",
                hint="a block with 0 rules would pass silently",
            )
        )
    for item in items or ():
        for expanded in ctx.attempt(expand_targets, item) or ():
            built = ctx.attempt(_rule, expanded, on_failure, ctx)
            if built is None:
                continue
            rule, sink = built
            index = first_index + len(rules)
            rules.append(rule)
            if sink is not None:
                assert isinstance(rule.check, SqlCheck)
                sql_outputs.append(SqlRows(index, rule.check.query, sink))
    indices = tuple(range(first_index, first_index + len(rules)))
    outputs: list[Output] = list(sql_outputs)
    outputs_node = node.get("outputs")
    if outputs_node is not None:
        row_level = tuple(i for i, r in zip(indices, rules, strict=True) if r.is_row_level)
        split = ctx.attempt(_split, outputs_node, ctx, row_level)
        if split is not None:
            outputs.insert(0, split)
    report_node = node.get("report")
    if report_node is not None:
        sink = ctx.attempt(sink_of, report_node, ctx, REPORT_COLUMNS)
        if sink is not None:
            outputs.append(RuleReport(pipeline, indices, sink))
    hold = indices if on_failure == "fail" else ()
    return Block(tuple(rules), tuple(outputs), hold, on_failure)


def _on_failure(node: Node) -> OnFailure:
    child = node.get("on_failure")
    if child is None:
        return "fail"
    mode = child.as_str("'fail', 'warn' or 'skip'")
    if mode not in ON_FAILURE:
        hint = (
            "the mode is compared case-sensitively: write it in lower case"
            if mode.lower() in ON_FAILURE
            else None
        )
        raise child.error(f"expected 'fail', 'warn' or 'skip', got '{mode}'", hint=hint)
    return mode  # type: ignore[return-value]  # one of ON_FAILURE


def _rule(node: Node, on_failure: OnFailure, ctx: Context) -> tuple[Rule, Sink | None]:
    mapping = node.as_mapping("a rule (a mapping with a 'type')")
    if "level" in mapping:
        raise mapping["level"].error(
            "a validations rule has no 'level': the block's 'on_failure' decides what a "
            "failing rule does",
            hint="use on_failure: warn, or move the rule to the table's 'rules'",
        )
    sink = None
    if "output" in mapping:
        output = mapping["output"]
        if rule_type(node) != "sql" or "failed_rows" not in mapping:
            raise output.error("'output' applies only to a sql rule with 'failed_rows'")
        sink = sink_of(output, ctx)
        mapping = {k: v for k, v in mapping.items() if k != "output"}
    rule = build_sparquet_rule(Node(mapping, node.origin))
    return dataclasses.replace(rule, on_failure=on_failure), sink


def _split(node: Node, ctx: Context, row_level: tuple[int, ...]) -> RowSplit:
    node.as_mapping("a mapping with 'valid' and/or 'invalid'")
    node.check_keys({"valid", "invalid"})
    valid_node, invalid_node = node.get("valid"), node.get("invalid")
    if valid_node is None and invalid_node is None:
        raise node.error("outputs needs 'valid', 'invalid' or both")
    if not row_level:
        raise node.error(
            "outputs splits rows by the row-level rules (not_null, range, regex, unique, "
            "missing_*, invalid_*...), and this block has none"
        )
    valid = sink_of(valid_node, ctx) if valid_node is not None else None
    invalid = sink_of(invalid_node, ctx) if invalid_node is not None else None
    return RowSplit(row_level, valid, invalid)


def sink_of(node: Node, ctx: Context, columns: tuple[str, ...] | None = None) -> Sink:
    """An output config: ``format`` and ``path`` (required), ``mode``, ``partition_by``,
    ``options``. A ``path`` with a ``/`` or a URI scheme is a path (relative ones against
    the config file's directory); otherwise it names a catalog table (``db.table``).
    ``columns``: the columns the rows have, when known (``partition_by`` is checked)."""
    node.as_mapping("an output (a mapping with 'format' and 'path')")
    node.check_keys(SINK_KEYS)
    fmt = node.require("format").as_str("a Spark data source format").strip().lower()
    target_node = node.require("path")
    target = target_node.as_str("a path or a table name").strip()
    is_table = not ("/" in target or "\\" in target or sources.is_uri(target))
    if is_table and not sources.TABLE_NAME.fullmatch(target):
        raise target_node.error(
            f"'{target}' is neither a path (it has no '/') nor a table name (db.table)",
            hint="write ./name for a relative path",
        )
    if not is_table and not sources.is_uri(target):
        target = os.path.normpath(os.path.join(ctx.base_dir, target))
    mode = None
    mode_node = node.get("mode")
    if mode_node is not None:
        mode = mode_node.as_str("a save mode").strip().lower()
        if mode not in WRITE_MODES:
            raise mode_node.error(unknown_message("save mode", mode, WRITE_MODES))
    partition: tuple[str, ...] = ()
    partition_node = node.get("partition_by")
    if partition_node is not None:
        partition = p.column_list(partition_node, "a list of partition column names")
        if columns is not None:
            for name in partition:
                if name not in columns:
                    raise partition_node.error(
                        f"cannot partition by '{name}': the rows have the columns "
                        + ", ".join(columns)
                    )
    options = sources.reader_options(node.get("options"))
    return Sink(fmt, target, is_table, mode, partition, options, node.origin)
