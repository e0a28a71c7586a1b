"""What a Spark server's UI says of it now: its running jobs and its open Spark Connect
sessions (the UI's REST API and its Connect page; a server started by the tests)."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable

_SESSION_ROW = re.compile(
    r"<tr>\s*<td>[^<]*</td>\s*<td>\s*<a href=\"/connect/session/\?id=([0-9a-f-]{36})[^>]*>"
    r".*?</td>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>",
    re.S,
)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read().decode()


def running_jobs(ui_url: str) -> list[int]:
    """The ids of the Spark jobs running now."""
    app = json.loads(_get(f"{ui_url}/api/v1/applications"))[0]["id"]
    jobs = json.loads(_get(f"{ui_url}/api/v1/applications/{app}/jobs?status=running"))
    return [int(j["jobId"]) for j in jobs]


def open_sessions(ui_url: str) -> set[str]:
    """The ids of the Spark Connect sessions open now (no finish time on the Connect page)."""
    page = _get(f"{ui_url}/connect/?sessionstat.pageSize=100000")
    table = page.split("Request Statistics")[0]
    return {m[1] for m in _SESSION_ROW.finditer(table) if not m[2].strip()}


def within(seconds: float, done: Callable[[], bool]) -> float | None:
    """Seconds until ``done()`` held, or None if it did not within ``seconds``."""
    start = time.monotonic()
    while True:
        if done():
            return time.monotonic() - start
        if time.monotonic() - start > seconds:
            return None
        time.sleep(0.5)
