"""The order a run's events are streamed in: as the tables finish (``finish``, the
default), or in config order (``config``: ``assay run --order config``,
``assay.run(order="config")``).

Tables run concurrently, so their blocks (each table's results, then its ``table`` line)
arrive in the order they finish. :class:`ConfigOrder` holds back each block until every
table before it in the config has been passed on: tables in config order, each table's
results by rule index, then the comparisons in config order, the summary last. A block is
passed on as soon as the tables before it are, so the lines still stream (a fast table
waits only for the slower ones above it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, TypeVar, get_args

from assay.errors import ConfigError
from assay.ir.suite import Suite
from assay.report.comparison import ComparisonResult
from assay.report.events import RuleResult, RunSummary, TableFinished

Order = Literal["finish", "config"]
ORDERS: tuple[str, ...] = get_args(Order)

Sink = Callable[[Any], None]
T = TypeVar("T")


def order_of(value: str, what: str = "order") -> Order:
    """``value`` checked: one of :data:`ORDERS` (``what`` names it in the error).

    >>> order_of("config")
    'config'
    """
    if value not in ORDERS:
        raise ConfigError(
            f"{what} must be finish or config, not {value!r}",
            hint="finish: each table's lines as it finishes (the default); config: in config order",
        )
    return value  # type: ignore[return-value]


def ordered(order: str, suite: Suite, sink: Sink) -> Sink:
    """``sink`` itself for ``finish``; for ``config``, a :class:`ConfigOrder` before it."""
    if order_of(order) == "finish":
        return sink
    return ConfigOrder(suite, sink)


class _Slots(Generic[T]):
    """Items expected under names, in order: :meth:`put` holds one, :meth:`ready` hands
    over those now next in line. The names need not be unique (an item takes the first
    free slot of its name); a name not expected gets a slot at the end."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.items: list[T | None] = [None] * len(self.names)
        self.next = 0

    def put(self, name: str, item: T) -> None:
        free = [i for i, n in enumerate(self.names) if n == name and self.items[i] is None]
        if free:
            self.items[free[0]] = item
        else:
            self.names.append(name)
            self.items.append(item)

    def ready(self) -> list[T]:
        found = []
        while self.next < len(self.items) and (item := self.items[self.next]) is not None:
            found.append(item)
            self.next += 1
        return found

    @property
    def done(self) -> bool:
        """Every expected item was handed over."""
        return self.next == len(self.items)

    def rest(self) -> list[T]:
        """Every item still held, in order (the slots of what never came skipped)."""
        found = [i for i in self.items[self.next :] if i is not None]
        self.next = len(self.items)
        return found


class ConfigOrder:
    """A sink passing a run's events on to ``sink`` in config order (module docstring).
    Thread-safe: the tables' workers call it at once; ``sink`` is called by one at a
    time. :meth:`close` passes on whatever is still held (a run that stopped half-way)."""

    def __init__(self, suite: Suite, sink: Sink) -> None:
        self._sink = sink
        self._lock = threading.Lock()
        self._results: dict[str, list[RuleResult]] = {}
        self._tables: _Slots[list[Any]] = _Slots([t.name for t in suite.tables])
        self._comparisons: _Slots[ComparisonResult] = _Slots([c.name for c in suite.comparisons])

    def __call__(self, event: Any) -> None:
        with self._lock:
            if isinstance(event, RuleResult):
                self._results.setdefault(event.table, []).append(event)
                return
            if isinstance(event, TableFinished):
                held = sorted(self._results.pop(event.table, []), key=lambda r: r.rule_index)
                self._tables.put(event.table, [*held, event])
            elif isinstance(event, ComparisonResult):
                self._comparisons.put(event.comparison, event)
            elif isinstance(event, RunSummary):
                self._flush()
            self._pass_ready()
            if not isinstance(event, (TableFinished, ComparisonResult)):
                self._sink(event)  # the summary (last), or an event of no table

    def _pass_ready(self) -> None:
        """The table blocks next in line, then, once every table is passed on, the
        comparisons next in line."""
        for block in self._tables.ready():
            for event in block:
                self._sink(event)
        if self._tables.done:
            for event in self._comparisons.ready():
                self._sink(event)

    def _flush(self) -> None:
        """Everything held, in order: the tables' blocks, results of a table with no
        table line, the comparisons."""
        for block in self._tables.rest():
            for event in block:
                self._sink(event)
        for results in self._results.values():
            for event in results:
                self._sink(event)
        self._results.clear()
        for event in self._comparisons.rest():
            self._sink(event)

    def close(self) -> None:
        """Pass on every event still held."""
        with self._lock:
            self._flush()
