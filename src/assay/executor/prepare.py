"""Preparing a table: analysis RPCs only, no scan. Each step is a function with a typed
result, in order:

1. :func:`read_source`: the source (and its filter) as a DataFrame and its schema;
2. :func:`planned`: literals typed in their columns' types, the plan, the SQL rules a fold
   would answer differently from Spark taken back out (:func:`_rejected_as_written`);
3. :func:`schema_problems`: rules that do not fit the schema, regexes Java cannot compile,
   outputs that cannot be written;
4. :func:`bound_sql`: ``_validation_df`` bound and the SQL rules analysed.

The questions that need only the source (the rules' regexes, their SQL snippets) are
asked in threads of their own as soon as the source is read, their analysis RPCs in
flight beside the planning's; their answers are read, and reported, in the order above.

:func:`prepare` runs them and returns a frozen
:class:`~assay.executor.stages.prepared.Prepared`, or the first unit of failure: the
table's config errors, or why its source cannot be read. It is the first stage of a
table's run (:mod:`assay.executor.stages`).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql.connect.session import SparkSession

from assay.dialects.validator_functions import split as split_validators
from assay.emit import spark as emit
from assay.emit.analysis import analysed_beside
from assay.emit.statistics import UNKNOWN, scan_facts
from assay.errors import AssayError, ConfigError, ConfigErrors
from assay.executor import frames as bound
from assay.executor.beside import beside
from assay.executor.outputs import check_sinks
from assay.executor.references import read_references
from assay.executor.snippets import snippet_problems
from assay.executor.spark_errors import in_users_text, spark_message, to_assay_error
from assay.executor.stages.drift_history import version_problems
from assay.executor.stages.incremental import start_listing
from assay.executor.stages.prepared import Planned, Prepared
from assay.ir.expr import patterns_of
from assay.ir.rules import UniqueCheck, expressions_of
from assay.ir.suite import DataFrameSource, SqlSource, Table
from assay.judge.preflight import check_table, interpolable
from assay.planner import TablePlan, plan_table
from assay.planner.cost import DEFAULT_OPTIONS, PlannerOptions, needs_size
from assay.planner.incremental import refusals
from assay.planner.plan import AggregatePlan, FoldedSql, ScanAggregate, Slot, SqlPlan, SqlQuery

if TYPE_CHECKING:
    # pyspark's Connect functions are typed with these parent classes; every frame and
    # column here is a Connect one.
    from pyspark.sql import DataFrame

Schema = list[tuple[str, str]]


def prepare(
    spark: SparkSession,
    table: Table,
    options: PlannerOptions = DEFAULT_OPTIONS,
    timeout: float | None = None,
    listing: bool = False,
) -> Prepared | AssayError:
    """The table ready to run (its validator rules left out:
    :mod:`assay.executor.validators`), or why it cannot run; ``timeout`` bounds each of
    its Spark plans (seconds). ``listing`` (a run, not a check): an incremental table's
    file listing started first, collected while the table is analysed
    (:func:`~assay.executor.stages.incremental.start_listing`)."""
    whole = table
    try:
        table, _ = split_validators(table)
    except ConfigError as error:
        return ConfigErrors([error])
    early = start_listing(table, spark, timeout) if listing else None  # beside the schema's
    read = read_source(spark, table)
    if isinstance(read, AssayError):
        return read
    df, schema = read
    # what needs the source alone (the rules' regexes and SQL snippets: up to three
    # analysis RPCs) is asked beside the planning's questions (the size, the folds)
    patterns = beside(lambda: _uncompilable(spark, table), "assay-analysis")
    snippets = beside(lambda: snippet_problems(df, table, beside=beside), "assay-analysis")
    refs = read_references(spark, table, schema)
    plan, keys, calls = planned_counted(spark, table, df, schema, options, refs.failed)
    uncompilable = patterns.result()
    problems = schema_problems(spark, whole, plan.table, schema, keys, uncompilable)
    if isinstance(problems, AssayError):
        return problems
    problems += refs.problems
    problems += [ConfigError(m, o, hint=h) for m, o, h in refusals(whole, schema)]
    problems += version_problems(spark, table)  # drift against history: Spark 4.1+
    wrong_snippets = snippets.result()
    if not problems:
        problems += wrong_snippets
    sql = SqlBinding()
    if plan.sql is not None and not problems:
        sql = bound_sql(spark, plan, df)
        problems += list(sql.problems)
    if problems:
        return ConfigErrors(problems)
    ready = Planned(plan, tuple(schema), keys, options, refs.failed, sql.setup_plans, calls)
    return Prepared(ready, df, sql.text, timeout, refs.frames, early)


def read_source(spark: SparkSession, table: Table) -> tuple[DataFrame, Schema] | AssayError:
    """The table's rows (its filter applied) and their schema; an unreadable source or a
    filter Spark rejects is an error placed where it was written. A filtered table is
    analysed once, filter and all (one schema RPC); the source alone only when that
    fails, to tell which of the two Spark rejects."""
    rejected: Exception | None = None
    if table.filter:
        try:
            df = bound.source_frame(spark, table.source, table.filter)
            return df, [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
        except Exception as exc:  # noqa: BLE001 - the source or the filter: told apart below
            rejected = exc
    try:
        df = bound.source_frame(spark, table.source, None)
        struct = df.schema
    except Exception as exc:  # noqa: BLE001 - classified below
        query = table.source.query if isinstance(table.source, SqlSource) else None
        reason = in_users_text(exc, query, 1) if query is not None else None
        what = f"table {table.name}: cannot read its source"
        return to_assay_error(exc, what, table.place("source"), reason)
    if rejected is not None and table.filter:  # the source reads: the filter is at fault
        reason = in_users_text(rejected, table.filter, 1)
        what = f"table {table.name}: the filter does not run"
        return to_assay_error(rejected, what, table.place("filter"), reason)
    return df, [(f.name, f.dataType.simpleString()) for f in struct.fields]


def planned(
    spark: SparkSession,
    table: Table,
    df: DataFrame,
    schema: Schema,
    options: PlannerOptions,
    without: Collection[int] = (),
) -> tuple[TablePlan, tuple[str, ...]]:
    """The table's plan (over its literals typed in their columns' types, the rules in
    ``without`` left out) and its keys."""
    plan, keys, _ = planned_counted(spark, table, df, schema, options, without)
    return plan, keys


def planned_counted(
    spark: SparkSession,
    table: Table,
    df: DataFrame,
    schema: Schema,
    options: PlannerOptions,
    without: Collection[int] = (),
) -> tuple[TablePlan, tuple[str, ...], int]:
    """:func:`planned`, and the planner calls it took (``plan_table``: 1, or 2)."""
    unique = any(isinstance(r.check, UniqueCheck) for r in table.rules)
    facts = scan_facts(df) if needs_size(table.source, options, unique) else UNKNOWN
    size = facts.size_bytes
    keys = table.keys or tuple(name for name, _ in schema[: table.key_count or 0])
    types = {name.lower(): kind for name, kind in schema}  # as preflight resolves names
    key_range = keys[0] if keys and interpolable(types.get(keys[0].lower(), "")) else None
    plan = plan_table(table, options, size_bytes=size, key_range=key_range, without=without,
                      columnar=facts.columnar, types=types)  # fmt: skip
    if plan.folded:
        # A bound DataFrame is analysed through its schema: binding its plan into SQL
        # makes Spark record executions of its own (see assay.executor.frames).
        as_sql = (
            None
            if isinstance(table.source, DataFrameSource)
            else emit.source_sql(table.source, table.filter)
        )
        text = as_sql or emit.schema_stand_in(schema)
        rejected = _rejected_folds(spark, plan, text, df)
        if rejected:
            # The second planner call: which SQL rules fold is the plan's own choice, and
            # whether Spark accepts a folded rule as written is known only by analysing
            # it over the table; a rule it rejects is planned again as a query (never for
            # a table whose folds Spark accepts).
            plan = plan_table(
                table, options, size_bytes=size, unfold=rejected, key_range=key_range,
                without=without, columnar=facts.columnar, types=types,
            )  # fmt: skip
            return plan, keys, 2
    return plan, keys, 1


def schema_problems(
    spark: SparkSession,
    whole: Table,
    typed: Table,
    schema: Schema,
    keys: tuple[str, ...],
    uncompilable: Uncompilable | None = None,
) -> list[ConfigError] | AssayError:
    """What does not fit the schema (``whole``: the table as configured), the regexes of
    ``typed`` Java cannot compile (``uncompilable``: those of some patterns found
    already, :func:`_uncompilable`), and outputs that cannot be written (an output format
    the server lacks is the table's Spark failure)."""
    problems: list[ConfigError] = list(check_table(whole, schema, keys))
    problems += _pattern_problems(spark, typed, uncompilable)
    if typed.outputs and not problems:
        unwritable = check_sinks(spark, typed)
        config = [e for e in unwritable if isinstance(e, ConfigError)]
        if config:
            return ConfigErrors(config)
        if unwritable:
            return unwritable[0]
    return problems


@dataclass(frozen=True)
class SqlBinding:
    """``_validation_df`` as SQL text, the plans binding it cost (a temp view), and the
    SQL rules Spark cannot analyse over it."""

    text: str | None = None
    setup_plans: int = 0
    problems: tuple[ConfigError, ...] = ()


def bound_sql(spark: SparkSession, plan: TablePlan, df: DataFrame) -> SqlBinding:
    """Bind ``_validation_df`` and analyse the SQL batch (no execution); on failure,
    analyse each query alone so the error names the rule at fault."""
    table = plan.table
    text = emit.source_sql(table.source, table.filter)
    setup = 0
    if text is None:
        # A path read with options has no SQL form: register a temp view (one command).
        view = f"_assay_{uuid.uuid4().hex[:12]}"
        df.createOrReplaceTempView(view)
        setup = 1
        text = f"SELECT * FROM {view}"
    assert plan.sql is not None
    try:
        _ = spark.sql(emit.sql_text(plan.sql, text)).schema
        return SqlBinding(text, setup)
    except Exception:  # noqa: BLE001 - re-analysed per rule below
        pass
    errors: list[ConfigError] = []
    for query in plan.sql.queries:
        rule = table.rules[query.rule_index]
        try:
            alone, line = emit.single_sql_text(query.check.query, query.check.mode, text)
            _ = spark.sql(alone).schema
        except Exception as exc:  # noqa: BLE001
            reason = in_users_text(exc, query.check.query, line)
            err = to_assay_error(exc, f"{rule.kind}: the query does not run", rule.origin, reason)
            errors.append(
                err
                if isinstance(err, ConfigError)
                else ConfigError(err.message, origin=rule.origin)
            )
    together = ConfigError("the SQL rules of this table fail together", origin=table.origin)
    return SqlBinding(text, setup, tuple(errors or [together]))


Uncompilable = tuple[frozenset[str], Mapping[str, Exception]]
"""Patterns asked about, and those of them Java cannot compile with Spark's error."""


def _patterns(table: Table) -> dict[str, list[int]]:
    """Every regex of the table's rules, with the rules that use it."""
    users: dict[str, list[int]] = {}
    for index, rule in enumerate(table.rules):
        for expr in expressions_of(rule.check):
            for pattern in patterns_of(expr):
                users.setdefault(pattern, []).append(index)
    return users


def _uncompilable(spark: SparkSession, table: Table) -> Uncompilable:
    """The regexes of ``table``'s rules Java cannot compile (one analysis RPC for all of
    them, none without), asked before the plan types the table's literals."""
    patterns = list(_patterns(table))
    return frozenset(patterns), emit.uncompilable_patterns(spark, patterns)


def _pattern_problems(
    spark: SparkSession, table: Table, known: Uncompilable | None = None
) -> list[ConfigError]:
    """Every regex of the table's rules that Java cannot compile, at its rule (before any
    scan: one analysis RPC for all of them, none for the patterns ``known`` already)."""
    users = _patterns(table)
    asked, found = known if known is not None else (frozenset(), {})
    found = {**found, **emit.uncompilable_patterns(spark, [p for p in users if p not in asked])}
    bad = {p: found[p] for p in users if p in found}
    return [
        ConfigError(
            f"{table.rules[i].kind}: the regular expression {pattern!r} is not one Java can"
            f" compile: {spark_message(exc)}",
            origin=table.rules[i].origin,
            hint="patterns are Java regular expressions (java.util.regex.Pattern)",
        )
        for pattern, exc in bad.items()
        for i in dict.fromkeys(users[pattern])
    ]


def _rejected_folds(spark: SparkSession, plan: TablePlan, text: str, df: DataFrame) -> set[int]:
    """The folded SQL rules Spark rejects as written (:func:`_rejected_as_written`) or as
    conditions of the aggregate (:func:`_rejected_conditions`). When it accepts them all,
    the usual case, that is one analysis RPC for both (the batch as written cross-joined
    with the conditions' aggregate), no scan; each check on its own only when it fails."""
    conditions = [f for f in plan.folded if f.analysed is not None]
    if conditions:
        try:
            analysed_beside(spark, _written(plan, plan.folded, text), _conditions(df, conditions))
            return set()
        except Exception:  # noqa: BLE001 - found by the checks on their own below
            pass
    return _rejected_as_written(spark, plan, text) | _rejected_conditions(df, plan)


def _written(plan: TablePlan, folded: Sequence[FoldedSql], validation_df: str) -> str:
    """The SQL batch of the ``folded`` rules' queries as written, over ``validation_df``."""
    queries = tuple(
        SqlQuery(f"q{i}", f.rule_index, plan.table.rules[f.rule_index].check)  # type: ignore[arg-type]
        for i, f in enumerate(folded)
    )
    return emit.sql_text(SqlPlan(queries), validation_df)


def _conditions(df: DataFrame, folded: Sequence[FoldedSql]) -> DataFrame:
    """One aggregate of the ``folded`` rules' conditions over the table."""
    slots = tuple(
        Slot(f"c{i}", f.analysed, (f.rule_index,))
        for i, f in enumerate(folded)
        if f.analysed is not None
    )
    return emit.aggregate_frame(df, AggregatePlan((ScanAggregate(slots),), ()))


def _rejected_as_written(spark: SparkSession, plan: TablePlan, validation_df: str) -> set[int]:
    """The folded SQL rules whose query, as written, Spark rejects over the table
    (``validation_df``: its SQL text, or a stand-in of its schema); one analysis RPC for
    all of them, no scan; each alone only when that fails. They run as queries instead,
    so Spark's error names the rule: a fold never answers a query that would not run."""

    def analyses(folded: Sequence[FoldedSql]) -> bool:
        try:
            emit.analysed(spark, _written(plan, folded, validation_df))
            return True
        except Exception:  # noqa: BLE001 - the rule is run as a query, which reports it
            return False

    if analyses(plan.folded):
        return set()
    return {f.rule_index for f in plan.folded if not analyses([f])}


def _rejected_conditions(df: DataFrame, plan: TablePlan) -> set[int]:
    """Analyse the conditions of the SQL rules folded into the aggregate (one analysis
    RPC, no scan); the rules whose condition Spark rejects, found one by one only when
    the batch fails, run as queries instead (their error is then reported as a SQL rule's)."""

    def analyse(folded: Sequence[FoldedSql]) -> bool:
        try:
            _ = _conditions(df, folded).schema
            return True
        except Exception:  # noqa: BLE001 - the rule is run as a query, which reports it
            return False

    conditions = [f for f in plan.folded if f.analysed is not None]
    if not conditions or analyse(conditions):
        return set()
    return {f.rule_index for f in conditions if not analyse([f])}


def table_problems(
    spark: SparkSession, tables: Sequence[Table], options: PlannerOptions = DEFAULT_OPTIONS
) -> list[ConfigError]:
    """Every problem :func:`prepare` finds in ``tables`` (analysis RPCs, no scan): config
    errors, and unreadable sources listed with them."""
    found: list[ConfigError] = []
    for table in tables:
        p = prepare(spark, table, options)
        if isinstance(p, ConfigErrors):
            found += p.errors
        elif isinstance(p, AssayError):
            found.append(p if isinstance(p, ConfigError) else listed(p))
    return found


def error_place(error: ConfigError) -> tuple[str, int]:
    """Sort key: errors in file and line order."""
    o = error.origin
    return ("", 0) if o is None else (o.file, o.line or 0)


def listed(failure: AssayError) -> ConfigError:
    """A source failure listed with the config errors of the same run (exit 2)."""
    return ConfigError(failure.message, origin=failure.origin, hint=failure.hint)
