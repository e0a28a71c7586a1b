"""Read SQL executions and codegen metrics from the Spark UI's REST API (stdlib only).

Executions are counted by id: every query the server runs gets the next id, so the
executions of one measurement are those with an id above the last id seen before it.
The UI is fed by Spark's asynchronous listener bus, so :meth:`SparkUI.since` waits until
the list stops growing and nothing is still running.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass
class Executions:
    """The SQL executions of one measurement."""

    count: int
    roots: int  # executions that are not sub-executions of another one
    server_seconds: float  # sum of their durations as the server measured them
    failed: int
    descriptions: list[str]


class SparkUI:
    """The Spark UI of one application (the embedded Spark Connect server)."""

    def __init__(self, ui_url: str, timeout: float = 10.0) -> None:
        self.base = ui_url.rstrip("/")
        self.timeout = timeout
        self._app: str | None = None

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=self.timeout) as response:
            return json.load(response)

    @property
    def app_id(self) -> str:
        if self._app is None:
            apps = self._get("/api/v1/applications")
            self._app = str(apps[0]["id"])
        return self._app

    def executions(self) -> list[dict[str, Any]]:
        """Every SQL execution the UI retains, without plan details."""
        return list(self._get(
            f"/api/v1/applications/{self.app_id}/sql"
            "?details=false&planDescription=false&offset=0&length=100000"
        ))

    def mark(self) -> int:
        """The highest execution id so far (-1 when none)."""
        found = self.executions()
        return max((int(e["id"]) for e in found), default=-1)

    def since(self, mark: int, settle: float = 10.0) -> Executions:
        """Executions with an id above ``mark``, once the listener bus has caught up."""
        deadline = time.monotonic() + settle
        last: list[dict[str, Any]] | None = None
        while True:
            new = [e for e in self.executions() if int(e["id"]) > mark]
            running = [e for e in new if e.get("status") == "RUNNING"]
            if last is not None and len(new) == len(last) and not running:
                break
            if time.monotonic() > deadline:
                break
            last = new
            time.sleep(0.25)
        return Executions(
            count=len(new),
            roots=sum(1 for e in new if e.get("rootExecutionId", e["id"]) == e["id"]),
            server_seconds=round(sum(float(e.get("duration") or 0) for e in new) / 1000, 3),
            failed=sum(1 for e in new if e.get("status") == "FAILED"),
            descriptions=[_short(e.get("description", "")) for e in new],
        )

    def codegen_metrics(self) -> dict[str, Any]:
        """The driver's CodeGenerator histograms (generated class/method bytecode sizes),
        from the Dropwizard metrics servlet; empty when it is not served."""
        try:
            data = self._get("/metrics/json/")
        except Exception:  # noqa: BLE001 - diagnostics only
            return {}
        out: dict[str, Any] = {}
        for name, hist in (data.get("histograms") or {}).items():
            if "CodeGenerator" in name:
                short = name.split("CodeGenerator.", 1)[-1]
                out[short] = {k: hist.get(k) for k in ("count", "max", "mean", "p99")}
        return out


def _short(description: str) -> str:
    text = " ".join(str(description).split())
    return text[:160]
