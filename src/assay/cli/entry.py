"""The ``assay`` command's entry point: the command runs in the warm client when one runs
(:mod:`assay.cli.warm_client`: no imports to pay), else here (:func:`assay.cli.app.main`).
Nothing but the standard library is imported before that choice."""

from __future__ import annotations

import os
import sys


def main() -> None:
    """Console-script entry point."""
    from assay.cli.warm_client import forward

    code = forward(sys.argv[1:])
    if code is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from assay.cli.app import main as run_here

    run_here()
