"""How the benchmark smoke tests run a benchmark script: as a user runs it, in a process of
its own from the checkout, on the session's server (no JVM of the script's own), and read
the JSON document it writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def on_server(server: Any, ui: bool = True) -> list[str]:
    """The flags that point a script at the session's server (and its UI, which counts
    the plans and the bytes read)."""
    return ["--remote", server.url, *(["--ui-url", server.ui_url] if ui else [])]


def benchmark_json(
    script: str,
    args: list[str],
    out: Path,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> Any:
    """``benchmarks/<script> ARGS --out OUT`` (in ``env``, else this process's
    environment), which must exit 0; the document it wrote."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args, "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    out.with_suffix(".log").write_text(done.stderr + done.stdout)  # its progress and tables
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())
