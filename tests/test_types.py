"""The package is type-checked: mypy on src/assay (settings in pyproject.toml) is clean."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_mypy_is_clean_on_the_package():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "src/assay"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
