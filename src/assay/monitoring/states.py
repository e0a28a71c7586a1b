"""The states of an incremental table's partitions as store rows (docs/incremental.md#the-states),
and back.

Each run of an incremental table stores the states of the partitions it scanned only: a
row per partition (rule ``(table)``: its fingerprint, ``value`` its rows) and a row per
rule and partition (the rule's identity: its measures' partial values, and a digest of
what they measure); a partition gone since is marked deleted (a ``(table)`` row), and a
run that scanned every partition (a first run, ``--full``) marks a baseline (a
``(table)`` row whose ``columns`` is ``(baseline)``): nothing stored before it is read.
The partition is the row's ``columns`` (its value as JSON), the bytes the row's
``state`` (JSON: every value tagged with its type, so a DECIMAL keeps its digits, a NaN
its NaN-ness, a date its type).

A table's states are read per partition: the newest ``(table)`` row of each partition
since the newest baseline (among the runs carrying the run's tags) says its fingerprint,
or that it is gone; its rules' states are those the same run stored (a run scanning a
partition stores every rule's state of it, so an older state of a rule is of older data).
"""

from __future__ import annotations

import base64
import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import orjson

from assay.monitoring.records import STATE_MEASURE, TABLE_RULE

PartitionKey = str
"""A partition's value, encoded (:func:`partition_key`)."""


def encode(value: Any) -> Any:
    """A value as plain JSON, tagged by type (``["d", "1.50"]`` a DECIMAL...)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ["b", value]
    if isinstance(value, int):
        return ["i", str(value)]
    if isinstance(value, float):
        return ["f", repr(value) if math.isfinite(value) else str(value)]
    if isinstance(value, Decimal):
        return ["d", str(value)]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, dt.datetime):
        return ["ts", value.isoformat()]
    if isinstance(value, dt.date):
        return ["date", value.isoformat()]
    if isinstance(value, (bytes, bytearray)):
        return ["bytes", base64.b64encode(bytes(value)).decode("ascii")]
    if isinstance(value, (list, tuple)):
        return ["list", [encode(v) for v in value]]
    raise TypeError(f"a state cannot hold a {type(value).__name__}")


def decode(value: Any) -> Any:
    """The value :func:`encode` was given."""
    if value is None:
        return None
    tag, text = value
    if tag == "b":
        return bool(text)
    if tag == "i":
        return int(text)
    if tag == "f":
        return float(text)
    if tag == "d":
        return Decimal(text)
    if tag == "s":
        return text
    if tag == "ts":
        return dt.datetime.fromisoformat(text)
    if tag == "date":
        return dt.date.fromisoformat(text)
    if tag == "bytes":
        return base64.b64decode(text)
    if tag == "list":
        return [decode(v) for v in text]
    raise ValueError(f"not a state value: {value!r}")


def partition_key(value: Any) -> PartitionKey:
    """A partition's value as the text that keys it (a null partition is ``null``)."""
    return orjson.dumps(encode(value)).decode()


def partition_value(key: PartitionKey) -> Any:
    return decode(orjson.loads(key))


BASELINE = "(baseline)"
"""The ``columns`` of the ``(table)`` row marking a run that stored every partition's
state: the states stored before it are not read."""
_Order = tuple[dt.datetime, str]


@dataclass(frozen=True)
class Stored:
    """An incremental table's states as stored: each partition's fingerprint and rows,
    and each rule's partial values (with their digest) by partition; ``runs``: the run
    that stored each partition's states (none: nothing stored)."""

    fingerprints: Mapping[PartitionKey, str] = field(default_factory=dict)
    rows: Mapping[PartitionKey, int] = field(default_factory=dict)
    rules: Mapping[tuple[str, PartitionKey], tuple[str, list[Any]]] = field(default_factory=dict)
    runs: Mapping[PartitionKey, str] = field(default_factory=dict)

    def merged_from(self, keys: Iterable[PartitionKey]) -> str:
        """The newest run among those that stored the states of ``keys`` (empty: none)."""
        return max((self.runs[k] for k in keys if k in self.runs), default="")


