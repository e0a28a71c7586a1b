"""Compare entries and spark-data-test jobs as configs (no Spark): IR, errors, explain."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from assay.comparison.render import render_comparisons
from assay.config import load_suite
from assay.errors import ConfigErrors


def load(tmp_path, text: str, name: str = "c.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return load_suite([path])


def test_native_entry(tmp_path):
    suite = load(
        tmp_path,
        """
vars: {db: sales}
compare:
  - name: orders
    source: {table: $db.orders}
    target: {path: copy.parquet}
    keys: [id]
    select_cols: [id, price, qty]
    drop_cols: [qty]
    tolerance: {absolute: 0.01, relative: 0.001}
    column_tolerance: {price: 0.5}
    checks:
      mismatch_percent(price): "< 0.1%"
      matched_percent: {must_be: "> 99.9%", warn: "= 100%"}
      duplicate_keys(target): "= 0"
""",
    )
    (c,) = suite.comparisons
    assert c.source.table == "sales.orders" and c.target.paths == (str(tmp_path / "copy.parquet"),)
    assert c.tolerance.relative == Decimal("0.001")
    assert c.tolerance_of("PRICE").absolute == Decimal("0.5")
    assert [ch.label for ch in c.checks] == [
        "mismatch_percent(price)",
        "matched_percent",
        "duplicate_keys(target)",
    ]
    assert c.checks[1].warn.text == "= 100%"
    assert suite.tables == ()


@pytest.mark.parametrize(
    ("checks", "message"),
    [
        ('{mismatchd: "= 0"}', "unknown metric 'mismatchd' (did you mean 'mismatched'?)"),
        ('{duplicate_keys: "= 0"}', "metric 'duplicate_keys' needs a side"),
        ('{duplicate_keys(both): "= 0"}', "expected source or target, got 'both'"),
        ('{matched(x): "= 0"}', "metric 'matched' takes no argument"),
        ('{matched: "betwen 1 and 2"}', "invalid threshold"),
    ],
)
def test_check_errors(tmp_path, checks, message):
    text = f"compare:\n  - {{source: {{table: a}}, target: {{table: b}}, keys: [id], checks: {checks}}}\n"
    with pytest.raises(ConfigErrors) as caught:
        load(tmp_path, text)
    assert message in str(caught.value)
    assert "compare[0].checks" in str(caught.value)


def test_unknown_key_and_missing_target(tmp_path):
    with pytest.raises(ConfigErrors) as caught:
        load(tmp_path, "compare:\n  - {source: {table: a}, key: [id]}\n")
    text = str(caught.value)
    assert "unknown key 'key' (did you mean 'keys'?)" in text


def test_spark_data_test_job(tmp_path):
    config = {
        "job_name": "job",
        "dataset_configs": [
            {
                "params": {
                    "dataset_name": "t1",
                    "primary_keys": ["id"],
                    "test_params": {"difference_margin": 0.5},
                    "select_cols": ["*"],
                },
                "source_config": {"path": "db.src", "file_format": "table"},
                "target_config": {
                    "path": "t.csv",
                    "file_format": "csv",
                    "spark_options": {"header": True},
                },
            }
        ],
        "output_config": {"output_dir": "out", "output_file_format": "json", "no_of_partitions": 1},
    }
    suite = load(tmp_path, json.dumps(config), "job.json")
    (c,) = suite.comparisons
    assert suite.dialects == ("spark-data-test",)
    assert c.semantics == "spark-data-test" and c.select_cols is None
    assert c.source.table == "db.src" and c.target.options == (("header", "true"),)
    assert c.tolerance.absolute == Decimal("0.5")
    assert c.reports.base == f"{tmp_path}/out/job" and c.reports.partitions == 1
    text = render_comparisons(suite.comparisons)
    assert "full outer join on s.id = t.id" in text and "writes (json under" in text


def test_both_tolerance_spellings_is_an_error(tmp_path):
    config = {
        "job_name": "j",
        "dataset_configs": [
            {
                "params": {
                    "dataset_name": "t",
                    "primary_keys": ["id"],
                    "test_params": {"difference_margin": 1, "difference_tolerance": 1},
                },
                "source_config": {"path": "a"},
                "target_config": {"path": "b"},
            }
        ],
        "output_config": {"output_dir": "o"},
    }
    with pytest.raises(ConfigErrors, match="not both"):
        load(tmp_path, json.dumps(config), "j.json")


def test_one_job_needs_as_many_keys_in_every_dataset(tmp_path):
    """Its row report unions the datasets by position: spark-data-test fails at the write."""

    def dataset(name, keys):
        return {
            "params": {"dataset_name": name, "primary_keys": keys},
            "source_config": {"path": "a"},
            "target_config": {"path": "b"},
        }

    config = {
        "job_name": "j",
        "dataset_configs": [dataset("one", ["id"]), dataset("two", ["k1", "k2"])],
        "output_config": {"output_dir": "o"},
    }
    with pytest.raises(ConfigErrors, match=r"dataset_configs\[1\].*dataset two has 2 primary"):
        load(tmp_path, json.dumps(config), "j.json")


def test_the_docs_example_loads_and_fits_the_schema(tmp_path):
    import re

    import jsonschema
    import yaml

    from tests.conftest import ROOT

    text = (ROOT / "docs" / "compare.md").read_text()
    (block,) = re.findall(r"```yaml\n(.*?)```", text, re.S)
    schema = json.loads((ROOT / "src" / "assay" / "schema" / "native.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(block), schema)
    (c,) = load(tmp_path, block).comparisons
    assert c.name == "orders_copy" and len(c.checks) == 4
