"""The ``assay`` command's entry point: the command runs in the warm client when one runs
(:mod:`assay.warm.client`: no imports to pay), else here (:func:`assay.cli.app.main`).
Nothing but the standard library is imported before that choice.

    python -m assay.cli.entry SOCKET   # the warm client's loop, which ``assay server start`` runs

starts the warm client's loop (:mod:`assay.warm.forking`), each of whose children runs a
command here: the command line is handed to it from this side, as :mod:`assay.warm`
never imports the command line."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def main() -> None:
    """Console-script entry point."""
    from assay.cli.collector import pause

    pause()  # until the run's first event: the start's objects are not scanned over and over
    from assay.warm.client import forward

    code = forward(sys.argv[1:])
    if code is not None:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from assay.cli.app import main as run_here

    run_here()


def command_line() -> Callable[[], None]:
    """The command line, built once for every command the warm client runs (building it
    evaluates every option's annotations), and what each of its children runs."""
    from assay.cli.app import command, main

    command()
    return main


def forked(path: str) -> None:
    """The warm client's loop on the socket ``path``, its children running commands here."""
    from assay.warm.forking import serve

    serve(path, command_line)


if __name__ == "__main__":
    forked(sys.argv[1])
