"""The warm server: a local Spark Connect server that outlives the command that started it
(``assay server start``, ``assay run --keep-server``), found by later runs through a state
file and used instead of starting an embedded server of their own.

Where: a per-user state directory, ``$ASSAY_STATE_DIR``, else ``$XDG_STATE_HOME/assay``,
else ``~/.local/state/assay`` (mode 0700, owned by the user), holding ``server.json``
(mode 0600: pid, ports, token, start time, the assay and pyspark versions), the server's
``server.log`` and its ``warehouse``. The server binds 127.0.0.1 only and requires its
token, like the embedded one.

Found safely: a state file that is not the user's own, or readable by others, is ignored;
a stale one (its process gone or not a Connect server, its port refused, another assay or
pyspark version) is removed, the server it names stopped when it is still ours, with a
note. ``ASSAY_NO_WARM_SERVER=1`` turns discovery off; ``--remote`` and ``SPARK_REMOTE``
always win (:func:`assay.executor.session.open_session`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from assay.executor.session import connect_driver
from assay.executor.session.embedded import start_server
from assay.executor.session.handle import SparkHandle, local_handle
from assay.executor.session.jvm import BUILD_WAIT, finish_archive
from assay.executor.session.state import port_open, private_dir, pyspark_version, state_dir
from assay.ir import secrets
from assay.version import __version__

Note = Callable[[str], None]

NO_WARM_ENV = "ASSAY_NO_WARM_SERVER"
STATE_FILE = "server.json"
STOP_WAIT = 15.0  # seconds between SIGTERM and SIGKILL when stopping a warm server


def stderr_note(line: str) -> None:
    """The default ``note``: one line on stderr."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class WarmServer:
    """What the state file records of a running warm server."""

    pid: int
    port: int
    ui_port: int | None
    token: str = field(repr=False)
    started: float
    assay_version: str
    pyspark_version: str
    log: str
    warehouse: str
    conf: Mapping[str, str] = field(default_factory=dict)
    archive_part: str | None = None
    """Where it writes the class-data-sharing archive as it stops, if it does (:mod:`.jvm`)."""

    @property
    def url(self) -> str:
        """The URL with the token (for connecting, never for printing)."""
        return f"sc://localhost:{self.port}/;token={self.token}"

    def public(self) -> dict[str, object]:
        """What ``assay server status`` shows: everything but the token, and the settings
        whose names look secret redacted."""
        shown = {k: v for k, v in asdict(self).items() if k != "token"}
        shown["conf"] = {k: secrets.shown(k, v) for k, v in self.conf.items()}
        shown["url"] = f"sc://localhost:{self.port}/;token=***"
        shown["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started))
        shown["uptime_seconds"] = round(time.time() - self.started, 1)
        return shown


def read_state(note: Note = stderr_note) -> WarmServer | None:
    """The recorded warm server, or None (no file, or one that cannot be trusted or read)."""
    path = state_dir() / STATE_FILE
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & 0o077 or not stat.S_ISREG(info.st_mode):
            note(f"assay: ignoring {path}: it must be a file of yours readable only by you")
            return None
        try:
            return WarmServer(**json.loads(file.read()))
        except (ValueError, TypeError):
            note(f"assay: ignoring {path}: not a warm server's state")
            return None


def write_state(server: WarmServer) -> Path:
    """Record ``server`` in the state file (mode 0600, replaced atomically)."""
    directory = private_dir()
    fd, temp = tempfile.mkstemp(prefix=".server-", suffix=".json", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp: mode 0600
        json.dump(asdict(server), out, indent=1, default=dict)
    target = directory / STATE_FILE
    os.replace(temp, target)
    return target


def remove_state() -> None:
    with contextlib.suppress(FileNotFoundError):
        (state_dir() / STATE_FILE).unlink()


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """The state directory's lock, held while a warm server is started or stopped (two
    ``--keep-server`` runs at once start one server)."""
    fd = os.open(private_dir() / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def discovery_enabled() -> bool:
    """False when ``ASSAY_NO_WARM_SERVER`` is set to anything but ``0``/empty."""
    return os.environ.get(NO_WARM_ENV, "").strip().lower() in ("", "0", "false", "no")


def find_warm(note: Note = stderr_note, *, for_run: bool = True) -> WarmServer | None:
    """The running warm server, or None. A stale state file is removed (and its server
    stopped when it is still ours), with a note saying why. ``for_run``: None also when
    ``ASSAY_NO_WARM_SERVER`` turns discovery off (``assay server`` itself ignores it)."""
    if (for_run and not discovery_enabled()) or pyspark_version() == "none":
        return None  # without pyspark this process can use no server: leave it alone
    server = read_state(note)
    if server is None:
        return None
    why = stale_reason(server)
    if why is None:
        return server
    note(f"assay: the warm server in {state_dir() / STATE_FILE} is stale ({why}): removed")
    _stop(server, STOP_WAIT)
    remove_state()
    return None


def stale_reason(server: WarmServer) -> str | None:
    """Why ``server`` cannot be used, or None when it can."""
    if server.assay_version != __version__:
        return f"started by assay {server.assay_version}, this is {__version__}"
    if server.pyspark_version != pyspark_version():
        return f"pyspark {server.pyspark_version}, this is {pyspark_version()}"
    if not is_connect_server(server.pid):
        return f"process {server.pid} is not running"
    if not port_open(server.port):
        return f"port {server.port} refuses connections"
    return None


def is_connect_server(pid: int) -> bool:
    """Whether ``pid`` is a live Spark Connect server process of this user (on Linux, by
    its command line: a recycled pid is not mistaken for the server)."""
    if pid <= 0:
        return False
    proc = Path(f"/proc/{pid}")
    if proc.is_dir():
        try:
            owner = proc.stat().st_uid
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        connect = b"SparkConnectServer" in cmdline or b"SparkConnectPlugin" in cmdline
        return owner == os.getuid() and connect and state != "Z"
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_server(pid: int, timeout: float = STOP_WAIT) -> bool:
    """SIGTERM the server's process group, wait up to ``timeout`` s, then SIGKILL.
    Returns whether it stopped on SIGTERM (so whatever it wrote as it exited is whole)."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # our own child (--keep-server): reap it
            if not is_connect_server(pid):
                return sig == signal.SIGTERM
            time.sleep(0.1)
    return False


def _stop(server: WarmServer, timeout: float) -> None:
    """Stop ``server`` if it still runs, and keep the archive it wrote only when whole."""
    stopped = is_connect_server(server.pid) and kill_server(server.pid, timeout)
    if server.archive_part is not None:
        finish_archive(server.archive_part, stopped)


def start_warm(server_conf: Mapping[str, str], note: Note = stderr_note) -> tuple[WarmServer, bool]:
    """The running warm server, or one started now (``server_conf``: its settings, as the
    embedded server's ``--conf``). Returns it and whether it was started now."""
    with locked():
        running = find_warm(note, for_run=False)
        if running is not None:
            return running, False
        directory = private_dir()
        shutil.rmtree(directory / "warehouse", ignore_errors=True)
        started = start_server(server_conf, str(directory), None, tied=False, many_sessions=True)
        conf = dict(server_conf)
        server = WarmServer(
            pid=started.proc.pid,
            port=started.grpc_port,
            ui_port=started.ui_port,
            token=started.token,
            started=time.time(),
            assay_version=__version__,
            pyspark_version=pyspark_version(),
            log=started.log,
            warehouse=conf.get("spark.sql.warehouse.dir", str(directory / "warehouse")),
            conf=conf,
            archive_part=started.archive_part,
        )
        write_state(server)
        return server, True


def open_warm(server: WarmServer, connect_timeout: float) -> SparkHandle:
    """A new session (its own id: temp views and settings of its own) on ``server``;
    closing the handle releases the session and leaves the server running. The session
    names this process (:func:`.connect_driver.client_user_id`): should the process die
    without releasing it, the server closes it within a few seconds."""
    from assay.executor.session.client import connect

    user = connect_driver.client_user_id(os.getpid())
    spark = connect(f"{server.url};user_id={user}", [server.token], connect_timeout)
    return local_handle(
        spark, server.url, server.ui_port, embedded=False, log_path=server.log, warm_pid=server.pid
    )


WARM_UP_SQL = (
    "SELECT k, count(*), count(DISTINCT v), min(s), max(length(s)), sum(IF(v > 3, 1, 0)) "
    "FROM (SELECT id % 7 AS k, id % 13 AS v, cast(id AS string) AS s FROM range(20000)) "
    "GROUP BY k"
)
"""A query of the shapes a run submits (aggregates with a distinct count, a group-by):
run once by ``assay server start`` so that the user's first run does not pay the JVM's
first class loading and compilations of Spark's query path."""


def warm_up(server: WarmServer, connect_timeout: float = 60.0) -> None:
    """Run :data:`WARM_UP_SQL` on ``server`` in a session of its own."""
    with open_warm(server, connect_timeout) as handle:
        handle.spark.sql(WARM_UP_SQL).collect()


def stop_warm(note: Note = stderr_note) -> WarmServer | None:
    """Stop the warm server and remove its state and warehouse (its log stays, for the
    curious, until the next start). Returns what was stopped, or None."""
    with locked():
        server = read_state(note)
        if server is None:
            return None
        _stop(server, BUILD_WAIT)  # it may be writing the class-data archive
        remove_state()
        shutil.rmtree(state_dir() / "warehouse", ignore_errors=True)
        return server
