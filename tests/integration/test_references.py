"""Rules over a second source (``references``): ``foreign_key`` and ``row_count_match``.

Fused into the table's one aggregate plan with other rules, each gives exactly what it
gives alone, on data built to break it: nulls in the table's keys, duplicates and nulls
among the referenced keys, a filter, several columns, an empty referenced side, keys that
must not be found (``negate``: a semi join); one Spark plan when everything passes, two
when a foreign key fails (its samples: an anti or semi join in the detail plan), counted
by the Spark UI. A referenced column that does not exist is a
config error at the rule's ``references`` line before any scan; a referenced source that
cannot be read is that rule's error, the rest of the table still runs."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.helpers import assay_cli, run_config, validate_event, write_config

pytestmark = pytest.mark.spark

ORDERS = [
    (1, 10, "eu", 1),
    (2, 11, "eu", 1),
    (3, None, "us", 2),  # a null key passes
    (4, 99, "us", 2),  # no such customer
    (5, 98, "eu", None),  # no such customer; a null in the second key column
    (6, 12, None, 3),
    (7, 99, "eu", 3),  # no such customer
    (8, 10, "us", 1),
]
CUSTOMERS = [
    (10, 1),
    (10, 1),  # a duplicate key: still one match per order
    (11, 1),
    (12, 3),
    (None, 2),  # a null key matches nothing
    (13, None),
]


@pytest.fixture(scope="module")
def paths(spark, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("refs")
    found = {}
    for name, rows, ddl in (
        ("orders", ORDERS, "id long, customer_id int, region string, tier int"),
        ("customers", CUSTOMERS, "id long, tier int"),
        ("empty", [], "id long, tier int"),
    ):
        path = str(base / f"{name}.parquet")
        spark.createDataFrame(rows, ddl).coalesce(1).write.parquet(path)
        found[name] = path
    return found


def refs(paths: dict[str, str], name: str = "customers") -> str:
    return f'path: "{paths[name]}"'


def rules_of(paths: dict[str, str]) -> list[str]:
    c, e = refs(paths), refs(paths, "empty")
    return [
        f"{{type: foreign_key, column: customer_id, references: {{{c}, columns: [id]}}}}",
        f"{{type: foreign_key, column: customer_id, tolerance: 3, references: {{{c}, column: id}}}}",
        f"{{type: foreign_key, column: customer_id, filter: \"region = 'us'\", references: {{{c}, columns: [id]}}}}",
        f"{{type: foreign_key, columns: [customer_id, tier], references: {{{c}, columns: [id, tier]}}}}",
        f"{{type: foreign_key, column: customer_id, references: {{{e}, columns: [id]}}}}",
        f'{{type: foreign_key, column: customer_id, references: {{sql: "SELECT CAST(id AS decimal(20,2)) AS k FROM parquet.`{paths["customers"]}`", columns: [k]}}}}',
        f"{{type: row_count_match, references: {{{c}}}, must_be: 'between 130% and 140%'}}",
        f'{{type: row_count_match, filter: "region = \'eu\'", references: {{{c}}}, must_be: "> 66%"}}',
        f"{{type: row_count_match, references: {{{e}}}, must_be: '>= 0'}}",
        "{type: not_null, column: customer_id}",
        f"{{type: foreign_key, column: customer_id, negate: true, references: {{{c}, columns: [id]}}}}",
        f"{{type: foreign_key, column: customer_id, negate: true, tolerance: 1, filter: \"region = 'us'\", references: {{{c}, columns: [id]}}}}",
        f"{{type: foreign_key, columns: [customer_id, tier], negate: true, references: {{{c}, columns: [id, tier]}}}}",
        f"{{type: foreign_key, column: customer_id, negate: true, references: {{{e}, columns: [id]}}}}",
    ]


EXPECTED = [
    ("fail", 3, None),  # 99, 98, 99
    ("pass", 3, None),
    ("fail", 1, None),  # us: 3 (null), 4 (99), 8 (10)
    ("fail", 2, None),  # (99, 2), (99, 3): no match; (98, null) passes; (10, 1)... match
    ("fail", 7, None),  # nothing matches an empty reference; the null key passes
    ("fail", 3, None),  # an int key against decimals: compared as numbers
    ("pass", None, 8 * 100 / 6),
    ("pass", None, 4 * 100 / 6),
    ("fail", None, None),  # an empty referenced side: no value
    ("fail", 1, None),
    ("fail", 4, None),  # negated: 10, 11, 12, 10 are customers (duplicates count once)
    ("pass", 1, None),  # us: 8 (10) is a customer, within the tolerance of 1
    ("fail", 4, None),  # (10, 1), (11, 1), (12, 3), (10, 1); null keys pass
    ("pass", 0, None),  # nothing is found in an empty reference
]


def config(paths: dict[str, str], rules: list[str], sample_size: int = 10) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    return (
        f'tables:\n  - name: orders\n    source: {{path: "{paths["orders"]}"}}\n'
        f"    keys: [id]\n    sample_size: {sample_size}\n    rules:\n{body}\n"
    )


@pytest.fixture(scope="module")
def fused(server, paths, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("reffused"), config(paths, rules_of(paths)))
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    return out, server.sql_executions() - before


def test_the_fused_plan_counts_as_sql_does(fused):
    out, executed = fused
    got = [(r["severity"], r["failed_count"], r["metric_value"]) for r in out.results]
    for (severity, failed, value), (s, f, v) in zip(EXPECTED, got, strict=True):
        assert (s, f) == (severity, failed), got
        assert v == pytest.approx(value) if value is not None else v is None
    assert "has no value (the referenced source has no rows)" in out.results[8]["message"]
    assert executed == 2  # the aggregate plan, then the detail plan for the failed rules
    assert out.tables()["orders"]["spark_plans"] == 2
    for r in out.results:
        validate_event(r)


def test_samples_are_the_unmatched_rows_with_the_keys(fused):
    out, _ = fused
    samples = {i: out.results[i]["samples"] for i in (0, 2, 3, 4)}
    assert [s["id"] for s in samples[0]] == [4, 5, 7]
    assert samples[0][0] == {"id": 4, "customer_id": 99}
    assert [s["id"] for s in samples[2]] == [4]
    assert [s["id"] for s in samples[3]] == [4, 7]
    assert [s["id"] for s in samples[4]] == [1, 2, 4, 5, 6, 7, 8]


def test_negated_samples_are_the_matched_rows(fused):
    out, _ = fused
    assert [s["id"] for s in out.results[10]["samples"]] == [1, 2, 6, 8]
    assert out.results[10]["samples"][0] == {"id": 1, "customer_id": 10}
    assert [s["id"] for s in out.results[12]["samples"]] == [1, 2, 6, 8]
    assert "4 of 8 rows have a match" in out.results[10]["message"]
    assert "customer_id not found in" in out.results[10]["expect"]["text"]


def test_every_result_equals_the_rule_run_alone(spark, paths, fused, tmp_path):
    together = fused[0]
    for index, rule in enumerate(rules_of(paths)):
        alone = run_config(spark, write_config(tmp_path, config(paths, [rule]), f"r{index}.yaml"))
        mine, theirs = alone.result("orders", 0), together.result("orders", index)
        for key in ("severity", "failed_count", "samples", "metric_value", "message", "row_count"):
            assert mine[key] == theirs[key], (rule, key)


def test_one_plan_when_every_rule_passes(server, paths, tmp_path):
    c = refs(paths)
    rules = [
        f"{{type: foreign_key, column: customer_id, tolerance: 3, references: {{{c}, columns: [id]}}}}",
        f'{{type: foreign_key, column: customer_id, filter: "id <= 3", references: {{{c}, columns: [id]}}}}',
        f"{{type: row_count_match, references: {{{c}}}, must_be: '> 100%'}}",
        "{type: row_count, must_be: '= 8'}",
    ]
    before = server.sql_executions()
    out = run_config(server.spark, write_config(tmp_path, config(paths, rules)))
    assert server.sql_executions() - before == 1
    assert [r["severity"] for r in out.results] == ["pass"] * 4


def _cli(server, *args: str) -> subprocess.CompletedProcess[str]:
    return assay_cli(*args)


def test_a_missing_referenced_column_is_a_config_error_at_its_line(server, paths, tmp_path):
    c = refs(paths)
    text = config(
        paths,
        [
            "{type: not_null, column: id}",
            f"{{type: foreign_key, column: customer_id,\n         references: {{{c}, columns: [idd]}}}}",
        ],
    )
    cfg = write_config(tmp_path, text)
    proc = _cli(server, "run", str(cfg), "--remote", server.url)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{cfg}:9 tables[0].rules[1].references" in proc.stderr, proc.stderr
    assert "unknown column 'idd' (did you mean 'id'?)" in proc.stderr


def test_an_unreadable_reference_is_the_rules_error_alone(server, paths, tmp_path):
    missing = str(tmp_path / "nowhere.parquet")
    rules = [
        "{type: not_null, column: id}",
        f'{{type: foreign_key, column: customer_id, references: {{path: "{missing}", columns: [id]}}}}',
        f'{{type: row_count_match, references: {{path: "{missing}"}}, must_be: "> 0"}}',
    ]
    before = server.sql_executions()
    out = run_config(server.spark, write_config(tmp_path, config(paths, rules)))
    # the aggregate plan, and Spark's record of the failed listing of the missing path
    # (read once for both rules)
    assert server.sql_executions() - before == 2
    assert out.tables()["orders"]["spark_plans"] == 1
    assert [r["severity"] for r in out.results] == ["pass", "error", "error"]
    assert "cannot read the referenced source" in out.results[1]["message"]


def test_explain_shows_the_reference_branches(paths, tmp_path):
    cfg = write_config(tmp_path, config(paths, rules_of(paths)))
    proc = _cli(None, "explain", str(cfg), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout.splitlines()[0])
    assert plan["spark_plans"] == 1
    text = plan["text"]
    branches = plan["plan"]["aggregate"]["references"]
    assert any(b["lookup"] for b in branches) and any(b["lookup"] is None for b in branches)
    assert "anti join: (customer_id) not null LEFT ANTI JOIN DISTINCT (id)" in text
    assert "reference rows:" in text
    assert "AND key not in the reference" in text


# The key types a foreign key compares: (the table's column, the referenced SQL
# expression, comparable). Numbers with numbers, strings with strings, dates with
# timestamps, booleans with booleans; a string against anything else is refused (Spark's
# ANSI mode casts the string and fails the plan on the first that is not a number or a
# date), as a date against a number or a boolean against a number.
TYPE_PAIRS = [
    ("n", "CAST(1 AS BIGINT)", True),
    ("n", "CAST(1 AS DECIMAL(10,2))", True),
    ("n", "CAST(1 AS DOUBLE)", True),
    ("x", "CAST(1 AS INT)", True),
    ("s", "CAST('a' AS VARCHAR(3))", True),
    ("d", "TIMESTAMP_NTZ '2024-01-01 00:00:00'", True),
    ("d", "TIMESTAMP '2024-01-01 00:00:00'", True),
    ("b", "true", True),
    ("n", "NULL", True),
    ("n", "'ann'", False),
    ("n", "'1'", False),
    ("s", "1", False),
    ("s", "DATE '2024-01-01'", False),
    ("d", "'2024-01-01'", False),
    ("d", "1", False),
    ("b", "1", False),
]
TYPED = (
    "SELECT * FROM VALUES (1, CAST(1.0 AS DECIMAL(5,1)), 'a', DATE '2024-01-01', true)"
    " AS t(n, x, s, d, b)"
)


def _typed_config(column: str, key: str) -> str:
    return (
        f'tables:\n  - name: t\n    source: {{sql: "{TYPED}"}}\n    rules:\n'
        f"      - type: foreign_key\n        column: {column}\n"
        f'        references:\n          sql: "SELECT {key} AS k"\n          columns: [k]\n'
    )


@pytest.mark.parametrize("column, key, comparable", TYPE_PAIRS)
def test_key_types_are_compared_or_refused_before_any_scan(server, tmp_path, column, key,
                                                           comparable):  # fmt: skip
    from assay.errors import ConfigErrors

    cfg = write_config(tmp_path, _typed_config(column, key))
    before = server.sql_executions()
    if comparable:
        out = run_config(server.spark, cfg)
        assert [(r["severity"], r["failed_count"]) for r in out.results] == [
            ("pass", 0) if key != "NULL" else ("fail", 1)
        ], out.results[0]["message"]
        return
    with pytest.raises(ConfigErrors) as raised:
        run_config(server.spark, cfg)
    assert server.sql_executions() == before  # refused before any scan
    (error,) = raised.value.errors
    assert str(error.origin) == f"{cfg}:9 tables[0].rules[0].references.columns", str(error)
    assert f"foreign_key: {column} (" in str(error) and "cannot be compared" in str(error)


def test_a_key_of_numbers_against_names_is_exit_2_at_the_columns_line(server, paths, tmp_path):
    text = config(
        paths,
        [
            "{type: not_null, column: id}",
            "{type: foreign_key, column: customer_id,\n         references: {sql: \"SELECT 'ann' AS name\",\n                      columns: [name]}}",
        ],
    )
    cfg = write_config(tmp_path, text)
    proc = _cli(server, "run", str(cfg), "--remote", server.url)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "CAST_INVALID_INPUT" not in proc.stderr
    assert (
        f"{cfg}:10 tables[0].rules[1].references.columns: foreign_key: customer_id (int)"
        " cannot be compared with the referenced column name (string)"
    ) in proc.stderr, proc.stderr
    assert proc.stdout == ""
