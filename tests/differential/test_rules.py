"""Differential tests: every native rule kind, generated over tricky tables, checked
against an independent oracle (tests/differential/oracle.py: plain Spark SQL written
from docs/rules.md) on the same server and the same data.

Per table (seeded, see tests/differential/tricky.py for the knobs) the harness builds
the DataFrame and a temp view once, measures the generated rules with ONE oracle query,
puts thresholds and tolerances around the measured values (no new measure, so that
query's answers are the expected ones) and runs ONE more oracle query with the table's
filter. Then every variation runs ALL the table's rules in one assay call and must
report exactly what the oracle says (failed_count, row_count, metric_value, passed,
severity; colstats' details):

- ``fused``: ``assay.validate(df, rules)``; ``keys``: the same with ``keys`` (and
  samples, so the detail plan runs); ``filter``: with the table's ``filter`` (the oracle
  applies the same WHERE);
- ``singles``: a sample of the rules, each alone, equal to the oracle and to ``fused``;
- ``sql_source`` / ``sql_source_filtered``: a native YAML config with one table per
  generated table, each ``source: {sql: ...}`` over its view, through ``assay.run``;
- ``split`` / ``split_pushdown_filtered``: the same config planned with
  ``PlannerOptions(strategy="split", max_outputs=5)`` (and ``pushdown=True``), which no
  config key or conf reaches: run through ``run_suite`` as tests/integration/test_folding.py
  does.

:data:`VARIATIONS` says which tables each variation runs on (the edge and main tables
nearly all of them). When a whole run fails (a plan error, a config error), the rules
behind it are found by bisection (the runs of the halves are compared as well) and
reported as errors: the test still fails, but one bug does not hide the others.
"""

from __future__ import annotations

import ast
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

import assay
from assay.errors import ConfigErrors
from tests.dialects import recorded
from tests.differential import oracle as oracle_module
from tests.differential import recorded_sql
from tests.differential.cases import EDGE_RULES, base_rules, capped, finish
from tests.differential.oracle import Expected, Oracle, format_valid
from tests.differential.tricky import Knobs, Table, edge_table, knobs, make_round

pytestmark = pytest.mark.spark

KNOBS = knobs()
DEFAULT_KNOBS = knobs({})
SEEDS = [KNOBS.seed + k for k in range(KNOBS.rounds)]
KEYS = ["id", "fmt`s"]
EVERY = ("edge", "main", "one", "empty", "nulls")
# Which tables each variation runs on: the edge and main tables everything, the small
# ones what can differ on them (no samples on an empty table, for instance). The split
# plans (a branch per few rules, joined) run on the empty table, where adaptive execution
# short-cuts the branches, but not on the one-row and all-null ones: what those tables
# hold is judged by every other variation, and a split plan's branches join the same way
# whatever rows they hold (the split run of five tables was the file's costliest: 85.7 s
# of 557 s under load 25; of three, 27.9 s).
VARIATIONS = {
    "fused": EVERY,
    "keys": ("edge", "nulls"),
    "filter": ("edge", "main", "empty", "nulls"),
    "rule_filter": ("edge", "main", "empty", "nulls"),
    "singles": ("edge", "main"),
    "sql_source": EVERY,
    "sql_source_filtered": ("edge", "main", "one"),
    "split": ("edge", "main", "empty"),
    "split_pushdown_filtered": ("edge", "main", "empty"),
}


def tables(variation: str) -> list[str]:
    kinds = VARIATIONS[variation]
    names = ["edge"] if "edge" in kinds else []
    return names + [f"{k}_{seed}" for seed in SEEDS for k in kinds if k != "edge"]


MAX_LINES = 60

Results = list[dict[str, Any]]
Runner = Callable[[list[dict[str, Any]]], tuple[Results, str | None]]


def say(text: str) -> None:
    print(f"[differential] {text}", file=sys.stderr, flush=True)


@dataclass
class Prepared:
    table: Table
    df: Any
    view: str
    rules: list[dict[str, Any]]
    expected: list[Expected]
    expected_filtered: list[Expected]
    oracle_at: float
    known_bad: set[int] = field(default_factory=set)
    runs: dict[str, tuple[dict[int, dict[str, Any]], list[str]]] = field(default_factory=dict)

    def context(self) -> str:
        return f"{KNOBS.describe()}; {self.table.describe()}, {len(self.rules)} rules"


