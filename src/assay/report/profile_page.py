"""What the profile's HTML page shows, read from its events alone (pure): a card per
column with its numbers, its histogram and its most frequent values as charts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.report import charts
from assay.report.text import number, percent

TOP_SHOWN = 12
"""The most frequent values a card's chart shows."""
TOP_WIDTHS = (110, 150)
"""Its labels' and bars' widths: with the counts beside them, about a card's width at
1,200 px (three cards a row), so its text is drawn at its own 11 px."""


@dataclass(frozen=True, slots=True)
class Card:
    """One column: its name and type, its facts (label, value as text), charts."""

    name: str
    type: str
    facts: tuple[tuple[str, str], ...]
    histogram: charts.Chart | None
    top: charts.Chart | None
    more_values: int


@dataclass(frozen=True, slots=True)
class Page:
    """The table's line and the columns' cards."""

    table: str
    source: str
    rows: int
    sample: float | None
    keys: tuple[str, ...]
    plans: tuple[str, ...]
    elapsed_ms: int
    cards: tuple[Card, ...]


def build(events: Sequence[Mapping[str, Any]]) -> Page:
    """The page of one profile's events."""
    table = next(e for e in events if e["event"] == "profile_table")
    cards = tuple(_card(e) for e in events if e["event"] == "profile_column")
    plans = tuple(f"plan {p['plan']}: {'; '.join(p['why'])}" for p in table["plans"])
    keys = tuple(", ".join(k) for k in table["candidate_keys"])
    return Page(table["table"], table["source"], table["row_count"], table["sample"], keys,
                plans, table["elapsed_ms"], cards)  # fmt: skip


def _facts(c: Mapping[str, Any]) -> list[tuple[str, str]]:
    facts = [
        ("rows", number(c["row_count"])),
        ("nulls", f"{number(c['nulls'])} ({percent(c['null_percent'])})"),
        ("distinct (approx.)", number(c["distinct_approx"])),
        ("distinct", number(c["distinct_exact"])),
        ("NaN", number(c["nan"])),
        ("min", number(c["min"])),
        ("max", number(c["max"])),
        ("mean", number(c["mean"])),
        ("stddev", number(c["stddev"])),
        ("sum", number(c["sum"])),
        ("empty strings", number(c["empty"])),
    ]
    if c["quantiles"]:
        facts.append(("quantiles", " · ".join(f"{q}: {number(v)}" for q, v in
                                             c["quantiles"].items())))  # fmt: skip
    if c["lengths"]:
        lengths = c["lengths"]
        facts.append(("length", f"{lengths['min']} to {lengths['max']}, mean "
                      f"{number(lengths['mean'])}"))  # fmt: skip
    for group in ("parses", "formats"):
        shares = c[group] or {}
        seen = [f"{k.replace('_', ' ')} {percent(100 * v)}" for k, v in shares.items() if v]
        if seen:
            facts.append(("reads as" if group == "parses" else "looks like", " · ".join(seen)))
    return [(label, value) for label, value in facts if value not in ("", " ()")]


def _card(c: Mapping[str, Any]) -> Card:
    histogram = charts.histogram(c["histogram"]["bins"]) if c["histogram"] else None
    top, more = None, 0
    values = c["top_values"] or []
    if values and c["count"]:
        shown = values[:TOP_SHOWN]
        more = len(values) - len(shown)
        rows = [(str(v["value"]), 100 * v["count"] / c["count"], "pass", f"{v['count']:,}")
                for v in shown]  # fmt: skip
        top = charts.percent_bars(
            rows, "top", "Most frequent values, percent of values", widths=TOP_WIDTHS
        )
    return Card(c["column"], c["type"], tuple(_facts(c)), histogram, top, more)
