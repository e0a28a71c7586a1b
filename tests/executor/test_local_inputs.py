"""What a run reads from this machine's files, known before a server starts, and the JVM
chosen for it: a short run's compiles with C1 only (benchmarks/README.md, "Start-up")."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config import load_suite
from assay.executor.local_inputs import local_bytes
from assay.executor.session.jvm import C1_ONLY, SHORT_RUN_BYTES, jit_options
from assay.ir.sources import CatalogSource, DataFrameSource, PathSource, SqlSource

EXAMPLES = Path(__file__).parents[2] / "examples"


def _files(root: Path, sizes: dict[str, int]) -> None:
    for name, size in sizes.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * size)


def test_files_directories_and_globs_are_summed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _files(tmp_path, {"a.csv": 10, "t/part-0.parquet": 100, "t/k=1/part-1.parquet": 1000,
                      "t/_SUCCESS": 0, "g/x1.json": 7, "g/x2.json": 8, "g/y.json": 50})  # fmt: skip
    parquet = PathSource("parquet", (str(tmp_path / "t"),))
    assert local_bytes([PathSource("csv", (str(tmp_path / "a.csv"),))], 10**6) == 10
    assert local_bytes([parquet], 10**6) == 1100
    assert local_bytes([PathSource("json", (str(tmp_path / "g/x*.json"),))], 10**6) == 15
    assert local_bytes([PathSource("json", (f"file://{tmp_path}/g/y.json",))], 10**6) == 50
    assert local_bytes([PathSource("json", (f"file:{tmp_path}/g/y.json",))], 10**6) == 50
    # two sources, one read twice: what the run reads, counted per source
    both = [parquet, PathSource("csv", (str(tmp_path / "a.csv"), str(tmp_path / "a.csv")))]
    assert local_bytes(both, 10**6) == 1120
    # a relative path is the working directory's, as the server resolves it
    monkeypatch.chdir(tmp_path)
    assert local_bytes([PathSource("csv", ("a.csv",))], 10**6) == 10
    # a caller's DataFrame lives in the caller's session: it adds nothing
    assert local_bytes([DataFrameSource("df"), parquet], 10**6) == 1100


def test_the_count_stops_past_the_cap(tmp_path: Path) -> None:
    _files(tmp_path, {f"t/part-{i}": 100 for i in range(50)})
    found = local_bytes([PathSource("parquet", (str(tmp_path / "t"),))], 250)
    assert found is not None and 250 < found <= 400
    assert local_bytes([PathSource("parquet", (str(tmp_path / "t"),))], 10**6) == 5000


@pytest.mark.parametrize(
    "source",
    [
        CatalogSource("db.t"),
        SqlSource("SELECT 1"),
        PathSource("parquet", ("s3a://bucket/t",)),
        PathSource("parquet", ("hdfs:///t",)),
        PathSource("parquet", ("file://otherhost/t",)),
        PathSource("parquet", ("/data/{a,b}",)),  # Hadoop's brace glob
        PathSource("parquet", ("/no/such/path",)),
        PathSource("parquet", ("/no/such/*.parquet",)),
        PathSource("jdbc"),  # no path at all
    ],
)
def test_a_size_not_known_here_is_none(source, tmp_path: Path) -> None:
    _files(tmp_path, {"a.csv": 10})
    assert local_bytes([PathSource("csv", (str(tmp_path / "a.csv"),)), source], 10**6) is None


def test_a_suite_counts_its_tables_references_and_comparisons(tmp_path: Path) -> None:
    _files(tmp_path, {"orders.csv": 1000, "customers.csv": 300, "old.csv": 20, "new.csv": 40})
    config = tmp_path / "suite.yaml"
    config.write_text(
        """
version: 1
tables:
  - name: orders
    source: {path: orders.csv, format: csv, options: {header: "true"}}
    rules:
      - type: foreign_key
        columns: [customer_id]
        references: {path: customers.csv, format: csv, columns: [id]}
  - name: orders_again
    source: {path: orders.csv, format: csv, options: {header: "true"}}
    rules:
      - {type: row_count, min: 1}
compare:
  - name: snapshots
    source: {path: old.csv, format: csv}
    target: {path: new.csv, format: csv}
    keys: [id]
"""
    )
    suite = load_suite([str(config)])
    assert len(suite.sources()) == 4  # orders.csv once
    assert local_bytes(suite.sources(), 10**6) == 1360


def test_the_bundled_example_is_a_short_run() -> None:
    suite = load_suite([str(EXAMPLES / "orders.yaml")])
    size = local_bytes(suite.sources(), SHORT_RUN_BYTES)
    assert size is not None and 0 < size <= SHORT_RUN_BYTES
    assert jit_options(size, "") == list(C1_ONLY)


def test_jit_options_pick_c1_only_for_a_known_short_run() -> None:
    # C1 alone would also shrink the code cache to 48 MB, which Spark's generated classes
    # fill ("Out of space in CodeCache for adapters" kills the server): kept at 240 MB
    assert jit_options(0, "") == ["-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m"]
    assert jit_options(SHORT_RUN_BYTES, "-Xss4m") == list(C1_ONLY)
    assert jit_options(1, "-XX:ReservedCodeCacheSize=512m") == ["-XX:TieredStopAtLevel=1"]
    assert jit_options(SHORT_RUN_BYTES + 1, "") == []
    assert jit_options(None, "") == []
    # the user's own JIT choice wins
    assert jit_options(10, "-XX:TieredStopAtLevel=4") == []
    assert jit_options(10, "-XX:-TieredCompilation") == []
