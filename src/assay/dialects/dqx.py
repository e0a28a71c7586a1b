"""A DQX checks file (Databricks Labs DQX: a YAML or JSON list of ``{name, criticality,
check: {function, arguments, for_each_column}, filter, user_metadata}``) -> one IR table
(docs/dialects.md, "DQX checks files").

A checks file does not say where its data is: on its own it checks the table given with
``--source`` (as a Great Expectations suite), and a native table binds one with
``dqx: checks.yml``. Functions are mapped by :mod:`assay.dialects.dqx_functions`, with
DQX's semantics; ``criticality: warn`` is a rule of level ``warn`` (DQX's ``_warnings``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from assay.config.document import read_document
from assay.config.node import Node
from assay.dialects import sources
from assay.dialects.base import Context, Dialect
from assay.dialects.dqx_args import Args, Function, Mapped
from assay.dialects.dqx_functions import FUNCTIONS, NOT_RUN, OLD_FUNCTIONS
from assay.errors import ConfigError
from assay.ir.expr import Sql, walk
from assay.ir.origin import Origin
from assay.ir.rules import Level, RowCheck, Rule, SqlCheck
from assay.ir.suite import CatalogSource, PathSource, Source, Table

NAME = "dqx"
KIND = "dqx"
"""A DQX rule's kind is ``dqx:<function>``."""
ITEM_KEYS = frozenset({"name", "criticality", "check", "filter", "user_metadata", "message_expr"})
CHECK_KEYS = frozenset({"function", "arguments", "for_each_column"})


def is_dqx(rule: Rule) -> bool:
    """Whether ``rule`` was read from a DQX checks file."""
    return rule.kind.startswith(KIND + ":")


def matches(doc: Node) -> bool:
    """A non-empty list whose items are mappings with a ``check`` mapping."""
    if not isinstance(doc.value, list) or not doc.value:
        return False
    return all(isinstance(i.value, dict) and "check" in i.value for i in doc.value)


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The one table a checks file checks (its data given with ``--source``)."""
    before = len(ctx.errors)
    rules = checks_rules(doc, ctx)
    source = ctx.attempt(_source, doc, ctx)
    if len(ctx.errors) > before or source is None:
        return ()
    stem = Path(ctx.file).stem if ctx.file else "checks"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("_.") or "checks"
    return (Table(name=name, source=source, rules=rules, origin=doc.origin),)


def checks_rules(doc: Node, ctx: Context) -> tuple[Rule, ...]:
    """The rules of every check of a checks file (errors to ``ctx.errors``)."""
    items = ctx.attempt(doc.as_list, "a DQX checks file (a list of checks)")
    rules: list[Rule] = []
    for item in items or ():
        built = ctx.attempt(check_rules, item, ctx)
        rules.extend(built or ())
    return tuple(rules)


def bound_checks(node: Node, ctx: Context) -> tuple[Rule, ...]:
    """The rules of the checks file a native table names under ``dqx`` (a path,
    relative to the config file)."""
    path = Path(node.as_str("the path of a DQX checks file (YAML or JSON)"))
    full = path if path.is_absolute() else ctx.base_dir / path
    try:
        doc = read_document(full)
    except ConfigError as e:
        raise node.error(f"cannot read the checks file {path}: {e.message}", hint=e.hint) from None
    if not matches(doc):
        raise node.error(
            f"{path} is not a DQX checks file",
            hint="expected a list of checks, each a mapping with 'check: {function, arguments}'",
        )
    return checks_rules(doc, ctx)


def _criticality(item: Node) -> Level:
    node = item.get("criticality")
    if node is None or node.value is None:
        return "error"
    text = node.as_str("'error' or 'warn'")
    if text not in ("error", "warn"):
        raise node.error(f"Invalid 'criticality' value: '{text}'. Expected 'warn' or 'error'.")
    return "warn" if text == "warn" else "error"


def check_rules(item: Node, ctx: Context) -> tuple[Rule, ...]:
    """One DQX check as rules (one per column of ``for_each_column``), with DQX's
    semantics; a function assay does not run as DQX does is an error naming it."""

    def frames(node: Node) -> Source:
        return frame_source(node, ctx)

    item.as_mapping("a DQX check (a mapping with 'check')")
    item.check_keys(ITEM_KEYS)
    level = _criticality(item)
    _refuse_message_expr(item)
    check = item.require("check")
    check.as_mapping("the check block (a mapping with 'function' and 'arguments')")
    check.check_keys(CHECK_KEYS)
    function, spec = _function(check)
    filter_node = item.get("filter")
    row_filter = None
    if filter_node is not None and filter_node.value is not None:
        row_filter = filter_node.as_str("a filter (a Spark SQL predicate)")
    name_node = item.get("name")
    name = name_node.as_str("a check name") if name_node and name_node.value else None

    def rule_of(arguments: Node) -> Rule:
        kept, kept_node = _dataset_filter(function, arguments, row_filter, filter_node)
        args = Args(arguments, function, spec.keys, kept, frames)
        mapped = spec.build(args)
        return _rule(item, function, mapped, level, name, kept, kept_node, args)

    args_node, each = _arguments(check)
    if each is None or each.value is None:
        if args_node is None:
            raise check.error(f"DQX: function '{function}' needs 'arguments'")
        return (rule_of(args_node),)
    return tuple(rule_of(merged) for merged in _per_column(each, args_node, check))


def _dataset_filter(
    function: str, arguments: Node, row_filter: str | None, filter_node: Node | None
) -> tuple[str | None, Node | None]:
    """The check's filter, or else its ``row_filter`` argument: DQX's ``is_unique``,
    ``foreign_key`` and ``sql_query`` filter their rows by it as by the check's ``filter``
    (which replaces it when both are written). ``is_aggr_*`` read it themselves: DQX
    aggregates the rows it keeps but flags every row."""
    if row_filter is not None or function.startswith("is_aggr_"):
        return row_filter, filter_node
    node = arguments.get("row_filter") if isinstance(arguments.value, dict) else None
    if node is None or node.value is None:
        return None, filter_node
    return node.as_str("a filter (a Spark SQL predicate)"), node


def _refuse_message_expr(item: Node) -> None:
    message_expr = item.get("message_expr")
    if message_expr is not None and message_expr.value is not None:
        raise message_expr.error(
            "DQX: message_expr is not supported",
            hint="DQX evaluates it per flagged row; assay reports its own message and DQX's "
            "default one (details.dqx.message)",
        )


def _function(check: Node) -> tuple[str, Function]:
    """The check's function (DQX's first names read as the current ones) and its entry;
    a function assay does not run is an error naming it."""
    fn_node = check.require("function")
    function = fn_node.as_str("a DQX check function")
    function = OLD_FUNCTIONS.get(function, function)
    spec = FUNCTIONS.get(function)
    if spec is None:
        why = NOT_RUN.get(function)
        raise fn_node.error(
            f"DQX: function '{function}' is not supported",
            hint=(why + "; " if why else "")
            + "docs/dialects.md lists the DQX functions assay runs",
        )
    return function, spec


def _arguments(check: Node) -> tuple[Node | None, Node | None]:
    """The check's arguments and the columns it runs once for (``for_each_column``, or
    DQX's first form: the ``col_names`` argument, taken out of the arguments)."""
    args_node = check.get("arguments")
    each = check.get("for_each_column")
    old_each = args_node.get("col_names") if args_node is not None else None
    if old_each is not None and old_each.value is not None:
        if each is not None and each.value is not None:
            raise old_each.error("DQX: give col_names or for_each_column, not both")
        assert args_node is not None
        rest = {k: v for k, v in args_node.as_mapping().items() if k != "col_names"}
        each, args_node = old_each, Node(rest, args_node.origin)
    return args_node, each


