"""Running the shell commands a config may ask for (data-validator ``shell`` variables and
``pipe`` outputs), as safely as running a shell command can be.

A config that runs commands is code: these only run with ``--allow-shell``. When they do:

- the command runs as ``/bin/sh -c <command>`` (what data-validator does), with stdin
  closed or fed from a file (never a pipe that can deadlock), in its own process group;
- **variables are never spliced into the command text**: the variables a command refers to
  (``$name`` / ``${name}``) are passed as environment variables, and ``/bin/sh`` expands
  them itself, so a value such as ``; rm -rf ~`` stays data;
- the environment is scrubbed: the Spark Connect token and every variable whose name looks
  like a secret (``*TOKEN*``, ``*PASSWORD*``, ``*SECRET*``...) are removed;
- it is killed (the whole process group) after :data:`TIMEOUT` seconds, and at most
  :data:`MAX_OUTPUT` bytes of its output are read.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

TIMEOUT = 60.0
MAX_OUTPUT = 1 << 20
SHELL = "/bin/sh"

_SECRET = re.compile(r"(?i)TOKEN|PASSWORD|PASSWD|SECRET|CREDENTIAL|API_?KEY|PRIVATE_?KEY")
_ALWAYS_DROPPED = frozenset({"SPARK_CONNECT_AUTHENTICATE_TOKEN", "SPARK_REMOTE"})
RESERVED = frozenset(
    {
        "PATH", "IFS", "ENV", "BASH_ENV", "CDPATH", "HOME", "SHELL", "PS1", "PS2", "PS4",
        "SHELLOPTS", "BASHOPTS", "PWD", "OLDPWD", "OPTIND", "OPTARG", "PPID", "GLOBIGNORE",
    }
)  # fmt: skip
"""Names a config variable may not pass to a command: they change how the shell itself
behaves (or, ``LD_*``/``DYLD_*``, what the loader loads)."""
_RESERVED_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def reserved(name: str) -> bool:
    """Whether ``name`` may not be exported to a command (see :data:`RESERVED`)."""
    return name.upper() in RESERVED or name.upper().startswith(_RESERVED_PREFIXES)


def scrubbed_environment(
    extra: Mapping[str, str] = {}, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` (default: this process's environment) without secrets, plus ``extra``."""
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if k not in _ALWAYS_DROPPED and not _SECRET.search(k)
    }
    for name, value in extra.items():
        if not _NAME.fullmatch(name) or reserved(name):
            raise ValueError(f"cannot pass variable {name!r} to a command")
        env[name] = value
    return env


@dataclass(frozen=True)
class Completed:
    """What a command did: exit status, and the start of its stdout and stderr (text)."""

    returncode: int
    stdout: str
    stderr: str

    def first_line(self) -> str:
        """The first line of stdout (data-validator's shell variable value)."""
        return self.stdout.split("\n", 1)[0].rstrip("\r")


class CommandTimeout(Exception):
    """The command ran longer than its timeout and was killed."""


def run_command(
    command: str,
    variables: Mapping[str, str] = {},
    *,
    stdin: bytes | None = None,
    timeout: float = TIMEOUT,
    cwd: str | None = None,
) -> Completed:
    """Run ``/bin/sh -c command`` with a scrubbed environment plus ``variables``, stdin
    from ``stdin`` (closed when ``None``), killed after ``timeout`` seconds.

    Raises:
        CommandTimeout: it ran too long (its process group was killed).
        OSError: it could not be started.
    """
    env = scrubbed_environment(variables)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        source = subprocess.DEVNULL
        feed = None
        if stdin is not None:
            feed = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
            feed.write(stdin)
            feed.seek(0)
            source = feed  # type: ignore[assignment]
        try:
            proc = subprocess.Popen(  # noqa: S603 - argv, not a shell string of ours
                [SHELL, "-c", command],
                stdin=source,
                stdout=out,
                stderr=err,
                env=env,
                cwd=cwd,
                close_fds=True,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                raise CommandTimeout(f"killed after {timeout:g} s") from None
        finally:
            if feed is not None:
                feed.close()
        return Completed(proc.returncode, _read(out), _read(err))


def _read(handle) -> str:
    handle.seek(0)
    return handle.read(MAX_OUTPUT).decode("utf-8", "replace")


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def executable(command: str, variables: Mapping[str, str] = {}) -> str | None:
    """The program a command starts (its first word, variables expanded for the check
    only), when it can be executed; ``None`` when it cannot be found or executed."""
    import shlex
    import shutil

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    first = re.sub(
        r"\$\{([A-Za-z][A-Za-z0-9_]*)\}|\$([A-Za-z][A-Za-z0-9_]*)",
        lambda m: variables.get(m.group(1) or m.group(2), m.group(0)),
        words[0],
    )
    if "/" in first:
        return first if os.path.isfile(first) and os.access(first, os.X_OK) else None
    return shutil.which(first, path=scrubbed_environment().get("PATH"))
