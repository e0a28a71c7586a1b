"""The file backend of the metrics store: runs appending at once lose no row and cut none,
and the history read back is the newest values of the rules asked for."""

from __future__ import annotations

import datetime as dt
import multiprocessing

from assay.monitoring import files
from assay.monitoring.series import Wanted

UTC = dt.timezone.utc
WRITERS, RUNS, ROWS = 6, 20, 40


def _rows(writer: int, run: int) -> list[dict]:
    at = dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(minutes=run * WRITERS + writer)
    return [
        {"run_time": at, "table": f"t{writer}", "rule": f"rule {k} " + "x" * 200,
         "rule_type": "avg", "columns": "a", "measure": "metric_value", "value": float(run),
         "severity": "pass", "server": None, "tags": {"w": str(writer)},
         "run_id": f"w{writer}r{run}"}
        for k in range(ROWS)
    ]  # fmt: skip


def _append_runs(path: str, writer: int) -> None:
    for run in range(RUNS):
        files.append(path, _rows(writer, run))


def test_runs_appending_at_once_lose_no_row_and_cut_none(tmp_path):
    path = str(tmp_path / "deep" / "metrics.jsonl")  # the directory is created
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append_runs, args=(path, w)) for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0] * WRITERS
    with open(path, "rb") as handle:
        lines = handle.read().splitlines()
    stored, skipped = files.rows(path)
    assert not skipped
    assert len(lines) == len(stored) == WRITERS * RUNS * ROWS  # every line whole
    runs = {}
    for row in stored:
        runs.setdefault(row["run_id"], []).append(row)
    assert len(runs) == WRITERS * RUNS
    # one run's rows are one write: contiguous in the file
    order = [row["run_id"] for row in stored]
    assert all(order[i * ROWS : (i + 1) * ROWS] == [order[i * ROWS]] * ROWS
               for i in range(WRITERS * RUNS))  # fmt: skip


def test_the_history_read_back(tmp_path):
    path = str(tmp_path / "m.jsonl")
    for run in range(5):
        files.append(path, _rows(1, run))
    with open(path, "ab") as handle:
        handle.write(b'{"run_time": "2024-01-0')  # a line cut by a crash is skipped
    key = ("t1", "rule 3 " + "x" * 200, "metric_value")
    before = dt.datetime(2024, 1, 1, tzinfo=UTC) + dt.timedelta(minutes=4 * WRITERS)
    history, skipped = files.read(path, Wanted({key: 2}, before, "w1r9", (("w", "1"),)))
    assert [p.value for p in history[key[:2]]] == [2.0, 3.0]  # run 4 is not before
    assert skipped.count == 1
    assert files.read(path, Wanted({key: 2}, before, "x", (("w", "2"),)))[0] == {}
    assert files.read(str(tmp_path / "none.jsonl"), Wanted({key: 2}, before, "x"))[0] == {}
