"""Great Expectations' own test fixtures (``tests/test_definitions/*.json`` of
great_expectations, copied under ``fixtures/``) as assay runs them: each dataset written
as parquet with the fixture's Spark types, its cases run as one suite bound to a native
table, each case's outcome compared with what the fixture asserts."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from dateutil import parser as dates

from assay.errors import ConfigErrors
from tests.dialects.helpers import load, run, write
from tests.helpers import validate_event

FIXTURES = Path(__file__).parent / "fixtures"
TYPES = {
    "IntegerType": pa.int32(),
    "LongType": pa.int64(),
    "StringType": pa.string(),
    "FloatType": pa.float32(),
    "DoubleType": pa.float64(),
    "BooleanType": pa.bool_(),
    "TimestampType": pa.timestamp("us"),
    "DecimalType": pa.decimal128(38, 10),
}


@dataclass(frozen=True)
class Case:
    """One test of a fixture: where it is, what it runs, what GX says it gives."""

    expectation: str
    dataset: int
    ordinal: int
    title: str
    kwargs: dict[str, Any]
    out: dict[str, Any]
    error: bool
    tolerance: float | None = None
    """GX's own ``rtol`` for the observed values (``np.allclose``), when the case gives one."""

    @property
    def id(self) -> str:
        return f"{self.expectation}[{self.dataset}.{self.ordinal}]:{self.title}"


def _for_spark(test: dict[str, Any]) -> bool:
    if "spark" in test.get("suppress_test_for", []):
        return False
    only = test.get("only_for")
    return only is None or "spark" in only


def cases(expectation: str) -> list[Case]:
    """The fixture's cases GX runs on Spark."""
    doc = json.loads((FIXTURES / f"{expectation}.json").read_text())
    found = []
    for i, dataset in enumerate(doc["datasets"]):
        for n, test in enumerate(dataset["tests"]):
            if not _for_spark(test):
                continue
            out = test.get("out") or {}
            error = "error" in test or "traceback_substring" in out
            # nothing asserted but that GX catches what it raises: GX 1.x refuses the
            # configuration (its validator; the quantiles' disordered ranges)
            error = error or (not out and bool(test["in"].get("catch_exceptions")))
            case = Case(expectation, i, n, test["title"], test["in"], out, error)
            found.append(replace(case, tolerance=test.get("tolerance")))
    return found


def expectations() -> list[str]:
    return sorted(p.stem for p in FIXTURES.glob("*.json"))


def _value(text: Any, kind: str) -> Any:
    if text is None:
        return None
    if kind == "TimestampType":
        return dates.parse(text)
    if kind == "DecimalType":
        return Decimal(str(text))
    if kind in ("IntegerType", "LongType") and isinstance(text, str):
        return int(text)  # pandas -> Spark with the fixture's schema casts the text
    if kind == "StringType" and not isinstance(text, str):
        return json.dumps(text)  # pandas -> Spark: a string column's other values as text
    return text


def write_dataset(expectation: str, index: int, folder: Path) -> Path:
    """The dataset as parquet with the fixture's Spark types (strings where it has none)."""
    dataset = json.loads((FIXTURES / f"{expectation}.json").read_text())["datasets"][index]
    kinds = (dataset.get("schemas") or {}).get("spark") or {}
    columns = {}
    for name, values in dataset["data"].items():
        kind = kinds.get(name, "StringType" if _all_text(values) else "")
        typ = TYPES.get(kind)
        if kind == "NullType" or all(v is None for v in values):
            typ = typ or pa.string()
        columns[name] = pa.array([_value(v, kind) for v in values], type=typ)
    path = folder / f"{expectation}_{index}.parquet"
    pq.write_table(pa.table(columns), path)
    return path


def _all_text(values: list[Any]) -> bool:
    return all(v is None or isinstance(v, str) for v in values)


def _suite(folder: Path, name: str, items: list[Case]) -> Path:
    doc = {
        "name": name,
        "expectations": [{"type": c.expectation, "kwargs": c.kwargs} for c in items],
    }
    suite = folder / f"{name}.json"
    suite.write_text(json.dumps(doc, indent=1))
    return suite


