"""The incremental benchmark must keep working: ``benchmarks/incremental.py`` on tiny data
(``--scale 0.01``: lineitem by ship month, the 100-rule suite), once, on the session's
server. Checks what it measures and that the incremental results equal the full scan's;
nothing here asserts anything about time.
"""

from __future__ import annotations

import json

import pytest

from tests.benchmarks.harness import benchmark_json, on_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def document(server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("incremental")
    args = ["--scale", "0.01", "--repeat", "1", "--warmup", "0", "--work", str(out / "work")]
    return benchmark_json("incremental.py", [*args, *on_server(server)], out / "incremental.json")


def test_the_runs_are_measured_and_agree_with_the_full_scan(document: dict) -> None:
    runs = document["runs"]
    assert set(runs) == {"full", "first", "one new", "nothing new"}
    assert document["partitions"] >= 30 and not document["errors"]
    assert document["differ"] == []  # every rule as the full scan judges it
    held = document["held_out"]["partition"]
    assert document["scanned_one_new"] == [json.dumps(["s", held], separators=(",", ":"))]
    assert runs["first"]["scanned"] == document["partitions"] - 1
    assert (runs["one new"]["scanned"], runs["nothing new"]["scanned"]) == (1, 0)
    for row in runs.values():
        assert row["seconds"] > 0 and row["sql_executions"] >= 1
    # the plans the client runs: the listing, the aggregate over the new month and the
    # detail plan (rules fail on it); with nothing new the listing alone; the listing is
    # not analysed on its own before (an analysis request as many as the full scan's)
    assert runs["one new"]["requests"]["execute"] == 3
    assert runs["nothing new"]["requests"]["execute"] == 1
    full, new = runs["full"]["requests"], runs["one new"]["requests"]
    assert new.get("analyze:schema") == full.get("analyze:schema")
    # the bytes the stages read, from the Spark UI: one partition's are a fraction of all
    assert runs["full"]["bytes_read"] > 0
    assert runs["one new"]["bytes_read"] < runs["full"]["bytes_read"]
    assert runs["nothing new"]["bytes_read"] < runs["one new"]["bytes_read"]
