"""The warm server's state file, without Spark: where it lives, that only a private file
of the user's is trusted, and that a record naming no live server is stale."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict
from pathlib import Path

import pytest

from assay.executor.session import warm
from assay.version import __version__


def _record(**changes: object) -> warm.WarmServer:
    fields = {
        "pid": os.getpid(), "port": 1, "ui_port": None, "token": "secret-token", "started": 0.0,
        "assay_version": __version__, "pyspark_version": warm.pyspark_version(),
        "log": "/x/server.log", "warehouse": "/x/warehouse", "conf": {},
    }  # fmt: skip
    return warm.WarmServer(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("ASSAY_NO_WARM_SERVER", raising=False)
    return tmp_path / "state"


def test_the_state_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("ASSAY_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert warm.state_dir() == tmp_path / "assay"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert warm.state_dir() == tmp_path / ".local" / "state" / "assay"


def test_the_record_is_private_and_round_trips(state):
    record = _record()
    path = warm.write_state(record)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert warm.read_state() == record
    assert "secret-token" not in json.dumps(record.public()) + repr(record)


def test_a_record_others_can_read_is_ignored(state):
    path = warm.write_state(_record())
    os.chmod(path, 0o644)
    notes: list[str] = []
    assert warm.read_state(notes.append) is None
    assert "readable only by you" in notes[0]


def test_a_malformed_record_is_ignored(state):
    path = warm.write_state(_record())
    path.write_text("{not json")
    notes: list[str] = []
    assert warm.read_state(notes.append) is None and "not a warm server" in notes[0]


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"assay_version": "0.0.0"}, "started by assay 0.0.0"),
        ({"pyspark_version": "3.0.0"}, "pyspark 3.0.0"),
        ({}, "is not running"),  # this process: alive, but not a Connect server
        ({"pid": 2**22 + 7}, "is not running"),
    ],
)
def test_a_stale_record_is_removed_with_a_note(state, changes, why):
    warm.write_state(_record(**changes))
    notes: list[str] = []
    assert warm.find_warm(notes.append) is None
    assert "is stale" in notes[0] and why in notes[0]
    assert not (state / warm.STATE_FILE).exists()


def test_discovery_can_be_turned_off(state, monkeypatch):
    warm.write_state(_record(pid=2**22 + 7))
    monkeypatch.setenv("ASSAY_NO_WARM_SERVER", "1")
    assert warm.find_warm(lambda line: pytest.fail(line)) is None
    assert (state / warm.STATE_FILE).exists()  # untouched


def test_a_record_round_trips_through_json():
    record = _record(conf={"spark.sql.shuffle.partitions": "4"})
    assert warm.WarmServer(**json.loads(json.dumps(asdict(record)))) == record


def test_the_class_data_archive_is_written_by_a_second_server(state, tmp_path, monkeypatch):
    """A machine that starts one server never writes the archive; the second cold start
    (or a first warm server) does, once; later starts map it."""
    from assay.executor.session import jvm

    java = tmp_path / "java"
    java.write_text("")
    monkeypatch.delenv("ASSAY_CDS", raising=False)
    assert jvm.cds_options(str(java), "4.3.0", "", eager=False) == ([], None)  # seen
    options, part = jvm.cds_options(str(java), "4.3.0", "", eager=False)
    assert part is not None and options == [f"-XX:ArchiveClassesAtExit={part}"]
    assert jvm.cds_options(str(java), "4.3.0", "", eager=True) == ([], None)  # one writer
    Path(part).write_bytes(b"cut short")
    jvm.finish_archive(part, completed=False)  # SIGKILLed while writing: dropped
    assert not Path(part).exists()
    options, part = jvm.cds_options(str(java), "4.3.0", "", eager=False)  # written again
    assert part is not None
    Path(part).write_bytes(b"archive")
    jvm.finish_archive(part, completed=True)
    archive = str(Path(part).with_suffix(".jsa"))
    options, part = jvm.cds_options(str(java), "4.3.0", "", eager=False)
    assert options == [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto"] and part is None
    assert jvm.cds_options(str(java), "4.3.1", "", eager=True)[1]  # another pyspark: its own
    assert jvm.cds_options(str(java), "4.3.0", "-Xshare:off", eager=True) == ([], None)
    monkeypatch.setenv("ASSAY_CDS", "0")
    assert jvm.cds_options(str(java), "4.3.0", "", eager=True) == ([], None)


def test_assay_server_sees_the_record_when_runs_are_told_to_ignore_it(state, monkeypatch):
    """ASSAY_NO_WARM_SERVER is for runs: `assay server status` and `start` still see a
    running server (else start would record a second one over the first)."""
    warm.write_state(_record(pid=2**22 + 7))
    monkeypatch.setenv("ASSAY_NO_WARM_SERVER", "1")
    notes: list[str] = []
    assert warm.find_warm(notes.append, for_run=False) is None  # looked at: stale, removed
    assert "is stale" in notes[0] and not (state / warm.STATE_FILE).exists()
