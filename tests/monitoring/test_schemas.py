"""A table's schema over time, without Spark: the store's schema rows written and read back
by the file backend (a bad one skipped and counted like any line that is not a row), the
changes between two schemas, the ``schema_change`` verdicts and messages, and the rule's
config."""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from assay.errors import ConfigError
from assay.ir.monitoring import SCHEMA_CHANGES, SchemaChangeCheck
from assay.ir.origin import Origin
from assay.ir.rules import Rule
from assay.judge.evaluate import judge
from assay.judge.outcome import Evidence
from assay.judge.schema_change import FIRST_RUN
from assay.monitoring import files
from assay.monitoring.records import records
from assay.monitoring.rows import checked_row
from assay.monitoring.schemas import (
    BAD_SCHEMA,
    SCHEMA_MEASURE,
    SCHEMA_RULE,
    Column,
    Earlier,
    changes,
    columns_of,
    earlier_schema,
    parse,
    to_json,
)
from assay.monitoring.series import Wanted

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, 6, tzinfo=UTC)
ORDERS = (("id", "bigint", False), ("email", "string", True), ("amount", "decimal(10,2)", True))


def _columns(*pairs: tuple[str, str]) -> tuple[Column, ...]:
    return tuple(Column(name, kind, i) for i, (name, kind) in enumerate(pairs, 1))


# --- the store's schema rows ------------------------------------------------------------------


def test_a_schema_is_one_row_per_table_its_columns_as_json():
    rows = records([], T0, "sc://h", (("env", "ci"),), {"orders": columns_of(ORDERS)}, "run1")
    (row,) = rows
    assert {k: row[k] for k in ("table", "rule", "rule_type", "measure", "value", "run_id")} == {
        "table": "orders", "rule": SCHEMA_RULE, "rule_type": "schema",
        "measure": SCHEMA_MEASURE, "value": 3.0, "run_id": "run1"}  # fmt: skip
    assert orjson.loads(row["columns"]) == [
        {"name": "id", "type": "bigint", "position": 1, "nullable": False},
        {"name": "email", "type": "string", "position": 2, "nullable": True},
        {"name": "amount", "type": "decimal(10,2)", "position": 3, "nullable": True},
    ]
    assert row["tags"] == {"env": "ci"} and row["run_time"] == T0
    assert parse(row["columns"]) == columns_of(ORDERS)


def _schema_row(run: int, columns: str, table: str = "orders") -> dict:
    (row,) = records([], T0 + dt.timedelta(days=run), None, (), {table: ()}, f"run{run}")
    return {**row, "columns": columns}


def test_the_file_store_round_trip_and_a_bad_schema_row_skipped_and_counted(tmp_path):
    path = str(tmp_path / "metrics.jsonl")
    files.append(path, [_schema_row(1, to_json(columns_of(ORDERS)))])
    files.append(path, [_schema_row(2, to_json(columns_of(ORDERS[:2])))])
    files.append(path, [_schema_row(3, '[{"name": 1}]')])  # not a column
    files.append(path, [_schema_row(4, "not json"), _schema_row(4, to_json(()), "other")])
    key = ("orders", SCHEMA_RULE, SCHEMA_MEASURE)
    history, skipped = files.read(path, Wanted({key: 1}, T0 + dt.timedelta(days=9), "now"))
    assert skipped.to_dict() == {"count": 2, "reasons": {BAD_SCHEMA: 2}, "lines": [3, 4]}
    earlier = earlier_schema(history, "orders")  # the newest good row: run 2's
    assert earlier == Earlier("2024-01-03T06:00:00.000+00:00", "run2", columns_of(ORDERS[:2]))
    assert earlier_schema(history, "other") is None  # not asked for
    assert earlier_schema("the store is unreadable", "orders") == "the store is unreadable"
    found, skipped = files.rows(path)
    assert [r["run_id"] for r in found] == ["run1", "run2", "run4"] and skipped.count == 2


@pytest.mark.parametrize(
    "columns",
    [None, 3, "", "{}", '[["id", "bigint"]]', '[{"name": "id"}]', '[{"name": "id", "type": 1}]',
     '[{"name": "id", "type": "int", "nullable": "yes"}]'],
)  # fmt: skip
def test_a_schema_row_whose_columns_are_not_a_list_of_columns_is_not_a_row(columns):
    row = {**_schema_row(1, ""), "columns": columns, "run_time": T0.isoformat()}
    assert checked_row(row) == BAD_SCHEMA
    # another rule's columns are its own business (a comma-separated list)
    assert isinstance(checked_row({**row, "rule": "not_null(id)"}), dict)


def test_a_table_without_columns_is_a_schema():
    assert parse("[]") == () and isinstance(checked_row({**_schema_row(1, "[]"),
                                                          "run_time": T0.isoformat()}), dict)  # fmt: skip


# --- what changed -----------------------------------------------------------------------------

ABC = _columns(("a", "int"), ("b", "string"), ("c", "date"))


def test_nothing_changed():
    assert changes(ABC, ABC, "relative").kinds == ()


def test_a_column_added_removed_and_retyped():
    now = _columns(("a", "bigint"), ("c", "date"), ("d", "double"))
    found = changes(ABC, now, "relative")
    assert found.kinds == ("added", "removed", "retyped")
    assert found.to_dict() == {
        "added": [{"name": "d", "type": "double"}],
        "removed": [{"name": "b", "type": "string"}],
        "retyped": [{"name": "a", "from": "int", "to": "bigint"}],
        "reordered": [],
    }
    assert found.sentences() == ["added d (double)", "removed b (string)",
                                 "retyped a int -> bigint"]  # fmt: skip
    # Soda's index: c moved from index 2 to 1 when b went
    assert changes(ABC, now, "index").reordered == ("c",)


