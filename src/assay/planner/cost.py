"""Shaping the aggregate pass by cost: how a table's scan slots are split into branches.

All branches of a table are cross-joined into ONE Spark plan; the question is only how
many scans that plan contains and how large each generated aggregate is.

- One wide ``df.agg(...)`` reads every column once, but its generated code grows with the
  number of rules: past the JVM's 8,000-bytecode JIT limit the aggregate runs
  interpreted, and past ``spark.sql.codegen.maxFields`` (100) Spark drops whole-stage
  code generation altogether (measured, TPC-H SF1, 2 cores: 245 outputs in one
  aggregate 31.6 s; the same outputs in branches of at most 24, 15.7 s).
- On a columnar source (parquet, orc, catalog tables) a scan reads only the columns its
  branch needs, so branches packed by the columns they touch cost about one read of
  each column in total, and each branch's code stays small (SF1, 88 outputs: one
  aggregate 8.5 s; branches of at most 16 / 24 / 32 / 48 outputs 6.4 / 6.7 / 6.9 / 8.3 s).
- Spark 4.2+ merges cross-joined single-row aggregates over the same relation back into
  one (the ``MergeSubplans`` optimizer rule), which undoes the split and builds exactly
  the oversized aggregate it avoids (4 branches of <= 80 outputs: 46 s instead of 15 s);
  the executor excludes that rule for the run when a plan has several branches
  (:data:`MERGE_SUBPLANS_RULE`).
- Row-level predicates that Parquet/ORC can test against row-group statistics (column vs
  literal comparisons, null tests, IN lists) can go in a branch filtered by the OR of
  its predicates (``pushdown``): clean row groups are skipped without decoding, and
  ``count_if`` over the remaining rows is exact because every counted row satisfies the
  filter. It pays only when row groups are clean; on data where every row group has a
  few outliers it costs more (SF1, 100 rules: 7.4-8.0 s against 6.5-7.0 s), so it is off
  by default.

A source that is not columnar (csv, json, a SQL query) would be re-read (re-parsed,
re-computed) by every branch, so it keeps one branch, and so does a small table, where
each branch costs more (a stage, code generation, a join) than the scan it saves
(whole runs, 100 / 300 rules: TPC-H SF0.01, 2 MB, one branch 1.07 / 2.29 s, split
1.18 / 2.77 s; SF0.1, 20 MB, one branch 3.29 / 7.52 s, split 3.06 / 7.32 s; hence
``split_min_bytes`` 16 MiB).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    HasText,
    InSet,
    IsNaN,
    IsNull,
    Length,
    LineBytes,
    Lit,
    Matches,
    Not,
    Or,
    Parses,
    Sql,
    any_of,
    require_translations,
    walk,
)
from assay.ir.suite import CatalogSource, PathSource, Source
from assay.options import RunOptions, declarations
from assay.planner.measures import CountIf, Measure, SqlAggregate, kind_of
from assay.planner.packing import packed
from assay.planner.plan import ScanAggregate, Slot
from assay.planner.sqlfold import snippet_columns

Strategy = Literal["auto", "single", "split"]
COLUMNAR_FORMATS = frozenset({"parquet", "orc", "delta", "iceberg"})


@dataclass(frozen=True, slots=True)
class PlannerOptions:
    """Knobs of the cost model (defaults chosen by ``benchmarks/``).

    ``strategy``: ``split`` groups slots by column into small branches, ``single`` keeps
    one branch, ``auto`` picks ``split`` for columnar sources of at least ``split_min_bytes`` (or of
    unknown size): on small data each extra branch costs more (a stage, code generation, a
    join) than the scan it saves. ``max_outputs`` bounds the aggregate outputs of one
    branch; ``pushdown`` enables statistics-prunable filtered branches.
    ``group_partition_bytes`` sizes the shuffle of a uniqueness group-by (one partition
    per that many bytes of the table, at most ``max_group_partitions``, which the executor
    sets to the session's ``spark.sql.shuffle.partitions``). An incremental run's scan of
    at most ``one_task_bytes`` of files (Spark's ``openCostInBytes``: its scan is about one
    file split a branch anyway) is aggregated in one task, without a shuffle
    (:class:`assay.planner.partitions.PartitionPlan`). In the detail plan, up to
    ``detail_rule_branches`` rules failing on at least ``detail_sort_rows`` rows each get
    a branch of their own (:func:`own_branches`), which reads only the low end of the
    first key's range when ``detail_bound_margin`` times the samples are expected there
    (:func:`key_bound`). ``fold_sql`` folds row-count SQL rules into the aggregate scan
    (:mod:`assay.planner.sqlfold`); off, every SQL rule runs as its query (the plain form
    the fold is tested against). ``by_value`` answers the counts of a string column with
    few values from its rows grouped by value, when that pays
    (:mod:`assay.planner.values`): a column qualifies when the suite bounds its values by
    at most ``value_max``; off, every count is in the scans (the plain form). With
    ``join_values`` such columns share one group-by while the product of their bounds
    is at most ``value_max`` (:func:`assay.planner.values.joined`); off, one group-by
    per column (the plain form of the join). ``class_runs`` answers a regex that is a run
    of one ASCII class (``^[A-Za-z0-9 ,.]{1,44}$``) on a plain string column from the
    unbounded run and the value's length in bytes (:func:`assay.planner.regex_runs.run_by_bytes`);
    off, every such regex runs as written (the plain form). ``decimal_doubles`` decides a
    folded SQL condition comparing DECIMAL arithmetic with a number in doubles where
    that is certain (:func:`assay.planner.decimal_doubles.in_doubles`); off, every such
    condition is computed as written (the plain form).
    """

    strategy: Strategy = "auto"
    max_outputs: int = 24
    pushdown: bool = False
    split_min_bytes: int = 16 * 2**20
    group_partition_bytes: int = 16 * 2**20
    one_task_bytes: int = 4 * 2**20
    max_group_partitions: int = 200
    detail_rule_branches: int = 8
    detail_sort_rows: int = 50_000
    detail_bound_margin: int = 20
    fold_sql: bool = True
    by_value: bool = True
    value_max: int = 10_000
    join_values: bool = True
    class_runs: bool = True
    decimal_doubles: bool = True


DEFAULT_OPTIONS = PlannerOptions()


def planner_options(options: RunOptions) -> PlannerOptions:
    """The planner's options a run's ``options`` set: each option declared with
    ``planner`` sets that field, the others keep theirs; a run and ``assay explain``
    both plan with them."""
    return PlannerOptions(**{
        d.planner: getattr(options, f.name)
        for f, d in declarations(type(options))
        if d.planner is not None
    })  # fmt: skip


# The Spark optimizer rule that merges cross-joined single-row aggregates over one
# relation into one aggregate (Spark 4.2+; older servers ignore an unknown name).
MERGE_SUBPLANS_RULE = "org.apache.spark.sql.execution.planmerging.MergeSubplans"


def is_columnar(source: Source) -> bool:
    """Whether a scan of the source reads only the columns it needs (column pruning)."""
    if isinstance(source, CatalogSource):
        return True
    return isinstance(source, PathSource) and source.format.lower() in COLUMNAR_FORMATS


def needs_size(source: Source, options: PlannerOptions, unique_keys: bool = False) -> bool:
    """Whether the plan depends on the table's size and columnarity (worth an analysis
    RPC): the ``auto`` strategy on a source that is or may be columnar (a DataFrame or a
    SQL query reading parquet is), and the shuffle of a uniqueness check."""
    maybe = is_columnar(source) or not isinstance(source, PathSource)
    return unique_keys or (options.strategy == "auto" and maybe)


def group_partitions(size_bytes: int | None, options: PlannerOptions) -> int | None:
    """Shuffle partitions for a group-by on (expected) unique keys, from the table's size.

    Measured (TPC-H SF1 lineitem, 231 MB, uniqueness of (l_orderkey, l_linenumber), 2
    cores): Spark's default group-by 4.75 s; shuffled by key into 4 or 16 partitions
    1.6 s, into 400 partitions 3.9 s. Per partition a task pays a fixed cost, so few
    partitions win on small data, while big tables need enough of them to spread the
    hash maps; one per 16 MiB of (compressed) input keeps both ends sensible.
    """
    if size_bytes is None:
        return None
    wanted = -(-size_bytes // options.group_partition_bytes)
    return max(1, min(wanted, options.max_group_partitions))


def splits(
    source: Source, options: PlannerOptions, size_bytes: int | None, columnar: bool | None = None
) -> bool:
    """Whether the aggregate is split into branches by column. ``columnar`` is what the
    server's optimized plan says of the source (None: it does not say, the source's kind
    decides): a DataFrame or SQL query over parquet is columnar, a catalog view joining
    tables is not."""
    if options.strategy != "auto":
        return options.strategy == "split"
    columnar = is_columnar(source) if columnar is None else columnar
    return columnar and (size_bytes is None or size_bytes >= options.split_min_bytes)


def scan_branches(
    slots: Sequence[Slot],
    source: Source,
    options: PlannerOptions = DEFAULT_OPTIONS,
    size_bytes: int | None = None,
    columnar: bool | None = None,
) -> tuple[ScanAggregate, ...]:
    """Split scan slots into branches (:func:`split_branches`), the object aggregates in
    one branch of their own, last (the planner's "split by cost" and "object aggregates
    apart" passes, in one call for the profile's plans); deterministic."""
    apart = tuple(s for s in slots if kind_of(s.measure).apart(s.measure))
    rest = [s for s in slots if s not in apart]
    others = split_branches(rest, source, options, size_bytes, columnar)
    return (*others, ScanAggregate(apart)) if apart else others


def split_branches(
    slots: Sequence[Slot],
    source: Source,
    options: PlannerOptions = DEFAULT_OPTIONS,
    size_bytes: int | None = None,
    columnar: bool | None = None,
    types: Mapping[str, str] | None = None,
) -> tuple[ScanAggregate, ...]:
    """Split scan slots into branches (see the module docstring); deterministic.

    ``size_bytes`` is the server's estimate of the table's size (None: unknown),
    ``columnar`` whether its plan prunes columns (:func:`splits`), ``types`` the
    source's column types, lower-case (None: unknown), which say the wide columns
    (:func:`widths`).
    """
    if not slots:
        return ()
    split = splits(source, options, size_bytes, columnar)
    if not split:
        return (ScanAggregate(tuple(slots)),)
    filtered: dict[tuple[str, ...], list[Slot]] = {}
    plain: dict[tuple[str, ...], list[Slot]] = {}
    for slot in slots:
        key = _reads(slot.measure)
        if options.pushdown and _prunable(slot.measure):
            filtered.setdefault(key, []).append(slot)
        else:
            plain.setdefault(key, []).append(slot)
    # The row count (and the server clock) read no column: they ride along with any branch.
    free = plain.pop((), [])
    order = {slot.name: i for i, slot in enumerate(slots)}
    wide = widths(slots, types)
    branches = packed(list(plain.items()), free, options.max_outputs, order, wide)
    for group in filtered.values():
        for chunk in _chunks(group, options.max_outputs):
            where = any_of(*(_strip(s.measure.predicate) for s in chunk.slots))  # type: ignore[union-attr]
            branches.append(ScanAggregate(chunk.slots, where=where))
    return tuple(sorted(branches, key=lambda b: b.slots[0].name))


WIDE = 8
"""What one more read of a wide column (a string, binary or nested value) costs against a
fixed-width one (a number, a date: 1), in the packing's reckoning
(:func:`assay.planner.packing.packed`): a value of variable length is decoded and
copied, and the rules reading strings are the costly ones (a regex, ``length``), so the
packing reads such a column twice only where it must. The ratio is a rule of thumb, not
measured: it only has to outweigh a few fixed-width reads."""
_WIDE_TYPES = ("string", "varchar", "char", "binary", "array", "map", "struct", "variant")
_STRING_TESTS = (Length, LineBytes, Matches, HasText)


def widths(slots: Sequence[Slot], types: Mapping[str, str] | None) -> dict[str, int]:
    """The wide columns the slots read, lower-case, each with :data:`WIDE`: those the
    ``types`` call a string, binary or nested value; without types (``explain`` has no
    server), the columns a slot tests as text (a length, a regex, a substring).

    >>> widths([], {"a": "string", "b": "bigint", "c": "array<int>"})
    {'a': 8, 'c': 8}
    """
    if types is not None:
        wide = (c for c, t in types.items() if t.lower().startswith(_WIDE_TYPES))
        return {c.lower(): WIDE for c in wide}
    found: dict[str, int] = {}
    for slot in slots:
        for expr in (
            getattr(slot.measure, "predicate", None),
            getattr(slot.measure, "where", None),
        ):
            for node in walk(expr) if expr is not None else ():
                if isinstance(node, _STRING_TESTS) and isinstance(node.item, Col):
                    found[node.item.name.lower()] = WIDE
    return found


def _reads(measure: Measure) -> tuple[str, ...]:
    """The columns a slot's scan reads, lower-cased (Spark's names are case-insensitive):
    its measure's own and those named in its SQL snippets (a folded SQL rule's
    condition or comparison, a rule filter written in SQL)."""
    names = {c.lower() for c in _columns(measure)}
    texts = [measure.text] if isinstance(measure, SqlAggregate) else []
    for expr in (getattr(measure, "predicate", None), getattr(measure, "where", None)):
        if expr is not None:
            texts.extend(n.text for n in walk(expr) if isinstance(n, Sql))
    for text in texts:
        names.update(snippet_columns(text))
    return tuple(sorted(names))


def _chunks(slots: list[Slot], size: int) -> list[ScanAggregate]:
    return [ScanAggregate(tuple(slots[i : i + size])) for i in range(0, len(slots), size)]


def _columns(measure: Measure) -> tuple[str, ...]:
    return kind_of(measure).columns(measure)


def _strip(expr: Expr) -> Expr:
    """``coalesce(p, false)`` -> ``p``: equivalent inside a filter, and prunable."""
    if isinstance(expr, Coalesce) and len(expr.items) == 2 and expr.items[1] == Lit(False):
        return expr.items[0]
    return expr


def _prunable(measure: Measure) -> bool:
    """A row count Parquet/ORC statistics can answer for clean row groups."""
    return isinstance(measure, CountIf) and _pushable(_strip(measure.predicate))


@functools.singledispatch
def _pushable(expr: object) -> bool:
    """Whether Parquet/ORC row-group statistics can test the predicate: column vs literal
    comparisons, null tests and IN lists of a column, and their AND/OR. One registration
    per node class of ``Expr`` (checked at import); a node without one is refused."""
    raise NotImplementedError(f"no pushdown rule for {type(expr).__name__}")


def _compare_pushable(expr: Compare) -> bool:
    sides = {type(expr.left), type(expr.right)}
    return sides == {Col, Lit} and not isinstance(_lit(expr), bool)


def _never(expr: Expr) -> bool:
    return False


_pushable.register(And, lambda e: all(_pushable(i) for i in e.items))
_pushable.register(Or, lambda e: all(_pushable(i) for i in e.items))
_pushable.register(Compare, _compare_pushable)
_pushable.register(IsNull, lambda e: isinstance(e.item, Col))
_pushable.register(Not, lambda e: isinstance(e.item, IsNull) and isinstance(e.item.item, Col))
_pushable.register(InSet, lambda e: isinstance(e.item, Col))
for _node in (Col, Lit, Coalesce, IsNaN, Matches, HasText, Length, LineBytes, Parses, Sql):
    _pushable.register(_node, _never)
require_translations(_pushable, "a pushdown rule (planner.cost._pushable)")


def _lit(expr: Compare) -> object:
    return expr.right.value if isinstance(expr.right, Lit) else expr.left.value  # type: ignore[union-attr]


def own_branches(failed_rows: Mapping[int, int], options: PlannerOptions) -> tuple[int, ...]:
    """The failed rules whose samples are taken by a branch of their own: those failing
    on at least ``detail_sort_rows`` rows, the ``detail_rule_branches`` heaviest first.

    The shared scan tags every failing row with its rules and sorts them all (per rule,
    by key) to keep N each: it costs in proportion to the failing rows. A branch of its
    own (``WHERE fails ORDER BY key LIMIT N``) keeps N rows in a bounded heap but reads
    the table again (only that rule's columns). Measured on TPC-H SF1 (2 cores), 4 failed
    rules with 1.4 million failing rows: one shared scan 3.9 s, a branch per rule 2.9 s.
    """
    return tuple(sorted(heavy(failed_rows, options)[: options.detail_rule_branches]))


def heavy(failed_rows: Mapping[int, int], options: PlannerOptions) -> tuple[int, ...]:
    """The rules failing on at least ``detail_sort_rows`` rows, heaviest first: too many
    for the shared detail scan to sort unless a key bound cuts them down.

    >>> heavy({0: 10, 1: 90_000, 2: 60_000}, PlannerOptions())
    (1, 2)
    """
    found = [i for i, n in failed_rows.items() if n >= options.detail_sort_rows]
    return tuple(sorted(found, key=lambda i: (-failed_rows[i], i)))


def key_bound(
    low: object, high: object, failed: int, sample_size: int, options: PlannerOptions
) -> object | None:
    """An upper bound for the first key such that the rows at or below it (or with a null
    key) are expected to hold ``detail_bound_margin`` times ``sample_size`` failing rows,
    if failures spread evenly over the key's range ``[low, high]``; None when that is
    most of the range or the key is not a number or a date.

    The samples of a rule are its first failing rows by key, so when the bounded branch
    finds ``sample_size`` of them they are exactly the samples (every row past the bound
    sorts after them); when it finds fewer the executor samples the rule again without
    the bound. On a table stored in key order, Parquet/ORC skip the row groups past the
    bound, and on any table the rule's test only runs on rows under it. Measured (TPC-H
    SF1, 4 failed rules, 3 of them on 0.5-3 million rows): detail plan 2.47 s -> 0.34 s.

    >>> key_bound(0, 1000, failed=500, sample_size=5, options=PlannerOptions())
    200
    >>> key_bound(0, 1000, failed=50, sample_size=5, options=PlannerOptions()) is None
    True
    """
    if failed <= 0 or type(low) is not type(high) or isinstance(low, bool):
        return None
    share = options.detail_bound_margin * sample_size / failed
    if share >= 0.5:
        return None
    if isinstance(low, int):
        return low + math.ceil((high - low) * share)  # type: ignore[operator]
    if isinstance(low, Decimal):
        return low + (high - low) * Decimal(str(share))  # type: ignore[operator]
    if isinstance(low, float):
        bound = low + (high - low) * share  # type: ignore[operator]
        return bound if math.isfinite(bound) else None
    if isinstance(low, dt.date) and not isinstance(low, dt.datetime):
        return low + dt.timedelta(days=math.ceil((high - low).days * share))  # type: ignore[operator]
    return None
