"""``assay server start|status|stop``: the warm local Spark Connect server that later runs
use instead of starting their own (``assay.executor.session.warm``, docs/deployment.md).

Each command prints one ``server`` JSON line on stdout (the token never: the URL shows
``token=***``); notes go to stderr.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from assay.cli import options as opt
from assay.cli.console import err, guarded, out

server_app = typer.Typer(
    help="A warm local Spark server: started once, used by every later run until stopped.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Memory = Annotated[
    Optional[str],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option(
        "--memory",
        help="The server's heap, e.g. 4g (default: a quarter of the machine's memory, "
        "1-8 GiB, as for the embedded server).",
        show_default=False,
    ),
]


def _line(status: str, server: object | None, client: int | None) -> dict[str, object]:
    from assay.executor.session.warm import WarmServer, state_dir
    from assay.warm.client import socket_path

    line: dict[str, object] = {"event": "server", "status": status, "state_dir": str(state_dir())}
    if isinstance(server, WarmServer):
        line.update(server.public())
    line["client"] = None if client is None else {"pid": client, "socket": str(socket_path())}
    return line


@server_app.command()
def start(conf: opt.ServerConf = None, memory: Memory = None, debug: opt.Debug = False) -> None:
    """Start the warm server in the background (or report the one running): free loopback
    ports, a fresh token, its log and warehouse in the state directory; one small query
    warms it up before it is announced. The warm client starts with it: every later
    assay command runs in a fork of it, its imports already paid."""
    from assay.cli.options import parse_assignments
    from assay.executor.session import quiet_pyspark_logging
    from assay.executor.session.warm import start_warm, warm_up
    from assay.warm.client import enabled, start_client

    def action() -> None:
        server_conf = parse_assignments(conf or [], "--conf")
        if memory is not None:
            server_conf["spark.driver.memory"] = memory
        err("assay: starting the warm server")
        quiet_pyspark_logging()
        server, started = start_warm(server_conf)
        if started:
            warm_up(server)  # the first run is then as quick as the next ones
        client = start_client() if enabled() else None
        out(_line("started" if started else "running", server, client))
        if not started:
            err("assay: a warm server was already running; its settings are unchanged")

    guarded(debug, action)


@server_app.command()
def status(debug: opt.Debug = False) -> None:
    """Show the warm server (exit 0), or that none runs (exit 1); a stale record is
    removed, with a note."""
    from assay.executor.session.warm import find_warm
    from assay.warm.client import client_pid

    server = guarded(debug, lambda: find_warm(for_run=False))
    out(_line("running" if server is not None else "stopped", server, client_pid()))
    raise typer.Exit(0 if server is not None else 1)


@server_app.command()
def stop(debug: opt.Debug = False) -> None:
    """Stop the warm client and the warm server (the commands running finish first, up
    to 25 s) and remove their state and warehouse (exit 0 also when none was running)."""
    from assay.executor.session.warm import stop_warm
    from assay.warm.client import stop_client

    client = guarded(debug, stop_client)
    server = guarded(debug, lambda: stop_warm())
    out(_line("stopped" if server is not None else "not_running", server, client))
