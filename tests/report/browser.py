"""Headless Chromium for the report tests: dump a page's DOM after its scripts ran, take
screenshots, and collect what the page logged to the console. No network: every host
name resolves to nothing, so a request leaving the page would log an error."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--enable-logging=stderr",
    "--v=0",
)
CONSOLE = re.compile(r"CONSOLE(?:\(\d+\)|:\d+)\] \"(?P<message>.*)\", source: (?P<source>.*)")


def chromium() -> str:
    """The browser's path; skips the test without one unless ASSAY_REQUIRE_BROWSER=1."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("ASSAY_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is not installed and ASSAY_REQUIRE_BROWSER=1")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return found


@dataclass
class Visit:
    dom: str
    console: list[str]
    stderr: str


def run(tmp: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    argv = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, url]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def visit(tmp: Path, page: Path, fragment: str = "") -> Visit:
    """The DOM after the page's scripts ran, and its console messages."""
    done = run(tmp, page.as_uri() + fragment, "--dump-dom", "--virtual-time-budget=2000")
    console = [m["message"] for m in map(CONSOLE.search, done.stderr.splitlines()) if m]
    return Visit(done.stdout, console, done.stderr)


def screenshot(tmp: Path, page: Path, out: Path, width: int = 1280, height: int = 2000) -> Path:
    run(tmp, page.as_uri(), f"--screenshot={out}", f"--window-size={width},{height}")
    assert out.stat().st_size > 10_000
    print(f"screenshot: {out}")
    return out
