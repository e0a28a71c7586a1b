"""Metorikku's dq checks report what Metorikku + deequ 2.0.1 report for the same data.

The fixtures are ported from upstream tests as data + the outcome they assert, run as
Metorikku metric files through ``assay run`` against the shared server:

- Metorikku (YotpoLtd/metorikku, src/test/scala/com/yotpo/metorikku/metric/stepActions/
  dataQuality/): IsCompleteTest, IsUniqueTest, HasSizeTest, HasUniquenessTest,
  IsContainedInTest, FailedDFHandlerTest.
- deequ 2.0.1 (awslabs/deequ, src/test/scala/com/amazon/deequ/): checks/CheckTest,
  analyzers/AnalyzerTests, analyzers/UniquenessTest, analyzers/NullHandlingTests,
  constraints/ConstraintsTest; fixtures from utils/FixtureSupport.

A Metorikku check is a deequ ``Check`` with one constraint: ``passed`` is the constraint's
status, ``severity`` the check's (``warn`` for CheckStatus.Warning, ``fail`` for Error),
``metric_value`` deequ's metric (a fraction for completeness, uniqueness and compliance,
the row count for hasSize; null where deequ's state is empty).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.dialects.metorikku import FAILED_DF_ENV
from tests.dialects.helpers import errors, load, write
from tests.helpers import assay_cli as assay

S = pa.string()


def _table(columns: list[str], rows: list[tuple], types: list[pa.DataType] | None = None):
    types = types or [S] * len(columns)
    return pa.table(
        {
            c: pa.array([r[i] for r in rows], type=t)
            for i, (c, t) in enumerate(zip(columns, types, strict=False))
        }
    )


def run_metric(server, tmp_path: Path, inputs: dict[str, pa.Table], body: str, env=None):
    """``assay run metric.yaml --input name=parquet...``: the exit code and result events."""
    args: list[str] = []
    for name, table in inputs.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path)
        args += ["--input", f"{name}={path}"]
    metric = write(tmp_path, body, "metric.yaml")
    proc = assay("run", str(metric), "--remote", server.url, *args, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return proc.returncode, [e for e in events if e["event"] == "result"]


def _verdicts(results):
    return [(r["severity"], r["metric_value"]) for r in results]


# --- deequ FixtureSupport data -------------------------------------------------------------

DF_MISSING = _table(
    ["item", "att1", "att2"],
    [
        ("1", "a", "f"), ("2", "b", "d"), ("3", None, "f"), ("4", "a", None),
        ("5", "a", "f"), ("6", None, "d"), ("7", None, "d"), ("8", "b", None),
        ("9", "a", "f"), ("10", None, None), ("11", None, "f"), ("12", None, "d"),
    ],
)  # fmt: skip
DF_FULL = _table(
    ["item", "att1", "att2"], [("1", "a", "c"), ("2", "a", "c"), ("3", "a", "c"), ("4", "b", "d")]
)
DF_COMPLETE_AND_INCOMPLETE = _table(
    ["item", "att1", "att2"],
    [("1", "a", "f"), ("2", "b", "d"), ("3", "a", None), ("4", "a", "f"), ("5", "b", None),
     ("6", "a", "f")],
)  # fmt: skip
DF_UNIQUE = _table(
    ["unique", "nonUnique", "nonUniqueWithNulls", "uniqueWithNulls",
     "onlyUniqueWithOtherNonUnique", "halfUniqueCombinedWithNonUnique"],
    [("1", "0", "3", "1", "5", "0"), ("2", "0", "3", "2", "6", "0"),
     ("3", "0", "3", None, "7", "0"), ("4", "5", None, "3", "0", "4"),
     ("5", "6", None, "4", "0", "5"), ("6", "7", None, "5", "0", "6")],
)  # fmt: skip
DF_DISTINCT = _table(
    ["att1", "att2"],
    [("a", None), ("a", None), (None, "x"), ("b", "x"), ("b", "x"), ("c", "y")],
)
DF_EMPTY = _table(["column1", "column2"], [])
# analyzers/UniquenessTest: "Example from https://github.com/awslabs/deequ/issues/178"
ADDRESSES = _table(
    ["Country", "Address Line 1", "Address Line 2", "Address Line 3"],
    [
        ("India", "Xavier House, 2nd Floor", "St. Peter Colony, Perry Road", "Bandra (West)"),
        ("India", "503 Godavari", "Sir Pochkhanwala Road", "Worli"),
        ("India", "4/4 Seema Society", "N Dutta Road, Four Bungalows", "Andheri"),
        ("India", "1001D Abhishek Apartments", "Juhu Versova Road", "Andheri"),
        ("India", "95, Hill Road", None, None),
        ("India", "90 Cuffe Parade", "Taj President Hotel", "Cuffe Parade"),
        ("India", "4, Seven PM", "Sir Pochkhanwala Rd", "Worli"),
        ("India", "1453 Sahar Road", None, None),
    ],
)
FILTERED = _table(
    ["value", "type"],
    [("1", "unique"), ("2", "unique"), ("3", "duplicate"), ("3", "duplicate"), ("4", "unique")],
)
# analyzers/NullHandlingTests: dataWithNullColumns
NULL_COLUMNS = _table(
    ["stringCol", "numericCol", "numericCol3"],
    [(None, None, float(i)) for i in range(1, 9)],
    [S, pa.float64(), pa.float64()],
)

DEEQU_METRIC = """\
steps:
- dataFrameName: missing
  sql: SELECT * FROM df_missing
  dq:
    level: error
    checks:
    # AnalyzerTests "Completeness analyzer should compute correct metrics": 0.5 and 0.75;
    # ConstraintsTest "Completeness constraint should assert on wrong completeness"
    - isComplete: {column: att1}
    - isComplete: {column: att2}
    # AnalyzerTests "Uniqueness analyzer should compute correct metrics": 0.0 and 0.0
    - hasUniqueness: {columns: [att1], fraction: "0.0"}
    - hasUniqueness: {columns: [att2], fraction: "0.0"}
