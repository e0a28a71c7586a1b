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

from assay.report import model, sidebyside

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
    selected = "".join(f",#tbl-{a}:checked~nav label[for=tbl-{a}]" for a, _ in run.units)
    hidden = "".join(
        f"#tbl-{a}:checked~main section.unit:not(.u-{a}),"
        f"#tbl-{a}:checked~main section.overview{{display:none}}\n"
        for a, _ in run.units
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


def render_profile_html(events: Sequence[Event]) -> str:
    """The HTML page of one profile (``profile_column`` and ``profile_table`` events): a
    card per column, its histogram and most frequent values as charts."""
    from assay.report import profile_page

    return _environment().get_template("profile.html.j2").render(page=profile_page.build(events))


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
    write = model.trend_shown(rule.trend_unit)
    shown = ["–" if p.value is None else write(p.value) for p in points]
    return " → ".join(shown)


def md_side(value: sidebyside.Cell) -> str:
    """One side's sample value in a Markdown cell: escaped, bold when it differs."""
    text = markdown_text(value.text)
    return f"**{text}**" if value.diff and text else text


def md_sample_row(row: sidebyside.SampleRow) -> str:
    """A side-by-side sample row as a Markdown table row: what the row is, its key, then
    ``source / target`` per column (blank when the samples hold neither)."""
    cells = [row.kind, *(markdown_text(k) for k in row.key)]
    for source, target in row.cells:
        blank = not source.text and not target.text
        cells.append("" if blank else f"{md_side(source)} / {md_side(target)}")
    return "| " + " | ".join(cells) + " |"


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
    env.globals["md_sample_row"] = md_sample_row
    env.globals.update(_HELPERS)
    return env
