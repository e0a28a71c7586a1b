"""A rule's ``filter``: every filterable rule of the catalogue, its filter inside the
table's one aggregate plan, gives exactly what the same rule gives on a table filtered
the plain way (the table's ``filter``, a WHERE before every rule), on data built to break
it: nulls in the filtered column and in the groups, a filter keeping no row, filtered and
unfiltered rules of one column side by side; and in the plan count the Spark UI sees."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from assay.dialects.catalogue import RULES
from tests.helpers import assay_cli, run_config, validate_event, write_config
from tests.integration.test_catalogue_fused import EVERY

pytestmark = pytest.mark.spark

ROWS = [
    (1, 1.5, 3, Decimal("1.10"), "ann", "ann@x.com", "a", dt.date(2024, 1, 1)),
    (2, 2.5, 0, Decimal("2.20"), "bob", "bob@x.com", "b", dt.date(2024, 1, 2)),
    (3, 4.0, 7, Decimal("0.30"), "cy", "cy@x.org", "a", dt.date(2024, 1, 3)),
    (4, 0.5, 10, Decimal("5.00"), "dee", "dee@x.net", "b", dt.date(2024, 1, 4)),
    (5, 9.0, 5, Decimal("3.33"), "eve", "eve@x.io", "a", dt.date(2024, 1, 5)),
    (6, None, 3, None, "ann", None, None, dt.date(2024, 1, 6)),  # a null status: excluded
    (7, 2.5, None, Decimal("1.10"), "cy", "cy@x.org", "a", None),  # duplicates within 'a'
    (8, -1.0, 3, Decimal("-2.00"), None, "bad", "b", dt.date(2023, 12, 31)),
]
COLUMNS = (
    "id long, amount double, qty int, price decimal(10,2), name string, email string,"
    " status string, day date"
)

FILTERS = {
    "status a": "status = 'a'",  # true, false and null (row 6) rows
    "nothing": "qty > 1000",  # keeps no row
}


def _filterable(example: str) -> bool:
    kind = example.split("type: ", 1)[1].split(",", 1)[0].split("}", 1)[0].strip()
    spec = RULES.get(kind) or next(s for s in RULES.values() if kind in s.aliases)
    return "filter" in spec.keys and "filter:" not in example


FILTERABLE = [e for e in EVERY if _filterable(e)]


def _with_filter(example: str, condition: str) -> str:
    quoted = condition.replace('"', '\\"')
    return example[:-1] + f', filter: "{quoted}"}}'


def _config(path: str, rules: list[str], table_filter: str | None = None) -> str:
    return "tables:\n" + _table("t", path, rules, table_filter)


def _table(name: str, path: str, rules: list[str], table_filter: str | None = None) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    where = f'    filter: "{table_filter}"\n' if table_filter else ""
    return (
        f'  - name: {name}\n    source: {{path: "{path}"}}\n{where}    keys: [id]\n'
        f"    sample_size: 3\n    rules:\n{body}\n"
    )


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("filtered") / "t.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


COMPARED = ("severity", "failed_count", "metric_value", "row_count", "samples", "message")


def _plain(result: dict, condition: str | None = None) -> dict:
    """The compared fields; with ``condition``, the message as if the rule had no filter
    (a filtered rule's expectation ends ``where <condition>``, the table filter's does not)."""
    clock = result["rule"]["type"] == "freshness"  # measured against the clock, a moment apart
    found = {k: result[k] for k in COMPARED if not (clock and k in ("metric_value", "message"))}
    if condition is not None and "message" in found:
        assert f" where {condition}" in result["expect"]["text"]
        assert f" where {condition}" in found["message"]
        scope = f" (over the {result['row_count']} rows where {condition})"
        said = found["message"]
        found["message"] = (
            said.replace(scope, "", 1)
            if scope in said
            else said.replace(f" where {condition}", "", 1)
        )
    return found


def test_a_rule_filter_equals_the_table_filter(server, data, tmp_path):
    # every rule once per filter and once without, side by side in one plan: no two of
    # them may share a measure (one plan, not one per filter: 213 rules cost 20 s of the
    # server's CPU where two plans of 142 cost 26 s, measured warm under load 16)
    filtered = {name: [_with_filter(e, FILTERS[name]) for e in FILTERABLE] for name in FILTERS}
    fused_rules = [r for group in zip(*filtered.values(), FILTERABLE, strict=True) for r in group]
    width = len(FILTERS) + 1
    before = server.sql_executions()
    fused = run_config(server.spark, write_config(tmp_path, _config(data, fused_rules), "f.yaml"))
    plans = server.sql_executions() - before
    # the plain forms: a table per filter and one without, in one run (its tables run at
    # once; each is planned and judged as it would be alone)
    plain_tables = [_table(f"p{n}", data, FILTERABLE, c) for n, c in enumerate(FILTERS.values())]
    config = "tables:\n" + "".join(plain_tables) + _table("w", data, FILTERABLE)
    plain = run_config(server.spark, write_config(tmp_path, config, "plain.yaml"))
    for n, (name, condition) in enumerate(FILTERS.items()):
        for k, example in enumerate(FILTERABLE):
            got, want = fused.result("t", width * k + n), plain.result(f"p{n}", k)
            assert _plain(got, condition) == _plain(want), (name, example)
            validate_event(got)
    for k, example in enumerate(FILTERABLE):
        got = fused.result("t", width * k + width - 1)
        assert _plain(got) == _plain(plain.result("w", k)), example
    failing = any(r["severity"] != "pass" for r in fused.results)
    assert plans == fused.tables()["t"]["spark_plans"] == (2 if failing else 1)


def test_a_filter_keeping_no_row_measures_an_empty_table(spark, data, tmp_path):
    rules = [
        "{type: not_null, column: name, filter: 'qty > 1000'}",
        "{type: row_count, must_be: '= 0', filter: 'qty > 1000'}",
        "{type: missing_percent, column: email, must_be: '= 0', filter: 'qty > 1000'}",
        "{type: avg, column: amount, must_be: '> 0', filter: 'qty > 1000'}",
    ]
    out = run_config(spark, write_config(tmp_path, _config(data, rules)))
    got = [(r["severity"], r["row_count"], r["metric_value"]) for r in out.results]
    assert got == [("pass", 0, None), ("pass", 0, 0), ("pass", 0, 0), ("fail", 0, None)]


def test_a_filter_null_for_a_row_leaves_the_row_out(spark, data, tmp_path):
    # status is null on row 6: `status <> 'b'` is null there, so row 6 is not checked
    rules = ["{type: not_null, column: email, filter: \"status <> 'b'\"}"]
    out = run_config(spark, write_config(tmp_path, _config(data, rules)))
    result = out.result("t", 0)
    assert (result["severity"], result["failed_count"], result["row_count"]) == ("pass", 0, 4)


def test_a_filter_composes_with_the_table_filter(spark, data, tmp_path):
    rules = ["{type: row_count, must_be: '= 2', filter: 'qty >= 5'}"]
    out = run_config(spark, write_config(tmp_path, _config(data, rules, "status = 'a'")))
    assert out.result("t", 0)["metric_value"] == 2  # rows 3 and 5 (row 7's qty is null)


def _own_filter(k: int) -> str:
    """``status = 'a'`` spelled differently for each rule, so no rule's measures are
    another's: each filtered rule must count the rows it keeps by itself."""
    return f"status = 'a' AND {k} = {k}"


