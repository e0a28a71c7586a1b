"""The warm client: a process that has already imported everything a command needs (pyspark's
Connect client with pandas, pyarrow and gRPC, typer, lark, assay itself) and forks one child
per ``assay`` command, so that a command pays neither Python's imports nor their start.

``assay server start`` starts it beside the warm server (``assay server stop`` stops
both). Every later ``assay`` command (but ``assay server ...``) first tries it: the
command's arguments, working directory, environment and umask go over a Unix socket in
the per-user state directory, with its stdin, stdout and stderr themselves (passed as file
descriptors); the warm client forks, the child becomes the command (those descriptors as
its 0, 1 and 2, that directory, that environment) and its exit status comes back as the
command's. Signals the command receives (Ctrl-C, a scheduler's SIGTERM) are passed to the
child; a command killed outright has its child terminated.

The answer is the one a command started from scratch gives, or the command runs from
scratch: a warm client started from other code (another Python, other installed files of
assay or pyspark, other interpreter flags or ``PYTHONPATH``) refuses, and the command runs
as if there were none. The socket lives in the state directory (mode 0700) and the warm
client serves only its own user (the peer's uid checked, on Linux). ``ASSAY_NO_WARM_CLIENT=1``
turns forwarding off. This module's client half imports nothing but the standard library.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SOCKET = "client.sock"
PID_FILE = "client.pid"
LOG_FILE = "client.log"
NO_WARM_CLIENT_ENV = "ASSAY_NO_WARM_CLIENT"
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
"""The signals a forwarded command passes on to its child."""
LOCAL_COMMANDS = frozenset({"server"})
"""Commands never forwarded: the warm server's and warm client's own lifecycle."""
MAX_HEADER = 1 << 22
GRACE = 10.0
"""Seconds between SIGTERM and SIGKILL: for a child whose command was killed, and for the
children still running when the warm client is stopped (:func:`grace`)."""
GRACE_ENV = "ASSAY_WARM_GRACE"


def grace() -> float:
    """:data:`GRACE`, or the positive number of seconds ``ASSAY_WARM_GRACE`` gives in the
    warm client's environment (docs/deployment.md)."""
    with contextlib.suppress(ValueError):
        seconds = float(os.environ.get(GRACE_ENV, ""))
        if 0 < seconds < float("inf"):
            return seconds
    return GRACE


def _state_dir() -> Path:
    from assay.executor.session.state import state_dir

    return state_dir()


def socket_path() -> Path:
    return _state_dir() / SOCKET


def supported() -> bool:
    """Unix sockets with descriptor passing and ``fork``: Linux and macOS."""
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def enabled() -> bool:
    value = os.environ.get(NO_WARM_CLIENT_ENV, "").strip().lower()
    return supported() and value in ("", "0", "false", "no")


# --- what makes a process the same program ---------------------------------------------


def _files(root: Path) -> Iterator[str]:
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
        for name in sorted(names):
            path = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                info = os.stat(path)
                yield f"{path}:{info.st_size}:{info.st_mtime_ns}"


def fingerprint() -> str:
    """What a command's answer depends on besides its arguments and environment: the
    interpreter, its flags, ``PYTHONPATH``, and the installed files of assay and pyspark
    (their paths, sizes and modification times: an upgrade or an edit changes it)."""
    import importlib.util

    parts = [
        os.path.realpath(sys.executable),
        sys.prefix,
        repr(tuple(sys.flags)),
        repr(sys.warnoptions),
        repr(sorted(sys._xoptions.items())),
        os.environ.get("PYTHONPATH", ""),
    ]
    parts += _files(Path(__file__).resolve().parent.parent)
    spec = importlib.util.find_spec("pyspark")
    if spec is not None and spec.origin:
        version = Path(spec.origin).with_name("version.py")
        with contextlib.suppress(OSError):
            parts.append(f"{version}:{version.stat().st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# --- the command's side -----------------------------------------------------------------


def forward(argv: list[str]) -> int | None:
    """Run the command ``argv`` in the warm client and return its exit code; None when
    there is no warm client to run it (or it refused): then run it here."""
    if not enabled() or (argv and argv[0] in LOCAL_COMMANDS):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(socket_path()))
    except OSError:
        sock.close()
        return None
    with sock:
        try:
            pid = _request(sock, argv)
        except OSError:
            return None
        if pid is None:
            return None
        return _await(sock, pid)


def _request(sock: socket.socket, argv: list[str]) -> int | None:
    """Send the command and its descriptors; the child's pid, or None (refused)."""
    fds = [fd for fd in (0, 1, 2) if _valid(fd)]
    umask = os.umask(0)
    os.umask(umask)
    header = json.dumps(
        {
            "argv": argv,
            "program": program_name(),
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "umask": umask,
            "fds": fds,
            "fingerprint": fingerprint(),
        }
    ).encode()
    socket.send_fds(sock, [struct.pack("!I", len(header)) + header], fds)
    reply = _read_line(sock)
    if reply is None or "pid" not in reply:
        return None
    return int(reply["pid"])


