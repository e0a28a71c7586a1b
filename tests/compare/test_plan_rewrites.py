"""Each rewrite of the comparison plan against its plain form, on data built to break it:

- the null-safe key split into ``coalesce(key, default)`` / ``isnull(key)`` columns (one
  shuffle per side) against Spark's own ``<=>`` join, with keys equal to the defaults;
- the one-pass samples (exploded per branch, ``row_number() <= n``) against one
  ``ORDER BY keys LIMIT n`` query per branch;
- spark-data-test's unmatched-rows writes over the differing keys only against the same
  writes over both whole sides.
"""

from __future__ import annotations

import json

import pytest

import assay
from assay.emit import compare as emit
from assay.emit.columns import col

pytestmark = pytest.mark.spark

# Keys that equal the split's defaults (0, "", 1970-01-01) next to null keys, a composite
# key with one null part, duplicated keys (null ones too) on both sides.
SCHEMA = "k int, s string, d date, v double, w string"
SOURCE = [
    (0, "", "1970-01-01", 1.0, "a"),
    (None, "", "1970-01-01", 2.0, "b"),
    (0, None, "1970-01-01", 3.0, "c"),
    (0, "", None, 4.0, "d"),
    (None, None, None, 5.0, "e"),
    (None, None, None, 5.5, "e"),
    (1, "x", "2020-01-01", 6.0, "f"),
    (1, "x", "2020-01-01", 6.0, "f"),
    (2, "y", "2020-01-02", 7.0, None),
]
TARGET = [
    (0, "", "1970-01-01", 1.0, "a"),
    (None, "", "1970-01-01", 2.5, "b"),
    (0, None, "1970-01-01", 3.0, "C"),
    (None, None, None, 5.0, "e"),
    (1, "x", "2020-01-01", 6.0, "f"),
    (2, "y", "2020-01-02", 7.0, "g"),
    (3, "z", "2020-01-03", 8.0, "h"),
]
KEYS = ["k", "s", "d"]


def _frame(spark, rows):
    import datetime as dt

    def day(text):
        return None if text is None else dt.date.fromisoformat(text)

    return spark.createDataFrame([(k, s, day(d), v, w) for k, s, d, v, w in rows], SCHEMA)


def _result(spark):
    return assay.compare(
        _frame(spark, SOURCE), _frame(spark, TARGET), keys=KEYS, sample_size=10
    ).to_dict()


def _plain(result: dict) -> dict:
    return {k: result[k] for k in ("counts", "columns", "samples", "passed")}


def test_split_null_safe_keys_count_as_spark_null_safe_join(spark, monkeypatch):
    split = _result(spark)
    monkeypatch.setattr(emit, "_key_default", lambda spark_type: None)  # Spark's own <=>
    plain = _result(spark)
    assert _plain(split) == _plain(plain)
    counts = split["counts"]
    # On both sides: (0,"",1970-01-01), (null,"",1970-01-01), (0,null,1970-01-01), the
    # all-null key (twice in the source), key 1 (twice in the source), key 2: one pair
    # each. Only in the source: (0,"",null), whose split form equals (0,"",1970-01-01) but
    # for its null flag, and the second source rows of the all-null key and key 1; only in
    # the target: key 3.
    assert counts["missing_in_source"] == 1
    assert counts["missing_in_target"] == 3
    assert counts["compared"] == 6
    assert counts["duplicate_keys"] == {"source": 2, "target": 0}
    assert counts["duplicate_rows"] == {"source": 2, "target": 0}


def test_split_keys_shuffle_each_side_once(spark, tmp_path, monkeypatch):
    for name, rows in (("s", SOURCE), ("t", TARGET)):
        _frame(spark, rows).write.parquet(str(tmp_path / name))
    source, target = (spark.read.parquet(str(tmp_path / n)) for n in ("s", "t"))
    frames = {}
    original = emit.aggregate

    def spy(pairs, plan):
        frames["aggregate"] = original(pairs, plan)
        return frames["aggregate"]

    monkeypatch.setattr(emit, "aggregate", spy)
    assay.compare(source, target, keys=KEYS)
    text = _explain(frames["aggregate"])
    # one hash exchange per side (the window's, which the join reuses); none by coalesce()
    assert text.count("Exchange hashpartitioning") == 2, text
    assert "hashpartitioning(coalesce(" not in text


def _explain(df) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain()
    return out.getvalue()


# --- samples --------------------------------------------------------------------------------


