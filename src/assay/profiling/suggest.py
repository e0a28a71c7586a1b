"""``assay suggest``: a starter native config from a profile's events, each rule
commented with its evidence.

The baseline is Deequ's default suggestion rules (``suggestions/rules`` of
awslabs/deequ), their conditions ported as written:

- ``CompleteIfCompleteRule`` (completeness = 1): ``not_null``;
- ``RetainCompletenessRule`` (0.2 < completeness < 1): ``missing_percent`` at most 1 - the
  lower bound of the 95% Wald interval of the completeness, rounded down to 2 decimals;
- ``UniqueIfApproximatelyUniqueRule`` (complete, approximate distinct count within 8% of
  the rows): ``unique``, once a group-by confirmed it (Deequ trusts the sketch alone);
- ``RetainTypeRule`` (a string column whose values all read as numbers or booleans): an
  ``expression`` that each value reads as that type;
- ``CategoricalRangeRule`` (a frequency table of a string or integral column, values seen
  once at most 10% of its entries): ``accepted_values``, most frequent first;
- ``FractionalCategoricalRangeRule`` (values seen once at most 40%, the most frequent
  covering 90% but not all): ``accepted_values`` of those with a ``tolerance`` of 1 - the
  Wald lower bound of their share (not when the full range is suggested);
- ``NonNegativeNumbersRule`` (a number column whose min >= 0): the lower bound 0 of the
  column's one ``range`` (a second ``range`` would fail a bad value twice).

Beyond Deequ: the observed types (``schema``), value ranges with a margin, string length
bounds, a row count band (none for an empty table, which gets its schema only and a
warning), freshness of date and timestamp columns, recognised formats (emails, UUIDs,
ISO dates) as regexes, candidate keys of two columns (``unique``), and the table's
``keys`` (``--keys``, else the first key the profile confirmed).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from typing import Any

from assay.ir.expr import Col
from assay.planner.sqltext import render_expr
from assay.profiling.plan import FORMATS, NUMERIC, parse_test

Event = Mapping[str, Any]
Z_95 = 1.959963984540054
"""The z-score of a 95% two-sided interval (Deequ's ``defaultConfidence``)."""
MIN_COMPLETENESS = 0.2
UNIQUE_MARGIN = 0.08
RANGE_MARGIN = Decimal("0.1")
"""A value range is widened by this share of its width on each side."""
ROW_BAND = (Decimal("0.5"), Decimal("1.5"))


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One rule: its YAML mapping (in key order) and the evidence behind it."""

    rule: dict[str, Any]
    evidence: str


def wald_lower(p: float, n: int) -> Decimal:
    """The lower bound of the 95% Wald interval of ``p`` over ``n`` records, rounded down
    to 2 decimals (Deequ's ``WaldIntervalStrategy``).

    >>> wald_lower(0.691, 1000)
    Decimal('0.66')
    """
    margin = Z_95 * math.sqrt(p * (1 - p) / n)
    return (Decimal(repr(p)) - Decimal(repr(margin))).quantize(Decimal("0.01"), ROUND_DOWN)


def _n(value: int) -> str:
    return f"{value:,}"


def column_suggestions(column: Event, rows: int) -> list[Suggestion]:
    """Every suggestion for one ``profile_column`` event."""
    found: list[Suggestion] = []
    for rule in (_completeness, _retain_type, _categorical, _range, _lengths, _formats,
                 _freshness):  # fmt: skip
        found += rule(column, rows)
    return found


def _completeness(c: Event, rows: int) -> list[Suggestion]:
    if rows == 0:
        return []
    name, nulls = c["column"], c["nulls"]
    if nulls == 0:
        evidence = f"0 nulls in {_n(rows)} rows (Deequ CompleteIfCompleteRule)"
        return [Suggestion({"type": "not_null", "column": name}, evidence)]
    completeness = (rows - nulls) / rows
    if not MIN_COMPLETENESS < completeness < 1:
        return []
    bound = (1 - wald_lower(completeness, rows)) * 100
    evidence = (
        f"{_n(nulls)} nulls in {_n(rows)} rows ({100 * nulls / rows:.4g}%); the bound is the"
        " 95% Wald interval's, rounded (Deequ RetainCompletenessRule)"
    )
    rule = {"type": "missing_percent", "column": name, "must_be": f"<= {bound.normalize():f}%"}
    return [Suggestion(rule, evidence)]


def key_suggestions(columns: Sequence[Event], table: Event) -> list[Suggestion]:
    """``unique`` for each candidate key a group-by confirmed: single columns under
    Deequ's ``UniqueIfApproximatelyUniqueRule`` condition, and pairs."""
    rows = table["row_count"]
    confirmed = [tuple(k) for k in table["candidate_keys"]]
    by_name = {c["column"]: c for c in columns}
    found = []
    for key in confirmed:
        if len(key) == 1:
            c = by_name[key[0]]
            approx = c["distinct_approx"] or 0
            if c["nulls"] != 0 or abs(1 - approx / rows) > UNIQUE_MARGIN:
                continue
            evidence = (
                f"{_n(rows)} distinct values in {_n(rows)} rows, no nulls (Deequ"
                " UniqueIfApproximatelyUniqueRule; confirmed exactly)"
            )
            found.append(Suggestion({"type": "unique", "column": key[0]}, evidence))
        else:
            evidence = f"each combination occurs once in {_n(rows)} rows (a candidate key)"
            found.append(Suggestion({"type": "unique", "columns": list(key)}, evidence))
    return found


def _retain_type(c: Event, rows: int) -> list[Suggestion]:
    """A string column whose every value read as a number, a boolean or a date: an
    ``expression`` with the very test the profile counted."""
    parses = c.get("parses")
    if not parses or c["count"] == 0:
        return []
    for what in ("number", "boolean", "date"):
        if parses.get(what) == 1:
            test = render_expr(parse_test(Col(c["column"]), what))
            source = "Deequ RetainTypeRule" if what != "date" else "as RetainTypeRule, for dates"
            rule = {
                "type": "expression",
                "name": f"{c['column']} reads as {what}s",
                "expression": f"{render_expr(Col(c['column']))} IS NULL OR {test}",
            }
            evidence = f"all {_n(c['count'])} values read as {what}s ({source})"
            return [Suggestion(rule, evidence)]
    return []


def _entries(c: Event) -> list[tuple[Any, int]]:
    """Deequ's histogram of the column: its values and, when it has nulls, one entry
    for them."""
    entries = [(t["value"], t["count"]) for t in c["top_values"]]
    return entries + ([(None, c["nulls"])] if c["nulls"] else [])


def _categorical(c: Event, rows: int) -> list[Suggestion]:
    if c["family"] not in ("string", "integral") or not c.get("frequencies_complete"):
        return []
    entries = _entries(c)
    if not entries or rows == 0:
        return []
    unique_ratio = sum(1 for _, n in entries if n == 1) / len(entries)
    values = [v for v, _ in entries if v is not None]
    if unique_ratio <= 0.1 and values:
        evidence = (
            f"{len(values)} distinct value{'s' if len(values) > 1 else ''} in {_n(rows)} rows, "
            f"{sum(1 for _, n in entries if n == 1)} of them seen once (Deequ CategoricalRangeRule)"
        )
        return [Suggestion({"type": "accepted_values", "column": c["column"], "values": values},
                           evidence)]  # fmt: skip
    if unique_ratio > 0.4:
        return []
    top, covered = [], 0.0
    for value, n in sorted(entries, key=lambda e: -e[1]):
        if covered < 0.9:
            covered += n / rows
            top.append(value)
    if covered >= 1 or not [v for v in top if v is not None]:
        return []
    bound = wald_lower(covered, rows)
    rule = {"type": "accepted_values", "column": c["column"],
            "values": [v for v in top if v is not None],
            "tolerance": f"{((1 - bound) * 100).normalize():f}%"}  # fmt: skip
    evidence = (
        f"the {len(top)} most frequent values cover {covered:.2%} of {_n(rows)} rows; allowed"
        " outside: 1 - the 95% Wald lower bound (Deequ FractionalCategoricalRangeRule)"
    )
    return [Suggestion(rule, evidence)]


def _number(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        found = Decimal(str(value))
    except ArithmeticError:
        return None
    return found if found.is_finite() else None


def _range(c: Event, rows: int) -> list[Suggestion]:
    """The observed range widened by 10% of its width on each side, kept at 0 or above
    for a column without negatives (Deequ's ``NonNegativeNumbersRule``, folded in: one
    rule per column); integers rounded outwards. Not for a column with NaN, which is
    above every bound."""
    if c["family"] not in NUMERIC or c.get("nan"):
        return []
    low, high = _number(c["min"]), _number(c["max"])
    if low is None or high is None:
        return []
    margin = (high - low) * RANGE_MARGIN or abs(high) * RANGE_MARGIN or Decimal(1)
    lo, hi = low - margin, high + margin
    if low >= 0:
        lo = max(lo, Decimal(0))
    if c["family"] == "integral":
        lo, hi = Decimal(math.floor(lo)), Decimal(math.ceil(hi))
    rule = {"type": "range", "column": c["column"], "min": _plain(lo), "max": _plain(hi)}
    evidence = f"observed {c['min']} to {c['max']}, widened by 10% of the range each side"
    if low >= 0:
        evidence += ", not below 0 (Deequ NonNegativeNumbersRule)"
    return [Suggestion(rule, evidence)]


def _plain(value: Decimal) -> int | float | Decimal:
    if value == value.to_integral_value():
        return int(value)
    return value.normalize()


def _lengths(c: Event, rows: int) -> list[Suggestion]:
    lengths = c.get("lengths")
    if not lengths or lengths.get("min") is None:
        return []
    rule: dict[str, Any] = {"type": "length", "column": c["column"]}
    if lengths["min"] > 0:
        rule["min"] = lengths["min"]
    rule["max"] = lengths["max"]
    evidence = f"lengths {lengths['min']} to {lengths['max']} (Deequ's HasMinLength, HasMaxLength)"
    return [Suggestion(rule, evidence)]


def _formats(c: Event, rows: int) -> list[Suggestion]:
    formats = c.get("formats")
    if not formats or c["count"] == 0:
        return []
    for fmt, pattern in FORMATS.items():
        if formats.get(fmt) == 1:
            evidence = f"all {_n(c['count'])} values look like {fmt.replace('_', ' ')}s"
            if c["nulls"] == 0:
                rule = {"type": "regex", "column": c["column"], "pattern": pattern}
            else:  # a regex rule fails a null; a missing value is never invalid
                rule = {"type": "invalid_count", "column": c["column"], "valid_regex": pattern,
                        "must_be": "= 0"}  # fmt: skip
            return [Suggestion(rule, evidence)]
    return []


def _freshness(c: Event, rows: int, now: dt.datetime | None = None) -> list[Suggestion]:
    """The newest value's age now, times 1.5, plus a day, in whole days."""
    if c["family"] != "temporal" or c["max"] is None:
        return []
    newest = dt.datetime.fromisoformat(c["max"])
    if newest.tzinfo is None:
        newest = newest.replace(tzinfo=dt.datetime.now().astimezone().tzinfo)
    current = now or dt.datetime.now(dt.timezone.utc)
    age = max((current - newest).total_seconds(), 0) / 86_400
    days = math.ceil(age * 1.5) + 1
    rule = {"type": "freshness", "column": c["column"], "must_be": f"< {days}d"}
    evidence = f"newest value {c['max']}, {age:.1f} days old when profiled"
    return [Suggestion(rule, evidence)]


def table_suggestions(columns: Sequence[Event], table: Event) -> list[Suggestion]:
    """The table's own suggestions: its schema and its row count band."""
    rows, sample = table["row_count"], table.get("sample")
    types = {c["column"]: c["type"] for c in columns}
    found = [Suggestion({"type": "schema", "column_types": types}, "the observed types")]
    if rows == 0:
        return found  # a band of 0 to 0 rows would fail as soon as data arrives
    estimate = Decimal(rows) / Decimal(str(sample)) if sample else Decimal(rows)
    low, high = (math.floor(estimate * ROW_BAND[0]), math.ceil(estimate * ROW_BAND[1]))
    what = f"{_n(rows)} rows" + (f" in a {sample:g} sample" if sample else "")
    found.append(
        Suggestion({"type": "row_count", "min": low, "max": high},
                   f"{what}; a band of half the count either way")
    )  # fmt: skip
    return found


def suggest_yaml(
    events: Sequence[Event],
    source: Mapping[str, Any],
    *,
    name: str | None = None,
    keys: Sequence[str] | None = None,
) -> str:
    """The starter config: one table (``name``, else the profiled one's), its ``source``
    (a native source mapping), its ``keys`` (given, else the first key the profile
    confirmed), every suggestion commented with its evidence."""
    columns = [e for e in events if e["event"] == "profile_column"]
    table = next(e for e in events if e["event"] == "profile_table")
    rows = table["row_count"]
    rules = table_suggestions(columns, table) + key_suggestions(columns, table)
    for column in columns:
        rules += column_suggestions(column, rows)
    lines = [f"# Suggested by `assay suggest` from a profile of {table['source']}",
             f"# ({_n(rows)} rows{_sampled(table)}). Each rule says the evidence it was suggested"
             " on; review before relying on it.", *_header_notes(table, source),
             "version: 1", "tables:", f"  - name: {_scalar(name or table['table'])}",
             "    source:"]  # fmt: skip
    lines += [f"      {k}: {_scalar(v)}" for k, v in source.items()]
    chosen = list(keys) if keys else table_keys(table)
    if chosen:
        lines.append(f"    keys: {_scalar(chosen)}")
    lines.append("    rules:")
    for s in rules:
        lines.append(f"      # {s.evidence}")
        lines += _rule_lines(s.rule)
    return "\n".join(lines) + "\n"


def table_keys(table: Event) -> list[str]:
    """The key a table gets when none is given: the first candidate key the profile
    confirmed, one column before two."""
    confirmed = sorted((list(k) for k in table.get("candidate_keys") or ()), key=len)
    return confirmed[0] if confirmed else []


def _header_notes(table: Event, source: Mapping[str, Any]) -> list[str]:
    notes = []
    if table["row_count"] == 0:
        notes.append("# The table had no rows: only its schema is suggested; suggest again once"
                     " it has data.")  # fmt: skip
    path = source.get("path")
    if isinstance(path, str) and "://" not in path and not path.startswith("/"):
        notes.append(f"# {path} is relative to the directory `assay suggest` ran in, as a"
                     " config's paths are to its own: save the config there.")  # fmt: skip
    return notes


def suggestion_warnings(events: Sequence[Event], keys: Sequence[str] | None = None,
                        keys_given: str = "") -> list[str]:  # fmt: skip
    """What the user should know of a suggestion beyond its comments: an empty table,
    and ``--keys`` the profile did not confirm unique.

    Raises:
        ValueError: a key column is not among the profiled columns (the message names it).
    """
    table = next(e for e in events if e["event"] == "profile_table")
    profiled = [e["column"] for e in events if e["event"] == "profile_column"]
    unknown = [k for k in keys or () if k not in profiled]
    if unknown:
        raise ValueError(f"--keys: no column {', '.join(unknown)} in {table['source']} "
                         f"(profiled: {', '.join(profiled)})")  # fmt: skip
    found = []
    if table["row_count"] == 0:
        found.append(f"{table['source']} has no rows: only its schema is suggested (no row"
                     " count, value or key bounds from an empty table)")  # fmt: skip
    confirmed = [sorted(k) for k in table.get("candidate_keys") or ()]
    if keys and sorted(keys) not in confirmed:
        found.append(f"--keys {keys_given or ','.join(keys)}: the profile did not confirm them"
                     " unique (it checks single columns and a pair); the config names them"
                     " as keys with no unique rule")  # fmt: skip
    return found


def _sampled(table: Event) -> str:
    sample = table.get("sample")
    return "" if not sample else f", a {sample:g} sample: bounds may not hold on every row"


def _rule_lines(rule: Mapping[str, Any]) -> list[str]:
    lines = []
    for i, (key, value) in enumerate(rule.items()):
        lead = "      - " if i == 0 else "        "
        lines.append(f"{lead}{key}: {_scalar(value)}")
    return lines


_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n"})


def _scalar(value: Any) -> str:
    """A YAML flow value: a word as it is, other strings, lists and mappings as JSON
    (JSON is YAML), numbers plain (a decimal as its exact digits)."""
    if isinstance(value, str) and _PLAIN.fullmatch(value) and value.lower() not in _YAML_WORDS:
        return value
    if isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_scalar(k)}: {_scalar(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)