def _config(folder: Path, name: str, groups: list[tuple[str, list[Case]]]) -> Path:
    """A native config of one table per group (a dataset's stem and the cases run on it),
    each bound to its cases' suite: the tables run in one ``assay.run``, at once."""
    tables = []
    for n, (stem, items) in enumerate(groups):
        suite = _suite(folder, f"{name}_{n}", items)
        tables.append(f"""
          - name: t{n}
            source: {{path: {folder / (stem + ".parquet")}}}
            sample_size: 1000
            expectations: {suite.name}""")  # fmt: skip
    return write(folder, "tables:" + "".join(tables) + "\n", f"{name}.yaml")


def outcomes(spark, names: list[str], folder: Path) -> dict[str, str]:
    """Each case's verdict, of every fixture of ``names``: ``ok`` or why it differs from
    what GX asserts. A dataset's cases run as one table, every dataset's tables in one run;
    a table whose run stops (a case GX raises on) runs again without the cases GX raises
    on, each of those alone."""
    found: dict[str, str] = {}
    groups: list[tuple[str, list[Case]]] = []
    for expectation in names:
        by_dataset: dict[int, list[Case]] = {}
        for case in cases(expectation):
            by_dataset.setdefault(case.dataset, []).append(case)
        for index, items in by_dataset.items():
            try:
                write_dataset(expectation, index, folder)
            except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError) as e:
                found.update({c.id: f"data not representable: {e}" for c in items})
                continue
            stem = f"{expectation}_{index}"
            runnable = []
            for n, case in enumerate(items):
                try:
                    load(_config(folder, f"{stem}_{n}", [(stem, [case])]))
                except ConfigErrors as e:
                    found[case.id] = "ok" if case.error else f"config error: {e.errors[0].message}"
                    continue
                runnable.append(case)
            if runnable:
                groups.append((stem, runnable))
    for round_ in range(3):
        if not groups:
            break
        stopped = _run_groups(spark, folder, f"round{round_}", groups, found)
        groups = [part for stem, items in stopped for part in _apart(stem, items, round_)]
    return found


def _apart(stem: str, items: list[Case], round_: int) -> list[tuple[str, list[Case]]]:
    """A stopped table's cases to run again: those GX raises on each alone and the others
    together (the second time, every case alone)."""
    if round_ == 0 and any(not c.error for c in items):
        rest = [(stem, [c for c in items if not c.error])]
        return rest + [(stem, [c]) for c in items if c.error]
    return [(stem, [c]) for c in items]


def _run_groups(
    spark, folder: Path, name: str, groups: list[tuple[str, list[Case]]], found: dict[str, str]
) -> list[tuple[str, list[Case]]]:
    """Run the groups as the tables of one run, judging each case of the tables that ran
    to the end (and the cases alone, whatever their table did); return the stopped ones.
    A rule that does not fit its table's schema stops a whole run: each group then runs
    on its own."""
    try:
        events = run(spark, load(_config(folder, name, groups)))
    except ConfigErrors as e:
        if len(groups) == 1:
            (_stem, (case, *more)) = groups[0]
            if not more:
                found[case.id] = "ok" if case.error else f"preflight: {e.errors[0].message}"
                return []
            return groups
        stopped = []
        for n, group in enumerate(groups):
            stopped += _run_groups(spark, folder, f"{name}_{n}", [group], found)
        return stopped
    for event in events.events:  # GX's numbers keep the events' schema valid
        validate_event(event)
    tables = events.tables()
    stopped = []
    for n, (stem, items) in enumerate(groups):
        results = [r for r in events.results if r["table"] == f"t{n}"]
        error = tables[f"t{n}"].get("error")
        if len(items) == 1:
            found[items[0].id] = _judged(items[0], results, error)
        elif error:
            stopped.append((stem, items))
        else:
            for case, result in zip(items, results, strict=True):
                found[case.id] = _judged(case, [result], None)
    return stopped