- dataFrameName: full
  sql: SELECT * FROM df_full
  dq:
    level: error
    checks:
    # AnalyzerTests "Uniqueness analyzer should compute correct metrics": 0.25 and 0.25
    - hasUniqueness: {columns: [att1], fraction: "0.25"}
    - isUnique: {column: att2}
- dataFrameName: complete
  sql: SELECT * FROM df_complete
  dq:
    checks:
    # CheckTest "return the correct check status for completeness"
    - isComplete: {column: att1, level: error}
    - hasUniqueness: {columns: [att1, item]}
    - isComplete: {column: att2, level: error}
    - isComplete: {column: att2, level: warn}
    # CheckTest "return the correct check status for size" (6 rows)
    - hasSize: {size: 6, operator: "==", level: error}
    - hasSize: {size: 6, operator: "==", level: warn}
    - hasSize: {size: 6, operator: "!=", level: error}
    - hasSize: {size: 6, operator: "!=", level: warn}
- dataFrameName: uniq
  sql: SELECT * FROM df_unique
  dq:
    level: error
    checks:
    # CheckTest "return the correct check status for uniqueness"
    - isUnique: {column: unique}
    - isUnique: {column: uniqueWithNulls}
    - isUnique: {column: nonUnique}
    - isUnique: {column: nonUniqueWithNulls}
    # CheckTest "return the correct check status for hasUniqueness"
    - hasUniqueness: {columns: [nonUnique], fraction: ".5", operator: "=="}
    - hasUniqueness: {columns: [nonUnique], fraction: ".6", operator: "<"}
    - hasUniqueness: {columns: [halfUniqueCombinedWithNonUnique, nonUnique], fraction: ".5"}
    - hasUniqueness: {columns: [onlyUniqueWithOtherNonUnique, nonUnique]}
    - hasUniqueness: {columns: [unique]}
    - hasUniqueness: {columns: [uniqueWithNulls]}
    # AnalyzerTests "Uniqueness analyzer should compute correct metrics on multiple columns"
    - hasUniqueness: {columns: [unique, nonUnique]}
    - hasUniqueness: {columns: [unique, nonUniqueWithNulls]}
