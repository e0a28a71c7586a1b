"""Metrics judged per group (``group_by``): a group-by branch of the table's one aggregate
plan gives, for every group, the verdict the same rule gives on that group's rows alone
(the table filtered to the group, the plain way), on data built to break it: null group
keys, a group whose values are all null, NaN, a filter keeping no row of some groups, an
empty table; its samples are the failing groups with their values; and the plan count
the Spark UI sees is 1 when every group passes, 2 when one fails."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.helpers import run_config, validate_event, write_config

pytestmark = pytest.mark.spark

ROWS = [
    (1, "FR", 10.0, "a@x.fr", 1),
    (2, "FR", 20.0, None, 1),
    (3, "FR", None, "c@x.fr", 2),
    (4, "DE", 5.0, "d@x.de", 1),
    (5, "DE", float("nan"), "e@x.de", 2),
    (6, None, 1.0, None, 1),  # a null country is a group of its own
    (7, None, 2.0, None, 2),
    (8, "IT", None, "h@x.it", 1),  # every amount of IT is null
    (9, "ES", 3.0, "i@x.es", 3),
]
COLUMNS = "id long, country string, amount double, email string, day int"

RULES = [
    "{type: row_count, group_by: [country], must_be: '>= 2'}",
    "{type: missing_percent, column: email, group_by: country, must_be: '< 40%'}",
    "{type: avg, column: amount, group_by: [country], must_be: '> 2', warn: '> 9'}",
    "{type: max, column: amount, group_by: [country, day], must_be: '< 15'}",
    "{type: missing_count, column: email, group_by: [country], must_be: '= 0', filter: 'day = 1'}",
    "{type: sum, column: amount, group_by: [day], must_be: 'between 1 and 30'}",
    "{type: median, column: amount, group_by: [country], must_be: '<= 10'}",
]


def _config(path: str, rules: list[str], where: str | None = None) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    line = f'    filter: "{where}"\n' if where else ""
    return (
        f'tables:\n  - name: t\n    source: {{path: "{path}"}}\n{line}    keys: [id]\n'
        f"    sample_size: 10\n    rules:\n{body}\n"
    )


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("groups") / "t.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


def _by(rule: str) -> list[str]:
    by = yaml.safe_load(rule)["group_by"]
    return [by] if isinstance(by, str) else by


def _groups(rule: str) -> list[str]:
    """Each group of the rule's group_by columns, as a filter keeping its rows."""
    at = {"country": 1, "day": 4}
    by = _by(rule)
    kept = [r for r in ROWS if r[4] == 1] if "filter: 'day = 1'" in rule else ROWS  # its filter
    values = sorted({tuple(r[at[c]] for c in by) for r in kept}, key=repr)
    literal = lambda v: "NULL" if v is None else f"'{v}'" if isinstance(v, str) else str(v)  # noqa: E731
    return [
        " AND ".join(f"`{c}` <=> {literal(v)}" for c, v in zip(by, g, strict=True)) for g in values
    ]


def _alone(rule: str) -> str:
    """The rule without its group_by (a JSON object is a YAML flow mapping)."""
    plain = yaml.safe_load(rule)
    del plain["group_by"]
    return json.dumps(plain)


def _plain_runs(spark, data: str, tmp_path) -> dict[tuple[int, str], dict]:
    """Every rule without its group_by on each of its groups' rows alone: one config with
    a table per (rule, group), the table filtered to the group (one run, many tables)."""
    tables, keys = [], []
    for index, rule in enumerate(RULES):
        for group in _groups(rule):
            keys.append((index, group))
            tables.append(
                f'  - name: g{len(keys)}\n    source: {{path: "{data}"}}\n'
                f'    filter: "{group}"\n    keys: [id]\n    rules:\n      - {_alone(rule)}\n'
            )
    out = run_config(spark, write_config(tmp_path, "tables:\n" + "".join(tables), "plain.yaml"))
    return {key: out.result(f"g{n}", 0) for n, key in enumerate(keys, 1)}


def test_every_group_is_judged_as_its_rows_alone(server, data, tmp_path):
    before = server.sql_executions()
    fused = run_config(server.spark, write_config(tmp_path, _config(data, RULES)))
    plans = server.sql_executions() - before
    assert plans == fused.tables()["t"]["spark_plans"] == 2  # aggregate + the groups' samples
    plain = _plain_runs(server.spark, data, tmp_path)
    for index, rule in enumerate(RULES):
        got = fused.result("t", index)
        validate_event(got)
        alone = [plain[(index, group)] for group in _groups(rule)]
        failing = [a["metric_value"] for a in alone if a["severity"] == "fail"]
        warning = [a["metric_value"] for a in alone if a["severity"] == "warn"]
        assert got["details"]["groups"] == len(alone), rule
        assert got["details"]["failed_groups"] == len(failing), (rule, got["message"])
        if "warn:" in rule:
            assert got["details"]["warned_groups"] == len(warning), rule
        assert got["severity"] == ("fail" if failing else "warn" if warning else "pass"), rule
        shown = [None if s["value"] == "NaN" else s["value"] for s in got["samples"] or []]
        want = [None if v != v else v for v in failing + warning]  # NaN: "NaN" in JSON
        assert sorted(shown, key=repr) == sorted(want, key=repr), rule


def test_every_group_passing_is_one_plan(server, data, tmp_path):
    rules = ["{type: row_count, group_by: [country], must_be: '>= 1'}"]
    before = server.sql_executions()
    out = run_config(server.spark, write_config(tmp_path, _config(data, rules)))
    assert server.sql_executions() - before == 1
    result = out.result("t", 0)
    assert (result["severity"], result["failed_count"], result["samples"]) == ("pass", 0, None)
    assert result["details"] == {"group_by": ["country"], "groups": 5, "failed_groups": 0}


def test_an_empty_table_has_no_group_to_fail(spark, data, tmp_path):
    rules = ["{type: row_count, group_by: [country], must_be: '> 100'}"]
    out = run_config(spark, write_config(tmp_path, _config(data, rules, "id < 0")))
    result = out.result("t", 0)
    assert (result["severity"], result["details"]["groups"]) == ("pass", 0)


def test_samples_name_the_failing_groups(spark, data, tmp_path):
    rules = ["{type: row_count, group_by: [country], must_be: '>= 2'}"]
    out = run_config(spark, write_config(tmp_path, _config(data, rules)))
    result = out.result("t", 0)
    assert result["message"] == "2 of 5 groups (country) fail: row_count must be >= 2"
    assert result["samples"] == [{"country": "ES", "value": 1}, {"country": "IT", "value": 1}]