# Unique keys: 30 pairs with `v` off (more than the sample size), 7 with `w` off, nulls
# and keys sorting before the others on each side only.
def _sample_sides(spark):
    source = [(i, "k", "2020-01-01", float(i), "w") for i in range(40)]
    target = [(i, "k", "2020-01-01", float(i) + (i < 30), "w" if i % 6 else "W") for i in range(40)]
    source += [(-5, "only-s", None, 1.0, "s"), (None, "n", None, 0.0, "n")]
    target += [(-9, "only-t", None, 1.0, "t"), (99, "only-t", None, 1.0, "t")]
    return _frame(spark, source), _frame(spark, target)


def _per_branch_samples(pairs, plan, mismatched, n):
    """The plain form: one ORDER BY keys LIMIT n query per branch."""
    keys = [col(k) for k in plan.keys]
    found = {}
    for c in mismatched:
        rows = pairs.where(emit.column_mismatch(c, plan)).orderBy(*keys).limit(n)
        found[("mismatched", c.name)] = [
            json.loads(r[0])
            for r in rows.select(
                emit._json(
                    [
                        *keys,
                        *(
                            v.alias(a)
                            for v, a in zip(emit.pair_values(c), ("source", "target"), strict=True)
                        ),
                    ]
                )
            ).collect()
        ]
    for kind, present, absent in (
        ("missing_in_target", emit.S, emit.T),
        ("missing_in_source", emit.T, emit.S),
    ):
        rows = pairs.where(present & ~absent).orderBy(*keys).limit(n)
        found[(kind, None)] = [tuple(r) for r in rows.select(*keys).collect()]
    return found


@pytest.mark.parametrize("n", [1, 5, 50])
def test_one_pass_samples_equal_one_query_per_branch(spark, monkeypatch, n):
    source, target = _sample_sides(spark)
    captured = {}
    original = emit.samples

    def spy(pairs, plan, mismatched, size, differing_keys=False):
        captured.update(pairs=pairs, plan=plan, mismatched=mismatched)
        return original(pairs, plan, mismatched, size, differing_keys)

    monkeypatch.setattr(emit, "samples", spy)
    got = assay.compare(source, target, keys=KEYS, sample_size=n).samples
    plain = _per_branch_samples(captured["pairs"], captured["plan"], captured["mismatched"], n)
    assert {column for kind, column in plain if kind == "mismatched"} == {"v", "w"}
    for (kind, column), rows in plain.items():
        if kind == "mismatched":
            mine = [
                {**s["key"], "source": s["source"], "target": s["target"]}
                for s in got["mismatched"]
                if s["column"] == column
            ]
            assert mine == rows, column
        else:
            day = [None if r["d"] is None else r["d"] for r in got[kind]]
            assert [(r["k"], r["s"], d) for r, d in zip(got[kind], day, strict=True)] == [
                (k, s, None if d is None else d.isoformat()) for k, s, d in rows
            ], kind
    assert len([s for s in got["mismatched"] if s["column"] == "v"]) == min(n, 30)


# --- spark-data-test's unmatched rows over the differing keys ---------------------------------


@pytest.mark.parametrize("names", [["quirks", "dupes"], ["decimals"]])
def test_unmatched_rows_over_the_unmatched_keys_equal_whole_sides(
    spark, tmp_path, monkeypatch, names
):
    """Duplicated keys on both sides, null keys, a composite key, tolerances (one job's
    datasets share a key count: spark-data-test unions its row reports by position)."""
    import assay.comparison.plan as planner
    from assay.api.comparing import run_comparison_job
    from tests.compare.test_spark_data_test import _job, _reports, _write_inputs

    configs = _write_inputs(spark, tmp_path, names)
    calls = []
    original = emit.restricted

    def spy(*args):
        calls.append(len(args[-1]))
        return original(*args)

    monkeypatch.setattr(emit, "restricted", spy)
    keyed = run_comparison_job(spark, _job(configs, tmp_path / "keys"))
    assert calls and all(calls), "the differing keys came back with the samples"
    monkeypatch.setattr(planner, "DIFFERING_KEYS_LIMIT", 0)  # the whole sides
    calls.clear()
    whole = run_comparison_job(spark, _job(configs, tmp_path / "whole"))
    assert calls == []
    assert [r.error for r in keyed + whole] == [None] * (2 * len(names))
    assert _reports(spark, str(tmp_path / "keys" / "job")) == _reports(
        spark, str(tmp_path / "whole" / "job")
    )
