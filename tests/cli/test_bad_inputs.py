"""A corpus of broken inputs, run as users run them: every format, every command.

Each case of ``bad_inputs/cases.yaml`` is one command line of ``assay`` run in a fresh copy of
``bad_inputs/`` (its configs, with the data they read written into ``data/`` by the session's
Spark server), in this process (``typer.testing.CliRunner``: stdout and stderr apart) or, for
the cases marked ``subprocess: true``, as ``python -m assay``. ``$REMOTE`` in the arguments is
the test server's URL, ``$UNREACHABLE`` a port nobody listens on; ``$CWD`` (in arguments and
expected fragments) is the copy's directory.

Every case asserts:

- the exit code (``exit``: 2 for a mistake in a config or the command line, 3 for Spark or the
  environment failing);
- that stderr holds every ``stderr`` fragment (the place: ``file:line path`` for config
  mistakes, the option for command-line ones) and no ``stderr_not`` one;
- that stderr shows no Python traceback, no Java frame or JVM stack trace, none of assay's
  internal SQL, no "internal error" and no Spark plan (an analysed or unresolved plan tree);
- that stdout is JSON lines only (each line one JSON object, events valid against the events
  schema), empty after an exit 2 (but for ``check``), and for ``run`` and ``compare`` ending
  with the ``summary`` on every other exit, also when no server could be reached (its
  ``exit_code`` the process's), with the
  ``events``, ``tables``, ``comparisons``, ``results`` and ``summary`` the case states;
- that ``check`` prints exactly one ``check`` line, valid or not: ``valid`` true on exit 0,
  else false with every problem, each problem's message (its first line) on stderr too;
- that a run of a data-validator file ends stderr with its ``DATA_VALIDATOR_STATUS`` line;
- what was written: the ``writes`` paths, each complete (a Spark output has its ``_SUCCESS``
  and no ``_temporary``), and nothing else new in the copy.

A case that fails on today's code carries ``xfail: <what it does today>``: it is a strict
xfail, so the fix shows up as an XPASS to remove the mark.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES: list[dict] = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))
FORMATS = ("native", "data_validator", "metorikku", "sparquet", "spark_data_test")
COMMANDS = ("run", "check", "explain", "compare", "report")
# commands the corpus tries too, without a quota of cases of their own
MORE_COMMANDS = ("suggest", "profile", "history", "convert")
KNOWN_KEYS = {
    "id", "args", "exit", "stderr", "stderr_not", "events", "tables", "comparisons",
    "results", "summary", "writes", "subprocess", "xfail",
}  # fmt: skip

FORBIDDEN = {
    "a Python traceback": "Traceback (most recent call last)",
    "a Java frame": "\tat org.apache",
    "a JVM stack trace": "JVM stacktrace",
    "assay's internal names": "_assay_",
    "assay's SQL wrapper": "WITH _validation_df AS",
}
INTERNAL_ERROR = "internal error"
PLAN = re.compile(
    r"^\s*(\+-|:-) "  # a plan tree's branches
    r"|'(UnresolvedRelation|Project|CreateViewCommand|Filter|Aggregate) "  # unresolved nodes
    r"|\b[A-Za-z_]\w*#\d+L?\b",  # attribute ids of an analysed plan (id#1025L)
    re.M,
)
JAVA_FRAME = re.compile(r"\n\s*at [\w$.]+\(|JVM stacktrace")
EVENT_KINDS = {"result", "table", "comparison", "summary", "check", "plan", "passes"}
STATUS_PREFIX = "DATA_VALIDATOR_STATUS="


def _param(case: dict):
    marks = ()
    if case.get("xfail"):
        marks = (pytest.mark.xfail(strict=True, reason=case["xfail"]),)
    return pytest.param(case, id=case["id"], marks=marks)


def make_data(spark, base: Path) -> None:
    """The small tables the corpus reads, written once per module by the server."""
    base.mkdir(parents=True, exist_ok=True)
    people = [
        (
            i,
            "x" if i % 2 else "y",
            f"n{i}" if i % 5 else None,
            20 + i,
            i * 1000,
            f"u{i}@example.com" if i != 3 else "bad",
            dt.date(2024, 1, i),
        )
        for i in range(1, 11)
    ]
    frames = {
        "people.parquet": (
            people,
            "id bigint, s string, name string, age int, big bigint, email string, day date",
        ),
        "orders.parquet": ([(i, float(i)) for i in range(1, 6)], "order_id int, amount double"),
        "src.parquet": ([(1, 1.0), (2, 2.0), (3, 3.0)], "id int, v double"),
        "tgt.parquet": ([(1, 1.0), (2, 2.5), (4, 4.0)], "id int, v double"),
    }
    for name, (rows, schema) in frames.items():
        spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(base / name))
    (base / "src.csv").write_text("id,v\n1,1.0\n2,2.0\n3,3.0\n")
    (base / "tgt.csv").write_text("id,v\n1,1.0\n2,2.5\n4,4.0\n")
    (base / "blocker").write_text("a plain file: nothing can be written under it\n")


@pytest.fixture(scope="module")
def corpus(spark, tmp_path_factory) -> Path:
    """The corpus with its data: each case runs in a copy of this directory."""
    base = tmp_path_factory.mktemp("corpus") / "c"
    shutil.copytree(CORPUS, base, ignore=shutil.ignore_patterns("cases.yaml", "__pycache__"))
    make_data(spark, base / "data")
    return base


@pytest.fixture(scope="module")
def unreachable() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"sc://localhost:{port}"


def _snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _invoke(args: list[str], cwd: Path, in_subprocess: bool) -> tuple[int, str, str]:
    if in_subprocess:
        env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        proc = subprocess.run(
            [sys.executable, "-m", "assay", *args],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=cwd,
            env=env,
        )
        return proc.returncode, proc.stdout, proc.stderr
    from typer.testing import CliRunner

    from assay.cli.app import app

    done = CliRunner().invoke(app, args)
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(done.exception))
        pytest.fail(f"assay {' '.join(args)} raised instead of exiting:\n{trace}")
    return done.exit_code, done.stdout, done.stderr


def _events(stdout: str) -> list[dict]:
    events = []
    for number, line in enumerate(stdout.splitlines(), 1):
        try:
            event = json.loads(line)
        except ValueError:
            pytest.fail(f"stdout line {number} is not JSON: {line[:200]!r}")
        assert isinstance(event, dict), f"stdout line {number} is not a JSON object: {line!r}"
        if event.get("event") in EVENT_KINDS:
            validate_event(event)
        for key in ("error", "message"):  # Spark's words without its Java stack traces
            frame = JAVA_FRAME.search(str(event.get(key) or ""))
            assert frame is None, f"line {number}'s {key} shows a Java frame: {frame[0]!r}"
        events.append(event)
    return events


def _assert_check_line(events: list[dict], code: int, stderr: str, shown: str) -> None:
    """``assay check`` prints one ``check`` line, valid or not; an invalid config's lists
    every problem, each also said on stderr."""
    assert [e["event"] for e in events] == ["check"], f"not one check line{shown}"
    (line,) = events
    assert line["valid"] is (code == 0), f"valid is {line['valid']}, exit {code}{shown}"
    assert bool(line["problems"]) is (code != 0), shown
    for problem in line["problems"]:
        first = problem["message"].splitlines()[0]
        assert first in stderr, f"problem {first!r} is not on stderr{shown}"
        if problem["path"] is not None:
            line_no = f":{problem['line']}" if problem["line"] is not None else ""
            place = f"{problem['file']}{line_no} {problem['path']}"
            assert place in stderr, f"problem place {place!r} is not on stderr{shown}"


def _verdict(event: dict) -> str:
    if event.get("error") is not None:
        return "error"
    return "passed" if event["passed"] else "failed"


def _assert_written(case: dict, work: Path, before: set[str]) -> None:
    writes = [w.rstrip("/") for w in case.get("writes", [])]
    new = sorted(_snapshot(work) - before)
    stray = [p for p in new if not any(p == w or p.startswith(w + "/") for w in writes)]
    # Directories holding a declared write are new too.
    stray = [p for p in stray if not any(w.startswith(p + "/") for w in writes)]
    assert not stray, f"written, but not expected: {stray[:10]}"
    for write in writes:
        path = work / write
        assert path.exists(), f"{write} was not written"
        if path.is_dir():
            assert (path / "_SUCCESS").exists(), f"{write} is written half-way (no _SUCCESS)"
            assert not list(path.rglob("_temporary")), f"{write} has a _temporary directory"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input(case, corpus, server, unreachable, tmp_path, monkeypatch):
    work = tmp_path / "w"
    shutil.copytree(corpus, work)
    before = _snapshot(work)
    places = {"$REMOTE": server.url, "$UNREACHABLE": unreachable}
    args = [places.get(a, a).replace("$CWD", str(work)) for a in case["args"]]
    monkeypatch.chdir(work)
    monkeypatch.delenv("ASSAY_BAD_INPUTS_SURELY_UNSET", raising=False)
    monkeypatch.delenv("CONFIG_FAILED_DF_PATH_PREFIX", raising=False)
    monkeypatch.delenv("ASSAY_DEBUG", raising=False)
    if "$UNREACHABLE" in case["args"]:  # the refusal's retries: 2 s, not 12 s of the default
        monkeypatch.setenv("ASSAY_CONNECT_TIMEOUT", "4")

    code, stdout, stderr = _invoke(args, work, case.get("subprocess", False))
    shown = f"\n--- stderr:\n{stderr}\n--- stdout:\n{stdout[:3000]}"

    assert code == case["exit"], f"exit {code}, expected {case['exit']}{shown}"
    for fragment in case.get("stderr", []):
        fragment = fragment.replace("$CWD", str(work))
        assert fragment in stderr, f"stderr lacks {fragment!r}{shown}"
    for fragment in case.get("stderr_not", []):
        assert fragment not in stderr, f"stderr shows {fragment!r}{shown}"
    for what, text in FORBIDDEN.items():
        assert text not in stderr, f"stderr shows {what}{shown}"
    assert INTERNAL_ERROR not in stderr.lower(), f"stderr shows an internal error{shown}"
    plan = PLAN.search(stderr)
    assert plan is None, f"stderr shows a Spark plan ({plan.group(0)!r}){shown}"

    events = _events(stdout)
    command = args[0]
    if command == "check":
        _assert_check_line(events, code, stderr, shown)
    elif code == 2:
        assert stdout == "", f"exit 2 ran nothing, yet stdout has lines{shown}"
    elif command in ("run", "compare"):  # past the config's validation: a summary
        assert events and events[-1]["event"] == "summary", f"no summary line last{shown}"
        assert events[-1]["exit_code"] == code
    if "events" in case:
        assert Counter(e["event"] for e in events) == Counter(case["events"]), shown
    for name, verdict in case.get("tables", {}).items():
        found = [e for e in events if e["event"] == "table" and e["table"] == name]
        assert len(found) == 1, f"no table line for {name}{shown}"
        assert _verdict(found[0]) == verdict, f"table {name}: {found[0]}"
    for name, verdict in case.get("comparisons", {}).items():
        found = [e for e in events if e["event"] == "comparison" and e["comparison"] == name]
        assert len(found) == 1, f"no comparison line for {name}{shown}"
        assert _verdict(found[0]) == verdict, f"comparison {name}: {found[0]}"
    for path, fields in case.get("results", {}).items():
        found = [e for e in events if e["event"] == "result" and e["location"]["path"] == path]
        assert len(found) == 1, f"no result at {path}{shown}"
        assert {k: found[0][k] for k in fields} == fields, found[0]
    if "summary" in case:
        summary = events[-1]
        assert {k: summary[k] for k in case["summary"]} == case["summary"], summary
    if command == "run" and any(a.startswith("data_validator/") for a in args):
        last = stderr.rstrip("\n").splitlines()[-1]
        assert last == f"{STATUS_PREFIX}{'PASS' if code == 0 else 'FAIL'}", shown

    _assert_written(case, work, before)


def test_check_and_run_agree_on_a_sparquet_file_without_source(corpus, tmp_path, monkeypatch):
    """Both refuse it before Spark starts: `check` is the dry run of `run`."""
    monkeypatch.chdir(corpus)
    for config in ("sparquet/ok.json", "sparquet/unknown_rule_type.json"):
        checked, _, check_err = _invoke(["check", config], corpus, False)
        ran, _, run_err = _invoke(["run", config, "--remote", "sc://localhost:1"], corpus, False)
        assert checked == ran == 2, (config, check_err, run_err)
        assert "--source" in check_err and "--source" in run_err


def test_the_corpus_covers_every_format_and_command():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "case ids repeat"
    assert len(CASES) >= 120
    for case in CASES:
        assert set(case) <= KNOWN_KEYS, (case["id"], set(case) - KNOWN_KEYS)
        assert case["args"][0] in COMMANDS + MORE_COMMANDS, case["id"]
        assert case["exit"] in (0, 1, 2, 3), case["id"]
        if case["exit"] in (2, 3):
            assert case.get("stderr"), f"{case['id']}: an error case names its place"
    by_format = Counter(c["id"].split("/")[0] for c in CASES)
    for fmt in FORMATS:
        assert by_format[fmt] >= 10, (fmt, by_format)
    by_command = Counter(c["args"][0] for c in CASES)
    assert all(by_command[c] >= 5 for c in COMMANDS), by_command
    for fmt in FORMATS:
        commands = {c["args"][0] for c in CASES if c["id"].startswith(fmt + "/")}
        assert {"run", "check", "explain"} <= commands, (fmt, commands)


def test_every_file_of_the_corpus_is_used():
    """Every file is a case's argument, or named by one (a metrics store a config reads)."""
    used = {a for c in CASES for a in c["args"]}
    files = {
        str(p.relative_to(CORPUS))
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name != "cases.yaml"
    }
    named = {
        str((CORPUS / arg).parent.relative_to(CORPUS) / name)
        for arg in used
        if (CORPUS / arg).is_file()
        for name in re.findall(r"[\w.-]+\.\w+", (CORPUS / arg).read_text(encoding="utf-8"))
    }
    assert files <= used | named, sorted(files - used - named)