def _judged(case: Case, results: list[dict[str, Any]], table_error: str | None) -> str:
    if case.error:
        failed = table_error or (results and results[0]["severity"] == "error")
        return "ok" if failed else "GX raises an error; assay ran it"
    if table_error or not results or results[0]["severity"] == "error":
        return f"error: {table_error or (results[0]['message'] if results else 'no result')}"
    result = results[0]
    out = {**case.out, **(case.out.get("result") or {})}
    if "success" in case.out and result["passed"] != case.out["success"]:
        return f"success {result['passed']}, GX {case.out['success']}"
    numbers = (result.get("details") or {}).get("great_expectations") or {}
    if case.expectation in _DISTINCT_SETS and isinstance(out.get("observed_value"), list):
        # GX 1.2's fixture lists the distinct values; GX 1.24.1 reports null and counts
        # instead: the counts it gives for these values must be assay's
        counts = _set_counts(out["observed_value"], case)
        ours_counts = {k: numbers.get(k) for k in counts}
        if numbers.get("observed_value") is not None or ours_counts != counts:
            return f"counts {ours_counts}, GX 1.24.1 {counts} of {out['observed_value']}"
        out = {k: v for k, v in out.items() if k != "observed_value"}
    if case.expectation == "expect_column_most_common_value_to_be_in_set":
        # assay's query says whether the expectation holds, not the most common values
        # (docs/dialects.md): GX's verdict is compared, not its observed_value
        out = {k: v for k, v in out.items() if k != "observed_value"}
    if "observed_value" in out and not _observed(numbers.get("observed_value"), out, case):
        return f"observed_value {numbers.get('observed_value')}, GX {out['observed_value']}"
    if "unexpected_list" in out and not result["passed"]:
        ours = numbers.get("partial_unexpected_list") or []
        if _bag(ours) != _bag(out["unexpected_list"]):
            return f"unexpected_list {ours}, GX {out['unexpected_list']}"
    for key in ("unexpected_count", "unexpected_percent", "element_count"):
        if key in out and not _same(numbers.get(key), out[key]):
            return f"{key} {numbers.get(key)}, GX {out[key]}"
    return "ok"


def _observed(ours: Any, out: dict[str, Any], case: Case) -> bool:
    """GX's comparison of an observed value: quantiles' values within the case's
    ``tolerance`` (``np.allclose(ours, theirs, rtol=tolerance)``), else as :func:`_same`."""
    theirs = out["observed_value"]
    if isinstance(theirs, dict) and "values" in theirs and isinstance(ours, dict):
        rtol = case.tolerance if case.tolerance is not None else 1e-7
        atol = 1e-8 if case.tolerance is not None else 5e-2  # GX's RTOL and ATOL otherwise
        pairs = list(zip(ours.get("values") or [], theirs["values"], strict=False))
        close = all(v is not None and abs(v - t) <= atol + rtol * abs(t) for v, t in pairs)
        return ours.get("quantiles") == theirs.get("quantiles") and close
    if case.expectation == "unexpected_rows_expectation" and isinstance(theirs, str):
        # GX 1.2's fixture says "1 unexpected row"; GX 1.x since reports the count (1)
        return theirs.split(" ")[0] == str(ours)
    return _same(ours, theirs)


_DISTINCT_SETS = {
    "expect_column_distinct_values_to_be_in_set": ("unexpected_count",),
    "expect_column_distinct_values_to_contain_set": ("missing_count",),
    "expect_column_distinct_values_to_equal_set": ("unexpected_count", "missing_count"),
}


def _set_counts(distinct: list[Any], case: Case) -> dict[str, int]:
    """GX 1.24.1's counts of the distinct values GX 1.2 lists: those outside the set, and
    the set's length less the listed values it holds (its Spark metrics')."""
    wanted = case.kwargs["value_set"]
    counts = {
        "unexpected_count": len({v for v in distinct if v not in wanted}),
        "missing_count": len(wanted) - len(set(distinct) & set(wanted)),
    }
    return {k: counts[k] for k in _DISTINCT_SETS[case.expectation]}


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, (int, float, Decimal)) and isinstance(theirs, (int, float)):
        return math.isclose(float(ours), float(theirs), rel_tol=1e-9, abs_tol=1e-12)
    return ours == theirs


def _bag(values: list[Any]) -> Counter[str]:
    def key(v: Any) -> str:
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, (list, tuple)):
            return json.dumps([key(x) for x in v])
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return json.dumps(v, default=str)

    return Counter(key(v) for v in values)