def test_reordered_names_the_fewest_columns_that_moved():
    moved = _columns(("c", "date"), ("a", "int"), ("b", "string"))  # c to the front
    assert changes(ABC, moved, "relative").reordered == ("c",)
    assert changes(ABC, moved, "index").reordered == ("c", "a", "b")
    swapped = _columns(*[(f"x{i}", "int") for i in (0, 1, 5, 3, 4, 2, 6)])
    seven = _columns(*[(f"x{i}", "int") for i in range(7)])
    assert sorted(changes(seven, swapped, "relative").reordered) == ["x2", "x5"]  # 2 and 5 swapped
    # a column added at the front moves no kept column relatively, every one by index
    front = _columns(("z", "int"), *[(c.name, c.type) for c in ABC])
    assert changes(ABC, front, "relative").kinds == ("added",)
    assert changes(ABC, front, "index").kinds == ("added", "reordered")


def test_columns_of_one_name_are_told_apart_by_their_order():
    twice = _columns(("id", "int"), ("id", "string"))
    assert changes(twice, twice, "relative").kinds == ()
    once = _columns(("id", "int"))
    assert changes(twice, once, "relative").to_dict()["removed"] == [
        {"name": "id", "type": "string"}
    ]


# --- the verdict ------------------------------------------------------------------------------


def _rule(fail=SCHEMA_CHANGES, warn=(), order="relative", level="error") -> Rule:
    check = SchemaChangeCheck(fail, warn, order)
    return Rule(kind="schema_change", check=check, origin=Origin("t.yaml", "r"), level=level)


NOW = (("a", "bigint"), ("c", "date"), ("b", "string"), ("d", "double"))
EARLIER = Earlier("2024-01-01T06:00:00.000+00:00", "run1", ABC)


def _judged(rule: Rule, earlier, schema=NOW):
    return judge(rule, Evidence(schema=schema, earlier=earlier))


def test_the_first_run_passes_and_an_unreadable_store_is_an_error():
    first = _judged(_rule(), None)
    assert (first.severity, first.message, first.failed_count) == ("pass", FIRST_RUN, 0)
    assert first.details["schema_change"]["earlier"] is None
    assert first.details["schema_change"]["columns"] == 4
    unread = _judged(_rule(), "metrics store file m.jsonl: Permission denied")
    assert unread.severity == "error"
    assert unread.message == "not judged over time: metrics store file m.jsonl: Permission denied"


def test_every_change_fails_by_default_and_the_message_says_each():
    judged = _judged(_rule(), EARLIER)
    assert (judged.severity, judged.passed, judged.failed_count) == ("fail", False, 3)
    assert judged.message == (
        "schema changed since the last run (2024-01-01T06:00:00.000+00:00): added d (double);"
        " retyped a int -> bigint; reordered c"
    )
    said = judged.details["schema_change"]
    assert said["earlier"] == {"run_time": EARLIER.run_time, "run_id": "run1", "columns": 3}
    assert said["failing"] == ["added", "retyped", "reordered"] and said["warning"] == []


def test_warn_when_warns_and_a_kind_in_neither_list_is_allowed():
    warned = _judged(_rule(fail=("removed",), warn=("added", "retyped")), EARLIER)
    assert (warned.severity, warned.passed, warned.failed_count) == ("warn", True, 2)
    assert warned.message.endswith("(reordered: allowed by the rule)")
    assert warned.details["schema_change"]["warning"] == ["added", "retyped"]
    allowed = _judged(_rule(fail=("removed",)), EARLIER)
    assert (allowed.severity, allowed.failed_count) == ("pass", 0)
    at_warn = _judged(_rule(level="warn"), EARLIER)
    assert (at_warn.severity, at_warn.passed) == ("warn", False)


def test_an_unchanged_schema_passes():
    same = _judged(_rule(), EARLIER, schema=[(c.name, c.type) for c in ABC])
    assert (same.severity, same.failed_count) == ("pass", 0)
    assert (
        same.message
        == "schema unchanged since the last run (2024-01-01T06:00:00.000+00:00): 3 columns"
    )


# --- the rule's config ------------------------------------------------------------------------


def _built(text: str) -> SchemaChangeCheck:
    from assay.config.document import parse_text
    from assay.dialects.catalogue import build_rule

    node = parse_text(text, "checks.yaml")
    check = build_rule(node).check
    assert isinstance(check, SchemaChangeCheck)
    return check


def test_the_rules_config():
    assert _built("{type: schema_change}") == SchemaChangeCheck(SCHEMA_CHANGES, (), "relative")
    assert _built("{type: schema_change, warn_when: [added]}") == SchemaChangeCheck(
        ("removed", "retyped", "reordered"), ("added",)
    )
    assert _built("{type: schema_change, fail_when: [reordered, added], order: index}") == (
        SchemaChangeCheck(("added", "reordered"), (), "index")
    )
    assert (
        _built("{type: schema_change, fail_when: [], warn_when: any}").warn_when == SCHEMA_CHANGES
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{type: schema_change, fail_when: [added, dropped]}", "unknown schema change 'dropped'"),
        ("{type: schema_change, fail_when: [added], warn_when: [added]}", "added: both in"),
        ("{type: schema_change, fail_when: []}", "fail_when and warn_when are both empty"),
        ("{type: schema_change, fail_when: added}", "expected 'any', or a list"),
        ("{type: schema_change, order: by_name}", "unknown order 'by_name'"),
        ("{type: schema_change, column: id}", "unknown key 'column'"),
    ],
)
def test_the_rules_config_refused(text, said):
    with pytest.raises(ConfigError, match=said):
        _built(text)