RECORDING = Path(__file__).with_name("oracle.json")


@dataclass
class Planned:
    """A table's rules before the oracle has measured them, and the oracle's two queries
    (the table, and the table with its filter): none needs Spark."""

    table: Table
    oracle: Oracle
    view: str
    base: list[dict[str, Any]]
    rng: random.Random
    cap: int
    queries: dict[str, str]

    def inputs(self, query: str) -> dict[str, Any]:
        """The key of a query's recorded answers: its SQL text, the table's rows and
        types, the versions and the time zone (tests/differential/recorded_sql.py)."""
        return recorded_sql.inputs(
            self.queries[query], recorded_sql.data_digest(self.table.ddl, self.table.rows)
        )


def planned(table: Table, knobs: Knobs) -> Planned:
    """``table``'s base rules and the oracle's queries measuring them. The generated
    tables' rules are then finished around the measured values (:func:`finish`, the same
    measures: no new query), drawing on from the same ``rng``."""
    rng = random.Random(f"{table.seed}/{table.name}")
    oracle = Oracle(table.types)
    view = f"assay_diff_{table.name}"
    cap = knobs.rules if table.name.startswith("main") else knobs.rules // 3
    base = (
        EDGE_RULES
        if table.name == "edge"
        else capped(base_rules(table, rng, knobs.variants), cap * 3 // 5, rng)
    )
    for rule in base:
        oracle.add(rule)
    queries = {"": oracle.query(view), " filtered": oracle.query(view, table.filter)}
    return Planned(table, oracle, view, base, rng, cap, queries)


def default_tables() -> dict[str, Table]:
    """The tables of the default knobs, whose oracle answers are recorded."""
    tables = {t.name: t for t in make_round(DEFAULT_KNOBS.seed, DEFAULT_KNOBS.rows)}
    return {"edge": edge_table(), **tables}


class Lab:
    """The module's tables, built once each (on first use), and assay's runs of them."""

    def __init__(self, spark: Any, server: Any, tmp: Path) -> None:
        self.spark = spark
        self.server = server
        self.tmp = tmp
        self.tables = {t.name: t for seed in SEEDS for t in make_round(seed, KNOBS.rows)}
        self.tables["edge"] = edge_table()
        # the oracle's answers of the default knobs' tables are recorded (oracle.json)
        same = KNOBS.rows == DEFAULT_KNOBS.rows and KNOBS.variants == DEFAULT_KNOBS.variants
        same = same and KNOBS.rules == DEFAULT_KNOBS.rules
        self.recorded = {"edge"} | (set(default_tables()) & set(self.tables) if same else set())
        self.prepared: dict[str, Prepared] = {}
        say(f"seeds {SEEDS}; {KNOBS.describe()}")

    def get(self, name: str) -> Prepared:
        if name not in self.prepared:
            self.prepared[name] = self._prepare(self.tables[name])
        return self.prepared[name]

    def _answers(self, plan: Planned, query: str) -> dict[str, Any]:
        """The oracle's row for one of the table's queries: recorded, or run."""

        def live() -> dict[str, Any]:
            return self._one_row(plan.queries[query])

        if plan.table.name not in self.recorded:
            return live()
        return recorded_sql.row(RECORDING, plan.table.name + query, plan.inputs(query), live)

    def _prepare(self, table: Table) -> Prepared:
        start = time.monotonic()
        df = self.spark.createDataFrame(table.rows, table.ddl)
        plan = planned(table, KNOBS)
        df.createOrReplaceTempView(plan.view)
        oracle, rng = plan.oracle, plan.rng
        oracle_at = time.time()
        measured = oracle.measured(self._answers(plan, ""), now=oracle_at)
        rules = plan.base
        if table.name != "edge":
            # the tolerances and thresholds put around the measured values (the same
            # measures: no new query)
            rules = capped(finish(oracle, plan.base, measured, rng, KNOBS.variants, table),
                           plan.cap, rng)  # fmt: skip
            assert all(oracle.add(r) in measured for r in rules)
        filtered = oracle.measured(self._answers(plan, " filtered"), now=oracle_at)
        expected = [oracle.expect(r, measured) for r in rules]
        expected_filtered = [oracle.expect(r, filtered) for r in rules]
        say(
            f"{table.describe()}: {len(plan.base)} base rules -> {len(rules)} rules, filter "
            f"{table.filter!r} keeps {filtered['n']} rows; oracle: 2 queries"
            f"{' (recorded)' if table.name in self.recorded else ''}, "
            f"{time.monotonic() - start:.1f}s"
        )
        return Prepared(table, df, plan.view, rules, expected, expected_filtered, oracle_at)

    def executions(self, since: int | str | None = None) -> int | str:
        """SQL executions the server ran so far (or since ``since``), from its UI's
        REST API; ``?`` when the UI does not answer in time (a loaded machine)."""
        try:
            now = self.server.sql_executions()
        except Exception:  # noqa: BLE001 - a count for the log only
            return "?"
        if since is None:
            return now
        return now - since if isinstance(since, int) else "?"

    def _one_row(self, query: str) -> dict[str, Any]:
        try:
            return self.spark.sql(query).collect()[0].asDict()
        except Exception as exc:  # the oracle's own SQL failed: say which data and knobs
            raise AssertionError(f"the oracle's query failed ({KNOBS.describe()}): {exc}") from exc

    # -- runners: one assay call over the given rules, results in rule order --

    def validate(self, p: Prepared, **options: Any) -> Runner:
        def run(rules: list[dict[str, Any]]) -> tuple[Results, str | None]:
            result = assay.validate(p.df, rules, name="t", **options)
            return _events([json.loads(line) for line in result.to_json_lines().splitlines()])

        return run

    def _run_config(
        self, entries: list[tuple[Prepared, list[dict[str, Any]]]], filtered: bool, options: Any
    ) -> dict[str, tuple[Results, str | None]]:
        """ONE run of a native YAML config with a table per entry, each reading its view
        through ``source: {sql: ...}``: by ``assay.run``, or by ``run_suite`` with
        planner ``options``. Results by table name."""
        tables = []
        for p, rules in entries:
            table: dict[str, Any] = {
                "name": p.table.name,
                "source": {"sql": f"SELECT * FROM {p.view}"},
            }
            if filtered:
                table["filter"] = p.table.filter
            table["sample_size"] = 0
            table["rules"] = rules
            tables.append(table)
        path = self.tmp / f"config_{time.monotonic_ns()}.yaml"
        path.write_text(yaml.safe_dump({"tables": tables}, allow_unicode=False, sort_keys=False))
        if options is None:
            result = assay.run(str(path), spark=self.spark)
            events = [json.loads(line) for line in result.to_json_lines().splitlines()]
        else:
            from assay.config import load_suite
            from assay.executor.run import run_suite

            raw: list[dict[str, Any]] = []
            run_suite(load_suite([path]), self.spark, lambda e: raw.append(e.to_dict()),
                      options=options)  # fmt: skip
            events = [json.loads(json.dumps(e, default=str)) for e in raw]
        return {
            p.table.name: _events([e for e in events if e.get("table") == p.table.name])
            for p, _ in entries
        }

    def config(self, p: Prepared, filtered: bool, options: Any = None) -> Runner:
        """A runner of ``p``'s rules alone in a config (for bisection)."""
        return lambda rules: self._run_config([(p, rules)], filtered, options)[p.table.name]

    def run_configs(
        self, variation: str, names: list[str], filtered: bool, options: Any = None
    ) -> None:
        """The tables ``names`` in ONE config run (each table's rules but those known to
        break a run); a table whose run is not healthy is bisected on its own."""
        todo = [self.get(n) for n in names if variation not in self.get(n).runs]
        if not todo:
            return
        before = self.executions()
        start = time.monotonic()
        kept = {
            p.table.name: [i for i in range(len(p.rules)) if i not in p.known_bad] for p in todo
        }
        try:
            answers = self._run_config([(p, [p.rules[i] for i in kept[p.table.name]]) for p in todo],
                                       filtered, options)  # fmt: skip
        except ConfigErrors:
            answers = {}
        calls = 1
        for p in todo:
            results, error = answers.get(p.table.name, (None, None))
            runner = self.config(p, filtered, options)
            healthy = (
                results is not None
                and len(results) == len(kept[p.table.name])
                and all(r["severity"] != "error" for r in results)
            )
            if healthy and not error:
                got = dict(zip(kept[p.table.name], results, strict=True))  # type: ignore[arg-type]
                alone, notes, more = isolate(runner, p.rules, set(), only=sorted(p.known_bad))
                got.update(alone)
                notes = ([f"{len(p.known_bad)} rules cannot run with the others (isolated)"]
                         if p.known_bad else []) + notes  # fmt: skip
            else:
                got, notes, more = isolate(runner, p.rules, p.known_bad)
            calls += more
            p.runs[variation] = (got, notes)
        say(
            f"{variation} {', '.join(p.table.name for p in todo)}: {calls} assay calls (the "
            f"tables in one config), {self.executions(before)} Spark SQL "
            f"executions, {time.monotonic() - start:.1f}s"
        )

    def run(
        self, p: Prepared, variation: str, runner: Runner
    ) -> tuple[dict[int, dict[str, Any]], list[str]]:
        """All the table's rules in one call (bisected when the call fails as a whole)."""
        if variation not in p.runs:
            before = self.executions()
            start = time.monotonic()
            got, notes, calls = isolate(runner, p.rules, p.known_bad)
            say(
                f"{variation} {p.table.name}: {calls} assay calls, "
                f"{self.executions(before)} Spark SQL executions, "
                f"{time.monotonic() - start:.1f}s"
            )
            p.runs[variation] = (got, notes)
        return p.runs[variation]


def _events(events: list[dict[str, Any]]) -> tuple[Results, str | None]:
    results = sorted((e for e in events if e["event"] == "result"), key=lambda e: e["rule_index"])
    tables = [e for e in events if e["event"] == "table"]
    return results, (tables[0].get("error") if tables else None)


def isolate(
    runner: Runner, rules: list[dict[str, Any]], known_bad: set[int], only: list[int] | None = None
) -> tuple[dict[int, dict[str, Any]], list[str], int]:
    """Every rule's result from runs of as many rules as possible at once: the rules
    known to break a run run alone, the others together; a run that still fails as a
    whole (an error result, a config error) is split in halves until each failing rule
    is alone (``only``: just these rules, each alone). Returns the results by rule
    index, notes on what was isolated, the calls."""
    got: dict[int, dict[str, Any]] = {}
    notes: list[str] = []
    calls = 0

    def solve(indices: list[int]) -> None:
        nonlocal calls
        if not indices:
            return
        calls += 1
        try:
            results, error = runner([rules[i] for i in indices])
        except ConfigErrors as exc:
            results, error = None, f"ConfigErrors: {exc}"
        healthy = (
            results is not None
            and len(results) == len(indices)
            and all(r["severity"] != "error" for r in results)
        )
        if healthy:
            got.update(zip(indices, results, strict=True))  # type: ignore[arg-type]
            return
        if len(indices) == 1:
            known_bad.add(indices[0])
            if results:
                got[indices[0]] = results[0]
                error = error or results[0].get("message")
            else:
                got[indices[0]] = {"severity": "error", "message": error}
            notes.append(f"rule #{indices[0]} breaks a run alone: {str(error)[:300]}")
            return
        mid = len(indices) // 2
        solve(indices[:mid])
        solve(indices[mid:])

    if only is not None:
        for i in only:
            solve([i])
        return got, notes, calls
    solve([i for i in range(len(rules)) if i not in known_bad])
    for i in sorted(known_bad):
        if i not in got:
            solve([i])
    if known_bad:
        notes.insert(
            0, f"{len(known_bad)} rules cannot run with the others (isolated by bisection)"
        )
    return got, notes, calls


# --- comparing ----------------------------------------------------------------------------


def _number(value: Any) -> Decimal:
    return Decimal(str(value))


def same_number(got: Any, want: Any, tolerance: float | None = None) -> bool:
    if want is None or got is None:
        return got is None and want is None
    if isinstance(got, bool):
        return False
    if tolerance is not None:  # another formula for the same double
        a, b = float(_number(got)), float(want)
        return abs(a - b) <= tolerance * (1 + abs(b))
    if isinstance(want, Fraction):
        return _close(float(_number(got)), float(want))
    if isinstance(want, float):
        return _close(float(_number(got)), want)
    return _number(got) == Decimal(want)


def _close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def compare(want: Expected, got: dict[str, Any], slack: float) -> list[str]:
    """What differs between assay's result and the oracle's."""
    if got.get("severity") == "error":
        return [f"error: {str(got.get('message'))[:400]}"]
    problems = []
    metric_ok = True
    if isinstance(want.metric_value, tuple):  # freshness: seconds, within the elapsed time
        seconds = want.metric_value[1]
        actual = got.get("metric_value")
        if (seconds is None) != (actual is None) or (
            seconds is not None and abs(float(_number(actual)) - float(seconds)) > slack
        ):
            problems.append(
                f"metric_value: assay {actual!r}, oracle {float(seconds) if seconds is not None else None!r} (±{slack:.0f}s)"
            )
    elif want.alternatives is not None:  # an approximate answer: one of these
        return problems + _approximate(want, got)
    elif not same_number(got.get("metric_value"), want.metric_value, want.tolerance):
        metric_ok = False
        problems.append(
            f"metric_value: assay {got.get('metric_value')!r}, oracle {_show(want.metric_value)}"
        )
    # a verdict on a threshold equal to a double the oracle computes otherwise (a sum's
    # order, an interpolation's formula) may flip when the two doubles differ at all
    fragile = want.fragile and not (metric_ok and _bitwise(got.get("metric_value"), want))
    if got.get("passed") != want.passed and not fragile:
        problems.append(f"passed: assay {got.get('passed')!r}, oracle {want.passed!r}")
    elif got.get("severity") != want.severity and not fragile:
        problems.append(f"severity: assay {got.get('severity')!r}, oracle {want.severity!r}")
    if got.get("failed_count") != want.failed_count:
        problems.append(
            f"failed_count: assay {got.get('failed_count')!r}, oracle {want.failed_count!r}"
        )
    if got.get("row_count") != want.row_count:
        problems.append(f"row_count: assay {got.get('row_count')!r}, oracle {want.row_count!r}")
    if want.details is not None:
        details = got.get("details") or {}
        for key, value in want.details.items():
            actual = details.get(key)
            if (
                isinstance(value, float)
                and value != value
                or value in (float("inf"), float("-inf"))
            ):
                value = None  # JSON has no NaN or infinity
            ok = (actual is None and value is None) or (
                actual is not None
                and value is not None
                and _close(float(_number(actual)), float(value))
            )
            if not ok:
                problems.append(f"details.{key}: assay {actual!r}, oracle {_show(value)}")
    return problems


def _bitwise(got: Any, want: Expected) -> bool:
    """Whether assay's double is exactly the oracle's (not just within 1e-12)."""
    value = want.metric_value
    if not isinstance(value, float) or got is None or isinstance(got, bool):
        return True
    return float(_number(got)) == value


def _approximate(want: Expected, got: dict[str, Any]) -> list[str]:
    """An approximate percentile's result: a value of the documented rank window, the
    verdict of that value, and the rows."""
    assert want.alternatives is not None
    value = got.get("metric_value")
    verdict = next(
        (v for k, v in want.alternatives.items() if same_number(value, _json_number(k))), None
    )
    problems = []
    if verdict is None:
        allowed = sorted({_json_number(k) for k in want.alternatives}, key=repr)
        problems.append(f"metric_value: assay {value!r}, oracle one of {allowed}")
    elif (got.get("passed"), got.get("severity")) != verdict:
        problems.append(
            f"verdict: assay {got.get('passed')!r}/{got.get('severity')!r} for {value!r}, "
            f"oracle {verdict[0]!r}/{verdict[1]!r}"
        )
    for key in ("failed_count", "row_count"):
        if got.get(key) != getattr(want, key):
            problems.append(f"{key}: assay {got.get(key)!r}, oracle {getattr(want, key)!r}")
    return problems


def _json_number(value: Any) -> Any:
    """A double as a result's JSON holds it (none for NaN or an infinity)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _show(value: Any) -> str:
    if isinstance(value, Fraction):
        return f"{float(value)!r} (exactly {value})"
    return repr(value)


def _rule_text(rule: dict[str, Any]) -> str:
    """A rule as JSON, dates and timestamps marked as such (not strings)."""

    def typed(value: Any) -> str:
        if hasattr(value, "isoformat"):
            return f"<{type(value).__name__} {value.isoformat()}>"
        return str(value)

    return json.dumps(rule, default=typed, ensure_ascii=True)


def check(p: Prepared, variation: str, got: dict[int, dict[str, Any]], notes: list[str],
          filtered: bool = False, indices: list[int] | None = None,
          expected: list[Expected] | None = None) -> None:  # fmt: skip
    if expected is None:
        expected = p.expected_filtered if filtered else p.expected
    slack = time.time() - p.oracle_at + 10
    lines = []
    for i in indices if indices is not None else range(len(p.rules)):
        problems = compare(expected[i], got[i], slack) if i in got else ["no result"]
        for problem in problems:
            lines.append(f"  rule #{i} {_rule_text(p.rules[i])}: {problem}")
    report(p, variation, lines, notes)


def report(p: Prepared, variation: str, lines: list[str], notes: list[str]) -> None:
    head = f"{variation}: {len(lines)} discrepancies with the oracle; {p.context()}"
    for line in [head, *notes, *lines]:
        if lines:
            say(line)
    shown = lines[:MAX_LINES] + (
        [f"  ... and {len(lines) - MAX_LINES} more"] if len(lines) > MAX_LINES else []
    )
    assert not lines, "\n".join([head, *notes[:10], *shown])


# --- the tests ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab(spark, server, tmp_path_factory) -> Iterator[Lab]:
    """The tables and runs, in the time zone the oracle's answers are recorded in (the
    session's own put back after)."""
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", recorded_sql.TIMEZONE)
    try:
        yield Lab(spark, server, tmp_path_factory.mktemp("differential"))
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


@pytest.mark.parametrize("name", tables("fused"))
def test_fused(lab: Lab, name: str) -> None:
    """Every generated rule of the table in one validate call."""
    p = lab.get(name)
    got, notes = lab.run(p, "fused", lab.validate(p, sample_size=0))
    check(p, "fused", got, notes)


@pytest.mark.parametrize("name", tables("keys"))
def test_keys(lab: Lab, name: str) -> None:
    """The same with keys (and samples, so the detail plan runs too)."""
    p = lab.get(name)
    got, notes = lab.run(p, "keys", lab.validate(p, keys=KEYS))
    check(p, "keys", got, notes)


@pytest.mark.parametrize("name", tables("filter"))
def test_filter(lab: Lab, name: str) -> None:
    """The same with the table's filter; the oracle applies the same WHERE."""
    p = lab.get(name)
    got, notes = lab.run(p, "filter", lab.validate(p, filter=p.table.filter, sample_size=0))
    check(p, "filter", got, notes, filtered=True)


def takes_filter(rule: dict[str, Any]) -> bool:
    """Whether the rule's type takes a per-rule ``filter`` (all but schema, sql, colstats)."""
    from assay.dialects.catalogue import ALIASES, RULES

    return "filter" in RULES[ALIASES.get(rule["type"], rule["type"])].keys


def own_filters(condition: str) -> Runner:
    """Each rule that takes one gets the table's filter as its own ``filter``, spelled
    differently for each rule of a call (``(...) AND 7 = 7``), so that no rule reads
    another's measures: each must count the rows its filter keeps by itself."""

    def rewrite(rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**rule, "filter": f"({condition}) AND {k} = {k}"} if takes_filter(rule) else rule
            for k, rule in enumerate(rules)
        ]

    return rewrite  # type: ignore[return-value]


