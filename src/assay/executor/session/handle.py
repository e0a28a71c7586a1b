"""The handle of an open session: the Connect session, plus the embedded server we started."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.executor.session.client import stop_session
from assay.executor.session.jvm import BUILD_WAIT, finish_archive
from assay.executor.session.process import STOP_TIMEOUT, forget, kill, terminate

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession


@dataclass
class SparkHandle:
    """An open Connect session, plus the embedded server process when we started one.

    ``url`` is redacted and safe to print. ``close()`` is idempotent and bounded: it
    releases the server-side session (at most ``RELEASE_TIMEOUT`` s), closes the channel
    and, for the embedded server, stops the JVM (SIGTERM, ``STOP_TIMEOUT`` s, SIGKILL; or
    SIGKILL at once when it is ``disposable``).
    """

    spark: SparkSession
    url: str
    ui_url: str | None
    embedded: bool
    log_path: str | None = None
    connect_url: str = field(default="", repr=False)
    """The unredacted URL (may hold a token): for child processes, never for printing."""
    state_dir: str | None = None
    """The embedded server's own directory (its log and warehouse): removed by ``close``
    unless the server died or the block it served raised (then the log is kept)."""
    archive_part: str | None = None
    """Where the embedded server writes the class-data-sharing archive as it stops (it is
    then given ``BUILD_WAIT`` s to stop, and the archive moved into place)."""
    disposable: bool = False
    """The embedded server may be killed at once by ``close`` (nothing of it outlives its
    directory, which ``close`` removes): no session release, no wait for its shutdown."""
    warm_pid: int | None = None
    """The warm server's process id when the session is on it (``close`` leaves it running)."""
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int | None:
        """Process id of the embedded server (``None`` for a remote server)."""
        return self._proc.pid if self._proc is not None else None

    def close(self, keep_log: bool = False) -> None:
        """Stop the session and, for the embedded server, the JVM, then remove its
        directory (kept with ``keep_log``, or when the server had died). Never raises."""
        if self._closed:
            return
        self._closed = True
        server_alive = self._proc is None or self._proc.poll() is None
        try:
            stop_session(self.spark, release=server_alive and not self.disposable)
        finally:
            if self._proc is not None:
                if self.disposable:
                    kill(self._proc)
                else:
                    terminate(self._proc, STOP_TIMEOUT if self.archive_part is None else BUILD_WAIT)
                forget(self._proc)
                if self.archive_part is not None:
                    finish_archive(self.archive_part, self._proc.returncode not in (None, -9))
            if self.state_dir is not None and server_alive and not keep_log:
                shutil.rmtree(self.state_dir, ignore_errors=True)

    def __enter__(self) -> SparkHandle:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.close(keep_log=kind is not None)


def local_handle(spark: SparkSession, url: str, ui_port: int | None, **fields: Any) -> SparkHandle:
    """The handle of a session on a server of this machine (embedded or warm): ``url``
    unredacted (with its token), its UI on the loopback interface."""
    from assay.executor.session.redaction import redact_url

    ui_url = None if ui_port is None else f"http://127.0.0.1:{ui_port}"
    return SparkHandle(spark=spark, url=redact_url(url), ui_url=ui_url, connect_url=url, **fields)
