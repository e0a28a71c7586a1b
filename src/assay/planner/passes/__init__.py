"""The planner's passes, named, in the order a table goes through them.

Every pass is a pure function ``(PlanState, PlanContext) -> PlanState``
(:mod:`assay.planner.passes.state`), one module of this package each, and
:func:`assay.planner.lower.plan_table` is the fold of :data:`PASSES` over a table's
first state (:func:`run`). A pass changes how a table is computed, never what it
answers; a rewrite has a test comparing it with the plain form on data built to break
it (``test``). A pass that ``PlannerOptions`` can turn off names its field
(``option``): the fold skips it. ``assay explain --passes`` prints this list and each
table's state after every pass (:func:`states`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from assay.planner.passes import (
    by_value,
    class_runs,
    decimal_doubles,
    group_bys,
    key_bound,
    literal_typing,
    measure_sharing,
    objects_apart,
    references,
    samples,
    split_by_cost,
    sql_folding,
)
from assay.planner.passes.state import PlanContext, PlanState

__all__ = ["PASSES", "Pass", "PlanContext", "PlanState", "describe", "run", "states"]


@dataclass(frozen=True, slots=True)
class Pass:
    """One pass: its name, what it does (one sentence), the function doing it, the test
    comparing it with the plain form (or testing it), and the option turning it off (if
    any)."""

    name: str
    does: str
    function: Callable[[PlanState, PlanContext], PlanState]
    test: str
    option: str | None = None

    @property
    def where(self) -> str:
        """``module.function`` of the pass."""
        return f"{self.function.__module__}.{self.function.__qualname__}"

    def runs(self, context: PlanContext) -> bool:
        """Whether the pass runs under ``context``'s options (not turned off)."""
        return self.option is None or bool(getattr(context.options, self.option))


PASSES: tuple[Pass, ...] = (
    Pass(
        "literal typing",
        "every literal becomes a value of its column's type, exactly (a bound beyond the"
        " type decides the comparison for every value), so no rule casts at run time;"
        " only when the column types are known (a run, not a plain explain)",
        literal_typing.type_literals,
        "tests/differential/test_rules.py",
    ),
    Pass(
        "sql folding",
        "a SQL rule that only counts rows becomes a count_if of the aggregate scan (one"
        " counting distinct values the groups of a group-by, one comparing aggregates of"
        " the whole table an output of the scan), after Spark has analysed it as written",
        sql_folding.fold_sql,
        "tests/integration/test_sqlfold_differential.py",
        option="fold_sql",
    ),
    Pass(
        "measure sharing",
        "equal measures asked by several rules become one slot of the plan (a literal"
        " regex in a count is keyed in the string test it means: regex simplification,"
        " assay.planner.measures.simplified)",
        measure_sharing.share_measures,
        "tests/integration/test_catalogue_fused.py",
    ),
    Pass(
        "samples",
        "the rules whose failure shows sample rows, each with the rows it samples (the"
        " detail plan's template, narrowed at run time to the rules that failed)",
        samples.sample_template,
        "tests/emit/test_plans_offline.py",
    ),
    Pass(
        "key bound",
        "the aggregate also measures the first key's min and max, so the detail plan can"
        " read the failing rows of a heavy rule within the key range it needs",
        key_bound.measure_key_range,
        "tests/integration/test_folding.py",
    ),
    Pass(
        "tests by value",
        "the counts of a string column with few values (bounded by the suite) and an"
        " expensive test (a regex, a parse) are answered from its rows grouped by value:"
        " each test runs once per distinct value; such columns share one group-by while"
        " their declared numbers of values multiply to a few",
        by_value.answer_by_value,
        "tests/integration/test_by_value.py",
        option="by_value",
    ),
    Pass(
        "class runs by bytes",
        "a regex that is a run of one ASCII class (^[A-Za-z0-9 ,.]{1,44}$) on a plain string"
        " column is computed as the unbounded run and the value's bytes before a final line"
        " break, where it is bounded or shares its class with another regex of the column:"
        " such regexes then run once per row between them; a length of such a column is"
        " its bytes where that regex matches",
        class_runs.runs_in_bytes,
        "tests/integration/test_class_runs.py",
        option="class_runs",
    ),
    Pass(
        "decimal comparisons in doubles",
        "a folded SQL condition comparing DECIMAL arithmetic with a number"
        " (l_extendedprice / l_quantity > 2100) is decided in doubles where their rounding"
        " cannot change the answer, and computed as written (in BigDecimal) where it could",
        decimal_doubles.decide_in_doubles,
        "tests/integration/test_decimal_doubles.py",
        option="decimal_doubles",
    ),
    Pass(
        "split by cost",
        "the slots are split into scan branches by the columns they read, when the table is"
        " large enough for that to pay (PlannerOptions.strategy: single keeps one branch)",
        split_by_cost.split_by_cost,
        "tests/integration/test_folding.py",
    ),
    Pass(
        "object aggregates apart",
        "an aggregate Spark cannot compile to code (percentile, percentile_approx) gets a"
        " scan branch of its own, so the other measures keep their generated code",
        objects_apart.objects_apart,
        "tests/differential/test_rules.py",
    ),
    Pass(
        "group-bys",
        "each measure over groups of rows gets a group-by branch; one whose rule expects"
        " unique keys is shuffled straight to its key's partition",
        group_bys.group_bys,
        "tests/integration/test_catalogue_fused.py",
    ),
    Pass(
        "reference branches",
        "the measures over a referenced source get branches of their own: one anti join"
        " per lookup, one count per referenced source",
        references.join_references,
        "tests/integration/test_catalogue_fused.py",
    ),
)
"""The passes, in the order a table meets them."""


def run(passes: tuple[Pass, ...], state: PlanState, context: PlanContext) -> PlanState:
    """The fold of ``passes`` over ``state`` (a pass turned off by its option skipped)."""
    for p in passes:
        if p.runs(context):
            state = p.function(state, context)
    return state


def states(
    state: PlanState, context: PlanContext, passes: tuple[Pass, ...] = PASSES
) -> Iterator[tuple[Pass, PlanState | None]]:
    """Each pass with the state after it (None: turned off, the state unchanged)."""
    for p in passes:
        if p.runs(context):
            state = p.function(state, context)
            yield p, state
        else:
            yield p, None


def describe(passes: tuple[Pass, ...] = PASSES) -> str:
    """The passes as ``assay explain --passes`` prints them."""
    lines = ["Planner passes, in order:"]
    for n, p in enumerate(passes, 1):
        off = f" (off: PlannerOptions.{p.option})" if p.option else ""
        lines += [f"  {n}. {p.name}{off}: {p.does}", f"     {p.where}; tested by {p.test}"]
    return "\n".join(lines) + "\n"