@pytest.mark.parametrize("name", tables("rule_filter"))
def test_rule_filter(lab: Lab, name: str) -> None:
    """The table's filter as each rule's own ``filter`` (no table filter): every rule
    that takes one reports what the oracle measures with the table's WHERE, its
    ``row_count`` the rows its filter keeps; the others what they report unfiltered."""
    p = lab.get(name)
    plain = lab.validate(p, sample_size=0)
    rewrite = own_filters(p.table.filter)
    got, notes = lab.run(p, "rule_filter", lambda rules: plain(rewrite(rules)))
    expected = [
        f if takes_filter(r) else e
        for r, e, f in zip(p.rules, p.expected, p.expected_filtered, strict=True)
    ]
    check(p, "rule_filter", got, notes, expected=expected)


@pytest.mark.parametrize("name", tables("singles"))
def test_singles(lab: Lab, name: str) -> None:
    """A sample of the rules, each alone in its own call: what the oracle says, and
    exactly what the fused call reported."""
    p = lab.get(name)
    fused, _ = lab.run(p, "fused", lab.validate(p, sample_size=0))
    rng = random.Random(f"singles/{name}")
    picked = sorted(rng.sample(range(len(p.rules)), min(KNOBS.singles, len(p.rules))))
    picked = sorted(set(picked) | set(sorted(p.known_bad)[:2]))
    runner = lab.validate(p, sample_size=0)
    got: dict[int, dict[str, Any]] = {}
    lines: list[str] = []
    start = time.monotonic()
    for i in picked:
        try:
            results, _ = runner([p.rules[i]])
            got[i] = results[0]
        except ConfigErrors as exc:
            got[i] = {"severity": "error", "message": f"ConfigErrors: {exc}"}
        fields = ("passed", "severity", "failed_count", "row_count", "metric_value")
        alone = {k: got[i].get(k) for k in fields}
        together = {k: fused.get(i, {}).get(k) for k in fields}
        # freshness is measured against the clock; an approximate percentile may merge
        # the partitions' sketches in another order (the oracle bounds both answers)
        moving = got[i].get("rule", {}).get("type") == "freshness" or "accuracy" in p.rules[i]
        if alone != together and not moving:
            lines.append(f"  rule #{i} {_rule_text(p.rules[i])}: alone {alone} != fused {together}")
    say(f"singles {name}: {len(picked)} assay calls, {time.monotonic() - start:.1f}s")
    slack = time.time() - p.oracle_at + 10
    for i in picked:
        for problem in compare(p.expected[i], got[i], slack):
            lines.append(f"  rule #{i} {_rule_text(p.rules[i])} (alone): {problem}")
    report(p, f"singles ({len(picked)} rules alone)", lines, [])


