"""The warm client's loop (:mod:`assay.warm.client`): accept a command on the socket,
fork a child that becomes it, report how each child ended to its command, terminate the
children whose command went away. One thread: the children's ends arrive as SIGCHLD
through a wake-up descriptor, so the loop never polls.

    python -m assay.cli.entry SOCKET   # what ``assay server start`` runs, detached

The command a child becomes is handed in by that launcher (:func:`assay.cli.entry.forked`):
this package sits below the command line and never imports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.warm.client import MAX_HEADER, fingerprint, grace, log, preload


@dataclass
class Child:
    """A running command: its child's pid, the command's connection, what it runs."""

    pid: int
    conn: socket.socket
    argv: list[str]
    started: float = field(default_factory=time.monotonic)
    kill_at: float | None = None
    """When to signal it next: SIGTERM, or SIGKILL once ``terminated``."""
    terminated: bool = False


@dataclass
class Loop:
    listener: socket.socket
    wake: socket.socket
    run: Callable[[], None]
    """What a forked child runs: the command, as its own process would."""
    selector: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    children: dict[int, Child] = field(default_factory=dict)
    stopping: float | None = None


def serve(path: str, command_line: Callable[[], Callable[[], None]]) -> None:
    """Preload, listen on ``path`` (mode 0600) and serve until SIGTERM; then wait for the
    running children (SIGTERM after the grace, :func:`~assay.warm.client.grace` s, SIGKILL
    after as long again).
    ``command_line`` builds the command line once for every command, after the preload,
    and returns what a child runs."""
    loop_fingerprint()  # the code as it is now, before it is imported
    preload()
    run = command_line()
    loop = _listen(path, run)
    log(f"serving on {path}, pid {os.getpid()}")
    while loop.children or loop.stopping is None:
        for key, _ in loop.selector.select(timeout=_timeout(loop)):
            if key.fileobj is loop.listener:
                _accept(loop)
            elif key.fileobj is loop.wake:
                _drain(loop)
            else:
                _gone(loop, key.data)
        _reap(loop)
        _deadlines(loop)
    log("stopped")


def _listen(path: str, run: Callable[[], None]) -> Loop:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(64)
    listener.setblocking(False)
    wake, wake_in = socket.socketpair()
    for s in (wake, wake_in):
        s.setblocking(False)
    signal.set_wakeup_fd(wake_in.fileno())
    loop = Loop(listener, wake, run)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # its arrival writes to the wake-up fd
    signal.signal(signal.SIGTERM, lambda *_: _stop(loop))
    signal.signal(signal.SIGINT, lambda *_: _stop(loop))
    loop.selector.register(listener, selectors.EVENT_READ)
    loop.selector.register(wake, selectors.EVENT_READ)
    loop.wake_in = wake_in  # type: ignore[attr-defined]  # kept open with the loop
    return loop


def _stop(loop: Loop) -> None:
    if loop.stopping is None:
        loop.stopping = time.monotonic()
        with contextlib.suppress(KeyError, ValueError):
            loop.selector.unregister(loop.listener)
        loop.listener.close()
        for child in loop.children.values():
            child.kill_at = loop.stopping + grace()


def _timeout(loop: Loop) -> float | None:
    deadlines = [c.kill_at for c in loop.children.values() if c.kill_at is not None]
    return None if not deadlines else max(0.0, min(deadlines) - time.monotonic())


def _drain(loop: Loop) -> None:
    with contextlib.suppress(BlockingIOError):
        while loop.wake.recv(4096):
            pass


def _accept(loop: Loop) -> None:
    try:
        conn, _ = loop.listener.accept()
    except (BlockingIOError, OSError):
        return
    conn.setblocking(True)
    conn.settimeout(10.0)
    try:
        request, fds = _receive(conn)
    except EOFError:  # a probe: does it accept connections?
        conn.close()
        return
    except (OSError, ValueError) as exc:
        log(f"a request could not be read: {exc}")
        conn.close()
        return
    try:
        why = _refusal(conn, request)
        if why is not None:
            log(f"refused {_command(request)}: {why}")
            _send(conn, {"refused": why})
            conn.close()
            return
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child: measured by the tests through its output
            _become(loop, conn, request, fds)
    finally:
        for fd in fds:
            os.close(fd)
    _send(conn, {"pid": pid})
    conn.settimeout(None)
    loop.children[pid] = Child(pid, conn, request["argv"])
    loop.selector.register(conn, selectors.EVENT_READ, pid)
    log(f"pid {pid}: assay {_command(request)}  (in {request['cwd']})")


def _command(request: dict) -> str:
    """The command as the log shows it: its tokens and secret-looking values redacted."""
    from assay.executor.session.redaction import redact_command

    return redact_command(request.get("argv", []))


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if not data:
        raise EOFError
    if len(data) < 4:
        raise ValueError("no header")
    (size,) = struct.unpack("!I", data[:4])
    if size > MAX_HEADER:
        raise ValueError(f"a header of {size} bytes")
    data = data[4:]
    while len(data) < size:
        chunk = conn.recv(min(1 << 16, size - len(data)))
        if not chunk:
            raise ValueError("the header ended early")
        data += chunk
    return json.loads(data), list(fds)


def _refusal(conn: socket.socket, request: dict) -> str | None:
    """Why this warm client must not run ``request`` (None: it may)."""
    peer = getattr(socket, "SO_PEERCRED", None)
    if peer is not None:
        _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, peer, 12))
        if uid != os.getuid():
            return f"uid {uid} is not this warm client's user"
    if request.get("fingerprint") != loop_fingerprint():
        return "started from other code (another Python, assay or pyspark, or their flags)"
    return None


_FINGERPRINT: list[str] = []


def loop_fingerprint() -> str:
    """This process's fingerprint, as of its start (the code it imported then)."""
    if not _FINGERPRINT:
        _FINGERPRINT.append(fingerprint())
    return _FINGERPRINT[0]


