"""Seven daily runs of one table whose row count drops 40% on day 6, with fixed run times:
the scenario both store backends are tested on (tests/integration/test_monitoring.py, and
the table store on the standalone cluster in tests/cluster)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import validate_event

COUNTS = (1000, 1010, 990, 1005, 1002, 600, 1000)
"""Day 1 to day 7; day 6 lost 40% of its rows."""
NULLS_EVERY = 250
"""Every 250th id is null: a not_null rule counts a few failing rows a day."""
_ONLINE = {
    "strategy": "online_normal",
    "lower_deviation_factor": 1.5,
    "upper_deviation_factor": 1.5,
}
RULES: list[dict[str, Any]] = [
    {"type": "row_count", "name": "rows_change",
     "change": {"vs": "last", "must_be": "between -10% and +20%"}},
    {"type": "row_count", "name": "rows_online", "anomaly": _ONLINE},
    {"type": "row_count", "name": "rows_online_all",
     "anomaly": {**_ONLINE, "ignore_anomalies": False}},
    {"type": "not_null", "column": "id", "tolerance": 10,
     "change": {"vs": "avg of last 3", "must_be": "<= 5"}},
]  # fmt: skip


def run_time(day: int) -> str:
    return f"2024-01-{day:02d}T06:00:00Z"


def day_frame(spark, day: int):
    """Day ``day``'s table: ``COUNTS[day - 1]`` rows, every 250th id null."""
    return spark.range(COUNTS[day - 1]).selectExpr(f"IF(id % {NULLS_EVERY} = 7, NULL, id) AS id")


def seven_days(spark, **store: Any) -> list[Any]:
    """The results of the seven runs (``store``: ``metrics=`` or ``metrics_table=``)."""
    import assay

    return [
        assay.validate(day_frame(spark, day), RULES, name="orders", run_time=run_time(day), **store)
        for day in range(1, len(COUNTS) + 1)
    ]


def severities(results: list[Any]) -> dict[str, list[str]]:
    """Each rule's severity on each day, by rule name (type for the unnamed)."""
    found: dict[str, list[str]] = {}
    for result in results:
        for r in result.results:
            found.setdefault(r.rule_name or r.rule_type, []).append(r.severity)
    return found


EXPECTED = {
    "rows_change": ["pass"] * 5 + ["fail", "fail"],  # day 7 is +66% from day 6
    "rows_online": ["pass"] * 5 + ["fail", "pass"],
    "rows_online_all": ["pass"] * 5 + ["fail", "pass"],
    "not_null": ["pass"] * 7,
}


def check_seven_days(results: list) -> None:
    """What the seven days say, whichever store kept them (shared with the cluster test)."""
    assert severities(results) == EXPECTED
    for result in results:
        for r in result.results:
            validate_event(r.to_dict())
    first, sixth, seventh = results[0].results, results[5].results, results[6].results
    assert first[0].baseline["note"] == "0 of 1 earlier runs needed"
    assert "not judged over time yet" in first[1].message
    change = sixth[0].baseline["change"]
    assert (change["baseline"], change["change"]) == (1002.0, pytest.approx(-40.119760479))
    assert change["expected"] == {"low": pytest.approx(901.8), "high": pytest.approx(1202.4)}
    assert "must be between -10% and +20%" in sixth[0].message
    assert sixth[1].baseline["anomaly"]["anomalous"] is True
    assert "OnlineNormalStrategy]: Value 600.0 is not in bounds" in sixth[1].message
    assert not sixth[1].passed and sixth[1].severity == "fail"
    # day 7 is judged against a history holding day 6: left out of the band when ignored
    for r in seventh[1:3]:
        assert [p["value"] for p in r.baseline["points"]] == [float(c) for c in COUNTS[:6]]
    ignored, kept = (seventh[i].baseline["anomaly"]["expected"] for i in (1, 2))
    assert 985 < ignored["low"] < 1000 < ignored["high"] < 1015
    assert kept["low"] < 800 and kept["high"] > 1100
    # the row rule is judged by its failed count, the nulls of the day
    nulls = [sum(1 for i in range(c) if i % NULLS_EVERY == 7) for c in COUNTS]
    assert [r.results[3].failed_count for r in results] == nulls == [4, 5, 4, 4, 4, 3, 4]
    assert seventh[3].baseline["change"]["baseline"] == pytest.approx((4 + 4 + 3) / 3)
