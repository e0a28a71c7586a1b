"""An incremental table's pure parts (docs/incremental.md): its states as store rows and
back (every type a partial value can have, DECIMAL digits and NaN kept), the newest run's
states chosen, the exact merges, and explain's text."""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path

import assay
from assay.monitoring.states import (
    decode,
    encode,
    newest_states,
    partition_key,
    partition_value,
    state_rows,
)
from assay.planner.incremental import merged
from assay.planner.measures import ColumnAgg, GroupStats, RowCount
from tests.helpers import assay_cli

UTC = dt.timezone.utc
VALUES = [None, True, 0, -(10**30), 1.5, float("nan"), float("-inf"),
          Decimal("-12.000000000000000001"), "é", dt.date(2024, 1, 2),
          dt.datetime(2024, 1, 2, 3, 4, 5, 6), b"\x00\xff", [1, Decimal("2.5")]]  # fmt: skip


def test_every_value_is_kept_through_its_encoding():
    for value in VALUES:
        back = decode(encode(value))
        if isinstance(value, float) and math.isnan(value):
            assert math.isnan(back)
        else:
            assert back == value and type(back) is type(value), value
    assert partition_value(partition_key(dt.date(2024, 1, 2))) == dt.date(2024, 1, 2)
    assert partition_value(partition_key(None)) is None


def test_the_newest_runs_states_are_read_back():
    def rows(run: int, parts: dict[str, int]) -> list[dict]:
        made = state_rows("t", {k: f"fp{run}{k}" for k in parts}, parts,
                          {("r", k): ("d", [n, Decimal("0.1")]) for k, n in parts.items()})  # fmt: skip
        at = dt.datetime(2024, 1, run, tzinfo=UTC)
        return [{**r, "run_time": at, "run_id": f"run{run}", "tags": {}} for r in made]

    a, b = partition_key("a"), partition_key("b")
    stored = newest_states(rows(1, {a: 1}) + rows(2, {a: 2, b: 3}), ["t"])["t"]
    assert stored.runs == {a: "run2", b: "run2"} and stored.rows == {a: 2, b: 3}
    assert stored.fingerprints == {a: "fp2" + a, b: "fp2" + b}
    assert stored.rules[("r", b)] == ("d", [3, Decimal("0.1")])
    assert newest_states(rows(1, {a: 1}), ["other"])["other"].runs == {}


def test_the_merges():
    assert merged(RowCount(), [[3], [0], [4]]) == 7
    assert merged(ColumnAgg("min", "d"), [[dt.date(2024, 1, 3)], [None], [dt.date(2024, 1, 1)]]) == dt.date(2024, 1, 1)  # fmt: skip
    assert math.isnan(merged(ColumnAgg("max", "y"), [[1.0], [float("nan")], [None]]))
    assert merged(ColumnAgg("min", "y"), [[1.0], [float("nan")]]) == 1.0
    parts = [[Decimal("1.000000000000000001"), 2], [Decimal("99999999999999999999.5"), 1],
             [None, 0]]  # fmt: skip
    total = Decimal("100000000000000000000.500000000000000001")
    assert merged(ColumnAgg("sum", "a"), parts) == total
    mean = merged(ColumnAgg("avg", "a"), parts, "decimal(38,18)")
    assert mean == Decimal("33333333333333333333.5000000000000000003333")
    assert merged(ColumnAgg("avg", "i"), [[7, 2], [2, 1]], "bigint") == 3.0
    assert merged(ColumnAgg("sum", "a"), [[None, 0]]) is None
    assert merged(ColumnAgg("stddev", "x"), [[1, 5.0, 0.0], [0, None, None]]) is None
    parts = [[3, 4, 2, 2], [0, None, None, 0], [1, 1, None, 1]]
    groups = merged(GroupStats(("id", "day")), parts, by="day")
    assert groups == {"groups": 4, "rows": 5, "dup_rows": 2, "unique_rows": 3}
    # Chan's merge of (n, mean, M2) equals the two-pass formula over the values
    values = [1.5, 2.25, -3.0, 4.0, 10.125, 0.5, 7.75]
    parts = [values[:3], values[3:4], values[4:]]
    states = []
    for part in parts:
        m = sum(part) / len(part)
        states.append([len(part), m, sum((v - m) ** 2 for v in part)])
    mean = sum(values) / len(values)
    want = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    assert math.isclose(merged(ColumnAgg("stddev", "x"), states), want, rel_tol=1e-14)


def test_explain_says_what_a_run_scans_and_merges(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {tmp_path}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: not_null, column: v}\n"
        "      - {type: stddev, column: v, scope: new, must_be: '>= 0'}\n"
        "      - {type: unique, columns: [id, day]}\n"
    )
    text = assay.explain(str(config))
    assert "incremental by day" in text
    assert "aggregate plan grouped by day over the partitions new or changed" in text
    assert "m1 count_if(v IS NULL): summed  rules[0]" in text
    assert "m2 stddev_samp(v): count, mean and M2, merged by Chan's formula  rules[1]" in text
    assert "judged on the partitions scanned alone (scope: new): rules[1]" in text
    assert "no group spans two partitions)  rules[2]" in text


def test_assay_check_refuses_a_rule_that_does_not_merge(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - source: {{path: {tmp_path}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: not_null, column: v}\n"
        "      - {type: median, column: v, must_be: '> 0'}\n"
    )
    done = assay_cli("check", str(config), cwd=Path.cwd())
    assert done.returncode == 2
    (problem,) = json.loads(done.stdout.splitlines()[0])["problems"]
    assert problem["path"] == "tables[0].rules[1]" and problem["line"] == 7
    assert "cannot be judged on an incremental table" in problem["message"]
