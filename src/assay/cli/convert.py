"""``assay convert``: the native config equivalent of any supported file (YAML on stdout,
or ``-o FILE``); what the native format cannot say is a config error at its place in the
original file (exit 2, nothing written)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as opt
from assay.cli.console import guarded
from assay.errors import ConfigError

Out = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the converted config to FILE (its relative paths relative to FILE's "
        "directory) instead of stdout (absolute paths).",
    ),
]


@opt.takes_run_options("convert")
def convert_command(
    configs: opt.Configs, *, output: Out = None, debug: opt.Debug = False, given: opt.Given
) -> None:
    """Write the native config that loads to the same tables and rules as the files
    (each rule commented with where it came from)."""
    from assay.api.converting import convert_with
    from assay.report.files import atomic_write

    def action() -> None:
        text = convert_with(configs, opt.run_options(given), out=output)
        if output is None:
            sys.stdout.write(text)
            return
        try:
            atomic_write(str(output), text.encode())
        except OSError as e:
            raise ConfigError(f"--output {output}: cannot write it: {e.strerror or e}") from None

    guarded(debug, action)
