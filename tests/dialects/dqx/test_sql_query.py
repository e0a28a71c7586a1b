"""DQX's dataset-level ``sql_query`` as assay writes it (a join of the table's row count
with the query's row) answers as the scalar-subquery form it replaced, on data built to
tell them apart: an empty table, a filter keeping no row, a NULL condition, a query
returning no row or several rows, ``negate``. Both texts run through the branch the
product runs a SQL rule in (``emit.single_sql_text``) and are judged by ``judge_sql``;
the old form's Spark error (a scalar subquery returning several rows) is the rule's
error."""

from __future__ import annotations

import json

import pytest

from assay.emit.spark import single_sql_text
from assay.judge.own import judge_sql
from tests.dialects.dqx.test_reading import check, rules

pytestmark = pytest.mark.spark

ROWS = "SELECT * FROM VALUES (1, 2), (2, NULL), (3, 5), (4, 1), (5, 7) AS t(id, n)"
TABLES = {"five": ROWS, "empty": f"{ROWS} WHERE false"}


def _scalar_form(query: str, column: str, negate: bool, row_filter: str | None) -> str:
    """The form assay wrote before (dialects/dqx_dataset.py at 9cd9a22)."""
    view = "_validation_df" if row_filter is None else (
        f"(SELECT * FROM _validation_df WHERE ({row_filter}))"
    )  # fmt: skip
    resolved = query.replace("{{input_view}}", view)
    value = f"{'NOT ' if negate else ''}q.`{column}`"
    rows = f"(SELECT count(*) FROM {view}) > 0"
    return f"SELECT coalesce((SELECT {value} FROM ({resolved}) AS q) AND {rows}, false) = false"


CASES = [
    # (query, negate, the check's filter, the row_filter argument)
    ("SELECT count(*) > 3 AS condition FROM {{input_view}}", False, None, None),
    ("SELECT count(*) >= 0 AS condition FROM {{input_view}}", False, None, None),
    ("SELECT count(*) >= 0 AS condition FROM {{input_view}}", False, "id > 100", None),
    ("SELECT count(*) >= 0 AS condition FROM {{input_view}}", False, None, "id > 100"),
    ("SELECT count(*) = 2 AS condition FROM {{input_view}}", True, "id < 3", None),
    ("SELECT count(*) = 2 AS condition FROM {{input_view}}", False, None, "id < 3"),
    ("SELECT sum(n) > 100 AS condition FROM {{input_view}}", True, None, None),
    ("SELECT max(n) > 1 AS condition FROM {{input_view}} WHERE id > 100", False, None, None),
    ("SELECT CAST(NULL AS BOOLEAN) AS condition", False, None, None),
    ("SELECT CAST(NULL AS BOOLEAN) AS condition", True, None, None),
    ("SELECT n > 1 AS condition FROM {{input_view}} WHERE n IS NULL", False, None, None),
    ("SELECT true AS condition FROM {{input_view}} WHERE false", True, None, None),
    ("SELECT n > 0 AS condition FROM {{input_view}}", False, None, None),
    ("SELECT true AS condition FROM range(3)", False, None, None),
    ("SELECT false AS condition FROM range(2)", True, "id > 3", None),
]


def _verdict(spark, rule, text: str, table: str) -> tuple[str, int | None]:
    sql, _ = single_sql_text(text, "boolean", TABLES[table])
    try:
        (row,) = spark.sql(sql).collect()
    except Exception as exc:  # noqa: BLE001 - the old form's several rows: the rule's error
        assert "more than one row" in str(exc).lower() or "MULTI_VALUE" in str(exc), exc
        return "error", None
    found = json.loads(row["_assay_r"])
    outcome = judge_sql(rule, int(found["n"]), found.get("v"))
    return outcome.severity, int(found["n"])


@pytest.mark.parametrize("table", list(TABLES))
def test_the_join_answers_as_the_scalar_subqueries(spark, tmp_path, table):
    checks = []
    for query, negate, where, row_filter in CASES:
        arguments = {"query": query, "negate": negate}
        if row_filter is not None:
            arguments["row_filter"] = row_filter
        checks.append({**check("sql_query", **arguments), **({"filter": where} if where else {})})
    found = rules(tmp_path, *checks)
    differ, seen = [], set()
    for rule, (query, negate, where, row_filter) in zip(found, CASES, strict=True):
        old = _scalar_form(query, "condition", negate, row_filter or where)
        new_verdict = _verdict(spark, rule, rule.check.query, table)  # type: ignore[union-attr]
        old_verdict = _verdict(spark, rule, old, table)
        seen.add(new_verdict[0])
        if new_verdict[0] != old_verdict[0]:
            differ.append(f"{query} negate={negate} filter={where or row_filter}: "
                          f"old {old_verdict}, new {new_verdict}")  # fmt: skip
    assert not differ, "\n".join(differ)
    assert seen == ({"pass", "fail", "error"} if table == "five" else {"pass", "error"})
