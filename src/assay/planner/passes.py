"""The planner's rewrites, named, in the order a table goes through them.

Each pass is a pure function of the IR (or of the plan being built) that changes how a
table is computed, never what it answers; each has a test comparing it with the plain
form on data built to break it (``test``). ``assay explain --passes`` prints this list.
A pass that ``PlannerOptions`` can turn off names its field (``option``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from assay.planner import cost, literals, lower, regex, sqlfold, values


@dataclass(frozen=True, slots=True)
class Pass:
    """One rewrite: its name, what it does (one sentence), the function doing it, the
    option turning it off (if any), and its differential test."""

    name: str
    does: str
    function: Callable[..., Any]
    test: str
    option: str | None = None

    @property
    def where(self) -> str:
        """``module.function`` of the pass."""
        return f"{self.function.__module__}.{self.function.__qualname__}"


PASSES: tuple[Pass, ...] = (
    Pass(
        "literal typing",
        "every literal becomes a value of its column's type, exactly (a bound beyond the"
        " type decides the comparison for every value), so no rule casts at run time",
        literals.typed_table,
        "tests/differential/test_rules.py",
    ),
    Pass(
        "regex simplification",
        "a literal regex (a prefix, a suffix, a substring, an alternation of them) becomes"
        " the string test it means",
        regex.cheaper,
        "tests/planner/test_regex.py",
    ),
    Pass(
        "sql folding",
        "a SQL rule that only counts rows becomes a count_if of the aggregate scan (one"
        " counting distinct values the groups of a group-by, one comparing aggregates of"
        " the whole table an output of the scan), after Spark has analysed it as written",
        sqlfold.row_count_query,
        "tests/integration/test_sqlfold_differential.py",
        option="fold_sql",
    ),
    Pass(
        "measure sharing",
        "equal measures asked by several rules become one slot of the plan",
        lower.plan_table,
        "tests/integration/test_catalogue_fused.py",
    ),
    Pass(
        "tests by value",
        "the counts of a string column with few values (bounded by the suite) and an"
        " expensive test (a regex, a parse) are answered from its rows grouped by value:"
        " each test runs once per distinct value; such columns share one group-by while"
        " their declared numbers of values multiply to a few",
        values.value_branches,
        "tests/integration/test_by_value.py",
        option="by_value",
    ),
    Pass(
        "class runs by bytes",
        "a regex that is a run of one ASCII class (^[A-Za-z0-9 ,.]{1,44}$) on a plain string"
        " column is computed as the unbounded run and the value's bytes before a final line"
        " break, where it is bounded or shares its class with another regex of the column:"
        " such regexes then run once per row between them",
        lower.class_runs,
        "tests/integration/test_class_runs.py",
        option="class_runs",
    ),
    Pass(
        "split by cost",
        "the slots are split into scan branches by the columns they read, when the table is"
        " large enough for that to pay",
        cost.scan_branches,
        "tests/integration/test_folding.py",
        option="strategy",
    ),
    Pass(
        "object aggregates apart",
        "an aggregate Spark cannot compile to code (percentile, percentile_approx) gets a"
        " scan branch of its own, so the other measures keep their generated code",
        cost.scan_branches,
        "tests/differential/test_rules.py",
    ),
    Pass(
        "key bound",
        "the aggregate also measures the first key's min and max, so the detail plan can"
        " read the failing rows of a heavy rule within the key range it needs",
        cost.key_bound,
        "tests/integration/test_folding.py",
    ),
)
"""The passes, in the order a table meets them."""


def describe(passes: tuple[Pass, ...] = PASSES) -> str:
    """The passes as ``assay explain --passes`` prints them."""
    lines = ["Planner passes, in order:"]
    for n, p in enumerate(passes, 1):
        off = f" (off: PlannerOptions.{p.option})" if p.option else ""
        lines += [f"  {n}. {p.name}{off}: {p.does}", f"     {p.where}; tested by {p.test}"]
    return "\n".join(lines) + "\n"
