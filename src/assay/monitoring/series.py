"""What a run reads of the metrics store: the earlier values of the rules it judges over
time (:class:`Wanted`), as :class:`Point` series by table and rule (:data:`History`).
Both backends filter and bound the same way: the rows of the rules asked for, of runs
before this one carrying this run's tags, the newest ``runs`` of each.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.monitoring.records import parse_time, utc_text

Key = tuple[str, str, str]
"""(table, rule identity, measure)."""


@dataclass(frozen=True, slots=True)
class Point:
    """A rule's value in one earlier run."""

    run_time: str
    value: float
    run_id: str = ""


History = Mapping[tuple[str, str], tuple[Point, ...]]
"""Earlier values by (table, rule identity), oldest first."""


@dataclass(frozen=True, slots=True)
class Wanted:
    """The history a run reads: for each (table, rule, measure), at most ``runs`` earlier
    values; only runs before ``before`` (other than ``run_id``) whose tags include every
    one of ``tags`` (a run tagged ``env=prod`` is judged against prod runs only)."""

    runs: Mapping[Key, int]
    before: dt.datetime
    run_id: str
    tags: tuple[tuple[str, str], ...] = ()

    @property
    def keys(self) -> frozenset[Key]:
        return frozenset(self.runs)

    @property
    def longest(self) -> int:
        return max(self.runs.values(), default=0)

    def matches(self, tags: Mapping[str, Any], run_id: Any, run_time: dt.datetime) -> bool:
        """Whether a stored row belongs to this run's history (its rule aside)."""
        if run_id == self.run_id or run_time >= self.before:
            return False
        return all(tags.get(k) == v for k, v in self.tags)


def newest(
    rows: Iterable[Mapping[str, Any]], wanted: Wanted
) -> dict[tuple[str, str], tuple[Point, ...]]:
    """The newest ``runs`` values of each wanted key among ``rows`` (already filtered),
    oldest first; one value per run (the first row read of a run)."""
    series: dict[Key, dict[str, tuple[dt.datetime, Point]]] = {}
    for row in rows:
        key = (row["table"], row["rule"], row["measure"])
        moment = row["run_time"]
        moment = parse_time(moment) if isinstance(moment, str) else moment
        point = Point(utc_text(moment), float(row["value"]), str(row.get("run_id") or ""))
        series.setdefault(key, {}).setdefault(point.run_id or point.run_time, (moment, point))
    history: dict[tuple[str, str], tuple[Point, ...]] = {}
    for key, runs in series.items():
        ordered = [p for _, p in sorted(runs.values(), key=lambda mp: mp[0])]
        history[(key[0], key[1])] = tuple(ordered[-wanted.runs[key] :])
    return history
