"""Client-side reports: the JSON report (``--jsonReport``, data-validator ``outputs``), the
HTML report (``--htmlReport``), pipes and email.

Files are written atomically: a unique temp file in the same directory, fsync,
``os.replace``, fsync of the directory; a reader never sees half a report. An ``append``
output adds one line (the report as one JSON document) with a single ``O_APPEND`` write.
"""

from __future__ import annotations

import contextlib
import os
import smtplib
import ssl
import tempfile
from collections.abc import Callable, Mapping, Sequence
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

import orjson

from assay.config import shell
from assay.errors import ConfigError, SparkFailure
from assay.ir.outputs import EmailReport, Report, ReportFile, ReportPipe

if TYPE_CHECKING:
    from assay.report.openlineage_http import Lineage

SMTP_TIMEOUT = 10.0


class ReportFailure(SparkFailure):
    """A report could not be written, piped or sent (exit 3: the checks did run)."""

    code = "REPORT_FAILED"


def json_document(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The JSON report: the run's events as one document, with its summary up front."""
    summary = next((e for e in reversed(events) if e.get("event") == "summary"), None)
    return {
        "schema_version": 1,
        "status": summary["status"] if summary else "ERROR",
        "summary": summary,
        "events": list(events),
    }


def json_bytes(events: Sequence[dict[str, Any]]) -> bytes:
    return orjson.dumps(json_document(events), default=str)


# --- files --------------------------------------------------------------------------------


def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + ``os.replace``)."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    fd, temp = tempfile.mkstemp(prefix=".assay-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def append_line(path: str, data: bytes) -> None:
    """Append ``data`` and a newline in one ``O_APPEND`` write, then fsync."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def writable(path: str, append: bool) -> str | None:
    """Why ``path`` cannot be created (or appended to), or ``None`` when it can."""
    if os.path.isdir(path):
        return "it is a directory"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        return f"its directory {directory} does not exist"
    if os.path.exists(path):
        if append and not os.access(path, os.W_OK):
            return "it is not writable"
        if not os.access(directory, os.W_OK):
            return "its directory is not writable (the report is replaced atomically)"
    elif not os.access(directory, os.W_OK):
        return "its directory is not writable"
    return None


def preflight(reports: Sequence[Report], files: Mapping[str, str | None]) -> None:
    """Before any scan: every report file (``files``: the command line's, by option) can
    be written and every pipe program executed.

    Raises:
        ConfigError: listing the first output that cannot (exit 2, nothing ran).
    """
    for what, path in files.items():
        if path is not None:
            why = writable(path, append=False)
            if why is not None:
                raise ConfigError(f"{what} {path}: cannot write it: {why}")
    for report in reports:
        if isinstance(report, ReportFile):
            why = writable(report.path, report.append)
            if why is not None:
                raise ConfigError(
                    f"output file {report.path}: cannot write it: {why}", origin=report.origin
                )
        elif (
            isinstance(report, ReportPipe)
            and shell.executable(report.command, dict(report.env)) is None
        ):
            raise ConfigError(
                f"output pipe '{report.command}': its program is not an executable file "
                "(or not on PATH)",
                origin=report.origin,
            )


def write_reports(
    reports: Sequence[Report],
    events: Sequence[dict[str, Any]],
    *,
    files: Mapping[str, str | None],
    failed: bool,
    email_on_pass: bool,
    lineage: Lineage | None = None,
) -> list[str]:
    """Write every report (``files``: the command line's report files, by option; the
    OpenLineage events to ``lineage``); return the problems of those that failed
    (``ignoreError`` pipes excepted), each naming the output."""
    data = json_bytes(events)
    problems: list[str] = []

    def email_page() -> str:
        from assay.report.render import render_html  # jinja2: only when a page is written

        return render_html(events, email=True)

    attempts: list[tuple[str, Any]] = [
        (f"{what} {path}", lambda p=path, w=what: atomic_write(p, _file_bytes(w, events, data)))
        for what, path in files.items()
        if path is not None
    ]
    for report in reports:
        if isinstance(report, ReportFile):
            write = append_line if report.append else atomic_write
            attempts.append(
                (
                    f"{report.origin}: output file {report.path}",
                    lambda w=write, r=report: w(r.path, data),
                )
            )
        elif isinstance(report, ReportPipe):
            attempts.append(
                (
                    f"{report.origin}: output pipe '{report.command}'",
                    lambda r=report: _pipe(r, data),
                )
            )
        elif isinstance(report, EmailReport) and (failed or email_on_pass):
            attempts.append(
                (f"{report.origin}: email", lambda r=report: send_email(r, email_page()))
            )
    if lineage is not None:
        attempts += _lineage_attempts(lineage, events)
    for what, attempt in attempts:
        try:
            attempt()
        except Exception as e:  # noqa: BLE001 - each output fails on its own
            problems.append(f"{what}: {e}")
    return problems


def _file_bytes(option: str, events: Sequence[dict[str, Any]], document: bytes) -> bytes:
    """What the command line's report file of ``option`` holds."""
    if option == "--htmlReport":
        from assay.report.render import render_html  # jinja2: only when a page is written

        return render_html(events).encode()
    if option == "--junit":
        from assay.report.junit import junit_xml

        return junit_xml(events)
    return document


def _lineage_attempts(
    lineage: Lineage, events: Sequence[dict[str, Any]]
) -> list[tuple[str, Callable[[], None]]]:
    """The OpenLineage outputs, each named by its option: the JSON-lines file
    (atomically), then the POSTs."""
    from assay.report.openlineage import json_lines, openlineage_events
    from assay.report.openlineage_http import post_events

    found: list[tuple[str, Callable[[], None]]] = []
    path, url = lineage.path, lineage.url
    if path is not None:
        found.append(
            (
                f"--openlineage {path}",
                lambda: atomic_write(
                    path, json_lines(openlineage_events(events, lineage.namespace))
                ),
            )
        )
    if url is not None:
        found.append(
            (
                "OpenLineage",
                lambda: post_events(openlineage_events(events, lineage.namespace), lineage),
            )
        )
    return found


def _pipe(report: ReportPipe, data: bytes) -> None:
    try:
        done = shell.run_command(report.command, dict(report.env), stdin=data)
    except shell.CommandTimeout as e:
        if report.ignore_error:
            return
        raise RuntimeError(str(e)) from None
    if done.returncode != 0 and not report.ignore_error:
        err = " / ".join(done.stderr.strip().splitlines()[:3])
        raise RuntimeError(f"exited with status {done.returncode}" + (f": {err}" if err else ""))


# --- email --------------------------------------------------------------------------------


def send_email(report: EmailReport, page: str, timeout: float = SMTP_TIMEOUT) -> None:
    """Send the HTML report through ``smtp_host`` (``host`` or ``host:port``); STARTTLS
    with certificate checks when the server offers it. No authentication (as
    data-validator)."""
    host, _, port = report.smtp_host.partition(":")
    message = EmailMessage()
    message["Subject"] = report.subject
    message["From"] = report.sender
    message["To"] = ", ".join(report.to)
    if report.cc:
        message["Cc"] = ", ".join(report.cc)
    message.set_content("This report is HTML; open it in a mail client that shows HTML.")
    message.add_alternative(page, subtype="html")
    recipients = [*report.to, *report.cc, *report.bcc]
    with smtplib.SMTP(host, int(port or 25), timeout=timeout) as smtp:
        smtp.ehlo()
        if smtp.has_extn("starttls"):
            smtp.starttls(context=ssl.create_default_context())
            smtp.ehlo()
        smtp.send_message(message, to_addrs=recipients)
