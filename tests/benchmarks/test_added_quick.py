"""The rule-kind benchmark must keep working: ``benchmarks/added.py`` on tiny data, the
drift cases (against a referenced source, and against the metrics store's history), and
``--plans`` (the KLL drift plans side by side, their answers compared).

Runs the harness once (a subprocess on the session's Spark server) on the 10-rule base
and checks the JSON it writes and the history it stored. Nothing here asserts anything
about time.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.benchmarks.harness import benchmark_json, on_server

HISTORY = "10 KLL drift rules against history"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def document(server, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("added")
    args = ["--scale", "0.01", "--base", "10", "--repeat", "1", "--only", "10 drift rules,KLL"]
    return benchmark_json(
        "added.py", [*args, *on_server(server, ui=False)], out / "added.json"
    ), out


def test_both_drift_cases_ran(document: tuple[dict, Path]) -> None:
    found, _ = document
    assert found["base_rules"] == 10
    assert set(found["cases"]) == {"10 drift rules", HISTORY}
    for row in found["cases"].values():
        assert isinstance(row["added"], float)
        assert len(row["with base"]["runs"]) == 1 and row["alone"]["median"] > 0
    assert "base with store" in found["cases"][HISTORY]
    assert "base with store" not in found["cases"]["10 drift rules"]


def test_history_recorded_then_judged_against(document: tuple[dict, Path]) -> None:
    """The warm-up stored the sketches; the timed run read them (and stored its own)."""
    _, out = document
    slug = "".join(ch if ch.isalnum() else "-" for ch in HISTORY)
    for variant in ("with", "alone"):
        rows = [
            orjson.loads(line)
            for line in (out / f"added-{slug}-{variant}.jsonl").read_bytes().splitlines()
        ]
        sketches = [r for r in rows if r["measure"] == "kll_double"]
        assert len(sketches) == 2 * 8, variant  # 8 columns' sketches, 2 runs
        assert len({r["run_id"] for r in sketches}) == 2


def test_the_kll_plans_side_by_side(server, tmp_path: Path) -> None:
    """``--plans``: every form ran; the counts beside and the plain form answer alike."""
    args = ["--plans", "--scale", "0.01", "--base", "10", "--repeat", "1"]
    found = benchmark_json("added.py", [*args, *on_server(server, ui=False)], tmp_path / "p.json")
    assert found["answers_equal"] is True and found["outputs"] > 40
    assert set(found["plans"]) == {
        "base", "base + KLL, counts beside", "base + KLL, plain", "base + the counts beside",
        "sketches' branch, the sample alone", "sketches' branch, plain",
    }  # fmt: skip
    assert all(len(r["wall"]) == 1 for r in found["plans"].values())
