"""The embedded server's process lifetime: spawned in its own process group, tied to ours
(``PR_SET_PDEATHSIG`` on Linux, an ``atexit`` hook), stopped with SIGTERM then SIGKILL, or
with SIGKILL at once when nothing of it outlives it."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable

from assay.errors import EnvironmentFailure

STOP_TIMEOUT = 10.0  # seconds between SIGTERM and SIGKILL


_PR_SET_PDEATHSIG = 1


_LIVE: dict[int, subprocess.Popen[bytes]] = {}


_LIVE_LOCK = threading.Lock()


def spawn(
    argv: list[str], env: dict[str, str], log: str, *, tied: bool = True
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own process group with stdout+stderr to ``log`` (truncated,
    mode 0600, symlinks refused), tied to our lifetime unless ``tied`` is false (a warm
    server, which outlives the command that started it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(log, flags, 0o600)
    except OSError as exc:
        raise EnvironmentFailure(
            f"cannot write the Spark server log {log}: {exc.strerror}"
        ) from None
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent_fn() if tied else None,  # noqa: PLW1509 - async-signal-safe
        )
    except OSError as exc:
        raise EnvironmentFailure(f"cannot start spark-submit: {exc}") from None
    finally:
        os.close(fd)
    if tied:
        _remember(proc)
    return proc


def _die_with_parent_fn() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks Linux to SIGTERM the child when we die (kept across the
    ``exec`` chain spark-submit -> spark-class -> java).

    ``None`` off Linux, and off the main thread: Linux signals the child when the *thread*
    that forked it exits, which for a worker thread is long before the process ends. The
    atexit hook and ``close()`` still apply then.
    """
    if (
        not sys.platform.startswith("linux")
        or threading.current_thread() is not threading.main_thread()
    ):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # we died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def terminate(proc: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """Stop ``proc``'s process group: SIGTERM, wait ``timeout`` s, then SIGKILL."""
    if proc.poll() is not None:
        return
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        kill(proc)


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc``'s process group at once (SIGKILL), for a server none of whose work
    outlives it: its shutdown hooks would only remove scratch files its owner removes."""
    if proc.poll() is None:
        _signal_group(proc, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send ``sig`` to the group ``proc`` leads (start_new_session made pgid == pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _remember(proc: subprocess.Popen[bytes]) -> None:
    """Track ``proc`` so the atexit hook can stop it."""
    with _LIVE_LOCK:
        _LIVE[proc.pid] = proc


def forget(proc: subprocess.Popen[bytes]) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(proc.pid, None)


@atexit.register
def _stop_all_servers() -> None:
    """At interpreter exit: SIGTERM every live embedded server at once, then wait (bounded)."""
    with _LIVE_LOCK:
        procs = list(_LIVE.values())
        _LIVE.clear()
    for proc in procs:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
    for proc in procs:
        terminate(proc)
