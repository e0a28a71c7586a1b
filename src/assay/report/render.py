"""The one report renderer: a run's events (plus earlier runs, for trends) as a
self-contained HTML page, or as a Markdown summary.

Both are jinja2 templates (``templates/``) over :mod:`assay.report.model`. The HTML one
is autoescaped, so a rule name, message or sample value is always text; the Markdown one
escapes every value with :func:`markdown_text`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from assay.report import model

Event = dict[str, Any]
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def render_html(
    events: Sequence[Event],
    history: Sequence[Sequence[Event]] = (),
    *,
    email: bool = False,
    open_samples: bool = True,
) -> str:
    """The HTML report of one run (``events``), with a trend per rule when ``history``
    (earlier runs' events, oldest first) is given. ``email``: without the filters and
    the script (mail clients drop both), for an email body."""
    run = model.build(events, history)
    selected = "".join(
        f",#tbl-{t.anchor}:checked~nav label[for=tbl-{t.anchor}]" for t in run.tables
    )
    hidden = "".join(
        f"#tbl-{t.anchor}:checked~main section.table:not(.t-{t.anchor}),"
        f"#tbl-{t.anchor}:checked~main section.overview{{display:none}}\n"
        for t in run.tables
    )
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            run=run,
            email=email,
            open_samples=open_samples,
            selected_css=Markup(selected),
            table_css=Markup(hidden),
        )
    )


def render_markdown(events: Sequence[Event], history: Sequence[Sequence[Event]] = ()) -> str:
    """The Markdown summary of one run: status, the tables, and every rule that did not
    pass (with its trend when ``history`` is given)."""
    run = model.build(events, history)
    text = _markdown_environment().get_template("summary.md.j2").render(run=run)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def markdown_text(value: Any) -> str:
    """``value`` as literal Markdown text on one line: every character Markdown could
    read as syntax backslash-escaped, ``<`` ``>`` ``&`` as entities (GitHub renders HTML)."""
    text = " ".join(str("" if value is None else value).split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_code(value: Any) -> str:
    """``value`` as an inline code span, safe inside a table cell."""
    text = " ".join(str("" if value is None else value).split()).replace("`", "'")
    return "`" + text.replace("|", "\\|") + "`" if text else ""


def seconds(ms: int | None) -> str:
    """``850 ms``, ``3.2 s``, ``4 min 05 s``."""
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, rest = divmod(round(ms / 1000), 60)
    return f"{minutes} min {rest:02d} s"


def count(n: int | None) -> str:
    """``1,234,567``; nothing for no number."""
    return "" if n is None else f"{n:,}"


def trend_text(rule: model.Rule, last: int = 5) -> str:
    """A rule's last values, oldest first: ``0.3% → 0.2% → 0.3%``."""
    points = rule.points[-last:]
    if len(points) < 2:
        return ""
    shown = [
        "–"
        if p.value is None
        else (model.percent(p.value) if rule.trend_unit == "%" else f"{p.value:.6g}")
        for p in points
    ]
    return " → ".join(shown)


_HELPERS = {
    "seconds": seconds,
    "count": count,
    "percent": model.percent,
    "json": model.json_value,
    "trend_text": trend_text,
}


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("assay.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )
    env.globals.update(_HELPERS)
    return env


@cache
def _markdown_environment() -> jinja2.Environment:
    env = jinja2.Environment(  # noqa: S701 - Markdown: values escaped by the md filter
        loader=jinja2.PackageLoader("assay.report", "templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["md"] = markdown_text
    env.filters["code"] = markdown_code
    env.globals.update(_HELPERS)
    return env
