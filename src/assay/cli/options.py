"""Every CLI option, defined once and reused by the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

Configs = Annotated[
    list[Path],
    typer.Argument(
        help="Config files (YAML or JSON); their tables run together.", show_default=False
    ),
]
Remote = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(
        "--remote",
        "-r",
        envvar="SPARK_REMOTE",
        help="Spark Connect server, sc://host:port[/;params]. Default: an embedded local server.",
        show_default=False,
    ),
]
Var = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--var",
        "-v",
        help="Set a config variable, NAME=VALUE (repeatable); overrides the config's vars.",
        show_default=False,
    ),
]
Vars = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--vars", help="Variables as k1=v1,k2=v2 (data-validator style).", show_default=False
    ),
]
SampleSize = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--sample-size",
        min=0,
        max=1000,
        help="Sample failing rows per failed rule (overrides the config; 0 turns samples off).",
        show_default=False,
    ),
]
Concurrency = Annotated[
    int, typer.Option("--concurrency", min=1, max=64, help="Tables run at the same time.")
]
ServerConf = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--conf",
        help="Spark conf KEY=VALUE for the embedded server (repeatable).",
        show_default=False,
    ),
]
Progress = Annotated[
    Optional[bool],  # noqa: UP045
    typer.Option(
        "--progress/--no-progress",
        help="Progress lines on stderr. Default: on when stderr is a terminal.",
        show_default=False,
    ),
]
Format = Annotated[
    str, typer.Option("--format", help="text (for people) or json (one JSON line per table).")
]
Debug = Annotated[
    bool, typer.Option("--debug", envvar="ASSAY_DEBUG", help="Show tracebacks of internal errors.")
]
