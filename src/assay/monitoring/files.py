"""The file backend of the metrics store: JSON lines on the client's file system.

A run appends its rows in one write under an exclusive ``flock`` (two runs appending at
once both land, whole); history is read by one pass over the file, keeping the newest
values of the rules asked for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson

from assay.monitoring.records import NAMES, parse_time, utc_text
from assay.monitoring.series import History, Wanted, newest


def append(path: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Append ``rows`` to the file (created with its directory when missing)."""
    if not rows:
        return
    data = b"".join(orjson.dumps(_line(row)) + b"\n" for row in rows)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock


def _line(row: Mapping[str, Any]) -> dict[str, Any]:
    return {name: utc_text(row[name]) if name == "run_time" else row.get(name) for name in NAMES}


def rows(path: str) -> Iterator[dict[str, Any]]:
    """Every row of the file, in the order written (none when the file does not exist);
    a line that is not a store row (cut by a crash) is skipped."""
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as handle:
        for line in handle:
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(row, dict) and "run_time" in row and "value" in row:
                yield row


def read(path: str, wanted: Wanted) -> History:
    """The history of the rules ``wanted`` asks for (:func:`assay.monitoring.series.newest`)."""
    found = []
    keys = wanted.keys
    for row in rows(path):
        if (row.get("table"), row.get("rule"), row.get("measure")) not in keys:
            continue
        if not wanted.matches(
            row.get("tags") or {}, row.get("run_id"), parse_time(row["run_time"])
        ):
            continue
        found.append(row)
    return newest(found, wanted)