def program_name() -> str:
    """The command's name as click gives it in this process (``assay``, or ``python -m
    assay``), for its usage lines: the child, forked from ``python -m
    assay.cli.entry``, would otherwise name itself after that module."""
    main = sys.modules.get("__main__")
    package = getattr(main, "__package__", None)
    path = sys.argv[0] if sys.argv else "assay"
    if not package:
        return os.path.basename(path) or "assay"
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def _valid(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _await(sock: socket.socket, pid: int) -> int:
    """Pass the command's signals to the child until the warm client says how it ended."""

    def passed_on(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)

    for name in FORWARDED:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            signal.signal(getattr(signal, name), passed_on)
    reply = _read_line(sock)
    if reply is None:
        sys.stderr.write(
            "assay: the warm client stopped while running this command; its outcome is "
            "unknown (run it again, or `assay server stop` and start again)\n"
        )
        return 3
    if "signal" in reply:  # end as the command would have: by that signal
        signum = int(reply["signal"])
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            time.sleep(1.0)
        return 128 + signum
    return int(reply["exit"])


def _read_line(sock: socket.socket) -> dict | None:
    """One JSON line from ``sock`` (None at the end of the stream), across interruptions
    by the signals being passed on. It takes no byte past the line's end: the child's pid
    and its exit can arrive in one segment (a command that ends at once, ``--help``), and
    the second line is the next call's."""
    data = b""
    while True:
        try:
            peeked = sock.recv(4096, socket.MSG_PEEK)
        except InterruptedError:  # pragma: no cover - PEP 475 retries recv itself
            continue
        if not peeked:
            return None
        end = peeked.find(b"\n")
        data += sock.recv(len(peeked) if end < 0 else end + 1)
        if end >= 0:
            return json.loads(data)  # type: ignore[no-any-return]


# --- the warm client's side -------------------------------------------------------------


def preload() -> None:
    """Import what a command imports: assay's modules (each of them) and with them
    pyspark's Connect client, pandas, pyarrow, gRPC, typer, lark, jinja2."""
    import importlib
    import pkgutil

    import assay

    if "IPython" not in sys.modules:  # as assay.cli.app.main does
        sys.modules["IPython"] = None  # type: ignore[assignment]
    names = [m.name for m in pkgutil.walk_packages(assay.__path__, "assay.")]
    for name in [n for n in names if not n.endswith("__main__")] + list(LAZY_IMPORTS):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - optional parts (pyspark-less installs)
            log(f"not preloaded: {name}: {type(exc).__name__}: {exc}")


LAZY_IMPORTS = (
    "typer._adapters",  # typer builds the command line (with pydantic: 55 ms)
    "typer._click.decorators",
    "pydantic.plugin._loader",
    "grpc._channel",  # the Connect client's channel, its token credentials
    "grpc._auth",
    "grpc._plugin_wrapping",
    "sqlglot.dialects.spark",  # SQL rules read as Spark SQL
    "sqlglot.optimizer.annotate_types",
    "encodings.utf_8_sig",  # a config file read with its byte-order mark
)
"""Modules a command imports only when it first needs them (inside a function): found
by listing ``sys.modules`` in a command's child after a run, which imported them anew
on every command (0.1 s)."""


def log(line: str) -> None:
    """A line of the warm client's log (its stderr is the log file)."""
    sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}\n")
    sys.stderr.flush()


# --- its lifetime: started and stopped with the warm server -----------------------------


def client_pid() -> int | None:
    """The running warm client's pid, or None (a pid file naming a process that is not
    this user's warm client is ignored)."""
    try:
        pid = int((_state_dir() / PID_FILE).read_text())
    except (OSError, ValueError):
        return None
    proc = Path(f"/proc/{pid}")
    if proc.is_dir():
        try:
            mine = proc.stat().st_uid == os.getuid()
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return None
        return pid if mine and b"assay.cli.entry" in cmdline and state != "Z" else None
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return None
    return pid


def start_client(timeout: float = 120.0) -> int:
    """The running warm client's pid, or that of one started now (detached, its log in
    the state directory), once it accepts commands."""
    import subprocess

    from assay.errors import EnvironmentFailure
    from assay.executor.session.state import private_dir

    running = client_pid()
    if running is not None:
        return running
    directory = private_dir()
    path = directory / SOCKET
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with open(directory / LOG_FILE, "ab") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "assay.cli.entry", str(path)],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,
            close_fds=True,
        )
    fd = os.open(directory / PID_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(str(proc.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = (directory / LOG_FILE).read_text(errors="replace")[-2000:]
            raise EnvironmentFailure(f"the warm client exited at start:\n{tail}")
        if _accepts(path):
            return proc.pid
        time.sleep(0.05)
    raise EnvironmentFailure(f"the warm client did not listen on {path} in {timeout:g} s")


def _accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def stop_client(timeout: float | None = None) -> int | None:
    """Stop the warm client (the commands it runs may finish, up to ``timeout`` s: by
    default twice its grace and 5 s). Returns the pid stopped, or None."""
    if timeout is None:
        timeout = 2 * grace() + 5.0
    pid = client_pid()
    if pid is not None:
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while client_pid() == pid and time.monotonic() < deadline:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                time.sleep(0.05)
            if client_pid() != pid:
                break
    for name in (SOCKET, PID_FILE):
        with contextlib.suppress(FileNotFoundError):
            (_state_dir() / name).unlink()
    return pid
