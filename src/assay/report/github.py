"""GitHub Actions: a run's failures as workflow-command annotations, and its Markdown
summary appended to the job summary (``$GITHUB_STEP_SUMMARY``), from the events alone.

The runner reads workflow commands from a step's stdout and stderr alike (actions/runner
``ScriptHandler`` hands both streams to the ``OutputManager`` that processes commands;
GitHub's documentation names stdout only). ``assay run`` keeps stdout for JSON lines, so
it writes its annotations on stderr; ``assay report --github`` writes them on stdout
(docs/reports.md#github-actions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.report import model
from assay.report.junit import case_name

Event = dict[str, Any]
LEVELS = {"fail": "error", "error": "error", "warn": "warning"}
"""The annotation of each severity that is not a pass."""
OFF = ("0", "false", "no", "off")
"""``ASSAY_GITHUB`` values that turn the GitHub Actions integration off."""


@dataclass(frozen=True, slots=True)
class Annotation:
    """One ``::error`` or ``::warning`` workflow command."""

    level: str
    message: str
    title: str
    file: str | None = None
    line: int | None = None

    def command(self) -> str:
        """The workflow command line: ``::error file=F,line=N,title=T::message``."""
        props = [("file", self.file), ("line", self.line), ("title", self.title)]
        given = ",".join(f"{k}={escape_property(v)}" for k, v in props if v not in (None, ""))
        return f"::{self.level} {given}::{escape_data(self.message)}"


def escape_data(value: object) -> str:
    """A command's message as the runner reads it back (actions/toolkit's
    ``escapeData``): ``%``, CR and LF percent-encoded, so a message is one line.

    >>> escape_data("100% bad\\nrows\\r")
    '100%25 bad%0Arows%0D'
    """
    return str(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: object) -> str:
    """A command's property value (``escapeProperty``): as :func:`escape_data`, and
    ``:`` and ``,`` too, which end a property.

    >>> escape_property("a.yaml:3, b")
    'a.yaml%3A3%2C b'
    """
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotations_of(events: Sequence[Event]) -> list[Annotation]:
    """An annotation per rule, table error and comparison that did not pass, at its
    config file and line: the errors first (GitHub shows 10 of each level per step), each
    level in config order, the comparisons after the tables."""
    run = model.build(events)
    found: list[Annotation] = []
    for table in run.tables:
        found += [_rule(table.name, r) for r in table.rules if r.severity in LEVELS]
        if table.error:
            at = next((e for e in events if _is_table(e, table.name)), {})
            found.append(_placed("error", table.error, f"assay: table {table.name}", at))
    for c in run.comparisons:
        if c.severity in LEVELS:
            message = c.error or str(c.event.get("message", ""))
            title = f"assay: comparison {c.name}"
            found.append(_placed(LEVELS[c.severity], message, title, c.event))
    return sorted(found, key=lambda a: a.level != "error")


def _is_table(event: Event, name: str) -> bool:
    return event.get("event") == "table" and event.get("table") == name


def _rule(table: str, rule: model.Rule) -> Annotation:
    parts = [rule.message]
    if rule.threshold:
        parts.append(f"expected: {rule.threshold}")
    parts.append(rule.verdict)
    title = f"assay: {table}: {case_name(rule)}"
    return _placed(LEVELS[rule.severity], " | ".join(parts), title, rule.event)


def _placed(level: str, message: str, title: str, event: Event) -> Annotation:
    where = event.get("location") or {}
    line = where.get("line")
    return Annotation(
        level,
        message,
        title,
        file=where.get("file") or None,
        line=line if isinstance(line, int) else None,
    )


# --- the job's environment ----------------------------------------------------------------


def enabled(environ: Mapping[str, str]) -> bool:
    """Whether to talk to GitHub Actions at all (``ASSAY_GITHUB=false`` turns it off)."""
    return environ.get("ASSAY_GITHUB", "").strip().lower() not in OFF


def in_actions(environ: Mapping[str, str]) -> bool:
    """Whether this is a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    return enabled(environ) and environ.get("GITHUB_ACTIONS") == "true"


def append_summary(
    environ: Mapping[str, str], events: Sequence[Event], history: Sequence[Sequence[Event]] = ()
) -> str | None:
    """Append the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set: the file
    the step's summary is read from after the step (appended to, never replaced: earlier
    summaries of the step stay). Returns the path appended to."""
    path = environ.get("GITHUB_STEP_SUMMARY", "")
    if not path or not enabled(environ):
        return None
    from assay.report.render import render_markdown

    text = render_markdown(events, history)
    with open(path, "a", encoding="utf-8") as handle:  # O_APPEND: after what is there
        handle.write("\n" + text)
    return path


def publish(
    events: Sequence[Event],
    environ: Mapping[str, str],
    write: Callable[[str], None],
    *,
    annotate: bool,
) -> list[str]:
    """What ``assay run`` does for GitHub Actions after a run: the summary appended to
    ``$GITHUB_STEP_SUMMARY``, and (``annotate``, in a GitHub Actions step) each annotation
    written by ``write``. Returns the problems (a summary that could not be appended)."""
    problems: list[str] = []
    try:
        append_summary(environ, events)
    except OSError as e:
        problems.append(f"GITHUB_STEP_SUMMARY {environ.get('GITHUB_STEP_SUMMARY')}: {e}")
    if annotate and in_actions(environ):
        for annotation in annotations_of(events):
            write(annotation.command())
    return problems