def _per_column(each: Node, args_node: Node | None, check: Node) -> Iterator[Node]:
    """The arguments once per column of ``for_each_column`` (DQX's DQForEachColRule: a
    name fills 'column', a list 'columns'), each read when its rule is built."""
    for column in each.as_list("a list of columns", non_empty=True):
        key = "columns" if isinstance(column.value, list) else "column"
        base = dict(args_node.as_mapping("the arguments (a mapping)")) if args_node else {}
        if key in base:
            raise base[key].error(f"DQX: '{key}' is given by for_each_column")
        yield Node({**base, key: column}, args_node.origin if args_node else check.origin)


def _rule(
    item: Node,
    function: str,
    mapped: Mapped,
    level: Level,
    name: str | None,
    row_filter: str | None,
    filter_node: Node | None,
    args: Args,
) -> Rule:
    places: list[tuple[str, Origin]] = []
    # an aggregate over the whole table holds the filter in its query
    keeps_filter = not isinstance(mapped.check, SqlCheck)
    if keeps_filter and row_filter is not None and filter_node is not None:
        places.append(("filter", filter_node.origin))
    params: list[tuple[str, object]] = [("function", function)]
    if mapped.expression is not None:
        params.append(("expression", mapped.expression))
        places.append(("expression", args.require("expression").origin))
    elif args.sql_written and isinstance(mapped.check, RowCheck):
        # the condition holds SQL the user wrote: Spark analyses it before any scan
        (condition,) = (e for e in walk(mapped.check.failing) if isinstance(e, Sql))
        params.append(("expression", condition.text))
        places.append(("expression", args.node.origin))
    params += [(k, v.plain()) for k, v in args.values.items() if k != "expression"]
    params.append(("dqx_message", mapped.message))
    return Rule(
        kind=f"{KIND}:{function}",
        check=mapped.check,
        origin=item.origin,
        columns=mapped.columns,
        name=name or mapped.name,
        level=level,
        requires=tuple((c, "any") for c in mapped.columns),
        params=tuple(params),
        filter=Sql(row_filter) if keeps_filter and row_filter is not None else None,
        places=tuple(places),
    )


def frame_source(node: Node, ctx: Context) -> Source:
    """Where the DataFrame a check names (``ref_df_name``) is read from: ``--input
    NAME=SOURCE`` (a catalog table or a path); a placeholder when the checks are not
    about to run (``explain``, ``check``)."""
    name = node.as_str("the name of a reference DataFrame")
    given = ctx.options.inputs.get(name)
    if given is None and not ctx.options.for_run:
        return CatalogSource(f"<--input {name}>")
    if given is None:
        raise node.error(
            f"DQX: the reference DataFrame '{name}' is not given",
            hint=f"give its data with --input {name}=path/or/table",
        )
    try:
        kind, fmt, target = sources.source_of(given, f"--input {name}")
    except ConfigError as e:
        raise ConfigError(e.message, origin=node.origin, hint=e.hint) from None
    return CatalogSource(target) if kind == "table" else PathSource(fmt or "", (target,))


def _source(doc: Node, ctx: Context) -> Source:
    return sources.command_line_source(
        doc,
        ctx.options,
        "a DQX checks file checks the table given with --source",
        hint="pass --source db.table or --source path/to/data.parquet, or bind the "
        "checks to a native table with 'dqx: checks.yml'",
    )


DIALECT = Dialect(
    name=NAME,
    shape="a DQX checks file (a list of checks, each with 'check: {function, arguments}')",
    matches=matches,
    build=build,
)
