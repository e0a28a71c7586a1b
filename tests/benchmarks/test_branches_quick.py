"""The per-branch profile must keep working: ``benchmarks/branches.py`` on tiny data (the
10-rule suite at ``--scale 0.01``), once, on the session's server, with the JVM's CPU
time and its Flight Recorder profile when the JDK's tools are there. Nothing here
asserts anything about time.
"""

from __future__ import annotations

import shutil

import pytest

from tests.benchmarks.harness import benchmark_json, on_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def document(server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("branches") / "branches.json"
    args = ["--scale", "0.01", "--suite", "10", "--repeat", "1", "--warmup", "0",
            "--jfr-runs", "1", "--top", "5"]  # fmt: skip
    return benchmark_json("branches.py", [*args, *on_server(server)], out)


def test_every_branch_is_measured_alone_after_the_whole_plan(document: dict) -> None:
    parts = document["parts"]
    kinds = [p["kind"] for p in parts]
    assert kinds[:2] == ["floor", "whole"] and len(kinds) >= 3
    whole, branches = parts[1], parts[2:]
    # every rule the whole plan answers is answered by one of its branches, and the
    # columns it reads are those its branches read
    assert sorted({i for b in branches for i in b["rules"]}) == whole["rules"]
    assert sorted({c for b in branches for c in b["columns"]}) == whole["columns"]
    assert any(b["kind"] == "ScanAggregate" and b["outputs"] for b in branches)
    for part in parts:
        assert part["wall"]["min"] > 0 and len(part["wall"]["runs"]) == 1
        assert part["jvm_cpu"] is not None and part["jvm_cpu"]["min"] >= 0


@pytest.mark.skipif(not (shutil.which("jcmd") and shutil.which("jfr")), reason="no JDK tools")
def test_each_part_has_the_jvms_profile(document: dict) -> None:
    assert document["jfr"] is True
    for part in document["parts"]:
        profile = part["jfr"]
        assert profile["threads"], part["name"]  # the recording held samples
        if profile["samples"]:  # tiny data: a task may end between two samples
            assert all(share <= 1 for _, _, share in profile["self"])
    assert sum(p["jfr"]["samples"] for p in document["parts"]) > 0


def test_forms_side_by_side_answer_alike(server, tmp_path) -> None:
    """``--expr`` and ``--agg`` forms of one measure, side by side: each with its answer."""
    out = tmp_path / "forms.json"
    args = ["--scale", "0.01", "--repeat", "1", "--no-jfr",
            "--expr", "l_quantity > 25", "--expr", "NOT (l_quantity <= 25)",
            "--agg", "sum(l_quantity);;count_if(l_quantity > 25)",
            "--agg", "sum(cast(l_quantity as decimal(38,2)));;count(l_quantity)"]  # fmt: skip
    rows = benchmark_json("branches.py", [*args, *on_server(server)], out)["expressions"]
    assert [r["expr"] for r in rows][:2] == ["l_quantity > 25", "NOT (l_quantity <= 25)"]
    assert rows[0]["count"] == rows[1]["count"] == int(rows[2]["count"][1])
    assert rows[2]["count"][0] == rows[3]["count"][0]  # the same sum, as text
    assert all(len(r["jvm_cpu"]) == 1 for r in rows)


def test_the_whole_plan_beside_its_parts_by_kind_of_thread(server, tmp_path) -> None:
    """``--fused``: the whole plan and its branches one after another, alternated, with the
    server JVM's CPU by kind of thread (tasks, collector, JIT, the rest)."""
    out = tmp_path / "fused.json"
    args = ["--scale", "0.01", "--suite", "10", "--repeat", "1", "--warmup", "0", "--no-jfr",
            "--fused"]  # fmt: skip
    fused = benchmark_json("branches.py", [*args, *on_server(server)], out)["fused"]
    assert list(fused) == ["fused", "apart"]
    for runs in fused.values():
        assert len(runs["wall"]) == 1
        assert {"jvm_cpu", "tasks", "gc", "jit", "other"} <= set(runs)
        assert runs["tasks"][0] > 0  # the task threads ran the plan


def test_whole_runs_count_the_classes_spark_compiled(server, tmp_path) -> None:
    """``--runs``: the suite run whole, each run in a session of its own, with the classes
    the server compiled for it (the UI's metrics servlet) and the JVM's CPU by thread."""
    args = ["--scale", "0.01", "--suite", "10", "--runs", "2", "--new-sessions"]
    document = benchmark_json("branches.py", [*args, *on_server(server)], tmp_path / "runs.json")
    runs = document["runs"]["runs"]
    assert document["runs"]["new_sessions"] is True and len(runs) == 2
    for run in runs:
        assert run["wall"] > 0 and run["exit_code"] == 1  # the 10-rule suite has a failing rule
        assert run["jvm_cpu"] >= 0 and run["tasks"] >= 0
    # the first run of a fresh suite compiles its plans' classes on any server
    assert runs[0]["classes_compiled"] > 0
