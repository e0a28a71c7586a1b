"""How many bytes of local files a run reads, known before any server starts.

The embedded server's JVM is tuned to the run it serves (:func:`assay.executor.session.
jvm.jit_options`): a run over a few megabytes is over before Java's optimising compiler
pays for itself. Only file sources on this machine have a size known here; a catalog
table, a SQL query, a URL with a scheme (``s3a://``, ``hdfs://``) or a brace glob make
the size unknown, and an unknown size is treated as large.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

from assay.ir.sources import DataFrameSource, PathSource, Source

_GLOB_CHARS = frozenset("*?[")


def local_bytes(sources: Iterable[Source], cap: int) -> int | None:
    """The bytes of the files ``sources`` read, counted up to just past ``cap`` (a larger
    total stops the count early: only "more than ``cap``" matters); None when a source's
    size cannot be known here. A caller's DataFrame counts nothing: it lives in the
    caller's session, not in the server started for the run."""
    total = 0
    for source in sources:
        if isinstance(source, DataFrameSource):
            continue
        if not isinstance(source, PathSource) or not source.paths:
            return None
        for path in source.paths:
            found = _path_bytes(path, cap - total)
            if found is None:
                return None
            total += found
            if total > cap:
                return total
    return total


def _path_bytes(path: str, budget: int) -> int | None:
    """The bytes under ``path`` (a file, a directory read recursively, or a glob), counted
    up to just past ``budget``; None when it is not a readable local path."""
    local = _local_path(path)
    if local is None:
        return None
    if _GLOB_CHARS.intersection(local):
        matches = glob.glob(local)
        if not matches:
            return None
    else:
        matches = [local]
    total = 0
    for match in matches:
        try:
            if os.path.isdir(match):
                for root, _dirs, files in os.walk(match):
                    for name in files:
                        total += os.stat(os.path.join(root, name)).st_size
                        if total > budget:
                            return total
            else:
                total += os.stat(match).st_size
        except OSError:
            return None
        if total > budget:
            return total
    return total


def _local_path(path: str) -> str | None:
    """``path`` as a path of this machine's file system (``file:`` URLs included); None
    for another scheme or a brace glob (Hadoop's ``{a,b}``, which ``glob`` cannot read)."""
    if "{" in path:
        return None
    if path.startswith("file:"):
        path = path.removeprefix("file:")
        if path.startswith("//"):
            if not path.startswith("///"):
                return None  # file://host/x: another machine's
            path = path.removeprefix("//")  # file:///x -> /x
    elif "://" in path or (":" in path.split("/", 1)[0] and not path.startswith("/")):
        return None
    return os.path.abspath(path) if path else None
