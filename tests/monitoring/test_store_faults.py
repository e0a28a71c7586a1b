"""The file store under faults: an append on a file system that fills up is all or nothing
(on a real tmpfs of 64 KiB, and with ENOSPC injected at the write call), a file whose last
line was cut short gets the next rows on a fresh line, and lines that are not rows (cut
short, binary junk, no value, a value or a time that is not one) are skipped and counted
by the run's history read and by ``assay history``'s alike."""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import threading
import uuid
from pathlib import Path

import orjson
import pytest

from assay.executor.metrics import stored
from assay.ir.monitoring import MetricsStore
from assay.monitoring import files
from assay.monitoring.rows import (
    BAD_RUN_TIME,
    BAD_VALUE,
    NO_KEY,
    NO_VALUE,
    NOT_AN_OBJECT,
    NOT_JSON,
)
from assay.monitoring.series import Selection, Wanted
from tests.monitoring.filling import fill, small_filesystem

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, 6, tzinfo=UTC)


def run_rows(run: int, count: int = 40) -> list[dict]:
    """One run's rows: ``count`` values of rule ``r{k}``, value ``run``."""
    at = T0 + dt.timedelta(days=run)
    return [
        {"run_time": at, "table": "orders", "rule": f"r{k} " + "x" * 100, "rule_type": "avg",
         "columns": "a", "measure": "metric_value", "value": float(run), "severity": "pass",
         "server": None, "tags": {}, "run_id": f"run{run}"}
        for k in range(count)
    ]  # fmt: skip


def test_a_full_disk_leaves_the_file_as_it_was(tmp_path):
    with small_filesystem(tmp_path) as fs:
        path = str(fs / "metrics.jsonl")
        files.append(path, run_rows(1, count=3))
        before = Path(path).read_bytes()
        filler = fill(fs)
        with pytest.raises(OSError) as failed:
            files.append(path, run_rows(2))  # ~6 KB: part of it fits in the file's last page
        assert failed.value.errno == errno.ENOSPC
        assert Path(path).read_bytes() == before  # no half run, no half row
        filler.unlink()
        files.append(path, run_rows(3))
        found, skipped = files.rows(path)
    assert [r["run_id"] for r in found] == ["run1"] * 3 + ["run3"] * 40
    assert not skipped


def test_an_injected_enospc_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    """Where no file system can be mounted: the write call fails half-way, as on a full
    disk (the first part of the rows written, then ENOSPC)."""
    path = str(tmp_path / "metrics.jsonl")
    files.append(path, run_rows(1, count=3))
    before = Path(path).read_bytes()
    real_write = os.write

    def half_then_full(fd: int, data) -> int:
        if len(data) > 100:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "write", half_then_full)
    with pytest.raises(OSError) as failed:
        files.append(path, run_rows(2))
    monkeypatch.undo()
    assert failed.value.errno == errno.ENOSPC
    assert Path(path).read_bytes() == before


def test_an_interrupted_append_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = str(tmp_path / "metrics.jsonl")
    files.append(path, run_rows(1, count=3))
    before = Path(path).read_bytes()
    real_write = os.write

    def then_interrupted(fd: int, data) -> int:
        real_write(fd, bytes(data[:10]))
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "write", then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.append(path, run_rows(2))
    monkeypatch.undo()
    assert Path(path).read_bytes() == before


def test_rows_after_a_line_cut_short_start_on_a_fresh_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    files.append(str(path), run_rows(1, count=2))
    with open(path, "ab") as handle:
        handle.write(b'{"run_time": "2024-01-0')  # a crash, no newline
    files.append(str(path), run_rows(2, count=2))
    found, skipped = files.rows(str(path))
    assert [r["run_id"] for r in found] == ["run1", "run1", "run2", "run2"]
    assert skipped.to_dict() == {"count": 1, "reasons": {NOT_JSON: 1}, "lines": [3]}


