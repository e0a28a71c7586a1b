"""Where assay keeps what outlives a command on this machine: the per-user state
directory (the warm server's record, log and warehouse, the class-data archive), and the
facts a record is checked against (the pyspark version, an open port)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from assay.errors import EnvironmentFailure

STATE_DIR_ENV = "ASSAY_STATE_DIR"


def state_dir() -> Path:
    """The per-user state directory (not created here)."""
    given = os.environ.get(STATE_DIR_ENV)
    if given:
        return Path(given)
    home_state = os.path.join(os.path.expanduser("~"), ".local", "state")
    base = os.environ.get("XDG_STATE_HOME") or home_state
    return Path(base, "assay")


def private_dir() -> Path:
    """The state directory, created (or made) mode 0700; ``EnvironmentFailure`` when it
    belongs to someone else (a state file planted there could point a run at a server of
    theirs)."""
    path = state_dir()
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except OSError as exc:
        raise EnvironmentFailure(f"cannot create the state directory {path}: {exc}") from None
    if info.st_uid != os.getuid():
        raise EnvironmentFailure(f"the state directory {path} belongs to another user")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def pyspark_version() -> str:
    """The installed pyspark's version, read from its ``version.py`` without importing
    pyspark (which costs a second)."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.origin:
        return "none"
    try:
        text = Path(spec.origin).with_name("version.py").read_text(encoding="utf-8")
    except OSError:
        return "unknown"
    match = re.search(r"""__version__\s*(?::\s*str\s*)?=\s*["']([^"']+)["']""", text)
    return match.group(1) if match else "unknown"


def port_open(port: int) -> bool:
    """Whether something accepts TCP connections on 127.0.0.1:``port``."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0
