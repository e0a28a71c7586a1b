"""``assay.session()``: a Spark Connect session on an embedded server started for it (or on
a server given by its URL), whose server stops with it: when its ``with`` block ends, when
it is stopped, or at interpreter exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.executor.session.jvm import C1_ONLY
from tests.conftest import ROOT

pytestmark = pytest.mark.spark

# C1 only, as the tests' shared server (tests/conftest.py): these servers answer a few
# tiny queries, and what is tested is when they stop
SMALL = {
    "spark.driver.memory": "1g",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.extraJavaOptions": " ".join(C1_ONLY),
}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def handles(monkeypatch):
    """The handles ``assay.session()`` opens, as they are opened (for their servers)."""
    import assay.executor.session as sessions

    found = []
    real = sessions.open_session

    def recording(*args, **kwargs):
        handle = real(*args, **kwargs)
        found.append(handle)
        return handle

    monkeypatch.setattr(sessions, "open_session", recording)
    return found


def test_two_sessions_each_with_its_embedded_server_stopped_with_it(handles):
    from pyspark.sql.connect.session import SparkSession

    with assay.session(conf=SMALL) as first:
        second = assay.session(conf=SMALL)  # a second call: a server of its own
        assert isinstance(first, SparkSession) and isinstance(second, SparkSession)
        assert first.range(5).count() == 5
        assert second.sql("SELECT 41 + 1 AS x").collect()[0].x == 42
        checked = assay.validate(first.range(3), [{"type": "unique", "column": "id"}])
        assert checked.passed
        one, two = (h.pid for h in handles)
        assert one != two and _alive(one) and _alive(two)
    assert first.is_stopped and not _alive(one)  # the block's end stopped its server
    assert not Path(handles[0].state_dir).exists()
    assert _alive(two) and second.range(2).count() == 2  # the other one is untouched
    second.stop()
    assert second.is_stopped and not _alive(two)
    second.stop()  # stopping again is a no-op


def test_a_session_on_a_remote_server_leaves_the_server_running(server):
    with assay.session(remote=server.url) as a, assay.session(remote=server.url) as b:
        assert a is not b
        assert (a.range(3).count(), b.range(4).count()) == (3, 4)
    assert a.is_stopped and b.is_stopped
    assert server.spark.range(1).count() == 1  # the server (and its other sessions) go on


def test_conf_of_a_remote_session_is_the_sessions_own(server):
    key = "spark.sql.shuffle.partitions"
    with assay.session(remote=server.url, conf={key: "3"}) as mine:
        assert mine.conf.get(key) == "3"
    assert server.spark.conf.get(key) != "3"


def test_a_session_left_open_is_closed_at_interpreter_exit():
    code = (
        "import atexit, json, assay\n"
        "from assay.executor.session.owned import HANDLE\n"
        # registered first, so it runs last: pyspark's client must be closed by then, or
        # its own exit hook calls the stopped server (its ML cache cleanup) and waits out
        # the retry policy, 12 s
        "atexit.register(lambda: print(json.dumps(spark.client.is_closed), flush=True))\n"
        f"spark = assay.session(conf={SMALL!r})\n"
        "handle = spark.__dict__[HANDLE]\n"
        "assert spark.range(2).count() == 2\n"
        "print(json.dumps({'pid': handle.pid, 'dir': handle.state_dir}))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    env.pop("SPARK_REMOTE", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    *_, said, closed = done.stdout.splitlines()
    left = json.loads(said)
    assert json.loads(closed) is True, "the session's client was left open at exit"
    assert not _alive(left["pid"])
    assert not Path(left["dir"]).exists()  # closed, not only killed: its directory is gone
