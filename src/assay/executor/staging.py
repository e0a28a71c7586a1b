"""All of one unit's writes land, or none does: a table's outputs, a spark-data-test job's
reports.

Spark Connect gives the client no filesystem API, and Spark writes each output in its own
plan, so a unit whose third write fails would leave the first two behind. Instead, each
output bound for a path the client can reach (the server sees the client's filesystem:
an embedded server, or a server on this machine; probed once per session with one
analysis RPC, no scan) is written to a hidden sibling of its target
(``.<name>.assay-staging-<id>``: Spark's readers skip names starting with ``.``), and
only once every write of the unit has succeeded does :meth:`Staging.commit` move them
into place, a rename each:

- ``overwrite``: the old target is moved aside first, removed once every output is in
  place, and moved back if a later move fails;
- ``append``: the new data files are moved into the target (a new target: renamed);
- ``ignore``: an existing target is kept and the staged rows dropped;
- Spark's default (``error``): an existing target fails the unit before anything moves.

:meth:`Staging.abort` removes what was staged. Outputs the client cannot move (catalog
tables, remote URIs such as ``s3://``, ``delta`` whose log a file move would break) are
written in place, in order: a failure after them leaves them written, and the table's
``outputs`` list says which (docs/outputs.md, "Nothing half-way").
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from pyspark.sql.connect.session import SparkSession

from assay.errors import SparkFailure

MOVABLE_FORMATS = frozenset({"parquet", "orc", "json", "csv", "text", "avro"})
"""Formats whose output is plain data files, safe to move as a directory or file by file."""

_SHARED: dict[str, bool] = {}
_SHARED_LOCK = threading.Lock()


def shares_filesystem(spark: SparkSession) -> bool:
    """Whether the server sees the client's filesystem: a directory the client makes is
    one the server can list (one analysis RPC per session, remembered)."""
    key = str(getattr(spark, "session_id", id(spark)))
    with _SHARED_LOCK:
        if key in _SHARED:
            return _SHARED[key]
    probe = tempfile.mkdtemp(prefix="assay-probe-")
    try:
        _ = spark.read.format("binaryFile").load(probe).schema
        shared = True
    except Exception:  # noqa: BLE001 - not seen (another host, or another default FS)
        shared = False
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    with _SHARED_LOCK:
        _SHARED[key] = shared
    return shared


def local_path(target: str) -> Path | None:
    """``target`` as a path of this machine: absolute, or a ``file:`` URI; else None."""
    parsed = urlparse(target)
    if parsed.scheme == "file":
        return Path(parsed.path)
    if parsed.scheme and len(parsed.scheme) > 1:  # a URI (s3a://, hdfs://); not C:\
        return None
    return Path(target) if os.path.isabs(target) else None


@dataclass
class _Staged:
    target: Path
    staged: Path
    mode: str
    made: Path | None
    """The highest directory above ``staged`` that did not exist when it was placed (Spark
    makes it): removed again, when empty, if the unit aborts."""


class Staging:
    """The writes of one unit: :meth:`place` says where each output is written (its
    staging sibling, or its target when it cannot be moved), :meth:`commit` moves the
    staged ones into place, :meth:`abort` removes them (as leaving a ``with`` block on
    an exception does)."""

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark
        self._staged: list[_Staged] = []
        self._id = uuid.uuid4().hex[:12]

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        if error is not None:
            self.abort()

    def place(self, target: str, fmt: str, mode: str | None, is_table: bool = False) -> str:
        """Where to write an output bound for ``target`` (format ``fmt``, save ``mode``):
        a fresh staging path, written with Spark's default mode, when it will be moved
        into place at commit; else ``target`` itself, written as configured."""
        path = None if is_table or fmt.lower() not in MOVABLE_FORMATS else local_path(target)
        if path is None or not shares_filesystem(self._spark):
            return target
        staged = path.with_name(f".{path.name}.assay-staging-{self._id}-{len(self._staged)}")
        missing = [d for d in staged.parents if not d.exists()]
        made = missing[-1] if missing else None
        self._staged.append(_Staged(path, staged, (mode or "error").lower(), made))
        return str(staged)

    def staged(self, place: str) -> bool:
        """Whether ``place`` (from :meth:`place`) is a staging path."""
        return any(str(s.staged) == place for s in self._staged)

    def commit(self) -> None:
        """Move every staged output into place, or none (a failure puts back what moved).

        Raises:
            SparkFailure: a target that must not exist does, or a move failed.
        """
        for s in self._staged:
            if s.mode in ("error", "errorifexists") and s.target.exists():
                raise SparkFailure(
                    f"cannot write to {s.target}: it already exists (save mode error)",
                    hint="set mode: overwrite or append, or remove it",
                )
        undo: list[tuple[Path, Path]] = []  # (moved to, moved from), latest last
        aside: list[Path] = []
        try:
            for s in self._staged:
                if not s.staged.exists():
                    continue  # never written: the unit's writes skipped it
                if s.target.exists() and s.mode == "ignore":
                    continue
                if s.target.exists() and s.mode == "append":
                    undo += _move_files(s.staged, s.target)
                    continue
                if s.target.exists():  # overwrite
                    old = s.target.with_name(f".{s.target.name}.assay-old-{self._id}")
                    os.replace(s.target, old)
                    undo.append((old, s.target))
                    aside.append(old)
                s.target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(s.staged, s.target)
                undo.append((s.target, s.staged))
        except OSError as exc:
            for moved_to, moved_from in reversed(undo):
                with contextlib.suppress(OSError):
                    os.replace(moved_to, moved_from)
            self.abort()
            raise SparkFailure(
                f"cannot move an output into place: {exc.strerror or exc} ({exc.filename or ''})",
            ) from None
        for s in self._staged:
            _remove(s.staged)  # what a commit left: an ignored output, emptied appends
        for old in aside:
            _remove(old)

    def abort(self) -> None:
        """Remove every staging path, and the directories made only for them."""
        for s in reversed(self._staged):
            _remove(s.staged)
            if s.made is not None:
                _prune(s.staged.parent, s.made)


def _move_files(staged: Path, target: Path) -> list[tuple[Path, Path]]:
    """Move the data files of ``staged`` into ``target`` (same relative paths: partition
    directories included); Spark's ``_SUCCESS`` only where the target has none."""
    moved: list[tuple[Path, Path]] = []
    for file in sorted(p for p in staged.rglob("*") if p.is_file()):
        dest = target / file.relative_to(staged)
        if dest.exists():
            if file.name == "_SUCCESS" or file.name.startswith("._SUCCESS"):
                continue
            raise OSError(17, "a staged file's name is taken in the target", str(dest))
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(file, dest)
        moved.append((dest, file))
    return moved


def _prune(directory: Path, top: Path) -> None:
    """Remove ``directory`` and its parents up to ``top`` while they are empty."""
    while True:
        try:
            directory.rmdir()
        except OSError:
            return
        if directory == top or top not in directory.parents:
            return
        directory = directory.parent


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink(missing_ok=True)
