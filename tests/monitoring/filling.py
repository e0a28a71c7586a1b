"""A small file system that fills up, for the metrics store's fault tests: a tmpfs mounted
in the test (the tests run as root, here and in CI)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_filesystem(base: Path, size: str = "64k") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``base/fs`` (as root), unmounted after."""
    where = base / "fs"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}); "
            "test_an_injected_enospc_leaves_the_file_as_it_was covers the write path"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def fill(directory: Path) -> Path:
    """Fill the file system of ``directory`` up: a file written until ENOSPC."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"f" * 512)
    return filler