def _store_with_bad_lines(path: Path) -> None:
    """Two good runs of rule r0, and every kind of line that is not a row."""
    good = [orjson.dumps(files._line(r)) for r in run_rows(1, 1) + run_rows(2, 1)]
    bad = [
        b"\x00\x9f\xffbinary junk\x01",
        orjson.dumps({**files._line(run_rows(3, 1)[0]), "value": "abc"}),
        orjson.dumps({**files._line(run_rows(4, 1)[0]), "run_time": "not a time"}),
        orjson.dumps({k: v for k, v in files._line(run_rows(5, 1)[0]).items() if k != "value"}),
        orjson.dumps({**files._line(run_rows(6, 1)[0]), "value": None}),
        orjson.dumps({**files._line(run_rows(7, 1)[0]), "rule": None}),
        b"[1, 2, 3]",
        b"",  # a blank line holds nothing: passed over, not counted
    ]
    cut = orjson.dumps(files._line(run_rows(8, 1)[0]))[:40]
    path.write_bytes(b"\n".join([good[0], *bad, good[1], cut]))


EXPECTED_SKIPS = {
    "count": 8,
    "reasons": {NOT_JSON: 2, BAD_VALUE: 1, BAD_RUN_TIME: 1, NO_VALUE: 2, NO_KEY: 1,
                NOT_AN_OBJECT: 1},
    "lines": [2, 3, 4, 5, 6, 7, 8, 11],
}  # fmt: skip


def test_a_runs_history_skips_and_counts_lines_that_are_not_rows(tmp_path):
    path = tmp_path / "metrics.jsonl"
    _store_with_bad_lines(path)
    key = ("orders", "r0 " + "x" * 100, "metric_value")
    history, skipped = files.read(str(path), Wanted({key: 10}, T0 + dt.timedelta(days=30), "x"))
    assert [p.value for p in history[key[:2]]] == [1.0, 2.0]
    assert skipped.to_dict() == EXPECTED_SKIPS
    assert skipped.sentence("file m.jsonl").startswith(
        "metrics store file m.jsonl: 8 lines skipped, not store rows: 2 not JSON"
    )
    assert skipped.sentence("x").endswith("(lines 2, 3, 4, 5, 6, 7, 8, 11)")


def test_assay_history_skips_the_same_lines(tmp_path):
    path = tmp_path / "metrics.jsonl"
    _store_with_bad_lines(path)
    found, skipped = stored(None, MetricsStore("file", str(path)), Selection())
    assert [r["value"] for r in found] == [1.0, 2.0]
    assert skipped.to_dict() == EXPECTED_SKIPS


def test_a_time_beyond_what_utc_holds_is_not_a_time(tmp_path):
    path = tmp_path / "metrics.jsonl"
    row = {**files._line(run_rows(1, 1)[0]), "run_time": "0001-01-01T00:00:00+05:00"}
    path.write_bytes(orjson.dumps(row) + b"\n")
    found, skipped = files.rows(str(path))
    assert found == [] and dict(skipped.reasons) == {BAD_RUN_TIME: 1}


def test_a_missing_file_is_an_empty_store(tmp_path):
    path = str(tmp_path / f"{uuid.uuid4().hex}.jsonl")
    assert files.rows(path) == ([], files.rows(path)[1]) and not files.rows(path)[1]


def test_a_read_waits_for_an_append_under_way(tmp_path):
    """An append holds the file's lock until it is whole or cut back: a history read
    meanwhile waits for it, and never sees a run half-way."""
    path = tmp_path / "metrics.jsonl"
    files.append(str(path), run_rows(1, count=2))
    read: list[int] = []
    with open(path, "ab") as appending:
        fcntl.flock(appending.fileno(), fcntl.LOCK_EX)
        appending.write(b'{"half a row')  # what a failing append has written so far
        appending.flush()
        reader = threading.Thread(target=lambda: read.append(len(files.rows(str(path))[0])))
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and read == []  # waiting for the lock
        appending.truncate(path.stat().st_size - len(b'{"half a row'))  # cut back
        fcntl.flock(appending.fileno(), fcntl.LOCK_UN)
    reader.join(10)
    assert read == [2]
