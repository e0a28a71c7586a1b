"""Judging a value against its history (pure): change thresholds and their baselines, the
band they allow, too little history, anomaly strategies over the window, and what the
metrics store keeps of a run (identities, records, the history read back)."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest

from assay.config.document import parse_text
from assay.dialects.catalogue import build_rule
from assay.ir.monitoring import AnomalyDetection, Baseline, Change, OverTime
from assay.ir.values import Between, Comparison, Op
from assay.monitoring.identity import identities, rule_identity
from assay.monitoring.judging import band, change_of, judge_over_time
from assay.monitoring.records import as_number, records
from assay.monitoring.series import Point, Selection, Wanted, newest, selected

UTC = dt.timezone.utc


def points(*values: float) -> list[Point]:
    return [
        Point(f"2024-01-{i + 1:02d}T00:00:00.000+00:00", v, f"r{i}") for i, v in enumerate(values)
    ]


def pct(low: float | None, high: float | None, text: str) -> Between:
    return Between(
        None if low is None else Decimal(str(low)),
        None if high is None else Decimal(str(high)),
        text,
        unit="percent",
    )


TEN_TWENTY = pct(-10, 20, "between -10% and +20%")


def change(must, fn="last", runs=1, warn=None, **over) -> OverTime:
    return OverTime(change=Change(Baseline(fn, runs), must, warn), **over)


# --- change -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "verdict", "moved"),
    [(1000, "pass", 0.0), (1200, "pass", 20.0), (1201, "fail", 20.1), (900, "pass", -10.0),
     (899, "fail", -10.1), (600, "fail", -40.0)],
)  # fmt: skip
def test_a_relative_change_from_the_last_run(value, verdict, moved):
    got = judge_over_time(change(TEN_TWENTY), value, points(500, 1000))
    assert got.verdict == verdict
    assert got.baseline["change"]["baseline"] == 1000
    assert got.baseline["change"]["change"] == pytest.approx(moved)
    assert got.baseline["change"]["expected"] == {"low": 900.0, "high": 1200.0}
    assert [p["value"] for p in got.baseline["points"]] == [1000]  # the last run only


def test_an_absolute_change_is_a_difference():
    must = Comparison(Op.LE, Decimal(5), "<= 5")
    assert judge_over_time(change(must), 9, points(4)).verdict == "pass"
    assert judge_over_time(change(must), 10, points(4)).verdict == "fail"
    assert band(must, 4.0) == {"low": None, "high": 9.0}


@pytest.mark.parametrize(
    ("fn", "expected"), [("avg", 20.0), ("min", 10.0), ("max", 30.0), ("median", 20.0)]
)
def test_the_baseline_aggregates_the_last_n_runs(fn, expected):
    got = judge_over_time(change(pct(None, 50, "< 50%"), fn, 3), 25, points(999, 10, 20, 30))
    assert got.baseline["change"]["baseline"] == expected
    assert got.baseline["runs"] == 3  # the run before the window is not read


def test_a_change_from_zero_is_zero_or_infinite():
    assert change_of(TEN_TWENTY, 0, 0) == 0.0
    assert change_of(TEN_TWENTY, 3, 0) == math.inf
    assert change_of(TEN_TWENTY, -3, 0) == -math.inf
    assert judge_over_time(change(TEN_TWENTY), 0, points(0)).verdict == "pass"
    assert judge_over_time(change(TEN_TWENTY), 1, points(0)).verdict == "fail"


def test_a_change_warns_on_its_own_warn_threshold():
    warn = pct(-5, 5, "between -5% and 5%")
    got = judge_over_time(change(TEN_TWENTY, warn=warn), 1080, points(1000))
    assert (got.verdict, got.baseline["change"]["warn"]) == ("warn", "between -5% and 5%")


def test_too_little_history_passes_with_a_note_or_fails_when_asked():
    over = change(TEN_TWENTY, "avg", 7)
    got = judge_over_time(over, 1000, points(1, 2, 3))
    assert (got.verdict, got.baseline["note"]) == ("pass", "3 of 7 earlier runs needed")
    strict = change(TEN_TWENTY, "avg", 7, min_runs=2, too_little="fail")
    assert judge_over_time(strict, 1000, points(1, 2, 3)).verdict == "fail"
    # min_runs below the window judges on what there is: the avg of 1 run here
    loose = OverTime(change=Change(Baseline("avg", 7), TEN_TWENTY), min_runs=1)
    got = judge_over_time(loose, 1000, points(500))
    assert (got.verdict, got.baseline["change"]["baseline"]) == ("fail", 500.0)
    assert "note" not in got.baseline


# --- anomaly ------------------------------------------------------------------------------

ONLINE = (("lower_deviation_factor", 1.5), ("upper_deviation_factor", 1.5))
DAYS = (1000, 1010, 990, 1005, 1002)


def anomaly(params, **over) -> OverTime:
    return OverTime(anomaly=AnomalyDetection("online_normal", params), **over)


def test_online_normal_flags_the_drop_and_leaves_it_out_of_the_next_days_band():
    assert judge_over_time(anomaly(ONLINE), 600, points(*DAYS)).verdict == "fail"
    kept = judge_over_time(anomaly(ONLINE), 1000, points(*DAYS, 600))
    every = judge_over_time(
        anomaly((*ONLINE, ("ignore_anomalies", False))), 1000, points(*DAYS, 600)
    )
    assert kept.verdict == every.verdict == "pass"
    assert kept.baseline["points"][-1]["value"] == every.baseline["points"][-1]["value"] == 600
    # ignored: the band is about the normal days' (Deequ's running update, the drop's
    # statistics restored but its index still counted)
    low, high = kept.baseline["anomaly"]["expected"].values()
    assert 985 < low < 1000 < high < 1015
    # kept in: the drop widens it
    assert every.baseline["anomaly"]["expected"]["low"] < 800 < low


def test_a_strategy_needs_its_own_least_history():
    # online_normal with factor 3 cannot flag anything before 10 earlier values
    got = judge_over_time(anomaly(()), 0, points(*DAYS))
    assert (got.verdict, got.baseline["note"]) == ("pass", "5 of 10 earlier runs needed")


def test_the_other_strategies_judge_the_new_value_only():
    simple = OverTime(anomaly=AnomalyDetection("simple_threshold", (("upper_bound", 5.0),)))
    assert judge_over_time(simple, 6, points(9, 9)).verdict == "fail"  # earlier 9s aside
    assert judge_over_time(simple, 5, points(9, 9)).verdict == "pass"
    relative = OverTime(
        anomaly=AnomalyDetection("relative_rate_of_change", (("max_rate_decrease", 0.5),))
    )
    got = judge_over_time(relative, 40, points(100))
    assert got.verdict == "fail" and got.baseline["anomaly"]["expected"]["low"] == 50.0


# --- identities, records, the history read back -------------------------------------------


def rules(text: str):
    doc = parse_text(text, "c.yaml")
    return [build_rule(node) for node in doc.as_list()]


def test_identities_keep_history_across_threshold_changes_only():
    a, b, c, d, e = rules(
        "- {type: range, column: q, min: 1, max: 8, tolerance: 3, change: {must_be: '<= 5'}}\n"
        "- {type: range, column: q, max: 8, min: 1}\n"
        "- {type: range, column: q, min: 1, max: 9}\n"
        "- {type: row_count, name: daily rows, must_be: '> 0'}\n"
        "- {type: range, column: q, min: 1, max: 8, filter: 'x > 0'}\n"
    )
    assert rule_identity(a) == rule_identity(b) == 'range(q) {"max":8,"min":1}'
    assert rule_identity(c) != rule_identity(a)
    assert rule_identity(d) == "daily rows"
    assert rule_identity(e) == 'range(q) {"filter":"x > 0","max":8,"min":1}'
    assert identities([a, b, c]) == (rule_identity(a), rule_identity(a) + " #2", rule_identity(c))


def test_records_keep_every_finite_number_of_a_run():
    events = [
        {"event": "result", "run_id": "r", "table": "t", "severity": "fail",
         "rule": {"type": "avg", "id": "avg(x)", "columns": ["x"]},
         "metric_value": "12345678901234567890.5", "failed_count": None, "row_count": 3},
        {"event": "result", "run_id": "r", "table": "t", "severity": "pass",
         "rule": {"type": "max", "id": "max(d)", "columns": ["d"]},
         "metric_value": "2024-01-01", "failed_count": 0, "row_count": 3},
        {"event": "result", "run_id": "r", "table": "t", "severity": "error",
         "rule": {"type": "min", "id": "min(x)", "columns": ["x"]},
         "metric_value": 1, "failed_count": 0, "row_count": 3},
        {"event": "result", "run_id": "r", "table": "t", "severity": "pass",
         "rule": {"type": "stddev", "id": "stddev(x)", "columns": ["x"]},
         "metric_value": float("nan"), "failed_count": None, "row_count": 3},
        {"event": "table", "run_id": "r", "table": "t", "row_count": 3},
        {"event": "comparison", "run_id": "r", "comparison": "c", "severity": "pass",
         "counts": {"matched": 2, "source_rows": 3, "by_side": {"a": 1}}},
    ]  # fmt: skip
    at = dt.datetime(2024, 1, 1, tzinfo=UTC)
    got = [
        (r["table"], r["rule"], r["measure"], r["value"])
        for r in records(events, at, "sc://x", [("env", "prod")])
    ]
    assert got == [
        ("t", "avg(x)", "metric_value", 1.2345678901234567e19),
        ("t", "avg(x)", "row_count", 3.0),
        ("t", "max(d)", "failed_count", 0.0),  # a date is no number: not stored
        ("t", "max(d)", "row_count", 3.0),
        ("t", "stddev(x)", "row_count", 3.0),  # NaN is not stored
        ("t", "(table)", "row_count", 3.0),
        ("c", "(comparison)", "matched", 2.0),
        ("c", "(comparison)", "source_rows", 3.0),
    ]
    assert as_number(True) is None and as_number(math.inf) is None


def row(day: int, value: float, rule="r", run=None, tags=None, measure="metric_value"):
    return {"table": "t", "rule": rule, "measure": measure, "value": value,
            "run_time": f"2024-01-{day:02d}T00:00:00+00:00", "run_id": run or f"run{day}",
            "tags": tags or {}}  # fmt: skip


def test_the_history_read_keeps_the_newest_runs_before_this_one_with_its_tags():
    want = Wanted(
        {("t", "r", "metric_value"): 2},
        before=dt.datetime(2024, 1, 5, tzinfo=UTC),
        run_id="now",
        tags=(("env", "prod"),),
    )
    stored = [
        row(1, 1, tags={"env": "prod"}), row(3, 3, tags={"env": "prod", "team": "a"}),
        row(2, 2, tags={"env": "prod"}), row(4, 40, tags={"env": "dev"}),
        row(5, 5, tags={"env": "prod"}), row(4, 99, run="now", tags={"env": "prod"}),
    ]  # fmt: skip
    kept = [
        r
        for r in stored
        if want.matches(r["tags"], r["run_id"], dt.datetime.fromisoformat(r["run_time"]))
    ]
    history = newest(kept, want)
    assert [p.value for p in history[("t", "r")]] == [2, 3]  # oldest first, the newest 2


def test_a_selection_lists_series_oldest_first():
    stored = [row(2, 2), row(1, 1), row(3, 3, rule="s"), row(1, 10, measure="row_count")]
    got = selected(stored, Selection(measures=("metric_value",), last=1))
    assert [(r["rule"], r["value"]) for r in got] == [("r", 2), ("s", 3)]