@pytest.mark.parametrize("name", tables("sql_source"))
def test_sql_source(lab: Lab, name: str) -> None:
    """A native config table with ``source: {sql: ...}``, through ``assay.run``."""
    lab.run_configs("sql_source", tables("sql_source"), filtered=False)
    p = lab.get(name)
    check(p, "sql_source", *p.runs["sql_source"])


@pytest.mark.parametrize("name", tables("sql_source_filtered"))
def test_sql_source_filtered(lab: Lab, name: str) -> None:
    """The same with the table's ``filter`` in the config."""
    lab.run_configs("sql_source_filtered", tables("sql_source_filtered"), filtered=True)
    p = lab.get(name)
    check(p, "sql_source_filtered", *p.runs["sql_source_filtered"], filtered=True)


@pytest.mark.parametrize("name", tables("split"))
def test_split(lab: Lab, name: str) -> None:
    """The config planned split by column into branches of at most 5 outputs."""
    from assay.planner.cost import PlannerOptions

    options = PlannerOptions(strategy="split", max_outputs=5)
    lab.run_configs("split", tables("split"), filtered=False, options=options)
    p = lab.get(name)
    check(p, "split", *p.runs["split"])


@pytest.mark.parametrize("name", tables("split_pushdown_filtered"))
def test_split_pushdown_filtered(lab: Lab, name: str) -> None:
    """Split with statistics-prunable filtered branches, and the table's filter."""
    from assay.planner.cost import PlannerOptions

    options = PlannerOptions(strategy="split", max_outputs=5, pushdown=True)
    lab.run_configs("split_pushdown_filtered", tables("split_pushdown_filtered"), True, options)
    p = lab.get(name)
    check(p, "split_pushdown_filtered", *p.runs["split_pushdown_filtered"], filtered=True)