def test_every_filtered_rule_alone_reports_the_rows_its_filter_keeps(spark, data, tmp_path):
    rules = [_with_filter(e, _own_filter(k)) for k, e in enumerate(FILTERABLE)]
    out = run_config(spark, write_config(tmp_path, _config(data, rules)))
    kept = sum(1 for r in ROWS if r[6] == "a")
    wrong = [
        (example, result["row_count"], result["message"])
        for k, example in enumerate(FILTERABLE)
        if (result := out.result("t", k))["row_count"] != kept
        or f"where {_own_filter(k)}" not in result["message"]
    ]
    assert not wrong, "\n".join(map(str, wrong))


def test_a_filtered_metric_reports_its_kept_rows_through_the_cli_junit_and_the_api(
    server, data, tmp_path
):
    import json
    import xml.etree.ElementTree as ET

    import assay

    rules = [
        "{type: max, column: amount, filter: \"status = 'a'\", must_be: '< 1000'}",
        "{type: min, column: amount, filter: \"status = 'a'\", must_be: '< 1000'}",
        "{type: median, column: amount, filter: \"status = 'a'\", must_be: '< 1000'}",
    ]
    cfg = write_config(tmp_path, _config(data, rules))
    junit = tmp_path / "junit.xml"
    proc = assay_cli("run", str(cfg), "--remote", server.url, "--junit", str(junit))
    assert proc.returncode == 0, proc.stderr
    results = [e for e in map(json.loads, proc.stdout.splitlines()) if e["event"] == "result"]
    assert [(r["row_count"], r["metric_value"]) for r in results] == [(4, 9.0), (4, 1.5), (4, 3.25)]
    assert all("(over the 4 rows where status = 'a')" in r["message"] for r in results)
    text = ET.parse(junit).getroot()
    said = " ".join(e.text or "" for e in text.iter() if e.text)
    assert "row_count: 4" in said and "row_count: 0" not in said
    api = assay.run(str(cfg), spark=server.spark)
    assert [r.row_count for r in api.results] == [4, 4, 4]
