"""``assay suggest``: the starter config is valid (``assay check``), holds on the data it
was suggested from, and fails where its evidence is broken; Deequ's conditions and
margins, ported, on their own."""

from __future__ import annotations

import datetime as dt
import subprocess
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

import assay
from assay.profiling.suggest import column_suggestions, key_suggestions, wald_lower
from tests import helpers
from tests.conftest import ROOT

SCHEMA = ("id BIGINT, code STRING, n_text STRING, flag_text STRING, when_text STRING, "
          "amount DOUBLE, kind STRING, note STRING, qty INT, created TIMESTAMP")  # fmt: skip
N = 400


def good_rows(now: dt.datetime) -> list[tuple]:
    return [
        (
            i,
            str(uuid.UUID(int=i * 7919 + 1)),
            str(i * 3 - 17),
            "true" if i % 3 else "false",
            (dt.date(2024, 1, 1) + dt.timedelta(days=i)).isoformat(),
            i * 1.25,
            ["a", "b", "c"][i % 3],
            None if i % 4 == 0 else f"note {i}",
            i % 10 + 1,
            now - dt.timedelta(hours=i),
        )
        for i in range(N)
    ]


def broken_rows(now: dt.datetime) -> list[tuple]:
    """The same rows, stale, a few of them breaking every rule's evidence, and 300 rows
    of nulls (too many rows)."""
    stale = now - dt.timedelta(days=4000)
    rows = good_rows(stale)
    bad = (-1, "not-a-uuid", "twelve", "perhaps-not", "2024/1/2", -1e9, "zzzz", "x" * 50, 99, stale)
    return rows + [bad, bad, (None, *bad[1:])] + [(None,) * 8 + (None, None)] * 300


def write(spark, rows: list[tuple], path: Path) -> Path:
    spark.createDataFrame(rows, SCHEMA).coalesce(1).write.mode("overwrite").parquet(str(path))
    return path


def assay_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return helpers.assay_cli(*args, cwd=cwd, timeout=600)


@pytest.fixture(scope="module")
def suggested(spark, server, tmp_path_factory) -> tuple[Path, Path, str]:
    here = tmp_path_factory.mktemp("suggest")
    now = dt.datetime.now().replace(microsecond=0)
    good = write(spark, good_rows(now), here / "good.parquet")
    write(spark, broken_rows(now), here / "broken.parquet")
    proc = assay_cli("suggest", str(good), "--remote", server.url)
    assert proc.returncode == 0, proc.stderr
    config = here / "checks.yaml"
    config.write_text(proc.stdout)
    return config, here, proc.stdout


@pytest.mark.spark
def test_the_suggestion_is_a_valid_config(suggested):
    config, _, text = suggested
    proc = assay_cli("check", str(config))
    assert proc.returncode == 0, proc.stderr
    rules = yaml.safe_load(text)["tables"][0]["rules"]
    kinds = {r["type"] for r in rules}
    assert kinds >= {"schema", "row_count", "unique", "not_null", "missing_percent", "range",
                     "accepted_values", "length", "regex", "freshness", "expression"}  # fmt: skip
    for rule in rules:  # each rule is commented with its evidence
        assert "# " in text.split(f"- type: {rule['type']}")[0].rsplit("\n", 2)[-2]


@pytest.mark.spark
def test_it_holds_on_its_data_and_fails_where_the_evidence_breaks(spark, suggested):
    config, here, text = suggested
    result = assay.run(str(config), spark=spark)
    assert [r.message for r in result if not r.passed] == []
    broken = here / "broken.yaml"
    broken.write_text(text.replace(str(here / "good.parquet"), str(here / "broken.parquet")))
    failed = {(r.rule_type, tuple(r.columns)) for r in assay.run(str(broken), spark=spark)
              if not r.passed}  # fmt: skip
    held = [
        (r["type"], r.get("column") or tuple(r.get("columns", ())))
        for r in yaml.safe_load(text)["tables"][0]["rules"]
        if (r["type"], (r["column"],) if "column" in r else tuple(r.get("columns", ())))
        not in failed
    ]
    assert held == [("schema", ())]  # the types stay: broken by the next test


