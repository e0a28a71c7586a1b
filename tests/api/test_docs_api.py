"""docs/api.md: every ```python block runs, in order, in one namespace."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.spark

BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_every_python_block_of_the_api_doc_runs(server, spark, monkeypatch):
    text = (ROOT / "docs/api.md").read_text()
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 10
    monkeypatch.chdir(ROOT)
    # `assay.session()` (no URL) connects to $SPARK_REMOTE when set: the block showing it
    # runs on the session's server, not on a JVM of its own (a server started and stopped
    # with its session is tests/api/test_session.py's subject)
    monkeypatch.setenv("SPARK_REMOTE", server.url)
    namespace: dict[str, object] = {"spark": spark}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/api.md block {i}", "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"docs/api.md python block {i} failed:\n{block}") from error