- dataFrameName: distinct
  sql: SELECT * FROM df_distinct
  dq:
    level: error
    checks:
    # CheckTest "correctly evaluate range constraints" (value-list variant)
    - isContainedIn: {column: att1, allowedValues: [a, b, c]}
    - isContainedIn: {column: att1, allowedValues: [a, b]}
- dataFrameName: addresses
  sql: SELECT * FROM addresses
  dq:
    level: error
    checks:
    # analyzers/UniquenessTest "Uniqueness should be correct for multiple fields"
    - hasUniqueness: {columns: [Address Line 1]}
    - hasUniqueness: {columns: [Address Line 1, Address Line 2, Address Line 3]}
- dataFrameName: filtered
  sql: SELECT * FROM filtered_input
  dq:
    level: error
    checks:
    # analyzers/UniquenessTest "Filtered Uniqueness": 0.6 (3 of 5), equal as doubles
    - hasUniqueness: {columns: [value], fraction: "0.6"}
    - isUnique: {column: value}
- dataFrameName: nulls
  sql: SELECT * FROM null_columns
  dq:
    level: error
    checks:
    # NullHandlingTests "Null columns should produce correct metrics": Size 8,
    # Completeness of an all-null column 0.0 (a value, not an empty state)
    - hasSize: {size: 8, operator: "=="}
    - isComplete: {column: stringCol}
    # a frequency state of no rows: Uniqueness has no value, the constraint fails
    - isUnique: {column: stringCol}
    - hasUniqueness: {columns: [stringCol, numericCol], fraction: "0", operator: ">="}
    - isContainedIn: {column: stringCol, allowedValues: [x]}
- dataFrameName: empty
  sql: SELECT * FROM df_empty
  dq:
    level: error
    checks:
    # getDfEmpty: Size is 0; Completeness and Compliance sum no row (null): empty state;
    # Uniqueness of no frequencies: empty state. Every one of those constraints fails.
    - hasSize: {size: 0, operator: "=="}
    - isComplete: {column: column1}
    - isUnique: {column: column1}
    - hasUniqueness: {columns: [column1], fraction: "0", operator: ">="}
    - isContainedIn: {column: column1, allowedValues: [x]}
