"""The states of an incremental table's partitions as store rows (docs/incremental.md#the-states),
and back.

Each run of an incremental table stores the state of every partition it knows, the ones
it did not scan carried over from the run before: a row per partition (rule
``(table)``: its fingerprint, ``value`` its rows) and a row per rule and partition (the
rule's identity: its measures' partial values, and a digest of what they measure). The
partition is the row's ``columns`` (its value as JSON), the bytes the row's ``state``
(JSON: every value tagged with its type, so a DECIMAL keeps its digits, a NaN its
NaN-ness, a date its type). The newest run of the table carrying the run's tags holds
its states.
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


@dataclass(frozen=True)
class Stored:
    """An incremental table's states as the newest run stored them: each partition's
    fingerprint and rows, and each rule's partial values (with their digest) by
    partition; ``run_id`` the run that stored them (empty: none)."""

    fingerprints: Mapping[PartitionKey, str] = field(default_factory=dict)
    rows: Mapping[PartitionKey, int] = field(default_factory=dict)
    rules: Mapping[tuple[str, PartitionKey], tuple[str, list[Any]]] = field(default_factory=dict)
    run_id: str = ""


def state_rows(
    table: str,
    fingerprints: Mapping[PartitionKey, str],
    rows: Mapping[PartitionKey, int],
    rules: Mapping[tuple[str, PartitionKey], tuple[str, Sequence[Any]]],
) -> list[dict[str, Any]]:
    """The store rows of a table's states (without ``run_time``, ``server``, ``tags``
    and ``run_id``, which the run's append adds)."""
    out = []
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


def newest_states(rows: Iterable[Mapping[str, Any]], table: str) -> Stored:
    """The states of ``table`` in the newest run among ``rows`` (checked store rows
    already matched to the run's tags) that stored any."""
    runs: dict[str, tuple[dt.datetime, list[Mapping[str, Any]]]] = {}
    for row in rows:
        if row["table"] != table or row["measure"] != STATE_MEASURE or row.get("state") is None:
            continue
        run = str(row.get("run_id") or "")
        moment = row["run_time"]
        runs.setdefault(run, (moment, []))[1].append(row)
    if not runs:
        return Stored()
    run_id, (_, newest) = max(runs.items(), key=lambda item: (item[1][0], item[0]))
    fingerprints, counts, rules = {}, {}, {}
    for row in newest:
        key, state = str(row["columns"]), orjson.loads(row["state"])
        if row["rule"] == TABLE_RULE:
            fingerprints[key] = str(state["fingerprint"])
            counts[key] = int(row["value"])
        else:
            rules[(row["rule"], key)] = (
                str(state["digest"]),
                [decode(p) for p in state["partials"]],
            )
    return Stored(fingerprints, counts, rules, run_id)
