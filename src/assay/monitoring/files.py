"""The file backend of the metrics store: JSON lines on the client's file system.

A run appends its rows in one write under an exclusive ``flock`` (two runs appending at
once both land, whole), all of them or none: on any failure (a full disk) the file is cut
back to its size before. History is read by one pass over the file, keeping the newest
values of the rules asked for; a line that is not a store row is skipped and counted
(:mod:`assay.monitoring.rows`). A state row's bytes are base64 text in its line; a line
written before the ``state`` column has none (read as null). An incremental table's
states are read by a pass of their own that parses only the lines holding a state row
(:func:`state_lines`).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson

from assay.monitoring.records import NAMES, STATE_MEASURE, parse_time, utc_text
from assay.monitoring.rows import NOT_JSON, Skipped, checked_row, tally
from assay.monitoring.series import History, Wanted, newest


class PartialAppend(OSError):
    """An append failed, and the part of it already written could not be cut off."""


def append(path: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Append ``rows`` to the file (created with its directory when missing), all or
    none: when writing fails, the file is truncated back to its size before and the
    error raised (:class:`PartialAppend` when that fails too). A file whose last line was
    cut short (by a crash) gets a newline first, so the rows start on a line of their own.
    """
    if not rows:
        return
    data = b"".join(orjson.dumps(_line(row)) + b"\n" for row in rows)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except BaseException:  # a full disk, an interrupt: nothing of the run stays
            _cut_back(fd, size)
            raise
    finally:
        os.close(fd)  # closing releases the lock


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _cut_back(fd: int, size: int) -> None:
    """Truncate the file back to ``size`` bytes, or raise :class:`PartialAppend`."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError as e:
        end = os.fstat(fd).st_size
        raise PartialAppend(
            e.errno,
            f"the append failed, and its {end - size} bytes already written could not be"
            f" cut off ({e.strerror or e}): they end the file as a partial run",
        ) from None


def _line(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row as its JSON line: ``run_time`` as ISO 8601 text, a ``state``'s bytes as
    base64 text (JSON has no bytes)."""
    line = {name: row.get(name) for name in NAMES}
    line["run_time"] = utc_text(row["run_time"])
    if line["state"] is not None:
        line["state"] = base64.b64encode(bytes(line["state"])).decode("ascii")
    return line


def scan(path: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Each line of the file (none when it does not exist) with its number: the row it
    holds (:func:`~assay.monitoring.rows.checked_row`) or why it is not one. Blank lines
    hold nothing and are passed over. The file is read under a shared ``flock``: an
    append under way (and cut back if it fails) is never read half-way."""
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                raw = orjson.loads(line)
            except orjson.JSONDecodeError:
                yield number, NOT_JSON
                continue
            yield number, checked_row(raw)


def rows(path: str) -> tuple[list[dict[str, Any]], Skipped]:
    """Every row of the file, in the order written, and the lines skipped."""
    found: list[dict[str, Any]] = []
    skips: list[tuple[int | None, str]] = []
    for number, row in scan(path):
        if isinstance(row, str):
            skips.append((number, row))
        else:
            found.append(row)
    return found, tally(skips)


def read(path: str, wanted: Wanted) -> tuple[History, Skipped]:
    """The history of the rules ``wanted`` asks for (:func:`assay.monitoring.series.newest`),
    and the lines skipped."""
    found = []
    skips: list[tuple[int | None, str]] = []
    keys = wanted.keys
    for number, row in scan(path):
        if isinstance(row, str):
            skips.append((number, row))
        elif (row["table"], row["rule"], row["measure"]) in keys and wanted.matches(
            row["tags"], row.get("run_id"), row["run_time"]
        ):
            found.append(row)
    return newest(found, wanted), tally(skips)


_STATE_LINE = re.compile(rb'"measure": ?"state"')
"""What a state row's line holds as assay writes it (or a JSON writer with spaces)."""


def state_lines(path: str, tables: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The state rows of ``tables`` in the file, as read from their lines (``run_time``
    an aware time, ``tags`` a dict, ``state`` base64 text as written): every other line
    passed over without parsing it, a state line that is not a store row skipped. Under
    a shared ``flock``, as :func:`scan` reads."""
    names = set(tables)
    if not names:
        return
    # one search per line for each test, in C: a generator of `in` tests per line cost
    # a third of the read (8,384 lines: 0.047 of 0.142 CPU s)
    named = re.compile(b"|".join(re.escape(orjson.dumps(name)) for name in sorted(names)))
    assert STATE_MEASURE == "state"  # the pattern above
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
        for line in handle:
            if _STATE_LINE.search(line) is None or named.search(line) is None:
                continue
            row = _state_row(line, names)
            if row is not None:
                yield row


def _state_row(line: bytes, tables: set[str]) -> dict[str, Any] | None:
    """A state line's row, or None when it is not one of ``tables``' state rows."""
    try:
        raw = orjson.loads(line)
        if raw.get("measure") != STATE_MEASURE or raw.get("table") not in tables:
            return None
        tags = raw.get("tags") or {}
        state, value = raw.get("state"), float(raw["value"])
        if not isinstance(tags, dict) or not isinstance(state, str):
            return None
        return {"table": raw["table"], "rule": str(raw["rule"]), "columns": str(raw["columns"]),
                "value": value, "run_id": raw.get("run_id"), "tags": tags, "state": state,
                "run_time": parse_time(raw["run_time"])}  # fmt: skip
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
        return None
