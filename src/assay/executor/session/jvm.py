"""JVM options that shorten a local server's start: a class-data-sharing (AppCDS) archive
of the classes Spark loads, built once per Java and pyspark installation.

Without it, a Spark Connect server's JVM parses and verifies some 20,000 classes from the
jars at every start. The second embedded server started on a machine (or the first warm
one) records the classes it loaded and writes them to an archive at its exit
(``-XX:ArchiveClassesAtExit``, a dynamic archive, Java 13+); every later server maps it
(``-XX:SharedArchiveFile``). Measured on the 2-core machine (benchmarks/README.md,
"Start-up"): the server's CPU time to start and answer its first queries falls by about
a third. An archive that does not fit the JVM (another Java
build, changed jars) is refused by the JVM itself, which then starts as without one.

The archive lives in the state directory (:mod:`.warm`), under ``cds/``, named by the
``java`` executable and the pyspark version; ``ASSAY_CDS=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from pathlib import Path

from assay.executor.session.state import private_dir

CDS_ENV = "ASSAY_CDS"
BUILD_WAIT = 180.0
"""Seconds a server writing the archive may take to exit (writing ~200 MB)."""
_CLAIM_AGE = 900.0
"""A build claim older than this (seconds) is from a server that died while writing."""
_OWN_OPTIONS = ("SharedArchiveFile", "ArchiveClassesAtExit", "-Xshare")


def cds_options(
    java: str, pyspark: str, user_options: str, *, eager: bool
) -> tuple[list[str], str | None]:
    """The JVM options for the archive, and the file this server writes it to at exit
    (:func:`finish_archive` moves it into place once the server stopped by itself).

    None when turned off or when the user's ``spark.driver.extraJavaOptions`` already
    chose class-data sharing; the archive when it exists; else the option to write it,
    when no other server is writing it and either ``eager`` (a warm server) or a server
    started here before (a machine that runs assay once, a CI job's fresh container,
    does not pay for writing an archive it would never use).
    """
    if os.environ.get(CDS_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return [], None
    if any(option in user_options for option in _OWN_OPTIONS):
        return [], None
    archive = archive_path(java, pyspark)
    if archive is None:
        return [], None
    if archive.is_file() and archive.stat().st_size > 0:
        return [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"], None
    seen = archive.with_suffix(".seen")
    if not eager and not seen.exists():
        with contextlib.suppress(OSError):
            seen.touch(mode=0o600)
        return [], None
    if _claim(archive):
        part = archive.with_suffix(".part")
        return [f"-XX:ArchiveClassesAtExit={part}"], str(part)
    return [], None


def finish_archive(part: str, completed: bool) -> None:
    """Move the archive a server wrote at exit into place when it ``completed`` (the
    server stopped by itself, not by SIGKILL: the file is whole), else drop it; the next
    start may then write it again."""
    path = Path(part)
    with contextlib.suppress(OSError):
        if completed and path.is_file() and path.stat().st_size > 0:
            os.replace(path, path.with_suffix(".jsa"))
        else:
            path.unlink(missing_ok=True)
        path.with_suffix(".building").unlink(missing_ok=True)


def archive_path(java: str, pyspark: str) -> Path | None:
    """Where the archive for this ``java`` (its real path, size and time) and pyspark
    version lives; None when the state directory cannot be made."""
    try:
        real = os.path.realpath(java)
        info = os.stat(real)
        directory = private_dir() / "cds"
        directory.mkdir(mode=0o700, exist_ok=True)
    except Exception:  # noqa: BLE001 - no archive is only slower
        return None
    key = f"{real}|{info.st_size}|{info.st_mtime_ns}|{pyspark}"
    return directory / f"spark-{pyspark}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.jsa"


def _claim(archive: Path) -> bool:
    """Whether this server may write ``archive`` (one writer at a time: a claim file made
    with O_EXCL; a claim older than ``_CLAIM_AGE`` is taken over)."""
    claim = archive.with_suffix(".building")
    with contextlib.suppress(OSError):
        if time.time() - claim.stat().st_mtime > _CLAIM_AGE:
            claim.unlink()
    try:
        fd = os.open(claim, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return False
    os.close(fd)
    return True


SHORT_RUN_BYTES = 64 * 2**20
"""Inputs up to this size make a run short enough for :func:`jit_options`' quick
compiler. Measured on the 2-core machine (benchmarks/README.md, "Start-up"): cold runs of
the 10- and 100-rule suites over TPC-H lineitem slices of 2-125 MB took 1.3-8 s less
with C1 alone; at 125 MB the 10-rule suite broke even, at 231 MB C2 won."""
_JIT_OPTIONS = ("TieredStopAtLevel", "TieredCompilation", "-Xint", "-Xcomp")
C1_ONLY = ("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m")
"""The quick compiler only, with the code cache a tiered JVM has. Alone,
``TieredStopAtLevel=1`` also shrinks the code cache from 240 MB to 48 MB (Java 17's
default without C2), which Spark's generated classes can fill: the JVM then fails with
``VirtualMachineError: Out of space in CodeCache for adapters`` and Spark stops it (seen
on the test suite's server after some 300 stages)."""


def jit_options(input_bytes: int | None, user_options: str) -> list[str]:
    """:data:`C1_ONLY` (the JVM's quick C1 compiler only) for a server started for one
    run whose inputs are known to be at most :data:`SHORT_RUN_BYTES`, else none.

    A fresh JVM spends a short run compiling: Spark's planner, Janino and the generated
    plans are first interpreted, then compiled by C1, then again by C2, whose compiler
    threads compete with the run for the cores. C1 alone compiles sooner and cheaper and
    its code runs about half as fast as C2's, which only a long scan repays. A warm
    server is long-lived and keeps C2; so does a run whose input size is unknown (a
    catalog table, a query, a remote file system). The user's own JIT options in
    ``spark.driver.extraJavaOptions`` win (``-XX:TieredStopAtLevel=4`` keeps C2)."""
    if input_bytes is None or input_bytes > SHORT_RUN_BYTES:
        return []
    if any(option in user_options for option in _JIT_OPTIONS):
        return []
    if "ReservedCodeCacheSize" in user_options:
        return list(C1_ONLY[:1])
    return list(C1_ONLY)
