"""An incremental run's samples asked beside its aggregate (docs/incremental.md#samples):
a new partition read in one task leaves a core idle, so the samples of the rules that
failed on the latest stored partition are asked at once, beside the aggregate; the rules
failing only now are sampled after it, as ever. Held against the plain order (nothing
asked beside, every failed rule sampled after the aggregate) on data built to break it:
keys tied twenty times in a day (the order's other columns decide), a rule failing on the
new day only (not asked), one that failed on the latest day only (asked, not failed), a
uniqueness rule (a group: never asked), and the asked plan cancelled (a rule failing on
too many rows for its one sort)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import assay
from assay.executor.stages import detail as detail_stage
from assay.executor.stages import incremental as incremental_stage

pytestmark = pytest.mark.spark

RULES = """
      - {type: range, column: y, min: 0, max: 1000}
      - {type: not_null, column: note}
      - {type: range, column: qty, min: 0, max: 40}
      - {type: expression, expression: "x < 90"}
      - {type: unique, columns: [k, day]}
"""
"""0 failed on the latest stored day only (its column y first in the order: tied keys
are then ordered by y, whether or not it failed); 1 and 2 fail on every day; 3 on the
new day only; 4 (duplicate keys) on every day."""


def _day(spark, data: Path, day: int) -> None:
    query = f"""
        SELECT i % 3 AS k,
               CASE WHEN i % 4 = 0 THEN NULL ELSE CONCAT('n', (i * 13 + {day}) % 17) END AS note,
               CAST((i * 7 + {day}) % 50 AS INT) AS qty,
               CAST(i AS DOUBLE) * {2 if day == 3 else 1} AS x,
               CASE WHEN {day} = 2 AND i % 9 = 1 THEN -1.5 ELSE i / 2.0 END AS y
        FROM range(60) AS t(i)"""
    spark.sql(query).coalesce(1).write.mode("overwrite").parquet(str(data / f"day={day}"))


def _samples(result) -> dict[int, list]:
    events = (e.to_dict() for e in result.events)
    return {e["rule_index"]: e["samples"] for e in events if e["event"] == "result"}


def _table(result) -> dict:
    (table,) = [t.to_dict() for t in result.tables]
    return table


def test_samples_asked_beside_the_aggregate_are_the_plain_orders(
    spark, server, tmp_path, monkeypatch
):
    data = tmp_path / "data"
    store, kept = tmp_path / "m.jsonl", tmp_path / "kept.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {store}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
        f"    incremental: {{by: day}}\n    keys: [k, day]\n    sample_size: 3\n    rules:{RULES}"
    )
    for day in (1, 2):
        _day(spark, data, day)
    assay.run(str(config), spark=spark)  # days 1 and 2 stored
    _day(spark, data, 3)
    shutil.copyfile(store, kept)

    def run(**switches):
        shutil.copyfile(kept, store)
        with monkeypatch.context() as m:
            if "plain" in switches:
                m.setattr(incremental_stage, "ask_beside", lambda *a, **k: None)
            if "cancelled" in switches:  # every asked rule "heavy": the plan cancelled
                m.setattr(detail_stage, "heavy", lambda counts, options: tuple(counts))
            before = server.sql_executions()
            got = assay.run(str(config), spark=spark)
            return got, server.sql_executions() - before

    plain, plain_plans = run(plain=True)
    asked, asked_plans = run()
    cancelled, _ = run(cancelled=True)
    want = _samples(plain)
    assert {i for i, s in want.items() if s} == {1, 2, 3, 4}  # what each rule was built to do
    assert all(len(want[i]) == 3 for i in (1, 2, 3))
    assert {s["day"] for i in (1, 2, 3) for s in want[i]} == {3}  # the new day's rows only
    assert _samples(asked) == want
    assert _samples(cancelled) == want
    for got in (plain, asked, cancelled):
        assert _table(got)["error"] is None
    # plain: the fingerprints, the aggregate, the detail plan; asked: the samples of 0, 1
    # and 2 beside the aggregate, then those of 3 (it failed only now) and 4 (a group)
    assert plain_plans == _table(plain)["spark_plans"] == 3
    assert asked_plans == _table(asked)["spark_plans"] == 4