def test_oracle_is_independent() -> None:
    """The oracle is written from the docs: it imports nothing of assay's planner,
    emitter or dialects (nor anything of assay at all)."""
    tree = ast.parse(Path(oracle_module.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    forbidden = ("assay.planner", "assay.emit", "assay.dialects")
    assert not [m for m in imported if m.startswith(forbidden)], imported
    assert not [m for m in imported if m == "assay" or m.startswith("assay.")], imported


def test_recording_is_current() -> None:
    """The oracle's recorded answers (oracle.json) are those of today's queries over
    today's tables (no Spark: the queries are built, not run); stale, the oracle's
    queries ran live."""
    cases = {
        name + query: plan.inputs(query)
        for name, table in default_tables().items()
        for plan in (planned(table, DEFAULT_KNOBS),)
        for query in plan.queries
    }
    recorded.assert_current(RECORDING, cases, "the differential oracle",
                            "tests/differential/test_rules.py")  # fmt: skip


ORACLE_ROWS = [
    (1, "AB", 0.1, "0.100000000000000001", " true "),
    (2, "xB", None, "0.1", "Y\n"),
    (3, "Ax", float("nan"), "-1", "maybe"),
    (4, None, float("-inf"), None, "\ttrue"),
]


def test_oracle_by_hand(spark) -> None:
    """The oracle itself, on numbers worked out by hand from docs/rules.md."""
    df = spark.createDataFrame(
        [(i, s, f, Decimal(d) if d else None, b) for i, s, f, d, b in ORACLE_ROWS],
        "id bigint, s string, f double, d decimal(38,18), b string",
    )
    df.createOrReplaceTempView("assay_diff_oracle_by_hand")
    o = Oracle({"id": "bigint", "s": "string", "f": "double", "d": "decimal(38,18)", "b": "string"})
    rules = [
        {"type": "regex", "column": "s", "pattern": "^A|B$"},  # AB, xB, Ax match; null fails
        {"type": "regex", "column": "s", "pattern": "^(A|B)$"},  # none matches; null fails
        {"type": "range", "column": "d", "max": 0.1},  # 0.100000000000000001 > 0.1
        {"type": "range", "column": "f", "max": 0.1, "inclusive": False},  # 0.1 and NaN fail
        {"type": "negative_check", "column": "f"},  # -inf only
        {"type": "accepted_values", "column": "d", "values": [0.1]},  # 0.1000..01 and -1 fail
        {"type": "range", "column": "id", "max": 9223372036854775808},
        {"type": "accepted_values", "column": "s", "values": [1, 2]},  # 3 non-null strings
        {"type": "invalid_count", "column": "b", "valid_format": "boolean", "must_be": "= 1"},
        {"type": "column_max_check", "column": "d", "value": 0.1},
        {"type": "max", "column": "f", "must_be": "> 0"},  # NaN: fails
        {"type": "missing_percent", "column": "s", "must_be": "= 25"},
        {"type": "has_uniqueness", "column": "s", "fraction": 1.0},
        {"type": "range", "column": "id", "min": 2, "tolerance": 0.25},  # 1 of 4 allowed
        {"type": "range", "column": "id", "min": 3, "tolerance": 0.25},
    ]
    for r in rules:
        o.add(r)
    measured = o.measured(spark.sql(o.query("assay_diff_oracle_by_hand")).collect()[0].asDict())
    got = [(e.failed_count, e.passed) for e in (o.expect(r, measured) for r in rules)]
    assert got == [
        (1, False), (4, False), (1, False), (2, False), (1, False), (2, False), (0, True),
        (3, False), (1, True), (None, False), (None, False), (1, True), (0, True),
        (1, True), (2, False),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "fmt, valid, invalid",
    [
        ("date", ["2024-02-29", "0001-01-01"], ["2023-02-29", "2024-13-01", "2024-00-10"]),
        ("date_us", ["12/31/2024", "02/29/2024"], ["31/12/2024", "29/02/2023", "00/10/2024"]),
        ("date_eu", ["31/12/2024", "29/02/2024"], ["12/31/2024", "30/02/2024", "10/00/2024"]),
    ],
)
def test_oracle_dates_by_hand(spark, fmt: str, valid: list[str], invalid: list[str]) -> None:
    """The oracle's dates: an impossible month is invalid, not unknown (a month outside
    1-12 once made its day test NULL, so such values counted as neither)."""
    values = ", ".join(f"('{v}')" for v in valid + invalid)
    got = spark.sql(
        f"SELECT v, {format_valid(fmt, 'v')} AS ok FROM VALUES {values} AS t(v)"
    ).collect()
    assert {r.v: r.ok for r in got} == {
        **dict.fromkeys(valid, True),
        **dict.fromkeys(invalid, False),
    }
