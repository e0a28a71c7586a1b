"""A rule's identity in the metrics store: what keeps its history across runs.

A named rule is its name. An unnamed rule is its type, its columns and the parameters
that change what it measures (bounds, patterns, values, a filter), written as JSON with
sorted keys: ``range(quantity) {"max":8,"min":1}``. The settings that only judge the
measured value (``must_be``, ``warn``, ``tolerance``, ``change``, ``anomaly``, ``level``)
are left out, so tightening a threshold keeps the history; changing a bound starts a new
one (docs/monitoring.md#identities). Rules of one table with the same identity are told
apart by their order: the second is ``... #2``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from assay.ir.rules import Rule

JUDGING_KEYS = frozenset(
    {"must_be", "warn", "tolerance", "change", "anomaly", "column", "columns", "on_failure"}
)
"""Parameters that judge a measured value without changing it: not part of an identity."""


def rule_identity(rule: Rule) -> str:
    """The identity of one rule, before telling equal ones apart (:func:`identities`)."""
    if rule.name:
        return rule.name
    text = rule.kind + (f"({','.join(rule.columns)})" if rule.columns else "")
    measured = {k: v for k, v in rule.params if k not in JUDGING_KEYS}
    if measured:
        text += " " + json.dumps(measured, sort_keys=True, separators=(",", ":"), default=str)
    return text


def identities(rules: Sequence[Rule]) -> tuple[str, ...]:
    """The identities of a table's rules, in order; the n-th rule (n > 1) of an identity
    already taken is ``identity #n``."""
    seen: dict[str, int] = {}
    out = []
    for rule in rules:
        base = rule_identity(rule)
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base} #{seen[base]}")
    return tuple(out)