"""

DEEQU_EXPECTED = {
    "missing": [("fail", 0.5), ("fail", 0.75), ("pass", 0.0), ("pass", 0.0)],
    "full": [("pass", 0.25), ("fail", 0.25)],
    "complete": [
        ("pass", 1.0), ("pass", 1.0), ("fail", 4 / 6), ("warn", 4 / 6),
        ("pass", 6), ("pass", 6), ("fail", 6), ("warn", 6),
    ],
    "uniq": [
        ("pass", 1.0), ("pass", 1.0), ("fail", 3 / 6), ("fail", 0.0),
        ("pass", 0.5), ("pass", 0.5), ("pass", 0.5), ("pass", 1.0), ("pass", 1.0),
        ("pass", 1.0), ("pass", 1.0), ("pass", 1.0),
    ],
    "distinct": [("pass", 1.0), ("fail", 5 / 6)],
    "addresses": [("pass", 1.0), ("pass", 1.0)],
    "filtered": [("pass", 0.6), ("fail", 0.6)],
    "nulls": [("pass", 8), ("fail", 0.0), ("fail", None), ("fail", None), ("pass", 1.0)],
    "empty": [("pass", 0), ("fail", None), ("fail", None), ("fail", None), ("fail", None)],
}  # fmt: skip


@pytest.mark.spark
def test_deequ_fixtures(server, tmp_path):
    inputs = {
        "df_missing": DF_MISSING,
        "df_full": DF_FULL,
        "df_complete": DF_COMPLETE_AND_INCOMPLETE,
        "df_unique": DF_UNIQUE,
        "df_distinct": DF_DISTINCT,
        "addresses": ADDRESSES,
        "filtered_input": FILTERED,
        "null_columns": NULL_COLUMNS,
        "df_empty": DF_EMPTY,
    }
    code, results = run_metric(server, tmp_path, inputs, DEEQU_METRIC)
    by_table: dict[str, list] = {}
    for r in results:
        by_table.setdefault(r["table"], []).append(r)
    assert {t: _verdicts(rs) for t, rs in by_table.items()} == DEEQU_EXPECTED
    assert code == 1  # error-level checks failed
    # failed_count stays the failing rows (what the samples and failed-row files show)
    missing, complete = by_table["missing"], by_table["complete"]
    assert [r["failed_count"] for r in missing[:2]] == [6, 3]
    assert complete[2]["failed_count"] == 2 and complete[2]["row_count"] == 6
    assert by_table["uniq"][2]["failed_count"] == 3  # three rows share nonUnique = 0
    assert by_table["distinct"][1]["failed_count"] == 1  # "c"; the null passes
    assert [r["failed_count"] for r in by_table["empty"][1:4:2]] == [0, 0]
    assert "no row" in by_table["empty"][1]["message"]


# --- Metorikku's own dq tests --------------------------------------------------------------

EMPLOYEE_COLUMNS = ["employee_data", "id", "salary", "fake", "fake2"]
INT = pa.int32()
EMPLOYEE_TYPES = [S, INT, INT, INT, INT]


def _employees(rows):
    return _table(EMPLOYEE_COLUMNS, rows, EMPLOYEE_TYPES)


METORIKKU_INPUTS = {
    # IsCompleteTest: "salary" with a null / complete
    "salary_null": _employees([("James", 1, None, 111, 1111), ("Maria", 2, 22, 222, 2222)]),
    "salary_full": _employees([("James", 1, 11, 111, 1111), ("Maria", 2, 22, 222, 2222)]),
    # IsUniqueTest: "id" repeated / unique
    "id_repeated": _employees([("James", 1, 11, 111, 1111), ("Maria", 1, 22, 222, 2222)]),
    "id_unique": _employees([("James", 1, 11, 111, 1111), ("Maria", 2, 22, 222, 2222)]),
    # HasSizeTest: 3 rows / 2 rows
    "three_rows": _employees(
        [("James", 1, None, 111, 1111), ("Maria", 2, 22, 222, 2222), ("Josh", 3, 33, 333, 3333)]
    ),
    "two_rows": _employees([("James", 1, 11, 111, 1111), ("Maria", 2, 22, 222, 2222)]),
    # HasUniquenessTest / FailedDFHandlerTest: (id, name) repeated / unique
    "pairs_repeated": _table(
        ["employee_data", "id", "name", "fake", "fake2"],
        [("Maria", 1, "Smith", 111, 1111), ("Josh", 1, "Smith", 222, 2222)],
        [S, INT, S, INT, INT],
    ),
    "pairs_unique": _table(
        ["employee_data", "id", "name", "fake", "fake2"],
        [("James", 1, "Smith", 111, 1111), ("Maria", 2, "Pitt", 222, 2222)],
        [S, INT, S, INT, INT],
    ),
    # IsContainedInTest: a category outside the list / all inside
    "stores_bad": _table(
        ["name", "id", "category", "fake", "fake2"],
        [
            ("petstop", 1, "pets", 111, 1111),
            ("castro", 2, "clothes", 222, 2222),
            ("ampm", 3, "groceries", 333, 3333),
        ],
        [S, INT, S, INT, INT],
    ),  # fmt: skip
    "stores_good": _table(
        ["name", "id", "category", "fake", "fake2"],
        [
            ("petstop", 1, "pets", 111, 1111),
            ("castro", 2, "clothes", 222, 2222),
            ("nike", 3, "sports", 333, 3333),
        ],
        [S, INT, S, INT, INT],
    ),  # fmt: skip
}

METORIKKU_CASES = [
    # (test, input, check, level, severity, metric_value)
    ("IsCompleteTest: non-complete, error", "salary_null", "isComplete: {column: salary}",
     "error", "fail", 0.5),
    ("IsCompleteTest: complete, error", "salary_full", "isComplete: {column: salary}",
     "error", "pass", 1.0),
    ("IsCompleteTest: non-complete, warn", "salary_null", "isComplete: {column: salary}",
     "warn", "warn", 0.5),
    ("IsUniqueTest: non-unique, error", "id_repeated", "isUnique: {column: id}",
     "error", "fail", 0.0),
    ("IsUniqueTest: unique, error", "id_unique", "isUnique: {column: id}", "error", "pass", 1.0),
    ("IsUniqueTest: non-unique, warn", "id_repeated", "isUnique: {column: id}",
     "warn", "warn", 0.0),
    ("HasSizeTest: 2 == on 3 rows, error", "three_rows", "hasSize: {size: '2', operator: '=='}",
     "error", "fail", 3),
    ("HasSizeTest: 2 == on 2 rows, error", "two_rows", "hasSize: {size: '2', operator: '=='}",
     "error", "pass", 2),
    ("HasSizeTest: 2 == on 3 rows, warn", "three_rows", "hasSize: {size: '2', operator: '=='}",
     "warn", "warn", 3),
    ("HasUniquenessTest: non-unique, error", "pairs_repeated",
     "hasUniqueness: {columns: [id, name], fraction: '1.0', operator: '=='}", "error", "fail", 0.0),
    ("HasUniquenessTest: unique, error", "pairs_unique",
     "hasUniqueness: {columns: [id, name], fraction: '1.0', operator: '=='}", "error", "pass", 1.0),
    ("HasUniquenessTest: non-unique, warn", "pairs_repeated",
     "hasUniqueness: {columns: [id, name], fraction: '1.0', operator: '=='}", "warn", "warn", 0.0),
    ("FailedDFHandlerTest: successful check", "pairs_repeated",
     "hasUniqueness: {columns: [id, name], fraction: '0.0', operator: '=='}", "error", "pass", 0.0),
    ("IsContainedInTest: unsupported, error", "stores_bad",
     "isContainedIn: {column: category, allowedValues: [sports, pets, clothes]}",
     "error", "fail", 2 / 3),
    ("IsContainedInTest: supported, error", "stores_good",
     "isContainedIn: {column: category, allowedValues: [sports, pets, clothes]}",
     "error", "pass", 1.0),
    ("IsContainedInTest: unsupported, warn", "stores_bad",
     "isContainedIn: {column: category, allowedValues: [sports, pets, clothes]}",
     "warn", "warn", 2 / 3),
]  # fmt: skip


def _metorikku_metric(cases) -> str:
    lines = ["steps:"]
    for i, (_, source, check, level, _, _) in enumerate(cases):
        lines += [
            f"- dataFrameName: case{i}",
            f"  sql: SELECT * FROM {source}",
            "  dq:",
            f"    level: {level}",
            "    checks:",
            f"    - {check}",
        ]
    return "\n".join(lines) + "\n"


@pytest.mark.spark
def test_metorikku_dq_tests(server, tmp_path):
    prefix = tmp_path / "failed"
    code, results = run_metric(
        server,
        tmp_path,
        METORIKKU_INPUTS,
        _metorikku_metric(METORIKKU_CASES),
        env={FAILED_DF_ENV: str(prefix)},
    )
    by_case = {r["table"]: r for r in results}
    got = [
        (c[0], by_case[f"case{i}"]["severity"], by_case[f"case{i}"]["metric_value"])
        for i, c in enumerate(METORIKKU_CASES)
    ]
    assert got == [(c[0], c[4], c[5]) for c in METORIKKU_CASES]
    assert code == 1  # "Verifications failed over dataframe" for the error-level failures
    # FailedDFHandlerTest: the failure handler runs for a failed check at error or warn
    # level (assay writes the failing rows of each failed check), never for a passing one.
    written = sorted(p.name for p in prefix.iterdir())
    assert written == sorted(f"case{i}" for i, c in enumerate(METORIKKU_CASES) if c[4] != "pass")
    assert pq.read_table(prefix / "case11" / "0_hasUniqueness").num_rows == 2
    assert pq.read_table(prefix / "case15" / "0_isContainedIn").column("name").to_pylist() == [
        "ampm"
    ]


@pytest.mark.spark
def test_warn_level_failures_do_not_fail_the_run(server, tmp_path):
    """IsCompleteTest/IsUniqueTest/...: "with level warn should not raise exception"."""
    warn_only = [c for c in METORIKKU_CASES if c[3] == "warn"]
    code, results = run_metric(server, tmp_path, METORIKKU_INPUTS, _metorikku_metric(warn_only))
    assert code == 0
    assert [r["severity"] for r in results] == ["warn"] * len(warn_only)


@pytest.mark.spark
def test_a_failed_warn_level_check_is_not_passed(server, tmp_path):
    """deequ: a failed constraint in a Warning-level check is ConstraintStatus.Failure,
    CheckStatus.Warning: passed false, severity warn."""
    warn_only = [c for c in METORIKKU_CASES if c[3] == "warn"][:1]
    _, (result,) = run_metric(server, tmp_path, METORIKKU_INPUTS, _metorikku_metric(warn_only))
    assert (result["passed"], result["severity"]) == (False, "warn")
    assert (result["blocking"], result["waiver"]) == (False, "level warn")


# --- how Metorikku reads the parameters ----------------------------------------------------


def _one_check(check: str, level: str = "") -> str:
    return (
        "steps:\n- dataFrameName: a\n  sql: SELECT 1 AS x\n  dq:\n"
        + (f"    level: {level}\n" if level else "")
        + f"    checks:\n    - {check}\n"
    )


@pytest.mark.parametrize(
    ("check", "level", "fragment"),
    [
        # Operator.getLevel: "error", "warn" | "warning", exactly
        ("isComplete: {column: x}", "ERROR", "got 'ERROR'"),
        ("isComplete: {column: x, level: Warn}", "", "write 'warn'"),
        ("isComplete: {column: x, level: ' warn'}", "", "got ' warn'"),
        # Evaluator.dqAssertion: the six operators, exactly
        ("hasSize: {size: 1, operator: ' =='}", "", "write '=='"),
        ("hasSize: {size: 1, operator: '='}", "", "Metorikku's operators are"),
        ("hasSize: {size: 1}", "", "missing required key 'operator'"),
        # size.toLong (java.lang.Long.parseLong)
        ("hasSize: {size: ' 2', operator: '=='}", "", "got ' 2'"),
        ("hasSize: {size: 2.0, operator: '=='}", "", "got '2.0'"),
        ("hasSize: {size: '1_000', operator: '=='}", "", "got '1_000'"),
        ("hasSize: {size: '9223372036854775808', operator: '=='}", "", "expected an integer"),
        ("hasSize: {operator: '=='}", "", "missing required key 'size'"),
        # fraction.toDouble (java.lang.Double.parseDouble)
        ("hasUniqueness: {columns: [x], fraction: 'inf'}", "", "got 'inf'"),
        ("hasUniqueness: {columns: [x], fraction: '1_0'}", "", "got '1_0'"),
        ("hasUniqueness: {columns: [], fraction: '1'}", "", "at least one column"),
        ("hasUniqueness: {columns: x}", "", "expected a list of column names"),
        ("isContainedIn: {column: x, allowedValues: [a, null]}", "", "null is not an allowed"),
        ("isContainedIn: {column: x, allowedValues: ['a\\\\b']}", "", "backslash"),
        ("isContainedIn: {column: x}", "", "missing required key 'allowedValues'"),
        ("isComplete: {}", "", "missing required key 'column'"),
    ],
)
def test_parameters_metorikku_refuses(tmp_path, check, level, fragment):
    assert fragment in errors(write(tmp_path, _one_check(check, level)))


@pytest.mark.parametrize(
    ("check", "threshold", "value"),
    [
        ("hasSize: {size: -1, operator: '>='}", ">= -1", -1),
        ("hasSize: {size: '+7', operator: '<'}", "< +7", 7),
        ("hasSize: {size: '007', operator: '=='}", "== 007", 7),
        ("hasUniqueness: {columns: [x], fraction: ' 0.5d '}", "==  0.5d ", 0.5),
        ("hasUniqueness: {columns: [x], fraction: '1e-1', operator: '>'}", "> 1e-1", 0.1),
        ("hasUniqueness: {columns: [x], fraction: '0x1p-1', operator: '<='}", "<= 0x1p-1", 0.5),
        ("hasUniqueness: {columns: [x], fraction: 2, operator: '<'}", "< 2", 2),
    ],
)
def test_parameters_metorikku_accepts(tmp_path, check, threshold, value):
    (table,) = load(write(tmp_path, _one_check(check))).tables
    (rule,) = table.rules
    assert rule.threshold == threshold
    assert float(rule.check.must.value) == value  # type: ignore[union-attr]


def test_level_default_and_override(tmp_path):
    """The check's level, else the step's, else warn; a bad step level matters only
    when a check uses it (Metorikku parses it in getCheck)."""
    body = """\
        steps:
        - dataFrameName: a
          sql: SELECT 1 AS x
          dq:
            checks:
            - isComplete: {column: x}
            - isComplete: {column: x, level: error}
        - dataFrameName: b
          sql: SELECT * FROM a
          dq:
            level: error
            checks:
            - isComplete: {column: x}
            - isComplete: {column: x, level: warning}
            - isComplete: {column: x, level: null}
        - dataFrameName: c
          sql: SELECT * FROM a
          dq:
            level: FATAL
            checks:
            - isComplete: {column: x, level: warn}
        """
    a, b, c = load(write(tmp_path, body)).tables
    assert [r.level for r in a.rules + b.rules + c.rules] == [
        "warn", "error", "error", "warn", "error", "warn"
    ]  # fmt: skip


def test_yaml_scalars_are_read_as_their_text(tmp_path):
    """Jackson gives a String parameter the scalar's text: ``yes`` is "yes", ``1.50`` is
    "1.50"; deequ 2.0.1 doubles quotes, which Spark 3.2 reads as adjacent literals."""
    body = _one_check('isContainedIn: {column: x, allowedValues: [yes, 1.50, "it\'s", 1]}')
    (table,) = load(write(tmp_path, body)).tables
    (rule,) = table.rules
    values = rule.check.failing.items[0].item.items[1].values  # type: ignore[union-attr]
    assert values == ("yes", "1.50", "its", "1")


@pytest.mark.spark
def test_is_contained_in_compares_as_strings(server, tmp_path):
    """Spark 3.2 (non-ANSI) coerces ``num IN ('1', ...)`` to a string comparison: 1.0 is
    "1.0", not "1"; a date is its ISO text. An empty list is deequ's ``IN ('')``."""
    import datetime as dt

    data = pa.table(
        {
            "i": pa.array([1, 2, None], type=pa.int64()),
            "d": pa.array([1.0, 2.5, 1.0]),
            "day": pa.array([dt.date(2024, 1, 1), dt.date(2024, 1, 2), None]),
            "s": pa.array(["", "a", None]),
        }
    )
    body = """\
        steps:
        - dataFrameName: t
          sql: SELECT * FROM t_input
          dq:
            checks:
            - isContainedIn: {column: i, allowedValues: [1, 2]}
            - isContainedIn: {column: d, allowedValues: [1, 2.5]}
            - isContainedIn: {column: d, allowedValues: ["1.0", "2.5"]}
            - isContainedIn: {column: day, allowedValues: [2024-01-01, "2024-01-02"]}
            - isContainedIn: {column: s, allowedValues: []}
        """
    code, results = run_metric(server, tmp_path, {"t_input": data}, body)
    assert _verdicts(results) == [
        ("pass", 1.0),
        ("warn", 1 / 3),
        ("pass", 1.0),
        ("pass", 1.0),
        ("warn", 2 / 3),
    ]
    assert code == 0


@pytest.mark.spark
def test_boolean_columns_are_refused_for_is_contained_in(server, tmp_path):
    """Spark 3.2 cannot compare a boolean with strings in IN (deequ's constraint fails,
    with every other check of the step): refused before any scan."""
    path = tmp_path / "bools.parquet"
    pq.write_table(pa.table({"b": [True, False]}), path)
    body = _one_check("isContainedIn: {column: b, allowedValues: ['true']}")
    metric = write(tmp_path, body.replace("SELECT 1 AS x", "SELECT * FROM bools"))
    proc = assay("run", str(metric), "--remote", server.url, "--input", f"bools={path}")
    assert proc.returncode == 2, proc.stderr
    assert "a number, string, date or timestamp" in proc.stderr