@pytest.mark.spark
def test_fewer_rows_and_another_type_break_the_rest(spark, suggested):
    config, here, text = suggested
    few = spark.read.parquet(str(here / "good.parquet")).limit(N // 4)
    few.withColumn("id", few["id"].cast("int")).coalesce(1).write.parquet(str(here / "few.parquet"))
    broken = here / "few.yaml"
    broken.write_text(text.replace(str(here / "good.parquet"), str(here / "few.parquet")))
    failed = {r.rule_type for r in assay.run(str(broken), spark=spark) if not r.passed}
    assert {"row_count", "schema"} <= failed


@pytest.mark.spark
def test_an_empty_table_bounds_no_rows_and_says_why(spark, server, tmp_path):
    write(spark, [], tmp_path / "empty.parquet")
    proc = assay_cli("suggest", "empty.parquet", "--remote", server.url, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "empty.parquet has no rows" in proc.stderr and "Traceback" not in proc.stderr
    config = yaml.safe_load(proc.stdout)
    [table] = config["tables"]
    assert table["source"]["path"] == "empty.parquet"  # as given, not made absolute
    assert [r["type"] for r in table["rules"]] == ["schema"]  # no row_count {min: 0, max: 0}
    assert "# The table had no rows" in proc.stdout
    (tmp_path / "checks.yaml").write_text(proc.stdout)
    assert [r.message for r in assay.run(str(tmp_path / "checks.yaml"), spark=spark)
            if not r.passed] == []  # fmt: skip


@pytest.mark.spark
def test_a_relative_path_a_confirmed_key_and_one_range_per_number(spark, suggested, server):
    _, here, _ = suggested
    proc = assay_cli("suggest", "good.parquet", "--remote", server.url, cwd=here)
    assert proc.returncode == 0, proc.stderr
    [table] = yaml.safe_load(proc.stdout)["tables"]
    assert table["source"] == {"path": "good.parquet", "format": "parquet"}
    assert table["name"] == "good" and table["keys"] == ["id"]
    ranged = [r["column"] for r in table["rules"] if r["type"] == "range"]
    assert sorted(ranged) == ["amount", "id", "qty"]  # one range each, never two
    amount = next(r for r in table["rules"] if r["type"] == "range" and r["column"] == "amount")
    assert amount["min"] == 0  # Deequ's NonNegativeNumbersRule, folded into the one range
    saved = here / "relative.yaml"
    saved.write_text(proc.stdout)  # saved beside the data: the relative path reads
    assert [r.message for r in assay.run(str(saved), spark=spark) if not r.passed] == []


@pytest.mark.spark
def test_name_and_keys_options(suggested, server):
    _, here, _ = suggested
    proc = assay_cli("suggest", "good.parquet", "--name", "orders", "--keys", "kind, qty",
                     "--remote", server.url, cwd=here)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [table] = yaml.safe_load(proc.stdout)["tables"]
    assert (table["name"], table["keys"]) == ("orders", ["kind", "qty"])
    assert "--keys kind, qty: the profile did not confirm" in proc.stderr
    unknown = assay_cli("suggest", "good.parquet", "--keys", "id,nope", "--remote", server.url,
                        cwd=here)  # fmt: skip
    assert unknown.returncode == 2 and "--keys: no column nope" in unknown.stderr
    assert unknown.stdout == ""


def event(**given):
    base = {"column": "c", "type": "string", "family": "string", "row_count": 100, "count": 100,
            "nulls": 0, "nan": None, "distinct_approx": 3, "min": None, "max": None,
            "lengths": None, "parses": None, "formats": None, "top_values": None,
            "frequencies_complete": None}  # fmt: skip
    return {**base, **given}


def kinds(found) -> list[str]:
    return [s.rule["type"] for s in found]


def ranges(found) -> list:
    return [s for s in found if s.rule["type"] == "accepted_values"]


def test_deequs_completeness_rules():
    assert kinds(column_suggestions(event(), 100)) == ["not_null"]
    (s,) = column_suggestions(event(nulls=31, count=69), 100)
    # Deequ: completeness 0.69 over 100 records, Wald lower bound 0.59 (rounded down)
    assert wald_lower(0.69, 100) == Decimal("0.59") and s.rule["must_be"] == "<= 41%"
    assert column_suggestions(event(nulls=80, count=20), 100) == []  # completeness <= 0.2


def test_deequs_categorical_rules():
    top = [{"value": v, "count": n} for v, n in (("a", 50), ("b", 45), ("c", 5))]
    (s,) = ranges(column_suggestions(event(top_values=top, frequencies_complete=True), 100))
    assert s.rule == {"type": "accepted_values", "column": "c", "values": ["a", "b", "c"]}
    # 3 of 5 values seen once: 0.6 > 0.4, no range at all
    once = top + [{"value": v, "count": 1} for v in "xyz"]
    assert ranges(column_suggestions(event(top_values=once, frequencies_complete=True), 103)) == []
    # 1 of 4 seen once (0.25): the most frequent covering 90% of the rows, with a tolerance
    frac = [{"value": v, "count": n} for v, n in (("a", 60), ("b", 31), ("c", 8), ("d", 1))]
    (s,) = ranges(column_suggestions(event(top_values=frac, frequencies_complete=True), 100))
    # Deequ: the Wald lower bound of 0.91 over 100 records is 0.85: 15% may be outside
    assert s.rule["values"] == ["a", "b"] and s.rule["tolerance"] == "15%"


def test_deequs_unique_rule_needs_the_exact_check():
    columns = [event(column="k", distinct_approx=95), event(column="j", distinct_approx=90)]
    table = {"row_count": 100, "candidate_keys": [["k"], ["j"], ["j", "x"]]}
    found = key_suggestions(columns, table)
    # j is 10% off its row count by the sketch: Deequ would not suggest it alone
    assert [s.rule for s in found] == [{"type": "unique", "column": "k"},
                                       {"type": "unique", "columns": ["j", "x"]}]  # fmt: skip


def test_numbers_get_deequs_non_negative_rule_and_a_range_with_margin():
    found = column_suggestions(event(family="integral", min=3, max=13, count=100), 100)
    assert [s.rule for s in found if s.rule["type"] == "range"] == [
        {"type": "range", "column": "c", "min": 2, "max": 14},
    ]
    (near,) = [s for s in column_suggestions(event(family="integral", min=0, max=9), 100)
               if s.rule["type"] == "range"]  # fmt: skip
    assert near.rule["min"] == 0 and "NonNegativeNumbersRule" in near.evidence
    with_nan = column_suggestions(event(family="fractional", min=-1.5, max=2.5, nan=1), 100)
    assert "range" not in kinds(with_nan)  # NaN is above every bound
