"""``assay report``: render saved JSON lines as an HTML page and a Markdown summary.

The last run given is the report's; every earlier run (in the order given, and the
report table of ``--history``, read through Spark) draws the trends.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from assay.cli import options as opt
from assay.cli.console import err, guarded
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.report.openlineage_http import Lineage

Runs = Annotated[
    list[Path],
    typer.Argument(
        help="JSON lines of `assay run` (or --jsonReport files), oldest first: the last run "
        "is reported, the earlier ones draw its trends.",
        show_default=False,
    ),
]
Html = Annotated[
    Optional[Path],  # noqa: UP045 - typer needs Optional on 3.10
    typer.Option("--html", help="Write the self-contained HTML page here.", show_default=False),
]
Markdown = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--markdown",
        help="Write the Markdown summary here ('-': stdout). Default: stdout when no --html, "
        "--junit or --github.",
        show_default=False,
    ),
]
Junit = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "--junit",
        help="Write the JUnit XML report here: a test suite per table and comparison, a test "
        "case per rule.",
        show_default=False,
    ),
]
Github = Annotated[
    bool,
    typer.Option(
        "--github",
        help="Print GitHub Actions annotations (::error / ::warning workflow commands at each "
        "rule's file and line) on stdout.",
    ),
]
History = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--history",
        help="A report table (sparquet report with mode append), read through Spark for the "
        "trends (repeatable).",
        show_default=False,
    ),
]
HistoryFormat = Annotated[
    str,
    typer.Option(
        "--history-format", help="Format of --history: parquet, csv, json, orc, delta or table."
    ),
]


def report(
    runs: Runs,
    *,
    html: Html = None,
    markdown: Markdown = None,
    junit: Junit = None,
    github: Github = False,
    openlineage: opt.OpenLineage = None,
    openlineage_url: opt.OpenLineageUrl = None,
    openlineage_namespace: opt.OpenLineageNamespace = None,
    history: History = None,
    history_format: HistoryFormat = "parquet",
    remote: opt.Remote = None,
    debug: opt.Debug = False,
) -> None:
    """Render saved JSON lines as an HTML page, a Markdown summary, a JUnit XML report,
    GitHub Actions annotations or OpenLineage events."""

    def action() -> None:
        from assay.report.history import earlier_than, load_runs

        # before any reading: an output that cannot be written is the user's mistake
        fmt = history_format_of(history_format)
        _writable(
            (html, "--html"), (markdown, "--markdown"), (junit, "--junit"),
            (openlineage, "--openlineage"),
        )  # fmt: skip
        lineage = _lineage(openlineage, openlineage_url, openlineage_namespace)
        try:
            found = load_runs(runs)
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read the runs: {e}") from None
        *earlier, current = found
        if history:
            earlier = _read_history(history, fmt, remote) + earlier
        earlier = earlier_than(earlier, current)
        _write_files(current, earlier, html, junit)
        if github:
            _annotate(current)
        if markdown is not None or not (html or junit or github or openlineage or openlineage_url):
            _markdown(current, earlier, markdown)
        _step_summary(current, earlier)
        if lineage is not None:
            _send_lineage(lineage, current)

    guarded(debug, action)


def _writable(*outputs: tuple[Path | str | None, str]) -> None:
    """Every output file can be written (``-`` is stdout)."""
    from assay.report.files import writable

    for path, what in outputs:
        if path is not None and str(path) != "-":
            why = writable(str(path), append=False)
            if why is not None:
                raise ConfigError(f"{what} {path}: cannot write it: {why}")


def _write_files(
    current: list[dict], earlier: list[list[dict]], html: Path | None, junit: Path | None
) -> None:
    from assay.report.files import atomic_write
    from assay.report.junit import junit_xml
    from assay.report.render import render_html

    if html is not None:
        atomic_write(str(html), render_html(current, earlier).encode())
        err(f"assay: wrote {html}")
    if junit is not None:
        atomic_write(str(junit), junit_xml(current))
        err(f"assay: wrote {junit}")


def _lineage(path: Path | None, url: str | None, namespace: str | None) -> Lineage | None:
    import os

    from assay.report.openlineage_http import lineage_of

    return lineage_of(None if path is None else str(path), url, namespace, os.environ)


def _send_lineage(lineage: Lineage, current: list[dict]) -> None:
    """The OpenLineage events to their file, then to their server, after the other
    outputs; a POST that fails is exit 3 (as after a run)."""
    from assay.report.files import ReportFailure, atomic_write
    from assay.report.openlineage import json_lines, openlineage_events
    from assay.report.openlineage_http import LineageFailure, post_events

    found = openlineage_events(current, lineage.namespace)
    if lineage.path is not None:
        atomic_write(lineage.path, json_lines(found))
        err(f"assay: wrote {lineage.path}")
    if lineage.url is not None:
        try:
            post_events(found, lineage)
        except LineageFailure as e:
            raise ReportFailure(f"OpenLineage: {e}") from None
        err(f"assay: sent {len(found)} OpenLineage events to {lineage.target}")


def _markdown(current: list[dict], earlier: list[list[dict]], markdown: str | None) -> None:
    from assay.report.files import atomic_write
    from assay.report.render import render_markdown

    text = render_markdown(current, earlier)
    if markdown in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write(markdown, text.encode())
        err(f"assay: wrote {markdown}")


def _annotate(current: list[dict]) -> None:
    """The annotations on stdout, where GitHub's documentation has workflow commands."""
    from assay.report.github import annotations_of

    for annotation in annotations_of(current):
        sys.stdout.write(annotation.command() + "\n")
    sys.stdout.flush()


def _step_summary(current: list[dict], earlier: list[list[dict]]) -> None:
    """In a GitHub Actions step, the Markdown summary appended to the job summary."""
    import os

    from assay.report.github import append_summary

    try:
        if append_summary(os.environ, current, earlier):
            err("assay: appended the summary to $GITHUB_STEP_SUMMARY")
    except OSError as e:
        err(f"warning: GITHUB_STEP_SUMMARY {os.environ.get('GITHUB_STEP_SUMMARY')}: {e}")


def history_format_of(text: str) -> str:
    """``--history-format``: one of :data:`~assay.report.history.HISTORY_FORMATS`."""
    from assay.config.node import unknown_message
    from assay.report.history import HISTORY_FORMATS

    fmt = text.strip().lower()
    if fmt not in HISTORY_FORMATS:
        raise ConfigError(
            f"--history-format: {unknown_message('format', text, HISTORY_FORMATS)}",
            hint="a report table is read as parquet, csv, json, orc or delta, or as a "
            "catalog table's name with table",
        )
    return fmt


def history_location(path: str, fmt: str) -> str:
    """Where Spark reads a ``--history`` table: a catalog table's name and a URI as
    given, a path absolute (a relative one is the current directory's, not the server's)."""
    from assay.dialects.sources import is_uri

    if fmt == "table" or is_uri(path):
        return path
    return str(Path(path).resolve())


def _read_history(paths: list[str], fmt: str, remote: str | None) -> list[list[dict]]:
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.executor.spark_errors import to_assay_error
    from assay.report.history import read_history

    quiet_pyspark_logging()
    found: list[list[dict]] = []
    with open_session(remote) as handle:
        for path in paths:
            try:
                found += read_history(handle.spark, history_location(path, fmt), fmt)
            except ValueError as e:
                raise ConfigError(f"--history {path}: {e}") from None
            except Exception as exc:  # noqa: BLE001 - classified: missing path, bad format
                raise to_assay_error(exc, f"--history {path}: cannot read it", None) from None
    return found