def state_rows(
    table: str,
    fingerprints: Mapping[PartitionKey, str],
    rows: Mapping[PartitionKey, int],
    rules: Mapping[tuple[str, PartitionKey], tuple[str, Sequence[Any]]],
    deleted: Iterable[PartitionKey] = (),
    baseline: bool = False,
) -> list[dict[str, Any]]:
    """The store rows of a table's states (without ``run_time``, ``server``, ``tags``
    and ``run_id``, which the run's append adds): the partitions ``fingerprints`` holds
    and their rules' states, a marker per ``deleted`` partition, and a ``baseline``
    marker when these are every partition's states."""
    out = []
    if baseline:
        state = orjson.dumps({"baseline": True, "partitions": len(fingerprints)})
        out.append(_row(table, TABLE_RULE, "table", BASELINE, sum(rows.values()), state))
    for key in sorted(deleted):
        out.append(_row(table, TABLE_RULE, "table", key, 0, orjson.dumps({"deleted": True})))
    for key, fingerprint in sorted(fingerprints.items()):
        state = orjson.dumps({"fingerprint": fingerprint})
        out.append(_row(table, TABLE_RULE, "table", key, rows.get(key, 0), state))
    for (identity, key), (digest, partials) in sorted(rules.items()):
        state = orjson.dumps({"digest": digest, "partials": [encode(p) for p in partials]})
        out.append(_row(table, identity, "state", key, rows.get(key, 0), state))
    return out


def _row(table: str, rule: str, kind: str, key: str, rows: int, state: bytes) -> dict[str, Any]:
    return {"table": table, "rule": rule, "rule_type": kind, "columns": key,
            "measure": STATE_MEASURE, "value": float(rows), "severity": None,
            "state": state}  # fmt: skip


def newest_states(rows: Iterable[Mapping[str, Any]], tables: Iterable[str]) -> dict[str, Stored]:
    """The states of each of ``tables`` among ``rows`` (state rows matched to the run's
    tags, in any order; their ``state`` bytes or base64 text): per partition, those of
    the newest run that stored it since the table's newest baseline, the deleted ones
    left out. Only the newest row of each (table, rule, partition) is kept while
    reading, and only the kept ones' states decoded."""
    wanted = set(tables)
    newest: dict[tuple[str, str, str], tuple[_Order, Mapping[str, Any]]] = {}
    baselines: dict[str, _Order] = {}
    for row in rows:
        table = row["table"]
        if table not in wanted or row.get("state") is None:
            continue
        order = (row["run_time"], str(row.get("run_id") or ""))
        key = (table, str(row["rule"]), str(row["columns"]))
        if key[1:] == (TABLE_RULE, BASELINE):
            baselines[table] = max(order, baselines.get(table, order))
        elif key not in newest or newest[key][0] < order:
            newest[key] = (order, row)
    return {table: _stored(table, newest, baselines.get(table)) for table in wanted}


def _stored(
    table: str,
    newest: Mapping[tuple[str, str, str], tuple[_Order, Mapping[str, Any]]],
    baseline: _Order | None,
) -> Stored:
    """One table's states from the newest row of each of its (rule, partition)."""
    fingerprints, counts, runs = {}, {}, {}
    for (name, rule, key), (order, row) in newest.items():
        if name != table or rule != TABLE_RULE or (baseline is not None and order < baseline):
            continue
        state = orjson.loads(_bytes(row["state"]))
        if "fingerprint" in state:
            fingerprints[key], counts[key] = str(state["fingerprint"]), int(row["value"])
            runs[key] = order[1]
    rules = {}
    for (name, rule, key), (order, row) in newest.items():
        if name == table and rule != TABLE_RULE and key in runs and order[1] == runs[key]:
            state = orjson.loads(_bytes(row["state"]))
            rules[(rule, key)] = (str(state["digest"]), [decode(p) for p in state["partials"]])
    return Stored(fingerprints, counts, rules, runs)


def _bytes(state: Any) -> bytes:
    """A state as bytes (a file's line holds it as base64 text)."""
    return base64.b64decode(state) if isinstance(state, str) else bytes(state)
