"""Every example under examples/ runs with the exact command examples/README.md gives for
it, and exits with the code that table documents."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import assay_cli

README = ROOT / "examples" / "README.md"
ROW = re.compile(r"^\| [^|]+ \| `(?P<command>[^`]+)` \| (?P<exit>\d+) \|")


def documented() -> list[tuple[str, int]]:
    rows = [ROW.match(line) for line in README.read_text().splitlines()]
    return [(m["command"], int(m["exit"])) for m in rows if m]


def own_metrics(command: str, directory: Path, side: str) -> tuple[str, ...]:
    """The options that give one run of a documented command a metrics store of its own
    (in ``directory``, named by ``side``), when its config watches tables over time: two
    runs compared side by side must not read each other's history."""
    if "examples/monitoring/" not in command:
        return ()
    return ("--metrics", str(directory / f"metrics-{side}.jsonl"))


_FULL_RUNS: dict[tuple[str, str], subprocess.CompletedProcess[str]] = {}


def full_run(
    command: str, url: str, directory: Path, here: bool = False
) -> subprocess.CompletedProcess[str]:
    """A documented ``assay run`` command run by this checkout's client (``--remote url``):
    the run whose exit code is checked here, and the reference the cluster, the thin
    clients and the oldest server are compared with.
    Run once per server and command and kept for the session: every such comparison
    wants the same run, and each costs a Python start and a plan. A config watching
    tables over time gets a metrics store of its own, in the first caller's
    ``directory``, so the run kept never saw another run's history. ``here``: the
    command line runs in this process (``tests.helpers.assay_cli``), where the process
    is not the point (the cluster's runs); the documented-exit test's runs have theirs."""
    key = (command, url)
    if key not in _FULL_RUNS:
        directory.mkdir(parents=True, exist_ok=True)
        args = [*shlex.split(command)[1:], "--remote", url,
                *own_metrics(command, directory, "full")]  # fmt: skip
        if here:
            _FULL_RUNS[key] = assay_cli(*args, timeout=600)
            return _FULL_RUNS[key]
        env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "PYTHONPATH")}
        _FULL_RUNS[key] = subprocess.run(
            [sys.executable, "-m", "assay", *args],
            capture_output=True, text=True, timeout=600, cwd=ROOT, env=env,
        )  # fmt: skip
    return _FULL_RUNS[key]


def test_every_example_file_has_a_documented_command():
    commands = " ".join(c for c, _ in documented())
    files = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "examples").rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".yml", ".json", ".py")
    ]
    # a metric file may be run through its job file: both are in the table
    assert files and all(f in commands for f in files), files


@pytest.mark.spark
@pytest.mark.parametrize(("command", "code"), documented(), ids=[c for c, _ in documented()])
def test_the_documented_command_exits_as_documented(server, tmp_path, command, code):
    argv = shlex.split(command)
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    if argv[0] == "python":
        # regenerate the data in a copy: the committed files must be what the script makes
        copy = tmp_path / "examples"
        copy.mkdir()
        shutil.copy(ROOT / argv[1], copy / Path(argv[1]).name)
        done = subprocess.run(
            [sys.executable, str(copy / Path(argv[1]).name)],
            capture_output=True, text=True, timeout=300, env=env,
        )  # fmt: skip
        assert done.returncode == code, done.stderr
        _same_data(copy / "data", ROOT / "examples" / "data")
        return
    assert argv[0] == "assay"
    if argv[1] == "run":  # the run the cluster, thin client and oldest server compare with
        done = full_run(command, server.url, tmp_path)
    else:
        full = [sys.executable, "-m", "assay", *argv[1:]]
        if argv[1] in ("profile", "suggest"):
            full += ["--remote", server.url]
        done = subprocess.run(full, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == code, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    if code != 0:
        assert f"assay: exit {code}: " in done.stderr  # the reason, on stderr


def _same_data(made: Path, committed: Path) -> None:
    import pyarrow.csv as pcsv
    import pyarrow.orc as po
    import pyarrow.parquet as pq

    readers = {".parquet": pq.read_table, ".orc": po.read_table, ".csv": pcsv.read_csv}
    names = sorted(p.name for p in committed.iterdir())
    assert sorted(p.name for p in made.iterdir()) == names
    for name in names:
        read = readers[Path(name).suffix]
        assert read(made / name).equals(read(committed / name)), name