def _send(conn: socket.socket, message: dict) -> None:
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(message).encode() + b"\n")


def _gone(loop: Loop, pid: int) -> None:
    """The command's connection is readable: it went away (a command sends nothing more)."""
    child = loop.children.get(pid)
    if child is None:
        return
    loop.selector.unregister(child.conn)
    child.kill_at = time.monotonic()
    _deadlines(loop)
    log(f"pid {pid}: its command went away: SIGTERM")


def _reap(loop: Loop) -> None:
    while loop.children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        child = loop.children.pop(pid, None)
        if child is None:
            continue
        if os.WIFSIGNALED(status):
            ended = {"signal": os.WTERMSIG(status)}
        else:
            ended = {"exit": os.waitstatus_to_exitcode(status)}
        _send(child.conn, ended)
        with contextlib.suppress(KeyError, ValueError):
            loop.selector.unregister(child.conn)
        child.conn.close()
        log(f"pid {pid}: {ended} after {time.monotonic() - child.started:.2f} s")


def _deadlines(loop: Loop) -> None:
    now = time.monotonic()
    for child in loop.children.values():
        if child.kill_at is not None and now >= child.kill_at:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL if child.terminated else signal.SIGTERM)
            child.terminated, child.kill_at = True, now + grace()


# --- the child --------------------------------------------------------------------------


def _become(loop: Loop, conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become the command (never returns)."""
    code = 3
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for s in (loop.listener, loop.wake, loop.wake_in, conn):  # type: ignore[attr-defined]
            s.close()
        for c in loop.children.values():
            c.conn.close()
        _take_streams(request.get("fds", [0, 1, 2]), fds)
        os.chdir(request["cwd"])
        os.umask(int(request["umask"]))
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [str(request.get("program") or "assay"), *request["argv"]]
        # click names the program after argv[0] only when __main__ is no package's module
        # (here it is assay.cli.entry's): the name the command's own process gave it
        vars(sys.modules["__main__"])["__package__"] = None
        loop.run()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
    except BaseException:  # noqa: BLE001 - the child must end here, never in the loop
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _take_streams(numbers: list[int], fds: list[int]) -> None:
    """The command's descriptors as 0, 1 and 2 (``/dev/null`` for one it had closed),
    buffered as Python buffers them at start: line by line on a terminal."""
    given = dict(zip(numbers, fds, strict=True))
    for target in (0, 1, 2):
        source = given.get(target)
        if source is None:
            source = os.open(os.devnull, os.O_RDWR)
        os.dup2(source, target)
    for source in set(given.values()) - {0, 1, 2}:
        os.close(source)
    with contextlib.suppress(Exception):
        sys.stdout.reconfigure(line_buffering=os.isatty(1))  # type: ignore[union-attr]
        sys.stderr.reconfigure(line_buffering=True)  # type: ignore[union-attr]
